// SPDX-License-Identifier: MIT
/* The outputs' block pool: one array of refcounted 64 KB blocks that every queue shares by
 * reference, sized at start so the receive thread never waits for a block nor allocates one. */
#include <errno.h>
#include <stdlib.h>

#include "output_kinds.h"

int zcs_out_pool_init(struct zcs_out_pool *p)
{
	p->spare.data = malloc(ZCS_BLOCK_BYTES);
	if (!p->spare.data)
		return -ENOMEM;
	pthread_mutex_init(&p->mu, NULL);
	return 0;
}

int zcs_out_pool_fill(struct zcs_out_pool *p, size_t nblocks)
{
	p->blocks = calloc(nblocks, sizeof(*p->blocks));
	/* untouched pages of this area are never made resident (see ZCS_OUT_QUEUE_BLOCKS) */
	p->mem = aligned_alloc(ZCS_CACHELINE, nblocks * ZCS_BLOCK_BYTES);
	if (!p->blocks || !p->mem)
		return -ENOMEM;
	p->nblocks = nblocks;
	/* pushed from the last, so the first blocks are handed out first and stay the hot set */
	for (size_t i = nblocks; i-- > 0;) {
		p->blocks[i].data = p->mem + i * ZCS_BLOCK_BYTES;
		p->blocks[i].next_free = p->free_list;
		p->free_list = &p->blocks[i];
	}
	return 0;
}

struct zcs_block *zcs_out_pool_get(struct zcs_out_pool *p, enum zcs_block_type type)
{
	struct zcs_block *b;

	/* the lock is held for two pointer moves, against writers returning blocks: cheaper
	 * than a lock-free stack's ABA care at one block per 64 KB */
	pthread_mutex_lock(&p->mu);
	b = p->free_list;
	if (b)
		p->free_list = b->next_free;
	pthread_mutex_unlock(&p->mu);
	if (!b) {
		/* Not with the sizing of zcs_outputs_start; before start, or were it ever wrong,
		 * the caller still gets somewhere to write, and the block goes nowhere. */
		b = &p->spare;
	}
	atomic_store_explicit(&b->refs, 1, memory_order_relaxed);
	b->type = type;
	b->len = 0;
	b->pairs = 0;
	b->first_sample = 0;
	b->filled = false;
	return b;
}

bool zcs_out_pool_is_spare(const struct zcs_out_pool *p, const struct zcs_block *b)
{
	return b == &p->spare;
}

void zcs_out_pool_put(struct zcs_out_pool *p, struct zcs_block *b)
{
	if (b == &p->spare)
		return;
	/* acq_rel: every holder's reads of the block happen before the last one frees it */
	if (atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) != 1)
		return;
	pthread_mutex_lock(&p->mu);
	b->next_free = p->free_list;
	p->free_list = b;
	pthread_mutex_unlock(&p->mu);
}

void zcs_out_pool_free(struct zcs_out_pool *p)
{
	if (!p->spare.data)
		return;
	pthread_mutex_destroy(&p->mu);
	free(p->blocks);
	free(p->mem);
	free(p->spare.data);
}
