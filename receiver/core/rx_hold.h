/* SPDX-License-Identifier: MIT */
/* The datagrams of a keyed run awaiting the board's word (zcs-recv --control, docs/security.md,
 * "Liveness"), kept as they came so the run, once confirmed live, is delivered from its first
 * sample rather than zero-filled for as long as the board took to answer.  A ring of records in
 * one allocation made at open: the newest datagrams stay, the oldest give way when it is full,
 * so no flood of runs claimed can make it grow.  A pure data structure (no I/O, no clock). */
#ifndef ZCS_RX_HOLD_H
#define ZCS_RX_HOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The ring's size.  The board answers in ~44 ms when quiet, 0.1-0.6 s loaded (a connection, a
 * handshake and a get); 16 MiB hold ~11,000 datagrams of 1472 bytes: 2.7 s of a 2 MS/s p12
 * stream, 180 ms of 30.72 MS/s.  Only a receiver given --control with a key allocates it, and
 * only what a run awaiting the board fills is ever touched. */
#define ZCS_RX_HOLD_BYTES (16u << 20)

/* What a record says of its datagram, besides its bytes. */
struct zcs_rx_hold_rec {
	uint64_t seq;             /* its sequence number */
	uint32_t samples;         /* the pairs it carries */
	uint32_t len;             /* its length in bytes */
};

struct zcs_rx_hold {
	uint8_t *mem;             /* cap bytes; NULL: nothing is ever held */
	size_t cap;
	size_t head, tail;        /* the oldest record's offset; where the next is written */
	size_t count;             /* records held */
	size_t used;              /* bytes they take (with their headers and padding) */
	size_t max_used;          /* the most ever used */
	uint64_t gen;             /* whose datagrams they are: the caller's tag (a run's) */
};

/* Allocates cap bytes (0: none; the hold then keeps nothing).  Returns 0 or -ENOMEM. */
int zcs_rx_hold_init(struct zcs_rx_hold *h, size_t cap);
void zcs_rx_hold_free(struct zcs_rx_hold *h);

/* Whether a datagram of len bytes can ever be held (it fits the ring empty). */
bool zcs_rx_hold_can(const struct zcs_rx_hold *h, size_t len);
/* Whether it fits now, beside what is held.  When not, the caller takes the oldest out
 * (zcs_rx_hold_pop) until it does. */
bool zcs_rx_hold_fits(const struct zcs_rx_hold *h, size_t len);
/* Puts a datagram in (it must fit: zcs_rx_hold_fits). */
void zcs_rx_hold_put(struct zcs_rx_hold *h, const struct zcs_rx_hold_rec *rec, const uint8_t *data);
/* A walk through what is held, oldest first, without taking it out (zcs_rx_hold_walk_begin,
 * then zcs_rx_hold_walk_next: true with *rec and *data, false past the newest).  Valid until the
 * next put or pop. */
struct zcs_rx_hold_walk {
	size_t at, left;
};
void zcs_rx_hold_walk_begin(const struct zcs_rx_hold *h, struct zcs_rx_hold_walk *w);
bool zcs_rx_hold_walk_next(const struct zcs_rx_hold *h, struct zcs_rx_hold_walk *w,
			   struct zcs_rx_hold_rec *rec, const uint8_t **data);
/* Takes the oldest out: true with *rec and *data (valid until the next put), false when none. */
bool zcs_rx_hold_pop(struct zcs_rx_hold *h, struct zcs_rx_hold_rec *rec, const uint8_t **data);

#endif
