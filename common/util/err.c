// SPDX-License-Identifier: MIT
/* The one error formatter (err.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

int zcs_err(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

int zcs_err_errno(char *err, size_t errlen, const char *fmt, ...)
{
	const int e = errno ? errno : EIO;
	va_list ap;
	size_t n;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
		n = strlen(err);
		if (n < errlen)
			snprintf(err + n, errlen - n, ": %s", strerror(e));
	}
	return -e;
}
