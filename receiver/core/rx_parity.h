/* SPDX-License-Identifier: MIT */
/* The erasure code's part of the engine (rx_parity.c): parity datagrams kept for the stream
 * followed, the window grown to hold a block and its parity, and what the parity rebuilds put
 * back into the receive path.  Called by rx_dgram.c; private to receiver/core. */
#ifndef ZCS_RX_PARITY_H
#define ZCS_RX_PARITY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "proto.h"
#include "rx_engine.h"

/* A block's parity comes after its datagrams and after the rest of the train that ended it (up
 * to 64 KB more), so a hole early in a block must wait that long: the window holds
 * ZCS_RX_FEC_WINDOW_BLOCKS blocks and their parity, within its capacity (--window, when given,
 * is the user's). */
#define ZCS_RX_FEC_WINDOW_BLOCKS 4

/* A parity datagram dg from `from`: kept for the stream followed (keyed: of the run followed),
 * also before its first sample datagram (a block of one, or one whose datagrams were all lost,
 * has its parity first); ignored otherwise.  What it completes is rebuilt at once. */
void zcs_rx_parity(struct zcs_rx *rx, const struct zcs_dgram *dg, const struct sockaddr *from);
/* A sample datagram of the stream followed, its first `len` bytes at data as received (before
 * decompression), number seq: kept for rebuilds when parity was announced or seen. */
void zcs_rx_parity_data(struct zcs_rx *rx, const uint8_t *data, size_t len, uint64_t seq);
/* Rebuilds what it can of the block holding seq `at`, before the window gives up on it: each
 * rebuilt datagram enters the engine as a received one does (rx->datagram). */
void zcs_rx_parity_restore(struct zcs_rx *rx, uint64_t at, const struct sockaddr *from);

#endif
