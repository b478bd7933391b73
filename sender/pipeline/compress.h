/* SPDX-License-Identifier: MIT */
/* zstd in zcs-send, all of it in one place: the checks of --zstd, the send path a compressed
 * stream takes, the one compressor (the source thread's) with its buffer, and the flags it puts
 * on the wire.  Every datagram is one independent frame (common/wire/codec.h). */
#ifndef ZCS_COMPRESS_H
#define ZCS_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct zcs_codec;

struct zcs_compress {
	struct zcs_codec *codec;  /* NULL: the stream goes uncompressed */
	uint8_t *buf;             /* one datagram's compressed payload, before it replaces the raw */
	size_t cap;
};

/* zcs_compress_check, the options' question, is declared in pipeline.h. */

/* The send path a stream at `level` takes when `path` was asked for: compressed datagrams differ
 * in size, so GSO cannot carry them and auto becomes plain (one datagram per send). */
int zcs_compress_path(int level, int path);

/* Why, when zcs_compress_path() chose the path and not the user: the start-up line says it. */
#define ZCS_COMPRESS_PATH_WHY "--zstd: compressed datagrams differ in size, so one per send"

/* Sets up compression at level (0: off, nothing allocated) of payloads up to max_payload bytes.
 * Returns 0 or -errno with err set. */
int zcs_compress_open(struct zcs_compress *z, int level, size_t max_payload, char *err,
		      size_t errlen);
void zcs_compress_close(struct zcs_compress *z);

static inline bool zcs_compress_on(const struct zcs_compress *z)
{
	return z->codec != NULL;
}

/* Compresses the len payload bytes at payload in place when that makes them smaller: returns the
 * length to send, with ZCS_FLAG_ZSTD added to *flags when compressed; len when they go raw.  On
 * the source thread only (the compressor is not shared). */
size_t zcs_compress_payload(struct zcs_compress *z, uint8_t *payload, size_t len, uint8_t *flags);

/* The metadata flags saying how the stream's datagrams are compressed. */
uint8_t zcs_compress_meta_flags(const struct zcs_compress *z);

#endif
