// SPDX-License-Identifier: MIT
/* The reorder window (see reorder.h): a power-of-two ring of slots indexed by seq & mask, a bitmap
 * of what happened to the numbers behind it, and a list of release events per call. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reorder.h"
#include "seq.h"

#define HIST_WORDS (ZCS_REORDER_HISTORY / 64)

static size_t pow2_at_least(size_t n)
{
	size_t p = 2;

	while (p < n)
		p <<= 1;
	return p;
}

int zcs_reorder_init(struct zcs_reorder *r, size_t capacity, uint64_t resync_dist)
{
	memset(r, 0, sizeof(*r));
	if (capacity == 0 || capacity > (1u << 24))
		return -EINVAL;
	r->capacity = pow2_at_least(capacity);
	r->window = r->capacity;
	r->resync_dist = resync_dist ? resync_dist : ZCS_REORDER_RESYNC_DEFAULT;
	/* the history must reach further back than a window, or a duplicate of a datagram that just
	 * slid out could not be told from a late one */
	if (r->capacity > ZCS_REORDER_HISTORY / 2)
		return -EINVAL;
	/* one call releases at most a window of positions, then a lost run, then (after a resync or a
	 * slide) a window of in-order data: 2 windows + a few events bound every call */
	r->ev_cap = 2 * r->capacity + 4;
	r->slots = calloc(r->capacity, sizeof(*r->slots));
	r->history = calloc(HIST_WORDS, sizeof(*r->history));
	r->ev = calloc(r->ev_cap, sizeof(*r->ev));
	if (!r->slots || !r->history || !r->ev) {
		zcs_reorder_free(r);
		return -ENOMEM;
	}
	return 0;
}

void zcs_reorder_free(struct zcs_reorder *r)
{
	free(r->slots);
	free(r->history);
	free(r->ev);
	r->slots = NULL;
	r->history = NULL;
	r->ev = NULL;
}

size_t zcs_reorder_window_for(const struct zcs_reorder *r, size_t want)
{
	return want == 0 || want > r->capacity ? r->capacity : pow2_at_least(want);
}

void zcs_reorder_reset(struct zcs_reorder *r, uint64_t start, size_t window)
{
	r->window = zcs_reorder_window_for(r, window);
	memset(r->slots, 0, r->capacity * sizeof(*r->slots));
	r->pending = 0;
	r->start = start;
	r->next = start;
	r->have_highest = false;
	r->started = true;
	r->ev_len = r->ev_pos = 0;
}

bool zcs_reorder_started(const struct zcs_reorder *r)
{
	return r->started;
}

static void hist_set(struct zcs_reorder *r, uint64_t seq, bool delivered)
{
	const uint64_t i = seq & (ZCS_REORDER_HISTORY - 1);
	const uint64_t bit = 1ULL << (i & 63);

	if (delivered)
		r->history[i / 64] |= bit;
	else
		r->history[i / 64] &= ~bit;
}

static bool hist_delivered(const struct zcs_reorder *r, uint64_t seq)
{
	const uint64_t i = seq & (ZCS_REORDER_HISTORY - 1);

	return r->history[i / 64] >> (i & 63) & 1;
}

static void emit(struct zcs_reorder *r, enum zcs_reorder_event_type type, uint64_t seq,
		 uint64_t count, uint32_t handle)
{
	struct zcs_reorder_event *e;

	/* merge adjacent lost runs so one gap is one event */
	if (type == ZCS_REORDER_EV_LOST && r->ev_len > 0) {
		e = &r->ev[r->ev_len - 1];
		if (e->type == ZCS_REORDER_EV_LOST && e->seq + e->count == seq) {
			e->count += count;
			return;
		}
	}
	assert(r->ev_len < r->ev_cap);
	e = &r->ev[r->ev_len++];
	e->type = type;
	e->seq = seq;
	e->count = count;
	e->handle = handle;
}

/* count numbers from seq on are lost.  Only the last HISTORY of them can ever be asked about. */
static void release_lost(struct zcs_reorder *r, uint64_t seq, uint64_t count)
{
	uint64_t from = seq;

	if (count > ZCS_REORDER_HISTORY)
		from = seq + (count - ZCS_REORDER_HISTORY);
	for (uint64_t s = from; s != seq + count; s++)
		hist_set(r, s, false);
	r->st.lost += count;
	emit(r, ZCS_REORDER_EV_LOST, seq, count, 0);
}

/* seq is released as data: remembered as delivered (a later copy is a duplicate) and counted. */
static void delivered(struct zcs_reorder *r, uint64_t seq)
{
	hist_set(r, seq, true);
	r->st.delivered++;
}

static void release_slot(struct zcs_reorder *r, struct zcs_reorder_slot *sl)
{
	delivered(r, sl->seq);
	emit(r, ZCS_REORDER_EV_DATA, sl->seq, 1, sl->handle);
	sl->used = false;
	r->pending--;
}

/* Releases every number before `to`: held ones as data, missing ones as lost. */
static void advance(struct zcs_reorder *r, uint64_t to)
{
	const uint64_t mask = r->window - 1;

	while (zcs_seq_before(r->next, to)) {
		struct zcs_reorder_slot *sl = &r->slots[r->next & mask];
		uint64_t run;

		if (r->pending == 0) {
			/* nothing held: the rest is one run, however long */
			release_lost(r, r->next, to - r->next);
			r->next = to;
			break;
		}
		if (sl->used) {
			release_slot(r, sl);
			r->next++;
			continue;
		}
		/* a hole: measure the run of missing numbers up to the next held one or `to` */
		run = 1;
		while (zcs_seq_before(r->next + run, to) && !r->slots[(r->next + run) & mask].used)
			run++;
		release_lost(r, r->next, run);
		r->next += run;
	}
}

