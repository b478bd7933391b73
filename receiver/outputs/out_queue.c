// SPDX-License-Identifier: MIT
/* One consumer's queue: the receive thread pushes, the consumer's own thread pops, and a
 * consumer that has just come skips what it could not take before it first caught up with the
 * live stream, at its start, instead of losing it in the middle (output_kinds.h says how). */
#include "output_kinds.h"

enum zcs_out_push zcs_out_queue_push(struct zcs_sink *s, struct zcs_block *b)
{
	const bool data = b->type == ZCS_BLOCK_DATA;
	size_t limit = zcs_ring_capacity(&s->q);

	if (data)
		limit -= ZCS_OUT_EVENT_SLOTS;
	if (zcs_ring_count(&s->q) >= limit) {
		if (!data || !s->catching_up)
			return ZCS_OUT_OVERRUN;
		/* Every data block queued so far is older than what the consumer can still take in
		 * time: the sink's thread discards them all, and this one is not queued.  The
		 * consumer's stream then jumps once, from what it was given before to the blocks
		 * queued after this mark. */
		atomic_store_explicit(&s->mark, s->pushed, memory_order_release);
		return ZCS_OUT_SKIPPED;
	}
	atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
	zcs_ring_push(&s->q, b);
	if (data)
		s->pushed++;
	return ZCS_OUT_PUSHED;
}

struct zcs_block *zcs_out_queue_pop(struct zcs_sink *s, struct zcs_out_pool *pool,
				    uint64_t *skipped)
{
	struct zcs_block *b;

	while ((b = zcs_ring_pop(&s->q))) {
		if (b->type != ZCS_BLOCK_DATA)
			return b;
		/* the ring keeps the order: the n-th data block popped is the n-th pushed */
		s->popped++;
		/* A mark read late only delays the discard to the next block: the stream still
		 * jumps once, a little later. */
		if (!s->catching_up ||
		    s->popped > atomic_load_explicit(&s->mark, memory_order_acquire))
			return b;
		zcs_out_pool_put(pool, b);
		(*skipped)++;
	}
	return NULL;
}

void zcs_out_queue_reset(struct zcs_sink *s, bool catch_up, uint64_t now_ns)
{
	s->catching_up = catch_up;
	s->attached_ns = now_ns;
	s->pushed = 0;
	s->popped = 0;
	s->given = 0;
	atomic_store(&s->mark, 0);
	atomic_store(&s->skipped, 0);
}

bool zcs_out_queue_caught_up(struct zcs_sink *s, size_t held, size_t room, uint64_t now_ns)
{
	/* A consumer that reads nothing fills the kernel's room for it; one that keeps up leaves
	 * what is in flight to it, which on a fast link with some delay is more than a block but
	 * stays below half the send buffer Linux sizes for that link. */
	const size_t most = room / 2 > ZCS_BLOCK_BYTES ? room / 2 : ZCS_BLOCK_BYTES;

	/* given alone could all sit unread in the kernel; held alone is small right after attach,
	 * when the client's receive buffer takes what comes whether or not the client reads */
	return s->catching_up && s->given >= ZCS_OUT_CATCHUP_BYTES && held < most &&
	       zcs_ring_count(&s->q) == 0 && now_ns - s->attached_ns >= ZCS_OUT_CATCHUP_NS;
}

void zcs_out_queue_caught_up_end(struct zcs_sink *s)
{
	pthread_mutex_lock(&s->out->mu);
	s->catching_up = false;
	pthread_mutex_unlock(&s->out->mu);
}
