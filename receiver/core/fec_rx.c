// SPDX-License-Identifier: MIT
/* The receiver's erasure decoding (fec_rx.h): a ring of the stream's recent sample datagrams by
 * seq, the parity of its open blocks, and the rebuild of a block's lost datagrams once any k of
 * its k + m are here.  Rebuilt bytes are a whole datagram again (prefix and seq from the parity,
 * the rest from the code) and go back through the engine's own checks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "fec_rx.h"
#include "seq.h"

void zcs_fec_rx_init(struct zcs_fec_rx *f, size_t max_dgram)
{
	memset(f, 0, sizeof(*f));
	f->cap = zcs_fec_padded(max_dgram + ZCS_FEC_ALIGN);
}

void zcs_fec_rx_size(struct zcs_fec_rx *f, size_t max_dgram)
{
	if (!f->mem)
		f->cap = zcs_fec_padded(max_dgram + ZCS_FEC_ALIGN);
}

void zcs_fec_rx_free(struct zcs_fec_rx *f)
{
	free(f->mem);
	f->mem = NULL;
	f->bytes = 0;
	f->armed = false;
}

static bool has(const struct zcs_fec_rx_block *b, unsigned j)
{
	return (b->have_data[j / 64] >> (j % 64)) & 1;
}

static void set_has(struct zcs_fec_rx_block *b, unsigned j)
{
	b->have_data[j / 64] |= 1ull << (j % 64);
}

static unsigned count_data(const struct zcs_fec_rx_block *b)
{
	return (unsigned)(__builtin_popcountll(b->have_data[0]) +
			  __builtin_popcountll(b->have_data[1]));
}

static bool released(const struct zcs_fec_rx_block *b, uint64_t next)
{
	return !zcs_seq_before(next, b->block_seq + b->k);
}

/* Whether b misses a datagram the window released (before next): lost for good. */
static bool missed(const struct zcs_fec_rx_block *b, uint64_t next)
{
	for (unsigned j = 0; j < b->k && zcs_seq_before(b->block_seq + j, next); j++)
		if (!has(b, j))
			return true;
	return false;
}

/* The window released all of b, or the stream ended at next: what it misses before next is lost
 * for good (past it, no datagram of the stream was ever seen: a block that reaches there is not
 * the sender's, or the stream's end was lost with it, which nobody can tell).  Counted once a
 * block number: by the reading of it holding most parity (the sender's sends m, a forger one),
 * the first judged among equals. */
static void judge(struct zcs_fec_rx *f, struct zcs_fec_rx_block *b, uint64_t next)
{
	const unsigned mine = (unsigned)__builtin_popcount(b->have_parity);

	if (!b->used || b->judged)
		return;
	b->judged = true;
	if (!missed(b, next))
		return;
	for (size_t i = 0; i < ZCS_FEC_RX_BLOCKS; i++) {
		const struct zcs_fec_rx_block *const c = &f->blk[i];
		const unsigned theirs = (unsigned)__builtin_popcount(c->have_parity);

		if (c == b || !c->used || c->block_seq != b->block_seq)
			continue;
		if (theirs > mine || (theirs == mine && c->judged && missed(c, next)))
			return;
	}
	f->st.unrecoverable++;
}

static void judge_released(struct zcs_fec_rx *f, uint64_t next)
{
	for (size_t i = 0; i < ZCS_FEC_RX_BLOCKS; i++)
		if (f->blk[i].used && released(&f->blk[i], next))
			judge(f, &f->blk[i], next);
}

void zcs_fec_rx_close_all(struct zcs_fec_rx *f, const uint64_t *next)
{
	for (size_t i = 0; i < ZCS_FEC_RX_BLOCKS && next; i++)
		judge(f, &f->blk[i], *next);
	for (size_t i = 0; i < ZCS_FEC_RX_BLOCKS; i++)
		f->blk[i].used = false;
}

void zcs_fec_rx_reset(struct zcs_fec_rx *f, const uint64_t *next)
{
	zcs_fec_rx_close_all(f, next);
	memset(f->len, 0, sizeof(f->len));
	f->armed = false;
	f->k = f->m = 0;
	f->want_k = f->want_m = 0;
}

void zcs_fec_rx_expect(struct zcs_fec_rx *f, uint8_t k, uint8_t m)
{
	f->want_k = k;
	f->want_m = m;
}

