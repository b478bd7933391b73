/* SPDX-License-Identifier: MIT */
/* The JSON lines zcs writes (--json of both programs): built as jansson values, dumped on one
 * line.  jansson escapes every string, so no text can end a line or forge another object. */
#ifndef ZCS_JSONOUT_H
#define ZCS_JSONOUT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A counter (jansson integers are signed 64-bit: a value above INT64_MAX is clamped). */
json_t *zcs_json_u64(uint64_t v);

/* v rounded to decimals places, so 1.5 s prints as 1.5, not 1.4999999999999998; null when v is
 * not finite (JSON has no NaN). */
json_t *zcs_json_real(double v, int decimals);

/* Sets key in obj to v (taken, even on failure).  Returns 0, or -1 when v is NULL or out of
 * memory: callers OR the results and check once. */
int zcs_json_set(json_t *obj, const char *key, json_t *v);

/* Dumps doc compactly on one line into buf (len bytes, NUL terminated) and releases doc.
 * Returns the line's length, or -1 (buf "") when doc is NULL or the line does not fit. */
int zcs_json_line(char *buf, size_t len, json_t *doc);

#ifdef __cplusplus
}
#endif

#endif
