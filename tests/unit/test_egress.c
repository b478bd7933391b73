// SPDX-License-Identifier: MIT
/* Unit tests for sender/sendpath/egress.c's choice of order for `--send-path auto`: fastest first
 * (uring-zc, msg-zc, gso, plain) on every device but the one where copying was counted cheaper
 * than zero-copy, the board's GEM (Linux's macb): there gso, then plain. */
#include <check.h>
#include <stddef.h>

#include "egress.h"
#include "sendpath.h"

static void check_order(const char *driver, const int *want, size_t nwant)
{
	int order[ZCS_PATH_KINDS];
	const size_t n = zcs_egress_path_order(driver, order);

	ck_assert_msg(n == nwant, "%s: %zu paths, want %zu", driver ? driver : "(null)", n, nwant);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(order[i] == want[i], "%s: path %zu is %s, want %s",
			      driver ? driver : "(null)", i, zcs_path_name(order[i]),
			      zcs_path_name(want[i]));
}

START_TEST(test_gem_copies)
{
	static const int want[] = { ZCS_PATH_GSO, ZCS_PATH_PLAIN };

	check_order("macb", want, 2);
}
END_TEST

START_TEST(test_others_fastest_first)
{
	static const int want[] = { ZCS_PATH_URING_ZC, ZCS_PATH_MSG_ZC, ZCS_PATH_GSO,
				    ZCS_PATH_PLAIN };
	/* the model's virtio NIC, a PC's NICs, the driver unknown (qemu-user, no device), and
	 * names that only look like macb's */
	static const char *const drivers[] = { "virtio_net", "e1000e", "igb", "veth", "", NULL,
					       "mac", "macb0", "MACB" };

	for (size_t i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
		check_order(drivers[i], want, 4);
}
END_TEST

static Suite *egress_suite(void)
{
	Suite *s = suite_create("egress");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_gem_copies);
	tcase_add_test(tc, test_others_fastest_first);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(egress_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
