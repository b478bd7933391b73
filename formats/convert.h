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

/* SIMD kernels store int16 and float32 lanes as they sit in registers, which is the wire's LE
 * layout only on a little-endian host.  Every target (x86-64, ARMv7 LE) is one; say so loudly. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "formats/ SIMD kernels assume a little-endian host"
#endif

/* LE loads and stores for the kernels' hot loops.  common/bytes.h builds values byte by byte,
 * which gcc fails to merge in these loops (a float store became 20 instructions); on the LE hosts
 * guaranteed above a memcpy is the same bytes in one move. */
static inline uint16_t zcs_ld_le16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void zcs_st_le16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void zcs_st_f32le(uint8_t *p, float f)
{
	memcpy(p, &f, sizeof(f));
}

#define ZCS_S12_MIN (-2048)
#define ZCS_S12_MAX 2047

/* Radio input outside the 12-bit range saturates: a wrapped sample would be a full-scale spike. */
static inline int zcs_sat12(int x)
{
	return x < ZCS_S12_MIN ? ZCS_S12_MIN : x > ZCS_S12_MAX ? ZCS_S12_MAX : x;
}

/* Every unpack kernel goes through one intermediate: s16 = v << 4, the 12-bit value scaled to full
 * int16 range.  cs16 is s16, cs8 is s16 >> 8, cu8 adds 128, cf32 is s16 / 32768 (= v / 2048,
 * exact since both scales are powers of two).  SIMD kernels use the same identities. */
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

/* Table fillers.  Each writes only the entries it implements, so kernels.c layers them:
 * scalar first, then SSE2, then AVX2 (or scalar then NEON). */
void zcs_formats_fill_scalar(struct zcs_kernels *k);
void zcs_formats_fill_sse2(struct zcs_kernels *k);
void zcs_formats_fill_avx2(struct zcs_kernels *k);
void zcs_formats_fill_neon(struct zcs_kernels *k);

/* The shape shared by every SIMD unpack kernel: steps of STEP pairs through load_<wire>() (wire
 * bytes -> a vector of s16) and store_<type>() (which writes exactly the step's bytes).  The last
 * step ends exactly at the end of the call, overlapping pairs already converted (each output byte
 * depends only on its own pair, and dst never overlaps src, so redoing them is harmless); only a
 * call shorter than one step goes to scalar.  A file defines STEP, SLACK_<wire>: extra pairs that
 * must remain after a step because load_<wire>() reads past the step's own bytes, and
 * load_last_<wire>(), the same load reading only the step's own bytes, for the steps near the
 * end. */
#define ZCS_IN_i8 2
#define ZCS_IN_p12 3
#define ZCS_IN_i16 4
#define ZCS_OUT_cs8 2
#define ZCS_OUT_cu8 2
#define ZCS_OUT_cs16 4
#define ZCS_OUT_cf32 8
#define ZCS_SIMD_UNPACK(w, t) \
	static void unpack_##w##_##t(void *dst, const void *src, size_t pairs) \
	{ \
		const uint8_t *s = src; \
		uint8_t *d = dst; \
		size_t n = 0; \
		if (pairs < STEP) { \
			zcs_formats_scalar_unpack_##w##_##t(d, s, pairs); \
			return; \
		} \
		for (; n + STEP + SLACK_##w <= pairs; n += STEP) \
			store_##t(d + n * ZCS_OUT_##t, load_##w(s + n * ZCS_IN_##w)); \
		for (; n + STEP <= pairs; n += STEP) \
			store_##t(d + n * ZCS_OUT_##t, load_last_##w(s + n * ZCS_IN_##w)); \
		if (n < pairs) \
			store_##t(d + (pairs - STEP) * ZCS_OUT_##t, \
				  load_last_##w(s + (pairs - STEP) * ZCS_IN_##w)); \
	}
#define ZCS_SIMD_UNPACK_W(w) \
	ZCS_SIMD_UNPACK(w, cs8) ZCS_SIMD_UNPACK(w, cu8) \
	ZCS_SIMD_UNPACK(w, cs16) ZCS_SIMD_UNPACK(w, cf32)

/* Fills the unpack row of one wire format from kernels named <prefix>_<wire>_<type>. */
#define ZCS_FILL_UNPACK_ROW(k, code, prefix, w) \
	do { \
		(k)->unpack[code][ZCS_SAMPLE_CS8] = prefix##_##w##_cs8; \
		(k)->unpack[code][ZCS_SAMPLE_CU8] = prefix##_##w##_cu8; \
		(k)->unpack[code][ZCS_SAMPLE_CS16] = prefix##_##w##_cs16; \
		(k)->unpack[code][ZCS_SAMPLE_CF32] = prefix##_##w##_cf32; \
	} while (0)

#endif
