// SPDX-License-Identifier: MIT
/* The erasure-code libraries Debian 12 offers, side by side in one run: encoding M parity shards
 * from K datagrams of 1472 bytes, and decoding with M data datagrams lost (the most a block can
 * lose and still be restored), as ns per block and as the ratio to a memcpy of the block's K
 * datagrams.  Asserts nothing but that each decode restores the bytes.  "bench_fec OP K M N" runs
 * one operation N times and prints nothing, for counting instructions under qemu-arm
 * (bench_fec_arm.sh; docs/measurements.md, "Erasure coding"). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef BENCH_FEC_JERASURE
#include <jerasure.h>
#include <cauchy.h>
#endif
#ifdef BENCH_FEC_ZCS
#include "fec.h"
#include "gf256.h"
#endif
#ifdef BENCH_FEC_ISAL
#include <isa-l/erasure_code.h>
#endif

#define SHARD 1472      /* a full datagram at MTU 1500, IPv4 */
/* zcs-send --fec's p12 sample datagram at MTU 1500: 474 pairs (sender.md) behind the 32-byte
 * header, 16 bytes short of SHARD so that its parity fits */
#define ZCS_DGRAM (ZCS_PROTO_SAMPLE_HDR_SIZE + 474 * 3)
#define MAXK 128
#define MAXM 32
#define REPS 15         /* best of REPS short runs: other jobs only ever add time */
#define RUN_NS 2e6

#ifdef BENCH_FEC_CM256
/* bench_fec_cm256.cpp: the C++ library behind a C face */
int bench_cm256_init(void);
int bench_cm256_encode(int k, int m, uint8_t **data, uint8_t *parity);
int bench_cm256_decode(int k, int m, uint8_t **blocks, const int *index);
#endif

struct ctx {
	int k, m;
	uint8_t *data[MAXK], *parity[MAXM], *work[MAXK + MAXM], *orig[MAXK];
	uint8_t *copy;          /* memcpy's target, K shards */
	uint8_t *pcont;         /* cm256: parity end to end */
#ifdef BENCH_FEC_JERASURE
	int *jmatrix;
#endif
#ifdef BENCH_FEC_ZCS
	struct zcs_fec_enc enc;
	uint8_t *pbuf;          /* a parity datagram, as the sender queues it */
#endif
#ifdef BENCH_FEC_ISAL
	uint8_t enc_matrix[(MAXK + MAXM) * MAXK];
	uint8_t enc_tbls[32 * MAXK * MAXM];
#endif
};

enum op { OP_MEMCPY, OP_JER_ENC, OP_JER_DEC, OP_ZCS_ENC, OP_ISAL_ENC, OP_ISAL_DEC, OP_ISAL_UPD,
	  OP_CM_ENC, OP_CM_DEC, OP_COUNT };
static const char *const op_names[OP_COUNT] = {
	"memcpy", "jer_enc", "jer_dec", "zcs_enc", "isal_enc", "isal_dec", "isal_upd", "cm_enc",
	"cm_dec",
};
static const char *const op_text[OP_COUNT] = {
	"memcpy of the K datagrams", "jerasure 2 + gf-complete: encode", "jerasure: decode M lost",
	"zcs-send's encoder (fec.c and gf256.c, a datagram at a time, p12 474 pairs)",
	"ISA-L: encode", "ISA-L: decode M lost", "ISA-L: encode, one datagram at a time",
	"cm256cc: encode", "cm256cc: decode M lost",
};

static bool op_built(enum op op)
{
	switch (op) {
	case OP_MEMCPY: return true;
#ifdef BENCH_FEC_JERASURE
	case OP_JER_ENC: case OP_JER_DEC: return true;
#endif
#ifdef BENCH_FEC_ZCS
	case OP_ZCS_ENC: return true;
#endif
#ifdef BENCH_FEC_ISAL
	case OP_ISAL_ENC: case OP_ISAL_DEC: case OP_ISAL_UPD: return true;
#endif
#ifdef BENCH_FEC_CM256
	case OP_CM_ENC: case OP_CM_DEC: return true;
#endif
	default: return false;
	}
}

static uint8_t *shard(void)
{
	uint8_t *p = aligned_alloc(64, SHARD);

	if (!p)
		abort();
	return p;
}

/* Sets up the K datagrams and the libraries `libs` names (a bit per library: 1 jerasure, 2 ISA-L,
 * 4 cm256cc, 8 zcs's own encoder), so that a count under qemu-arm is not made to log another library's set-up. */
