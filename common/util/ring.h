/* SPDX-License-Identifier: MIT */
/* A lock-free single-producer single-consumer ring of pointers, the only hand-off between threads
 * on the data path.  One thread pushes, one thread pops; nothing else touches it. */
#ifndef ZCS_RING_H
#define ZCS_RING_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZCS_CACHELINE 64

struct zcs_ring {
	/* head and tail on their own cache lines so producer and consumer never share one */
	alignas(ZCS_CACHELINE) atomic_size_t head; /* next slot to push, written by the producer */
	alignas(ZCS_CACHELINE) atomic_size_t tail; /* next slot to pop, written by the consumer */
	alignas(ZCS_CACHELINE) size_t mask;
	void **slots;
};

/* capacity must be a power of two >= 2.  Returns 0, -EINVAL or -ENOMEM. */
int zcs_ring_init(struct zcs_ring *r, size_t capacity);
void zcs_ring_free(struct zcs_ring *r);

/* Producer side: false when full. */
bool zcs_ring_push(struct zcs_ring *r, void *item);
/* Consumer side: NULL when empty. */
void *zcs_ring_pop(struct zcs_ring *r);
/* Either side: items now queued (a snapshot). */
size_t zcs_ring_count(struct zcs_ring *r);

static inline size_t zcs_ring_capacity(const struct zcs_ring *r)
{
	return r->mask + 1;
}

#ifdef __cplusplus
}
#endif

#endif
