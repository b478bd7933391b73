// SPDX-License-Identifier: MIT
/* The SPSC pointer ring.  Release on the index a side publishes, acquire on the index it reads
 * from the other side: that is all the ordering a single producer and consumer need. */
#include <errno.h>
#include <stdlib.h>

#include "ring.h"

int zcs_ring_init(struct zcs_ring *r, size_t capacity)
{
	if (capacity < 2 || (capacity & (capacity - 1)) != 0)
		return -EINVAL;
	r->slots = calloc(capacity, sizeof(*r->slots));
	if (!r->slots)
		return -ENOMEM;
	r->mask = capacity - 1;
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	return 0;
}

void zcs_ring_free(struct zcs_ring *r)
{
	free(r->slots);
	r->slots = NULL;
}

bool zcs_ring_push(struct zcs_ring *r, void *item)
{
	size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	size_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);

	if (head - tail > r->mask)
		return false;
	r->slots[head & r->mask] = item;
	/* Publish the slot before the index that makes it visible to the consumer. */
	atomic_store_explicit(&r->head, head + 1, memory_order_release);
	return true;
}

void *zcs_ring_pop(struct zcs_ring *r)
{
	size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	size_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	void *item;

	if (head == tail)
		return NULL;
	item = r->slots[tail & r->mask];
	/* The slot is read before the producer may overwrite it. */
	atomic_store_explicit(&r->tail, tail + 1, memory_order_release);
	return item;
}

size_t zcs_ring_count(struct zcs_ring *r)
{
	return atomic_load_explicit(&r->head, memory_order_acquire) -
	       atomic_load_explicit(&r->tail, memory_order_acquire);
}
