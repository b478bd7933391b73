// SPDX-License-Identifier: MIT
/* Unit tests for sender/control/ctl_admit.c: sources (IPv4, IPv4-mapped, IPv6 /64), decaying
 * scores, proving the key, each rule of the choice of who gives way, and floods from 40 and from
 * 12,000 addresses that never close a key holder's handshake. */
#include <arpa/inet.h>
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_admit.h"

#define SEC 1000000000ULL

static struct zcs_ctl_admit adm;

static struct zcs_ctl_source src_of(const char *spec)
{
	struct zcs_addr a;
	struct zcs_ctl_source s;
	char err[128];

	ck_assert_msg(zcs_net_parse_addr(&a, spec, 1, err, sizeof(err)) == 0, "%s: %s", spec, err);
	zcs_ctl_admit_source(&a, &s);
	return s;
}

static bool same(struct zcs_ctl_source x, struct zcs_ctl_source y)
{
	return memcmp(&x, &y, sizeof(x)) == 0;
}

START_TEST(test_sources)
{
	ck_assert(same(src_of("198.18.0.7:1"), src_of("198.18.0.7:2")));
	ck_assert(!same(src_of("198.18.0.7:1"), src_of("198.18.0.8:1")));
	ck_assert(same(src_of("[::ffff:198.18.0.7]:1"), src_of("198.18.0.7:1")));
	/* one /64 is one source, whatever address of it a host takes */
	ck_assert(same(src_of("[2001:db8:1:2::1]:1"), src_of("[2001:db8:1:2:ffff::9]:1")));
	ck_assert(!same(src_of("[2001:db8:1:2::1]:1"), src_of("[2001:db8:1:3::1]:1")));
	/* an IPv6 /64 never meets an IPv4 address */
	ck_assert(!same(src_of("[c612:7::]:1"), src_of("198.18.0.7:1")));
}
END_TEST

START_TEST(test_scores)
{
	const struct zcs_ctl_source a = src_of("198.18.0.1:1"), b = src_of("198.18.0.2:1");
	const uint64_t t0 = 1000 * SEC, hl = ZCS_CTL_ADMIT_HALF_LIFE_MS * 1000000ULL;

	ck_assert_int_eq(zcs_ctl_admit_init(&adm), 0);
	ck_assert(zcs_ctl_admit_score(&adm, &a, t0) == 0);
	for (int i = 0; i < 8; i++)
		zcs_ctl_admit_count(&adm, &a, t0);
	zcs_ctl_admit_count(&adm, &b, t0);
	ck_assert(fabs(zcs_ctl_admit_score(&adm, &a, t0) - 8) < 0.01);
	ck_assert(fabs(zcs_ctl_admit_score(&adm, &b, t0) - 1) < 0.01);
	/* halved each half-life */
	ck_assert(fabs(zcs_ctl_admit_score(&adm, &a, t0 + hl) - 4) < 0.05);
	ck_assert(fabs(zcs_ctl_admit_score(&adm, &a, t0 + 3 * hl) - 1) < 0.05);
	/* proving the key uncounts the connection and trusts the source */
	ck_assert(!zcs_ctl_admit_trusted(&adm, &b));
	zcs_ctl_admit_proved(&adm, &b, t0);
	ck_assert(zcs_ctl_admit_score(&adm, &b, t0) < 0.01);
	ck_assert(zcs_ctl_admit_trusted(&adm, &b));
	ck_assert(!zcs_ctl_admit_trusted(&adm, &a));
	/* the trusted table keeps the sources that proved the key last */
	for (int i = 0; i < ZCS_CTL_ADMIT_TRUSTED; i++) {
		char spec[32];
		struct zcs_ctl_source s;

		snprintf(spec, sizeof(spec), "198.18.1.%d:1", i);
		s = src_of(spec);
		zcs_ctl_admit_proved(&adm, &s, t0 + 1 + (uint64_t)i);
	}
	ck_assert(!zcs_ctl_admit_trusted(&adm, &b));
	{
		const struct zcs_ctl_source first = src_of("198.18.1.0:1"),
			last = src_of("198.18.1.15:1");

		ck_assert(zcs_ctl_admit_trusted(&adm, &first) && zcs_ctl_admit_trusted(&adm, &last));
	}
}
END_TEST

