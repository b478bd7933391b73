/* SPDX-License-Identifier: MIT */
/* The engine's pool of buffers (rx_pool.c): what the reorder window, a jump awaiting confirmation
 * or a rebuild keep is copied into a buffer of the pool from the batch slot it was read into
 * (64 KB each: every datagram the protocol allows).  The buffers start at ZCS_RX_POOL_DGRAM
 * bytes and grow to what the followed stream's metadata announces, up to --max-datagram, while
 * none is in use.  Called by rx.c and rx_dgram.c; private to receiver/core. */
#ifndef ZCS_RX_POOL_H
#define ZCS_RX_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "rx_engine.h"

/* The buffers' first size: a jumbo frame's payload, which holds every stream sent at MTU 9000
 * or less, so they grow only for larger datagrams (loopback, or zcs-send --mtu 16000). */
#define ZCS_RX_POOL_DGRAM 9216

/* Allocates rx->nbufs buffers of ZCS_RX_POOL_DGRAM bytes (--max-datagram when smaller), all
 * free.  Returns 0 or -ENOMEM. */
int zcs_rx_pool_init(struct zcs_rx *rx);
void zcs_rx_pool_free(struct zcs_rx *rx);
/* Whether `need` bytes fit a buffer: when not, and need is within --max-datagram and no buffer
 * is in use but the one being handled (gro_buf), every buffer grows to need, rounded up to 4 KiB
 * (and the erasure code's store with them, while it holds nothing). */
bool zcs_rx_pool_fit(struct zcs_rx *rx, size_t need);

#endif
