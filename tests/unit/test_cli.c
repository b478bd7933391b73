// SPDX-License-Identifier: MIT
/* Unit tests for common/cli.c: integers and reals with SI suffixes, exactness of scaled
 * decimals, and every rejection (empty, garbage, negative, NaN/inf, out of range). */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cli.h"

static uint64_t u64_ok(const char *s)
{
	uint64_t v = 12345;
	const int ret = zcs_cli_parse_u64(s, 0, UINT64_MAX, &v);

	ck_assert_msg(ret == 0, "\"%s\": %d", s, ret);
	return v;
}

static void u64_bad(const char *s, uint64_t min, uint64_t max, int want)
{
	uint64_t v = 777;
	const int ret = zcs_cli_parse_u64(s, min, max, &v);

	ck_assert_msg(ret == want, "\"%s\": got %d want %d", s, ret, want);
	ck_assert_msg(v == 777, "\"%s\": output written on failure", s);
}

START_TEST(test_u64_plain_and_suffixes)
{
	ck_assert_uint_eq(u64_ok("0"), 0);
	ck_assert_uint_eq(u64_ok("42"), 42);
	ck_assert_uint_eq(u64_ok("+42"), 42);
	ck_assert_uint_eq(u64_ok("007"), 7);
	ck_assert_uint_eq(u64_ok("20M"), 20000000);
	ck_assert_uint_eq(u64_ok("2.4M"), 2400000);
	ck_assert_uint_eq(u64_ok("915.2M"), 915200000);
	ck_assert_uint_eq(u64_ok("2.4e6"), 2400000);
	ck_assert_uint_eq(u64_ok("1e6"), 1000000);
	ck_assert_uint_eq(u64_ok("1E3"), 1000);
	ck_assert_uint_eq(u64_ok("64k"), 64000);
	ck_assert_uint_eq(u64_ok("64K"), 64000);
	ck_assert_uint_eq(u64_ok("2G"), 2000000000);
	ck_assert_uint_eq(u64_ok("2.4G"), 2400000000);
	ck_assert_uint_eq(u64_ok("30.72M"), 30720000);
	ck_assert_uint_eq(u64_ok("1.5e3k"), 1500000);
	ck_assert_uint_eq(u64_ok(".5k"), 500);
	ck_assert_uint_eq(u64_ok("1500e-3k"), 1500);
	ck_assert_uint_eq(u64_ok("2.000"), 2);
	ck_assert_uint_eq(u64_ok("18446744073709551615"), UINT64_MAX);
	ck_assert_uint_eq(u64_ok("0.0e999"), 0);
}
END_TEST

START_TEST(test_u64_rejects)
{
	u64_bad("", 0, UINT64_MAX, -EINVAL);
	u64_bad(NULL, 0, UINT64_MAX, -EINVAL);
	u64_bad(" 5", 0, UINT64_MAX, -EINVAL);
	u64_bad("5 ", 0, UINT64_MAX, -EINVAL);
	u64_bad("-1", 0, UINT64_MAX, -EINVAL);
	u64_bad("-0", 0, UINT64_MAX, -EINVAL);
	u64_bad("abc", 0, UINT64_MAX, -EINVAL);
	u64_bad("12x", 0, UINT64_MAX, -EINVAL);
	u64_bad("12MM", 0, UINT64_MAX, -EINVAL);
	u64_bad("12m", 0, UINT64_MAX, -EINVAL);
	u64_bad("M", 0, UINT64_MAX, -EINVAL);
	u64_bad(".", 0, UINT64_MAX, -EINVAL);
	u64_bad("1e", 0, UINT64_MAX, -EINVAL);
	u64_bad("1e+", 0, UINT64_MAX, -EINVAL);
	u64_bad("0x10", 0, UINT64_MAX, -EINVAL);
	u64_bad("nan", 0, UINT64_MAX, -EINVAL);
	u64_bad("inf", 0, UINT64_MAX, -EINVAL);
	/* not a whole number after scaling */
	u64_bad("1.5", 0, UINT64_MAX, -EINVAL);
	u64_bad("2.0000005M", 0, UINT64_MAX, -EINVAL);
	u64_bad("1e-1", 0, UINT64_MAX, -EINVAL);
	u64_bad("1500e-3", 0, UINT64_MAX, -EINVAL);
	/* range */
	u64_bad("18446744073709551616", 0, UINT64_MAX, -ERANGE);
	u64_bad("99999999999999999999", 0, UINT64_MAX, -ERANGE);
	u64_bad("19G", 0, UINT32_MAX, -ERANGE);
	u64_bad("1e20", 0, UINT64_MAX, -ERANGE);
	u64_bad("1e9999", 0, UINT64_MAX, -ERANGE);
	u64_bad("0", 1, 10, -ERANGE);
	u64_bad("11", 1, 10, -ERANGE);
}
END_TEST

