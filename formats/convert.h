/* SPDX-License-Identifier: MIT */
/* Internal to formats/: the per-sample scalar helpers every kernel shares, the scalar kernels the
 * SIMD kernels call for their tails, and the per-ISA table fillers that kernels.c dispatches to. */
#ifndef ZCS_CONVERT_H
#define ZCS_CONVERT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bytes.h"
#include "formats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SIMD kernels store int16 and float32 lanes as they sit in registers, which is the wire's LE
 * layout only on a little-endian host.  Every target (x86-64, ARMv7 LE) is one; say so loudly. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "formats/ SIMD kernels assume a little-endian host"
#endif

#define ZCS_S12_MIN (-2048)
#define ZCS_S12_MAX 2047

/* Radio input outside the 12-bit range saturates: a wrapped sample would be a full-scale spike. */
static inline int zcs_sat12(int x)
{
	return x < ZCS_S12_MIN ? ZCS_S12_MIN : x > ZCS_S12_MAX ? ZCS_S12_MAX : x;
}

/* Every unpack kernel goes through one intermediate: s16 = v << 4, the 12-bit value scaled to full
 * int16 range.  cs16 is s16, cs8 is s16 / 256 rounded as zcs_s8_of_v rounds v / 16 (the same
 * value: (s16 + 128 - (s16 < 0)) >> 8), cu8 adds 128, cf32 is s16 / 32768 (= v / 2048, exact since
 * both scales are powers of two).  SIMD kernels use the same identities. */
static inline float zcs_s16_to_f32(int s16)
{
	return (float)s16 * (1.0f / 32768.0f);
}

/* Scalar kernels: the reference, the fallback, and every SIMD kernel's calls shorter than its
 * step. */
void zcs_formats_scalar_pack_i8(void *dst, const int16_t *src, size_t pairs);
void zcs_formats_scalar_pack_p12(void *dst, const int16_t *src, size_t pairs);
void zcs_formats_scalar_pack_i16(void *dst, const int16_t *src, size_t pairs);

#define ZCS_UNPACK_SCALAR_DECL(w, t) \
	void zcs_formats_scalar_unpack_##w##_##t(void *dst, const void *src, size_t pairs);
#define ZCS_UNPACK_SCALAR_DECL_W(w) \
	ZCS_UNPACK_SCALAR_DECL(w, cs8) ZCS_UNPACK_SCALAR_DECL(w, cu8) \
	ZCS_UNPACK_SCALAR_DECL(w, cs16) ZCS_UNPACK_SCALAR_DECL(w, cf32)
ZCS_UNPACK_SCALAR_DECL_W(i8)
ZCS_UNPACK_SCALAR_DECL_W(p12)
ZCS_UNPACK_SCALAR_DECL_W(i16)

/* Table fillers.  Each writes only the entries it implements (today every SIMD filler writes
 * them all), so kernels.c layers them: scalar first, then SSE2, then AVX2 (or scalar then NEON). */
void zcs_formats_fill_scalar(struct zcs_kernels *k);
void zcs_formats_fill_sse2(struct zcs_kernels *k);
void zcs_formats_fill_avx2(struct zcs_kernels *k);
void zcs_formats_fill_neon(struct zcs_kernels *k);

/* The step loop of every SIMD kernel: steps of `step` pairs through kern(dst, src), each step
 * converting exactly its own pairs.  The last step ends exactly at the end of the call, overlapping
 * pairs already converted (each output byte depends only on its own pair, and dst never overlaps
 * src, so redoing them is harmless); only a call shorter than one step goes to scalar.  kern may
 * touch up to `slack` pairs past its step (a full-width load or store of a 12-byte step), so while
 * fewer than that remain kern_last, the same step touching only its own bytes, takes over.
 * dunit: dst bytes a pair; sunit: src elements (elem_t) a pair. */
#define ZCS_SIMD_KERNEL(name, src_t, elem_t, dunit, sunit, step, slack, kern, kern_last, scalar) \
	static void name(void *dst, src_t src, size_t pairs) \
	{ \
		const elem_t *s = src; \
		uint8_t *d = dst; \
		size_t n = 0; \
		if (pairs < (step)) { \
			scalar(d, s, pairs); \
			return; \
		} \
		for (; n + (step) + (slack) <= pairs; n += (step)) \
			kern(d + (dunit) * n, s + (sunit) * n); \
		for (; n + (step) <= pairs; n += (step)) \
			kern_last(d + (dunit) * n, s + (sunit) * n); \
		if (n < pairs) \
			kern_last(d + (dunit) * (pairs - (step)), s + (sunit) * (pairs - (step))); \
	}

/* Bytes one pair takes on the wire (IN) and in each consumer type (OUT). */
#define ZCS_IN_i8 2
#define ZCS_IN_p12 3
#define ZCS_IN_i16 4
#define ZCS_OUT_cs8 2
#define ZCS_OUT_cu8 2
#define ZCS_OUT_cs16 4
#define ZCS_OUT_cf32 8

