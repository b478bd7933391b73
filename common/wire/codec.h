/* SPDX-License-Identifier: MIT */
/* Per-datagram zstd compression: every datagram is one independent zstd frame, so a lost datagram
 * never spoils another.  Without libzstd these return -ENOTSUP. */
#ifndef ZCS_CODEC_H
#define ZCS_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct zcs_codec;

/* What a codec is for: each way is a zstd context of its own (a compression context is hundreds
 * of KB at the higher levels), so a receiver asks only for decoding. */
#define ZCS_CODEC_ENCODE 1u
#define ZCS_CODEC_DECODE 2u

/* Creates a codec for `ways` (ZCS_CODEC_ENCODE and/or ZCS_CODEC_DECODE); level as zstd's, 0 (its
 * default) to ZSTD_maxCLevel() (zcs-send's --zstd=LEVEL allows 1..19), ignored for decoding only.
 * Returns 0 or -errno. */
int zcs_codec_create(struct zcs_codec **out, int level, unsigned ways);
/* Whether the codec was made for that way (a test's look at what was allocated). */
bool zcs_codec_can(const struct zcs_codec *c, unsigned way);
void zcs_codec_destroy(struct zcs_codec *c);

/* Compresses len bytes into dst (cap bytes).  Returns the compressed size when it is smaller
 * than len, 0 when the datagram should go uncompressed, or -errno (-EINVAL: not an encoder). */
ssize_t zcs_codec_compress(struct zcs_codec *c, void *dst, size_t cap, const void *src, size_t len);

/* Decompresses one frame; returns the decoded size, or -EBADMSG for a corrupt frame or one that
 * would not fit in cap (-EINVAL: not a decoder). */
ssize_t zcs_codec_decompress(struct zcs_codec *c, void *dst, size_t cap, const void *src, size_t len);

#ifdef __cplusplus
}
#endif

#endif
