/* SPDX-License-Identifier: MIT */
/* Internal to convert_sse2.c and convert_avx2.c: the unaligned 128- and 64-bit loads and stores
 * both use, through void * (no alignment promise, so no -Wcast-align). */
#ifndef ZCS_CONVERT_X86_H
#define ZCS_CONVERT_X86_H

#include <emmintrin.h>

#ifdef __cplusplus
extern "C" {
#endif

static inline __m128i ld128(const void *p)
{
	return _mm_loadu_si128((const __m128i *)p);
}

static inline void st128(void *p, __m128i v)
{
	_mm_storeu_si128((__m128i *)p, v);
}

/* 8 bytes into the low half, the high half zero. */
static inline __m128i ld64(const void *p)
{
	return _mm_loadl_epi64((const __m128i *)p);
}

/* The low 8 bytes of v. */
static inline void st64(void *p, __m128i v)
{
	_mm_storel_epi64((__m128i *)p, v);
}

#ifdef __cplusplus
}
#endif

#endif