START_TEST(test_u64_bounds_inclusive)
{
	uint64_t v;

	ck_assert_int_eq(zcs_cli_parse_u64("1", 1, 10, &v), 0);
	ck_assert_uint_eq(v, 1);
	ck_assert_int_eq(zcs_cli_parse_u64("10", 1, 10, &v), 0);
	ck_assert_uint_eq(v, 10);
	ck_assert_int_eq(zcs_cli_parse_u64("61.44M", 1, 61440000, &v), 0);
	ck_assert_uint_eq(v, 61440000);
}
END_TEST

static double dbl_ok(const char *s)
{
	double v = -1;
	const int ret = zcs_cli_parse_double(s, -1e300, 1e300, &v);

	ck_assert_msg(ret == 0, "\"%s\": %d", s, ret);
	return v;
}

static void dbl_bad(const char *s, double min, double max, int want)
{
	double v = 777;
	const int ret = zcs_cli_parse_double(s, min, max, &v);

	ck_assert_msg(ret == want, "\"%s\": got %d want %d", s, ret, want);
	ck_assert(v == 777);
}

START_TEST(test_double)
{
	ck_assert(dbl_ok("0") == 0.0);
	ck_assert(dbl_ok("-3.5") == -3.5);
	ck_assert(dbl_ok("2.4e6") == 2.4e6);
	ck_assert(dbl_ok("915.2M") == 915.2e6);
	ck_assert(dbl_ok("2.4M") == 2.4e6);
	ck_assert(dbl_ok("433.92M") == 433.92e6);
	ck_assert(dbl_ok("1k") == 1000.0);
	ck_assert(dbl_ok("1K") == 1000.0);
	ck_assert(dbl_ok("1.5G") == 1.5e9);
	ck_assert(dbl_ok("1e3k") == 1e6);
	ck_assert(dbl_ok("-10.5") == -10.5);

	dbl_bad("", -1, 1, -EINVAL);
	dbl_bad(NULL, -1, 1, -EINVAL);
	dbl_bad(" 1", -1e9, 1e9, -EINVAL);
	dbl_bad("1 ", -1e9, 1e9, -EINVAL);
	dbl_bad("x", -1e9, 1e9, -EINVAL);
	dbl_bad("1.2.3", -1e9, 1e9, -EINVAL);
	dbl_bad("5MHz", -1e9, 1e12, -EINVAL);
	dbl_bad("5m", -1e9, 1e12, -EINVAL);
	dbl_bad("nan", -1e9, 1e9, -EINVAL);
	dbl_bad("NaN", -1e9, 1e9, -EINVAL);
	dbl_bad("inf", -INFINITY, INFINITY, -EINVAL);
	dbl_bad("-infinity", -INFINITY, INFINITY, -EINVAL);
	dbl_bad("1e999", -INFINITY, INFINITY, -ERANGE);
	dbl_bad("1e308G", -INFINITY, INFINITY, -ERANGE);
	dbl_bad("6.1G", 70e6, 6e9, -ERANGE);
	dbl_bad("69M", 70e6, 6e9, -ERANGE);
}
END_TEST

static Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_u64_plain_and_suffixes);
	tcase_add_test(tc, test_u64_rejects);
	tcase_add_test(tc, test_u64_bounds_inclusive);
	tcase_add_test(tc, test_double);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cli_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
