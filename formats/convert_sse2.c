// SPDX-License-Identifier: MIT
/* SSE2 conversion kernels (x86-64 baseline, compiled with -msse2).  SSE2 has no byte shuffle,
 * so p12 is packed and unpacked with 64-bit and byte-granular shifts instead of pshufb. */
#include <emmintrin.h>
#include <string.h>

#include "convert.h"
#include "convert_x86.h"

/* 12 bytes (4 p12 pairs) into the low 12 bytes of a vector, reading nothing past them. */
static inline __m128i ld96(const uint8_t *p)
{
	int32_t last;

	memcpy(&last, p + 8, sizeof(last));
	return _mm_unpacklo_epi64(ld64(p), _mm_cvtsi32_si128(last));
}

static inline __m128i clamp12(__m128i x)
{
	return _mm_min_epi16(_mm_max_epi16(x, _mm_set1_epi16(ZCS_S12_MIN)),
			     _mm_set1_epi16(ZCS_S12_MAX));
}

/* x / 2^n rounded to nearest, halves away from zero: (x + 2^(n-1) - (x < 0)) >> n, n = 4 or 8.
 * The add of the half saturates only for x within 2^(n-1) of 32767, whose result packs saturates
 * to 127 either way; a negative x cannot overflow. */
static inline __m128i round_shr(__m128i x, int n)
{
	const __m128i t = _mm_adds_epi16(x, _mm_cmpgt_epi16(_mm_setzero_si128(), x));

	return _mm_srai_epi16(_mm_adds_epi16(t, _mm_set1_epi16((short)(1 << (n - 1)))), n);
}

/* ---- radio int16 -> wire, 8 pairs a step (p12: 4) ---- */

/* zcs_s8_of_v(x) == clamp(round(x / 16), -128, 127) for any int16 x: saturating x to 12 bits
 * first changes nothing, as every x from 2040 up rounds to 128 or more and every x from -2048 down
 * to -128 or less, which packs saturates to the int8 limits. */
static inline void pack_i8_8(uint8_t *d, const int16_t *s)
{
	st128(d, _mm_packs_epi16(round_shr(ld128(s), 4), round_shr(ld128(s + 8), 4)));
}

ZCS_SIMD_PACK(i8, 8, 0, pack_i8_8, pack_i8_8)

static inline void pack_i16_8(uint8_t *d, const int16_t *s)
{
	st128(d, clamp12(ld128(s)));
	st128(d + 16, clamp12(ld128(s + 8)));
}

ZCS_SIMD_PACK(i16, 8, 0, pack_i16_8, pack_i16_8)

/* Clamped, masked pairs -> 32-bit words I | Q << 12 (pmaddwd with 1 and 4096). */
static inline __m128i words24(__m128i x)
{
	const __m128i u = _mm_and_si128(clamp12(x), _mm_set1_epi16(0x0fff));

	return _mm_madd_epi16(u, _mm_set1_epi32(1 | 4096 << 16));
}

/* 4 pairs -> 12 bytes, in the low 12 bytes of the result. */
static inline __m128i p12_4(const int16_t *s)
{
	const __m128i keep_lo = _mm_set_epi64x(0, 0xffffffffffff);        /* bytes 0..5 */
	const __m128i keep_hi = _mm_set_epi64x(0xffffffff, -0x1000000000000); /* bytes 6..11 */
	const __m128i w = words24(ld128(s));
	/* two 24-bit words per 64-bit lane -> one 48-bit value per lane */
	const __m128i t = _mm_or_si128(_mm_and_si128(w, _mm_set1_epi64x(0xffffff)),
				       _mm_and_si128(_mm_srli_epi64(w, 8),
						     _mm_set1_epi64x(0xffffff000000)));

	/* close the 2-byte gap between the lanes */
	return _mm_or_si128(_mm_and_si128(t, keep_lo), _mm_and_si128(_mm_srli_si128(t, 2), keep_hi));
}

/* The 12 bytes alone (8 + 4), for the steps near the end. */
static inline void st96(uint8_t *d, __m128i v)
{
	const int32_t last = _mm_cvtsi128_si32(_mm_srli_si128(v, 8));

	st64(d, v);
	memcpy(d + 8, &last, sizeof(last));
}

