/* SPDX-License-Identifier: MIT */
/* The one news helper of zcs's library code: a line is formatted here and handed to a sink the
 * program supplied (its stderr, a test's buffer), so no library code ever prints. */
#ifndef ZCS_LOG_H
#define ZCS_LOG_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest line handed to a sink, NUL included; longer ones are cut. */
#define ZCS_LOG_LINE 512

/* Gets one line of news (no newline).  It may be called on any of the library's threads. */
typedef void (*zcs_log_fn)(void *ctx, const char *line);

/* A sink: fn NULL drops every line. */
struct zcs_log {
	zcs_log_fn fn;
	void *ctx;
};

/* Formats one line and hands it to log's sink (nothing when log or its fn is NULL). */
__attribute__((format(printf, 2, 3)))
void zcs_log(const struct zcs_log *log, const char *fmt, ...);
/* The same line after "WHO: " (who names the part speaking, an output for instance). */
__attribute__((format(printf, 3, 4)))
void zcs_log_as(const struct zcs_log *log, const char *who, const char *fmt, ...);
__attribute__((format(printf, 3, 0)))
void zcs_log_va(const struct zcs_log *log, const char *who, const char *fmt, va_list ap);

#ifdef __cplusplus
}
#endif

#endif
