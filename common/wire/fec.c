// SPDX-License-Identifier: MIT
/* The erasure code of parity datagrams: coefficients, the sender's incremental encoder and the
 * receiver's decoder (fec.h).  GF(2^8) arithmetic on regions is gf256.c's (our own kernels:
 * docs/measurements.md, "Erasure coding", says why no library's); the small matrix algebra of a
 * decode is done here, a scalar multiply per element. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "fec.h"
#include "gf256.h"
#include "zcs_config.h"

bool zcs_fec_available(void)
{
	return ZCS_HAVE_FEC;
}

uint8_t zcs_fec_coef(unsigned i, unsigned j)
{
	/* i < 32 <= 32 + j < 160: never equal, so the XOR is never 0; a Cauchy matrix's square
	 * submatrices are all invertible, which makes [I; C] an MDS code */
	return zcs_gf256_inv((uint8_t)(i ^ (32 + j)));
}

/* shards are padded to ZCS_FEC_ALIGN, so every region is whole steps of the widest kernel */
_Static_assert(ZCS_FEC_ALIGN % ZCS_GF256_STEP == 0, "shards must be whole kernel steps");

int zcs_fec_enc_init(struct zcs_fec_enc *e, unsigned k, unsigned m, size_t max_dgram)
{
	memset(e, 0, sizeof(*e));
	if (k < 1 || k > ZCS_FEC_MAX_K || m < 1 || m > ZCS_FEC_MAX_M || max_dgram <= ZCS_FEC_SKIP)
		return -EINVAL;
	if (!ZCS_HAVE_FEC)
		return -ENOTSUP;
	e->k = k;
	e->m = m;
	e->cap = zcs_fec_padded(max_dgram - ZCS_FEC_SKIP);
	e->mem = aligned_alloc(ZCS_FEC_ALIGN, e->cap * m + ZCS_FEC_ALIGN);
	if (!e->mem)
		return -ENOMEM;
	e->scratch = e->mem + e->cap * m;
	e->tab = malloc(sizeof(*e->tab) * k * m);
	if (!e->tab) {
		zcs_fec_enc_free(e);
		return -ENOMEM;
	}
	for (unsigned j = 0; j < k; j++)
		for (unsigned i = 0; i < m; i++)
			zcs_gf256_tab_init(&e->tab[j * m + i], zcs_fec_coef(i, j));
	return 0;
}

void zcs_fec_enc_free(struct zcs_fec_enc *e)
{
	free(e->mem);
	free(e->tab);
	e->mem = NULL;
	e->tab = NULL;
}

unsigned zcs_fec_enc_add(struct zcs_fec_enc *e, const uint8_t *dg, size_t len)
{
#if ZCS_HAVE_FEC
	const uint8_t *const shard = dg + ZCS_FEC_SKIP;
	const size_t slen = len - ZCS_FEC_SKIP;
	const size_t whole = slen & ~(size_t)(ZCS_GF256_STEP - 1);
	const struct zcs_gf256_tab *const tab = &e->tab[e->count * e->m];
	uint8_t *parity[ZCS_FEC_MAX_M];

	if (e->count == 0) {
		e->block_seq = zcs_get_le64(dg + 8);
		e->shard_len = 0;
		memset(e->mem, 0, e->cap * e->m);
	}
	for (unsigned i = 0; i < e->m; i++)
		parity[i] = e->mem + e->cap * i;
	/* the whole steps straight from the datagram, wherever it lies in its train (the kernels
	 * read src at any address), into every parity shard in one pass */
	zcs_gf256_muladd_rows(parity, shard, tab, e->m, whole);
	/* the last, partial step through scratch, zero-padded: the padding is the code's (a short
	 * datagram counts as zeros up to shard_len), and the steps past it would add nothing */
	if (whole < slen) {
		memcpy(e->scratch, shard + whole, slen - whole);
		memset(e->scratch + (slen - whole), 0, ZCS_GF256_STEP - (slen - whole));
		for (unsigned i = 0; i < e->m; i++)
			parity[i] += whole;
		zcs_gf256_muladd_rows(parity, e->scratch, tab, e->m, ZCS_GF256_STEP);
	}
	if (slen > e->shard_len)
		e->shard_len = slen;
	return ++e->count;
#else
	(void)e, (void)dg, (void)len;
	return 0;
#endif
}

