/* SPDX-License-Identifier: MIT */
/* From datagrams released in order to consumer samples: keeps the stream's sample position,
 * turns every lost stretch into exactly as many zero samples (or skips it with --gap drop), and
 * converts payloads straight into the outputs' blocks.  Stops exactly at --count samples.  The
 * receive engine's one door to the outputs: samples, metadata, hand-on and end of stream all go
 * through here, in stream order. */
#ifndef ZCS_GAPFILL_H
#define ZCS_GAPFILL_H

#include <stdbool.h>
#include <stdint.h>

#include "formats.h"
#include "output.h"
#include "proto.h"
#include "rx_counters.h"   /* struct zcs_gapfill_stats, its counters */

/* Zero fill is bounded by real time, so that one datagram can make the receiver write no more
 * zeros than real time could have lost.  A gap is filled when it is within either bound:
 * - the gap's own: the stream's rate for the wall-clock time since the datagram before it was
 *   delivered, plus a slack (the reorder window's samples), the rate allowed
 *   ZCS_GAPFILL_GAP_TOLERANCE_PERMIL fast (a sender's pacing jitter);
 * - the stream's: its position after the fill no further than the rate allows for the time since
 *   the stream began here (the line), plus the slack, the rate allowed
 *   ZCS_GAPFILL_LINE_TOLERANCE_PPM fast (a radio's clock against ours).  This one holds however
 *   late the receiver reads (a backlog arrives at once) and however bursty the sender's trains.
 * Otherwise the gap is not filled and the position taken as is (a jump). */
#define ZCS_GAPFILL_GAP_TOLERANCE_PERMIL 10
#define ZCS_GAPFILL_LINE_TOLERANCE_PPM 1000

/* A source discontinuity (ZCS_FLAG_DISCONT) longer than this (2^32 pairs: minutes at any rate)
 * is not filled, nor believed as the stream's own: it is a sender that jumped, and filling it
 * would write gigabytes of zeros. */
#define ZCS_GAPFILL_MAX_SOURCE_GAP (1ULL << 32)

/* Most zero samples a gap may be, dt_ns after the datagram before it (saturating). */
static inline uint64_t zcs_gapfill_budget(uint64_t rate, uint64_t dt_ns, uint64_t slack)
{
	const double b = (double)rate * (double)dt_ns *
			 (1000 + ZCS_GAPFILL_GAP_TOLERANCE_PERMIL) / 1e12 + (double)slack;

	return b >= 1.8e19 ? UINT64_MAX : (uint64_t)b;
}

struct zcs_gapfill {
	struct zcs_outputs *out;
	const struct zcs_kernels *k;
	enum zcs_sample_type type;
	bool drop;                /* --gap drop */
	uint64_t limit;           /* --count: 0 = none */
	bool done;                /* limit reached, or a native output met another wire format */
	/* -F native puts out the wire's own bytes, whose layout is the wire format: the first
	 * datagram's is the only one it can write.  A datagram of another format (a change of
	 * format while streaming) ends the output before it: done, with what and where. */
	bool native_strict;       /* zcs_gapfill_set_native_strict(); else it flows on */
	int native_fmt;           /* the format written, 0 = none yet (or not native) */
	bool fmt_ended;
	int fmt_to;
	uint64_t fmt_at;
	bool have_pos;
	uint64_t pos;             /* stream index of the next sample expected */
	uint64_t lost_dgrams;     /* datagrams declared lost since the last one delivered */
	bool have_contest;        /* since the last one delivered, samples [contest_from, */
	uint64_t contest_from;    /* contest_to) were refused as a duplicate of a number delivered */
	uint64_t contest_to;      /* without them (zcs_gapfill_contested) */
	uint64_t spd;             /* pairs in a full datagram, from the metadata (0: unknown) */
	struct zcs_gapfill_stats st;
	/* the bound on zero fill (zcs_gapfill_budget); rate 0 = unbounded */
	uint64_t rate;
	uint64_t slack;
	uint64_t now_ns;          /* monotonic time of the datagram being delivered (the caller's) */
	uint64_t last_ns;         /* ... of the one delivered before it */
	bool have_line;           /* the stream began here (the line, above): */
	uint64_t line_pos;        /* ... at this stream index */
	uint64_t line_ns;         /* ... at this monotonic time */
	uint64_t began_ns;        /* 0, or: the stream began no later than this (zcs_gapfill_began) */
	uint64_t obs_gaps;        /* st.gaps and st.jumps at the last zcs_gapfill_observe() */
	uint64_t obs_jumps;
};

