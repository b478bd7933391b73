// SPDX-License-Identifier: MIT
/* Where an unkeyed stream starts (rx_follow.h, "The stream's start"): the datagrams the engine
 * keeps until then, sorted into runs that continue one another, and the rules that confirm one
 * of them (docs/protocol.md, "The stream's start").  Decisions only: the datagrams are the
 * engine's (rx_start.c). */
#include <string.h>

#include "clock.h"
#include "rx_follow.h"
#include "seq.h"

/* A run continues over at most this many numbers at once: a loss that long at the very start
 * begins a run of its own (the capacity of the largest automatic window). */
#define RUN_SPAN 1024
/* A run that holds this many, more than twice all the others together, and has gone on for as
 * long as a jump is held (quiet_ns), is the stream's whatever its metadata says: a receiver
 * whose metadata misleads (forged, or a sender's wrong next_seq) still starts.  A burst sent
 * before the stream shows cannot last that long, and the stream's own run, named by its
 * metadata, is taken as soon as it comes. */
#define MAJORITY_MIN 8

/* Whether a datagram at (seq, first) continues one at `prev` whose samples end at `end`: a later
 * number, at most RUN_SPAN on, whose sample index follows as a loss allows: each missing
 * datagram held one pair at least and 65535 at most (2^32 more with DISCONT).  So a copy
 * renumbered far away, whatever its sample index, is never part of the stream's run.  The usual
 * case, the very next datagram, costs two compares. */
static bool follows(uint64_t seq, uint64_t first, bool discont, uint64_t prev, uint64_t end)
{
	const int64_t k = zcs_seq_diff(seq, prev);
	const int64_t gap = zcs_seq_diff(first, end);
	uint64_t most;

	if (k == 1 && first == end)
		return true;
	if (k <= 0 || k > RUN_SPAN || gap < k - 1)
		return false;
	most = (uint64_t)(k - 1) * UINT16_MAX;
	if (discont)
		most = most > UINT64_MAX - ZCS_GAPFILL_MAX_SOURCE_GAP ? UINT64_MAX
							      : most + ZCS_GAPFILL_MAX_SOURCE_GAP;
	return (uint64_t)gap <= most;
}

/* Whether seq lies in [lo, hi] (serial: hi is never before lo). */
static bool within(uint64_t seq, uint64_t lo, uint64_t hi)
{
	return seq - lo <= hi - lo;
}

void zcs_follow_start_keep(struct zcs_follow *f, const struct zcs_sample_hdr *h, uint64_t now)
{
	const uint64_t end = h->first_sample + h->samples;
	const bool discont = (h->flags & ZCS_FLAG_DISCONT) != 0;
	struct zcs_start_run *r;

	if (!f->start_since_ns)
		f->start_since_ns = now;
	for (size_t i = 0; i < f->nruns; i++) {
		r = &f->runs[i];
		if (follows(h->seq, h->first_sample, discont, r->hi, r->hi_end)) {
			r->hi = h->seq;
			r->hi_end = end;
		} else if (follows(r->lo, r->lo_first, false, h->seq, end)) {
			/* reordered before the run's first: the run continues from it */
			r->lo = h->seq;
			r->lo_first = h->first_sample;
		} else if (!within(h->seq, r->lo, r->hi) ||
			   zcs_seq_before(h->first_sample, r->lo_first) ||
			   zcs_seq_after(end, r->hi_end)) {
			continue;
		}
		/* (within the run, its samples within the run's: a straggler or a copy) */
		r->count++;
		return;
	}
	/* a run of its own; when there is no room, it takes the place of the one kept least */
	if (f->nruns < ZCS_FOLLOW_START_RUNS) {
		r = &f->runs[f->nruns++];
	} else {
		r = &f->runs[0];
		for (size_t i = 1; i < f->nruns; i++)
			if (f->runs[i].count < r->count)
				r = &f->runs[i];
	}
	*r = (struct zcs_start_run){ .lo = h->seq, .hi = h->seq, .lo_first = h->first_sample,
				     .hi_end = end, .count = 1, .first_ns = now };
}

