// SPDX-License-Identifier: MIT
/* Unit tests for receiver/core/reorder.c: every case of zcs_reorder_push() by hand, then random
 * arrival orders with drops and duplicates against ground truth computed from the scenario,
 * around UINT64_MAX, and huge jumps both ways. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reorder.h"

/* Everything one call released, checked for order as it is drained. */
struct drained {
	uint64_t data, lost, resyncs;
	uint64_t expect;          /* number the next DATA/LOST event must start at */
	bool have_expect;
	uint64_t data_seq[64];    /* first DATA seqs, for hand-written cases */
	size_t ndata;
};

static void drain(struct zcs_reorder *r, struct drained *d)
{
	struct zcs_reorder_event ev;

	while (zcs_reorder_pop(r, &ev)) {
		switch (ev.type) {
		case ZCS_REORDER_EV_DATA:
			if (d->have_expect)
				ck_assert_uint_eq(ev.seq, d->expect);
			/* handles in these tests are the low bits of the seq */
			ck_assert_uint_eq(ev.handle, (uint32_t)ev.seq);
			if (d->ndata < 64)
				d->data_seq[d->ndata] = ev.seq;
			d->ndata++;
			d->data++;
			d->expect = ev.seq + 1;
			d->have_expect = true;
			break;
		case ZCS_REORDER_EV_LOST:
			ck_assert_uint_gt(ev.count, 0);
			if (d->have_expect)
				ck_assert_uint_eq(ev.seq, d->expect);
			d->lost += ev.count;
			d->expect = ev.seq + ev.count;
			d->have_expect = true;
			break;
		case ZCS_REORDER_EV_RESYNC:
			d->resyncs++;
			d->expect = ev.seq;
			d->have_expect = true;
			break;
		}
	}
}

static enum zcs_reorder_verdict push(struct zcs_reorder *r, struct drained *d, uint64_t seq)
{
	const enum zcs_reorder_verdict v = zcs_reorder_push(r, seq, (uint32_t)seq);

	drain(r, d);
	return v;
}

static void flush(struct zcs_reorder *r, struct drained *d)
{
	zcs_reorder_flush(r);
	drain(r, d);
}

START_TEST(test_init_rules)
{
	struct zcs_reorder r;

	ck_assert_int_eq(zcs_reorder_init(&r, 0, 0), -EINVAL);
	ck_assert_int_eq(zcs_reorder_init(&r, ZCS_REORDER_HISTORY, 0), -EINVAL);
	ck_assert_int_eq(zcs_reorder_init(&r, 100, 0), 0);
	ck_assert_uint_eq(r.capacity, 128);
	ck_assert(!zcs_reorder_started(&r));
	zcs_reorder_reset(&r, 5, 3);
	ck_assert_uint_eq(r.window, 4);
	zcs_reorder_reset(&r, 5, 1000);
	ck_assert_uint_eq(r.window, 128);
	zcs_reorder_free(&r);
}
END_TEST

START_TEST(test_in_order)
{
	struct zcs_reorder r;
	struct drained d = { 0 };

	ck_assert_int_eq(zcs_reorder_init(&r, 8, 0), 0);
	for (uint64_t s = 1000; s < 1100; s++) {
		ck_assert_int_eq(push(&r, &d, s), ZCS_REORDER_ACCEPTED);
		/* in order, each datagram leaves at once: the window adds no latency */
		ck_assert_uint_eq(zcs_reorder_depth(&r), 0);
	}
	ck_assert_uint_eq(d.data, 100);
	ck_assert_uint_eq(r.st.lost + r.st.late + r.st.duplicate + r.st.reordered, 0);
	zcs_reorder_free(&r);
}
END_TEST