/* The shard of datagram seq kept in the ring, or NULL. */
static uint8_t *kept(struct zcs_fec_rx *f, uint64_t seq, size_t *len)
{
	const size_t s = seq & (ZCS_FEC_RX_SLOTS - 1);

	if (f->len[s] == 0 || f->seq[s] != seq)
		return NULL;
	*len = f->len[s];
	return f->data + f->cap * s;
}

static bool covers(const struct zcs_fec_rx_block *b, uint64_t seq)
{
	return b->used && !zcs_seq_before(seq, b->block_seq) &&
	       zcs_seq_before(seq, b->block_seq + b->k);
}

static int allocate(struct zcs_fec_rx *f)
{
	const size_t blk = f->cap * ZCS_FEC_MAX_M;
	const size_t bytes = f->cap * ZCS_FEC_RX_SLOTS + blk * (ZCS_FEC_RX_BLOCKS + 1);

	f->mem = aligned_alloc(ZCS_FEC_ALIGN, bytes);
	if (!f->mem) {
		f->failed = true;
		return -ENOMEM;
	}
	f->bytes = bytes;
	f->data = f->mem;
	for (size_t i = 0; i < ZCS_FEC_RX_BLOCKS; i++)
		f->blk[i].parity = f->mem + f->cap * ZCS_FEC_RX_SLOTS + blk * i;
	f->work = f->mem + f->cap * ZCS_FEC_RX_SLOTS + blk * ZCS_FEC_RX_BLOCKS;
	memset(f->len, 0, sizeof(f->len));
	return 0;
}

int zcs_fec_rx_arm(struct zcs_fec_rx *f, uint64_t from)
{
	if (!zcs_fec_available())
		return -ENOTSUP;
	if (f->failed || (!f->mem && allocate(f) < 0))
		return -ENOMEM;
	f->armed = true;
	f->from = from;
	return 0;
}

void zcs_fec_rx_data(struct zcs_fec_rx *f, const uint8_t *dg, size_t len)
{
	uint64_t seq;
	size_t s;
	struct zcs_fec_rx_block *b;

	/* a stream without parity: no copy */
	if (!f->armed)
		return;
	seq = zcs_get_le64(dg + 8);
	s = seq & (ZCS_FEC_RX_SLOTS - 1);
	if (zcs_seq_before(seq, f->from))
		return;
	if (len <= ZCS_FEC_SKIP || len - ZCS_FEC_SKIP > f->cap - ZCS_FEC_ALIGN)
		return;
	/* the whole datagram: a rebuilt one is handed on from here too */
	memcpy(f->data + f->cap * s, dg, len);
	f->seq[s] = seq;
	f->len[s] = (uint16_t)len;
	f->st.kept++;
	/* every reading of its block */
	for (size_t i = 0; i < ZCS_FEC_RX_BLOCKS; i++) {
		b = &f->blk[i];
		if (covers(b, seq))
			set_has(b, (unsigned)(seq - b->block_seq));
	}
}

/* Which block gives way to a new one: a free slot, else one given up, else one the window has
 * released, else the oldest. */
static bool gives_way_before(const struct zcs_fec_rx_block *c, const struct zcs_fec_rx_block *b,
			     uint64_t next)
{
	if (!b || !c->used || !b->used)
		return !b || (!c->used && b->used);
	if (c->given_up != b->given_up)
		return c->given_up;
	if (released(c, next) != released(b, next))
		return released(c, next);
	return zcs_seq_before(c->block_seq, b->block_seq);
}

/* The block p belongs to (its number, k, m and shard length): found, or opened.  A reading of
 * the same number that disagrees is kept beside it, ZCS_FEC_RX_VARIANTS at most: a newer one then
 * replaces the one holding least parity. */
