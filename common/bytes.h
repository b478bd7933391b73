/* SPDX-License-Identifier: MIT */
/* Little-endian reads and writes of wire bytes at any alignment.  Every wire field goes through
 * these, never through a cast of the buffer to a struct (alignment, byte order, strict aliasing). */
#ifndef ZCS_BYTES_H
#define ZCS_BYTES_H

#include <stdint.h>

/* Built byte by byte: compilers fold these into one (unaligned) load or store on LE hosts and a
 * load plus byte swap on BE hosts, so there is no reason for #ifdef'd variants. */
static inline void zcs_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void zcs_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void zcs_put_le64(uint8_t *p, uint64_t v)
{
	zcs_put_le32(p, (uint32_t)v);
	zcs_put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t zcs_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

static inline uint32_t zcs_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t zcs_get_le64(const uint8_t *p)
{
	return (uint64_t)zcs_get_le32(p) | (uint64_t)zcs_get_le32(p + 4) << 32;
}

#endif
