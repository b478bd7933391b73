// SPDX-License-Identifier: MIT
/* Unit tests for common/wire/key.c: the key file's text, ssh's mode and owner rules, files
 * that are not regular, --gen-key's file (0600, never replacing or following anything), and where the default key is
 * looked for ($ZCS_KEY, the XDG per-user place, /etc/zcs/key) in a test's own environment. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "key.h"
#include "text.h"

static const char good_hex[] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191A1B1C1D1E1F";

static char dir[64];

static void make_dir(void)
{
	strcpy(dir, "/tmp/zcs-key-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
}

START_TEST(test_parse)
{
	struct zcs_key k;
	char text[80];

	ck_assert_int_eq(zcs_key_parse(&k, good_hex, 64), 0);
	for (int i = 0; i < ZCS_KEY_BYTES; i++)
		ck_assert_uint_eq(k.bytes[i], (unsigned)i);
	snprintf(text, sizeof(text), "%s\n", good_hex);
	ck_assert_int_eq(zcs_key_parse(&k, text, strlen(text)), 0);
	snprintf(text, sizeof(text), "%s\r\n", good_hex);
	ck_assert_int_eq(zcs_key_parse(&k, text, strlen(text)), 0);
	/* one digit short, one too many, a non-digit, two newlines */
	ck_assert_int_eq(zcs_key_parse(&k, good_hex, 63), -EINVAL);
	snprintf(text, sizeof(text), "%s0", good_hex);
	ck_assert_int_eq(zcs_key_parse(&k, text, strlen(text)), -EINVAL);
	snprintf(text, sizeof(text), "%s", good_hex);
	text[10] = 'g';
	ck_assert_int_eq(zcs_key_parse(&k, text, 64), -EINVAL);
	snprintf(text, sizeof(text), "%s\n\n", good_hex);
	ck_assert_int_eq(zcs_key_parse(&k, text, strlen(text)), -EINVAL);
}
END_TEST

START_TEST(test_load_modes)
{
	struct zcs_key k;
	char path[128], err[256], text[80];

	make_dir();
	snprintf(path, sizeof(path), "%s/k", dir);
	snprintf(text, sizeof(text), "%s\n", good_hex);
	write_file(path, text, 0600);
	ck_assert_int_eq(zcs_key_load(&k, path, err, sizeof(err)), 0);
	ck_assert_uint_eq(k.bytes[31], 0x1f);
	write_file(path, text, 0400);
	ck_assert_int_eq(zcs_key_load(&k, path, err, sizeof(err)), 0);
	write_file(path, text, 0640);
	ck_assert_int_eq(zcs_key_load(&k, path, err, sizeof(err)), -EPERM);
	ck_assert_ptr_nonnull(strstr(err, "chmod 600"));
	write_file(path, text, 0604);
	ck_assert_int_eq(zcs_key_load(&k, path, err, sizeof(err)), -EPERM);
	write_file(path, "not a key\n", 0600);
	ck_assert_int_eq(zcs_key_load(&k, path, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "64 hexadecimal digits"));
	snprintf(path, sizeof(path), "%s/missing", dir);
	ck_assert_int_eq(zcs_key_load(&k, path, err, sizeof(err)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, path));
	remove_dir();
}
END_TEST

