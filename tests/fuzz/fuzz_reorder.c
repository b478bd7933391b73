// SPDX-License-Identifier: MIT
/* libFuzzer target for the reorder window: any sequence of pushes (near, far, backwards, around
 * UINT64_MAX), flushes and resets never crashes, and every accepted datagram comes out exactly
 * once, in order, with released numbers contiguous and the counters adding up.
 * Run: CC=clang meson setup -Dfuzz=true b && ninja -C b tests/fuzz/fuzz_reorder &&
 *      b/tests/fuzz/fuzz_reorder -runs=200000 tests/fuzz/corpus_reorder */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Compiled in here rather than linked, so the replay test (which links common/ only) and the
 * fuzzer (which instruments what it compiles) both get it without a special case in meson.build. */
#include "../../receiver/core/reorder.c"

#define MAX_OPS 4096

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_state {
	struct zcs_reorder r;
	uint8_t held[MAX_OPS];   /* handle -> accepted and not yet released */
	uint64_t released;       /* numbers released as data or lost since the last reset */
	uint64_t expect;
	int have_expect;
};

static void drain(struct fuzz_state *f)
{
	struct zcs_reorder_event ev;

	while (zcs_reorder_pop(&f->r, &ev)) {
		switch (ev.type) {
		case ZCS_REORDER_EV_DATA:
			CHECK(ev.handle < MAX_OPS && f->held[ev.handle]);
			f->held[ev.handle] = 0;
			CHECK(!f->have_expect || ev.seq == f->expect);
			f->expect = ev.seq + 1;
			f->have_expect = 1;
			f->released++;
			break;
		case ZCS_REORDER_EV_LOST:
			CHECK(ev.count > 0);
			CHECK(!f->have_expect || ev.seq == f->expect);
			f->expect = ev.seq + ev.count;
			f->have_expect = 1;
			f->released += ev.count;
			break;
		case ZCS_REORDER_EV_RESYNC:
			f->expect = ev.seq;
			f->have_expect = 1;
			break;
		default:
			CHECK(0);
		}
	}
	CHECK(zcs_reorder_depth(&f->r) <= f->r.window);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_state f;
	uint64_t last = 0;
	size_t pos = 0;
	uint32_t op = 0;

	memset(&f, 0, sizeof(f));
	/* small capacity and resync distance so the fuzzer reaches every case quickly */
	if (zcs_reorder_init(&f.r, 16, 1000) < 0)
		abort();
	while (pos < size && op < MAX_OPS) {
		const uint8_t code = data[pos++];
		uint64_t seq;

		switch (code & 3) {
		case 0: /* near the last number: -64 .. +63 */
			seq = last + (uint64_t)(int64_t)((int)(code >> 2) - 32) * 2;
			break;
		case 1: /* anywhere */
			if (size - pos < 8)
				goto out;
			seq = get64(data + pos);
			pos += 8;
			break;
		case 2:
			zcs_reorder_flush(&f.r);
			drain(&f);
			CHECK(zcs_reorder_depth(&f.r) == 0);
			continue;
		default: /* a new stream: flush, then restart with a window of 1 << (code >> 2 & 7) */
			zcs_reorder_flush(&f.r);
			drain(&f);
			zcs_reorder_reset(&f.r, last, (size_t)1 << (code >> 2 & 7));
			f.have_expect = 0;
			continue;
		}
		last = seq;
		if (zcs_reorder_push(&f.r, seq, op) == ZCS_REORDER_ACCEPTED)
			f.held[op] = 1;
		drain(&f);
		op++;
	}
out:
	zcs_reorder_flush(&f.r);
	drain(&f);
	for (uint32_t i = 0; i < MAX_OPS; i++)
		CHECK(!f.held[i]);
	CHECK(f.r.st.accepted == f.r.st.delivered);
	zcs_reorder_free(&f.r);
	return 0;
}
