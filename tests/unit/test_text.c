// SPDX-License-Identifier: MIT
/* Unit tests for common/util/text.c: which strings from outside pass (UTF-8, no controls), and the
 * terminal escape of those that do not. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

static bool valid(const char *s)
{
	return zcs_text_valid(s, strlen(s));
}

START_TEST(test_valid)
{
	ck_assert(valid(""));
	ck_assert(valid("zcs-send 0.1.0 on pluto"));
	ck_assert(valid("caf\xc3\xa9"));                 /* é */
	ck_assert(valid("\xe2\x82\xac"));                /* € */
	ck_assert(valid("\xf0\x9f\x93\xa1"));            /* U+1F4E1 */
	ck_assert(valid("\xef\xbf\xbd"));                /* U+FFFD */
	ck_assert(valid("a\"b\\c"));                      /* JSON escapes these; they are not controls */
	/* every C0 control, DEL, and the C1 controls */
	for (int c = 1; c < 0x20; c++) {
		char s[4] = { 'a', (char)c, 'b', 0 };

		ck_assert_msg(!valid(s), "control 0x%02x passed", c);
	}
	ck_assert(!valid("a\x7f"));
	ck_assert(!valid("\xc2\x80"));                    /* U+0080 */
	ck_assert(!valid("\xc2\x9b[2J"));                 /* CSI */
	ck_assert(valid("\xc2\xa0"));                     /* U+00A0 is printable */
	/* a NUL inside the given length */
	ck_assert(!zcs_text_valid("a\0b", 3));
}
END_TEST

START_TEST(test_malformed)
{
	ck_assert(!valid("\x80"));                        /* lone continuation */
	ck_assert(!valid("\xc3"));                        /* truncated */
	ck_assert(!valid("\xe2\x82"));
	ck_assert(!valid("\xc0\xaf"));                    /* overlong '/' */
	ck_assert(!valid("\xe0\x80\xaf"));
	ck_assert(!valid("\xf0\x80\x80\xaf"));
	ck_assert(!valid("\xed\xa0\x80"));                /* surrogate D800 */
	ck_assert(!valid("\xf4\x90\x80\x80"));            /* U+110000 */
	ck_assert(!valid("\xf5\x80\x80\x80"));
	ck_assert(!valid("\xff"));
	ck_assert(!valid("\xc3\x28"));                    /* bad continuation */
	/* the length is honoured: a sequence cut by len is malformed */
	ck_assert(!zcs_text_valid("\xc3\xa9", 1));
	ck_assert(zcs_text_valid("\xc3\xa9", 2));
}
END_TEST

START_TEST(test_escape)
{
	char out[64];

	ck_assert_str_eq(zcs_text_escape(out, sizeof(out), "plain caf\xc3\xa9"), "plain caf\xc3\xa9");
	ck_assert_str_eq(zcs_text_escape(out, sizeof(out), "a\x1b[2Jb"), "a\\x1b[2Jb");
	ck_assert_str_eq(zcs_text_escape(out, sizeof(out), "x\ny\r"), "x\\x0ay\\x0d");
	ck_assert_str_eq(zcs_text_escape(out, sizeof(out), "\\"), "\\x5c");
	ck_assert_str_eq(zcs_text_escape(out, sizeof(out), "\xc2\x9b"), "\\xc2\\x9b");
	ck_assert_str_eq(zcs_text_escape(out, sizeof(out), "\xff\xc3"), "\\xff\\xc3");
	/* whatever comes out passes the check */
	zcs_text_escape(out, sizeof(out), "\x01\x7f\xe2\x82\xac\xed\xa0\x80");
	ck_assert(valid(out));
	ck_assert_str_eq(out, "\\x01\\x7f\xe2\x82\xac\\xed\\xa0\\x80");
	/* cut at a boundary: never half an escape, never half a character */
	ck_assert_str_eq(zcs_text_escape(out, 6, "ab\x1b"), "ab");
	ck_assert_str_eq(zcs_text_escape(out, 4, "ab\xe2\x82\xac"), "ab");
	ck_assert_str_eq(zcs_text_escape(out, 1, "ab"), "");
}
END_TEST

static Suite *text_suite(void)
{
	Suite *s = suite_create("text");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_valid);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_escape);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(text_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
