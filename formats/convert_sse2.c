// SPDX-License-Identifier: MIT
/* SSE2 conversion kernels (x86-64 baseline, compiled with -msse2).  SSE2 has no byte shuffle,
 * so p12 is packed and unpacked with 64-bit and byte-granular shifts instead of pshufb. */
#include <emmintrin.h>

#include "convert.h"

/* Unaligned loads and stores through void * (no alignment promise, no -Wcast-align). */
static inline __m128i ld(const void *p)
{
	return _mm_loadu_si128((const __m128i *)p);
}

static inline void st(void *p, __m128i v)
{
	_mm_storeu_si128((__m128i *)p, v);
}

static inline __m128i clamp12(__m128i x)
{
	return _mm_min_epi16(_mm_max_epi16(x, _mm_set1_epi16(ZCS_S12_MIN)),
			     _mm_set1_epi16(ZCS_S12_MAX));
}

/* ---- radio int16 -> wire ---- */

/* sat12(x) >> 4 == clamp(x >> 4, -128, 127), which is exactly what packs does. */
static void pack_i8(void *dst, const int16_t *src, size_t pairs)
{
	uint8_t *d = dst;
	size_t n = 0;

	for (; n + 8 <= pairs; n += 8) {
		const __m128i a = _mm_srai_epi16(ld(src + 2 * n), 4);
		const __m128i b = _mm_srai_epi16(ld(src + 2 * n + 8), 4);

		st(d + 2 * n, _mm_packs_epi16(a, b));
	}
	zcs_formats_scalar_pack_i8(d + 2 * n, src + 2 * n, pairs - n);
}

static void pack_i16(void *dst, const int16_t *src, size_t pairs)
{
	uint8_t *d = dst;
	size_t n = 0;

	for (; n + 8 <= pairs; n += 8) {
		st(d + 4 * n, clamp12(ld(src + 2 * n)));
		st(d + 4 * n + 16, clamp12(ld(src + 2 * n + 8)));
	}
	zcs_formats_scalar_pack_i16(d + 4 * n, src + 2 * n, pairs - n);
}

/* Clamped, masked pairs -> 32-bit words I | Q << 12 (pmaddwd with 1 and 4096). */
static inline __m128i words24(__m128i x)
{
	const __m128i u = _mm_and_si128(clamp12(x), _mm_set1_epi16(0x0fff));

	return _mm_madd_epi16(u, _mm_set1_epi32(1 | 4096 << 16));
}

/* 4 pairs -> 12 bytes; the 16-byte store writes 4 bytes of junk that the next step (or the
 * scalar tail) overwrites, hence 2 pairs of slack. */
static void pack_p12(void *dst, const int16_t *src, size_t pairs)
{
	const __m128i m24 = _mm_set1_epi64x(0xffffff);
	const __m128i m24hi = _mm_set1_epi64x(0xffffff000000);
	const __m128i keep_lo = _mm_set_epi64x(0, 0xffffffffffff);        /* bytes 0..5 */
	const __m128i keep_hi = _mm_set_epi64x(0xffffffff, -0x1000000000000); /* bytes 6..11 */
	uint8_t *d = dst;
	size_t n = 0;

	for (; n + 4 + 2 <= pairs; n += 4) {
		const __m128i w = words24(ld(src + 2 * n));
		/* two 24-bit words per 64-bit lane -> one 48-bit value per lane */
		const __m128i t = _mm_or_si128(_mm_and_si128(w, m24),
					       _mm_and_si128(_mm_srli_epi64(w, 8), m24hi));
		/* close the 2-byte gap between the lanes */
		const __m128i r = _mm_or_si128(_mm_and_si128(t, keep_lo),
					       _mm_and_si128(_mm_srli_si128(t, 2), keep_hi));

		st(d + 3 * n, r);
	}
	zcs_formats_scalar_pack_p12(d + 3 * n, src + 2 * n, pairs - n);
}

/* ---- wire -> s16 (= v << 4), 4 pairs a step ---- */

#define STEP 4
#define SLACK_i8 0
#define SLACK_p12 2 /* the 16-byte load takes 12 bytes */
#define SLACK_i16 0

static inline __m128i load_i8(const uint8_t *p)
{
	const __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)p);

	return _mm_unpacklo_epi8(_mm_setzero_si128(), b);
}

static inline __m128i load_p12(const uint8_t *p)
{
	const __m128i v = ld(p);
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

static inline __m128i load_i16(const uint8_t *p)
{
	return _mm_slli_epi16(clamp12(ld(p)), 4);
}

/* ---- s16 -> consumer types ---- */

static inline __m128i to_s8(__m128i s)
{
	const __m128i h = _mm_srai_epi16(s, 8);

	return _mm_packs_epi16(h, h);
}

static inline void store_cs8(uint8_t *d, __m128i s)
{
	_mm_storel_epi64((__m128i *)(void *)d, to_s8(s));
}

static inline void store_cu8(uint8_t *d, __m128i s)
{
	_mm_storel_epi64((__m128i *)(void *)d, _mm_xor_si128(to_s8(s), _mm_set1_epi8(-128)));
}

static inline void store_cs16(uint8_t *d, __m128i s)
{
	st(d, s);
}

static inline void store_cf32(uint8_t *d, __m128i s)
{
	const __m128 k = _mm_set1_ps(1.0f / 32768.0f);
	const __m128i lo = _mm_srai_epi32(_mm_unpacklo_epi16(s, s), 16);
	const __m128i hi = _mm_srai_epi32(_mm_unpackhi_epi16(s, s), 16);

	_mm_storeu_ps((float *)(void *)d, _mm_mul_ps(_mm_cvtepi32_ps(lo), k));
	_mm_storeu_ps((float *)(void *)(d + 16), _mm_mul_ps(_mm_cvtepi32_ps(hi), k));
}

ZCS_SIMD_UNPACK_W(i8)
ZCS_SIMD_UNPACK_W(p12)
ZCS_SIMD_UNPACK_W(i16)

/* cu8 of i8 wire is the wire byte with its top bit flipped ((v >> 4) + 128 == i8 ^ 0x80). */
static void unpack_i8_cu8_xor(void *dst, const void *src, size_t pairs)
{
	const __m128i bias = _mm_set1_epi8(-128);
	const uint8_t *s = src;
	uint8_t *d = dst;
	size_t n = 0;

	for (; n + 8 <= pairs; n += 8)
		st(d + 2 * n, _mm_xor_si128(ld(s + 2 * n), bias));
	zcs_formats_scalar_unpack_i8_cu8(d + 2 * n, s + 2 * n, pairs - n);
}

void zcs_formats_fill_sse2(struct zcs_kernels *k)
{
	k->pack[ZCS_WIRE_I8] = pack_i8;
	k->pack[ZCS_WIRE_P12] = pack_p12;
	k->pack[ZCS_WIRE_I16] = pack_i16;
	ZCS_FILL_UNPACK_ROW(k, ZCS_WIRE_I8, unpack, i8);
	ZCS_FILL_UNPACK_ROW(k, ZCS_WIRE_P12, unpack, p12);
	ZCS_FILL_UNPACK_ROW(k, ZCS_WIRE_I16, unpack, i16);
	k->unpack[ZCS_WIRE_I8][ZCS_SAMPLE_CU8] = unpack_i8_cu8_xor;
}
