// SPDX-License-Identifier: MIT
/* The preallocated pool of train slots: one anonymous mapping, so the whole pool can be one
 * registered io_uring buffer and no allocation ever happens per datagram. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "train.h"

size_t zcs_train_max_dgrams(size_t seg_size)
{
	size_t n;

	if (seg_size == 0)
		return 1;
	n = ZCS_TRAIN_MAX_BYTES / seg_size;
	if (n > ZCS_TRAIN_MAX_SEGS)
		n = ZCS_TRAIN_MAX_SEGS;
	return n ? n : 1;
}

int zcs_train_pool_init(struct zcs_train_pool *p, size_t nslots, size_t seg_size,
			size_t max_dgrams)
{
	const long page = sysconf(_SC_PAGESIZE);
	const size_t pg = page > 0 ? (size_t)page : 4096;
	void *m;
	int ret;

	memset(p, 0, sizeof(*p));
	if (nslots == 0 || seg_size == 0 || max_dgrams == 0)
		return -EINVAL;
	p->seg_size = seg_size;
	p->max_dgrams = max_dgrams;
	p->nslots = nslots;
	p->slot_bytes = (seg_size * max_dgrams + pg - 1) / pg * pg;
	p->mem_bytes = p->slot_bytes * nslots;
	m = mmap(NULL, p->mem_bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (m == MAP_FAILED) {
		ret = -errno;
		goto fail;
	}
	p->mem = m;
	p->trains = calloc(nslots, sizeof(*p->trains));
	p->lens = calloc(nslots * max_dgrams, sizeof(*p->lens));
	if (!p->trains || !p->lens) {
		ret = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < nslots; i++) {
		p->trains[i].buf = p->mem + i * p->slot_bytes;
		p->trains[i].lens = p->lens + i * max_dgrams;
		p->trains[i].index = (unsigned)i;
		/* until a train is filled for a wire format of its own: the pool's largest */
		p->trains[i].seg = seg_size;
		p->trains[i].max_dgrams = max_dgrams;
	}
	return 0;
fail:
	zcs_train_pool_free(p);
	return ret;
}

void zcs_train_pool_free(struct zcs_train_pool *p)
{
	if (p->mem)
		munmap(p->mem, p->mem_bytes);
	free(p->trains);
	free(p->lens);
	memset(p, 0, sizeof(*p));
}