/* pack_<w> (radio int16 -> wire), from step functions (uint8_t *d, const int16_t *s). */
#define ZCS_SIMD_PACK(w, step, slack, kern, kern_last) \
	ZCS_SIMD_KERNEL(pack_##w, const int16_t *, int16_t, ZCS_IN_##w, 2, step, slack, kern, \
			kern_last, zcs_formats_scalar_pack_##w)

/* unpack_<wire>_<type>: steps of STEP pairs through load_<wire>() (wire bytes -> a vector of s16)
 * and store_<type>() (which writes exactly the step's bytes).  A file defines STEP, SLACK_<wire>:
 * extra pairs that must remain after a step because load_<wire>() reads past the step's own bytes,
 * and load_last_<wire>(), the same load reading only the step's own bytes. */
#define ZCS_SIMD_UNPACK(w, t) \
	static inline void unpack_step_##w##_##t(uint8_t *d, const uint8_t *s) \
	{ \
		store_##t(d, load_##w(s)); \
	} \
	static inline void unpack_last_##w##_##t(uint8_t *d, const uint8_t *s) \
	{ \
		store_##t(d, load_last_##w(s)); \
	} \
	ZCS_SIMD_KERNEL(unpack_##w##_##t, const void *, uint8_t, ZCS_OUT_##t, ZCS_IN_##w, STEP, \
			SLACK_##w, unpack_step_##w##_##t, unpack_last_##w##_##t, \
			zcs_formats_scalar_unpack_##w##_##t)
#define ZCS_SIMD_UNPACK_W(w) \
	ZCS_SIMD_UNPACK(w, cs8) ZCS_SIMD_UNPACK(w, cu8) \
	ZCS_SIMD_UNPACK(w, cs16) ZCS_SIMD_UNPACK(w, cf32)
/* i8 wire needs no s16 step for cs8 (a copy) or cu8 (an xor): ZCS_FILL_SIMD fills those two. */
#define ZCS_SIMD_UNPACK_I8 ZCS_SIMD_UNPACK(i8, cs16) ZCS_SIMD_UNPACK(i8, cf32)

/* cu8 of i8 wire is the wire byte with its top bit flipped (i8 + 128 == i8 ^ 0x80), which
 * needs no s16 step: unpack_i8_cu8_xor from xor_cu8(d, s), one vector of `step` pairs. */
#define ZCS_SIMD_I8_CU8_XOR(step) \
	ZCS_SIMD_KERNEL(unpack_i8_cu8_xor, const void *, uint8_t, 2, 2, step, 0, xor_cu8, xor_cu8, \
			zcs_formats_scalar_unpack_i8_cu8)

/* Fills the unpack row of one wire format from kernels named <prefix>_<wire>_<type>. */
#define ZCS_FILL_UNPACK_ROW(k, code, prefix, w) \
	do { \
		(k)->unpack[code][ZCS_SAMPLE_CS8] = prefix##_##w##_cs8; \
		(k)->unpack[code][ZCS_SAMPLE_CU8] = prefix##_##w##_cu8; \
		(k)->unpack[code][ZCS_SAMPLE_CS16] = prefix##_##w##_cs16; \
		(k)->unpack[code][ZCS_SAMPLE_CF32] = prefix##_##w##_cf32; \
	} while (0)

/* The entries every SIMD file fills from the kernels the macros above define.  cs8 of i8 wire
 * is the wire bytes themselves (an i8 sample is already zcs_s8_of_v(v)): the native copy the
 * scalar filler, which runs first, put in place. */
#define ZCS_FILL_SIMD(k) \
	do { \
		(k)->pack[ZCS_WIRE_I8] = pack_i8; \
		(k)->pack[ZCS_WIRE_P12] = pack_p12; \
		(k)->pack[ZCS_WIRE_I16] = pack_i16; \
		(k)->unpack[ZCS_WIRE_I8][ZCS_SAMPLE_CS8] = (k)->unpack[ZCS_WIRE_I8][ZCS_SAMPLE_NATIVE]; \
		(k)->unpack[ZCS_WIRE_I8][ZCS_SAMPLE_CU8] = unpack_i8_cu8_xor; \
		(k)->unpack[ZCS_WIRE_I8][ZCS_SAMPLE_CS16] = unpack_i8_cs16; \
		(k)->unpack[ZCS_WIRE_I8][ZCS_SAMPLE_CF32] = unpack_i8_cf32; \
		ZCS_FILL_UNPACK_ROW(k, ZCS_WIRE_P12, unpack, p12); \
		ZCS_FILL_UNPACK_ROW(k, ZCS_WIRE_I16, unpack, i16); \
	} while (0)

#ifdef __cplusplus
}
#endif

#endif