START_TEST(test_load_owner)
{
	struct zcs_key k;
	char path[128], err[512], text[80];
	int status;
	pid_t pid;

	/* ssh's rule: the owner must be the user running the program or root.  Only root can
	 * give a file away (chown), so the refusal is checked as root; as another user the
	 * test checks that the user's own key loads, which is all it can make. */
	make_dir();
	ck_assert_int_eq(chmod(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/k", dir);
	snprintf(text, sizeof(text), "%s\n", good_hex);
	write_file(path, text, 0600);
	ck_assert_int_eq(zcs_key_load(&k, path, err, sizeof(err)), 0);
	if (geteuid() != 0) {
		remove_dir();
		return;
	}
	/* a key of nobody's, mode 0600: refused by root, naming the file and its owner */
	ck_assert_int_eq(chown(path, 65534, 65534), 0);
	ck_assert_int_eq(zcs_key_load(&k, path, err, sizeof(err)), -EPERM);
	ck_assert_ptr_nonnull(strstr(err, path));
	ck_assert_ptr_nonnull(strstr(err, "owned by uid 65534"));
	ck_assert_ptr_nonnull(strstr(err, "not by this user (uid 0) or root"));
	/* ... and taken by nobody, whose key it is */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(10);
		_exit(zcs_key_load(&k, path, err, sizeof(err)) == 0 ? 0 : 11);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	remove_dir();
}
END_TEST

START_TEST(test_key_id)
{
	struct zcs_key a, b;
	uint8_t ia[ZCS_KEY_ID_BYTES], ia2[ZCS_KEY_ID_BYTES], ib[ZCS_KEY_ID_BYTES];

	/* one key, one id; another key, another id; the id is not the key's bytes */
	ck_assert_int_eq(zcs_key_parse(&a, good_hex, 64), 0);
	b = a;
	b.bytes[31] ^= 1;
	zcs_key_id(&a, ia);
	zcs_key_id(&a, ia2);
	zcs_key_id(&b, ib);
	ck_assert_mem_eq(ia, ia2, sizeof(ia));
	ck_assert(memcmp(ia, ib, sizeof(ia)) != 0);
	ck_assert(memcmp(ia, a.bytes, sizeof(ia)) != 0);
}
END_TEST

START_TEST(test_load_not_regular)
{
	struct zcs_key k;
	char path[128], err[256];

	make_dir();
	/* a FIFO must be refused at once, not wait for a writer */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(zcs_key_load(&k, path, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
	ck_assert_int_eq(zcs_key_load(&k, dir, err, sizeof(err)), -EINVAL);
	remove_dir();
}
END_TEST

START_TEST(test_generate)
{
	struct zcs_key a, b;
	char p1[128], p2[128], link[128], err[256];
	struct stat st;

	make_dir();
	snprintf(p1, sizeof(p1), "%s/a", dir);
	snprintf(p2, sizeof(p2), "%s/b", dir);
	ck_assert_int_eq(zcs_key_generate(p1, err, sizeof(err)), 0);
	ck_assert_int_eq(stat(p1, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(st.st_size, 65);
	ck_assert_int_eq(zcs_key_load(&a, p1, err, sizeof(err)), 0);
	/* never replaces a file */
	ck_assert_int_eq(zcs_key_generate(p1, err, sizeof(err)), -EEXIST);
	ck_assert_int_eq(zcs_key_load(&b, p1, err, sizeof(err)), 0);
	ck_assert_mem_eq(a.bytes, b.bytes, ZCS_KEY_BYTES);
	/* two keys differ */
	ck_assert_int_eq(zcs_key_generate(p2, err, sizeof(err)), 0);
	ck_assert_int_eq(zcs_key_load(&b, p2, err, sizeof(err)), 0);
	ck_assert(memcmp(a.bytes, b.bytes, ZCS_KEY_BYTES) != 0);
	/* a planted symlink is not followed, even to a missing target */
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(p2, sizeof(p2), "%s/target", dir);
	ck_assert_int_eq(symlink(p2, link), 0);
	ck_assert_int_lt(zcs_key_generate(link, err, sizeof(err)), 0);
	ck_assert_int_eq(access(p2, F_OK), -1);
	zcs_key_wipe(&a);
	for (int i = 0; i < ZCS_KEY_BYTES; i++)
		ck_assert_uint_eq(a.bytes[i], 0);
	remove_dir();
}
END_TEST

START_TEST(test_err)
{
	char err[64];

	ck_assert_int_eq(zcs_err(err, sizeof(err), -EINVAL, "bad %d", 7), -EINVAL);
	ck_assert_str_eq(err, "bad 7");
	ck_assert_int_eq(zcs_err(NULL, 0, -ENOENT, "x"), -ENOENT);
	errno = ENOENT;
	ck_assert_int_eq(zcs_err_errno(err, sizeof(err), "open %s", "f"), -ENOENT);
	ck_assert_str_eq(err, "open f: No such file or directory");
}
END_TEST

/* A key file's path with an escape sequence, a newline and a byte that is not UTF-8 in it: every
 * message quotes it escaped, so nothing in a file name steers the terminal (issue 22). */
START_TEST(test_path_escaped)
{
	static const char *const names[] = { "\x1b]0;owned\x07k", "two\nlines", "bad\xff" };
	struct zcs_key k;
	char path[128], err[512], fifo[128];

	make_dir();
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		/* missing, then readable by others, then not a key, then not a regular file */
		ck_assert_int_eq(zcs_key_load(&k, path, err, sizeof(err)), -ENOENT);
		ck_assert_msg(zcs_text_valid(err, strlen(err)), "raw: %s", err);
		ck_assert_ptr_nonnull(strstr(err, "\\x"));
		write_file(path, good_hex, 0644);
		ck_assert_int_eq(zcs_key_load(&k, path, err, sizeof(err)), -EPERM);
		ck_assert_msg(zcs_text_valid(err, strlen(err)), "raw: %s", err);
		write_file(path, "not a key", 0600);
		ck_assert_int_eq(zcs_key_load(&k, path, err, sizeof(err)), -EINVAL);
		ck_assert_msg(zcs_text_valid(err, strlen(err)), "raw: %s", err);
		/* --gen-key never replaces a file: the refusal quotes the path too */
		ck_assert_int_eq(zcs_key_generate(path, err, sizeof(err)), -EEXIST);
		ck_assert_msg(zcs_text_valid(err, strlen(err)), "raw: %s", err);
		unlink(path);
		snprintf(fifo, sizeof(fifo), "%s/%s.fifo", dir, names[i]);
		ck_assert_int_eq(mkfifo(fifo, 0600), 0);
		ck_assert_int_eq(zcs_key_load(&k, fifo, err, sizeof(err)), -EINVAL);
		ck_assert_msg(zcs_text_valid(err, strlen(err)), "raw: %s", err);
		unlink(fifo);
	}
	remove_dir();
}
END_TEST

/* The search in env, expected to give want (1, 0) and, for 1, the path want_path. */
static void expect_default(const struct zcs_key_env *env, int want, const char *want_path)
{
	char path[256], note[256], err[256];
	const int ret = zcs_key_default_path(env, path, sizeof(path), note, sizeof(note), err,
					     sizeof(err));

	ck_assert_int_eq(ret, want);
	if (want == 1)
		ck_assert_str_eq(path, want_path);
}

START_TEST(test_default_order)
{
	char home[128], xdg[128], user[160], homekey[160], sys[160], envkey[160];
	struct zcs_key_env env;
	struct zcs_key k;
	char path[256], err[256];

	make_dir();
	snprintf(home, sizeof(home), "%s/home", dir);
	snprintf(xdg, sizeof(xdg), "%s/xdg", dir);
	snprintf(user, sizeof(user), "%s/zcs/key", xdg);
	snprintf(homekey, sizeof(homekey), "%s/.config/zcs/key", home);
	snprintf(sys, sizeof(sys), "%s/etc-zcs-key", dir);
	snprintf(envkey, sizeof(envkey), "%s/env.key", dir);
	env = (struct zcs_key_env){ .zcs_key = NULL, .xdg_config_home = xdg, .home = home,
				    .system_path = sys };
	/* nothing anywhere: no default key */
	expect_default(&env, 0, NULL);
	/* the system-wide key */
	write_file(sys, good_hex, 0600);
	expect_default(&env, 1, sys);
	/* the per-user one wins: XDG_CONFIG_HOME's, else ~/.config's */
	ck_assert_int_eq(mkdir(home, 0700), 0);
	snprintf(path, sizeof(path), "%s/.config", home);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.config/zcs", home);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	write_file(homekey, good_hex, 0600);
	expect_default(&env, 1, sys);  /* XDG_CONFIG_HOME is set: ~/.config is not looked at */
	env.xdg_config_home = NULL;
	expect_default(&env, 1, homekey);
	env.xdg_config_home = "";            /* empty is unset */
	expect_default(&env, 1, homekey);
	env.xdg_config_home = "relative/xdg"; /* not absolute: invalid, ignored */
	expect_default(&env, 1, homekey);
	env.xdg_config_home = xdg;
	ck_assert_int_eq(mkdir(xdg, 0700), 0);
	snprintf(path, sizeof(path), "%s/zcs", xdg);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	write_file(user, good_hex, 0600);
	expect_default(&env, 1, user);
	/* $ZCS_KEY wins over both, whether or not its file is there; empty is unset */
	env.zcs_key = envkey;
	expect_default(&env, 1, envkey);
	ck_assert_int_eq(zcs_key_load(&k, envkey, err, sizeof(err)), -ENOENT);
	env.zcs_key = "";
	expect_default(&env, 1, user);
	/* "none": no default key, though there are three */
	env.zcs_key = ZCS_KEY_ENV_NONE;
	expect_default(&env, 0, NULL);
	/* no HOME (or a relative one) and no XDG_CONFIG_HOME: the system-wide key */
	env = (struct zcs_key_env){ .zcs_key = NULL, .xdg_config_home = NULL, .home = NULL,
				    .system_path = sys };
	expect_default(&env, 1, sys);
	env.home = "home";
	expect_default(&env, 1, sys);
	remove_dir();
}
END_TEST

START_TEST(test_default_taken)
{
	char xdg[128], user[160], sys[160], target[160];
	struct zcs_key_env env;
	struct zcs_key k;
	char path[256], err[256];

	/* whatever is at the per-user place is taken, and the loader refuses what is wrong with it:
	 * a bad key there never falls through to the system-wide one */
	make_dir();
	snprintf(xdg, sizeof(xdg), "%s/xdg", dir);
	snprintf(user, sizeof(user), "%s/zcs/key", xdg);
	snprintf(sys, sizeof(sys), "%s/sys.key", dir);
	snprintf(target, sizeof(target), "%s/missing", dir);
	write_file(sys, good_hex, 0600);
	env = (struct zcs_key_env){ .zcs_key = NULL, .xdg_config_home = xdg, .home = NULL,
				    .system_path = sys };
	ck_assert_int_eq(mkdir(xdg, 0700), 0);
	snprintf(path, sizeof(path), "%s/zcs", xdg);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	write_file(user, good_hex, 0644);            /* readable by others */
	expect_default(&env, 1, user);
	ck_assert_int_eq(zcs_key_load(&k, user, err, sizeof(err)), -EPERM);
	ck_assert_int_eq(unlink(user), 0);
	ck_assert_int_eq(symlink(target, user), 0);  /* dangling */
	expect_default(&env, 1, user);
	ck_assert_int_eq(zcs_key_load(&k, user, err, sizeof(err)), -ENOENT);
	ck_assert_int_eq(unlink(user), 0);
	ck_assert_int_eq(mkdir(user, 0700), 0);      /* a directory */
	expect_default(&env, 1, user);
	ck_assert_int_eq(zcs_key_load(&k, user, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(rmdir(user), 0);
	/* the system-wide key with the wrong mode is taken too, and refused by the loader */
	ck_assert_int_eq(chmod(sys, 0640), 0);
	expect_default(&env, 1, sys);
	ck_assert_int_eq(zcs_key_load(&k, sys, err, sizeof(err)), -EPERM);
	/* a path that does not fit */
	ck_assert_int_lt(zcs_key_default_path(&env, path, 8, NULL, 0, err, sizeof(err)), 0);
	remove_dir();
}
END_TEST

START_TEST(test_default_system_unreadable)
{
	char sys[160], note[256], path[256], err[256];
	struct zcs_key_env env;
	int status, ret;
	pid_t pid;

	/* the system-wide key is mode 0600: it belongs to one user (a service's); for another user
	 * it is passed over with a note, not an error.  In a child that is not root (root reads
	 * any file): as root, the child becomes nobody; otherwise the file is made unreadable. */
	make_dir();
	ck_assert_int_eq(chmod(dir, 0755), 0);
	snprintf(sys, sizeof(sys), "%s/sys.key", dir);
	write_file(sys, good_hex, 0600);
	if (geteuid() != 0)
		ck_assert_int_eq(chmod(sys, 0), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
			_exit(10);
		env = (struct zcs_key_env){ .zcs_key = NULL, .xdg_config_home = NULL,
					    .home = NULL, .system_path = sys };
		ret = zcs_key_default_path(&env, path, sizeof(path), note, sizeof(note), err,
					   sizeof(err));
		if (ret != 0)
			_exit(11);
		if (!strstr(note, "not readable by this user") || !strstr(note, sys))
			_exit(12);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	remove_dir();
}
END_TEST

START_TEST(test_default_env_get)
{
	struct zcs_key_env env;

	ck_assert_int_eq(setenv("ZCS_KEY", "/x/k", 1), 0);
	ck_assert_int_eq(setenv("XDG_CONFIG_HOME", "/x/cfg", 1), 0);
	ck_assert_int_eq(setenv("HOME", "/x/home", 1), 0);
	zcs_key_env_get(&env);
	ck_assert_str_eq(env.zcs_key, "/x/k");
	ck_assert_str_eq(env.xdg_config_home, "/x/cfg");
	ck_assert_str_eq(env.home, "/x/home");
	ck_assert_str_eq(env.system_path, "/etc/zcs/key");
}
END_TEST

static Suite *key_suite(void)
{
	Suite *s = suite_create("key");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_load_modes);
	tcase_add_test(tc, test_load_owner);
	tcase_add_test(tc, test_key_id);
	tcase_add_test(tc, test_load_not_regular);
	tcase_add_test(tc, test_generate);
	tcase_add_test(tc, test_err);
	tcase_add_test(tc, test_path_escaped);
	tcase_add_test(tc, test_default_order);
	tcase_add_test(tc, test_default_taken);
	tcase_add_test(tc, test_default_system_unreadable);
	tcase_add_test(tc, test_default_env_get);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(key_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
