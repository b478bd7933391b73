// SPDX-License-Identifier: MIT
/* zstd in zcs-send (see compress.h): every decision about compression is made here, so the
 * options, the pipeline's set-up and its two threads only ask. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "codec.h"
#include "compress.h"
#include "err.h"
#include "pipeline.h"
#include "proto.h"
#include "sendpath.h"
#include "zcs_config.h"

int zcs_compress_check(int level, int path, char *err, size_t errlen)
{
	if (!level)
		return 0;
	if (!ZCS_HAVE_ZSTD)
		return zcs_err(err, errlen, -EINVAL, "--zstd: this build has no libzstd");
	if (path != ZCS_PATH_AUTO && path != ZCS_PATH_PLAIN)
		return zcs_err(err, errlen, -EINVAL,
			       "--zstd with --send-path %s: compressed datagrams differ in size, so "
			       "they go one per send (--send-path plain or auto)", zcs_path_name(path));
	return 0;
}

int zcs_compress_path(int level, int path)
{
	return level && path == ZCS_PATH_AUTO ? ZCS_PATH_PLAIN : path;
}

int zcs_compress_open(struct zcs_compress *z, int level, size_t max_payload, char *err,
		      size_t errlen)
{
	int ret;

	memset(z, 0, sizeof(*z));
	if (!level)
		return 0;
	ret = zcs_codec_create(&z->codec, level, ZCS_CODEC_ENCODE);
	if (ret < 0)
		return zcs_err(err, errlen, ret, "zstd: %s",
			       ret == -ENOTSUP ? "this build has no libzstd" : strerror(-ret));
	/* a frame is kept only when smaller than the raw payload, so this much always holds it */
	z->cap = max_payload;
	z->buf = malloc(z->cap ? z->cap : 1);
	if (!z->buf) {
		zcs_compress_close(z);
		return zcs_err(err, errlen, -ENOMEM, "zstd: out of memory");
	}
	return 0;
}

void zcs_compress_close(struct zcs_compress *z)
{
	zcs_codec_destroy(z->codec);
	free(z->buf);
	memset(z, 0, sizeof(*z));
}

size_t zcs_compress_payload(struct zcs_compress *z, uint8_t *payload, size_t len, uint8_t *flags)
{
	ssize_t n;

	if (!z->codec || len > z->cap)
		return len;
	/* 0 (no gain) and errors alike: the datagram goes raw, which a receiver always reads */
	n = zcs_codec_compress(z->codec, z->buf, z->cap, payload, len);
	if (n <= 0)
		return len;
	memcpy(payload, z->buf, (size_t)n);
	*flags |= ZCS_FLAG_ZSTD;
	return (size_t)n;
}

uint8_t zcs_compress_meta_flags(const struct zcs_compress *z)
{
	return z->codec ? ZCS_META_FLAG_ZSTD : 0;
}
