// SPDX-License-Identifier: MIT
/* NEON conversion kernels for ARMv7 (the board's Cortex-A9).  vld2/vld3/vst2/vst3 split and
 * join I, Q and the three bytes of a p12 pair in the load or store itself. */
#include <arm_neon.h>

#include "convert.h"

/* All loads and stores go through the element-sized VLDn/VSTn forms without an alignment
 * qualifier, which ARMv7 Linux executes at any address. */

static inline int16x8_t clamp12(int16x8_t x)
{
	return vminq_s16(vmaxq_s16(x, vdupq_n_s16(ZCS_S12_MIN)), vdupq_n_s16(ZCS_S12_MAX));
}

static inline const int16_t *s16p(const void *p)
{
	return (const int16_t *)p;
}

/* ---- radio int16 -> wire, 8 pairs a step ----
 * Every step reads and writes exactly its own pairs: no slack. */

/* x less one where negative, so that VQRSHRN's halves-up rounding ((x + 2^(n-1)) >> n, in wider
 * precision, then saturated to int8) rounds halves away from zero as zcs_s8_of_v does.  The
 * saturating add keeps -32768 at -32768, which rounds to -128 either way. */
static inline int16x8_t away_bias(int16x8_t x)
{
	return vqaddq_s16(x, vshrq_n_s16(x, 15));
}

/* zcs_s8_of_v(x) == clamp(round(x / 16), -128, 127) for any int16 x: the saturating rounding
 * narrowing shift does the rounding and the clamp. */
static inline void pack_i8_8(uint8_t *d, const int16_t *s)
{
	const int16x8_t a = away_bias(vld1q_s16(s));
	const int16x8_t b = away_bias(vld1q_s16(s + 8));

	vst1q_s8((int8_t *)(void *)d, vcombine_s8(vqrshrn_n_s16(a, 4), vqrshrn_n_s16(b, 4)));
}

static inline void pack_i16_8(uint8_t *d, const int16_t *s)
{
	vst1q_s16((int16_t *)(void *)d, clamp12(vld1q_s16(s)));
	vst1q_s16((int16_t *)(void *)(d + 16), clamp12(vld1q_s16(s + 8)));
}

/* byte0 = I[7:0], byte1 = Q[3:0] << 4 | I[11:8], byte2 = Q[11:4]; vst3 interleaves them.  The
 * saturating shift by 4 is the clamp to 12 bits (a value past them saturates to the int16 limit,
 * whose top 12 bits are the 12-bit limit), and each byte is then a narrowing of I << 4 or of Q << 4
 * with I's top nibble shifted in under Q's bits: six operations for 8 pairs where a min/max clamp
 * took nine.  Two steps a call, so the loop's own instructions count once for 16 pairs (the
 * source thread's packing is most of what zcs-send itself does on the board: docs/board.md,
 * section 8). */
static inline void pack_p12_8(uint8_t *d, const int16_t *s)
{
	const int16x8x2_t v = vld2q_s16(s);
	const uint16x8_t i = vreinterpretq_u16_s16(vqshlq_n_s16(v.val[0], 4));
	/* Q << 4 with its low nibble I[11:8]: bits 4-15 stay Q's, so byte2 narrows it too */
	const uint16x8_t q = vsriq_n_u16(vreinterpretq_u16_s16(vqshlq_n_s16(v.val[1], 4)), i, 12);
	uint8x8x3_t o;

	o.val[0] = vshrn_n_u16(i, 4);
	o.val[1] = vmovn_u16(q);
	o.val[2] = vshrn_n_u16(q, 8);
	vst3_u8(d, o);
}

static inline void pack_p12_16(uint8_t *d, const int16_t *s)
{
	pack_p12_8(d, s);
	pack_p12_8(d + 24, s + 16);
}

ZCS_SIMD_PACK(i8, 8, 0, pack_i8_8, pack_i8_8)
ZCS_SIMD_PACK(i16, 8, 0, pack_i16_8, pack_i16_8)
ZCS_SIMD_PACK(p12, 16, 0, pack_p12_16, pack_p12_16)

/* ---- wire -> s16 (= v << 4) as separate I and Q vectors, 8 pairs a step ---- */

