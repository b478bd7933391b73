// SPDX-License-Identifier: MIT
/* Keyed sending's cost per datagram, side by side in one run: the tag zcs-send adds to a full
 * keyed p12 datagram at MTU 1500 (1472 bytes, 472 pairs), alone (as metadata and the end of
 * stream are sealed) and in a full train (as sample datagrams are: each thread's half of the
 * train's one-time keys made in one keystream call), the check zcs-recv makes, and what the
 * sender does to that datagram anyway (memcpy of its payload bytes, packing its 472 pairs to
 * p12).  Prints ns per datagram, ns per byte, the ratio to memcpy and the rate of p12 samples one
 * core could tag; asserts nothing.  "bench_auth OP N" runs one operation N times and prints
 * nothing, for counting instructions under qemu-arm (docs/measurements.md, "Keyed streams"): the
 * operation "train" is a whole train of TRAIN datagrams. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "bytes.h"
#include "formats.h"
#include "proto.h"

#define PAIRS 472     /* a keyed p12 datagram at MTU 1500 */
#define PAYLOAD (PAIRS * 3)
#define DGRAM (ZCS_PROTO_SAMPLE_HDR_SIZE + PAYLOAD)  /* before the trailer */
/* a full train of them: 44 fill ZCS_TRAIN_MAX_BYTES; zcs-send's source thread seals the first
 * half, its send thread the rest, each with a tagger of its own */
#define TRAIN 44
#define TRAIN_SRC ((TRAIN + 1) / 2)
#define REPS 31       /* best of REPS short runs: other jobs only ever add time */
#define RUN_NS 2e6

enum op { OP_NONE, OP_MEMCPY, OP_PACK, OP_SEAL, OP_TRAIN, OP_VERIFY, OP_COUNT };
static const char *const op_names[OP_COUNT] = { "none", "memcpy", "pack", "seal", "train",
						"verify" };
static const char *const op_text[OP_COUNT] = {
	"", "memcpy of the payload (1416 B)", "pack 472 pairs to p12", "tag alone (zcs_auth_seal)",
	"tag in a train of 44", "check (zcs_auth_verify)",
};
/* datagrams an operation handles */
static const unsigned op_dgrams[OP_COUNT] = { 1, 1, 1, 1, TRAIN, 1 };

struct ctx {
	struct zcs_kernels k;
	struct zcs_key key;
	struct zcs_auth auth;
	struct zcs_auth_tagger tagger; /* the source thread's, as zcs-send seals */
	struct zcs_auth_tagger tagger_send; /* the send thread's */
	int16_t radio[2 * PAIRS];
	uint8_t src[PAYLOAD], dgram[DGRAM + ZCS_AUTH_SAMPLE_TRAILER], sealed[DGRAM + ZCS_AUTH_SAMPLE_TRAILER];
	size_t sealed_len;
	uint64_t seq;
};

