/* SPDX-License-Identifier: MIT */
/* Erasure coding across datagrams (docs/protocol.md, "Parity datagrams"): the systematic Cauchy
 * code over GF(2^8) that parity datagrams carry, an encoder that folds each sample datagram into
 * its block's parity as it is made, and a decoder that rebuilds a block's lost datagrams from any
 * k of its k + m.  The region arithmetic is gf256.c's (NEON on the board, SSSE3 or AVX2 on
 * x86, scalar elsewhere: docs/measurements.md, "Erasure coding"); a build without the code
 * (-Dfec=disabled) has the layout (proto.h) but neither coder: zcs_fec_available() says so. */
#ifndef ZCS_FEC_H
#define ZCS_FEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gf256.h"
#include "proto.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Shards are kept in buffers this much larger than the largest datagram, rounded to it: the
 * region arithmetic wants whole, aligned words. */
#define ZCS_FEC_ALIGN 64

/* Whether this build has the erasure code (the fec feature). */
bool zcs_fec_available(void);

/* The code's coefficient of data datagram j (0..ZCS_FEC_MAX_K-1) in parity datagram i
 * (0..ZCS_FEC_MAX_M-1): 1 / (i XOR (32 + j)) in GF(2^8) modulo x^8 + x^4 + x^3 + x^2 + 1.
 * It depends on neither k nor m, so a short block uses the first k columns. */
uint8_t zcs_fec_coef(unsigned i, unsigned j);

/* Rounds a shard's length up to what the region arithmetic handles. */
static inline size_t zcs_fec_padded(size_t len)
{
	return (len + ZCS_FEC_ALIGN - 1) & ~(size_t)(ZCS_FEC_ALIGN - 1);
}

/* The sender's side: one block at a time, each datagram folded into the m parity shards as it is
 * made, so nothing of a block is kept but its parity. */
struct zcs_fec_enc {
	unsigned k, m;            /* the stream's K:M */
	size_t cap;               /* bytes of each shard buffer (the largest datagram, padded) */
	uint8_t *mem;             /* m parity shards of cap bytes, then the scratch */
	uint8_t *scratch;         /* a datagram's last partial step, zero-padded */
	struct zcs_gf256_tab *tab;/* the coefficients' nibble tables, made once: datagram j's
				   * into parity shard i is tab[j * m + i] */
	unsigned count;           /* datagrams of the open block so far */
	uint64_t block_seq;       /* seq of its first */
	size_t shard_len;         /* its longest shard */
	uint64_t number;          /* parity datagrams written in the stream */
};

/* Sets e up for K:M over datagrams of at most max_dgram bytes.  Returns 0, -EINVAL (K or M out of
 * the protocol's limits), -ENOTSUP (a build without the code) or -ENOMEM. */
int zcs_fec_enc_init(struct zcs_fec_enc *e, unsigned k, unsigned m, size_t max_dgram);
void zcs_fec_enc_free(struct zcs_fec_enc *e);

/* Folds the complete sample datagram of len bytes at dg (keyed: sealed, trailer included) into
 * the open block, which it opens when none is.  Returns the datagrams the block now has; the
 * block is full at e->k.  len must be at most the max_dgram of init. */
unsigned zcs_fec_enc_add(struct zcs_fec_enc *e, const uint8_t *dg, size_t len);

/* Bytes of each parity datagram of the open block (header and parity, before any trailer). */
static inline size_t zcs_fec_enc_parity_len(const struct zcs_fec_enc *e)
{
	return ZCS_PROTO_PARITY_HDR_SIZE + e->shard_len;
}

/* Writes parity datagram i (0..m-1) of the open block, with stream_id, to buf, which holds
 * zcs_fec_enc_parity_len() bytes (and any trailer after them).  Returns its length. */
size_t zcs_fec_enc_parity(struct zcs_fec_enc *e, unsigned i, uint32_t stream_id, uint8_t *buf);

/* Closes the open block (after its parity is written): the next datagram opens another. */
void zcs_fec_enc_close(struct zcs_fec_enc *e);

/* The receiver's side: rebuilds the lost datagrams of one block.
 *   data[j]    shard j (0..k-1): the datagram's bytes from ZCS_FEC_SKIP on, zero-padded to
 *              shard_len rounded up by zcs_fec_padded; have_data[j] says which arrived.  The
 *              lost ones' buffers receive the rebuilt shards.
 *   parity[i]  parity shard of index pidx[i], i < nparity, same padding; overwritten.
 * Needs at least as many parity shards as data shards are lost (only that many are used).
 * Returns the number of shards rebuilt, -EAGAIN when too few arrived, -ENOTSUP without the
 * code.  No allocation. */
int zcs_fec_decode(unsigned k, uint8_t *const *data, const bool *have_data, uint8_t *const *parity,
		   const uint8_t *pidx, unsigned nparity, size_t shard_len);

#ifdef __cplusplus
}
#endif

#endif