static void setup(struct ctx *c, int k, int m, unsigned libs)
{
	uint32_t x = 12345;

	(void)libs;   /* a build with none of the libraries (an armhf build without them) */
	memset(c, 0, sizeof(*c));
	c->k = k;
	c->m = m;
	for (int i = 0; i < k; i++) {
		c->data[i] = shard();
		c->orig[i] = shard();
		for (int j = 0; j < SHARD; j++) {
			x = x * 1103515245u + 12345u;
			c->data[i][j] = (uint8_t)(x >> 24);
		}
		memcpy(c->orig[i], c->data[i], SHARD);
	}
	for (int i = 0; i < m; i++)
		c->parity[i] = shard();
	for (int i = 0; i < k + m; i++)
		c->work[i] = shard();
	c->copy = aligned_alloc(64, (size_t)k * SHARD);
	c->pcont = aligned_alloc(64, (size_t)m * SHARD);
	if (!c->copy || !c->pcont)
		abort();
#ifdef BENCH_FEC_JERASURE
	if (libs & 1)
		c->jmatrix = cauchy_good_general_coding_matrix(k, m, 8);
#endif
#ifdef BENCH_FEC_ZCS
	if (libs & 8) {
		c->pbuf = shard();
		if (zcs_fec_enc_init(&c->enc, (unsigned)k, (unsigned)m, SHARD) < 0)
			abort();
	}
#endif
#ifdef BENCH_FEC_ISAL
	if (libs & 2) {
		gf_gen_cauchy1_matrix(c->enc_matrix, k + m, k);
		ec_init_tables(k, m, c->enc_matrix + k * k, c->enc_tbls);
	}
#endif
#ifdef BENCH_FEC_CM256
	if ((libs & 4) && bench_cm256_init() < 0)
		abort();
#endif
}

/* The first M data shards are lost: the decoders get the K - M others and the M parity. */
static void check_restored(const struct ctx *c, uint8_t *const *got)
{
	for (int i = 0; i < c->m && i < c->k; i++)
		if (memcmp(got[i], c->orig[i], SHARD) != 0) {
			fprintf(stderr, "bench_fec: decode did not restore datagram %d\n", i);
			exit(1);
		}
}

#ifdef BENCH_FEC_ISAL
static void isal_decode(struct ctx *c)
{
	uint8_t sub[MAXK * MAXK], inv[MAXK * MAXK], rows[MAXM * MAXK];
	uint8_t tbls[32 * MAXK * MAXM];
	uint8_t *src[MAXK], *dst[MAXM];
	const int k = c->k, m = c->m, lost = m < k ? m : k;

	/* the K rows that arrived: parity rows for the lost data, data rows for the rest */
	for (int r = 0; r < k; r++) {
		const int row = r < lost ? k + r : r;

		memcpy(sub + r * k, c->enc_matrix + row * k, (size_t)k);
		src[r] = r < lost ? c->parity[r] : c->data[r];
	}
	if (gf_invert_matrix(sub, inv, k) < 0)
		abort();
	for (int i = 0; i < lost; i++) {
		memcpy(rows + i * k, inv + i * k, (size_t)k);
		dst[i] = c->work[i];
	}
	ec_init_tables(k, lost, rows, tbls);
	ec_encode_data(SHARD, k, lost, tbls, src, dst);
}
#endif

#ifdef BENCH_FEC_JERASURE
static void jer_decode(struct ctx *c)
{
	int erasures[MAXM + 1];
	char *d[MAXK], *p[MAXM];
	const int lost = c->m < c->k ? c->m : c->k;

	for (int i = 0; i < c->k; i++)
		d[i] = (char *)(i < lost ? c->work[i] : c->data[i]);
	for (int i = 0; i < c->m; i++)
		p[i] = (char *)c->parity[i];
	for (int i = 0; i < lost; i++)
		erasures[i] = i;
	erasures[lost] = -1;
	if (jerasure_matrix_decode(c->k, c->m, 8, c->jmatrix, 0, erasures, d, p, SHARD) < 0)
		abort();
}
#endif

#ifdef BENCH_FEC_CM256
static void cm_decode(struct ctx *c)
{
	uint8_t *blocks[MAXK];
	int index[MAXK];
	const int lost = c->m < c->k ? c->m : c->k;

	for (int i = 0; i < c->k; i++) {
		if (i < lost) {
			/* decoded in place: the parity is copied into the work buffer first, as
			 * a receiver holds it in its own store */
			memcpy(c->work[i], c->pcont + (size_t)i * SHARD, SHARD);
			blocks[i] = c->work[i];
			index[i] = c->k + i;
		} else {
			blocks[i] = c->data[i];
			index[i] = i;
		}
	}
	if (bench_cm256_decode(c->k, c->m, blocks, index) < 0)
		abort();
}
#endif

