// SPDX-License-Identifier: MIT
/* Scalar conversion kernels: the reference every SIMD kernel is tested against, the fallback
 * on CPUs without SIMD, and what a SIMD kernel calls for a call shorter than one of its steps
 * (longer ones end with an overlapping last step, convert.h). */
#include <string.h>

#include "convert.h"

/* ---- radio int16 -> wire ---- */

/* Sample j of the radio buffer.  The contract allows any alignment, even for int16_t *. */
static inline int src_at(const int16_t *src, size_t j)
{
	int16_t v;

	memcpy(&v, (const uint8_t *)(const void *)src + 2 * j, sizeof(v));
	return v;
}

void zcs_formats_scalar_pack_i8(void *dst, const int16_t *src, size_t pairs)
{
	int8_t *d = dst;

	for (size_t j = 0; j < 2 * pairs; j++)
		d[j] = (int8_t)zcs_s8_of_v(src_at(src, j));
}

void zcs_formats_scalar_pack_p12(void *dst, const int16_t *src, size_t pairs)
{
	uint8_t *d = dst;

	for (size_t n = 0; n < pairs; n++, d += 3) {
		const uint32_t i = (uint32_t)zcs_sat12(src_at(src, 2 * n)) & 0xfff;
		const uint32_t q = (uint32_t)zcs_sat12(src_at(src, 2 * n + 1)) & 0xfff;
		const uint32_t w = i | q << 12;

		d[0] = (uint8_t)w;
		d[1] = (uint8_t)(w >> 8);
		d[2] = (uint8_t)(w >> 16);
	}
}

void zcs_formats_scalar_pack_i16(void *dst, const int16_t *src, size_t pairs)
{
	uint8_t *d = dst;

	for (size_t j = 0; j < 2 * pairs; j++)
		zcs_put_le16(d + 2 * j, (uint16_t)zcs_sat12(src_at(src, j)));
}

/* ---- wire -> s16 (= v << 4) of one pair ---- */

static inline void get_i8(const uint8_t *p, int *i, int *q)
{
	*i = (int)(int8_t)p[0] * 256;
	*q = (int)(int8_t)p[1] * 256;
}

static inline void get_p12(const uint8_t *p, int *i, int *q)
{
	/* Sign-extend each 12-bit field by placing it at the top of an int16. */
	*i = (int16_t)(uint16_t)((p[0] | (p[1] & 0x0f) << 8) << 4);
	*q = (int16_t)(uint16_t)((p[1] & 0xf0) | p[2] << 8);
}

static inline void get_i16(const uint8_t *p, int *i, int *q)
{
	/* A hostile sender may put more than 12 bits here; saturate so cs16 cannot wrap. */
	*i = zcs_sat12((int16_t)zcs_get_le16(p)) * 16;
	*q = zcs_sat12((int16_t)zcs_get_le16(p + 2)) * 16;
}

/* ---- s16 -> one consumer sample at index j ---- */

/* s16 >> 4 is v again: s16 is v << 4 exactly. */
static inline void put_cs8(uint8_t *d, size_t j, int s16)
{
	d[j] = (uint8_t)(int8_t)zcs_s8_of_v(s16 >> 4);
}

static inline void put_cu8(uint8_t *d, size_t j, int s16)
{
	d[j] = (uint8_t)(zcs_s8_of_v(s16 >> 4) + 128);
}

static inline void put_cs16(uint8_t *d, size_t j, int s16)
{
	zcs_put_le16(d + 2 * j, (uint16_t)s16);
}

static inline void put_cf32(uint8_t *d, size_t j, int s16)
{
	zcs_put_f32le(d + 4 * j, zcs_s16_to_f32(s16));
}

#define UNPACK_SCALAR(w, t, wbytes) \
	void zcs_formats_scalar_unpack_##w##_##t(void *dst, const void *src, size_t pairs) \
	{ \
		const uint8_t *s = src; \
		uint8_t *d = dst; \
		int i, q; \
		for (size_t n = 0; n < pairs; n++) { \
			get_##w(s + n * (wbytes), &i, &q); \
			put_##t(d, 2 * n, i); \
			put_##t(d, 2 * n + 1, q); \
		} \
	}
#define UNPACK_SCALAR_W(w, wbytes) \
	UNPACK_SCALAR(w, cs8, wbytes) UNPACK_SCALAR(w, cu8, wbytes) \
	UNPACK_SCALAR(w, cs16, wbytes) UNPACK_SCALAR(w, cf32, wbytes)

UNPACK_SCALAR_W(i8, 2)
UNPACK_SCALAR_W(p12, 3)
UNPACK_SCALAR_W(i16, 4)

/* ---- native: the wire bytes as they are ---- */

static void unpack_native_i8(void *dst, const void *src, size_t pairs)
{
	memcpy(dst, src, pairs * 2);
}

static void unpack_native_p12(void *dst, const void *src, size_t pairs)
{
	memcpy(dst, src, pairs * 3);
}

static void unpack_native_i16(void *dst, const void *src, size_t pairs)
{
	memcpy(dst, src, pairs * 4);
}

void zcs_formats_fill_scalar(struct zcs_kernels *k)
{
	memset(k, 0, sizeof(*k));
	k->isa = ZCS_ISA_SCALAR;
	k->pack[ZCS_WIRE_I8] = zcs_formats_scalar_pack_i8;
	k->pack[ZCS_WIRE_P12] = zcs_formats_scalar_pack_p12;
	k->pack[ZCS_WIRE_I16] = zcs_formats_scalar_pack_i16;
	ZCS_FILL_UNPACK_ROW(k, ZCS_WIRE_I8, zcs_formats_scalar_unpack, i8);
	ZCS_FILL_UNPACK_ROW(k, ZCS_WIRE_P12, zcs_formats_scalar_unpack, p12);
	ZCS_FILL_UNPACK_ROW(k, ZCS_WIRE_I16, zcs_formats_scalar_unpack, i16);
	/* glibc's memcpy is already vectorised: no ISA overrides these. */
	k->unpack[ZCS_WIRE_I8][ZCS_SAMPLE_NATIVE] = unpack_native_i8;
	k->unpack[ZCS_WIRE_P12][ZCS_SAMPLE_NATIVE] = unpack_native_p12;
	k->unpack[ZCS_WIRE_I16][ZCS_SAMPLE_NATIVE] = unpack_native_i16;
}
