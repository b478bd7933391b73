/* SPDX-License-Identifier: MIT */
/* Per-datagram zstd compression: every datagram is one independent zstd frame, so a lost datagram
 * never spoils another.  Without libzstd these return -ENOTSUP. */
#ifndef ZCS_CODEC_H
#define ZCS_CODEC_H

#include <stddef.h>
#include <sys/types.h>

struct zcs_codec;

/* Creates a compressor/decompressor pair; level as zstd's, 0 (its default) to ZSTD_maxCLevel()
 * (zcs-send's --zstd=LEVEL allows 1..19).  Returns 0 or -errno. */
int zcs_codec_create(struct zcs_codec **out, int level);
void zcs_codec_destroy(struct zcs_codec *c);

/* Compresses len bytes into dst (cap bytes).  Returns the compressed size when it is smaller
 * than len, 0 when the datagram should go uncompressed, or -errno. */
ssize_t zcs_codec_compress(struct zcs_codec *c, void *dst, size_t cap, const void *src, size_t len);

/* Decompresses one frame; returns the decoded size, or -EBADMSG for a corrupt frame or one that
 * would not fit in cap. */
ssize_t zcs_codec_decompress(struct zcs_codec *c, void *dst, size_t cap, const void *src, size_t len);

#endif
