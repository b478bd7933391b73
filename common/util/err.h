/* SPDX-License-Identifier: MIT */
/* The one error idiom of zcs's library code: a function that fails writes a human message into a
 * caller's buffer and returns a negative errno; it never prints and never exits (redis anet.c). */
#ifndef ZCS_ERR_H
#define ZCS_ERR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* fmt into err (when err && errlen); returns ret, a negative errno:
 * `return zcs_err(err, errlen, -EINVAL, "bad rate %s", s);`. */
__attribute__((format(printf, 4, 5)))
int zcs_err(char *err, size_t errlen, int ret, const char *fmt, ...);

/* "<fmt>: <strerror(errno)>" into err; returns -errno.  Call it straight after the failed call,
 * with arguments that cannot touch errno (no function calls among them). */
__attribute__((format(printf, 3, 4)))
int zcs_err_errno(char *err, size_t errlen, const char *fmt, ...);

#ifdef __cplusplus
}
#endif

#endif
