// SPDX-License-Identifier: MIT
/* Unit tests for common/util/ring.c: capacity rules, FIFO order, full/empty edges, wrap of the
 * indices, and a two-thread hand-off of 200,000 items in order. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>

#include "ring.h"

START_TEST(test_capacity_rules)
{
	struct zcs_ring r;

	ck_assert_int_eq(zcs_ring_init(&r, 0), -EINVAL);
	ck_assert_int_eq(zcs_ring_init(&r, 1), -EINVAL);
	ck_assert_int_eq(zcs_ring_init(&r, 6), -EINVAL);
	ck_assert_int_eq(zcs_ring_init(&r, 8), 0);
	ck_assert_uint_eq(zcs_ring_capacity(&r), 8);
	zcs_ring_free(&r);
}
END_TEST

START_TEST(test_fill_drain_wrap)
{
	struct zcs_ring r;
	uintptr_t next_in = 1, next_out = 1;

	ck_assert_int_eq(zcs_ring_init(&r, 4), 0);
	ck_assert_ptr_null(zcs_ring_pop(&r));
	/* many rounds so the indices pass the slot count many times over */
	for (int round = 0; round < 100; round++) {
		while (zcs_ring_push(&r, (void *)next_in))
			next_in++;
		ck_assert_uint_eq(zcs_ring_count(&r), 4);
		for (int i = 0; i < 3; i++)
			ck_assert_ptr_eq(zcs_ring_pop(&r), (void *)next_out++);
		ck_assert_uint_eq(zcs_ring_count(&r), 1);
	}
	while (zcs_ring_count(&r))
		ck_assert_ptr_eq(zcs_ring_pop(&r), (void *)next_out++);
	ck_assert_uint_eq(next_in, next_out);
	zcs_ring_free(&r);
}
END_TEST

/* enough to cross the 64 slots thousands of times; yields keep it fast on a loaded machine */
#define HANDOFF_ITEMS 200000u

static void *producer(void *arg)
{
	struct zcs_ring *r = arg;

	for (uintptr_t i = 1; i <= HANDOFF_ITEMS; i++)
		while (!zcs_ring_push(r, (void *)i))
			sched_yield();
	return NULL;
}

START_TEST(test_two_threads_in_order)
{
	struct zcs_ring r;
	pthread_t t;
	uintptr_t expect = 1;

	ck_assert_int_eq(zcs_ring_init(&r, 64), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, producer, &r), 0);
	while (expect <= HANDOFF_ITEMS) {
		void *p = zcs_ring_pop(&r);

		if (p)
			ck_assert_ptr_eq(p, (void *)expect++);
		else
			sched_yield();
	}
	pthread_join(t, NULL);
	ck_assert_ptr_null(zcs_ring_pop(&r));
	zcs_ring_free(&r);
}
END_TEST

static Suite *ring_suite(void)
{
	Suite *s = suite_create("ring");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_capacity_rules);
	tcase_add_test(tc, test_fill_drain_wrap);
	tcase_add_test(tc, test_two_threads_in_order);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ring_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