static struct zcs_fec_rx_block *open_block(struct zcs_fec_rx *f, const struct zcs_parity_hdr *p,
					   uint64_t next)
{
	struct zcs_fec_rx_block *b = NULL, *least = NULL;
	unsigned readings = 0;
	size_t len;

	for (size_t i = 0; i < ZCS_FEC_RX_BLOCKS; i++) {
		struct zcs_fec_rx_block *const c = &f->blk[i];

		if (c->used && c->block_seq == p->block_seq) {
			if (c->k == p->k && c->m == p->m && c->shard_len == p->shard_len)
				return c;
			readings++;
			if (!least || __builtin_popcount(c->have_parity) <
				      __builtin_popcount(least->have_parity))
				least = c;
		}
		if (gives_way_before(c, b, next))
			b = c;
	}
	if (readings >= ZCS_FEC_RX_VARIANTS)
		b = least;
	if (b->used && released(b, next))
		judge(f, b, next);
	b->used = true;
	b->given_up = false;
	b->judged = false;
	b->nfailed = 0;
	b->block_seq = p->block_seq;
	b->k = p->k;
	b->m = p->m;
	b->shard_len = p->shard_len;
	b->have_parity = 0;
	b->have_data[0] = b->have_data[1] = 0;
	for (unsigned j = 0; j < p->k; j++)
		if (kept(f, p->block_seq + j, &len))
			set_has(b, j);
	return b;
}

int zcs_fec_rx_parity(struct zcs_fec_rx *f, const struct zcs_parity_hdr *p, const uint8_t *payload,
		      bool keyed, uint64_t next)
{
	struct zcs_fec_rx_block *b;

	f->st.parity++;
	/* another M, or a block longer than the K the metadata announces: not the sender's parity
	 * (a shorter one is: the stream's last block, cut short at its end) */
	if (f->want_k && (p->k > f->want_k || p->m != f->want_m))
		return 0;
	f->k = p->k;
	f->m = p->m;
	if (!f->armed)
		return f->failed ? -ENOMEM : 0;
	judge_released(f, next);
	/* all of it released already, begun before datagrams were kept, or larger than this
	 * receiver's datagrams: of no use */
	if (!zcs_seq_before(next, p->block_seq + p->k) || zcs_seq_before(p->block_seq, f->from) ||
	    p->shard_len > f->cap - ZCS_FEC_ALIGN - ZCS_FEC_SKIP)
		return 0;
	b = open_block(f, p, next);
	if ((b->have_parity >> p->index) & 1)
		return 0;    /* a copy */
	b->keyed = keyed;
	b->have_parity |= 1u << p->index;
	memcpy(b->parity + f->cap * p->index, payload, p->shard_len);
	memset(b->parity + f->cap * p->index + p->shard_len, 0,
	       zcs_fec_padded(p->shard_len) - p->shard_len);
	return 0;
}

/* Decodes b with its parity pidx[0..np) (np: as many as it misses), and puts what it rebuilt.
 * Returns 0, or -1 when a rebuilt datagram was not believed (some of that parity was not the
 * sender's: counted refused; what was placed before it stays, being verified). */
