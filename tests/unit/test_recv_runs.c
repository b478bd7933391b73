// SPDX-License-Identifier: MIT
/* Unit tests for receiver/recv_runs.c, zcs-recv's run state: where it lives (beside the key,
 * --run-state, --state-dir, none), what is loaded, when the newest run is saved (another run at once, the same
 * run's metadata number every 10 s and at exit) and a failure that backs off. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recv_opts.h"
#include "recv_runs.h"

#define S (1000ULL * 1000 * 1000)

static char dir[64], key[128], seen_path[160];
static const struct zcs_key the_key = { { 1, 2, 3 } };

static void make_dir(void)
{
	strcpy(dir, "/tmp/zcs-recv-runs-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(key, sizeof(key), "%s/stream.key", dir);
	snprintf(seen_path, sizeof(seen_path), "%s.seen", key);
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_where)
{
	struct zcs_recv_opts o = { .rx.key = &the_key };
	struct zcs_rx_runs r;
	struct zcs_run_seen s;
	char err[256];

	make_dir();
	/* unkeyed: nothing kept */
	ck_assert_int_eq(zcs_recv_runs_open(&r, &o, &s, err, sizeof(err)), 0);
	ck_assert_str_eq(r.path, "");
	o.key_path = key;
	ck_assert_int_eq(zcs_recv_runs_open(&r, &o, &s, err, sizeof(err)), 0);
	ck_assert_str_eq(r.path, seen_path);
	o.run_state = "none";
	ck_assert_int_eq(zcs_recv_runs_open(&r, &o, &s, err, sizeof(err)), 0);
	ck_assert_str_eq(r.path, "");
	o.run_state = "/some/where";
	ck_assert_int_eq(zcs_recv_runs_open(&r, &o, &s, err, sizeof(err)), 0);
	ck_assert_str_eq(r.path, "/some/where");
	/* a corrupt file is refused, naming it */
	{
		FILE *f = fopen(seen_path, "w");

		ck_assert_ptr_nonnull(f);
		fputs("run seven\n", f);
		fclose(f);
	}
	o.run_state = NULL;
	ck_assert_int_lt(zcs_recv_runs_open(&r, &o, &s, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, seen_path));
	/* --state-dir: the key file's name + .seen there, the directory checked at start */
	o.state_dir = dir;
	ck_assert_int_eq(unlink(seen_path), 0);
	ck_assert_int_eq(zcs_recv_runs_open(&r, &o, &s, err, sizeof(err)), 0);
	ck_assert_str_eq(r.path, seen_path);
	o.state_dir = "/nonexistent-zcs-state";
	ck_assert_int_eq(zcs_recv_runs_open(&r, &o, &s, err, sizeof(err)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "--state-dir /nonexistent-zcs-state"));
	o.state_dir = key;        /* a file, not a directory */
	{
		FILE *f = fopen(key, "w");

		ck_assert_ptr_nonnull(f);
		fclose(f);
	}
	ck_assert_int_eq(zcs_recv_runs_open(&r, &o, &s, err, sizeof(err)), -ENOTDIR);
	remove_dir();
}
END_TEST

START_TEST(test_when_saved)
{
	struct zcs_recv_opts o = { .key_path = key, .rx.key = &the_key };
	struct zcs_run_seen a = { .run = 3, .stream_id = 0x11, .meta_seq = 0 }, b = a, back;
	struct zcs_rx_runs r;
	char err[256];

	make_dir();
	ck_assert_int_eq(zcs_recv_runs_open(&r, &o, &back, err, sizeof(err)), 0);
	/* a run followed: at once */
	ck_assert_int_eq(zcs_rx_runs_keep(&r, &a, 100 * S, false, err, sizeof(err)), 1);
	ck_assert_int_eq(zcs_rx_runs_keep(&r, &a, 101 * S, false, err, sizeof(err)), 0);
	/* the run goes on: every 10 s, and at exit */
	a.meta_seq = 20;
	ck_assert_int_eq(zcs_rx_runs_keep(&r, &a, 105 * S, false, err, sizeof(err)), 0);
	ck_assert_int_eq(zcs_rx_runs_keep(&r, &a, 110 * S, false, err, sizeof(err)), 1);
	a.meta_seq = 21;
	ck_assert_int_eq(zcs_rx_runs_keep(&r, &a, 111 * S, true, err, sizeof(err)), 1);
	ck_assert_int_eq(zcs_recv_runs_open(&r, &o, &back, err, sizeof(err)), 1);
	ck_assert_uint_eq(back.run, 3);
	ck_assert_uint_eq(back.meta_seq, 21);
	/* another run: at once, however soon */
	b.run = 4;
	ck_assert_int_eq(zcs_rx_runs_keep(&r, &b, 111 * S, false, err, sizeof(err)), 1);
	/* the directory gone: an error, then no retry for 10 s, then a retry */
	remove_dir();
	b.run = 5;
	ck_assert_int_lt(zcs_rx_runs_keep(&r, &b, 200 * S, false, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, seen_path));
	ck_assert_int_eq(zcs_rx_runs_keep(&r, &b, 201 * S, false, err, sizeof(err)), 0);
	ck_assert_int_lt(zcs_rx_runs_keep(&r, &b, 210 * S, false, err, sizeof(err)), 0);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	ck_assert_int_eq(zcs_rx_runs_keep(&r, &b, 211 * S, true, err, sizeof(err)), 1);
	ck_assert_int_eq(zcs_recv_runs_open(&r, &o, &back, err, sizeof(err)), 1);
	ck_assert_uint_eq(back.run, 5);
	remove_dir();
}
END_TEST

static Suite *recv_runs_suite(void)
{
	Suite *s = suite_create("recv_runs");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_where);
	tcase_add_test(tc, test_when_saved);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(recv_runs_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
