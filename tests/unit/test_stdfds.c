// SPDX-License-Identifier: MIT
/* Unit tests for common/util/stdfds.c: closed standard descriptors get /dev/null, open ones are left
 * alone.  Each case runs in a child, which may close its own fds 0-2. */
#include <check.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stdfds.h"

/* Whether fd is open on /dev/null, with the access mode wanted. */
static bool is_null(int fd, int mode)
{
	struct stat a, b;
	const int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && (fl & O_ACCMODE) == mode && fstat(fd, &a) == 0 &&
	       stat("/dev/null", &b) == 0 && S_ISCHR(a.st_mode) && a.st_rdev == b.st_rdev;
}

/* Runs in a child: closes the fds in mask, guards, and exits 0 when all went as expected. */
static int child(int mask)
{
	char err[128];
	int got;

	for (int fd = 0; fd <= 2; fd++)
		if (mask & (1 << fd))
			close(fd);
	got = zcs_stdfds_guard(err, sizeof(err));
	if (got != mask)
		return 1;
	if ((mask & 1) && !is_null(0, O_RDONLY))
		return 2;
	for (int fd = 1; fd <= 2; fd++)
		if ((mask & (1 << fd)) && !is_null(fd, O_WRONLY))
			return 3;
	/* the next descriptor is above the standard ones: a socket can no longer become stdin */
	got = open("/dev/null", O_RDONLY);
	return got > 2 ? 0 : 4;
}

START_TEST(test_guard)
{
	/* every combination of closed standard fds, none included */
	const int mask = _i;
	const pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(child(mask));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "mask %d: child status %d",
		      mask, status);
}
END_TEST

static Suite *stdfds_suite(void)
{
	Suite *s = suite_create("stdfds");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_guard, 0, 8);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(stdfds_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
