// SPDX-License-Identifier: MIT
/* Output kinds "file:PATH" and "-" (stdout): the samples, byte for byte, nothing else.  While
 * "-" is in use nothing else in zcs-recv may write to stdout (statistics go to stderr). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "out_path.h"
#include "output_kinds.h"

/* A pipe or FIFO on stdout is reopened as a description of our own in non-blocking mode, so a
 * stalled reader never pins the writer past destroy's deadline, and fd 1's flags (shared with
 * the shell and siblings) stay untouched.  Regular files and terminals keep fd 1 itself. */
static int open_stdout(bool *is_socket)
{
	struct stat st;
	int fd;

	*is_socket = false;
	if (fstat(STDOUT_FILENO, &st) < 0)
		return -errno;
	if (S_ISSOCK(st.st_mode)) {
		*is_socket = true;  /* sent with MSG_DONTWAIT: no flag change needed */
	} else if (S_ISFIFO(st.st_mode)) {
		fd = open("/proc/self/fd/1", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0)
			return fd;
	}
	fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	return fd < 0 ? -errno : fd;
}

static int file_open(struct zcs_out *out, const char *arg, char *err, size_t errlen)
{
	bool is_socket = false;
	struct stat st;
	int fd;

	if (strcmp(arg, "-") == 0) {
		fd = open_stdout(&is_socket);
	} else {
		if (!*arg)
			return zcs_err(err, errlen, -EINVAL, "%s: no path", out->name);
		/* Non-blocking, which regular files ignore: a FIFO or a terminal named here must
		 * neither hang the open (a FIFO with no reader fails with ENXIO instead) nor pin
		 * the writer past destroy's deadline.  The description is our own: no one else
		 * sees the flag.  As root in a shared directory, a symlink or another user's file
		 * planted at PATH is refused (out_path.h). */
		fd = zcs_out_path_open(out->name, arg, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK,
				       &st, err, errlen);
		if (fd == -ENXIO)
			return zcs_err(err, errlen, fd,
				       "%s: a FIFO with no reader (fifo:PATH waits for readers)",
				       out->name);
		if (fd < 0)
			return fd;
	}
	if (fd < 0)
		return zcs_err(err, errlen, fd, "%s: %s", out->name, strerror(-fd));
	zcs_out_attach(&out->sinks[0], fd, is_socket);
	return 0;
}

const struct zcs_out_ops zcs_out_file_ops = {
	.prefix = "file:",
	.once = true,
	.open = file_open,
	.write = zcs_out_write_block,
};
