// SPDX-License-Identifier: MIT
/* Unit tests for receiver/recv_stats.c's live line: it fits the terminal (80 columns, or 60),
 * the loss counters first, cut field by field; without a width every field; the width from the
 * terminal, else $COLUMNS, else 80. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recv_stats.h"

/* A busy stream with every optional field on: parity, keyed failures, age, big counters. */
static void busy(struct zcs_recv_snapshot *c, struct zcs_recv_snapshot *prev)
{
	memset(c, 0, sizeof(*c));
	memset(prev, 0, sizeof(*prev));
	c->t_ns = 2000000000ULL;
	prev->t_ns = 1000000000ULL;
	c->seconds = 12345.6;
	c->locked = c->have_meta = true;
	c->gf.samples = 246913578000ULL;
	prev->gf.samples = c->gf.samples - 20000000;
	c->ro.lost = 1234567;
	c->gf.gap_samples = 592592160;
	c->rx.socket_drops = 1234;
	c->overruns = 133;
	c->rx.invalid = 12;
	c->ro.late = 7;
	c->ro.duplicate = 3;
	c->ro.reordered = 4567;
	c->rx.parity = 9876543;
	c->rx.restored = 4321;
	c->rx.unrecoverable = 2;
	c->rx.invalid_by[ZCS_PERR_AUTH] = 5;
	c->rx.replayed = 1;
	c->rx.have_age = true;
	c->rx.age_ns = 12300000;
	c->depth = 17;
	c->window = 256;
}

static void check_fits(unsigned width)
{
	struct zcs_recv_snapshot c, prev;
	char line[1024];
	const int n = (busy(&c, &prev), zcs_recv_stats_line(line, sizeof(line), &c, &prev, width));

	ck_assert_int_eq(n, (int)strlen(line));
	/* the last column stays free: a line that reaches it wraps on some terminals */
	if (strlen(line) > width - 1)
		ck_abort_msg("width %u: %zu columns: '%s'", width, strlen(line), line);
	/* the loss counters first, all four on an 80- or 60-column terminal */
	if (strncmp(line, "lost 1234567 gap 592592160 sockdrop 1234 overruns 133", 53) != 0)
		ck_abort_msg("width %u: loss counters not first: '%s'", width, line);
	/* cut at a field, never inside one */
	ck_assert_int_ne(line[strlen(line) - 1], ' ');
}

START_TEST(test_fits_80)
{
	check_fits(80);
}
END_TEST

START_TEST(test_fits_60)
{
	check_fits(60);
}
END_TEST

START_TEST(test_no_width_every_field)
{
	struct zcs_recv_snapshot c, prev;
	char line[1024];

	busy(&c, &prev);
	zcs_recv_stats_line(line, sizeof(line), &c, &prev, 0);
	/* a log (journald, a file) gets every field, loss first as on a terminal */
	ck_assert_ptr_nonnull(strstr(line, "20.000 MS/s"));
	ck_assert_ptr_nonnull(strstr(line, "unrecoverable 2"));
	ck_assert_ptr_nonnull(strstr(line, "auth 5 replayed 1"));
	ck_assert_ptr_nonnull(strstr(line, "depth 17/256"));
	ck_assert_ptr_nonnull(strstr(line, "age 12.3 ms"));
	ck_assert(strncmp(line, "lost ", 5) == 0);
	ck_assert_uint_gt(strlen(line), 80);
}
END_TEST

START_TEST(test_rate_before_the_rest)
{
	struct zcs_recv_snapshot c, prev;
	char line[256];

	busy(&c, &prev);
	c.ro.lost = c.gf.gap_samples = c.rx.socket_drops = c.overruns = c.rx.invalid = c.ro.late = 0;
	/* a clean stream on 60 columns: the loss counters, then the rate, which ranks above the
	 * fields shown before it (invalid, late) and takes their place when both do not fit */
	zcs_recv_stats_line(line, sizeof(line), &c, &prev, 60);
	if (strncmp(line, "lost 0 gap 0 sockdrop 0 overruns 0 ", 35) != 0 ||
	    !strstr(line, "| 20.000 MS/s"))
		ck_abort_msg("'%s'", line);
	ck_assert_uint_le(strlen(line), 59);
}
END_TEST

START_TEST(test_waiting_first)
{
	struct zcs_recv_snapshot c;
	char line[256];

	memset(&c, 0, sizeof(c));
	zcs_recv_stats_line(line, sizeof(line), &c, NULL, 60);
	ck_assert(strncmp(line, "(waiting for a stream) lost 0", 29) == 0);
	ck_assert_uint_le(strlen(line), 59);
}
END_TEST

START_TEST(test_width_from_columns)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	/* a pipe is no terminal: $COLUMNS, else 80; nonsense is 80 */
	ck_assert_int_eq(setenv("COLUMNS", "60", 1), 0);
	ck_assert_uint_eq(zcs_recv_stats_width(p[1]), 60);
	ck_assert_int_eq(setenv("COLUMNS", "60x", 1), 0);
	ck_assert_uint_eq(zcs_recv_stats_width(p[1]), 80);
	ck_assert_int_eq(unsetenv("COLUMNS"), 0);
	ck_assert_uint_eq(zcs_recv_stats_width(p[1]), 80);
	close(p[0]);
	close(p[1]);
}
END_TEST

static Suite *recv_stats_suite(void)
{
	Suite *s = suite_create("recv_stats");
	TCase *tc = tcase_create("line");

	tcase_add_test(tc, test_fits_80);
	tcase_add_test(tc, test_fits_60);
	tcase_add_test(tc, test_no_width_every_field);
	tcase_add_test(tc, test_rate_before_the_rest);
	tcase_add_test(tc, test_waiting_first);
	tcase_add_test(tc, test_width_from_columns);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(recv_stats_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
