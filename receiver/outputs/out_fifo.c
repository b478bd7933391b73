// SPDX-License-Identifier: MIT
/* Output kind "fifo:PATH": a named pipe for GNU Radio's File Source and friends.  The writer
 * thread waits for a reader without ever holding up reception; readers may leave and return. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output_kinds.h"

/* A bigger pipe absorbs a reader's hiccups in the kernel; 1 MB is what an unprivileged process
 * may ask for by default (/proc/sys/fs/pipe-max-size).  Best effort. */
#define FIFO_PIPE_BYTES (1024 * 1024)

struct fifo_priv {
	char path[4096];
};

static int fifo_open(struct zcs_out *out, const char *arg, char *err, size_t errlen)
{
	struct fifo_priv *const p = out->priv;
	struct stat st;

	if (!*arg || strlen(arg) >= sizeof(p->path)) {
		snprintf(err, errlen, "%s: bad path", out->name);
		return -EINVAL;
	}
	if (stat(arg, &st) == 0) {
		if (!S_ISFIFO(st.st_mode)) {
			snprintf(err, errlen, "%s: exists and is not a FIFO", out->name);
			return -EEXIST;
		}
	} else if (errno != ENOENT || mkfifo(arg, 0600) < 0) {
		const int e = errno;

		snprintf(err, errlen, "%s: %s", out->name, strerror(e));
		return -e;
	}
	strcpy(p->path, arg);
	return 0;
}

/* No reader: try to open without blocking (ENXIO: still nobody).  A reader: notice when it
 * left even while no data flows (POLLERR on the write end once the read end is closed). */
static void fifo_idle(struct zcs_sink *s)
{
	const struct fifo_priv *p = s->out->priv;
	int fd;

	if (atomic_load(&s->state) == ZCS_SINK_ATTACHED) {
		struct pollfd pfd = { .fd = s->fd, .events = 0 };

		if (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLERR | POLLHUP))) {
			zcs_out_log(s->out, "reader left");
			zcs_out_detach(s);
		}
		return;
	}
	fd = open(p->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	fcntl(fd, F_SETPIPE_SZ, FIFO_PIPE_BYTES);
	zcs_out_attach(s, fd, false);
	zcs_out_log(s->out, "reader came");
}

const struct zcs_out_ops zcs_out_fifo_ops = {
	.prefix = "fifo:",
	.priv_size = sizeof(struct fifo_priv),
	.open = fifo_open,
	.idle = fifo_idle,
	.write = zcs_out_write_block,
};
