// SPDX-License-Identifier: MIT
/* Unit tests for common/util/cli.c: integers and reals with SI suffixes, exactness of scaled
 * decimals, and every rejection (empty, garbage, negative, NaN/inf, out of range). */
#include <check.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cli.h"
#include "err.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* One parser call of row r: ret as wanted, and the output the value on success or untouched (777)
 * on failure.  A macro because the two parsers differ only in the type they write. */
#define CHECK_ROW(parse, T, r) \
	do { \
		T v = 777; \
		const int ret = parse((r)->s, (r)->min, (r)->max, &v); \
		const T want = (r)->ret ? 777 : (r)->v; \
		ck_assert_msg(ret == (r)->ret, "\"%s\": got %d want %d", (r)->s, ret, (r)->ret); \
		ck_assert_msg(v == want, "\"%s\": output %.17g, want %.17g", (r)->s, (double)v, \
			      (double)want); \
	} while (0)

/* A table row for a parser writing a T: input, bounds, and ret with the value on success. */
#define ROW_OF(T) \
	struct { \
		const char *s; \
		T min, max; \
		int ret; \
		T v; \
	}

#define U64_ANY 0, UINT64_MAX

static const ROW_OF(uint64_t) u64s[] = {
	/* plain and with suffixes */
	{ "0", U64_ANY, 0, 0 },
	{ "42", U64_ANY, 0, 42 },
	{ "+42", U64_ANY, 0, 42 },
	{ "007", U64_ANY, 0, 7 },
	{ "20M", U64_ANY, 0, 20000000 },
	{ "2.4M", U64_ANY, 0, 2400000 },
	{ "915.2M", U64_ANY, 0, 915200000 },
	{ "2.4e6", U64_ANY, 0, 2400000 },
	{ "1e6", U64_ANY, 0, 1000000 },
	{ "1E3", U64_ANY, 0, 1000 },
	{ "64k", U64_ANY, 0, 64000 },
	{ "64K", U64_ANY, 0, 64000 },
	{ "2G", U64_ANY, 0, 2000000000 },
	{ "2.4G", U64_ANY, 0, 2400000000 },
	{ "30.72M", U64_ANY, 0, 30720000 },
	{ "1.5e3k", U64_ANY, 0, 1500000 },
	{ ".5k", U64_ANY, 0, 500 },
	{ "1500e-3k", U64_ANY, 0, 1500 },
	{ "2.000", U64_ANY, 0, 2 },
	{ "18446744073709551615", U64_ANY, 0, UINT64_MAX },
	{ "0.0e999", U64_ANY, 0, 0 },
	/* bounds are inclusive */
	{ "1", 1, 10, 0, 1 },
	{ "10", 1, 10, 0, 10 },
	{ "61.44M", 1, 61440000, 0, 61440000 },
	/* rejected */
	{ "", U64_ANY, -EINVAL, 0 },
	{ NULL, U64_ANY, -EINVAL, 0 },
	{ " 5", U64_ANY, -EINVAL, 0 },
	{ "5 ", U64_ANY, -EINVAL, 0 },
	{ "-1", U64_ANY, -EINVAL, 0 },
	{ "-0", U64_ANY, -EINVAL, 0 },
	{ "abc", U64_ANY, -EINVAL, 0 },
	{ "12x", U64_ANY, -EINVAL, 0 },
	{ "12MM", U64_ANY, -EINVAL, 0 },
	{ "12m", U64_ANY, -EINVAL, 0 },
	{ "M", U64_ANY, -EINVAL, 0 },
	{ ".", U64_ANY, -EINVAL, 0 },
	{ "1e", U64_ANY, -EINVAL, 0 },
	{ "1e+", U64_ANY, -EINVAL, 0 },
	{ "0x10", U64_ANY, -EINVAL, 0 },
	{ "nan", U64_ANY, -EINVAL, 0 },
	{ "inf", U64_ANY, -EINVAL, 0 },
	/* not a whole number after scaling */
	{ "1.5", U64_ANY, -EINVAL, 0 },
	{ "2.0000005M", U64_ANY, -EINVAL, 0 },
	{ "1e-1", U64_ANY, -EINVAL, 0 },
	{ "1500e-3", U64_ANY, -EINVAL, 0 },
	/* range */
	{ "18446744073709551616", U64_ANY, -ERANGE, 0 },
	{ "99999999999999999999", U64_ANY, -ERANGE, 0 },
	{ "19G", 0, UINT32_MAX, -ERANGE, 0 },
	{ "1e20", U64_ANY, -ERANGE, 0 },
	{ "1e9999", U64_ANY, -ERANGE, 0 },
	{ "0", 1, 10, -ERANGE, 0 },
	{ "11", 1, 10, -ERANGE, 0 },
};

