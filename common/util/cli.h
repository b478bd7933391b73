/* SPDX-License-Identifier: MIT */
/* Helpers for the programs' option parsing: numbers with an end pointer and a range check,
 * SI suffixes ("20M", "2.4e6", "915.2M").  Return 0 or -EINVAL (not a number) / -ERANGE. */
#ifndef ZCS_CLI_H
#define ZCS_CLI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Integer with optional k/M/G suffix (x1e3, 1e6, 1e9) or decimal/exponent that is a whole number
 * after scaling ("2.4M" = 2400000, "1e6"). */
int zcs_cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Real number with the same suffixes. */
int zcs_cli_parse_double(const char *s, double min, double max, double *out);

/* The messages the programs' option parsers share, so both say the same thing the same way.
 * Each writes into the caller's err (never prints) and returns -EINVAL on a refusal. */

/* Why a zcs_cli_parse_*() call refused: "out of range" for -ERANGE, else "not a number". */
const char *zcs_cli_why(int ret);
/* An option's number through zcs_cli_parse_u64 / _double.  Returns 0 with *out set, or -EINVAL
 * (*out untouched) with err "NAME 'ARG': out of range (HINT)" or "...: not a number (HINT)";
 * hint NULL leaves the parenthesis out. */
int zcs_cli_opt_u64(const char *name, const char *arg, uint64_t min, uint64_t max,
		    const char *hint, uint64_t *out, char *err, size_t errlen);
int zcs_cli_opt_double(const char *name, const char *arg, double min, double max,
		       const char *hint, double *out, char *err, size_t errlen);
/* An option's file name: 0 with *out = arg, or -EINVAL with err "NAME '': empty file name"
 * (an empty name would otherwise reach open() as "" and fail there with a vaguer ENOENT). */
int zcs_cli_opt_path(const char *name, const char *arg, const char **out, char *err,
		     size_t errlen);

/* The one option loop of both programs: getopt_long over argv (shortopts without a leading ':';
 * no permutation games: options and operands may mix as GNU getopt allows), fn called for each
 * option with its value (NULL when none).  The refusals name the option as the user typed it:
 *   unknown option '--bogus' / '-x'
 *   option '--window' / '-o' needs a value
 *   option '--quiet' takes no value (given '--quiet=1')
 * Returns the first non-zero value of fn, -EINVAL with err set for those refusals, or 0 with
 * *operand the index in argv of the first operand (argc when there is none). */
struct option;
typedef int (*zcs_cli_opt_fn)(void *ctx, int c, const char *arg, char *err, size_t errlen);
int zcs_cli_getopt(int argc, char *argv[], const char *shortopts, const struct option *longopts,
		   zcs_cli_opt_fn fn, void *ctx, int *operand, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
