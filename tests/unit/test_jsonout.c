// SPDX-License-Identifier: MIT
/* Unit tests for the JSON writers: common/util/jsonout.c (one line, escaped, rounded, bounded) and
 * zcs-recv's statistics object (receiver/recv_stats.c), whose strings come from outside. */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"
#include "recv_stats.h"

START_TEST(test_line_escapes)
{
	char buf[256];
	json_t *o = json_object();
	json_t *back;
	json_error_t e;
	int n;

	ck_assert_int_eq(zcs_json_set(o, "s", json_string("a\"b\\c\nd\x01{\"type\":\"summary\"}")), 0);
	ck_assert_int_eq(zcs_json_set(o, "n", zcs_json_u64(UINT64_MAX)), 0);
	n = zcs_json_line(buf, sizeof(buf), o);
	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq(strlen(buf), (size_t)n);
	/* one line: the newline and the control byte are escaped, not written */
	ck_assert_ptr_null(strchr(buf, '\n'));
	ck_assert_ptr_null(strchr(buf, '\x01'));
	back = json_loads(buf, 0, &e);
	ck_assert_ptr_nonnull(back);
	ck_assert_str_eq(json_string_value(json_object_get(back, "s")),
			 "a\"b\\c\nd\x01{\"type\":\"summary\"}");
	ck_assert(json_integer_value(json_object_get(back, "n")) == INT64_MAX);
	json_decref(back);
}
END_TEST

START_TEST(test_reals)
{
	char buf[128];
	json_t *o = json_object();

	zcs_json_set(o, "a", zcs_json_real(1.5, 3));
	zcs_json_set(o, "b", zcs_json_real(0.1 + 0.2, 4));
	zcs_json_set(o, "c", zcs_json_real(-0.00001, 3));
	zcs_json_set(o, "d", zcs_json_real(0.0 / 0.0, 3));
	zcs_json_set(o, "e", zcs_json_real(2.0 / 3.0, 6));
	ck_assert_int_gt(zcs_json_line(buf, sizeof(buf), o), 0);
	ck_assert_str_eq(buf, "{\"a\":1.5,\"b\":0.3,\"c\":0.0,\"d\":null,\"e\":0.666667}");
}
END_TEST

START_TEST(test_bounded)
{
	char buf[16];
	json_t *o = json_object();

	/* strings json_string refuses (not UTF-8) give NULL, and set says so */
	ck_assert_int_eq(zcs_json_set(o, "bad", json_string("\xff")), -1);
	zcs_json_set(o, "long", json_string("more than sixteen bytes"));
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(zcs_json_line(buf, sizeof(buf), o), -1);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(zcs_json_line(buf, sizeof(buf), NULL), -1);
	o = json_object();
	ck_assert_int_eq(zcs_json_line(buf, 3, o), 2);
	ck_assert_str_eq(buf, "{}");
}
END_TEST

/* An output's name is the user's spec, which may hold anything: the statistics line stays one
 * JSON object with every key. */
START_TEST(test_recv_stats)
{
	static struct zcs_recv_snapshot c;
	static char buf[8192];
	json_t *doc, *outs;
	json_error_t e;

	memset(&c, 0, sizeof(c));
	c.seconds = 2.5;
	c.locked = true;
	c.stream_id = 0xabcd;
	c.have_meta = true;
	c.rate = 1000000;
	c.gf.samples = 42;
	c.rx.invalid_by[ZCS_PERR_BAD_META] = 7;
	c.nout = 2;
	snprintf(c.out[0].name, sizeof(c.out[0].name), "file:a\n{\"type\":\"summary\"}");
	snprintf(c.out[1].name, sizeof(c.out[1].name), "file:\xff");
	c.ended_by = "eos";
	ck_assert_int_gt(zcs_recv_stats_json(buf, sizeof(buf), &c, NULL, true), 0);
	ck_assert_ptr_null(strchr(buf, '\n'));
	doc = json_loads(buf, JSON_REJECT_DUPLICATES, &e);
	ck_assert_msg(doc != NULL, "%s: %s", buf, e.text);
	ck_assert_str_eq(json_string_value(json_object_get(doc, "type")), "summary");
	ck_assert_str_eq(json_string_value(json_object_get(doc, "ended_by")), "eos");
	ck_assert_str_eq(json_string_value(json_object_get(doc, "stream")), "0x0000abcd");
	ck_assert(json_integer_value(json_object_get(doc, "samples")) == 42);
	ck_assert(json_integer_value(json_object_get(json_object_get(doc, "invalid_by"),
						     "bad_meta")) == 7);
	ck_assert(json_real_value(json_object_get(doc, "seconds")) == 2.5);
	ck_assert(json_is_null(json_object_get(doc, "age_ms")));
	outs = json_object_get(doc, "outputs");
	ck_assert_uint_eq(json_array_size(outs), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(outs, 0), "name")),
			 "file:a\n{\"type\":\"summary\"}");
	ck_assert(json_is_null(json_object_get(json_array_get(outs, 1), "name")));
	json_decref(doc);
}
END_TEST

static Suite *jsonout_suite(void)
{
	Suite *s = suite_create("jsonout");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_line_escapes);
	tcase_add_test(tc, test_reals);
	tcase_add_test(tc, test_bounded);
	tcase_add_test(tc, test_recv_stats);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(jsonout_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