static void run_once(struct ctx *c, enum op op)
{
	switch (op) {
	case OP_MEMCPY:
		for (int i = 0; i < c->k; i++)
			memcpy(c->copy + (size_t)i * SHARD, c->data[i], SHARD);
		break;
#ifdef BENCH_FEC_JERASURE
	case OP_JER_ENC:
		jerasure_matrix_encode(c->k, c->m, 8, c->jmatrix, (char **)c->data, (char **)c->parity,
				       SHARD);
		break;
	case OP_JER_DEC: jer_decode(c); break;
#endif
#ifdef BENCH_FEC_ZCS
	case OP_ZCS_ENC:
		/* as zcs-send's send thread does: each datagram folded in as it goes out (its
		 * datagrams lie in a train, here in the K shards), then the M parity datagrams
		 * written out and the block closed */
		for (int i = 0; i < c->k; i++)
			zcs_fec_enc_add(&c->enc, c->data[i], ZCS_DGRAM);
		for (int i = 0; i < c->m; i++)
			zcs_fec_enc_parity(&c->enc, (unsigned)i, 1, c->pbuf);
		zcs_fec_enc_close(&c->enc);
		break;
#endif
#ifdef BENCH_FEC_ISAL
	case OP_ISAL_ENC:
		ec_encode_data(SHARD, c->k, c->m, c->enc_tbls, c->data, c->parity);
		break;
	case OP_ISAL_DEC: isal_decode(c); break;
	case OP_ISAL_UPD:
		/* as a sender would: each datagram folded into the parity as it is made */
		for (int i = 0; i < c->m; i++)
			memset(c->parity[i], 0, SHARD);
		for (int i = 0; i < c->k; i++)
			ec_encode_data_update(SHARD, c->k, c->m, i, c->enc_tbls, c->data[i], c->parity);
		break;
#endif
#ifdef BENCH_FEC_CM256
	case OP_CM_ENC:
		if (bench_cm256_encode(c->k, c->m, c->data, c->pcont) < 0)
			abort();
		break;
	case OP_CM_DEC: cm_decode(c); break;
#endif
	default: break;
	}
	__asm__ volatile("" : : "r"(c->copy), "r"(c->work[0]) : "memory");
}

/* Encodes with op's library and checks that its decoder restores the first M datagrams. */
static void verify(struct ctx *c, enum op dec)
{
	run_once(c, dec - 1); /* its encoder */
	run_once(c, dec);
	check_restored(c, c->work);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double best_ns(struct ctx *c, enum op op)
{
	unsigned iters = 1;
	double best = 1e30;

	for (;;) {
		const double t0 = now_ns();

		for (unsigned i = 0; i < iters; i++)
			run_once(c, op);
		if (now_ns() - t0 >= RUN_NS)
			break;
		iters *= 2;
	}
	for (int r = 0; r < REPS; r++) {
		const double t0 = now_ns();
		double t;

		for (unsigned i = 0; i < iters; i++)
			run_once(c, op);
		t = (now_ns() - t0) / iters;
		if (t < best)
			best = t;
	}
	return best;
}

static void table(void)
{
	static const int km[][2] = { { 32, 4 }, { 32, 2 }, { 64, 8 }, { 16, 4 } };

	printf("| K:M | operation | ns per block | ns per datagram | x memcpy of K datagrams |\n"
	       "|---|---|---|---|---|\n");
	for (size_t t = 0; t < sizeof(km) / sizeof(km[0]); t++) {
		struct ctx c;
		double base;

		setup(&c, km[t][0], km[t][1], 15);
		for (int op = OP_JER_DEC; op < OP_COUNT; op += 1)
			if ((op == OP_JER_DEC || op == OP_ISAL_DEC || op == OP_CM_DEC) && op_built(op))
				verify(&c, op);
		base = best_ns(&c, OP_MEMCPY);
		for (int op = 0; op < OP_COUNT; op++) {
			double ns;

			if (!op_built(op))
				continue;
			ns = op == OP_MEMCPY ? base : best_ns(&c, op);
			printf("| %d:%d | %s | %.0f | %.1f | %.2f |\n", c.k, c.m, op_text[op], ns,
			       ns / c.k, ns / base);
		}
	}
}

int main(int argc, char **argv)
{
	struct ctx c;
	enum op op = OP_COUNT;
	long n;

	if (argc == 1) {
#ifdef BENCH_FEC_ZCS
		printf("zcs's GF(2^8) kernel: %s\n\n", zcs_gf256_kernel());
#endif
		table();
		return 0;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: bench_fec [OP K M N]\n");
		return 2;
	}
	for (int i = 0; i < OP_COUNT; i++)
		if (strcmp(argv[1], op_names[i]) == 0)
			op = (enum op)i;
	if (op == OP_COUNT || !op_built(op)) {
		fprintf(stderr, "bench_fec: %s: not an operation of this build\n", argv[1]);
		return 2;
	}
	if (atoi(argv[2]) < 1 || atoi(argv[2]) > MAXK || atoi(argv[3]) < 1 || atoi(argv[3]) > MAXM)
		return 2;
	setup(&c, atoi(argv[2]), atoi(argv[3]),
	      op == OP_MEMCPY ? 0 : op == OP_ZCS_ENC ? 8 : op <= OP_JER_DEC ? 1 :
	      op <= OP_ISAL_UPD ? 2 : 4);
	n = atol(argv[4]);
	if (op == OP_JER_DEC || op == OP_ISAL_DEC || op == OP_CM_DEC)
		run_once(&c, op - 1);
	for (long i = 0; i < n; i++)
		run_once(&c, op);
	return 0;
}
