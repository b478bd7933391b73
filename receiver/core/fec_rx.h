/* SPDX-License-Identifier: MIT */
/* The receiver's erasure decoding (docs/receiver.md, "Restoring lost datagrams"): the stream's
 * recent sample datagrams and the parity of its open blocks, kept so that a block that lost at
 * most m of its k sample datagrams has them rebuilt before the reorder window gives up on them.
 * Bounded: ZCS_FEC_RX_SLOTS datagrams and ZCS_FEC_RX_BLOCKS blocks, allocated once, when the
 * first stream with parity is followed (its metadata announces K:M, or its first parity comes);
 * a stream without parity costs neither memory nor a copy, and a build without the code keeps
 * nothing.  The engine (rx_dgram.c) feeds it and places what it rebuilds. */
#ifndef ZCS_FEC_RX_H
#define ZCS_FEC_RX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fec.h"
#include "proto.h"

/* The sample datagrams kept, by seq: two of the largest blocks, so a block's datagrams are
 * still there when its parity (sent after them) comes. */
#define ZCS_FEC_RX_SLOTS 256
/* Blocks whose parity is kept: the largest block's parity arrives at most 160 datagrams after
 * its first, so 8 blocks of 32 cover the 256 datagrams above. */
#define ZCS_FEC_RX_BLOCKS 8
/* Blocks kept under one block number with different k, m or shard length: parity that disagrees
 * with the block first heard of is not dropped (a forged datagram ahead of the sender's would
 * then veto the block), but kept as another reading of it, each decoded on its own.  A third
 * replaces the one holding least parity (a forger sends one a block; the sender m). */
#define ZCS_FEC_RX_VARIANTS 2

struct zcs_fec_rx_block {
	bool used;
	bool keyed;               /* its parity carried trailers: rebuilt datagrams are keyed */
	uint64_t block_seq;
	uint8_t k, m;
	uint16_t shard_len;
	uint32_t have_parity;     /* bit i: parity i arrived */
	uint64_t have_data[2];    /* bit j: sample datagram j arrived or was rebuilt */
	bool given_up;            /* rebuilding was tried with every choice of its parity and failed,
				   * or its datagrams disagree with it (longer than its shards) */
	bool judged;              /* its outcome is known (the window released all of it) and was
				   * counted: unrecoverable when datagrams were missing */
	/* choices of its parity (bit i: parity i) whose rebuild was not believed: not tried again */
	uint32_t failed[4];
	uint8_t nfailed;
	uint8_t *parity;          /* m shards of cap bytes */
};

struct zcs_fec_rx_stats {
	uint64_t parity;          /* parity datagrams of the stream followed */
	uint64_t restored;        /* sample datagrams rebuilt and put in their place */
	/* blocks the window released with sample datagrams missing: one a block number, counted by
	 * the reading of it holding most parity; a block whose parity disagreed with the metadata's
	 * K:M, or that was dropped before the window released it, is no loss known */
	uint64_t unrecoverable;
	uint64_t kept;            /* sample datagrams copied into the store */
	/* rebuilt datagrams not believed: they failed their own tag, or were no datagram of their
	 * block (parity that was not the sender's); their block is given up */
	uint64_t refused;
};

struct zcs_fec_rx {
	bool armed;               /* the stream followed has parity: its datagrams are kept */
	bool failed;              /* the store could not be allocated: parity is only counted */
	uint64_t from;            /* armed: the first seq kept (blocks before it are not opened) */
	uint8_t k, m;             /* the K:M of the stream's latest parity (0: none yet) */
	uint8_t want_k, want_m;   /* the K:M the stream's metadata announces (0: none) */
	size_t cap;               /* bytes of each shard buffer */
	size_t bytes;             /* allocated (0 until a stream with parity is followed) */
	uint8_t *mem;
	uint8_t *data;            /* ZCS_FEC_RX_SLOTS shards */
	uint64_t seq[ZCS_FEC_RX_SLOTS];
	uint16_t len[ZCS_FEC_RX_SLOTS]; /* the datagram's length, 0: slot empty */
	struct zcs_fec_rx_block blk[ZCS_FEC_RX_BLOCKS];
	uint8_t *work;            /* the decoder's: ZCS_FEC_MAX_M parity shards */
	struct zcs_fec_rx_stats st;
};

