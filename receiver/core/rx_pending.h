/* SPDX-License-Identifier: MIT */
/* The engine's part for a keyed run awaiting the board's word (rx_pending.c): its sample
 * datagrams kept in the hold (rx_hold.h) while the stream-following unit waits for the answer,
 * then given back for delivery, or dropped and counted.  Called by rx_dgram.c; private to
 * receiver/core. */
#ifndef ZCS_RX_PENDING_H
#define ZCS_RX_PENDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"
#include "rx_engine.h"

/* Keeps sample datagram dg (len bytes at data) of the run awaiting the board, the oldest kept
 * giving way when the hold is full (they count as dropped, and the run's start as lost). */
void zcs_rx_pending_keep(struct zcs_rx *rx, const uint8_t *data, size_t len,
			 const struct zcs_dgram *dg);
/* Gives up what the hold keeps: each datagram counted as dropped before its metadata. */
void zcs_rx_pending_discard(struct zcs_rx *rx);
/* The run tagged gen has just been followed: its next datagram kept, oldest first, copied into a
 * buffer of its own (*bi, taken from the pool: the caller delivers it as if it came now, and
 * returns it to the pool when not kept) and parsed into *dg, with its length in *len.  False
 * when none is left; what was kept of another run is then discarded, and a datagram that finds
 * no buffer is dropped and counted. */
bool zcs_rx_pending_next(struct zcs_rx *rx, uint64_t gen, uint32_t *bi, size_t *len,
			 struct zcs_dgram *dg);

#endif
