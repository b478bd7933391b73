// SPDX-License-Identifier: MIT
/* spread.h: the share of trains a second send thread takes, and /proc/stat's per-CPU lines. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spread.h"

static const char stat_text[] =
	"cpu  400 10 300 5000 20 30 40 5 0 0\n"
	"cpu0 200 5 150 2000 10 30 40 5 0 0\n"
	"cpu1 200 5 150 3000 10 0 0 0 0 0\n"
	"cpu12 1 2 3 4\n"
	"intr 123 4 5 6\n"
	"ctxt 999\n";

START_TEST(parse_lines)
{
	struct zcs_cpu_load l;

	ck_assert_int_eq(zcs_cpu_load_parse(stat_text, 0, &l), 0);
	/* user nice system irq softirq steal; idle and iowait only in the total */
	ck_assert_uint_eq(l.busy, 200 + 5 + 150 + 30 + 40 + 5);
	ck_assert_uint_eq(l.total, l.busy + 2000 + 10);
	ck_assert_int_eq(zcs_cpu_load_parse(stat_text, 1, &l), 0);
	ck_assert_uint_eq(l.busy, 355);
	ck_assert_uint_eq(l.total, 3365);
	/* cpu1 is not cpu12's prefix, nor the other way round; an old kernel's four fields */
	ck_assert_int_eq(zcs_cpu_load_parse(stat_text, 12, &l), 0);
	ck_assert_uint_eq(l.busy, 6);
	ck_assert_uint_eq(l.total, 10);
	ck_assert_int_eq(zcs_cpu_load_parse(stat_text, 2, &l), -ENOENT);
	ck_assert_int_eq(zcs_cpu_load_parse(stat_text, -1, &l), -ENOENT);
	ck_assert_int_eq(zcs_cpu_load_parse("cpu0 1 2 3\n", 0, &l), -EINVAL);
	ck_assert_int_eq(zcs_cpu_load_parse("cpu0 x 2 3 4\n", 0, &l), -EINVAL);
	ck_assert_int_eq(zcs_cpu_load_parse("cpu0", 0, &l), -ENOENT);
	ck_assert_int_eq(zcs_cpu_load_parse("", 0, &l), -ENOENT);
	ck_assert_int_eq(zcs_cpu_load_parse("cpu0 99999999999999999999999 1 2 3\n", 0, &l),
			 -EINVAL);
}
END_TEST

START_TEST(read_from_fd)
{
	char path[] = "/tmp/zcs-spread-XXXXXX";
	const int fd = mkstemp(path);
	const int cpus[2] = { 1, 0 };
	struct zcs_cpu_load l[2];
	struct zcs_cpu_load self;
	const int self_cpu = 0;
	int stat_fd;

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(write(fd, stat_text, strlen(stat_text)), (ssize_t)strlen(stat_text));
	ck_assert_int_eq(zcs_cpu_load_read(fd, cpus, l, 2), 0);
	ck_assert_uint_eq(l[0].busy, 355);
	ck_assert_uint_eq(l[1].busy, 430);
	/* a second read starts from the top again */
	ck_assert_int_eq(zcs_cpu_load_read(fd, cpus, l, 1), 0);
	ck_assert_uint_eq(l[0].busy, 355);
	close(fd);
	ck_assert_int_eq(zcs_cpu_load_read(fd, cpus, l, 1), -EBADF);
	/* the kernel's own file has a cpu0 line */
	stat_fd = open("/proc/stat", O_RDONLY);
	if (stat_fd >= 0) {
		ck_assert_int_eq(zcs_cpu_load_read(stat_fd, &self_cpu, &self, 1), 0);
		ck_assert_uint_ge(self.total, self.busy);
		close(stat_fd);
	}
}
END_TEST

START_TEST(pick_spaces_the_share)
{
	static const unsigned shares[] = { 0, 1, 256, 341, 512, 700, 1023, ZCS_SPREAD_ONE };

	for (size_t i = 0; i < sizeof(shares) / sizeof(shares[0]); i++) {
		struct zcs_spread sp;
		unsigned aside = 0, run = 0, longest = 0;

		zcs_spread_init(&sp, ZCS_SPREAD_ONE / 2);
		sp.share = shares[i];
		for (unsigned n = 0; n < 4 * ZCS_SPREAD_ONE; n++) {
			const bool a = zcs_spread_pick(&sp);

			aside += a;
			run = a ? 0 : run + 1;
			if (run > longest)
				longest = run;
		}
		/* exactly the share, and never more than a share's spacing between two */
		ck_assert_uint_eq(aside, 4 * shares[i]);
		if (shares[i])
			ck_assert_uint_le(longest, ZCS_SPREAD_ONE / shares[i]);
	}
}
END_TEST