START_TEST(test_each_case)
{
	struct zcs_reorder r;
	struct drained d = { 0 };

	ck_assert_int_eq(zcs_reorder_init(&r, 4, 0), 0);
	zcs_reorder_reset(&r, 10, 4);
	/* before the start */
	ck_assert_int_eq(push(&r, &d, 9), ZCS_REORDER_STALE);
	ck_assert_uint_eq(r.st.stale, 1);
	/* in the window, out of order: held until 10 comes */
	ck_assert_int_eq(push(&r, &d, 12), ZCS_REORDER_ACCEPTED);
	ck_assert_uint_eq(d.data, 0);
	ck_assert_uint_eq(zcs_reorder_depth(&r), 1);
	/* duplicate of a held one */
	ck_assert_int_eq(push(&r, &d, 12), ZCS_REORDER_DUPLICATE);
	ck_assert_int_eq(push(&r, &d, 10), ZCS_REORDER_ACCEPTED);
	ck_assert_uint_eq(r.st.reordered, 1);
	ck_assert_uint_eq(d.data, 1);
	/* duplicate of a delivered one */
	ck_assert_int_eq(push(&r, &d, 10), ZCS_REORDER_DUPLICATE);
	/* the last slot of the window: 11 still missing, nothing slides */
	ck_assert_int_eq(push(&r, &d, 14), ZCS_REORDER_ACCEPTED);
	ck_assert_uint_eq(r.st.lost, 0);
	/* one beyond: 11 is passed, declared lost, 12 released; 13 now the hole */
	ck_assert_int_eq(push(&r, &d, 15), ZCS_REORDER_ACCEPTED);
	ck_assert_uint_eq(r.st.lost, 1);
	ck_assert_uint_eq(d.data, 2);
	ck_assert_uint_eq(d.data_seq[1], 12);
	/* 11 arrives after being declared lost */
	ck_assert_int_eq(push(&r, &d, 11), ZCS_REORDER_LATE);
	ck_assert_int_eq(push(&r, &d, 11), ZCS_REORDER_LATE);
	ck_assert_uint_eq(r.st.late, 2);
	/* 13 comes in time: 13, 14, 15 go out */
	ck_assert_int_eq(push(&r, &d, 13), ZCS_REORDER_ACCEPTED);
	ck_assert_uint_eq(r.st.reordered, 2);
	ck_assert_uint_eq(d.data, 5);
	ck_assert_uint_eq(zcs_reorder_depth(&r), 0);
	ck_assert_uint_eq(r.st.duplicate, 2);
	ck_assert_uint_eq(r.st.lost, 1);
	ck_assert_uint_eq(r.st.max_depth, 3);
	zcs_reorder_free(&r);
}
END_TEST

START_TEST(test_flush)
{
	struct zcs_reorder r;
	struct drained d = { 0 };

	ck_assert_int_eq(zcs_reorder_init(&r, 64, 0), 0);
	zcs_reorder_reset(&r, 0, 64);
	push(&r, &d, 0);
	push(&r, &d, 3);
	push(&r, &d, 7);
	ck_assert_uint_eq(zcs_reorder_depth(&r), 2);
	flush(&r, &d);
	/* 1, 2, 4, 5, 6 lost; nothing above 7 is declared */
	ck_assert_uint_eq(r.st.lost, 5);
	ck_assert_uint_eq(d.data, 3);
	ck_assert_uint_eq(zcs_reorder_depth(&r), 0);
	ck_assert_int_eq(push(&r, &d, 8), ZCS_REORDER_ACCEPTED);
	ck_assert_uint_eq(d.data, 4);
	ck_assert_int_eq(push(&r, &d, 5), ZCS_REORDER_LATE);
	ck_assert_int_eq(push(&r, &d, 7), ZCS_REORDER_DUPLICATE);
	/* flushing with nothing held does nothing */
	flush(&r, &d);
	ck_assert_uint_eq(r.st.lost, 5);
	zcs_reorder_free(&r);
}
END_TEST

START_TEST(test_long_gap_is_loss)
{
	struct zcs_reorder r;
	struct drained d = { 0 };

	ck_assert_int_eq(zcs_reorder_init(&r, 64, 0), 0);
	zcs_reorder_reset(&r, 0, 64);
	push(&r, &d, 0);
	push(&r, &d, 100000);
	/* the slide declared 1 .. 100000-64 lost; the rest is still in the window */
	ck_assert_uint_eq(r.st.lost, 100000 - 64);
	ck_assert_uint_eq(d.data, 1);
	flush(&r, &d);
	ck_assert_uint_eq(r.st.lost, 99999);
	ck_assert_uint_eq(d.data, 2);
	ck_assert_uint_eq(r.st.resyncs, 0);
	/* far behind the history but within the resync distance: late */
	ck_assert_int_eq(push(&r, &d, 1), ZCS_REORDER_LATE);
	zcs_reorder_free(&r);
}
END_TEST