/* The datagram numbered seq, sealed with t. */
static void seal_one(struct ctx *c, struct zcs_auth_tagger *t, uint64_t seq)
{
	zcs_put_le64(c->dgram + 8, seq);
	c->dgram[3] = ZCS_DGRAM_SAMPLES;
	zcs_auth_seal_samples(&c->auth, t, c->dgram, DGRAM);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void run_once(struct ctx *c, enum op op)
{
	switch (op) {
	case OP_NONE: break;
	case OP_MEMCPY: memcpy(c->dgram + ZCS_PROTO_SAMPLE_HDR_SIZE, c->src, PAYLOAD); break;
	case OP_PACK:
		c->k.pack[ZCS_WIRE_P12](c->dgram + ZCS_PROTO_SAMPLE_HDR_SIZE, c->radio, PAIRS);
		break;
	case OP_SEAL:
		/* a new sequence number each time, as the sender's datagrams have */
		seal_one(c, &c->tagger, ++c->seq);
		break;
	case OP_TRAIN:
		/* as sender/pipeline seals a full train: each thread's part prepared, then sealed */
		zcs_auth_prepare(&c->auth, &c->tagger, 0x12345678, ZCS_DGRAM_SAMPLES, c->seq,
				 TRAIN_SRC);
		for (unsigned k = 0; k < TRAIN_SRC; k++)
			seal_one(c, &c->tagger, c->seq++);
		zcs_auth_prepare(&c->auth, &c->tagger_send, 0x12345678, ZCS_DGRAM_SAMPLES, c->seq,
				 TRAIN - TRAIN_SRC);
		for (unsigned k = TRAIN_SRC; k < TRAIN; k++)
			seal_one(c, &c->tagger_send, c->seq++);
		break;
	case OP_VERIFY:
		if (zcs_auth_verify(&c->key, c->sealed, c->sealed_len) != ZCS_AUTH_OK)
			abort();
		break;
	default: break;
	}
	__asm__ volatile("" : : "r"(c->dgram) : "memory");
}

static double best_ns(struct ctx *c, enum op op)
{
	unsigned iters = 1;
	double best = 1e30;

	for (;;) {
		const double t0 = now_ns();

		for (unsigned i = 0; i < iters; i++)
			run_once(c, op);
		if (now_ns() - t0 >= RUN_NS / 4)
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

static int setup(struct ctx *c)
{
	const struct zcs_sample_hdr h = {
		.stream_id = 0x12345678, .samples = PAIRS, .payload_len = PAYLOAD,
		.format = ZCS_WIRE_P12,
	};

	memset(c, 0, sizeof(*c));
	if (zcs_kernels_init(&c->k, ZCS_ISA_BEST) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(c->key.bytes); i++)
		c->key.bytes[i] = (uint8_t)(i * 13 + 1);
	if (zcs_auth_init(&c->auth, &c->key, 1, NULL, 0) < 0 ||
	    zcs_auth_tagger_init(&c->tagger, c->key.bytes, NULL, 0) < 0 ||
	    zcs_auth_tagger_init(&c->tagger_send, c->key.bytes, NULL, 0) < 0)
		return -1;
	for (size_t i = 0; i < 2 * PAIRS; i++)
		c->radio[i] = (int16_t)((int)(i * 2654435761u >> 20) - 2048);
	for (size_t i = 0; i < PAYLOAD; i++)
		c->src[i] = (uint8_t)(i * 31);
	zcs_proto_write_sample_hdr(c->dgram, &h);
	memcpy(c->dgram + ZCS_PROTO_SAMPLE_HDR_SIZE, c->src, PAYLOAD);
	memcpy(c->sealed, c->dgram, DGRAM);
	c->sealed_len = zcs_auth_seal_samples(&c->auth, &c->tagger, c->sealed, DGRAM);
	return 0;
}

int main(int argc, char **argv)
{
	static struct ctx c;
	double ns[OP_COUNT];

	if (setup(&c) < 0) {
		fprintf(stderr, "bench_auth: set-up failed\n");
		return 1;
	}
	if (argc == 3) {
		const long n = strtol(argv[2], NULL, 10);

		for (int op = 0; op < OP_COUNT; op++) {
			if (strcmp(argv[1], op_names[op]) == 0) {
				for (long i = 0; i < n; i++)
					run_once(&c, (enum op)op);
				return 0;
			}
		}
		fprintf(stderr, "usage: bench_auth [none|memcpy|pack|seal|train|verify N]\n");
		return 2;
	}
	/* interleaved passes, each operation's best kept, so a busy moment spoils none alone */
	for (int op = 1; op < OP_COUNT; op++)
		ns[op] = 1e30;
	for (int pass = 0; pass < 3; pass++) {
		for (int op = 1; op < OP_COUNT; op++) {
			const double t = best_ns(&c, (enum op)op);

			if (t < ns[op])
				ns[op] = t;
		}
	}
	printf("keyed p12 datagram at MTU 1500: %d bytes tagged (%d pairs), %s kernels\n",
	       DGRAM + ZCS_AUTH_SAMPLE_TRAILER - ZCS_AUTH_TAG_BYTES, PAIRS, zcs_isa_name(c.k.isa));
	printf("%-32s %12s %10s %10s %14s\n", "operation", "ns/datagram", "ns/byte", "x memcpy",
	       "MS/s p12 a core");
	for (int op = 1; op < OP_COUNT; op++) {
		const double per = ns[op] / op_dgrams[op];

		printf("%-32s %12.1f %10.3f %10.2f %14.1f\n", op_text[op], per, per / DGRAM,
		       per / ns[OP_MEMCPY], PAIRS / per * 1e3);
	}
	zcs_auth_wipe(&c.auth);
	zcs_auth_tagger_wipe(&c.tagger);
	zcs_auth_tagger_wipe(&c.tagger_send);
	return 0;
}
