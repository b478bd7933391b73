// SPDX-License-Identifier: MIT
/* Unit tests for common/wire/runstate.c and common/util/statefile.c: the sender's run counter
 * (missing, advanced, corrupt, at its largest, a hostile path, a directory it cannot write,
 * another user's file), the receiver's record of the newest run followed (never lowered by a
 * writer holding an older one, two writers under the file's lock), and the freshness rule both
 * sides rest on. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runstate.h"
#include "statefile.h"

static char dir[64];
static char path[128];
/* the id of the key the records are kept for (any 8 bytes: zcs_key_id's are tested below) */
static const uint8_t kid[ZCS_KEY_ID_BYTES] = { 0x5e, 0xc0, 0x01, 0x02, 0x03, 0x04, 0x05, 0xff };

static void make_dir(void)
{
	strcpy(dir, "/tmp/zcs-runstate-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/stream.key.run", dir);
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void write_file(const char *p, const char *text, mode_t mode)
{
	const int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
}

static void read_back(const char *p, char *buf, size_t cap)
{
	const int fd = open(p, O_RDONLY);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, cap - 1);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	close(fd);
}

/* Files in dir: what a failed write must not leave behind (its temporary file). */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

START_TEST(test_state_path)
{
	char p[64];

	/* beside the key, or in --state-dir under the key file's own name */
	ck_assert_int_eq(zcs_run_state_path(p, sizeof(p), NULL, "/etc/zcs/stream.key", ".run"), 0);
	ck_assert_str_eq(p, "/etc/zcs/stream.key.run");
	ck_assert_int_eq(zcs_run_state_path(p, sizeof(p), "/var/lib/zcs", "/etc/zcs/key", ".seen"),
			 0);
	ck_assert_str_eq(p, "/var/lib/zcs/key.seen");
	ck_assert_int_eq(zcs_run_state_path(p, sizeof(p), "/var/lib/zcs/", "stream.key", ".run"),
			 0);
	ck_assert_str_eq(p, "/var/lib/zcs/stream.key.run");
	ck_assert_int_eq(zcs_run_state_path(p, 20, "/var/lib/zcs", "/etc/zcs/key", ".seen"),
			 -ENAMETOOLONG);
}
END_TEST

