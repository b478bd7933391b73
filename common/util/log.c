// SPDX-License-Identifier: MIT
/* The one news helper (log.h). */
#include <stdio.h>

#include "log.h"

void zcs_log_va(const struct zcs_log *log, const char *who, const char *fmt, va_list ap)
{
	char line[ZCS_LOG_LINE];
	int n = 0;

	if (!log || !log->fn)
		return;
	if (who) {
		n = snprintf(line, sizeof(line), "%s: ", who);
		if (n < 0 || (size_t)n >= sizeof(line))
			n = 0;
	}
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	log->fn(log->ctx, line);
}

void zcs_log(const struct zcs_log *log, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	zcs_log_va(log, NULL, fmt, ap);
	va_end(ap);
}

void zcs_log_as(const struct zcs_log *log, const char *who, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	zcs_log_va(log, who, fmt, ap);
	va_end(ap);
}
