// SPDX-License-Identifier: MIT
/* Unit tests for receiver/outputs/out_queue.c, one consumer's queue driven from one thread as the
 * receive thread and the consumer's writer would: a consumer catching up skips, at its start,
 * the blocks queued before the receive thread found its queue full (events still come), and its
 * stream jumps once; once caught up a full queue is an overrun; and when catching up ends. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "output_kinds.h"

/* the attach is at 0: the first moment catching up may end */
#define LATER ZCS_OUT_CATCHUP_NS
#define QUEUE 128
#define DATA_ROOM (QUEUE - ZCS_OUT_EVENT_SLOTS)

struct fixture {
	struct zcs_outputs set;
	struct zcs_out out;
	struct zcs_sink s;
	uint64_t seq;            /* the next data block's number (its first_sample) */
};

static struct fixture *fixture_new(bool catch_up)
{
	struct fixture *f = calloc(1, sizeof(*f));

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(zcs_out_pool_init(&f->set.pool), 0);
	ck_assert_int_eq(zcs_out_pool_fill(&f->set.pool, 2 * QUEUE), 0);
	f->out.set = &f->set;
	pthread_mutex_init(&f->out.mu, NULL);
	f->s.out = &f->out;
	ck_assert_int_eq(zcs_ring_init(&f->s.q, QUEUE), 0);
	zcs_out_queue_reset(&f->s, catch_up, 0);
	return f;
}

static void fixture_free(struct fixture *f)
{
	struct zcs_block *b;

	while ((b = zcs_ring_pop(&f->s.q)))
		zcs_out_pool_put(&f->set.pool, b);
	zcs_ring_free(&f->s.q);
	pthread_mutex_destroy(&f->out.mu);
	zcs_out_pool_free(&f->set.pool);
	free(f);
}

/* The receive thread's side: one block pushed as queue_block does (the pool's reference is
 * dropped after the push). */
static enum zcs_out_push push(struct fixture *f, enum zcs_block_type type)
{
	struct zcs_block *b = zcs_out_pool_get(&f->set.pool, type);
	enum zcs_out_push r;

	ck_assert(!zcs_out_pool_is_spare(&f->set.pool, b));
	if (type == ZCS_BLOCK_DATA) {
		b->first_sample = f->seq++;
		b->len = 4;
		b->pairs = 1;
	}
	r = zcs_out_queue_push(&f->s, b);
	zcs_out_pool_put(&f->set.pool, b);
	return r;
}

/* The writer's side: the next block delivered (its type and number), the skipped ones added to
 * *skipped; false when the queue is empty. */
static bool pop(struct fixture *f, enum zcs_block_type *type, uint64_t *seq, uint64_t *skipped)
{
	struct zcs_block *b = zcs_out_queue_pop(&f->s, &f->set.pool, skipped);

	if (!b)
		return false;
	*type = b->type;
	*seq = b->first_sample;
	zcs_out_pool_put(&f->set.pool, b);
	return true;
}

/* Pushes data blocks until one is not queued; returns what happened to that one. */
static enum zcs_out_push fill(struct fixture *f)
{
	enum zcs_out_push r;

	while ((r = push(f, ZCS_BLOCK_DATA)) == ZCS_OUT_PUSHED)
		;
	return r;
}

START_TEST(test_full_queue_while_catching_up_skips_at_the_start)
{
	struct fixture *f = fixture_new(true);
	enum zcs_block_type type;
	uint64_t seq, skipped = 0, got = 0, first = UINT64_MAX;

	ck_assert_int_eq(push(f, ZCS_BLOCK_META), ZCS_OUT_PUSHED);
	/* the queue fills while the consumer reads nothing: its data room (less the event's slot),
	 * then a skip */
	ck_assert_int_eq(fill(f), ZCS_OUT_SKIPPED);
	ck_assert_uint_eq(f->s.pushed, DATA_ROOM - 1);
	ck_assert_uint_eq(atomic_load(&f->s.mark), DATA_ROOM - 1);
	ck_assert_int_eq(push(f, ZCS_BLOCK_DATA), ZCS_OUT_SKIPPED);
	/* events still fit in their slots */
	ck_assert_int_eq(push(f, ZCS_BLOCK_GAP), ZCS_OUT_PUSHED);
	/* the consumer starts: the meta event first, then everything queued before the mark is
	 * discarded, the gap event that followed still comes */
	ck_assert(pop(f, &type, &seq, &skipped));
	ck_assert_int_eq(type, ZCS_BLOCK_META);
	ck_assert(pop(f, &type, &seq, &skipped));
	ck_assert_int_eq(type, ZCS_BLOCK_GAP);
	ck_assert_uint_eq(skipped, DATA_ROOM - 1);
	ck_assert(!pop(f, &type, &seq, &skipped));
	/* what comes after is whole: the stream jumped once, past the two skipped at push */
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(push(f, ZCS_BLOCK_DATA), ZCS_OUT_PUSHED);
	while (pop(f, &type, &seq, &skipped)) {
		ck_assert_int_eq(type, ZCS_BLOCK_DATA);
		if (first == UINT64_MAX)
			first = seq;
		ck_assert_uint_eq(seq, first + got);
		got++;
	}
	ck_assert_uint_eq(first, DATA_ROOM - 1 + 2);
	ck_assert_uint_eq(got, 10);
	ck_assert_uint_eq(skipped, DATA_ROOM - 1);
	fixture_free(f);
}
END_TEST

