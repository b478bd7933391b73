// SPDX-License-Identifier: MIT
/* The receive thread's side of the outputs: samples are written straight into the current
 * block, and full blocks and events go by reference to every attached consumer's queue.
 * Never blocks: a full queue loses the block for that consumer only (its overruns, or, while it
 * is catching up after it came, its skipped blocks: out_queue.c). */
#include <assert.h>
#include <string.h>

#include "output_kinds.h"

/* Hands b to every attached consumer's queue; a full queue drops it for that consumer only. */
static void queue_block(struct zcs_outputs *o, struct zcs_block *b)
{
	const bool data = b->type == ZCS_BLOCK_DATA;
	bool deferred = false;

	if (zcs_out_pool_is_spare(&o->pool, b))
		return;
	for (size_t i = 0; i < o->n; i++) {
		struct zcs_out *out = o->outs[i];
		size_t attached = 0;

		pthread_mutex_lock(&out->mu);
		for (size_t j = 0; j < out->nsinks; j++) {
			struct zcs_sink *s = &out->sinks[j];
			const size_t limit = zcs_ring_capacity(&s->q) - (data ? ZCS_OUT_EVENT_SLOTS : 0);

			if (atomic_load_explicit(&s->state, memory_order_relaxed) != ZCS_SINK_ATTACHED)
				continue;
			attached++;
			switch (zcs_out_queue_push(s, b)) {
			case ZCS_OUT_PUSHED:
				break;
			case ZCS_OUT_SKIPPED:
				atomic_fetch_add_explicit(&out->skipped, 1, memory_order_relaxed);
				atomic_fetch_add_explicit(&s->skipped, 1, memory_order_relaxed);
				continue;
			case ZCS_OUT_OVERRUN:
				atomic_fetch_add_explicit(&out->overruns, 1, memory_order_relaxed);
				continue;
			}
			/* Pairs with the fence in sink_wait: either the writer sees the block or we
			 * see it asleep and wake it (now, or at the next flush when deferred: a
			 * wake-up costs a syscall and two context switches, a block ~34 datagrams). */
			atomic_thread_fence(memory_order_seq_cst);
			if (atomic_load_explicit(&s->sleeping, memory_order_relaxed)) {
				if (o->defer_wakes && zcs_ring_count(&s->q) < limit / 2) {
					s->wake_pending = true;
					deferred = true;
				} else {
					zcs_out_wake(s);
				}
			}
		}
		pthread_mutex_unlock(&out->mu);
		if (data && !attached)
			atomic_fetch_add_explicit(&out->unread, 1, memory_order_relaxed);
	}
	if (deferred)
		o->unwoken++;
	zcs_out_pool_put(&o->pool, b);
}

/* Wakes every writer a block was queued for while wake-ups were deferred.  A writer that woke
 * by itself meanwhile gets a spurious wake-up, which it tolerates. */
static void wake_pending(struct zcs_outputs *o)
{
	if (!o->unwoken)
		return;
	o->unwoken = 0;
	for (size_t i = 0; i < o->n; i++) {
		struct zcs_out *out = o->outs[i];

		for (size_t j = 0; j < out->nsinks; j++) {
			struct zcs_sink *s = &out->sinks[j];

			if (s->wake_pending) {
				s->wake_pending = false;
				zcs_out_wake(s);
			}
		}
	}
}

void zcs_outputs_defer_wakes(struct zcs_outputs *o, bool on)
{
	o->defer_wakes = on;
	if (!on)
		wake_pending(o);
}

size_t zcs_outputs_pending(const struct zcs_outputs *o)
{
	return o->unwoken + (o->cur && o->cur->len ? 1 : 0);
}

static void queue_current(struct zcs_outputs *o)
{
	struct zcs_block *b = o->cur;

	o->cur = NULL;
	if (!b)
		return;
	if (b->len == 0) {
		zcs_out_pool_put(&o->pool, b);
		return;
	}
	queue_block(o, b);
}

void *zcs_outputs_reserve(struct zcs_outputs *o, size_t len)
{
	assert(len <= ZCS_BLOCK_BYTES);
	if (o->cur && ZCS_BLOCK_BYTES - o->cur->len < len)
		queue_current(o);
	if (!o->cur)
		o->cur = zcs_out_pool_get(&o->pool, ZCS_BLOCK_DATA);
	return o->cur->data + o->cur->len;
}

void zcs_outputs_commit(struct zcs_outputs *o, uint64_t first_sample, size_t pairs, size_t len)
{
	struct zcs_block *b = o->cur;

	if (!b || len == 0 || len > ZCS_BLOCK_BYTES - b->len)
		return;
	if (b->len == 0) {
		b->first_sample = first_sample;
	} else if (first_sample != b->first_sample + b->pairs) {
		/* These samples do not follow the block's: a block holds one contiguous run, so
		 * writers can tell where the stream jumped.  Rare (a resync), so a copy is fine. */
		struct zcs_block *nb = zcs_out_pool_get(&o->pool, ZCS_BLOCK_DATA);

		memcpy(nb->data, b->data + b->len, len);
		queue_current(o);
		o->cur = b = nb;
		b->first_sample = first_sample;
	}
	b->len += len;
	b->pairs += pairs;
	if (b->len == ZCS_BLOCK_BYTES)
		queue_current(o);
}

void zcs_outputs_flush(struct zcs_outputs *o)
{
	if (o->cur && o->cur->len)
		queue_current(o);
	wake_pending(o);
}

static struct zcs_block *event_block(struct zcs_outputs *o, enum zcs_block_type type)
{
	/* the samples before the event go first */
	zcs_outputs_flush(o);
	return zcs_out_pool_get(&o->pool, type);
}

void zcs_outputs_meta(struct zcs_outputs *o, const struct zcs_meta *meta)
{
	struct zcs_block *b = event_block(o, ZCS_BLOCK_META);

	b->meta = *meta;
	for (size_t i = 0; i < o->n; i++) {
		pthread_mutex_lock(&o->outs[i]->mu);
		o->outs[i]->meta = *meta;
		o->outs[i]->have_meta = true;
		pthread_mutex_unlock(&o->outs[i]->mu);
	}
	queue_block(o, b);
}

void zcs_outputs_gap(struct zcs_outputs *o, uint64_t first_sample, uint64_t pairs, bool filled)
{
	struct zcs_block *b = event_block(o, ZCS_BLOCK_GAP);

	b->first_sample = first_sample;
	b->pairs = pairs;
	b->filled = filled;
	queue_block(o, b);
}

void zcs_outputs_eos(struct zcs_outputs *o)
{
	queue_block(o, event_block(o, ZCS_BLOCK_EOS));
	/* the end is news a consumer acts on (closing a recording): no deferring */
	wake_pending(o);
}
