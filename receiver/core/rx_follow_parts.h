/* SPDX-License-Identifier: MIT */
/* Between the files of the stream-following unit (rx_follow.h), none of it for the engine:
 * rx_follow_select.c chooses the stream and judges keyed runs, rx_follow_board.c keeps a run
 * awaiting the board, rx_follow_stream.c records the stream followed and its end,
 * rx_follow_meta.c believes its metadata, rx_follow_jump.c what its sample datagrams claim.
 * Calls go down that list only as far as rx_follow_stream.c, which, like the last two, calls
 * none of the others. */
#ifndef ZCS_RX_FOLLOW_PARTS_H
#define ZCS_RX_FOLLOW_PARTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "proto.h"
#include "rx_follow.h"

/* A stream silent this long has gone: a new stream id then is its sender restarting.  Metadata
 * comes at least every 500 ms, so 1.5 s of silence is three missed metadata datagrams. */
#define ZCS_FOLLOW_SILENCE_NS (1500ULL * 1000 * 1000)

/* The stream id a valid datagram names. */
static inline uint32_t zcs_follow_id(const struct zcs_dgram *dg)
{
	return dg->type == ZCS_DGRAM_META ? dg->meta.stream_id : dg->hdr.stream_id;
}

/* An authentic datagram refused as not newer than what was followed, for reason (runstate.h). */
static inline void zcs_follow_replayed(struct zcs_follow *f, int reason)
{
	f->st.replayed++;
	f->st.replayed_by[reason]++;
}

/* --- rx_follow_stream.c --- */

/* Stream id, from `from`, is followed from now on (at monotonic time now): what the stream
 * before it showed is forgotten, and its metadata awaited. */
void zcs_follow_begin(struct zcs_follow *f, uint32_t id, const struct sockaddr *from,
		      uint64_t now);

/* --- rx_follow_board.c --- */

/* The run of metadata dg awaits the board from now on (it replaces any that did). */
void zcs_follow_pend_begin(struct zcs_follow *f, const struct zcs_dgram *dg,
			   const struct sockaddr *from, uint64_t now);
/* The board's answer on the run awaiting it, at dg (of that run, already noted); stale: dg is
 * metadata of it numbered before its newest, a replay within the replay, taken for nothing. */
enum zcs_follow_sel zcs_follow_pend_judge(struct zcs_follow *f, const struct zcs_dgram *dg,
					  bool stale, uint64_t now);
/* A datagram of the run awaiting the board: judged again at each, so the answer is acted on as
 * soon as one comes (the judge only reads it). */
enum zcs_follow_sel zcs_follow_select_pending(struct zcs_follow *f, const struct zcs_dgram *dg,
					      const struct sockaddr *from, uint64_t now);
/* The run awaiting the board is followed from now on: its newest metadata and what came of its
 * samples meanwhile become the stream's. */
void zcs_follow_take_pending(struct zcs_follow *f, uint64_t now);

#endif
