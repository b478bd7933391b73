// SPDX-License-Identifier: MIT
/* AVX2 conversion kernels (compiled with -mavx2, used only when the CPU reports AVX2).
 * p12 goes through vpshufb: pairs become 24-bit words in 32-bit lanes, then bytes move. */
#include <immintrin.h>
#include <string.h>

#include "convert.h"
#include "convert_x86.h"

static inline __m256i ld(const void *p)
{
	return _mm256_loadu_si256((const __m256i *)p);
}

static inline void st(void *p, __m256i v)
{
	_mm256_storeu_si256((__m256i *)p, v);
}

/* 12 bytes (4 p12 pairs) into the low 12 bytes of a vector, reading nothing past them. */
static inline __m128i ld96(const uint8_t *p)
{
	int32_t last;

	memcpy(&last, p + 8, sizeof(last));
	return _mm_insert_epi32(ld64(p), last, 2);
}

static inline __m256i clamp12(__m256i x)
{
	return _mm256_min_epi16(_mm256_max_epi16(x, _mm256_set1_epi16(ZCS_S12_MIN)),
				_mm256_set1_epi16(ZCS_S12_MAX));
}

/* x / 2^n rounded to nearest, halves away from zero (n = 4 or 8): vpmulhrsw by 2^(15-n) is
 * (x * 2^(15-n) + 2^14) >> 15 = (x + 2^(n-1)) >> n in 32-bit precision (halves up, no overflow),
 * taken of x less one where negative (the saturating add keeps -32768, which gives the int8
 * minimum either way).  The mask comes from a compare, not vpsraw: a shift here and the multiply
 * measured 0.5x the old kernel's speed, the compare 0.85x (docs/measurements.md). */
static inline __m256i round_shr(__m256i x, int n)
{
	const __m256i t = _mm256_adds_epi16(x, _mm256_cmpgt_epi16(_mm256_setzero_si256(), x));

	return _mm256_mulhrs_epi16(t, _mm256_set1_epi16((short)(1 << (15 - n))));
}

/* ---- radio int16 -> wire, 16 pairs a step (p12: 8) ---- */

/* zcs_s8_of_v(x) == clamp(round(x / 16), -128, 127) for any int16 x: packs saturates exactly
 * there.  packs works per 128-bit lane, so the 64-bit quarters come out as a0 b0 a1 b1 and are
 * put back in order. */
static inline void pack_i8_16(uint8_t *d, const int16_t *s)
{
	const __m256i a = round_shr(ld(s), 4);
	const __m256i b = round_shr(ld(s + 16), 4);

	st(d, _mm256_permute4x64_epi64(_mm256_packs_epi16(a, b), 0xd8));
}

ZCS_SIMD_PACK(i8, 16, 0, pack_i8_16, pack_i8_16)

static inline void pack_i16_16(uint8_t *d, const int16_t *s)
{
	st(d, clamp12(ld(s)));
	st(d + 32, clamp12(ld(s + 16)));
}

ZCS_SIMD_PACK(i16, 16, 0, pack_i16_16, pack_i16_16)

/* 8 pairs -> 24 bytes in the low 24 bytes of the result: I | Q << 12 per 32-bit lane (pmaddwd
 * with 1 and 4096 on the masked values), vpshufb drops each lane's top byte, vpermd joins the two
 * 12-byte halves. */
static inline __m256i p12_8(const int16_t *s)
{
	const __m256i shuf = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
					      0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
	const __m256i join = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
	const __m256i u = _mm256_and_si256(clamp12(ld(s)), _mm256_set1_epi16(0x0fff));
	const __m256i w = _mm256_madd_epi16(u, _mm256_set1_epi32(1 | 4096 << 16));

	return _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(w, shuf), join);
}

/* The 24 bytes alone (16 + 8), for the steps near the end. */
static inline void st24(uint8_t *d, __m256i v)
{
	st128(d, _mm256_castsi256_si128(v));
	st64(d + 16, _mm256_extracti128_si256(v, 1));
}

/* The 32-byte store writes 8 bytes of junk that the next step overwrites: 3 pairs of slack, then
 * exact 24-byte stores. */
static inline void pack_p12_8(uint8_t *d, const int16_t *s)
{
	st(d, p12_8(s));
}

static inline void pack_p12_8_last(uint8_t *d, const int16_t *s)
{
	st24(d, p12_8(s));
}

ZCS_SIMD_PACK(p12, 8, 3, pack_p12_8, pack_p12_8_last)

/* ---- wire -> s16 (= v << 4), 8 pairs a step ---- */

#define STEP 8
#define SLACK_i8 0
#define SLACK_p12 2 /* the second 16-byte load ends 4 bytes past the step */
#define SLACK_i16 0

static inline __m256i load_i8(const uint8_t *p)
{
	return _mm256_slli_epi16(_mm256_cvtepi8_epi16(ld128(p)), 8);
}
#define load_last_i8 load_i8

/* Each lane gets 12 bytes (4 pairs).  Byte pairs (b0, b1) and (b1, b2) of each pair land in 16-bit
 * slots: I << 4 is the first slot shifted left by 4, Q << 4 is the second with its low nibble
 * (I's top bits) cleared. */