START_TEST(test_huge_jumps_resync)
{
	struct zcs_reorder r;
	struct drained d = { 0 };
	const uint64_t far = 1ULL << 40;

	ck_assert_int_eq(zcs_reorder_init(&r, 16, 0), 0);
	zcs_reorder_reset(&r, 0, 16);
	push(&r, &d, 0);
	push(&r, &d, 2);
	/* forward far beyond: 2 is released, 1 declared lost, one resync, no flood */
	ck_assert_int_eq(push(&r, &d, far), ZCS_REORDER_ACCEPTED);
	ck_assert_uint_eq(r.st.resyncs, 1);
	ck_assert_uint_eq(d.resyncs, 1);
	ck_assert_uint_eq(r.st.lost, 1);
	ck_assert_uint_eq(d.data, 3);
	ck_assert_int_eq(push(&r, &d, far + 1), ZCS_REORDER_ACCEPTED);
	ck_assert_uint_eq(d.data, 4);
	/* the old numbers are now before the start */
	ck_assert_int_eq(push(&r, &d, 3), ZCS_REORDER_ACCEPTED); /* far behind: resync again */
	ck_assert_uint_eq(r.st.resyncs, 2);
	ck_assert_uint_eq(d.data, 5);
	ck_assert_int_eq(push(&r, &d, 2), ZCS_REORDER_STALE);
	/* the exact resync boundary: resync_dist beyond the window's end is still a gap */
	zcs_reorder_reset(&r, 0, 16);
	d.have_expect = false;
	push(&r, &d, 0);
	ck_assert_int_eq(push(&r, &d, 1 + 16 + ZCS_REORDER_RESYNC_DEFAULT - 1), ZCS_REORDER_ACCEPTED);
	ck_assert_uint_eq(r.st.resyncs, 2);
	ck_assert_int_eq(push(&r, &d, 1ULL << 62), ZCS_REORDER_ACCEPTED);
	ck_assert_uint_eq(r.st.resyncs, 3);
	zcs_reorder_free(&r);
}
END_TEST

START_TEST(test_wrap_uint64)
{
	struct zcs_reorder r;
	struct drained d = { 0 };
	const uint64_t base = UINT64_MAX - 5;

	ck_assert_int_eq(zcs_reorder_init(&r, 8, 0), 0);
	zcs_reorder_reset(&r, base, 8);
	push(&r, &d, base);
	push(&r, &d, base + 3);
	push(&r, &d, base + 7);     /* wraps to 1 */
	push(&r, &d, base + 2);
	push(&r, &d, base + 1);     /* releases base+1 .. base+3 */
	ck_assert_uint_eq(d.data, 4);
	ck_assert_uint_eq(r.st.reordered, 2);
	push(&r, &d, base + 15);    /* slides past the wrap: base+4, +5, +6 (= 0) lost, +7 out */
	ck_assert_uint_eq(r.st.lost, 3);
	ck_assert_uint_eq(d.data, 5);
	ck_assert_int_eq(push(&r, &d, base + 6), ZCS_REORDER_LATE);
	ck_assert_int_eq(push(&r, &d, base + 7), ZCS_REORDER_DUPLICATE);
	ck_assert_int_eq(push(&r, &d, base - 1), ZCS_REORDER_STALE);
	ck_assert_uint_eq(r.st.resyncs, 0);
	zcs_reorder_free(&r);
}
END_TEST

/* xorshift64*: a fixed seed per run so a failure reproduces */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

#define N_SEQ 20000

/* A scenario: N_SEQ numbers from base, shuffled within blocks shorter than the window (so nothing
 * can be late), some dropped, some sent twice.  Ground truth comes from the arrival list alone. */
