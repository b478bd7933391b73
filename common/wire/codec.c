// SPDX-License-Identifier: MIT
/* Per-datagram zstd: one reusable context each way (allocated once, none per packet) and every
 * datagram a complete, independent frame.  Built without libzstd, everything is -ENOTSUP. */
#include <errno.h>
#include <stdlib.h>

#include "codec.h"
#include "zcs_config.h"

#if ZCS_HAVE_ZSTD
#include <zstd.h>
#include <zstd_errors.h>

struct zcs_codec {
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
};

int zcs_codec_create(struct zcs_codec **out, int level, unsigned ways)
{
	struct zcs_codec *c;
	int ret = -ENOMEM;

	*out = NULL;
	/* 0 means zstd's default; negative (fast) levels gain nothing on I/Q noise floors */
	if (level < 0 || level > ZSTD_maxCLevel() || ways == 0 ||
	    (ways & ~(ZCS_CODEC_ENCODE | ZCS_CODEC_DECODE)))
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto out;
	if ((ways & ZCS_CODEC_DECODE) && !(c->dctx = ZSTD_createDCtx()))
		goto out;
	if (!(ways & ZCS_CODEC_ENCODE))
		goto done;
	c->cctx = ZSTD_createCCtx();
	if (!c->cctx)
		goto out;
	/* A datagram's frame must stand alone and stay small: content size in the frame header (so
	 * the receiver can check it before decoding), no checksum (UDP already has one). */
	if (ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_contentSizeFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_checksumFlag, 0))) {
		ret = -EINVAL;
		goto out;
	}
done:
	*out = c;
	c = NULL;
	ret = 0;
out:
	zcs_codec_destroy(c);
	return ret;
}

bool zcs_codec_can(const struct zcs_codec *c, unsigned way)
{
	return c && (way == ZCS_CODEC_ENCODE ? c->cctx != NULL : way == ZCS_CODEC_DECODE && c->dctx);
}

void zcs_codec_destroy(struct zcs_codec *c)
{
	if (!c)
		return;
	ZSTD_freeCCtx(c->cctx);
	ZSTD_freeDCtx(c->dctx);
	free(c);
}

ssize_t zcs_codec_compress(struct zcs_codec *c, void *dst, size_t cap, const void *src, size_t len)
{
	size_t ret;

	if (!c->cctx)
		return -EINVAL;
	if (len <= 1)
		return 0;
	/* Only a strictly smaller frame is worth sending: cap the output at len - 1 and let zstd
	 * tell us it did not fit. */
	if (cap > len - 1)
		cap = len - 1;
	/* ZSTD_compress2 starts a new frame with no history: nothing carries over between calls */
	ret = ZSTD_compress2(c->cctx, dst, cap, src, len);
	if (ZSTD_isError(ret)) {
		if (ZSTD_getErrorCode(ret) == ZSTD_error_dstSize_tooSmall)
			return 0;
		return ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation ? -ENOMEM : -EIO;
	}
	return (ssize_t)ret;
}

ssize_t zcs_codec_decompress(struct zcs_codec *c, void *dst, size_t cap, const void *src, size_t len)
{
	size_t ret;

	if (!c->dctx)
		return -EINVAL;
	/* exactly one frame and nothing after it: trailing bytes or a second (possibly skippable)
	 * frame are not a datagram we sent */
	ret = ZSTD_findFrameCompressedSize(src, len);
	if (ZSTD_isError(ret) || ret != len)
		return -EBADMSG;
	ret = ZSTD_decompressDCtx(c->dctx, dst, cap, src, len);
	if (ZSTD_isError(ret))
		return -EBADMSG;
	return (ssize_t)ret;
}

#else /* !ZCS_HAVE_ZSTD */

int zcs_codec_create(struct zcs_codec **out, int level, unsigned ways)
{
	(void)level, (void)ways;
	*out = NULL;
	return -ENOTSUP;
}

bool zcs_codec_can(const struct zcs_codec *c, unsigned way)
{
	(void)c, (void)way;
	return false;
}

void zcs_codec_destroy(struct zcs_codec *c)
{
	(void)c;
}

ssize_t zcs_codec_compress(struct zcs_codec *c, void *dst, size_t cap, const void *src, size_t len)
{
	(void)c, (void)dst, (void)cap, (void)src, (void)len;
	return -ENOTSUP;
}

ssize_t zcs_codec_decompress(struct zcs_codec *c, void *dst, size_t cap, const void *src, size_t len)
{
	(void)c, (void)dst, (void)cap, (void)src, (void)len;
	return -ENOTSUP;
}

#endif
