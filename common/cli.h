/* SPDX-License-Identifier: MIT */
/* Helpers for the programs' option parsing: numbers with an end pointer and a range check,
 * SI suffixes ("20M", "2.4e6", "915.2M").  Return 0 or -EINVAL (not a number) / -ERANGE. */
#ifndef ZCS_CLI_H
#define ZCS_CLI_H

#include <stdint.h>

/* Integer with optional k/M/G suffix (x1e3, 1e6, 1e9) or decimal/exponent that is a whole number
 * after scaling ("2.4M" = 2400000, "1e6"). */
int zcs_cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Real number with the same suffixes. */
int zcs_cli_parse_double(const char *s, double min, double max, double *out);

#endif