#define STEP 8
#define SLACK_i8 0
#define SLACK_p12 0 /* vld3 reads exactly the step's 24 bytes */
#define SLACK_i16 0

static inline int16x8x2_t load_i8(const uint8_t *p)
{
	const int8x8x2_t b = vld2_s8((const int8_t *)p);
	int16x8x2_t r;

	r.val[0] = vshll_n_s8(b.val[0], 8);
	r.val[1] = vshll_n_s8(b.val[1], 8);
	return r;
}
#define load_last_i8 load_i8

/* (b0 | b1 << 8) << 4 is I << 4 (b1's Q nibble falls off the top); (b1 | b2 << 8) with the low
 * nibble (I's top bits) cleared is Q << 4. */
static inline int16x8x2_t load_p12(const uint8_t *p)
{
	const uint8x8x3_t b = vld3_u8(p);
	const uint16x8_t lo = vorrq_u16(vmovl_u8(b.val[0]), vshll_n_u8(b.val[1], 8));
	const uint16x8_t hi = vorrq_u16(vmovl_u8(b.val[1]), vshll_n_u8(b.val[2], 8));
	int16x8x2_t r;

	r.val[0] = vreinterpretq_s16_u16(vshlq_n_u16(lo, 4));
	r.val[1] = vreinterpretq_s16_u16(vandq_u16(hi, vdupq_n_u16(0xfff0)));
	return r;
}
#define load_last_p12 load_p12

static inline int16x8x2_t load_i16(const uint8_t *p)
{
	int16x8x2_t r = vld2q_s16(s16p(p));

	r.val[0] = vshlq_n_s16(clamp12(r.val[0]), 4);
	r.val[1] = vshlq_n_s16(clamp12(r.val[1]), 4);
	return r;
}
#define load_last_i16 load_i16

/* ---- s16 -> consumer types ---- */

/* s16 / 256 rounded as zcs_s8_of_v rounds v / 16, 2040..2047 << 4 saturated to 127. */
static inline int8x8x2_t to_s8(int16x8x2_t s)
{
	int8x8x2_t o;

	o.val[0] = vqrshrn_n_s16(away_bias(s.val[0]), 8);
	o.val[1] = vqrshrn_n_s16(away_bias(s.val[1]), 8);
	return o;
}

static inline void store_cs8(uint8_t *d, int16x8x2_t s)
{
	vst2_s8((int8_t *)d, to_s8(s));
}

static inline void store_cu8(uint8_t *d, int16x8x2_t s)
{
	const int8x8x2_t c = to_s8(s);
	const uint8x8_t bias = vdup_n_u8(0x80);
	uint8x8x2_t o;

	o.val[0] = veor_u8(vreinterpret_u8_s8(c.val[0]), bias);
	o.val[1] = veor_u8(vreinterpret_u8_s8(c.val[1]), bias);
	vst2_u8(d, o);
}

static inline void store_cs16(uint8_t *d, int16x8x2_t s)
{
	vst2q_s16((int16_t *)(void *)d, s);
}

static inline float32x4_t to_f32(int16x4_t v)
{
	return vmulq_n_f32(vcvtq_f32_s32(vmovl_s16(v)), 1.0f / 32768.0f);
}

static inline void store_cf32(uint8_t *d, int16x8x2_t s)
{
	float32x4x2_t lo, hi;

	lo.val[0] = to_f32(vget_low_s16(s.val[0]));
	lo.val[1] = to_f32(vget_low_s16(s.val[1]));
	hi.val[0] = to_f32(vget_high_s16(s.val[0]));
	hi.val[1] = to_f32(vget_high_s16(s.val[1]));
	vst2q_f32((float *)(void *)d, lo);
	vst2q_f32((float *)(void *)(d + 32), hi);
}

ZCS_SIMD_UNPACK_I8
ZCS_SIMD_UNPACK_W(p12)
ZCS_SIMD_UNPACK_W(i16)

static inline void xor_cu8(uint8_t *d, const uint8_t *s)
{
	vst1q_u8(d, veorq_u8(vld1q_u8(s), vdupq_n_u8(0x80)));
}

ZCS_SIMD_I8_CU8_XOR(8)

void zcs_formats_fill_neon(struct zcs_kernels *k)
{
	ZCS_FILL_SIMD(k);
}
