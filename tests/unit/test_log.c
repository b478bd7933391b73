// SPDX-License-Identifier: MIT
/* Unit tests for common/util/log.c: a line reaches the sink formatted, "WHO: " in front with
 * zcs_log_as, cut (never overrun) at ZCS_LOG_LINE, and nothing happens without a sink. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

struct capture {
	char line[2 * ZCS_LOG_LINE];
	int calls;
};

static void sink(void *ctx, const char *line)
{
	struct capture *c = ctx;

	snprintf(c->line, sizeof(c->line), "%s", line);
	c->calls++;
}

START_TEST(test_log_formats)
{
	struct capture c = { .calls = 0 };
	const struct zcs_log log = { sink, &c };

	zcs_log(&log, "stream 0x%08x: %s", 0x1234u, "end of stream");
	ck_assert_int_eq(c.calls, 1);
	ck_assert_str_eq(c.line, "stream 0x00001234: end of stream");
	zcs_log_as(&log, "fifo:/tmp/x", "reader %s", "came");
	ck_assert_int_eq(c.calls, 2);
	ck_assert_str_eq(c.line, "fifo:/tmp/x: reader came");
}
END_TEST

START_TEST(test_log_cut)
{
	struct capture c = { .calls = 0 };
	const struct zcs_log log = { sink, &c };
	char big[2 * ZCS_LOG_LINE];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	zcs_log_as(&log, "who", "%s", big);
	ck_assert_uint_eq(strlen(c.line), ZCS_LOG_LINE - 1);
	ck_assert(strncmp(c.line, "who: xxx", 8) == 0);
}
END_TEST

START_TEST(test_log_no_sink)
{
	const struct zcs_log none = { NULL, NULL };

	/* neither may crash nor call anything */
	zcs_log(&none, "%s", "dropped");
	zcs_log(NULL, "%s", "dropped");
	zcs_log_as(NULL, "who", "%s", "dropped");
}
END_TEST

static Suite *log_suite(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_log_formats);
	tcase_add_test(tc, test_log_cut);
	tcase_add_test(tc, test_log_no_sink);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(log_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
