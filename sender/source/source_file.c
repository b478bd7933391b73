// SPDX-License-Identifier: MIT
/* File and standard-input sources: raw interleaved I/Q as cs16 (full scale, ci16 another name),
 * cs8, cu8, cf32 or raw12 (the radio's 12-bit values in int16), by suffix or --file-type,
 * optionally looped; converted to radio layout by zcs_import_convert. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "formats.h"
#include "proto.h"
#include "source.h"

/* 16384 pairs: 64 KB of cs16 a read, a handful of trains. */
#define FILE_BLOCK_PAIRS 16384
/* How long one read waits for a pipe before returning -EAGAIN so the caller can check for stop. */
#define FILE_POLL_MS 200

struct file_priv {
	int fd;
	bool is_stdin;
	bool loop;
	bool any_data;        /* the file gave at least one pair (looping an empty file would spin) */
	int type;             /* enum zcs_import_type */
	size_t pair_bytes;
	size_t block;
	size_t have;          /* bytes in raw not yet converted (a partial pair from a pipe) */
	uint8_t *raw;
	int16_t *out;
};

/* The suffix names the type as zcs-recv's -F named what it wrote, so a recording replays at its
 * own level: ".cs16" (and ".ci16") full-scale int16, ".cs8", ".cu8", ".cf32" (also ".cfile", GNU
 * Radio's name for cf32), ".raw12" the radio's raw 12-bit values.  Anything else, and standard
 * input, is taken as cs16 too: full scale is what a 16-bit file most likely holds, and a raw
 * capture read so comes back 24 dB quiet, never clipped.  ".sigmf-data": its type is in the
 * .sigmf-meta beside it, which zcs-send's options read (sigmf_read.h), so here it is -1. */
static int type_from_suffix(const char *path)
{
	const char *dot = path ? strrchr(path, '.') : NULL;
	int t;

	if (!dot)
		return ZCS_IMPORT_CI16;
	if (strcmp(dot, ".cfile") == 0)
		return ZCS_IMPORT_CF32;
	if (strcmp(dot, ".sigmf-data") == 0)
		return -1;
	t = zcs_import_from_name(dot + 1);
	return t >= 0 ? t : ZCS_IMPORT_CI16;
}

/* Also file_open()'s failure path: releases whatever was set up, in reverse order. */
static void file_close(struct zcs_source *s)
{
	struct file_priv *const p = s->priv;

	if (!p)
		return;
	if (p->fd >= 0 && !p->is_stdin)
		close(p->fd);
	free(p->out);
	free(p->raw);
	free(p);
	s->priv = NULL;
}

static int file_open(struct zcs_source *s, const struct zcs_source_config *cfg, char *err,
		     size_t errlen)
{
	struct file_priv *p;
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return zcs_err(err, errlen, -ENOMEM, "out of memory");
	p->fd = -1;
	p->is_stdin = strcmp(cfg->kind, "stdin") == 0 || !cfg->path || strcmp(cfg->path, "-") == 0;
	p->type = cfg->file_type >= 0 ? cfg->file_type
				      : type_from_suffix(p->is_stdin ? NULL : cfg->path);
	if (p->type < 0) {
		ret = zcs_err(err, errlen, -EINVAL,
			      "%s: a SigMF recording's type is in its .sigmf-meta: give "
			      "--file-type", cfg->path);
		goto fail;
	}
	p->pair_bytes = zcs_import_pair_bytes(p->type);
	if (p->pair_bytes == 0) {
		ret = zcs_err(err, errlen, -EINVAL, "file type %s cannot be sent",
			      zcs_import_name(p->type));
		goto fail;
	}
	if (p->is_stdin && cfg->loop) {
		ret = zcs_err(err, errlen, -EINVAL, "--loop needs a file, not standard input");
		goto fail;
	}
	p->loop = cfg->loop;
	p->block = cfg->block_pairs ? cfg->block_pairs : FILE_BLOCK_PAIRS;
	p->raw = malloc(p->block * p->pair_bytes);
	p->out = malloc(p->block * 2 * sizeof(int16_t));
	if (!p->raw || !p->out) {
		ret = zcs_err(err, errlen, -ENOMEM, "out of memory");
		goto fail;
	}
	if (p->is_stdin) {
		p->fd = STDIN_FILENO;
	} else {
		p->fd = open(cfg->path, O_RDONLY | O_CLOEXEC);
		if (p->fd < 0) {
			ret = zcs_err_errno(err, errlen, "cannot open %s", cfg->path);
			goto fail;
		}
		/* a FIFO or a device cannot be rewound: refuse now, not after one pass */
		if (p->loop && lseek(p->fd, 0, SEEK_CUR) < 0) {
			ret = zcs_err_errno(err, errlen, "--loop: %s cannot be rewound", cfg->path);
			goto fail;
		}
	}
	s->priv = p;
	zcs_source_set_unpaced_info(s, cfg->rate);
	return 0;
fail:
	s->priv = p;
	file_close(s);
	return ret;
}

/* Returns bytes read (0 at end of file), -EAGAIN when a pipe had nothing for a while, -errno. */
static ssize_t fill_raw(struct file_priv *p, size_t want)
{
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
	ssize_t n;

	for (;;) {
		const int r = poll(&pfd, 1, FILE_POLL_MS);

		if (r < 0 && errno != EINTR)
			return -errno;
		if (r == 0)
			return -EAGAIN;
		if (r < 0)
			continue;
		n = read(p->fd, p->raw + p->have, want);
		if (n >= 0)
			return n;
		if (errno != EINTR && errno != EAGAIN)
			return -errno;
	}
}

static ssize_t file_read(struct zcs_source *s, const int16_t **pairs, size_t max_pairs,
			 uint32_t *events, char *err, size_t errlen)
{
	struct file_priv *const p = s->priv;
	const size_t want_pairs = max_pairs < p->block ? max_pairs : p->block;
	size_t pairs_ready;
	ssize_t n;

	*events = 0;
	for (;;) {
		n = fill_raw(p, want_pairs * p->pair_bytes - p->have);
		if (n < 0) {
			if (n != -EAGAIN)
				return zcs_err(err, errlen, (int)n, "read: %s", strerror((int)-n));
			return n;
		}
		if (n == 0) {
			/* a trailing partial pair is dropped: it has no complete sample */
			if (!p->loop || !p->any_data)
				return 0;
			if (lseek(p->fd, 0, SEEK_SET) < 0) {
				const int e = errno; /* snprintf may change errno */

				return zcs_err(err, errlen, -e, "cannot rewind for --loop: %s",
					       strerror(e));
			}
			p->have = 0;
			continue;
		}
		p->have += (size_t)n;
		pairs_ready = p->have / p->pair_bytes;
		if (pairs_ready > 0)
			break;
	}
	p->any_data = true;
	zcs_import_convert((enum zcs_import_type)p->type, p->out, p->raw, pairs_ready);
	/* keep the bytes of a partial pair for the next read */
	p->have -= pairs_ready * p->pair_bytes;
	memmove(p->raw, p->raw + pairs_ready * p->pair_bytes, p->have);
	*pairs = p->out;
	return (ssize_t)pairs_ready;
}

/* No poll_info: the settings given at open never change. */
const struct zcs_source_ops zcs_source_file_ops = {
	.name = "file",
	.open = file_open,
	.read = file_read,
	.close = file_close,
};