START_TEST(test_u64)
{
	CHECK_ROW(zcs_cli_parse_u64, uint64_t, &u64s[_i]);
}
END_TEST

#define DBL_ANY -1e300, 1e300

static const ROW_OF(double) dbls[] = {
	{ "0", DBL_ANY, 0, 0.0 },
	{ "-3.5", DBL_ANY, 0, -3.5 },
	{ "2.4e6", DBL_ANY, 0, 2.4e6 },
	{ "915.2M", DBL_ANY, 0, 915.2e6 },
	{ "2.4M", DBL_ANY, 0, 2.4e6 },
	{ "433.92M", DBL_ANY, 0, 433.92e6 },
	{ "1k", DBL_ANY, 0, 1000.0 },
	{ "1K", DBL_ANY, 0, 1000.0 },
	{ "1.5G", DBL_ANY, 0, 1.5e9 },
	{ "1e3k", DBL_ANY, 0, 1e6 },
	{ "-10.5", DBL_ANY, 0, -10.5 },
	/* rejected */
	{ "", -1, 1, -EINVAL, 0 },
	{ NULL, -1, 1, -EINVAL, 0 },
	{ " 1", -1e9, 1e9, -EINVAL, 0 },
	{ "1 ", -1e9, 1e9, -EINVAL, 0 },
	{ "x", -1e9, 1e9, -EINVAL, 0 },
	{ "1.2.3", -1e9, 1e9, -EINVAL, 0 },
	{ "5MHz", -1e9, 1e12, -EINVAL, 0 },
	{ "5m", -1e9, 1e12, -EINVAL, 0 },
	{ "nan", -1e9, 1e9, -EINVAL, 0 },
	{ "NaN", -1e9, 1e9, -EINVAL, 0 },
	{ "inf", -INFINITY, INFINITY, -EINVAL, 0 },
	{ "-infinity", -INFINITY, INFINITY, -EINVAL, 0 },
	{ "1e999", -INFINITY, INFINITY, -ERANGE, 0 },
	{ "1e308G", -INFINITY, INFINITY, -ERANGE, 0 },
	{ "6.1G", 70e6, 6e9, -ERANGE, 0 },
	{ "69M", 70e6, 6e9, -ERANGE, 0 },
};

START_TEST(test_double)
{
	CHECK_ROW(zcs_cli_parse_double, double, &dbls[_i]);
}
END_TEST

/* The shared option messages: the option, the value as given, the reason, the hint; -EINVAL and
 * the output untouched on a refusal. */