size_t zcs_fec_enc_parity(struct zcs_fec_enc *e, unsigned i, uint32_t stream_id, uint8_t *buf)
{
	const struct zcs_parity_hdr h = {
		.stream_id = stream_id, .block_seq = e->block_seq, .number = e->number++,
		.k = (uint8_t)e->count, .m = (uint8_t)e->m, .index = (uint8_t)i,
		.shard_len = (uint16_t)e->shard_len,
	};

	zcs_proto_write_parity_hdr(buf, &h);
	memcpy(buf + ZCS_PROTO_PARITY_HDR_SIZE, e->mem + e->cap * i, e->shard_len);
	return ZCS_PROTO_PARITY_HDR_SIZE + e->shard_len;
}

void zcs_fec_enc_close(struct zcs_fec_enc *e)
{
	e->count = 0;
}

#if ZCS_HAVE_FEC
/* Inverts the n x n matrix a (row-major, destroyed) into inv by Gauss-Jordan elimination.  A
 * square submatrix of a Cauchy matrix is never singular; false all the same if one is. */
static bool invert(uint8_t *a, uint8_t *inv, unsigned n)
{
	memset(inv, 0, (size_t)n * n);
	for (unsigned i = 0; i < n; i++)
		inv[i * n + i] = 1;
	for (unsigned c = 0; c < n; c++) {
		unsigned p = c;
		uint8_t f;

		while (p < n && a[p * n + c] == 0)
			p++;
		if (p == n)
			return false;
		if (p != c)
			for (unsigned j = 0; j < n; j++) {
				uint8_t t = a[c * n + j];

				a[c * n + j] = a[p * n + j];
				a[p * n + j] = t;
				t = inv[c * n + j];
				inv[c * n + j] = inv[p * n + j];
				inv[p * n + j] = t;
			}
		f = zcs_gf256_inv(a[c * n + c]);
		for (unsigned j = 0; j < n; j++) {
			a[c * n + j] = zcs_gf256_mul(a[c * n + j], f);
			inv[c * n + j] = zcs_gf256_mul(inv[c * n + j], f);
		}
		for (unsigned r = 0; r < n; r++) {
			const uint8_t g = a[r * n + c];

			if (r == c || g == 0)
				continue;
			for (unsigned j = 0; j < n; j++) {
				a[r * n + j] ^= zcs_gf256_mul(g, a[c * n + j]);
				inv[r * n + j] ^= zcs_gf256_mul(g, inv[c * n + j]);
			}
		}
	}
	return true;
}
#endif

int zcs_fec_decode(unsigned k, uint8_t *const *data, const bool *have_data, uint8_t *const *parity,
		   const uint8_t *pidx, unsigned nparity, size_t shard_len)
{
#if ZCS_HAVE_FEC
	uint8_t lost[ZCS_FEC_MAX_M];
	uint8_t a[ZCS_FEC_MAX_M * ZCS_FEC_MAX_M], inv[ZCS_FEC_MAX_M * ZCS_FEC_MAX_M];
	const size_t len = zcs_fec_padded(shard_len);
	unsigned e = 0;

	if (k < 1 || k > ZCS_FEC_MAX_K)
		return -EINVAL;
	for (unsigned j = 0; j < k; j++)
		if (!have_data[j]) {
			if (e == ZCS_FEC_MAX_M || e == nparity)
				return -EAGAIN;
			lost[e++] = (uint8_t)j;
		}
	if (e == 0)
		return 0;
	/* each parity shard used becomes its syndrome: the part the lost shards make of it,
	 * s_r = p_r - sum over the shards that arrived of c(r, j) d_j */
	for (unsigned r = 0; r < e; r++) {
		for (unsigned j = 0; j < k; j++)
			if (have_data[j])
				zcs_gf256_muladd(parity[r], data[j], zcs_fec_coef(pidx[r], j), len);
		for (unsigned c = 0; c < e; c++)
			a[r * e + c] = zcs_fec_coef(pidx[r], lost[c]);
	}
	/* s = A d_lost, so d_lost = A^-1 s */
	if (!invert(a, inv, e))
		return -EAGAIN;
	for (unsigned c = 0; c < e; c++) {
		uint8_t *const out = data[lost[c]];

		memset(out, 0, len);
		for (unsigned r = 0; r < e; r++)
			zcs_gf256_muladd(out, parity[r], inv[c * e + r], len);
	}
	return (int)e;
#else
	(void)k, (void)data, (void)have_data, (void)parity, (void)pidx, (void)nparity,
		(void)shard_len;
	return -ENOTSUP;
#endif
}
