// SPDX-License-Identifier: MIT
/* Unit tests for common/wire/seq.h: serial arithmetic around 0, the UINT64_MAX wrap, the 2^63 edge
 * where the signed distance flips sign, and jumps far larger than any reorder window. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "seq.h"

#define HALF (UINT64_C(1) << 63)

START_TEST(test_around_zero)
{
	ck_assert_int_eq(zcs_seq_diff(0, 0), 0);
	ck_assert_int_eq(zcs_seq_diff(1, 0), 1);
	ck_assert_int_eq(zcs_seq_diff(0, 1), -1);
	ck_assert(zcs_seq_after(1, 0));
	ck_assert(zcs_seq_before(0, 1));
	ck_assert(!zcs_seq_before(5, 5));
	ck_assert(!zcs_seq_after(5, 5));
}
END_TEST

START_TEST(test_wrap)
{
	/* 0 follows UINT64_MAX: one step, not 2^64 - 1 backwards */
	ck_assert_int_eq(zcs_seq_diff(0, UINT64_MAX), 1);
	ck_assert_int_eq(zcs_seq_diff(UINT64_MAX, 0), -1);
	ck_assert(zcs_seq_after(0, UINT64_MAX));
	ck_assert(zcs_seq_before(UINT64_MAX, 0));
	ck_assert_int_eq(zcs_seq_diff(5, UINT64_MAX - 4), 10);
	ck_assert(zcs_seq_after(5, UINT64_MAX - 4));
	ck_assert(zcs_seq_before(UINT64_MAX - 4, 5));
	/* walking across the wrap keeps every step +1 */
	for (uint64_t s = UINT64_MAX - 70; s != 70; s++) {
		ck_assert_int_eq(zcs_seq_diff(s + 1, s), 1);
		ck_assert(zcs_seq_after(s + 64, s));
		ck_assert(zcs_seq_before(s - 64, s));
	}
}
END_TEST

START_TEST(test_half_range)
{
	/* |a - b| < 2^63 is exact; at exactly 2^63 the distance is INT64_MIN, "before" both ways */
	ck_assert_int_eq(zcs_seq_diff(HALF - 1, 0), INT64_MAX);
	ck_assert(zcs_seq_after(HALF - 1, 0));
	ck_assert_int_eq(zcs_seq_diff(0, HALF - 1), -INT64_MAX);
	ck_assert(zcs_seq_before(0, HALF - 1));
	ck_assert_int_eq(zcs_seq_diff(HALF, 0), INT64_MIN);
	ck_assert_int_eq(zcs_seq_diff(0, HALF), INT64_MIN);
	ck_assert(zcs_seq_before(HALF, 0));
	ck_assert(zcs_seq_before(0, HALF));
	/* one past the half: the shorter way round wins */
	ck_assert_int_eq(zcs_seq_diff(HALF + 1, 0), -INT64_MAX);
	ck_assert(zcs_seq_before(HALF + 1, 0));
	ck_assert(zcs_seq_after(0, HALF + 1));
	/* the same relations hold at any base, including across the wrap */
	for (uint64_t base = UINT64_MAX - 2; base != 3; base++) {
		ck_assert(zcs_seq_after(base + HALF - 1, base));
		ck_assert(zcs_seq_before(base + HALF + 1, base));
		ck_assert_int_eq(zcs_seq_diff(base + HALF, base), INT64_MIN);
	}
}
END_TEST

START_TEST(test_huge_jumps)
{
	/* a sender restart may jump anywhere: the distance is still exact and antisymmetric */
	static const uint64_t pts[] = {
		0, 1, 1000, UINT64_C(1) << 32, UINT64_C(0x123456789abcdef0), HALF - 2, HALF + 2,
		UINT64_MAX - 1000, UINT64_MAX,
	};

	for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++) {
		for (size_t j = 0; j < sizeof(pts) / sizeof(pts[0]); j++) {
			const uint64_t a = pts[i], b = pts[j];
			const int64_t d = zcs_seq_diff(a, b);

			ck_assert_uint_eq(b + (uint64_t)d, a);
			if (d != INT64_MIN) {
				ck_assert_int_eq(zcs_seq_diff(b, a), -d);
				ck_assert_int_eq(zcs_seq_after(a, b), zcs_seq_before(b, a));
			}
			ck_assert(!(zcs_seq_after(a, b) && zcs_seq_before(a, b)));
			ck_assert_int_eq(zcs_seq_after(a, b) || zcs_seq_before(a, b), a != b);
		}
	}
	ck_assert_int_eq(zcs_seq_diff(1000000, 0), 1000000);
	ck_assert_int_eq(zcs_seq_diff(0, UINT64_C(1) << 62), -(INT64_C(1) << 62));
}
END_TEST

static Suite *seq_suite(void)
{
	Suite *s = suite_create("seq");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_around_zero);
	tcase_add_test(tc, test_wrap);
	tcase_add_test(tc, test_half_range);
	tcase_add_test(tc, test_huge_jumps);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(seq_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