START_TEST(test_opt_messages)
{
	char err[128] = "";
	uint64_t v = 777;
	double d = 777;

	ck_assert_int_eq(zcs_cli_opt_u64("--rate", "2.4M", 1, 1000000000, "hint", &v, err,
					 sizeof(err)), 0);
	ck_assert_uint_eq(v, 2400000);
	ck_assert_str_eq(err, "");
	v = 777;
	ck_assert_int_eq(zcs_cli_opt_u64("--rate", "0", 1, 1000000000, "samples per second", &v,
					 err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "--rate '0': out of range (samples per second)");
	ck_assert_uint_eq(v, 777);
	ck_assert_int_eq(zcs_cli_opt_u64("--seed", "x", 0, UINT64_MAX, NULL, &v, err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "--seed 'x': not a number");
	ck_assert_int_eq(zcs_cli_opt_double("--tone", "-100k", -1e9, 1e9, NULL, &d, err,
					    sizeof(err)), 0);
	ck_assert(d == -100000.0);
	ck_assert_int_eq(zcs_cli_opt_double("--amplitude", "1.5", 0, 1, "0..1", &d, err,
					    sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "--amplitude '1.5': out of range (0..1)");
	ck_assert(d == -100000.0);
	{
		const char *path = "kept";

		ck_assert_int_eq(zcs_cli_opt_path("--key", "", &path, err, sizeof(err)), -EINVAL);
		ck_assert_str_eq(err, "--key '': empty file name");
		ck_assert_str_eq(path, "kept");
		ck_assert_int_eq(zcs_cli_opt_path("--key", "k.key", &path, err, sizeof(err)), 0);
		ck_assert_str_eq(path, "k.key");
	}
	ck_assert_int_eq(zcs_err(err, sizeof(err), -EINVAL, "--x '%s': %s", "y",
				 zcs_cli_why(-ERANGE)), -EINVAL);
	ck_assert_str_eq(err, "--x 'y': out of range");
	ck_assert_str_eq(zcs_cli_why(-EINVAL), "not a number");
	/* a message longer than err is cut, never overrun */
	ck_assert_int_eq(zcs_err(err, 8, -EINVAL, "%s", "0123456789"), -EINVAL);
	ck_assert_str_eq(err, "0123456");
}
END_TEST

/* zcs_cli_getopt: a table like the programs' (a letter, a long-only code above 255, values). */
enum { OPT_JSON = 256, OPT_WINDOW };
static const struct option opts[] = {
	{ "quiet", no_argument, NULL, 'q' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ NULL, 0, NULL, 0 },
};

struct seen {
	char log[128];
};

static int take(void *ctx, int c, const char *arg, char *err, size_t errlen)
{
	struct seen *s = ctx;
	const size_t n = strlen(s->log);

	(void)err;
	(void)errlen;
	snprintf(s->log + n, sizeof(s->log) - n, "%d=%s;", c, arg ? arg : "");
	return c == 'q' && arg ? -EIO : 0; /* never: q takes no value */
}

/* argv for getopt: it permutes, so each call gets a fresh writable copy */
static int run(const char *const *args, struct seen *s, int *next, char *err, size_t errlen)
{
	char *argv[16];
	static char store[16][64];
	int argc = 0;

	argv[argc++] = strcpy(store[0], "prog");
	for (; args[argc - 1]; argc++)
		argv[argc] = strcpy(store[argc], args[argc - 1]);
	argv[argc] = NULL;
	memset(s, 0, sizeof(*s));
	err[0] = '\0';
	return zcs_cli_getopt(argc, argv, "qo:", opts, take, s, next, err, errlen);
}

START_TEST(test_getopt_loop)
{
	const char *ok[] = { "-q", "--output=x", "dest", "--json", "--window", "8", NULL };
	struct seen s;
	char err[128];
	int next = -1;

	ck_assert_int_eq(run(ok, &s, &next, err, sizeof(err)), 0);
	ck_assert_str_eq(s.log, "113=;111=x;256=;257=8;");
	ck_assert_int_eq(next, 6); /* GNU getopt moved the operand behind the options */
}
END_TEST

/* Regression quiet_eq_1: "--quiet=1" said "unknown option '-q'", and a long-only option given a
 * value printed its code as a raw control byte.  Each refusal names the option as typed. */
START_TEST(test_getopt_quiet_eq_1)
{
	static const struct {
		const char *args[4];
		const char *want;
	} cases[] = {
		{ { "--quiet=1" }, "option '--quiet' takes no value (given '--quiet=1'; see --help)" },
		{ { "--json=1" }, "option '--json' takes no value (given '--json=1'; see --help)" },
		{ { "--bogus=2" }, "unknown option '--bogus' (see --help)" },
		{ { "-x" }, "unknown option '-x' (see --help)" },
		{ { "--json", "-qx" }, "unknown option '-x' (see --help)" },
		{ { "--window" }, "option '--window' needs a value (see --help)" },
		{ { "--output" }, "option '--output' needs a value (see --help)" },
		{ { "-qo" }, "option '-o' needs a value (see --help)" },
	};

	for (size_t i = 0; i < NELEM(cases); i++) {
		struct seen s;
		char err[128];
		int next = -1;

		ck_assert_int_eq(run(cases[i].args, &s, &next, err, sizeof(err)), -EINVAL);
		ck_assert_str_eq(err, cases[i].want);
		for (const char *p = err; *p; p++)
			ck_assert_msg((unsigned char)*p >= 0x20, "control byte in \"%s\"", err);
	}
}
END_TEST

static Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("parse");

	tcase_add_loop_test(tc, test_u64, 0, (int)NELEM(u64s));
	tcase_add_loop_test(tc, test_double, 0, (int)NELEM(dbls));
	tcase_add_test(tc, test_opt_messages);
	tcase_add_test(tc, test_getopt_loop);
	tcase_add_test(tc, test_getopt_quiet_eq_1);
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