/* The consumer took some before it fell behind: those it keeps, then one jump. */
START_TEST(test_mark_discards_only_what_was_queued_before_it)
{
	struct fixture *f = fixture_new(true);
	enum zcs_block_type type;
	uint64_t seq, skipped = 0, last;

	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(push(f, ZCS_BLOCK_DATA), ZCS_OUT_PUSHED);
	for (uint64_t i = 0; i < 3; i++) {
		ck_assert(pop(f, &type, &seq, &skipped));
		ck_assert_uint_eq(seq, i);
	}
	ck_assert_int_eq(fill(f), ZCS_OUT_SKIPPED);
	ck_assert_uint_eq(atomic_load(&f->s.mark), 3 + DATA_ROOM);
	/* the consumer takes again: everything queued up to the mark goes, less the three it
	 * took before */
	ck_assert(!pop(f, &type, &seq, &skipped));
	ck_assert_uint_eq(skipped, DATA_ROOM);
	/* blocks pushed after the mark are kept */
	last = f->seq;
	ck_assert_int_eq(push(f, ZCS_BLOCK_DATA), ZCS_OUT_PUSHED);
	ck_assert_int_eq(push(f, ZCS_BLOCK_DATA), ZCS_OUT_PUSHED);
	ck_assert(pop(f, &type, &seq, &skipped));
	ck_assert_uint_eq(seq, last);
	ck_assert(pop(f, &type, &seq, &skipped));
	ck_assert_uint_eq(seq, last + 1);
	ck_assert(!pop(f, &type, &seq, &skipped));
	ck_assert_uint_eq(skipped, DATA_ROOM);
	fixture_free(f);
}
END_TEST

START_TEST(test_caught_up_full_queue_is_an_overrun)
{
	struct fixture *f = fixture_new(true);
	enum zcs_block_type type;
	uint64_t seq, skipped = 0, n = 0;

	zcs_out_queue_caught_up_end(&f->s);
	ck_assert_int_eq(fill(f), ZCS_OUT_OVERRUN);
	ck_assert_uint_eq(atomic_load(&f->s.mark), 0);
	/* nothing queued is discarded: the hole is after them, in the middle */
	while (pop(f, &type, &seq, &skipped))
		ck_assert_uint_eq(seq, n++);
	ck_assert_uint_eq(n, DATA_ROOM);
	ck_assert_uint_eq(skipped, 0);
	fixture_free(f);
}
END_TEST

/* Kinds whose consumer is there from the start (file, stdout, sigmf, udp) never catch up. */
START_TEST(test_without_catch_up_full_queue_is_an_overrun)
{
	struct fixture *f = fixture_new(false);

	ck_assert_int_eq(fill(f), ZCS_OUT_OVERRUN);
	ck_assert(!zcs_out_queue_caught_up(&f->s, 0, 0, LATER));
	fixture_free(f);
}
END_TEST

/* A full queue of events is an overrun even while catching up: events are never skipped. */
START_TEST(test_events_are_never_skipped)
{
	struct fixture *f = fixture_new(true);

	for (int i = 0; i < QUEUE; i++)
		ck_assert_int_eq(push(f, ZCS_BLOCK_META), ZCS_OUT_PUSHED);
	ck_assert_int_eq(push(f, ZCS_BLOCK_META), ZCS_OUT_OVERRUN);
	fixture_free(f);
}
END_TEST

START_TEST(test_when_catching_up_ends)
{
	struct fixture *f = fixture_new(true);
	enum zcs_block_type type;
	uint64_t seq, skipped = 0;

	/* right after attach the kernel takes what comes, read or not: not caught up */
	ck_assert(!zcs_out_queue_caught_up(&f->s, 0, 0, LATER));
	f->s.given = ZCS_OUT_CATCHUP_BYTES - 1;
	ck_assert(!zcs_out_queue_caught_up(&f->s, 0, 0, LATER));
	f->s.given = ZCS_OUT_CATCHUP_BYTES;
	/* the kernel still holds a block of it (of a small buffer): not taken */
	ck_assert(!zcs_out_queue_caught_up(&f->s, ZCS_BLOCK_BYTES, 65536, LATER));
	/* half a big send buffer or more: a consumer that does not keep up */
	ck_assert(!zcs_out_queue_caught_up(&f->s, 2 << 20, 4 << 20, LATER));
	/* less than half: what is in flight to one that keeps up, but not before its start-up is
	 * over (SDR++ reads a burst, then slowly for up to 1.8 s) */
	ck_assert(!zcs_out_queue_caught_up(&f->s, (2 << 20) - 1, 4 << 20, LATER - 1));
	ck_assert(zcs_out_queue_caught_up(&f->s, (2 << 20) - 1, 4 << 20, LATER));
	/* something still queued */
	ck_assert_int_eq(push(f, ZCS_BLOCK_DATA), ZCS_OUT_PUSHED);
	ck_assert(!zcs_out_queue_caught_up(&f->s, 0, 0, LATER));
	ck_assert(pop(f, &type, &seq, &skipped));
	ck_assert(zcs_out_queue_caught_up(&f->s, ZCS_BLOCK_BYTES - 1, 0, LATER));
	zcs_out_queue_caught_up_end(&f->s);
	ck_assert(!zcs_out_queue_caught_up(&f->s, 0, 0, LATER));
	/* a new consumer catches up again */
	zcs_out_queue_reset(&f->s, true, 0);
	ck_assert(!zcs_out_queue_caught_up(&f->s, 0, 0, LATER));
	ck_assert_uint_eq(f->s.given, 0);
	fixture_free(f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("out_queue");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_full_queue_while_catching_up_skips_at_the_start);
	tcase_add_test(tc, test_mark_discards_only_what_was_queued_before_it);
	tcase_add_test(tc, test_caught_up_full_queue_is_an_overrun);
	tcase_add_test(tc, test_without_catch_up_full_queue_is_an_overrun);
	tcase_add_test(tc, test_events_are_never_skipped);
	tcase_add_test(tc, test_when_catching_up_ends);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
