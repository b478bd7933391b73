/* SPDX-License-Identifier: MIT */
/* The engine's part for an unkeyed stream's start (rx_start.c): its sample datagrams kept in the
 * hold (rx_hold.h) until the stream-following unit confirms where the stream starts (rx_follow.h,
 * "The stream's start"), then given back for delivery, or dropped and counted.  Called by
 * rx_dgram.c; private to receiver/core. */
#ifndef ZCS_RX_START_H
#define ZCS_RX_START_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"
#include "rx_engine.h"

/* The store's size: 4 MiB hold ~2,800 datagrams of 1,472 bytes, 0.67 s of a 2 MS/s p12 stream
 * (its metadata comes again within 500 ms, within one train from zcs-send at a run's start), 90
 * ms of 30.72 MS/s.  Allocated at open, touched only as far as a start fills it. */
#define ZCS_RX_START_BYTES (4u << 20)

/* Keeps sample datagram h (len bytes at data) of the stream followed, whose start awaits
 * confirmation (already noted: zcs_follow_start_keep), the oldest kept giving way when the store
 * is full (counted pre_meta). */
void zcs_rx_start_keep(struct zcs_rx *rx, const uint8_t *data, size_t len,
		       const struct zcs_sample_hdr *h);
/* Gives up everything kept, each counted pre_meta (remembered as the stream's own when it is). */
void zcs_rx_start_discard(struct zcs_rx *rx);
/* The start is confirmed at run: every datagram kept that continues it, or from which it
 * continues, is taken into it (zcs_follow_start_extend), however they came. */
void zcs_rx_start_extend(struct zcs_rx *rx, struct zcs_start_run *run);
/* The start is confirmed at the run lo..hi: the next datagram kept of it, oldest first, copied
 * into a buffer of its own (*bi, taken from the pool: the caller delivers it as if it came now,
 * and returns it to the pool when not kept) and parsed into *dg, its length in *len.  Datagrams
 * kept that are not of the run are dropped and counted unconfirmed.  False when none is left. */
bool zcs_rx_start_next(struct zcs_rx *rx, uint64_t lo, uint64_t hi, uint32_t *bi, size_t *len,
		       struct zcs_dgram *dg);

#endif