START_TEST(starts_at_half)
{
	struct zcs_spread sp;
	unsigned aside = 0;

	zcs_spread_init(&sp, ZCS_SPREAD_ONE / 2);
	ck_assert_uint_eq(sp.share, ZCS_SPREAD_ONE / 2);
	for (int n = 0; n < 10; n++)
		aside += zcs_spread_pick(&sp);
	ck_assert_uint_eq(aside, 5);
}
END_TEST

static struct zcs_cpu_load at(uint64_t busy, uint64_t total)
{
	return (struct zcs_cpu_load){ .busy = busy, .total = total };
}

START_TEST(balance_moves_towards_the_idler_core)
{
	struct zcs_spread sp;
	struct zcs_cpu_load a = at(1000, 2000), b = at(1000, 2000);

	zcs_spread_init(&sp, ZCS_SPREAD_ONE / 2);
	/* the first reading only sets the origin */
	ck_assert(!zcs_spread_balance(&sp, 1, &a, 0, &b, 0));
	ck_assert_uint_eq(sp.share, ZCS_SPREAD_ONE / 2);
	/* the send thread's core 80% busy, the other 40%: more trains aside */
	a = at(1080, 2100), b = at(1040, 2100);
	ck_assert(zcs_spread_balance(&sp, 1, &a, 0, &b, 0));
	ck_assert_uint_gt(sp.share, ZCS_SPREAD_ONE / 2);
	/* the other core the busier (its interrupts): fewer */
	const unsigned up = sp.share;
	a = at(1120, 2200), b = at(1130, 2200);
	ck_assert(zcs_spread_balance(&sp, 1, &a, 0, &b, 0));
	ck_assert_uint_lt(sp.share, up);
	/* equal: stays */
	const unsigned now = sp.share;
	a = at(1170, 2300), b = at(1180, 2300);
	ck_assert(!zcs_spread_balance(&sp, 1, &a, 0, &b, 0));
	ck_assert_uint_eq(sp.share, now);
}
END_TEST

START_TEST(balance_holds_without_an_interval)
{
	struct zcs_spread sp;
	struct zcs_cpu_load a = at(100, 1000), b = at(100, 1000);

	zcs_spread_init(&sp, ZCS_SPREAD_ONE / 2);
	zcs_spread_balance(&sp, 1, &a, 0, &b, 0);
	/* no tick passed */
	ck_assert(!zcs_spread_balance(&sp, 1, &a, 0, &b, 0));
	/* the second send thread moved to another core: a new origin, no move */
	a = at(200, 1100), b = at(100, 1100);
	ck_assert(!zcs_spread_balance(&sp, 1, &a, 2, &b, 0));
	/* both on one core: nothing to balance */
	a = at(300, 1200);
	ck_assert(!zcs_spread_balance(&sp, 1, &a, 1, &a, 0));
	a = at(400, 1300);
	ck_assert(!zcs_spread_balance(&sp, 1, &a, 1, &a, 0));
	/* counters that went back (a core offlined and onlined) */
	a = at(500, 1400), b = at(100, 1400);
	zcs_spread_balance(&sp, 1, &a, 0, &b, 0);
	a = at(10, 100);
	ck_assert(!zcs_spread_balance(&sp, 1, &a, 0, &b, 0));
	ck_assert_uint_eq(sp.share, ZCS_SPREAD_ONE / 2);
}
END_TEST

START_TEST(balance_clamps)
{
	struct zcs_spread sp;
	struct zcs_cpu_load a = at(0, 0), b = at(0, 0);

	zcs_spread_init(&sp, ZCS_SPREAD_ONE / 2);
	zcs_spread_balance(&sp, 1, &a, 0, &b, 0);
	for (int i = 1; i <= 10; i++) {
		a = at(100 * (uint64_t)i, 100 * (uint64_t)i);
		b = at(0, 100 * (uint64_t)i);
		zcs_spread_balance(&sp, 1, &a, 0, &b, 0);
	}
	ck_assert_uint_eq(sp.share, ZCS_SPREAD_ONE);
	for (int i = 11; i <= 20; i++) {
		a = at(1000, 100 * (uint64_t)i);
		b = at(100 * (uint64_t)(i - 10), 100 * (uint64_t)i);
		zcs_spread_balance(&sp, 1, &a, 0, &b, 0);
	}
	ck_assert_uint_eq(sp.share, 0);
}
END_TEST

/* The board as a model: the trains' send work W (of one core) splits by the share, the source
 * thread S and the interrupts I on the second's core (CPU0).  The share settles where both cores
 * carry the same, from half. */
