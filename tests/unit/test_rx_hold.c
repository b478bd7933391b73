// SPDX-License-Identifier: MIT
/* Unit tests of the hold of a run awaiting the board (receiver/core/rx_hold.h): records come out
 * oldest first, byte for byte, across the ring's end (and a walk sees them so, taking nothing
 * out); the ring never takes more than its size,
 * whatever the lengths; what never fits is said so; an empty ring starts again at its start. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "rx_hold.h"

/* A record's bytes: its number in every byte, so a record read from the wrong place shows. */
static void fill(uint8_t *b, size_t len, uint64_t seq)
{
	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)(seq * 31 + i);
}

static void check_pop(struct zcs_rx_hold *h, uint64_t seq, size_t len)
{
	struct zcs_rx_hold_rec rec;
	const uint8_t *data;
	uint8_t want[4096];

	ck_assert(zcs_rx_hold_pop(h, &rec, &data));
	ck_assert_uint_eq(rec.seq, seq);
	ck_assert_uint_eq(rec.len, len);
	ck_assert_uint_eq(rec.samples, seq % 500);
	fill(want, len, seq);
	ck_assert_mem_eq(data, want, len);
}

/* Walks the hold: the records of the model q[qh..qt) (lens likewise), oldest first, and nothing
 * taken out. */
static void check_walk(const struct zcs_rx_hold *h, const uint64_t *q, const uint64_t *lens,
		       size_t qh, size_t qt)
{
	struct zcs_rx_hold_walk w;
	struct zcs_rx_hold_rec rec;
	const uint8_t *data;
	const size_t count = h->count;
	uint8_t want[4096];

	zcs_rx_hold_walk_begin(h, &w);
	for (size_t i = qh; i < qt; i++) {
		ck_assert(zcs_rx_hold_walk_next(h, &w, &rec, &data));
		ck_assert_uint_eq(rec.seq, q[i % 4096]);
		ck_assert_uint_eq(rec.len, lens[i % 4096]);
		fill(want, rec.len, rec.seq);
		ck_assert_mem_eq(data, want, rec.len);
	}
	ck_assert(!zcs_rx_hold_walk_next(h, &w, &rec, &data));
	ck_assert_uint_eq(h->count, count);
}

static void put(struct zcs_rx_hold *h, uint64_t seq, size_t len)
{
	const struct zcs_rx_hold_rec rec = { .seq = seq, .samples = (uint32_t)(seq % 500),
					     .len = (uint32_t)len };
	uint8_t b[4096];

	fill(b, len, seq);
	zcs_rx_hold_put(h, &rec, b);
}

START_TEST(fifo_across_the_end)
{
	struct zcs_rx_hold h;
	/* the model: which records are held, oldest first */
	uint64_t q[4096], lens[4096];
	size_t qh = 0, qt = 0;

	ck_assert_int_eq(zcs_rx_hold_init(&h, 10000), 0);
	srand(22);
	for (uint64_t seq = 0; seq < 20000; seq++) {
		const size_t len = 1 + (size_t)rand() % 3000;

		/* as the engine does: the oldest give way until it fits */
		while (!zcs_rx_hold_fits(&h, len)) {
			ck_assert_uint_gt(qt - qh, 0);
			check_pop(&h, q[qh % 4096], lens[qh % 4096]);
			qh++;
		}
		put(&h, seq, len);
		q[qt % 4096] = seq;
		lens[qt % 4096] = len;
		qt++;
		ck_assert_uint_eq(h.count, qt - qh);
		ck_assert_uint_le(h.used, h.cap);
		/* a walk sees what a pop would, in order, and takes nothing out */
		if (seq % 97 == 0)
			check_walk(&h, q, lens, qh, qt);
		/* now and then, drain some */
		if (rand() % 7 == 0)
			while (qh < qt && rand() % 2) {
				check_pop(&h, q[qh % 4096], lens[qh % 4096]);
				qh++;
			}
	}
	while (qh < qt) {
		check_pop(&h, q[qh % 4096], lens[qh % 4096]);
		qh++;
	}
	ck_assert_uint_eq(h.count, 0);
	ck_assert_uint_eq(h.used, 0);
	ck_assert_uint_le(h.max_used, 10000);
	ck_assert(!zcs_rx_hold_pop(&h, &(struct zcs_rx_hold_rec){ 0 }, &(const uint8_t *){ NULL }));
	zcs_rx_hold_free(&h);
}
END_TEST

/* Full to the byte, what can never fit, and a ring of no size. */
START_TEST(bounds)
{
	struct zcs_rx_hold h;

	ck_assert_int_eq(zcs_rx_hold_init(&h, 4 * 64), 0);
	ck_assert(zcs_rx_hold_can(&h, 256 - 16));
	ck_assert(!zcs_rx_hold_can(&h, 256 - 15));
	for (uint64_t i = 0; i < 4; i++) {
		ck_assert(zcs_rx_hold_fits(&h, 48));
		put(&h, i, 48);                   /* 16 + 48 = 64 bytes each */
	}
	ck_assert_uint_eq(h.used, 256);
	ck_assert(!zcs_rx_hold_fits(&h, 1));
	check_pop(&h, 0, 48);
	ck_assert(zcs_rx_hold_fits(&h, 48));
	ck_assert(!zcs_rx_hold_fits(&h, 49));
	put(&h, 4, 48);                           /* into the start again */
	for (uint64_t i = 1; i <= 4; i++)
		check_pop(&h, i, 48);
	zcs_rx_hold_free(&h);
	/* no ring: nothing is ever held */
	ck_assert_int_eq(zcs_rx_hold_init(&h, 0), 0);
	ck_assert(!zcs_rx_hold_can(&h, 1));
	ck_assert(!zcs_rx_hold_fits(&h, 1));
	zcs_rx_hold_free(&h);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rx_hold");
	TCase *t = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(t, fifo_across_the_end);
	tcase_add_test(t, bounds);
	suite_add_tcase(s, t);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
