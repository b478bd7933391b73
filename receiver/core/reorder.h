/* SPDX-License-Identifier: MIT */
/* The reorder window: sample datagrams go in by sequence number in any order and come out in
 * sequence order, with every missing number reported once as lost.  A pure data structure (no
 * I/O, no clock): the caller stores datagrams elsewhere and hands in an opaque 32-bit handle. */
#ifndef ZCS_REORDER_H
#define ZCS_REORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rx_counters.h"

/* Sequence numbers remembered behind the window, one bit each, to tell a duplicate (that number
 * was delivered) from a late arrival (it was declared lost).  64 Ki numbers = 8 KiB cover more
 * than a second of a 20 MS/s stream, far longer than any datagram stays in a network. */
#define ZCS_REORDER_HISTORY 65536u

/* Default distance beyond the window's end that still counts as a gap rather than a resync:
 * 2^18 datagrams (about 6 s of 20 MS/s p12 at MTU 1500).  A longer jump cannot be a burst of loss
 * worth zero-filling; it is a sender that jumped or restarted, and is reported once. */
#define ZCS_REORDER_RESYNC_DEFAULT (1u << 18)

/* What zcs_reorder_push() did with a datagram.  Every arrival gets exactly one verdict. */
enum zcs_reorder_verdict {
	ZCS_REORDER_ACCEPTED = 0, /* held, and released in order through zcs_reorder_pop() */
	ZCS_REORDER_DUPLICATE,    /* its number is held or was delivered already: dropped */
	ZCS_REORDER_LATE,         /* its number was declared lost already: dropped */
	ZCS_REORDER_STALE,        /* its number precedes the stream's start: dropped, not counted */
	/* only while jump_dist is set (zcs_reorder_set_jump): a jump further than jump_dist beyond
	 * the window, or a resync (either way).  Nothing changed, nothing counted; the caller
	 * believes it only once the stream confirms it, then hands it in with
	 * zcs_reorder_push_jump() */
	ZCS_REORDER_JUMP,
};

enum zcs_reorder_event_type {
	ZCS_REORDER_EV_DATA = 0, /* seq is released: handle is the caller's datagram */
	ZCS_REORDER_EV_LOST,     /* count numbers from seq on are lost (never delivered) */
	ZCS_REORDER_EV_RESYNC,   /* the window jumped to seq; count = the old next number */
};

struct zcs_reorder_event {
	enum zcs_reorder_event_type type;
	uint32_t handle;
	uint64_t seq;
	uint64_t count;
};

/* struct zcs_reorder_stats, its counters: rx_counters.h (the engine's snapshot reports them). */

struct zcs_reorder_slot {
	uint64_t seq;
	uint32_t handle;
	bool used;
};

struct zcs_reorder {
	size_t capacity;            /* slots allocated: a power of two */
	size_t window;              /* slots in use now: a power of two <= capacity */
	uint64_t resync_dist;       /* jumps further than this beyond the window resync */
	uint64_t jump_dist;         /* 0, or: pushes further beyond the window are JUMP verdicts */
	bool started;
	uint64_t start;             /* first number of this stream: earlier ones are stale */
	uint64_t next;              /* lowest number not yet released */
	uint64_t highest;           /* highest number accepted (valid when have_highest) */
	bool have_highest;
	size_t pending;             /* datagrams held now: the current depth */
	struct zcs_reorder_slot *slots;
	uint64_t *history;          /* ZCS_REORDER_HISTORY bits: 1 = delivered, 0 = lost */
	struct zcs_reorder_event *ev;
	size_t ev_cap, ev_len, ev_pos;
	struct zcs_reorder_stats st;
};

/* Allocates capacity slots (rounded up to a power of two, at least 2).  resync_dist 0 takes the
 * default.  The window starts as the whole capacity.  Returns 0, -EINVAL or -ENOMEM. */
int zcs_reorder_init(struct zcs_reorder *r, size_t capacity, uint64_t resync_dist);
void zcs_reorder_free(struct zcs_reorder *r);

/* Forgets everything held (their handles are NOT released: drain with flush first) and begins a
 * new stream whose first number is start, with a window of `window` slots (rounded up to a power
 * of two, at most the capacity; 0 = the capacity).  Counters are kept. */
void zcs_reorder_reset(struct zcs_reorder *r, uint64_t start, size_t window);

/* The window zcs_reorder_reset() makes of `want` slots: rounded up to a power of two, at most the
 * capacity (0: the capacity).  Callers reasoning in windows ask here, not with their own figure. */
size_t zcs_reorder_window_for(const struct zcs_reorder *r, size_t want);

/* A window that has not been reset starts at the first number pushed. */
bool zcs_reorder_started(const struct zcs_reorder *r);

/* Offers datagram seq.  Cases, in serial arithmetic relative to the next number to release:
 *   before the start                 -> STALE
 *   behind, within the history       -> DUPLICATE if it was delivered, LATE if declared lost
 *   behind, beyond the history       -> LATE (too old to tell; it was released long ago)
 *   behind by more than resync_dist  -> resync to it (a restarted or jumping sender)
 *   in the window, slot taken        -> DUPLICATE
 *   in the window                    -> ACCEPTED
 *   beyond the window, < resync_dist -> the window slides: passed numbers are released (held
 *                                       ones as data, missing ones as lost), then ACCEPTED
 *   further                          -> everything held is flushed, one RESYNC event, ACCEPTED
 * Events go to an internal list that the caller must drain with zcs_reorder_pop() before the
 * next push or flush. */
enum zcs_reorder_verdict zcs_reorder_push(struct zcs_reorder *r, uint64_t seq, uint32_t handle);

/* Jumps further than dist beyond the window (and every resync) are no longer taken by push but
 * answered ZCS_REORDER_JUMP; 0 (the initial value) turns that off.  Kept across resets. */
void zcs_reorder_set_jump(struct zcs_reorder *r, uint64_t dist);

/* As zcs_reorder_push() without jump_dist: a JUMP the caller now believes is taken (the window
 * slides or resyncs to seq).  Never returns ZCS_REORDER_JUMP. */
enum zcs_reorder_verdict zcs_reorder_push_jump(struct zcs_reorder *r, uint64_t seq,
					       uint32_t handle);

/* The in-order case made cheap: nothing is held and seq is the very number due next, so a push
 * would accept it and release it at once.  Then it is counted exactly as that push and its DATA
 * event would count it, true is returned, and the caller delivers the datagram itself, with no
 * event.  Otherwise false and nothing changed: push it.  Drain the events first, as for push. */
bool zcs_reorder_take(struct zcs_reorder *r, uint64_t seq);

/* Releases everything held, declaring the holes between them lost (the stream went silent, ended,
 * or is being replaced).  Numbers above the highest accepted are not declared lost. */
void zcs_reorder_flush(struct zcs_reorder *r);

/* Declares every number from the window's start up to `to` (excluded) lost at once, in one LOST
 * event: numbers known never to come (seen before the stream could be followed, and discarded).
 * Call it right after zcs_reorder_reset(), before anything is pushed; drain the events as for
 * push. */
void zcs_reorder_skip(struct zcs_reorder *r, uint64_t to);

/* Next event, or false when none is left. */
bool zcs_reorder_pop(struct zcs_reorder *r, struct zcs_reorder_event *ev);

static inline size_t zcs_reorder_depth(const struct zcs_reorder *r)
{
	return r->pending;
}

#endif