static double settle_floor(double W, double S, double I, unsigned share0, unsigned floor,
			   double *first);

static void settle(double W, double S, double I)
{
	double l1;
	const double l0 = settle_floor(W, S, I, ZCS_SPREAD_ONE / 2, 0, &l1);

	ck_assert_msg(l0 - l1 < 0.03 && l1 - l0 < 0.03, "W %.2f S %.2f I %.2f: cores at %.3f and %.3f",
		      W, S, I, l0, l1);
}

/* The model's run from share0 with the floor: CPU0's load at the end (CPU1's in *first). */
static double settle_floor(double W, double S, double I, unsigned share0, unsigned floor,
			   double *first)
{
	struct zcs_spread sp;
	double busy0 = 0, busy1 = 0, t = 0;
	struct zcs_cpu_load a, b;
	double l0 = 0, l1 = 0;

	zcs_spread_init(&sp, share0);
	a = at(0, 0);
	b = at(0, 0);
	zcs_spread_balance(&sp, 1, &a, 0, &b, floor);
	for (int i = 0; i < 30; i++) {
		const double s = (double)sp.share / ZCS_SPREAD_ONE;

		l1 = W * (1 - s);
		l0 = S + I + W * s;
		if (l0 > 1)
			l0 = 1;
		if (l1 > 1)
			l1 = 1;
		busy1 += 100 * l1;
		busy0 += 100 * l0;
		t += 100;
		a = at((uint64_t)busy1, (uint64_t)t);
		b = at((uint64_t)busy0, (uint64_t)t);
		zcs_spread_balance(&sp, 1, &a, 0, &b, floor);
	}
	*first = l1;
	return l0;
}

START_TEST(balance_settles_with_cpu0s_interrupts)
{
	/* p12 at 30.72 MS/s by the board's projection: send 0.9-1.2 cores, source 0.3-0.4 */
	settle(0.9, 0.3, 0.0);
	settle(1.2, 0.4, 0.1);
	settle(1.0, 0.3, 0.3);
	settle(1.8, 0.1, 0.1);
	settle(0.5, 0.1, 0.0);
}
END_TEST

/* --send-threads auto (a floor of 60%): a send core with room keeps every train; one past the
 * floor hands away what keeps it there while the other core has room, and balances past that */
START_TEST(auto_takes_trains_only_past_the_floor)
{
	const unsigned floor = ZCS_SPREAD_ONE * 6 / 10;
	double l0, l1;

	/* p12 at 20 MS/s on one thread: 0.5 of a core, under the floor: nothing moves */
	l0 = settle_floor(0.5, 0.2, 0.0, 0, floor, &l1);
	ck_assert_msg(l1 > 0.49 && l0 < 0.21, "cores at %.3f and %.3f", l0, l1);
	/* 0.9 of a core: the send core brought down to the floor, the rest on CPU0 */
	l0 = settle_floor(0.9, 0.2, 0.1, 0, floor, &l1);
	ck_assert_msg(l1 < 0.63 && l1 > 0.57 && l0 > 0.55, "cores at %.3f and %.3f", l0, l1);
	/* more than both floors hold: balanced */
	l0 = settle_floor(1.3, 0.3, 0.1, 0, floor, &l1);
	ck_assert_msg(l0 - l1 < 0.03 && l1 - l0 < 0.03, "cores at %.3f and %.3f", l0, l1);
	/* a share left from a busy spell goes back to none when the rate falls */
	l0 = settle_floor(0.4, 0.1, 0.0, ZCS_SPREAD_ONE / 2, floor, &l1);
	ck_assert_msg(l1 > 0.39 && l0 < 0.11, "cores at %.3f and %.3f", l0, l1);
}
END_TEST

START_TEST(init_share)
{
	struct zcs_spread sp;

	zcs_spread_init(&sp, 0);
	for (int n = 0; n < 100; n++)
		ck_assert(!zcs_spread_pick(&sp));
	zcs_spread_init(&sp, 5 * ZCS_SPREAD_ONE);
	ck_assert_uint_eq(sp.share, ZCS_SPREAD_ONE);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("spread");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, parse_lines);
	tcase_add_test(tc, read_from_fd);
	tcase_add_test(tc, pick_spaces_the_share);
	tcase_add_test(tc, starts_at_half);
	tcase_add_test(tc, balance_moves_towards_the_idler_core);
	tcase_add_test(tc, balance_holds_without_an_interval);
	tcase_add_test(tc, balance_clamps);
	tcase_add_test(tc, balance_settles_with_cpu0s_interrupts);
	tcase_add_test(tc, auto_takes_trains_only_past_the_floor);
	tcase_add_test(tc, init_share);
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
