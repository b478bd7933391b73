// SPDX-License-Identifier: MIT
/* Conversion kernel benchmark: MB/s of input bytes for every kernel of every ISA this CPU runs,
 * and the ratio to memcpy of the same input bytes measured in the same run.  Prints a table;
 * asserts nothing (timings on a shared machine are not a pass/fail criterion). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats.h"

#define PAIRS 16384 /* 64 KB of radio int16 input */
#define DGRAM_PAIRS 480 /* one MTU-1500 datagram of p12: the sender packs this much a call */
#define REPS 41     /* best of REPS short runs: robust when other jobs share the CPU */
#define RUN_NS 5e5

enum op { OP_MEMCPY, OP_PACK, OP_UNPACK };

struct job {
	enum op op;
	zcs_pack_fn pack;
	zcs_unpack_fn unpack;
	void *dst;
	const void *src;
	size_t n; /* pairs, or bytes for memcpy */
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void run_once(const struct job *j)
{
	switch (j->op) {
	case OP_MEMCPY: memcpy(j->dst, j->src, j->n); break;
	case OP_PACK: j->pack(j->dst, j->src, j->n); break;
	case OP_UNPACK: j->unpack(j->dst, j->src, j->n); break;
	}
	/* the output is never read: keep the compiler from dropping the call */
	__asm__ volatile("" : : "r"(j->dst) : "memory");
}

/* Calls per run so that one run takes about RUN_NS. */
static unsigned calibrate(const struct job *j)
{
	unsigned iters = 1;

	run_once(j); /* warm caches and page tables */
	for (;;) {
		const double t0 = now_ns();

		for (unsigned i = 0; i < iters; i++)
			run_once(j);
		if (now_ns() - t0 >= RUN_NS)
			return iters;
		iters *= 2;
	}
}

static double run_ns(const struct job *j, unsigned iters)
{
	const double t0 = now_ns();

	for (unsigned i = 0; i < iters; i++)
		run_once(j);
	return (now_ns() - t0) / iters;
}

/* One table row: a kernel and memcpy of its input bytes, each with its best time so far. */
struct row {
	char what[24];
	const char *isa;
	struct job job, ref;
	size_t in_bytes;
	unsigned iters, ref_iters;
	double ns, ref_ns;
};

#define MAX_ROWS 80

static void add_row(struct row *rows, size_t *nrows, const char *what, const char *isa,
		    const struct job *j, size_t in_bytes)
{
	struct row *r;

	if (*nrows == MAX_ROWS)
		return;
	r = &rows[(*nrows)++];

	snprintf(r->what, sizeof(r->what), "%s", what);
	r->isa = isa;
	r->job = *j;
	r->ref = (struct job){ .op = OP_MEMCPY, .dst = j->dst, .src = j->src, .n = in_bytes };
	r->in_bytes = in_bytes;
	r->iters = calibrate(&r->job);
	r->ref_iters = calibrate(&r->ref);
	r->ns = r->ref_ns = 1e30;
}

/* Best of REPS rounds over all rows, kernel and memcpy alternating: other jobs share these
 * cores, and spreading every row's runs over the whole benchmark lets each find quiet moments. */
static void measure(struct row *rows, size_t nrows)
{
	for (int rep = 0; rep < REPS; rep++) {
		for (size_t i = 0; i < nrows; i++) {
			const double a = run_ns(&rows[i].ref, rows[i].ref_iters);
			const double b = run_ns(&rows[i].job, rows[i].iters);

			if (a < rows[i].ref_ns)
				rows[i].ref_ns = a;
			if (b < rows[i].ns)
				rows[i].ns = b;
		}
	}
}

static void print_row(const struct row *r)
{
	printf("| %-16s | %-6s | %9.0f | %9.0f | %5.2f |\n", r->what, r->isa,
	       (double)r->in_bytes / r->ns * 1e3, (double)r->in_bytes / r->ref_ns * 1e3,
	       r->ref_ns / r->ns);
}

int main(void)
{
	static const enum zcs_isa isas[] = { ZCS_ISA_SCALAR, ZCS_ISA_SSE2, ZCS_ISA_AVX2,
					     ZCS_ISA_NEON };
	int16_t *radio = aligned_alloc(64, PAIRS * 4);
	uint8_t *wire[ZCS_WIRE_MAX + 1];
	uint8_t *out = aligned_alloc(64, PAIRS * 8);
	struct zcs_kernels sc;
	uint32_t x = 1;
	char what[32];
	static struct row rows[MAX_ROWS];
	size_t nrows = 0;

	if (!radio || !out || zcs_kernels_init(&sc, ZCS_ISA_SCALAR) != 0)
		return 1;
	for (size_t i = 0; i < 2 * PAIRS; i++) {
		x = x * 1664525u + 1013904223u;
		radio[i] = (int16_t)((int)(x >> 20) - 2048);
	}
	for (int w = 1; w <= ZCS_WIRE_MAX; w++) {
		wire[w] = aligned_alloc(64, PAIRS * 4);
		if (!wire[w])
			return 1;
		sc.pack[w](wire[w], radio, PAIRS);
	}
	for (size_t i = 0; i < sizeof(isas) / sizeof(isas[0]); i++) {
		struct zcs_kernels k;

		if (zcs_kernels_init(&k, isas[i]) != 0)
			continue;
		for (int w = 1; w <= ZCS_WIRE_MAX; w++) {
			const struct job j = { .op = OP_PACK, .pack = k.pack[w], .dst = out,
					       .src = radio, .n = PAIRS };

			snprintf(what, sizeof(what), "pack %s", zcs_wire_name(w));
			add_row(rows, &nrows, what, zcs_isa_name(k.isa), &j, PAIRS * 4);
		}
		/* per datagram, as zcs-send calls them: a SIMD kernel's tail handling shows here */
		for (int w = 1; w <= ZCS_WIRE_MAX && k.isa != ZCS_ISA_SCALAR; w++) {
			const struct job j = { .op = OP_PACK, .pack = k.pack[w], .dst = out,
					       .src = radio, .n = DGRAM_PAIRS };

			snprintf(what, sizeof(what), "pack %s /%d", zcs_wire_name(w), DGRAM_PAIRS);
			add_row(rows, &nrows, what, zcs_isa_name(k.isa), &j, DGRAM_PAIRS * 4);
		}
		for (int w = 1; w <= ZCS_WIRE_MAX; w++) {
			for (int t = 0; t < ZCS_SAMPLE_TYPES; t++) {
				const struct job j = { .op = OP_UNPACK, .unpack = k.unpack[w][t],
						       .dst = out, .src = wire[w], .n = PAIRS };

				if (t == ZCS_SAMPLE_NATIVE)
					continue; /* memcpy by definition */
				snprintf(what, sizeof(what), "%s -> %s", zcs_wire_name(w),
					 zcs_sample_name(t));
				add_row(rows, &nrows, what, zcs_isa_name(k.isa), &j,
					PAIRS * zcs_wire_pair_bytes(w));
			}
		}
	}
	printf("%d I/Q pairs a call (\"/%d\": %d, one p12 datagram).  MB/s of input bytes; memcpy: of "
	       "the same input bytes, timed alternately with the kernel; x cpy = kernel / memcpy\n\n",
	       PAIRS, DGRAM_PAIRS, DGRAM_PAIRS);
	printf("| %-16s | %-6s | %9s | %9s | %5s |\n", "kernel", "isa", "MB/s in", "memcpy", "x cpy");
	printf("|------------------|--------|-----------|-----------|-------|\n");
	measure(rows, nrows);
	for (size_t i = 0; i < nrows; i++)
		print_row(&rows[i]);
	for (int w = 1; w <= ZCS_WIRE_MAX; w++)
		free(wire[w]);
	free(radio);
	free(out);
	return 0;
}