void zcs_follow_start_give_up(struct zcs_follow *f, uint64_t seq, uint32_t samples, bool own)
{
	f->st.pre_meta++;
	f->st.pre_meta_samples += samples;
	if (!own)
		return;
	for (size_t i = 0; i < f->nruns; i++) {
		if (within(seq, f->runs[i].lo, f->runs[i].hi) && f->runs[i].count) {
			f->runs[i].count--;
			break;
		}
	}
	/* remembered as what came before the start could be used: the window starts at the
	 * stream's datagram 0 when it was among them (zcs_follow_start) */
	if (!f->have_pre_meta || zcs_seq_after(seq, f->pre_meta_high))
		f->pre_meta_high = seq;
	if (!f->have_pre_meta || zcs_seq_before(seq, f->pre_meta_low))
		f->pre_meta_low = seq;
	f->have_pre_meta = true;
}

/* How the metadata names run r: 2 when its first number lies in the window at or after
 * next_seq (where the stream goes on from), 1 when next_seq lies within the run or a window
 * after it (datagrams kept before the metadata came), 0 not at all. */
static int named(const struct zcs_follow *f, const struct zcs_start_run *r, size_t window)
{
	const uint64_t ns = f->meta.next_seq;

	if (r->lo - ns < window)
		return 2;
	return ns - r->lo <= (r->hi - r->lo) + window ? 1 : 0;
}

/* Whether run r may be where a stream joined late has got to since its newest metadata came:
 * after next_seq by no more than the rate allows for the time since (1 % fast), plus a window
 * (GSO trains come in bursts). */
static bool joined(const struct zcs_follow *f, const struct zcs_start_run *r, size_t window,
		   uint64_t now)
{
	const uint64_t spd = f->meta.samples_per_dgram ? f->meta.samples_per_dgram : 1;
	const double since = (double)(now - f->meta_ns) / 1e9;
	const double reach = (double)f->meta.sample_rate * 1.01 * since / (double)spd + (double)window;
	const int64_t ahead = zcs_seq_diff(r->lo, f->meta.next_seq);

	return ahead > 0 && (double)ahead <= reach;
}

bool zcs_follow_start_pick(struct zcs_follow *f, size_t window, uint64_t now, bool silent,
			   bool ending, struct zcs_start_run *run)
{
	const struct zcs_start_run *best = NULL, *pick = NULL;
	uint64_t total = 0, second = 0;
	int pick_named = 0;

	if (!f->have_meta || f->nruns == 0)
		return false;
	for (size_t i = 0; i < f->nruns; i++) {
		const struct zcs_start_run *r = &f->runs[i];
		const int n = r->count ? named(f, r, window) : 0;

		total += r->count;
		/* the metadata names it: where the stream goes on before where it was, then the
		 * run kept most */
		if (n && (n > pick_named || (n == pick_named && r->count > pick->count))) {
			pick = r;
			pick_named = n;
		}
		if (!best || r->count > best->count) {
			second = best ? best->count : 0;
			best = r;
		} else if (r->count > second) {
			second = r->count;
		}
	}
	/* else kept most by far: a stream joined late, or one whose metadata misleads */
	if (!pick && best->count >= 2 && best->count > 2 * second &&
	    (joined(f, best, window, now) ||
	     (best->count >= MAJORITY_MIN && best->count > 2 * (total - best->count) &&
	      now - best->first_ns >= f->quiet_ns)))
		pick = best;
	/* else the stream fell silent, or ends */
	if (!pick && ((silent && best->count >= 2 && best->count > second) ||
		      (ending && best->count)))
		pick = best;
	if (!pick)
		return false;
	*run = *pick;
	f->nruns = 0;
	return true;
}

bool zcs_follow_start_extend(struct zcs_start_run *run, const struct zcs_sample_hdr *h)
{
	const uint64_t end = h->first_sample + h->samples;

	if (follows(h->seq, h->first_sample, (h->flags & ZCS_FLAG_DISCONT) != 0, run->hi,
		    run->hi_end)) {
		run->hi = h->seq;
		run->hi_end = end;
		return true;
	}
	if (follows(run->lo, run->lo_first, false, h->seq, end)) {
		run->lo = h->seq;
		run->lo_first = h->first_sample;
		return true;
	}
	return false;
}

bool zcs_follow_start_named(const struct zcs_follow *f, const struct zcs_sample_hdr *h,
			    size_t window)
{
	return f->have_meta && f->nruns == 0 && h->seq - f->meta.next_seq < window;
}
