// SPDX-License-Identifier: MIT
/* The programs' option loop and number parsing: an end pointer, SI suffixes (k/K, M, G: decimal)
 * and a range check, and the messages refusing a value.  Integers are parsed in exact decimal so
 * "2.4M" is 2400000, not 2399999. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "err.h"

/* Decimal exponent of a suffix letter, or -1 if c is not one. */
static int suffix_exp(char c)
{
	switch (c) {
	case 'k': case 'K': return 3;
	case 'M': return 6;
	case 'G': return 9;
	default: return -1;
	}
}

/* Appends decimal digit d to *v; false when the result would not fit. */
static bool push_digit(uint64_t *v, int d)
{
	if (*v > (UINT64_MAX - (uint64_t)d) / 10)
		return false;
	*v = *v * 10 + (uint64_t)d;
	return true;
}

/* digits [. digits] [e [+-] digits] [k|K|M|G], all exact: the significant digits are collected
 * into a uint64_t and the decimal point, exponent and suffix move one decimal exponent.  More
 * significant digits than a uint64_t holds is -ERANGE, whatever the exponent. */
static int parse_exact_u64(const char *s, uint64_t *out)
{
	uint64_t mant = 0;
	long exp10 = 0;
	bool digits = false;
	const char *p = s;

	if (*p == '+')
		p++;
	for (; isdigit((unsigned char)*p); p++) {
		digits = true;
		if (!push_digit(&mant, *p - '0'))
			return -ERANGE;
	}
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++) {
			digits = true;
			if (!push_digit(&mant, *p - '0'))
				return -ERANGE;
			exp10--;
		}
	}
	if (!digits)
		return -EINVAL;
	if (*p == 'e' || *p == 'E') {
		char *end;
		long e;

		p++;
		if (!isdigit((unsigned char)*p) && !((*p == '+' || *p == '-') &&
						      isdigit((unsigned char)p[1])))
			return -EINVAL;
		errno = 0;
		e = strtol(p, &end, 10);
		if (errno || e > 1000 || e < -1000)
			return -ERANGE;
		exp10 += e;
		p = end;
	}
	if (*p && suffix_exp(*p) >= 0)
		exp10 += suffix_exp(*p++);
	if (*p)
		return -EINVAL;
	if (mant == 0) {
		*out = 0;
		return 0;
	}
	for (; exp10 < 0; exp10++) {
		if (mant % 10)
			return -EINVAL; /* not a whole number */
		mant /= 10;
	}
	for (; exp10 > 0; exp10--)
		if (!push_digit(&mant, 0))
			return -ERANGE;
	*out = mant;
	return 0;
}

int zcs_cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	int ret;

	if (!s || !*s)
		return -EINVAL;
	ret = parse_exact_u64(s, &v);
	if (ret < 0)
		return ret;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int zcs_cli_parse_double(const char *s, double min, double max, double *out)
{
	char buf[128];
	char *end;
	double v;
	int sx;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s)
		return -EINVAL;
	if (errno == ERANGE && fabs(v) > 1.0)
		return -ERANGE;
	if (!isfinite(v))
		return -EINVAL; /* "nan", "inf" are not settings */
	sx = *end ? suffix_exp(*end) : 0;
	if (sx < 0 || (*end && end[1]))
		return -EINVAL;
	if (sx > 0) {
		const size_t n = (size_t)(end - s);

		/* "915.2M" read as "915.2e6" rounds once, where 915.2 * 1e6 would round twice */
		if (!memchr(s, 'e', n) && !memchr(s, 'E', n) && !memchr(s, 'x', n) &&
		    !memchr(s, 'X', n) && n + 4 < sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*se%d", (int)n, s, sx);
			v = strtod(buf, NULL);
		} else {
			v *= sx == 3 ? 1e3 : sx == 6 ? 1e6 : 1e9;
		}
		if (!isfinite(v))
			return -ERANGE;
	}
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

const char *zcs_cli_why(int ret)
{
	return ret == -ERANGE ? "out of range" : "not a number";
}

