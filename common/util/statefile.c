// SPDX-License-Identifier: MIT
/* Small durable state files (statefile.h): write a temporary file, fsync, rename, fsync the
 * directory; read with O_NOFOLLOW and a bounded read, as key files are. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "statefile.h"

const char *zcs_statefile_owner_text(uid_t uid, char *buf, size_t cap)
{
	struct passwd pw, *found = NULL;
	char names[1024];

	if (getpwuid_r(uid, &pw, names, sizeof(names), &found) == 0 && found)
		snprintf(buf, cap, "uid %u (%s)", (unsigned)uid, found->pw_name);
	else
		snprintf(buf, cap, "uid %u", (unsigned)uid);
	return buf;
}

int zcs_statefile_check_owner(const struct stat *st, const char *what, const char *path,
			      char *err, size_t errlen)
{
	const uid_t me = geteuid();
	char owner[96];

	if (st->st_uid == me || st->st_uid == 0)
		return 0;
	return zcs_err(err, errlen, -EPERM, "%s %s is owned by %s, not by this user (uid %u) or "
		       "root: refused, whoever owns it may rewrite it (chown it, or use a file of "
		       "your own)", what, path, zcs_statefile_owner_text(st->st_uid, owner,
									sizeof(owner)),
		       (unsigned)me);
}

int zcs_statefile_read(const char *path, char *buf, size_t cap, size_t *len, char *err,
		       size_t errlen)
{
	struct stat st;
	size_t got = 0;
	ssize_t n;
	int fd, ret = 1;

	*len = 0;
	if (cap > ZCS_STATEFILE_MAX + 1)
		cap = ZCS_STATEFILE_MAX + 1;
	if (cap < 2)
		return zcs_err(err, errlen, -EINVAL, "state file %s: no room to read it", path);
	/* O_NOFOLLOW: a symlink planted at path could make a root program read, and later replace,
	 * whatever it names; O_NONBLOCK: a FIFO must not hang it (refused below) */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno == ELOOP)
			return zcs_err(err, errlen, -ELOOP, "state file %s is a symbolic link: "
				       "refused (name the file itself)", path);
		return zcs_err_errno(err, errlen, "state file %s", path);
	}
	if (fstat(fd, &st) < 0) {
		ret = zcs_err_errno(err, errlen, "state file %s", path);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = zcs_err(err, errlen, -EINVAL, "state file %s is not a regular file", path);
		goto out;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		ret = zcs_err(err, errlen, -EPERM, "state file %s may be written by group or others "
			      "(mode %03o): chmod go-w %s", path, (unsigned)(st.st_mode & 0777), path);
		goto out;
	}
	if ((ret = zcs_statefile_check_owner(&st, "state file", path, err, errlen)) < 0)
		goto out;
	ret = 1;
	/* one byte more than fits tells a longer file apart */
	while (got < cap) {
		n = read(fd, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = zcs_err_errno(err, errlen, "reading state file %s", path);
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got >= cap || memchr(buf, '\0', got)) {
		ret = zcs_err(err, errlen, -EINVAL, "state file %s is not one of ours (%s)", path,
			      got >= cap ? "too long" : "binary");
		goto out;
	}
	buf[got] = '\0';
	*len = got;
out:
	close(fd);
	return ret;
}

/* The directory part of path ("." for a bare name) into dir. */
static int dir_of(const char *path, char *dir, size_t cap)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!slash) {
		snprintf(dir, cap, ".");
		return 0;
	}
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= cap)
		return -ENAMETOOLONG;
	memcpy(dir, path, n);
	dir[n] = '\0';
	return 0;
}

int zcs_statefile_write(const char *path, const char *text, size_t len, char *err,
			size_t errlen)
{
	char dir[PATH_MAX], tmp[PATH_MAX];
	size_t off = 0;
	int fd, dfd, ret = 0;

	if (dir_of(path, dir, sizeof(dir)) < 0 ||
	    snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", path) >= (int)sizeof(tmp))
		return zcs_err(err, errlen, -ENAMETOOLONG, "state file %s: name too long", path);
	/* a new name each time, created exclusively: nothing planted at a fixed name is written */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return zcs_err_errno(err, errlen, "cannot write state file %s (a new file beside "
				     "it)", path);
	while (off < len) {
		const ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = zcs_err_errno(err, errlen, "writing state file %s", path);
			break;
		}
		off += (size_t)n;
	}
	if (ret == 0 && fsync(fd) < 0)
		ret = zcs_err_errno(err, errlen, "writing state file %s (fsync)", path);
	if (close(fd) < 0 && ret == 0)
		ret = zcs_err_errno(err, errlen, "writing state file %s (close)", path);
	if (ret == 0 && rename(tmp, path) < 0)
		ret = zcs_err_errno(err, errlen, "replacing state file %s", path);
	if (ret < 0) {
		unlink(tmp);
		return ret;
	}
	/* the rename itself is durable only once the directory is */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return zcs_err_errno(err, errlen, "state file %s: opening its directory", path);
	if (fsync(dfd) < 0)
		ret = zcs_err_errno(err, errlen, "state file %s: fsync of its directory", path);
	close(dfd);
	return ret;
}

int zcs_statefile_lock(const char *path, char *err, size_t errlen)
{
	const struct timespec step = { 0, 5 * 1000 * 1000 };
	char lock[PATH_MAX];
	struct stat st;
	int fd, waited_ms = 0;

	if (snprintf(lock, sizeof(lock), "%s.lock", path) >= (int)sizeof(lock))
		return zcs_err(err, errlen, -ENAMETOOLONG, "state file %s: name too long", path);
	/* as the state file is read: no link followed, no FIFO waited on */
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW, 0600);
	if (fd < 0) {
		if (errno == ELOOP)
			return zcs_err(err, errlen, -ELOOP, "lock file %s is a symbolic link: "
				       "refused", lock);
		return zcs_err_errno(err, errlen, "lock file %s", lock);
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return zcs_err(err, errlen, -EINVAL, "lock file %s is not a regular file", lock);
	}
	/* polled, not blocking: whoever holds it too long must not hold this program too */
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK || waited_ms >= ZCS_STATEFILE_LOCK_MS) {
			const int e = errno;

			close(fd);
			if (e == EWOULDBLOCK)
				return zcs_err(err, errlen, -e, "state file %s: another process has "
					       "held its lock %s for %d ms", path, lock, waited_ms);
			return zcs_err(err, errlen, -e, "lock file %s: %s", lock, strerror(e));
		}
		nanosleep(&step, NULL);
		waited_ms += 5;
	}
	return fd;
}

void zcs_statefile_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}
