/* SPDX-License-Identifier: MIT */
/* Each datagram once read (rx_dgram.c): what the engine's reading half (rx.c) calls.  Private
 * to receiver/core. */
#ifndef ZCS_RX_DGRAM_H
#define ZCS_RX_DGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "rx_engine.h"

/* Sets up what rx_dgram.c owns in rx (the stream-following unit; the window and the gap filler
 * are already initialised). */
void zcs_rx_dgram_init(struct zcs_rx *rx);
/* Handles one datagram of len bytes in buffer b from sender `from`, at rx->now_ns.  Returns true
 * when the engine keeps the buffer (the window, or a jump awaiting confirmation): it must not be
 * reused until released. */
bool zcs_rx_datagram(struct zcs_rx *rx, uint32_t b, size_t len, const struct sockaddr *from);
/* Time passed without datagrams (up to rx->dry_ns): releases held ones of a silent stream, and
 * believes the claims nothing contradicted. */
void zcs_rx_idle(struct zcs_rx *rx);
/* Whether the next batch must carry each sender's address, judged at `now`, taken before the
 * read: with --source, and while a new stream may be followed (zcs_follow_wants_sender).  A
 * followed live stream needs no addresses, and copying one out per datagram costs the kernel a
 * user copy. */
bool zcs_rx_want_from(const struct zcs_rx *rx, uint64_t now);
/* Recomputes st.age_ns from the metadata's time stamp (once per step, not per datagram). */
void zcs_rx_update_age(struct zcs_rx *rx);

#endif
