// SPDX-License-Identifier: MIT
/* Unit tests for common/dnssd/dnssd_txt.c: the _zcs._udp TXT record round-trips (IPv4 and IPv6, with
 * and without a control port), keys come in any order, unknown keys are ignored whatever their
 * value, bad values and incomplete records are refused, and nothing in it is the key. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dnssd.h"
#include "wire.h"

static void parse_all(struct zcs_dnssd_stream *s, char txt[][ZCS_DNSSD_TXT_LEN], size_t n)
{
	zcs_dnssd_txt_init(s);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(zcs_dnssd_txt_parse(s, (const uint8_t *)txt[i], strlen(txt[i])), 0);
}

static int parse_one(struct zcs_dnssd_stream *s, const char *kv)
{
	return zcs_dnssd_txt_parse(s, (const uint8_t *)kv, strlen(kv));
}

START_TEST(test_roundtrip_v4)
{
	struct zcs_dnssd_stream s = { .stream_id = 0x89abcdef, .format = ZCS_WIRE_P12,
				      .rate = 30720000, .freq = 2400000000ULL, .keyed = true,
				      .control_port = 5392 }, r;
	char txt[ZCS_DNSSD_TXT_MAX][ZCS_DNSSD_TXT_LEN], err[128];
	size_t n;

	ck_assert_int_eq(zcs_net_parse_addr(&s.dest, "239.1.2.3:5400", 5391, err, sizeof(err)), 0);
	n = zcs_dnssd_txt_build(&s, txt);
	ck_assert_uint_eq(n, 9);
	ck_assert_str_eq(txt[0], "txtvers=1");
	ck_assert_str_eq(txt[1], "id=0x89abcdef");
	ck_assert_str_eq(txt[2], "dest=239.1.2.3");
	ck_assert_str_eq(txt[3], "port=5400");
	ck_assert_str_eq(txt[4], "fmt=p12");
	ck_assert_str_eq(txt[5], "rate=30720000");
	ck_assert_str_eq(txt[6], "freq=2400000000");
	ck_assert_str_eq(txt[7], "keyed=yes");
	ck_assert_str_eq(txt[8], "control=5392");
	parse_all(&r, txt, n);
	ck_assert_int_eq(zcs_dnssd_txt_complete(&r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.stream_id, s.stream_id);
	ck_assert_int_eq(r.format, ZCS_WIRE_P12);
	ck_assert_uint_eq(r.rate, s.rate);
	ck_assert_uint_eq(r.freq, s.freq);
	ck_assert(r.keyed);
	ck_assert_uint_eq(r.control_port, 5392);
	ck_assert_uint_eq(r.dest.len, s.dest.len);
	ck_assert(memcmp(&r.dest.ss, &s.dest.ss, s.dest.len) == 0);
}
END_TEST

START_TEST(test_roundtrip_v6_no_control)
{
	struct zcs_dnssd_stream s = { .stream_id = 7, .format = ZCS_WIRE_I16, .rate = 1000000 }, r;
	char txt[ZCS_DNSSD_TXT_MAX][ZCS_DNSSD_TXT_LEN], err[128];
	size_t n;

	ck_assert_int_eq(zcs_net_parse_addr(&s.dest, "[ff12::77]:22231", 5391, err, sizeof(err)), 0);
	n = zcs_dnssd_txt_build(&s, txt);
	ck_assert_uint_eq(n, 8);
	ck_assert_str_eq(txt[2], "dest=ff12::77");
	ck_assert_str_eq(txt[7], "keyed=no");
	parse_all(&r, txt, n);
	ck_assert_int_eq(zcs_dnssd_txt_complete(&r, err, sizeof(err)), 0);
	ck_assert(zcs_net_is_multicast(&r.dest));
	ck_assert_uint_eq(zcs_net_port(&r.dest), 22231);
	ck_assert(!r.keyed);
	ck_assert_uint_eq(r.control_port, 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(strstr(txt[i], "key=") == NULL || strncmp(txt[i], "keyed=", 6) == 0,
			      "%s", txt[i]);
}
END_TEST

START_TEST(test_order_and_unknown)
{
	struct zcs_dnssd_stream r;
	char err[128];

	zcs_dnssd_txt_init(&r);
	/* port before dest, a boolean attribute, an unknown and an over-long key */
	ck_assert_int_eq(parse_one(&r, "port=6000"), 0);
	ck_assert_int_eq(parse_one(&r, "flag"), 0);
	ck_assert_int_eq(parse_one(&r, "future=whatever"), 0);
	ck_assert_int_eq(parse_one(&r, "averyveryverylongkey=1"), 0);
	/* an unknown key is ignored whatever its value: bytes that are not UTF-8, a NUL, a value
	 * longer than any of ours, or a NUL in the key itself (such an announcement was dropped) */
	ck_assert_int_eq(zcs_dnssd_txt_parse(&r, (const uint8_t *)"note=\xff\xfe\xc3", 8), 0);
	ck_assert_int_eq(zcs_dnssd_txt_parse(&r, (const uint8_t *)"note=a\0b", 8), 0);
	ck_assert_int_eq(zcs_dnssd_txt_parse(&r, (const uint8_t *)"id\0x=zz", 8), 0);
	{
		char longv[300] = "x-future=";

		memset(longv + 9, 0xe9, 250);
		ck_assert_int_eq(parse_one(&r, longv), 0);
	}
	ck_assert_int_ne(zcs_dnssd_txt_complete(&r, err, sizeof(err)), 0);
	ck_assert_int_eq(parse_one(&r, "dest=198.18.0.9"), 0);
	ck_assert_int_ne(zcs_dnssd_txt_complete(&r, err, sizeof(err)), 0);
	ck_assert(strstr(err, "id=") != NULL);
	ck_assert_int_eq(parse_one(&r, "id=0xABCDEF01"), 0);
	ck_assert_int_eq(zcs_dnssd_txt_complete(&r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.stream_id, 0xabcdef01);
	ck_assert_uint_eq(zcs_net_port(&r.dest), 6000);
	ck_assert_int_eq(r.format, -1);
}
END_TEST

START_TEST(test_bad_values)
{
	static const char *const bad[] = {
		"id=12345678", "id=0x", "id=0x123456789", "id=0xzz", "dest=239.1.2", "dest=host.local",
		"port=0", "port=65536", "port=-1", "port=", "fmt=cs16", "rate=x", "freq=-5",
		"keyed=1", "control=0", "control=99999",
	};
	struct zcs_dnssd_stream r;

	zcs_dnssd_txt_init(&r);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(parse_one(&r, bad[i]) == -EINVAL, "%s passed", bad[i]);
	/* a NUL inside the value, and a value longer than any of ours */
	ck_assert_int_eq(zcs_dnssd_txt_parse(&r, (const uint8_t *)"fmt=p1\0", 7), -EINVAL);
	{
		char longv[200] = "rate=";

		memset(longv + 5, '1', 150);
		ck_assert_int_eq(parse_one(&r, longv), -EINVAL);
	}
	/* and nothing of them stuck */
	ck_assert_uint_eq(r.stream_id, 0);
	ck_assert_int_eq(r.format, -1);
	ck_assert_uint_eq(r.control_port, 0);
}
END_TEST

static Suite *dnssd_suite(void)
{
	Suite *s = suite_create("dnssd");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_roundtrip_v4);
	tcase_add_test(tc, test_roundtrip_v6_no_control);
	tcase_add_test(tc, test_order_and_unknown);
	tcase_add_test(tc, test_bad_values);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(dnssd_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
