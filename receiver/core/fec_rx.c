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

/* A block leaves the store: missing datagrams then are lost for good. */
static void drop_block(struct zcs_fec_rx *f, struct zcs_fec_rx_block *b)
{
	if (b->used && count_data(b) < b->k)
		f->st.unrecoverable++;
	b->used = false;
}

void zcs_fec_rx_close_all(struct zcs_fec_rx *f)
{
	for (size_t i = 0; i < ZCS_FEC_RX_BLOCKS; i++)
		drop_block(f, &f->blk[i]);
}

void zcs_fec_rx_reset(struct zcs_fec_rx *f)
{
	zcs_fec_rx_close_all(f);
	memset(f->len, 0, sizeof(f->len));
	f->armed = false;
	f->k = f->m = 0;
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

static struct zcs_fec_rx_block *block_of(struct zcs_fec_rx *f, uint64_t seq)
{
	for (size_t i = 0; i < ZCS_FEC_RX_BLOCKS; i++) {
		struct zcs_fec_rx_block *const b = &f->blk[i];

		if (b->used && !zcs_seq_before(seq, b->block_seq) &&
		    zcs_seq_before(seq, b->block_seq + b->k))
			return b;
	}
	return NULL;
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
	b = block_of(f, seq);
	if (b)
		set_has(b, (unsigned)(seq - b->block_seq));
}

/* The block p belongs to: found, or opened in a free slot or the oldest one's. */
static struct zcs_fec_rx_block *open_block(struct zcs_fec_rx *f, const struct zcs_parity_hdr *p)
{
	struct zcs_fec_rx_block *b = NULL;
	size_t len;

	for (size_t i = 0; i < ZCS_FEC_RX_BLOCKS; i++) {
		struct zcs_fec_rx_block *const c = &f->blk[i];

		if (c->used && c->block_seq == p->block_seq)
			return c->k == p->k && c->m == p->m && c->shard_len == p->shard_len ? c : NULL;
		if (!b || !c->used || (b->used && zcs_seq_before(c->block_seq, b->block_seq)))
			b = b && !b->used ? b : c;
	}
	drop_block(f, b);
	b->used = true;
	b->given_up = false;
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
	f->k = p->k;
	f->m = p->m;
	if (!f->armed)
		return f->failed ? -ENOMEM : 0;
	/* all of it released already, begun before datagrams were kept, or larger than this
	 * receiver's datagrams: of no use */
	if (!zcs_seq_before(next, p->block_seq + p->k) || zcs_seq_before(p->block_seq, f->from) ||
	    p->shard_len > f->cap - ZCS_FEC_ALIGN - ZCS_FEC_SKIP)
		return 0;
	b = open_block(f, p);
	if (!b || (b->have_parity >> p->index) & 1)
		return 0;    /* a copy, or disagreeing with the block's first parity */
	b->keyed = keyed;
	b->have_parity |= 1u << p->index;
	memcpy(b->parity + f->cap * p->index, payload, p->shard_len);
	memset(b->parity + f->cap * p->index + p->shard_len, 0,
	       zcs_fec_padded(p->shard_len) - p->shard_len);
	return 0;
}

void zcs_fec_rx_restore(struct zcs_fec_rx *f, uint64_t at, uint64_t next, uint32_t stream_id,
			int (*put)(void *ctx, uint8_t *dg, size_t len), void *ctx)
{
	struct zcs_fec_rx_block *const b = f->armed ? block_of(f, at) : NULL;
	uint8_t *data[ZCS_FEC_MAX_K], *par[ZCS_FEC_MAX_M], pidx[ZCS_FEC_MAX_M];
	bool have[ZCS_FEC_MAX_K];
	const size_t padded = b ? zcs_fec_padded(b->shard_len) : 0;
	unsigned np = 0, missing;
	size_t len;
	int ret;

	if (!b || b->given_up)
		return;
	missing = b->k - count_data(b);
	if (missing == 0 || missing > (unsigned)__builtin_popcount(b->have_parity))
		return;
	for (unsigned i = 0; i < b->m && np < missing; i++)
		if ((b->have_parity >> i) & 1) {
			/* the decoder turns its parity into syndromes: a copy, so the block's own
			 * stays as it came */
			par[np] = f->work + f->cap * np;
			memcpy(par[np], b->parity + f->cap * i, padded);
			pidx[np++] = (uint8_t)i;
		}
	for (unsigned j = 0; j < b->k; j++) {
		const uint64_t seq = b->block_seq + j;
		const size_t s = seq & (ZCS_FEC_RX_SLOTS - 1);
		uint8_t *const slot = f->data + f->cap * s;

		have[j] = has(b, j) && kept(f, seq, &len);
		if (has(b, j) && !have[j]) {
			b->given_up = true;   /* overwritten in the ring: too late for this block */
			return;
		}
		if (have[j] && len > ZCS_FEC_SKIP + (size_t)b->shard_len) {
			/* longer than the block's parity says its datagrams are: that parity was
			 * not the sender's (regression fuzz_rx_fec short_shard: the padding's
			 * length went negative and wrote over the heap) */
			b->given_up = true;
			return;
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
		return;
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
		set_has(b, j);
		if (dlen > ZCS_FEC_SKIP + (size_t)b->shard_len) {
			/* not a datagram of this block: the parity was not the sender's */
			b->given_up = true;
			b->have_data[j / 64] &= ~(1ull << (j % 64));
			f->st.refused++;
			continue;
		}
		f->len[seq & (ZCS_FEC_RX_SLOTS - 1)] = (uint16_t)dlen;
		if (zcs_seq_before(seq, next)) {
			/* its place was already filled with zeros: lost all the same */
			b->have_data[j / 64] &= ~(1ull << (j % 64));
			continue;
		}
		ret = put(ctx, dg, dlen);
		if (ret > 0) {
			f->st.restored++;
			continue;
		}
		b->have_data[j / 64] &= ~(1ull << (j % 64));
		if (ret < 0) {
			/* it failed its own tag: some parity was not the sender's, and every
			 * other rebuild from it would fail the same way */
			f->st.refused++;
			b->given_up = true;
		}
	}
}
