// SPDX-License-Identifier: MIT
/* Opening an output's path safely as root in a shared directory (out_path.h): the one check the
 * fifo:, file: and sigmf: outputs share. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "out_path.h"
#include "statefile.h"

bool zcs_out_dir_shared(const struct stat *st)
{
	return (st->st_mode & (S_IWGRP | S_IWOTH)) != 0;
}

/* Splits path into its directory (dir, "." for a bare name) and last component (*base). */
static int split_path(const char *path, char *dir, size_t cap, const char **base)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!slash) {
		snprintf(dir, cap, ".");
		*base = path;
		return 0;
	}
	*base = slash + 1;
	if (!**base)
		return -EISDIR;
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= cap)
		return -ENAMETOOLONG;
	memcpy(dir, path, n);
	dir[n] = '\0';
	return 0;
}

/* The worker of both calls: replacing says the caller means to truncate or replace a regular
 * file found there, which is then checked; truncate does it. */
static int open_checked(const char *name, const char *path, int flags, bool replacing,
			bool truncate, struct stat *st, char *err, size_t errlen)
{
	char dir[PATH_MAX], owner[96];
	const char *base;
	struct stat dst;
	int dfd, fd, ret;

	ret = split_path(path, dir, sizeof(dir), &base);
	if (ret < 0)
		return zcs_err(err, errlen, ret, "%s: %s: %s", name, path,
			       ret == -EISDIR ? "names a directory, not a file" : strerror(-ret));
	/* the directory checked is the one the file is opened in, whatever is renamed meanwhile */
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return zcs_err_errno(err, errlen, "%s: %s", name, dir);
	if (fstat(dfd, &dst) < 0) {
		ret = zcs_err_errno(err, errlen, "%s: %s", name, dir);
		goto out;
	}
	fd = openat(dfd, base, (flags & ~O_TRUNC) | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		/* ELOOP, or EACCES where O_CREAT meets a link in a sticky directory */
		if (ret == -ELOOP || (ret == -EACCES && fstatat(dfd, base, &dst, AT_SYMLINK_NOFOLLOW)
				       == 0 && S_ISLNK(dst.st_mode))) {
			ret = -ELOOP;
			goto symlink;
		}
		/* ENXIO (a FIFO without a reader) and ENOENT keep their meaning for the caller */
		zcs_err(err, errlen, ret, "%s: %s: %s", name, path, strerror(-ret));
		goto out;
	}
	if (fstat(fd, st) < 0) {
		ret = zcs_err_errno(err, errlen, "%s: %s", name, path);
		goto fail;
	}
	/* O_PATH | O_NOFOLLOW opens a symbolic link itself rather than failing */
	if (S_ISLNK(st->st_mode)) {
		ret = -ELOOP;
		close(fd);
		goto symlink;
	}
	if (replacing && S_ISREG(st->st_mode) && zcs_out_dir_shared(&dst) &&
	    (st->st_uid != geteuid() || st->st_nlink != 1)) {
		if (st->st_uid != geteuid())
			ret = zcs_err(err, errlen, -EPERM, "%s: %s belongs to %s, in %s where others "
				      "may write: refused, neither truncated nor written (remove it "
				      "or name another path)", name, path,
				      zcs_statefile_owner_text(st->st_uid, owner, sizeof(owner)), dir);
		else
			ret = zcs_err(err, errlen, -EPERM, "%s: %s has %lu names (hard links), in "
				      "%s where others may write: refused, neither truncated nor "
				      "written (remove it or name another path)", name, path,
				      (unsigned long)st->st_nlink, dir);
		goto fail;
	}
	if (truncate && S_ISREG(st->st_mode) && st->st_size != 0 && ftruncate(fd, 0) < 0) {
		ret = zcs_err_errno(err, errlen, "%s: %s: truncating it", name, path);
		goto fail;
	}
	close(dfd);
	return fd;
symlink:
	zcs_err(err, errlen, ret, "%s: %s is a symbolic link: refused, never followed (name the "
		"file itself)", name, path);
	goto out;
fail:
	close(fd);
out:
	close(dfd);
	return ret;
}

int zcs_out_path_open(const char *name, const char *path, int flags, struct stat *st, char *err,
		      size_t errlen)
{
	const bool trunc = (flags & O_TRUNC) != 0;

	return open_checked(name, path, flags, trunc, trunc, st, err, errlen);
}

int zcs_out_path_check(const char *name, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	fd = open_checked(name, path, O_PATH, true, false, &st, err, errlen);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}
