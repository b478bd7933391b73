// SPDX-License-Identifier: MIT
/* LD_PRELOAD shim for the emulated board: the kernel lets one process at a time open an IIO
 * buffer device (a second open gets EBUSY); a FIFO lets anyone in.  This restores the rule for
 * /dev/iio:device* by taking an exclusive flock on every open of one. */
/* Our open() must not meet glibc's inline fortify wrapper. */
#undef _FORTIFY_SOURCE
/* Meson asks for 64-bit off_t, which renames open() to open64(): we define both ourselves. */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int open(const char *path, int flags, ...);
int open64(const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...);
int openat64(int dirfd, const char *path, int flags, ...);

static int exclusive(int fd, const char *path)
{
	if (fd < 0 || strncmp(path, "/dev/iio:device", 15) != 0)
		return fd;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		errno = EBUSY;
		return -1;
	}
	return fd;
}

static int real_openat(const char *sym, int dirfd, const char *path, int flags, mode_t mode)
{
	int (*fn)(int, const char *, int, ...) =
		(int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, sym);

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	return exclusive(fn(dirfd, path, flags, mode), path);
}

static int real_open(const char *sym, const char *path, int flags, mode_t mode)
{
	int (*fn)(const char *, int, ...) =
		(int (*)(const char *, int, ...))dlsym(RTLD_NEXT, sym);

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	return exclusive(fn(path, flags, mode), path);
}

#define MODE_ARG(flags, mode)                                              \
	do {                                                               \
		if ((flags) & (O_CREAT | O_TMPFILE)) {                     \
			va_list ap;                                        \
			va_start(ap, flags);                               \
			mode = (mode_t)va_arg(ap, int);                    \
			va_end(ap);                                        \
		}                                                          \
	} while (0)

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	return real_open("open", path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	return real_open("open64", path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	return real_openat("openat", dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	return real_openat("openat64", dirfd, path, flags, mode);
}
