/* SPDX-License-Identifier: MIT */
/* zcs-recv's run state: where it is kept, from the options (--run-state, --state-dir, default
 * the key file's name + ".seen"); the engine keeps it (rx_runs.h). */
#ifndef ZCS_RECV_RUNS_H
#define ZCS_RECV_RUNS_H

#include <stddef.h>

#include "rx_runs.h"

struct zcs_recv_opts;

/* Sets r up for o (keyed only, o->rx.key loaded; --run-state none keeps nothing) and loads what
 * the file holds for that key into *seen.  Returns as zcs_rx_runs_open, and -errno with err set
 * when --state-dir is not a directory there now. */
int zcs_recv_runs_open(struct zcs_rx_runs *r, const struct zcs_recv_opts *o,
		       struct zcs_run_seen *seen, char *err, size_t errlen);

#endif