/* Sets f up for datagrams of at most max_dgram bytes; nothing is allocated yet. */
void zcs_fec_rx_init(struct zcs_fec_rx *f, size_t max_dgram);
/* Sets f up for datagrams of at most max_dgram bytes from now on, while nothing is allocated
 * (then it stays as it was). */
void zcs_fec_rx_size(struct zcs_fec_rx *f, size_t max_dgram);
void zcs_fec_rx_free(struct zcs_fec_rx *f);
/* Forgets every datagram and block, and disarms (a new stream is followed); the store's memory
 * and the counters stay.  next: as zcs_fec_rx_close_all's. */
void zcs_fec_rx_reset(struct zcs_fec_rx *f, const uint64_t *next);

/* The stream followed has parity: sample datagrams from seq `from` on are kept (the store is
 * allocated the first time).  Armed already: `from` is moved.  Returns 0, -ENOTSUP (a build
 * without the code) or -ENOMEM (then parity is only counted, and arming is not tried again). */
int zcs_fec_rx_arm(struct zcs_fec_rx *f, uint64_t from);

/* The K:M the stream's metadata announces (fec=K:M; 0:0 none): parity of another m, or of a k
 * above K (below it is the stream's last block, cut short), is not the sender's and is neither
 * kept nor let change f->k and f->m. */
void zcs_fec_rx_expect(struct zcs_fec_rx *f, uint8_t k, uint8_t m);

/* A sample datagram of the stream followed (len bytes at dg, as received: keyed with its
 * trailer, compressed or not): kept, one copy, for parity that may follow, when armed and not
 * before `from`; otherwise nothing is done. */
void zcs_fec_rx_data(struct zcs_fec_rx *f, const uint8_t *dg, size_t len);

/* A parity datagram of the stream followed (parsed into p, its parity at payload); next: the
 * lowest seq the reorder window has not released (a block entirely before it is of no use).
 * f must be armed for it to be kept (zcs_fec_rx_arm); a block that begins before the arming's
 * `from` is not opened: its datagrams before that were not kept.  Returns 0, or -ENOMEM. */
int zcs_fec_rx_parity(struct zcs_fec_rx *f, const struct zcs_parity_hdr *p, const uint8_t *payload,
		      bool keyed, uint64_t next);

/* Rebuilds what can be of the blocks holding seq `at` (a datagram just came to them: each
 * reading of its block number, decoded on its own).  For each datagram rebuilt whose seq is not
 * before next, calls put(ctx, dg, len), which returns 1 when it was placed (verified and taken:
 * counted restored), 0 when not (no room, or its place taken meanwhile), or a negative errno
 * when it is not to be believed (keyed: its own tag failed).  A rebuilt datagram not believed
 * (or longer than the block's shards) is counted refused: some parity used was not the
 * sender's, and the block is decoded again from another choice of its parity, when it has more
 * than it needs; given up when every choice failed.  dg is the store's, valid during the call;
 * stream_id completes its prefix. */
void zcs_fec_rx_restore(struct zcs_fec_rx *f, uint64_t at, uint64_t next, uint32_t stream_id,
			int (*put)(void *ctx, uint8_t *dg, size_t len), void *ctx);

/* Every block leaves the store (the stream ended or is being replaced, its window released up
 * to *next; NULL: no datagram was placed): those missing datagrams before *next are counted
 * unrecoverable (one a block number, as above). */
void zcs_fec_rx_close_all(struct zcs_fec_rx *f, const uint64_t *next);

#endif
