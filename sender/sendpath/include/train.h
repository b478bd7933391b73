/* SPDX-License-Identifier: MIT */
/* Trains: the slots of zcs-send's pipeline.  A train is N wire-ready datagrams (header + payload)
 * back to back in one page-aligned slot, so one GSO send carries them all, zero-copy. */
#ifndef ZCS_TRAIN_H
#define ZCS_TRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel segments at most 64 datagrams per GSO send (UDP_MAX_SEGMENTS before Linux 6.9). */
#define ZCS_TRAIN_MAX_SEGS 64
/* And one send is at most one UDP datagram's worth of bytes. */
#define ZCS_TRAIN_MAX_BYTES 65507

/* What the send path needs to send a train and to count it when it gives one up.  What else a
 * train brings (new radio settings, say) its filler keeps beside the pool, by slot index. */
struct zcs_train {
	uint8_t *buf;          /* datagram k starts at buf + k * seg */
	uint16_t *lens;        /* bytes of datagram k, header included */
	unsigned index;        /* slot number, also the io_uring registered buffer index */
	size_t count;          /* datagrams in this train */
	size_t bytes;          /* sum of lens; the contiguous length unless variable */
	bool variable;         /* datagrams differ in length (zstd): one datagram per send */
	uint64_t first_seq;
	uint64_t first_sample;
	uint64_t samples;      /* spd in every datagram but the last, which holds the rest */
	uint64_t wall_ns;      /* wall clock when the train began filling */
	/* its wire format's: full datagrams' size (the GSO segment and the stride in buf), their
	 * samples, and the datagrams of a full train (the wire format may change between trains) */
	int format;
	size_t seg;
	size_t spd;
	size_t max_dgrams;
};

struct zcs_train_pool {
	uint8_t *mem;          /* all slots, one mapping (one io_uring buffer registration) */
	size_t mem_bytes;
	size_t slot_bytes;     /* distance between slots, a page multiple */
	size_t seg_size;       /* bytes of the largest full datagram (of any wire format) */
	size_t max_dgrams;     /* most datagrams in a full train (of any wire format) */
	size_t nslots;
	struct zcs_train *trains;
	uint16_t *lens;
};

/* Datagrams of seg_size bytes that one GSO send may carry (>= 1). */
size_t zcs_train_max_dgrams(size_t seg_size);

/* Maps nslots page-aligned slots of max_dgrams * seg_size bytes, prefaulted so the data path
 * never takes a page fault.  Returns 0 or -errno. */
int zcs_train_pool_init(struct zcs_train_pool *p, size_t nslots, size_t seg_size,
			size_t max_dgrams);
void zcs_train_pool_free(struct zcs_train_pool *p);

#endif
