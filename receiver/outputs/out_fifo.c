// SPDX-License-Identifier: MIT
/* Output kind "fifo:PATH": a named pipe for GNU Radio's File Source and friends.  The writer
 * thread waits for a reader without ever holding up reception; readers may leave and return.
 * As root in a shared directory, PATH may be swapped for a symlink after start: every open
 * refuses to follow one and checks it opened the very FIFO created or checked at start. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "out_path.h"
#include "output_kinds.h"

/* A bigger pipe absorbs a reader's hiccups in the kernel; 1 MB is what an unprivileged process
 * may ask for by default (/proc/sys/fs/pipe-max-size).  Best effort. */
#define FIFO_PIPE_BYTES (1024 * 1024)

struct fifo_priv {
	char path[4096];
	/* The FIFO created or checked at start, held by an O_PATH descriptor (no reader, no
	 * writer): while it is held its inode number cannot go to a file planted later, so the
	 * dev/ino check of every open is sound even on a file system that reuses numbers. */
	int pfd;
	bool have_pfd;
	dev_t dev;
	ino_t ino;
	const char *warned;      /* what PATH was said to be now, once per change (NULL: ours) */
};

static int fifo_open(struct zcs_out *out, const char *arg, char *err, size_t errlen)
{
	struct fifo_priv *const p = out->priv;
	struct stat st;
	int fd;

	if (!*arg || strlen(arg) >= sizeof(p->path))
		return zcs_err(err, errlen, -EINVAL, "%s: bad path", out->name);
	/* mkfifo never follows a symlink at PATH (EEXIST): what is there is judged below */
	if (mkfifo(arg, 0600) < 0 && errno != EEXIST)
		return zcs_err_errno(err, errlen, "%s", out->name);
	/* held, and checked through what is held, not by name: PATH may change meanwhile; a
	 * symlink at PATH is refused, never followed to what it points at (out_path.h) */
	fd = zcs_out_path_open(out->name, arg, O_PATH, &st, err, errlen);
	if (fd < 0)
		return fd;
	p->pfd = fd;
	p->have_pfd = true;
	if (!S_ISFIFO(st.st_mode))
		return zcs_err(err, errlen, -EEXIST, "%s: exists and is not a FIFO", out->name);
	strcpy(p->path, arg);
	p->dev = st.st_dev;
	p->ino = st.st_ino;
	return 0;
}

static void fifo_close(struct zcs_out *out)
{
	struct fifo_priv *p = out->priv;

	if (p && p->have_pfd)
		close(p->pfd);
}

static const char symlink_text[] = "a symbolic link", other_text[] = "another file";

static void fifo_replaced(struct zcs_sink *s, struct fifo_priv *p, const char *what)
{
	if (p->warned != what)
		zcs_log_as(&s->out->set->log, s->out->name,
			   "%s is now %s, not the FIFO made at start: not opened", p->path, what);
	p->warned = what;
}

/* No reader: try to open without blocking (ENXIO: still nobody).  A reader: notice when it
 * left even while no data flows (POLLERR on the write end once the read end is closed). */
static void fifo_idle(struct zcs_sink *s)
{
	struct fifo_priv *p = s->out->priv;
	struct stat st;
	int fd;

	if (atomic_load(&s->state) == ZCS_SINK_ATTACHED) {
		struct pollfd pfd = { .fd = s->fd, .events = 0 };

		if (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLERR | POLLHUP))) {
			zcs_log_as(&s->out->set->log, s->out->name, "reader left");
			zcs_out_detach(s);
		}
		return;
	}
	/* O_NOFOLLOW: a symlink planted at PATH fails (ELOOP); O_NONBLOCK: a FIFO without a reader
	 * fails (ENXIO), and a regular file planted there is opened without truncating it, then
	 * refused by the check below */
	fd = open(p->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0) {
		if (errno == ELOOP)
			fifo_replaced(s, p, symlink_text);
		return;
	}
	if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode) || st.st_dev != p->dev ||
	    st.st_ino != p->ino) {
		close(fd);
		fifo_replaced(s, p, other_text);
		return;
	}
	p->warned = NULL;
	fcntl(fd, F_SETPIPE_SZ, FIFO_PIPE_BYTES);
	zcs_out_attach(s, fd, false);
	zcs_log_as(&s->out->set->log, s->out->name, "reader came");
}

const struct zcs_out_ops zcs_out_fifo_ops = {
	.prefix = "fifo:",
	.catch_up = true,
	.priv_size = sizeof(struct fifo_priv),
	.open = fifo_open,
	.idle = fifo_idle,
	.write = zcs_out_write_block,
	.close = fifo_close,
};
