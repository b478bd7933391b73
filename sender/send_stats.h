/* SPDX-License-Identifier: MIT */
/* zcs-send's statistics as text: the per-second line, JSON lines and the final summary.  Each is
 * written into the caller's buffer; the program decides where it goes. */
#ifndef ZCS_SEND_STATS_H
#define ZCS_SEND_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include "pipeline.h"

/* The interval between two snapshots, as one fixed line (no newline). */
void zcs_send_stats_line(char *buf, size_t len, const struct zcs_pipeline_stats *now,
			 const struct zcs_pipeline_stats *prev, double dt);

/* One JSON object (no newline).  final: the summary object, with averages over elapsed seconds;
 * otherwise the rates are over the interval dt.  Keys: docs/sender.md, "Statistics". */
void zcs_send_stats_json(char *buf, size_t len, const struct zcs_pipeline_stats *now,
			 const struct zcs_pipeline_stats *prev, double dt, double elapsed, bool final);

/* The human summary, several lines, each ending in a newline. */
void zcs_send_stats_summary(char *buf, size_t len, const struct zcs_pipeline_stats *s,
			    double elapsed);

#endif
