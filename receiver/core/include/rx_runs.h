/* SPDX-License-Identifier: MIT */
/* The run state: the newest keyed run the engine followed (zcs_rx_run_newest), kept in a file so
 * that a receiver started afresh refuses a replay of any run it followed before, or of an
 * earlier one (docs/security.md, "Fresh runs").  One record, replaced durably
 * (common/wire/runstate.h).  zcs-recv names the file from its options (recv_runs.h), the
 * SoapySDR module's reader from its run_state= argument. */
#ifndef ZCS_RX_RUNS_H
#define ZCS_RX_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "key.h"
#include "runstate.h"

/* A run's metadata number moves on every 500 ms: it is saved at most this often (and at exit),
 * a new run at once. */
#define ZCS_RX_RUNS_SAVE_NS (10ULL * 1000 * 1000 * 1000)

struct zcs_rx_runs {
	char path[4096];          /* "": nothing is kept */
	uint8_t key_id[ZCS_KEY_ID_BYTES];  /* the key the record is kept for (zcs_key_id) */
	bool other_key;           /* the file held another key's record: set aside (said at
				   * start), replaced by this key's at the first save */
	bool have_saved;          /* what the file holds: */
	struct zcs_run_seen saved;
	uint64_t saved_ns;        /* monotonic time of the last save, or of the last try */
	bool failing;             /* the last try failed */
};

/* Sets r up to keep the run state for key in the file named by path (NULL: nothing is kept) and
 * loads what the file holds for that key into *seen.  Returns 1 when a run was loaded, 0 when
 * there is none for this key (r->other_key: the file holds another key's) or nothing is kept,
 * or -errno with err naming the file when it is refused (corrupt, a symbolic link, not a regular
 * file, writable by group or others, another user's). */
int zcs_rx_runs_open(struct zcs_rx_runs *r, const char *path, const struct zcs_key *key,
		     struct zcs_run_seen *seen, char *err, size_t errlen);

/* Keeps newest, the newest run followed (zcs_rx_run_newest), at monotonic time now: at once
 * when it is another run than the one kept, when final (the program ends) or every
 * ZCS_RX_RUNS_SAVE_NS when only its metadata number moved.  The file is never lowered: when
 * another program keeping it (the SoapySDR module beside zcs-recv) saved a newer run, that stays
 * (zcs_run_seen_save).  Returns 1 when saved or found newer, 0 when nothing was due, or -errno
 * with err set (the file is left as it was; the next call tries again). */
int zcs_rx_runs_keep(struct zcs_rx_runs *r, const struct zcs_run_seen *newest, uint64_t now,
		     bool final, char *err, size_t errlen);

#endif