static inline __m256i p12_to_s16(__m256i v)
{
	const __m256i shuf = _mm256_setr_epi8(0, 1, 1, 2, 3, 4, 4, 5, 6, 7, 7, 8, 9, 10, 10, 11,
					      0, 1, 1, 2, 3, 4, 4, 5, 6, 7, 7, 8, 9, 10, 10, 11);
	const __m256i x = _mm256_shuffle_epi8(v, shuf);

	return _mm256_blend_epi16(_mm256_and_si256(x, _mm256_set1_epi16((short)0xfff0)),
				  _mm256_slli_epi16(x, 4), 0x55);
}

static inline __m256i load_p12(const uint8_t *p)
{
	return p12_to_s16(_mm256_set_m128i(ld128(p + 12), ld128(p)));
}

static inline __m256i load_last_p12(const uint8_t *p)
{
	return p12_to_s16(_mm256_set_m128i(ld96(p + 12), ld128(p)));
}

static inline __m256i load_i16(const uint8_t *p)
{
	return _mm256_slli_epi16(clamp12(ld(p)), 4);
}
#define load_last_i16 load_i16

/* ---- s16 -> consumer types ---- */

/* s16 / 256 rounded as zcs_s8_of_v rounds v / 16; packs saturates 2040..2047 << 4 to 127. */
static inline __m128i to_s8(__m256i s)
{
	const __m256i h = round_shr(s, 8);

	return _mm_packs_epi16(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
}

static inline void store_cs8(uint8_t *d, __m256i s)
{
	st128(d, to_s8(s));
}

static inline void store_cu8(uint8_t *d, __m256i s)
{
	st128(d, _mm_xor_si128(to_s8(s), _mm_set1_epi8(-128)));
}

static inline void store_cs16(uint8_t *d, __m256i s)
{
	st(d, s);
}

static inline void store_cf32(uint8_t *d, __m256i s)
{
	const __m256 k = _mm256_set1_ps(1.0f / 32768.0f);
	const __m256i lo = _mm256_cvtepi16_epi32(_mm256_castsi256_si128(s));
	const __m256i hi = _mm256_cvtepi16_epi32(_mm256_extracti128_si256(s, 1));

	_mm256_storeu_ps((float *)(void *)d, _mm256_mul_ps(_mm256_cvtepi32_ps(lo), k));
	_mm256_storeu_ps((float *)(void *)(d + 32), _mm256_mul_ps(_mm256_cvtepi32_ps(hi), k));
}

ZCS_SIMD_UNPACK_I8
/* p12 -> cf32 is the direct kernel below, not the s16 step */
ZCS_SIMD_UNPACK(p12, cs8) ZCS_SIMD_UNPACK(p12, cu8) ZCS_SIMD_UNPACK(p12, cs16)
ZCS_SIMD_UNPACK_W(i16)

static inline void xor_cu8(uint8_t *d, const uint8_t *s)
{
	st(d, _mm256_xor_si256(ld(s), _mm256_set1_epi8(-128)));
}

ZCS_SIMD_I8_CU8_XOR(16)

/* p12 -> cf32 skips the s16 step (its lane-crossing widening cost about a fifth of the speed):
 * each 12-bit value goes to the top of a 32-bit lane (one vpshufb from a broadcast load, then
 * I << 4 or Q masked) and is scaled by 2^-31.  (A direct i8 -> cf32 measured no faster.) */
static inline void p12_cf32_4(uint8_t *d, __m128i bytes)
{
	const __m256i shuf = _mm256_setr_epi8(-1, -1, 0, 1, -1, -1, 1, 2, -1, -1, 3, 4, -1, -1, 4, 5,
					      -1, -1, 6, 7, -1, -1, 7, 8, -1, -1, 9, 10, -1, -1, 10,
					      11);
	const __m256i shl = _mm256_setr_epi32(4, 0, 4, 0, 4, 0, 4, 0);
	const __m256i top12 = _mm256_set1_epi32((int)0xfff00000u);
	const __m256 k = _mm256_set1_ps(1.0f / 2147483648.0f);
	const __m256i b = _mm256_broadcastsi128_si256(bytes);
	const __m256i x = _mm256_sllv_epi32(_mm256_shuffle_epi8(b, shuf), shl);
	const __m256i v = _mm256_and_si256(x, top12);

	_mm256_storeu_ps((float *)(void *)d, _mm256_mul_ps(_mm256_cvtepi32_ps(v), k));
}

/* 4 pairs (12 bytes) a step from a 16-byte load: 2 pairs of slack, then exact loads */
static inline void p12_cf32_step(uint8_t *d, const uint8_t *s)
{
	p12_cf32_4(d, ld128(s));
}

static inline void p12_cf32_last(uint8_t *d, const uint8_t *s)
{
	p12_cf32_4(d, ld96(s));
}

ZCS_SIMD_KERNEL(unpack_p12_cf32, const void *, uint8_t, ZCS_OUT_cf32, ZCS_IN_p12, 4, 2,
		p12_cf32_step, p12_cf32_last, zcs_formats_scalar_unpack_p12_cf32)

void zcs_formats_fill_avx2(struct zcs_kernels *k)
{
	ZCS_FILL_SIMD(k);
}