static void run_random(uint64_t base, uint64_t seed, size_t window, size_t block)
{
	struct zcs_reorder r;
	struct drained d = { 0 };
	uint64_t *arr = malloc(sizeof(*arr) * N_SEQ * 2);
	uint8_t *seen = calloc(N_SEQ, 1);
	size_t n = 0;
	uint64_t drops = 0, dups = 0, reord = 0, last_kept = 0, s = seed;
	int64_t maxseen = -1;

	ck_assert_ptr_nonnull(arr);
	ck_assert_ptr_nonnull(seen);
	for (size_t b = 0; b < N_SEQ; b += block) {
		const size_t len = b + block <= N_SEQ ? block : N_SEQ - b;
		uint64_t perm[1024];

		for (size_t i = 0; i < len; i++)
			perm[i] = b + i;
		for (size_t i = len; i > 1; i--) {
			const size_t j = rnd(&s) % i;
			const uint64_t t = perm[i - 1];

			perm[i - 1] = perm[j];
			perm[j] = t;
		}
		for (size_t i = 0; i < len; i++) {
			const uint64_t v = rnd(&s) % 100;

			/* bursts: sometimes drop a whole block */
			if (v < 5 || (b / block) % 37 == 5) {
				drops++;
				continue;
			}
			arr[n++] = perm[i];
			if (v >= 97) {
				arr[n++] = perm[i];
				dups++;
			}
		}
	}
	/* ground truth: a first arrival after a higher number is reordered; drops above the last
	 * number that arrived are never declared */
	for (size_t i = 0; i < n; i++) {
		if (seen[arr[i]])
			continue;
		seen[arr[i]] = 1;
		if ((int64_t)arr[i] < maxseen)
			reord++;
		if ((int64_t)arr[i] > maxseen)
			maxseen = (int64_t)arr[i];
	}
	for (uint64_t i = (uint64_t)maxseen + 1; i < N_SEQ; i++)
		drops--;
	last_kept = (uint64_t)maxseen;

	ck_assert_int_eq(zcs_reorder_init(&r, window, 0), 0);
	zcs_reorder_reset(&r, base, window);
	for (size_t i = 0; i < n; i++) {
		const enum zcs_reorder_verdict v = push(&r, &d, base + arr[i]);

		ck_assert(v == ZCS_REORDER_ACCEPTED || v == ZCS_REORDER_DUPLICATE);
		ck_assert_uint_le(zcs_reorder_depth(&r), window);
	}
	flush(&r, &d);
	ck_assert_uint_eq(r.st.lost, drops);
	ck_assert_uint_eq(d.lost, drops);
	ck_assert_uint_eq(r.st.duplicate, dups);
	ck_assert_uint_eq(r.st.late, 0);
	ck_assert_uint_eq(r.st.reordered, reord);
	ck_assert_uint_eq(r.st.delivered, last_kept + 1 - drops);
	ck_assert_uint_eq(d.data, r.st.delivered);
	ck_assert_uint_eq(r.st.resyncs, 0);
	ck_assert_uint_eq(d.expect, base + last_kept + 1);
	ck_assert_uint_eq(zcs_reorder_depth(&r), 0);
	zcs_reorder_free(&r);
	free(arr);
	free(seen);
}

/* zcs_reorder_take() is only a shortcut: a window fed take-then-push must end with exactly the
 * counters and the delivered/lost sequence of a window fed push alone, on the same arrivals. */
START_TEST(test_take_matches_push)
{
	struct zcs_reorder a, b;
	struct drained da = { 0 }, db = { 0 };
	uint64_t x = 0x9e3779b97f4a7c15u, seq = 5000, takes = 0;

	ck_assert_int_eq(zcs_reorder_init(&a, 32, 0), 0);
	ck_assert_int_eq(zcs_reorder_init(&b, 32, 0), 0);
	for (int i = 0; i < 200000; i++) {
		uint64_t s = seq;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		switch (x % 16) {
		case 0: s = seq + 1 + (x >> 8) % 5; break;   /* early: leaves a hole behind */
		case 1: s = seq - 1 - (x >> 8) % 40; break;  /* duplicate, late or reordered */
		case 2: seq += 1 + (x >> 8) % 3; continue;   /* lost */
		default: seq++; break;                       /* in order */
		}
		push(&a, &da, s);
		if (zcs_reorder_take(&b, s)) {
			/* what the DATA event would have said */
			if (db.have_expect)
				ck_assert_uint_eq(s, db.expect);
			db.data++;
			db.expect = s + 1;
			db.have_expect = true;
			takes++;
		} else {
			push(&b, &db, s);
		}
	}
	flush(&a, &da);
	flush(&b, &db);
	ck_assert_uint_gt(takes, 10000);   /* both ways really taken */
	ck_assert_uint_eq(da.data, db.data);
	ck_assert_uint_eq(da.lost, db.lost);
	ck_assert_uint_eq(da.expect, db.expect);
	ck_assert_mem_eq(&a.st, &b.st, sizeof(a.st));
	zcs_reorder_free(&a);
	zcs_reorder_free(&b);
}
END_TEST