/* The refusal of NAME's value ARG for the reason ret. */
static int opt_fail(const char *name, const char *arg, int ret, const char *hint, char *err,
		    size_t errlen)
{
	return zcs_err(err, errlen, -EINVAL, "%s '%s': %s%s%s%s", name, arg, zcs_cli_why(ret),
		       hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
}

int zcs_cli_opt_u64(const char *name, const char *arg, uint64_t min, uint64_t max,
		    const char *hint, uint64_t *out, char *err, size_t errlen)
{
	const int ret = zcs_cli_parse_u64(arg, min, max, out);

	return ret < 0 ? opt_fail(name, arg, ret, hint, err, errlen) : 0;
}

int zcs_cli_opt_double(const char *name, const char *arg, double min, double max,
		       const char *hint, double *out, char *err, size_t errlen)
{
	const int ret = zcs_cli_parse_double(arg, min, max, out);

	return ret < 0 ? opt_fail(name, arg, ret, hint, err, errlen) : 0;
}

int zcs_cli_opt_path(const char *name, const char *arg, const char **out, char *err,
		     size_t errlen)
{
	if (!arg[0])
		return zcs_err(err, errlen, -EINVAL, "%s '': empty file name", name);
	*out = arg;
	return 0;
}

/* The long option in argv element s ("--name" or "--name=value") as typed, without the value. */
static const char *long_typed(const char *s, char *buf, size_t len)
{
	const size_t n = strcspn(s, "=");

	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), s);
	return buf;
}

int zcs_cli_getopt(int argc, char *argv[], const char *shortopts, const struct option *longopts,
		   zcs_cli_opt_fn fn, void *ctx, int *operand, char *err, size_t errlen)
{
	char spec[64], name[64];
	int c, ret;

	/* ':' first: a missing value is told apart from an unknown option */
	if (snprintf(spec, sizeof(spec), ":%s", shortopts) >= (int)sizeof(spec))
		return zcs_err(err, errlen, -EINVAL, "internal: option string too long");
	opterr = 0; /* our own messages, naming the option */
	/* 0, not 1: glibc then forgets everything of an earlier run, a cluster it stopped inside
	 * included (tests parse many command lines in one process) */
	optind = 0;
	while ((c = getopt_long(argc, argv, spec, longopts, NULL)) != -1) {
		/* A long option, and a short one missing its value, end their argv element, so
		 * argv[optind - 1] is the one just read; any other short one may sit inside a
		 * cluster ("-qx") and is named by its letter. */
		const char *const last = argv[optind - 1];
		const bool short_known = optopt > 0 && optopt < 256 && optopt != ':' &&
					 strchr(shortopts, optopt);

		if (c == ':') {
			if (strncmp(last, "--", 2) == 0)
				long_typed(last, name, sizeof(name));
			else
				snprintf(name, sizeof(name), "-%c", optopt);
			return zcs_err(err, errlen, -EINVAL, "option '%s' needs a value (see --help)",
				       name);
		}
		if (c == '?') {
			/* getopt says '?' for a short letter it does not know, for a long name it
			 * does not know (optopt 0), and for a known long option given a value it
			 * takes none of ("--quiet=1": optopt is its letter, or a code above 255 that
			 * is no character at all) */
			if (optopt > 0 && optopt < 256 && !short_known)
				return zcs_err(err, errlen, -EINVAL,
					       "unknown option '-%c' (see --help)", optopt);
			if (optopt == 0)
				return zcs_err(err, errlen, -EINVAL,
					       "unknown option '%s' (see --help)",
					       long_typed(last, name, sizeof(name)));
			return zcs_err(err, errlen, -EINVAL,
				       "option '%s' takes no value (given '%s'; see --help)",
				       long_typed(last, name, sizeof(name)), last);
		}
		ret = fn(ctx, c, optarg, err, errlen);
		if (ret != 0)
			return ret;
	}
	*operand = optind;
	return 0;
}