void zcs_gapfill_init(struct zcs_gapfill *g, struct zcs_outputs *out, const struct zcs_kernels *k,
		      enum zcs_sample_type type, bool drop, uint64_t limit);

/* -F native without following a change of wire format (rx.h, native_follows): a datagram of
 * another format than the first ends the output before it (done, fmt_ended, fmt_to, fmt_at). */
void zcs_gapfill_set_native_strict(struct zcs_gapfill *g, bool on);

/* A new stream (or a resync): forget the position; spd is the metadata's samples per datagram. */
void zcs_gapfill_restart(struct zcs_gapfill *g, uint64_t spd);
/* After a restart: the stream began no later than monotonic time ns, though its first datagram
 * is delivered later (a run kept while the board was asked whether it is live), so the line
 * above starts there, not at the delivery: real time since ns bounds its zero fill. */
void zcs_gapfill_began(struct zcs_gapfill *g, uint64_t ns);

/* The stream's samples per full datagram changed (a change of wire format): the estimates for
 * lost datagrams use the size in force. */
void zcs_gapfill_set_spd(struct zcs_gapfill *g, uint64_t spd);

/* Bounds zero fill from now on: rate pairs/s (0: unbounded) plus slack pairs (see above). */
void zcs_gapfill_bound(struct zcs_gapfill *g, uint64_t rate, uint64_t slack);

/* Whether zero fill from stream index `from` up to `to` (a datagram's first sample), after a
 * datagram delivered or taken dt_ns ago, is within the bounds above at monotonic time now. */
bool zcs_gapfill_within(const struct zcs_gapfill *g, uint64_t from, uint64_t to, uint64_t dt_ns,
			uint64_t now);

/* Once per receive step: when every sample delivered since the last call came from the network
 * with no gap between (the stream's own evidence, which a forger cannot advance: a forged
 * datagram in sequence only replaces a real one), the line is moved back to the earliest start
 * that evidence implies, so that a receiver that read the stream's first datagram late (or a
 * sender that started with a burst) does not take later real gaps for jumps. */
void zcs_gapfill_observe(struct zcs_gapfill *g);

/* count datagrams were declared lost before the next one delivered. */
void zcs_gapfill_lost(struct zcs_gapfill *g, uint64_t count);

/* A datagram carrying `samples` pairs from stream index first was refused as a duplicate of a
 * number already delivered, yet the outputs have not reached its samples: what was delivered for
 * that number did not carry them (without a key, a forged datagram that came first and claimed
 * fewer).  They are lost: a gap the next datagram delivered leaves within them is zero-filled and
 * counted like network loss, within the bounds above.  Only a full datagram's worth at most
 * (the metadata's samples per datagram), and only until the next datagram delivered. */
void zcs_gapfill_contested(struct zcs_gapfill *g, uint64_t first, uint64_t samples);

/* Delivers one datagram in order, at monotonic time now_ns; payload holds hdr->samples
 * uncompressed pairs of hdr->format.  Returns the pairs put out for it (fill included); g->done
 * tells when --count was reached. */
uint64_t zcs_gapfill_data(struct zcs_gapfill *g, const struct zcs_sample_hdr *hdr,
			  const uint8_t *payload, uint64_t now_ns);

/* The stream's settings (its first, or a change) for the samples that follow. */
void zcs_gapfill_meta(struct zcs_gapfill *g, const struct zcs_meta *m);
/* Hands what waits to the outputs' writers now (the samples before it go first). */
void zcs_gapfill_flush(struct zcs_gapfill *g);
/* Blocks waiting to be handed on (zcs_outputs_pending). */
size_t zcs_gapfill_pending(const struct zcs_gapfill *g);
/* The stream followed ended: its outputs are told, after every sample put out before. */
void zcs_gapfill_eos(struct zcs_gapfill *g);

#endif