START_TEST(test_random_permutations)
{
	static const size_t windows[] = { 4, 16, 64, 256, 1024 };
	const size_t w = windows[_i % 5];
	uint64_t base = (uint64_t)_i * 7919;

	/* every other run straddles the wrap of UINT64_MAX */
	if (_i & 1)
		base = UINT64_MAX - N_SEQ / 2 + _i;
	run_random(base, 0x9E3779B97F4A7C15ULL + (uint64_t)_i, w, w / 2 + (size_t)_i % (w / 2 + 1));
}
END_TEST

/* Displacements beyond the window: compare against a direct model with unbounded memory. */
START_TEST(test_random_late_model)
{
	enum { N = 4000, W = 16 };
	struct zcs_reorder r;
	struct drained d = { 0 };
	uint8_t state[N + 64] = { 0 }; /* 0 unseen, 1 held, 2 delivered, 3 lost */
	uint64_t next = 0, s = 12345 + (uint64_t)_i, late = 0, dup = 0, lost = 0, reord = 0;
	int64_t high = -1;

	ck_assert_int_eq(zcs_reorder_init(&r, W, 0), 0);
	zcs_reorder_reset(&r, 0, W);
	for (int k = 0; k < N; k++) {
		/* mostly advancing, sometimes far back (late), sometimes far ahead (slides) */
		uint64_t seq = (uint64_t)k + rnd(&s) % 8;
		const uint64_t v = rnd(&s) % 10;
		enum zcs_reorder_verdict exp, got;

		if (v == 0 && seq > 40)
			seq -= rnd(&s) % 40;
		if (seq >= N)
			seq = N - 1;
		if (state[seq] == 2 || state[seq] == 1) {
			exp = ZCS_REORDER_DUPLICATE;
			dup++;
		} else if (state[seq] == 3) {
			exp = ZCS_REORDER_LATE;
			late++;
		} else {
			exp = ZCS_REORDER_ACCEPTED;
			if (seq >= next + W) {
				for (; next < seq - W + 1; next++) {
					if (state[next] == 1) {
						state[next] = 2;
					} else {
						state[next] = 3;
						lost++;
					}
				}
			}
			state[seq] = 1;
			if ((int64_t)seq < high)
				reord++;
			else
				high = (int64_t)seq;
			while (state[next] == 1)
				state[next++] = 2;
		}
		got = push(&r, &d, seq);
		ck_assert_int_eq(got, exp);
		ck_assert_uint_eq(r.next, next);
	}
	ck_assert_uint_eq(r.st.late, late);
	ck_assert_uint_eq(r.st.duplicate, dup);
	ck_assert_uint_eq(r.st.lost, lost);
	ck_assert_uint_eq(r.st.reordered, reord);
	zcs_reorder_free(&r);
}
END_TEST

static Suite *reorder_suite(void)
{
	Suite *s = suite_create("reorder");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_init_rules);
	tcase_add_test(tc, test_in_order);
	tcase_add_test(tc, test_each_case);
	tcase_add_test(tc, test_flush);
	tcase_add_test(tc, test_long_gap_is_loss);
	tcase_add_test(tc, test_huge_jumps_resync);
	tcase_add_test(tc, test_wrap_uint64);
	tcase_add_test(tc, test_take_matches_push);
	tcase_add_loop_test(tc, test_random_permutations, 0, 20);
	tcase_add_loop_test(tc, test_random_late_model, 0, 10);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(reorder_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