/* Releases held datagrams from next on while there is no hole. */
static void release_in_order(struct zcs_reorder *r)
{
	const uint64_t mask = r->window - 1;

	while (r->pending > 0) {
		struct zcs_reorder_slot *sl = &r->slots[r->next & mask];

		if (!sl->used)
			break;
		release_slot(r, sl);
		r->next++;
	}
}

/* Counts an accepted arrival, with depth datagrams held once it is in: the one accounting of
 * both store() and zcs_reorder_take(), so the cheap path counts exactly as a push. */
static void accepted(struct zcs_reorder *r, uint64_t seq, size_t depth)
{
	if (depth > r->st.max_depth)
		r->st.max_depth = depth;
	r->st.accepted++;
	if (!r->have_highest || zcs_seq_after(seq, r->highest)) {
		r->highest = seq;
		r->have_highest = true;
	} else {
		/* it came after a higher number and still made it in time */
		r->st.reordered++;
	}
}

static void store(struct zcs_reorder *r, uint64_t seq, uint32_t handle)
{
	struct zcs_reorder_slot *sl = &r->slots[seq & (r->window - 1)];

	sl->seq = seq;
	sl->handle = handle;
	sl->used = true;
	r->pending++;
	accepted(r, seq, r->pending);
	release_in_order(r);
}

void zcs_reorder_flush(struct zcs_reorder *r)
{
	assert(r->ev_pos == r->ev_len);
	r->ev_len = r->ev_pos = 0;
	if (r->started && r->have_highest && !zcs_seq_before(r->highest, r->next))
		advance(r, r->highest + 1);
}

void zcs_reorder_skip(struct zcs_reorder *r, uint64_t to)
{
	assert(r->ev_pos == r->ev_len);
	r->ev_len = r->ev_pos = 0;
	if (r->started && zcs_seq_after(to, r->next))
		advance(r, to);
}

static void resync(struct zcs_reorder *r, uint64_t seq)
{
	const uint64_t old_next = r->next;
	const size_t window = r->window;

	if (r->have_highest && !zcs_seq_before(r->highest, r->next))
		advance(r, r->highest + 1);
	r->st.resyncs++;
	emit(r, ZCS_REORDER_EV_RESYNC, seq, old_next, 0);
	/* keep the events just made: reset would clear them */
	{
		const size_t len = r->ev_len;

		zcs_reorder_reset(r, seq, window);
		r->ev_len = len;
	}
}

void zcs_reorder_set_jump(struct zcs_reorder *r, uint64_t dist)
{
	r->jump_dist = dist;
}

static enum zcs_reorder_verdict push(struct zcs_reorder *r, uint64_t seq, uint32_t handle,
				     bool jump_ok)
{
	int64_t d;

	assert(r->ev_pos == r->ev_len);
	r->ev_len = r->ev_pos = 0;
	if (!r->started)
		zcs_reorder_reset(r, seq, r->window);
	d = zcs_seq_diff(seq, r->next);

	if (d < 0) {
		const uint64_t behind = (uint64_t)-d;

		if (behind > r->resync_dist) {
			if (r->jump_dist && !jump_ok)
				return ZCS_REORDER_JUMP;
			/* a sender that went back this far restarted: follow it */
			resync(r, seq);
			store(r, seq, handle);
			return ZCS_REORDER_ACCEPTED;
		}
		if (zcs_seq_before(seq, r->start)) {
			r->st.stale++;
			return ZCS_REORDER_STALE;
		}
		if (behind > ZCS_REORDER_HISTORY) {
			r->st.late++;
			return ZCS_REORDER_LATE;
		}
		if (hist_delivered(r, seq)) {
			r->st.duplicate++;
			return ZCS_REORDER_DUPLICATE;
		}
		r->st.late++;
		return ZCS_REORDER_LATE;
	}

	if ((uint64_t)d < r->window) {
		const struct zcs_reorder_slot *sl = &r->slots[seq & (r->window - 1)];

		/* within the window a slot can only hold this very number */
		if (sl->used) {
			r->st.duplicate++;
			return ZCS_REORDER_DUPLICATE;
		}
		store(r, seq, handle);
		return ZCS_REORDER_ACCEPTED;
	}

	if (r->jump_dist && !jump_ok && (uint64_t)d - r->window >= r->jump_dist)
		return ZCS_REORDER_JUMP;
	if ((uint64_t)d - r->window < r->resync_dist) {
		/* beyond the window: slide it so seq is its last slot */
		advance(r, seq - r->window + 1);
		store(r, seq, handle);
		return ZCS_REORDER_ACCEPTED;
	}

	resync(r, seq);
	store(r, seq, handle);
	return ZCS_REORDER_ACCEPTED;
}

enum zcs_reorder_verdict zcs_reorder_push(struct zcs_reorder *r, uint64_t seq, uint32_t handle)
{
	return push(r, seq, handle, false);
}

enum zcs_reorder_verdict zcs_reorder_push_jump(struct zcs_reorder *r, uint64_t seq,
					       uint32_t handle)
{
	return push(r, seq, handle, true);
}

bool zcs_reorder_take(struct zcs_reorder *r, uint64_t seq)
{
	if (!r->started || r->pending != 0 || seq != r->next)
		return false;
	assert(r->ev_pos == r->ev_len);
	r->ev_len = r->ev_pos = 0;
	/* as store() then release_in_order() would have counted it */
	accepted(r, seq, 1);
	delivered(r, seq);
	r->next++;
	return true;
}

bool zcs_reorder_pop(struct zcs_reorder *r, struct zcs_reorder_event *ev)
{
	if (r->ev_pos == r->ev_len)
		return false;
	*ev = r->ev[r->ev_pos++];
	return true;
}