static int decode_with(struct zcs_fec_rx *f, struct zcs_fec_rx_block *b, const uint8_t *pidx,
		       unsigned np, uint64_t next, uint32_t stream_id,
		       int (*put)(void *ctx, uint8_t *dg, size_t len), void *ctx)
{
	uint8_t *data[ZCS_FEC_MAX_K], *par[ZCS_FEC_MAX_M];
	bool have[ZCS_FEC_MAX_K];
	const size_t padded = zcs_fec_padded(b->shard_len);
	size_t len;
	int ret;

	for (unsigned i = 0; i < np; i++) {
		/* the decoder turns its parity into syndromes: a copy, so the block's own stays as
		 * it came */
		par[i] = f->work + f->cap * i;
		memcpy(par[i], b->parity + f->cap * pidx[i], padded);
	}
	for (unsigned j = 0; j < b->k; j++) {
		const uint64_t seq = b->block_seq + j;
		const size_t s = seq & (ZCS_FEC_RX_SLOTS - 1);
		uint8_t *const slot = f->data + f->cap * s;

		have[j] = has(b, j) && kept(f, seq, &len);
		if (has(b, j) && !have[j]) {
			b->given_up = true;   /* overwritten in the ring: too late for this block */
			return 0;
		}
		if (have[j] && len > ZCS_FEC_SKIP + (size_t)b->shard_len) {
			/* longer than the block's parity says its datagrams are: that reading of the
			 * block was not the sender's (regression fuzz_rx_fec short_shard: the
			 * padding's length went negative and wrote over the heap) */
			b->given_up = true;
			return 0;
		}
		if (have[j]) {
			/* the shard: from byte ZCS_FEC_SKIP, zero-padded in place */
			memset(slot + len, 0, ZCS_FEC_SKIP + padded - len);
		} else {
			f->seq[s] = seq;
			f->len[s] = 0;
		}
		data[j] = slot + ZCS_FEC_SKIP;
	}
	if (zcs_fec_decode(b->k, data, have, par, pidx, np, b->shard_len) < 0) {
		b->given_up = true;
		return 0;
	}
	for (unsigned j = 0; j < b->k; j++) {
		const uint64_t seq = b->block_seq + j;
		uint8_t *const dg = data[j] - ZCS_FEC_SKIP;
		size_t dlen;

		if (have[j])
			continue;
		/* the prefix and seq the parity stands for; the length the rebuilt header says */
		dg[0] = 0x5A;
		dg[1] = 0x53;
		dg[2] = ZCS_PROTO_VERSION;
		dg[3] = (uint8_t)(ZCS_DGRAM_SAMPLES | (b->keyed ? ZCS_AUTH_TYPE_BIT : 0));
		zcs_put_le32(dg + 4, stream_id);
		zcs_put_le64(dg + 8, seq);
		dlen = ZCS_PROTO_SAMPLE_HDR_SIZE + zcs_get_le16(dg + 28) +
		       (b->keyed ? ZCS_AUTH_SAMPLE_TRAILER : 0);
		if (dlen > ZCS_FEC_SKIP + (size_t)b->shard_len) {
			/* not a datagram of this block: some parity was not the sender's */
			f->st.refused++;
			return -1;
		}
		if (zcs_seq_before(seq, next))
			continue;    /* its place was already filled with zeros: lost all the same */
		f->len[seq & (ZCS_FEC_RX_SLOTS - 1)] = (uint16_t)dlen;
		set_has(b, j);
		ret = put(ctx, dg, dlen);
		if (ret > 0) {
			f->st.restored++;
			continue;
		}
		b->have_data[j / 64] &= ~(1ull << (j % 64));
		if (ret < 0) {
			/* it failed its own tag: so would every other rebuild from that parity */
			f->len[seq & (ZCS_FEC_RX_SLOTS - 1)] = 0;
			f->st.refused++;
			return -1;
		}
	}
	return 0;
}

/* Rebuilds what b misses, from as much of its parity as it needs: the first such choice, and
 * when that parity proves not to be the sender's, the next (each window of its parity in index
 * order), until one decodes or none is left: then the block waits for more parity (each choice
 * is tried again when some comes, or a datagram: a few decodes a block at most). */
static void restore_block(struct zcs_fec_rx *f, struct zcs_fec_rx_block *b, uint64_t next,
			  uint32_t stream_id, int (*put)(void *ctx, uint8_t *dg, size_t len),
			  void *ctx)
{
	uint8_t avail[ZCS_FEC_MAX_M];
	unsigned navail = 0;

	for (unsigned i = 0; i < b->m; i++)
		if ((b->have_parity >> i) & 1)
			avail[navail++] = (uint8_t)i;
	for (unsigned first = 0; !b->given_up; first++) {
		const unsigned missing = b->k - count_data(b);
		uint32_t choice = 0;
		bool failed = false;

		if (missing == 0 || missing > navail)
			return;
		if (first + missing > navail)
			return;         /* every choice of the parity here failed */
		for (unsigned i = first; i < first + missing; i++)
			choice |= 1u << avail[i];
		for (unsigned i = 0; i < b->nfailed; i++)
			failed |= b->failed[i] == choice;
		if (failed)
			continue;       /* tried before: the same bytes would fail the same way */
		if (decode_with(f, b, avail + first, missing, next, stream_id, put, ctx) == 0)
			return;
		if (b->nfailed < sizeof(b->failed) / sizeof(b->failed[0]))
			b->failed[b->nfailed++] = choice;
	}
}

void zcs_fec_rx_restore(struct zcs_fec_rx *f, uint64_t at, uint64_t next, uint32_t stream_id,
			int (*put)(void *ctx, uint8_t *dg, size_t len), void *ctx)
{
	if (!f->armed)
		return;
	judge_released(f, next);
	/* each reading of the block: one the sender did not send cannot stop the other */
	for (size_t i = 0; i < ZCS_FEC_RX_BLOCKS; i++)
		if (covers(&f->blk[i], at))
			restore_block(f, &f->blk[i], next, stream_id, put, ctx);
}
