// SPDX-License-Identifier: MIT
/* What the receive engine's sequence fuzzers (fuzz_rx, fuzz_rx_fec) share: the input read as a
 * cursor, the live stream's sample values, and one datagram handed to the engine. */
#ifndef ZCS_FUZZ_STREAM_H
#define ZCS_FUZZ_STREAM_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "rx.h"

/* The input: bytes past its end read as 0, so every input is a complete case. */
struct fuzz_cursor {
	const uint8_t *p;
	size_t left;
};

static inline unsigned int fuzz_byte(struct fuzz_cursor *c)
{
	if (!c->left)
		return 0;
	c->left--;
	return *c->p++;
}

/* n bytes, little-endian */
static inline uint64_t fuzz_bytes(struct fuzz_cursor *c, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)fuzz_byte(c) << (8 * i);
	return v;
}

/* Pair n of the live stream as i16 I/Q: neither half is ever 0, so a zero pair in the output
 * is a fill, and the value tells its place. */
static inline void fuzz_stream_pair(uint8_t *p, uint64_t n)
{
	const uint16_t i = (uint16_t)(1 + n % 30000), q = (uint16_t)(1 + (n / 30000) % 30000);

	p[0] = (uint8_t)i;
	p[1] = (uint8_t)(i >> 8);
	p[2] = (uint8_t)q;
	p[3] = (uint8_t)(q >> 8);
}

/* One datagram into the engine at `now`, then its timers, as the receive loop does. */
static inline void fuzz_feed(struct zcs_rx *rx, const uint8_t *d, size_t len, uint64_t now)
{
	static const struct sockaddr_in from = { .sin_family = AF_INET };

	zcs_rx_feed(rx, d, len, (const struct sockaddr *)&from, now);
	zcs_rx_tick(rx, now);
}

#endif