START_TEST(test_decide)
{
	const struct zcs_ctl_source busy = src_of("198.18.0.1:1"), quiet = src_of("198.18.0.2:1"),
		new = src_of("198.18.0.3:1"), key = src_of("198.18.0.4:1");
	const uint64_t t = 5000 * SEC;
	struct zcs_ctl_admit_cand c[4];

	ck_assert_int_eq(zcs_ctl_admit_init(&adm), 0);
	/* a free slot */
	ck_assert_int_eq(zcs_ctl_admit_decide(&adm, c, 0, 4, &new, t), ZCS_CTL_ADMIT_TAKE);
	/* one source holding ZCS_CTL_ADMIT_PER_SOURCE: its own oldest, even with slots free */
	for (int i = 0; i < 4; i++)
		c[i] = (struct zcs_ctl_admit_cand){ .src = busy, .since_ns = t - 10 + (uint64_t)(i ^ 2) };
	ck_assert_int_eq(zcs_ctl_admit_decide(&adm, c, 4, 32, &busy, t), 2);
	ck_assert_int_eq(zcs_ctl_admit_decide(&adm, c, 3, 32, &busy, t), ZCS_CTL_ADMIT_TAKE);

	/* full: the busiest source's oldest gives way to a quieter newcomer */
	for (int i = 0; i < 50; i++)
		zcs_ctl_admit_count(&adm, &busy, t);
	zcs_ctl_admit_count(&adm, &quiet, t);
	zcs_ctl_admit_count(&adm, &new, t);
	c[0] = (struct zcs_ctl_admit_cand){ .src = quiet, .since_ns = t - 9 };
	c[1] = (struct zcs_ctl_admit_cand){ .src = busy, .since_ns = t - 5 };
	c[2] = (struct zcs_ctl_admit_cand){ .src = busy, .since_ns = t - 7 };
	c[3] = (struct zcs_ctl_admit_cand){ .src = quiet, .since_ns = t - 1 };
	ck_assert_int_eq(zcs_ctl_admit_decide(&adm, c, 4, 4, &new, t), 2);
	/* the busy source itself: as busy as the busiest held, so the oldest of those goes */
	ck_assert_int_eq(zcs_ctl_admit_decide(&adm, c, 4, 4, &busy, t), 2);
	/* only quiet ones held: the oldest of equals goes for a newcomer as quiet */
	c[1].src = c[2].src = quiet;
	ck_assert_int_eq(zcs_ctl_admit_decide(&adm, c, 4, 4, &new, t), 0);
	/* ... and the busy source, busier than any held, is refused */
	ck_assert_int_eq(zcs_ctl_admit_decide(&adm, c, 4, 4, &busy, t), ZCS_CTL_ADMIT_REFUSE);

	/* a source that proved the key: admitted however busy, and its handshake kept */
	for (int i = 0; i < 80; i++)
		zcs_ctl_admit_count(&adm, &key, t);
	zcs_ctl_admit_proved(&adm, &key, t);
	ck_assert_int_eq(zcs_ctl_admit_decide(&adm, c, 4, 4, &key, t), 0);
	c[0].src = key;
	c[1].src = busy;
	ck_assert_int_eq(zcs_ctl_admit_decide(&adm, c, 4, 4, &busy, t), 1);
	c[1].src = c[2].src = c[3].src = key;
	/* only trusted ones held: an untrusted newcomer waits, a trusted one takes the oldest */
	ck_assert_int_eq(zcs_ctl_admit_decide(&adm, c, 4, 4, &new, t), ZCS_CTL_ADMIT_REFUSE);
	c[0].src = quiet;
	ck_assert_int_eq(zcs_ctl_admit_decide(&adm, c, 4, 4, &new, t), 0);
}
END_TEST

/* 40 addresses open connections without pause, each held until it gives way; a key holder's
 * first connection comes in the middle of it.  It is admitted, and never the one that gives
 * way. */
