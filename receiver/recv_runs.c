// SPDX-License-Identifier: MIT
/* zcs-recv's run state: where it is kept (recv_runs.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "recv_opts.h"
#include "recv_runs.h"

int zcs_recv_runs_open(struct zcs_rx_runs *r, const struct zcs_recv_opts *o,
		       struct zcs_run_seen *seen, char *err, size_t errlen)
{
	char path[sizeof(r->path)];
	struct stat st;
	int n;

	memset(r, 0, sizeof(*r));
	if (!o->key_path || !o->rx.key || (o->run_state && strcmp(o->run_state, "none") == 0))
		return 0;
	if (o->run_state)
		n = snprintf(path, sizeof(path), "%s", o->run_state) < (int)sizeof(path) ? 0
			: -ENAMETOOLONG;
	else
		n = zcs_run_state_path(path, sizeof(path), o->state_dir, o->key_path,
				       ZCS_RUN_SEEN_SUFFIX);
	if (n < 0)
		return zcs_err(err, errlen, -ENAMETOOLONG, "--run-state: name too long");
	/* a directory given must be there now: a run state that cannot be kept is said at start,
	 * not at the first run followed */
	if (o->state_dir) {
		if (stat(o->state_dir, &st) < 0)
			return zcs_err_errno(err, errlen, "--state-dir %s", o->state_dir);
		if (!S_ISDIR(st.st_mode))
			return zcs_err(err, errlen, -ENOTDIR, "--state-dir %s: not a directory",
				       o->state_dir);
	}
	return zcs_rx_runs_open(r, path, o->rx.key, seen, err, errlen);
}
