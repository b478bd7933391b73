/* SPDX-License-Identifier: MIT */
/* Serial arithmetic on 64-bit sequence numbers and sample indices (RFC 1982 style):
 * every comparison goes through the signed difference, so wrap-around is never a special case. */
#ifndef ZCS_SEQ_H
#define ZCS_SEQ_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* a - b as a signed distance; exact while |a - b| < 2^63. */
static inline int64_t zcs_seq_diff(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b);
}

static inline bool zcs_seq_before(uint64_t a, uint64_t b)
{
	return zcs_seq_diff(a, b) < 0;
}

static inline bool zcs_seq_after(uint64_t a, uint64_t b)
{
	return zcs_seq_diff(a, b) > 0;
}

#ifdef __cplusplus
}
#endif

#endif