START_TEST(test_flood)
{
	enum { CAP = 32, ATTACKERS = 40, ARRIVALS = 20000 };
	struct zcs_ctl_admit_cand held[CAP];
	const struct zcs_ctl_source holder = src_of("198.18.9.9:1");
	size_t n = 0;
	uint64_t t = 7000 * SEC;
	long holder_at = -1;
	unsigned taken = 0, refused = 0;

	ck_assert_int_eq(zcs_ctl_admit_init(&adm), 0);
	for (int k = 0; k < ARRIVALS; k++) {
		char spec[32];
		const bool is_holder = k == ARRIVALS / 2;
		struct zcs_ctl_source s;
		long pick;

		snprintf(spec, sizeof(spec), "198.18.0.%d:1", 10 + k % ATTACKERS);
		s = is_holder ? holder : src_of(spec);
		t += 100000;            /* 10,000 connections a second */
		zcs_ctl_admit_count(&adm, &s, t);
		pick = zcs_ctl_admit_decide(&adm, held, n, CAP, &s, t);
		if (pick == ZCS_CTL_ADMIT_REFUSE) {
			ck_assert(!is_holder);
			refused++;
			continue;
		}
		ck_assert_msg(pick != holder_at || holder_at < 0, "the key holder gave way at %d", k);
		if (pick == ZCS_CTL_ADMIT_TAKE)
			pick = (long)n++;
		held[pick] = (struct zcs_ctl_admit_cand){ .src = s, .since_ns = t };
		taken++;
		if (is_holder)
			holder_at = pick;
	}
	ck_assert_int_ge(holder_at, 0);
	ck_assert(same(held[holder_at].src, holder));
	printf("flood of %d: %u taken, %u refused; the key holder kept its slot\n", ARRIVALS,
	       taken, refused);
}
END_TEST

/* Issue 30's flood: 12,000 addresses (47 /24s of 10.20.0.0/16) connect in turn without pause, each
 * held until it gives way, so every cell of the address sketch counts several of them.  A key
 * holder's first connection from a fresh address of another /24 comes in the middle: admitted,
 * and never the one that gives way.  Counted by address alone it looked as busy as any (its
 * cells were full) and was refused. */
START_TEST(test_flood_many_addresses)
{
	enum { CAP = 32, ATTACKERS = 12000, ARRIVALS = 5 * ATTACKERS };
	static const char *const holders[] = { "10.30.0.1:1", "10.20.200.1:1" };
	struct zcs_ctl_admit_cand held[CAP];
	const struct zcs_ctl_source holder = src_of(holders[_i]);
	size_t n = 0;
	uint64_t t = 9000 * SEC;
	long holder_at = -1;
	unsigned taken = 0, refused = 0;

	ck_assert_int_eq(zcs_ctl_admit_init(&adm), 0);
	for (int k = 0; k < ARRIVALS; k++) {
		char spec[32];
		const bool is_holder = k == ARRIVALS / 2;
		const int j = k % ATTACKERS;
		struct zcs_ctl_source s;
		long pick;

		snprintf(spec, sizeof(spec), "10.20.%d.%d:1", j / 254, 1 + j % 254);
		s = is_holder ? holder : src_of(spec);
		t += 100000;            /* 10,000 connections a second */
		zcs_ctl_admit_count(&adm, &s, t);
		pick = zcs_ctl_admit_decide(&adm, held, n, CAP, &s, t);
		if (pick == ZCS_CTL_ADMIT_REFUSE) {
			ck_assert_msg(!is_holder, "the key holder %s was refused", holders[_i]);
			refused++;
			continue;
		}
		ck_assert_msg(pick != holder_at || holder_at < 0, "the key holder gave way at %d", k);
		if (pick == ZCS_CTL_ADMIT_TAKE)
			pick = (long)n++;
		held[pick] = (struct zcs_ctl_admit_cand){ .src = s, .since_ns = t };
		taken++;
		if (is_holder)
			holder_at = pick;
	}
	ck_assert_int_ge(holder_at, 0);
	ck_assert(same(held[holder_at].src, holder));
	printf("flood of %d from %d addresses: %u taken, %u refused; the key holder %s kept its "
	       "slot\n", ARRIVALS, ATTACKERS, taken, refused, holders[_i]);
}
END_TEST

static Suite *admit_suite(void)
{
	Suite *s = suite_create("ctl_admit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_sources);
	tcase_add_test(tc, test_scores);
	tcase_add_test(tc, test_decide);
	tcase_add_test(tc, test_flood);
	tcase_add_loop_test(tc, test_flood_many_addresses, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(admit_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