START_TEST(test_counter_parse)
{
	uint64_t v;

	ck_assert_int_eq(zcs_run_counter_parse("7\n", 2, &v), 0);
	ck_assert_uint_eq(v, 7);
	ck_assert_int_eq(zcs_run_counter_parse("0", 1, &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(zcs_run_counter_parse("18446744073709551615", 20, &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	/* one past, a sign, a space, a second line, hex, nothing */
	ck_assert_int_eq(zcs_run_counter_parse("18446744073709551616", 20, &v), -EINVAL);
	ck_assert_int_eq(zcs_run_counter_parse("+7", 2, &v), -EINVAL);
	ck_assert_int_eq(zcs_run_counter_parse(" 7", 2, &v), -EINVAL);
	ck_assert_int_eq(zcs_run_counter_parse("7\n\n", 3, &v), -EINVAL);
	ck_assert_int_eq(zcs_run_counter_parse("0x7", 3, &v), -EINVAL);
	ck_assert_int_eq(zcs_run_counter_parse("\n", 1, &v), -EINVAL);
	ck_assert_int_eq(zcs_run_counter_parse("", 0, &v), -EINVAL);
}
END_TEST

START_TEST(test_counter_missing_then_advanced)
{
	char err[256], text[64];
	struct stat st;
	uint64_t run = 0;

	make_dir();
	ck_assert_int_eq(zcs_run_counter_next(path, &run, err, sizeof(err)), 1);
	ck_assert_uint_eq(run, 1);
	read_back(path, text, sizeof(text));
	ck_assert_str_eq(text, "1\n");
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(zcs_run_counter_next(path, &run, err, sizeof(err)), 0);
	ck_assert_uint_eq(run, 2);
	/* a user may set it by hand, above what receivers have seen */
	write_file(path, "1000", 0644);
	ck_assert_int_eq(zcs_run_counter_next(path, &run, err, sizeof(err)), 0);
	ck_assert_uint_eq(run, 1001);
	read_back(path, text, sizeof(text));
	ck_assert_str_eq(text, "1001\n");
	ck_assert_int_eq(entries(), 1);
	remove_dir();
}
END_TEST

START_TEST(test_counter_corrupt)
{
	static const char *const bad[] = { "", "abc\n", "12 13\n", "-1\n", "99999999999999999999\n",
					   "7\n8\n" };
	char err[256], text[64];
	uint64_t run = 42;

	make_dir();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(path, bad[i], 0600);
		ck_assert_int_eq(zcs_run_counter_next(path, &run, err, sizeof(err)), -EINVAL);
		ck_assert_ptr_nonnull(strstr(err, path));
		ck_assert_ptr_nonnull(strstr(err, "corrupt"));
		read_back(path, text, sizeof(text));
		ck_assert_str_eq(text, bad[i]);   /* untouched */
		ck_assert_uint_eq(run, 42);
	}
	/* binary, and longer than any state file */
	{
		const int fd = open(path, O_WRONLY | O_TRUNC);

		ck_assert_int_eq(write(fd, "1\0002\n", 4), 4);
		close(fd);
	}
	ck_assert_int_eq(zcs_run_counter_next(path, &run, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "binary"));
	{
		char big[ZCS_STATEFILE_MAX + 8];

		memset(big, '1', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		write_file(path, big, 0600);
	}
	ck_assert_int_eq(zcs_run_counter_next(path, &run, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "too long"));
	/* at its largest: never wraps to 0 */
	write_file(path, "18446744073709551615\n", 0600);
	ck_assert_int_eq(zcs_run_counter_next(path, &run, err, sizeof(err)), -ERANGE);
	ck_assert_uint_eq(run, 42);
	ck_assert_int_eq(entries(), 1);
	remove_dir();
}
END_TEST

START_TEST(test_counter_hostile_path)
{
	char err[256], target[160], text[64];
	uint64_t run = 0;

	make_dir();
	/* a symlink to a file the program must not read nor replace through it */
	snprintf(target, sizeof(target), "%s/elsewhere", dir);
	write_file(target, "5\n", 0600);
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(zcs_run_counter_next(path, &run, err, sizeof(err)), -ELOOP);
	ck_assert_ptr_nonnull(strstr(err, "symbolic link"));
	read_back(target, text, sizeof(text));
	ck_assert_str_eq(text, "5\n");
	ck_assert_int_eq(unlink(path), 0);
	/* a FIFO: refused at once, no hang */
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(zcs_run_counter_next(path, &run, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
	ck_assert_int_eq(unlink(path), 0);
	/* a directory */
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(zcs_run_counter_next(path, &run, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(rmdir(path), 0);
	/* writable by others: anyone could set the board's counter */
	write_file(path, "5\n", 0666);
	ck_assert_int_eq(zcs_run_counter_next(path, &run, err, sizeof(err)), -EPERM);
	ck_assert_ptr_nonnull(strstr(err, "chmod go-w"));
	ck_assert_int_eq(unlink(path), 0);
	/* a planted temporary name is never written: each write makes a new random one */
	snprintf(target, sizeof(target), "%s.tmp-XXXXXX", path);
	write_file(target, "planted", 0600);
	ck_assert_int_eq(zcs_run_counter_next(path, &run, err, sizeof(err)), 1);
	read_back(target, text, sizeof(text));
	ck_assert_str_eq(text, "planted");
	remove_dir();
}
END_TEST

START_TEST(test_counter_not_writable)
{
	char err[256], p[192], text[64];
	uint64_t run = 0;
	pid_t pid;
	int status;

	make_dir();
	/* a directory that does not exist, and a "directory" that is a file */
	snprintf(p, sizeof(p), "%s/missing/stream.key.run", dir);
	ck_assert_int_eq(zcs_run_counter_next(p, &run, err, sizeof(err)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, p));
	snprintf(p, sizeof(p), "%s/file", dir);
	write_file(p, "", 0600);
	snprintf(p, sizeof(p), "%s/file/stream.key.run", dir);
	ck_assert_int_eq(zcs_run_counter_next(p, &run, err, sizeof(err)), -ENOTDIR);
	/* a directory the program may not write (root may write anywhere: as nobody then) */
	write_file(path, "3\n", 0644);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
			_exit(3);
		if (geteuid() != 0)
			ck_assert_int_eq(chmod(dir, 0555) == 0 || errno == EPERM, 1);
		_exit(zcs_run_counter_next(path, &run, err, sizeof(err)) == -EACCES &&
		      strstr(err, path) ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_eq(chmod(dir, 0700), 0);
	read_back(path, text, sizeof(text));
	ck_assert_str_eq(text, "3\n");
	ck_assert_int_eq(entries(), 2);   /* "file" and the counter: no temporary left */
	remove_dir();
}
END_TEST

START_TEST(test_state_owner)
{
	const struct zcs_run_seen s = { .run = 7, .stream_id = 1, .salt = { 1 }, .meta_seq = 2 };
	char err[512], seen[160], text[128];
	struct zcs_run_seen r;
	uint64_t run = 0;

	/* a counter or a run state another user owns is theirs to rewrite, whatever its mode:
	 * refused, naming the file and the owner, and left as it was.  Only root can give a file
	 * away (chown); as another user the test checks the user's own files only. */
	make_dir();
	snprintf(seen, sizeof(seen), "%s/stream.key.seen", dir);
	write_file(path, "3\n", 0600);
	zcs_run_seen_format(&s, kid, text, sizeof(text));
	write_file(seen, text, 0600);
	ck_assert_int_eq(zcs_run_seen_load(seen, kid, &r, err, sizeof(err)), 1);
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
		ck_assert_int_eq(zcs_run_counter_next(path, &run, err, sizeof(err)), -EPERM);
		ck_assert_ptr_nonnull(strstr(err, path));
		ck_assert_ptr_nonnull(strstr(err, "owned by uid 65534"));
		read_back(path, text, sizeof(text));
		ck_assert_str_eq(text, "3\n");
		ck_assert_int_eq(chown(seen, 65534, 65534), 0);
		ck_assert_int_eq(zcs_run_seen_load(seen, kid, &r, err, sizeof(err)), -EPERM);
		ck_assert_ptr_nonnull(strstr(err, seen));
		ck_assert_ptr_nonnull(strstr(err, "owned by uid 65534"));
		ck_assert_int_eq(chown(path, 0, 0), 0);
	}
	ck_assert_int_eq(zcs_run_counter_next(path, &run, err, sizeof(err)), 0);
	ck_assert_uint_eq(run, 4);
	remove_dir();
}
END_TEST

START_TEST(test_seen_round_trip)
{
	const struct zcs_run_seen s = { .run = 12, .stream_id = 0x1a2b3c4d,
					.salt = { 0, 1, 2, 0xab, 0xcd, 0xef, 0x10, 0xff },
					.meta_seq = UINT64_MAX };
	uint8_t id[ZCS_KEY_ID_BYTES];
	struct zcs_run_seen r;
	char text[128], err[256];
	bool has_id;

	ck_assert_uint_eq(zcs_run_seen_format(&s, kid, text, sizeof(text)), strlen(text));
	ck_assert_str_eq(text, "run 12 stream 0x1a2b3c4d salt 000102abcdef10ff "
			 "meta 18446744073709551615 key 5ec00102030405ff\n");
	ck_assert_int_eq(zcs_run_seen_parse(text, strlen(text), &r, id, &has_id), 0);
	ck_assert_uint_eq(r.run, 12);
	ck_assert_uint_eq(r.stream_id, 0x1a2b3c4d);
	ck_assert_mem_eq(r.salt, s.salt, 8);
	ck_assert_uint_eq(r.meta_seq, UINT64_MAX);
	ck_assert(has_id);
	ck_assert_mem_eq(id, kid, sizeof(kid));
	/* without its newline too, and without a key id (as written before ids were); any other
	 * spelling is refused */
	ck_assert_int_eq(zcs_run_seen_parse(text, strlen(text) - 1, &r, id, &has_id), 0);
	ck_assert_int_eq(zcs_run_seen_parse(text, strlen(text) - 22, &r, id, &has_id), 0);
	ck_assert(!has_id);
	ck_assert_uint_eq(r.meta_seq, UINT64_MAX);
	static const char *const bad[] = {
		"run 12 stream 0x1a2b3c4d salt 000102abcdef10ff meta 1 \n",
		"run 12  stream 0x1a2b3c4d salt 000102abcdef10ff meta 1\n",
		"run 12 stream 0x1A2B3C4D salt 000102abcdef10ff meta 1\n",
		"run 12 stream 0x1a2b3c4 salt 000102abcdef10ff meta 1\n",
		"run 12 stream 0x1a2b3c4d salt 000102abcdef10f meta 1\n",
		"run -1 stream 0x1a2b3c4d salt 000102abcdef10ff meta 1\n",
		"run 12 stream 0x1a2b3c4d salt 000102abcdef10ff\n",
		"run 12 stream 0x1a2b3c4d salt 000102abcdef10ff meta 1 key 5ec00102030405f\n",
		"run 12 stream 0x1a2b3c4d salt 000102abcdef10ff meta 1 key \n",
		"run 12 stream 0x1a2b3c4d salt 000102abcdef10ff meta 1 key 5ec00102030405ff0\n",
		"12\n", "",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(zcs_run_seen_parse(bad[i], strlen(bad[i]), &r, id, &has_id), -EINVAL);

	make_dir();
	ck_assert_int_eq(zcs_run_seen_load(path, kid, &r, err, sizeof(err)), 0);
	ck_assert_int_eq(zcs_run_seen_save(path, kid, &s, err, sizeof(err)), 0);
	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(zcs_run_seen_load(path, kid, &r, err, sizeof(err)), 1);
	ck_assert_uint_eq(r.run, 12);
	ck_assert_uint_eq(r.meta_seq, UINT64_MAX);
	write_file(path, "run 12\n", 0600);
	ck_assert_int_eq(zcs_run_seen_load(path, kid, &r, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "corrupt"));
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(symlink("/etc/passwd", path), 0);
	ck_assert_int_eq(zcs_run_seen_load(path, kid, &r, err, sizeof(err)), -ELOOP);
	/* saving replaces the link, never writes through it */
	ck_assert_int_eq(zcs_run_seen_save(path, kid, &s, err, sizeof(err)), 0);
	ck_assert_int_eq(zcs_run_seen_load(path, kid, &r, err, sizeof(err)), 1);
	remove_dir();
}
END_TEST

/* Run state belongs to one key: a record of another key is none for this one, and this key's
 * first save replaces it, whatever the runs' numbers (a new key's counter may start at 1). */
START_TEST(test_seen_per_key)
{
	static const uint8_t other[ZCS_KEY_ID_BYTES] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const struct zcs_run_seen old = { .run = 12, .stream_id = 0xa, .meta_seq = 40 };
	const struct zcs_run_seen fresh = { .run = 1, .stream_id = 0xb, .meta_seq = 0 };
	struct zcs_run_seen r = { .run = 99 };
	char err[256];

	make_dir();
	ck_assert_int_eq(zcs_run_seen_save(path, other, &old, err, sizeof(err)), 0);
	ck_assert_int_eq(zcs_run_seen_load(path, kid, &r, err, sizeof(err)), ZCS_RUN_SEEN_OTHER_KEY);
	ck_assert_uint_eq(r.run, 99);   /* untouched */
	/* this key's run 1 is kept over the other key's run 12, and the other key's is now gone */
	ck_assert_int_eq(zcs_run_seen_save(path, kid, &fresh, err, sizeof(err)), 0);
	ck_assert_int_eq(zcs_run_seen_load(path, kid, &r, err, sizeof(err)), 1);
	ck_assert_uint_eq(r.run, 1);
	ck_assert_uint_eq(r.stream_id, 0xb);
	ck_assert_int_eq(zcs_run_seen_load(path, other, &r, err, sizeof(err)),
			 ZCS_RUN_SEEN_OTHER_KEY);
	/* a record written before ids were is taken as this key's (it is named after the key),
	 * and still never lowered */
	write_file(path, "run 12 stream 0x0000000a salt 0000000000000000 meta 40\n", 0600);
	ck_assert_int_eq(zcs_run_seen_load(path, kid, &r, err, sizeof(err)), 1);
	ck_assert_uint_eq(r.run, 12);
	ck_assert_int_eq(zcs_run_seen_save(path, kid, &fresh, err, sizeof(err)), 1);
	ck_assert_int_eq(zcs_run_seen_load(path, kid, &r, err, sizeof(err)), 1);
	ck_assert_uint_eq(r.run, 12);
	remove_dir();
}
END_TEST

static struct zcs_run_seen seen_rec(uint64_t run, uint32_t id, uint8_t salt, uint64_t meta)
{
	struct zcs_run_seen s = { .run = run, .stream_id = id, .meta_seq = meta };

	memset(s.salt, salt, sizeof(s.salt));
	return s;
}

static uint64_t loaded_run(uint64_t *meta)
{
	struct zcs_run_seen r;
	char err[256];

	ck_assert_msg(zcs_run_seen_load(path, kid, &r, err, sizeof(err)) == 1, "%s", err);
	if (meta)
		*meta = r.meta_seq;
	return r.run;
}

/* Regression seen_never_lowered: zcs-recv and the SoapySDR module keep one KEY.seen; the one
 * exiting with an older run overwrote a newer one the other had written.  A save finding a
 * newer record (a later run, or the same run further on) leaves it; anything else replaces. */
START_TEST(test_seen_never_lowered)
{
	struct zcs_run_seen s;
	uint64_t meta;
	char err[256];

	make_dir();
	s = seen_rec(5, 0xa, 1, 10);
	ck_assert_int_eq(zcs_run_seen_save(path, kid, &s, err, sizeof(err)), 0);
	s = seen_rec(3, 0xb, 2, 99);
	ck_assert_int_eq(zcs_run_seen_save(path, kid, &s, err, sizeof(err)), 1);
	ck_assert_uint_eq(loaded_run(&meta), 5);
	ck_assert_uint_eq(meta, 10);
	s = seen_rec(5, 0xa, 1, 7);                   /* the same run, seen less far */
	ck_assert_int_eq(zcs_run_seen_save(path, kid, &s, err, sizeof(err)), 1);
	ck_assert_uint_eq(loaded_run(&meta), 5);
	ck_assert_uint_eq(meta, 10);
	s = seen_rec(5, 0xa, 1, 12);                  /* ... and further */
	ck_assert_int_eq(zcs_run_seen_save(path, kid, &s, err, sizeof(err)), 0);
	ck_assert_uint_eq(loaded_run(&meta), 5);
	ck_assert_uint_eq(meta, 12);
	s = seen_rec(6, 0xc, 3, 1);
	ck_assert_int_eq(zcs_run_seen_save(path, kid, &s, err, sizeof(err)), 0);
	ck_assert_uint_eq(loaded_run(NULL), 6);
	/* a corrupt record is replaced, as is one of another run under the same number */
	write_file(path, "run 9\n", 0600);
	ck_assert_int_eq(zcs_run_seen_save(path, kid, &s, err, sizeof(err)), 0);
	ck_assert_uint_eq(loaded_run(NULL), 6);
	s = seen_rec(6, 0xd, 4, 1);
	ck_assert_int_eq(zcs_run_seen_save(path, kid, &s, err, sizeof(err)), 0);
	/* a symbolic link planted as the lock file is refused, not followed */
	snprintf(err, sizeof(err), "%s.lock", path);
	ck_assert_int_eq(unlink(err), 0);
	ck_assert_int_eq(symlink("/etc/passwd", err), 0);
	ck_assert_int_eq(zcs_run_seen_save(path, kid, &s, err, sizeof(err)), -ELOOP);
	remove_dir();
}
END_TEST

/* Two writers, deterministically interleaved: one holds the lock between its read (an older run)
 * and its write, as zcs_run_seen_save does; the other saves a newer run meanwhile.  With the lock
 * the second waits and then finds the first's write older than its own: the newer run is what
 * stays.  Without it the second would write at once and the first overwrite it with the older. */
START_TEST(test_seen_two_writers_locked)
{
	const struct zcs_run_seen older = seen_rec(7, 0xa, 1, 1), newer = seen_rec(9, 0xb, 2, 1);
	char err[256], text[128];
	int lock, status;
	pid_t pid;
	size_t len;

	make_dir();
	lock = zcs_statefile_lock(path, err, sizeof(err));
	ck_assert_msg(lock >= 0, "%s", err);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* the lock belongs to the open file, which the child shares until it lets go */
		close(lock);
		_exit(zcs_run_seen_save(path, kid, &newer, err, sizeof(err)) == 0 ? 0 : 1);
	}
	/* the first writer's critical section: it read nothing newer, and writes its run */
	usleep(300 * 1000);
	len = zcs_run_seen_format(&older, kid, text, sizeof(text));
	ck_assert_int_eq(zcs_statefile_write(path, text, len, err, sizeof(err)), 0);
	zcs_statefile_unlock(lock);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_uint_eq(loaded_run(NULL), 9);
	remove_dir();
}
END_TEST

/* Two writers racing freely, each saving its own rising runs (one the odd numbers, the other the
 * even): whatever the interleaving, the file only ever grows and ends at the highest run. */
START_TEST(test_seen_two_writers_race)
{
	pid_t pid[2];
	int status;

	make_dir();
	for (int w = 0; w < 2; w++) {
		pid[w] = fork();
		ck_assert_int_ge(pid[w], 0);
		if (pid[w] == 0) {
			char err[256];

			for (uint64_t run = 1 + (uint64_t)w; run <= 200; run += 2) {
				const struct zcs_run_seen s = seen_rec(run, (uint32_t)run, 1, 1);

				if (zcs_run_seen_save(path, kid, &s, err, sizeof(err)) < 0)
					_exit(1);
			}
			_exit(0);
		}
	}
	for (int w = 0; w < 2; w++) {
		ck_assert_int_eq(waitpid(pid[w], &status, 0), pid[w]);
		ck_assert(WIFEXITED(status));
		ck_assert_int_eq(WEXITSTATUS(status), 0);
	}
	ck_assert_uint_eq(loaded_run(NULL), 200);
	remove_dir();
}
END_TEST

/* The replay reasons' names are the statistics' JSON keys: stable, one each. */
START_TEST(test_reason_names)
{
	ck_assert_str_eq(zcs_replay_reason_name(ZCS_REPLAY_OLD_RUN), "old_run");
	ck_assert_str_eq(zcs_replay_reason_name(ZCS_REPLAY_META_SEQ), "meta_seq");
	ck_assert_str_eq(zcs_replay_reason_name(ZCS_REPLAY_BEHIND), "behind");
	ck_assert_str_eq(zcs_replay_reason_name(ZCS_REPLAY_NOT_LIVE), "not_live");
	ck_assert_str_eq(zcs_replay_reason_name(ZCS_REPLAY_REASONS), "unknown");
}
END_TEST

START_TEST(test_fresh_rule)
{
	const struct zcs_run_seen s = { .run = 5, .stream_id = 0x11, .salt = { 1 }, .meta_seq = 40 };
	const uint8_t same[8] = { 1 }, other[8] = { 2 };

	/* nothing followed yet: any run */
	ck_assert(zcs_run_is_fresh(NULL, 1, 0x11, same, 0));
	/* a later run at once, whatever its id, salt or metadata number (a rebooted board) */
	ck_assert(zcs_run_is_fresh(&s, 6, 0x22, other, 0));
	ck_assert(zcs_run_is_fresh(&s, UINT64_MAX, 0x11, same, 0));
	/* an earlier run, or another run under the same number: a replay */
	ck_assert(!zcs_run_is_fresh(&s, 4, 0x22, other, 1000));
	ck_assert(!zcs_run_is_fresh(&s, 0, 0x11, same, 1000));
	ck_assert(!zcs_run_is_fresh(&s, 5, 0x22, same, 41));
	ck_assert(!zcs_run_is_fresh(&s, 5, 0x11, other, 41));
	/* the run followed itself: only past what was seen of it */
	ck_assert(zcs_run_is_fresh(&s, 5, 0x11, same, 41));
	ck_assert(!zcs_run_is_fresh(&s, 5, 0x11, same, 40));
	ck_assert(!zcs_run_is_fresh(&s, 5, 0x11, same, 0));
}
END_TEST

static Suite *runstate_suite(void)
{
	Suite *s = suite_create("runstate");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_state_path);
	tcase_add_test(tc, test_counter_parse);
	tcase_add_test(tc, test_counter_missing_then_advanced);
	tcase_add_test(tc, test_counter_corrupt);
	tcase_add_test(tc, test_counter_hostile_path);
	tcase_add_test(tc, test_counter_not_writable);
	tcase_add_test(tc, test_state_owner);
	tcase_add_test(tc, test_seen_round_trip);
	tcase_add_test(tc, test_seen_per_key);
	tcase_add_test(tc, test_seen_never_lowered);
	tcase_add_test(tc, test_seen_two_writers_locked);
	tcase_add_test(tc, test_seen_two_writers_race);
	tcase_add_test(tc, test_reason_names);
	tcase_add_test(tc, test_fresh_rule);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(runstate_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
