/* SPDX-License-Identifier: MIT */
/* Little-endian reads and writes of wire bytes at any alignment: the one set for the whole tree
 * (parsers and conversion kernels alike).  Every wire field goes through these, never through a
 * cast of the buffer to a struct (alignment, byte order, strict aliasing). */
#ifndef ZCS_BYTES_H
#define ZCS_BYTES_H

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* On a little-endian host a fixed-size memcpy is the wire's bytes in one (unaligned) move.  Built
 * byte by byte instead, gcc fails to merge the bytes inside the kernels' hot loops (a float store
 * became 20 instructions), so the byte-by-byte form is kept for big-endian hosts only. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ZCS_HOST_LE 1
#else
#define ZCS_HOST_LE 0
#endif

static inline void zcs_put_le16(uint8_t *p, uint16_t v)
{
#if ZCS_HOST_LE
	memcpy(p, &v, sizeof(v));
#else
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
#endif
}

static inline void zcs_put_le32(uint8_t *p, uint32_t v)
{
#if ZCS_HOST_LE
	memcpy(p, &v, sizeof(v));
#else
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
#endif
}

static inline void zcs_put_le64(uint8_t *p, uint64_t v)
{
	zcs_put_le32(p, (uint32_t)v);
	zcs_put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t zcs_get_le16(const uint8_t *p)
{
#if ZCS_HOST_LE
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
#else
	return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
#endif
}

static inline uint32_t zcs_get_le32(const uint8_t *p)
{
#if ZCS_HOST_LE
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
#else
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}

static inline uint64_t zcs_get_le64(const uint8_t *p)
{
	return (uint64_t)zcs_get_le32(p) | (uint64_t)zcs_get_le32(p + 4) << 32;
}

/* An IEEE-754 binary32 in its little-endian bytes (cf32 samples, SigMF cf32_le). */
static inline void zcs_put_f32le(uint8_t *p, float f)
{
	uint32_t v;

	memcpy(&v, &f, sizeof(v));
	zcs_put_le32(p, v);
}

#ifdef __cplusplus
}
#endif

#endif