/* The 16-byte store writes 4 bytes of junk that the next step overwrites: 2 pairs of slack, then
 * exact 12-byte stores. */
static inline void pack_p12_4(uint8_t *d, const int16_t *s)
{
	st128(d, p12_4(s));
}

static inline void pack_p12_4_last(uint8_t *d, const int16_t *s)
{
	st96(d, p12_4(s));
}

ZCS_SIMD_PACK(p12, 4, 2, pack_p12_4, pack_p12_4_last)

/* ---- wire -> s16 (= v << 4), 4 pairs a step ---- */

#define STEP 4
#define SLACK_i8 0
#define SLACK_p12 2 /* the 16-byte load takes 12 bytes */
#define SLACK_i16 0

static inline __m128i load_i8(const uint8_t *p)
{
	const __m128i b = ld64(p);

	return _mm_unpacklo_epi8(_mm_setzero_si128(), b);
}
#define load_last_i8 load_i8

/* Uses bytes 0..11 of v only. */
static inline __m128i p12_to_s16(__m128i v)
{
	/* lane 0: bytes 0..7 (pairs 0, 1), lane 1: bytes 6..13 (pairs 2, 3) */
	const __m128i l = _mm_unpacklo_epi64(v, _mm_srli_si128(v, 6));
	/* one 24-bit word per 32-bit lane */
	const __m128i w = _mm_or_si128(_mm_and_si128(l, _mm_set1_epi64x(0xffffff)),
				       _mm_and_si128(_mm_slli_epi64(l, 8),
						     _mm_set1_epi64x(0x00ffffff00000000)));
	/* I (bits 0..11) and Q (bits 12..23) to the top of their 16-bit halves */
	return _mm_or_si128(_mm_and_si128(_mm_slli_epi32(w, 4), _mm_set1_epi32(0xffff)),
			    _mm_and_si128(_mm_slli_epi32(w, 8), _mm_set1_epi32((int)0xfff00000u)));
}

static inline __m128i load_p12(const uint8_t *p)
{
	return p12_to_s16(ld128(p));
}

static inline __m128i load_last_p12(const uint8_t *p)
{
	return p12_to_s16(ld96(p));
}

static inline __m128i load_i16(const uint8_t *p)
{
	return _mm_slli_epi16(clamp12(ld128(p)), 4);
}
#define load_last_i16 load_i16

/* ---- s16 -> consumer types ---- */

/* s16 / 256 rounded as zcs_s8_of_v rounds v / 16; packs saturates 2040..2047 << 4 to 127. */
static inline __m128i to_s8(__m128i s)
{
	const __m128i h = round_shr(s, 8);

	return _mm_packs_epi16(h, h);
}

static inline void store_cs8(uint8_t *d, __m128i s)
{
	st64(d, to_s8(s));
}

static inline void store_cu8(uint8_t *d, __m128i s)
{
	st64(d, _mm_xor_si128(to_s8(s), _mm_set1_epi8(-128)));
}

static inline void store_cs16(uint8_t *d, __m128i s)
{
	st128(d, s);
}

static inline void store_cf32(uint8_t *d, __m128i s)
{
	const __m128 k = _mm_set1_ps(1.0f / 32768.0f);
	const __m128i lo = _mm_srai_epi32(_mm_unpacklo_epi16(s, s), 16);
	const __m128i hi = _mm_srai_epi32(_mm_unpackhi_epi16(s, s), 16);

	_mm_storeu_ps((float *)(void *)d, _mm_mul_ps(_mm_cvtepi32_ps(lo), k));
	_mm_storeu_ps((float *)(void *)(d + 16), _mm_mul_ps(_mm_cvtepi32_ps(hi), k));
}

ZCS_SIMD_UNPACK_I8
ZCS_SIMD_UNPACK_W(p12)
ZCS_SIMD_UNPACK_W(i16)

static inline void xor_cu8(uint8_t *d, const uint8_t *s)
{
	st128(d, _mm_xor_si128(ld128(s), _mm_set1_epi8(-128)));
}

ZCS_SIMD_I8_CU8_XOR(8)

void zcs_formats_fill_sse2(struct zcs_kernels *k)
{
	ZCS_FILL_SIMD(k);
}
