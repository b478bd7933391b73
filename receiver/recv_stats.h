/* SPDX-License-Identifier: MIT */
/* zcs-recv statistics: a snapshot of every counter, formatted as the once-a-second line (text or
 * JSON) and as the final summary.  Formatting only: the program decides where lines go. */
#ifndef ZCS_RECV_STATS_H
#define ZCS_RECV_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "recv_opts.h"
#include "rx.h"

struct zcs_recv_snapshot {
	uint64_t t_ns;                  /* monotonic time taken */
	double seconds;                 /* since the program started */
	struct zcs_rx_stats rx;
	struct zcs_reorder_stats ro;
	struct zcs_gapfill_stats gf;
	size_t depth, window;           /* datagrams held now; window in use */
	bool locked, have_meta;
	uint32_t stream_id;
	uint64_t rate, center_freq;
	int32_t gain_mdb;
	unsigned fec_k, fec_m;          /* the stream's erasure code (0: none) */
	size_t nout;
	struct zcs_output_stats out[ZCS_RECV_MAX_OUTPUTS];
	uint64_t overruns;              /* sum over the outputs */
	uint64_t skipped;               /* sum over the outputs */
	/* set by the program for the summary (snapshot_take leaves it NULL): "eos",
	 * "idle" (--eos-timeout), "count", "signal", "error" or "consumer" (every output's reader
	 * went away) */
	const char *ended_by;
};

/* Takes every counter now.  start_ns is the program's start (monotonic). */
void zcs_recv_snapshot_take(struct zcs_recv_snapshot *s, const struct zcs_rx *rx,
			    struct zcs_outputs *o, uint64_t start_ns);

/* One statistics line without newline: rates over the interval since prev (NULL: since start).
 * The loss counters come first; with width > 0 the line holds at most width - 1 columns (a
 * terminal's width: the last column left free so \r can redraw it), whole fields only, the
 * least important giving way first (the loss counters, then the rate, last); width 0: every
 * field.  Returns the length (snprintf's: truncated when >= len). */
int zcs_recv_stats_line(char *buf, size_t len, const struct zcs_recv_snapshot *cur,
			const struct zcs_recv_snapshot *prev, unsigned width);

/* The width of the terminal on fd (TIOCGWINSZ), else $COLUMNS, else 80. */
unsigned zcs_recv_stats_width(int fd);

/* One JSON object (built with jansson) on one line without newline; "type" is "stats" or, when
 * final, "summary".  Returns its length, or -1 (buf "") when it does not fit. */
int zcs_recv_stats_json(char *buf, size_t len, const struct zcs_recv_snapshot *cur,
			const struct zcs_recv_snapshot *prev, bool final);

/* How many recordings (file:, sigmf:) did not get every block: overruns, or blocks still queued
 * when the run ended.  The summary says so first, and zcs-recv exits 1. */
size_t zcs_recv_stats_incomplete(const struct zcs_recv_snapshot *cur);

/* The multi-line text summary, ending in a newline: first a line for each incomplete recording. */
int zcs_recv_stats_summary(char *buf, size_t len, const struct zcs_recv_snapshot *cur);

#endif
