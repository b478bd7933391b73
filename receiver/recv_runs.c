// SPDX-License-Identifier: MIT
/* zcs-recv's run state (recv_runs.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "recv_opts.h"
#include "recv_runs.h"

int zcs_recv_runs_open_path(struct zcs_recv_runs *r, const char *path, const struct zcs_key *key,
			    struct zcs_run_seen *seen, char *err, size_t errlen)
{
	int n, ret;

	memset(r, 0, sizeof(*r));
	if (!path)
		return 0;
	n = snprintf(r->path, sizeof(r->path), "%s", path);
	if (n < 0 || (size_t)n >= sizeof(r->path)) {
		r->path[0] = '\0';
		return zcs_err(err, errlen, -ENAMETOOLONG, "run state: name too long");
	}
	zcs_key_id(key, r->key_id);
	ret = zcs_run_seen_load(r->path, r->key_id, seen, err, errlen);
	if (ret == ZCS_RUN_SEEN_OTHER_KEY) {
		r->other_key = true;
		return 0;
	}
	if (ret == 1) {
		r->have_saved = true;
		r->saved = *seen;
	}
	return ret;
}

int zcs_recv_runs_open(struct zcs_recv_runs *r, const struct zcs_recv_opts *o,
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
	return zcs_recv_runs_open_path(r, path, o->rx.key, seen, err, errlen);
}

static bool same_run(const struct zcs_run_seen *a, const struct zcs_run_seen *b)
{
	return a->run == b->run && a->stream_id == b->stream_id &&
	       memcmp(a->salt, b->salt, sizeof(a->salt)) == 0;
}

int zcs_recv_runs_keep(struct zcs_recv_runs *r, const struct zcs_run_seen *newest, uint64_t now,
		       bool final, char *err, size_t errlen)
{
	int ret;

	if (!r->path[0])
		return 0;
	/* a failing disk is not hammered: after a failure the next try waits as long */
	if (r->failing && !final && now - r->saved_ns < ZCS_RECV_RUNS_SAVE_NS)
		return 0;
	if (r->have_saved && same_run(&r->saved, newest)) {
		if (newest->meta_seq == r->saved.meta_seq)
			return 0;
		if (!final && now - r->saved_ns < ZCS_RECV_RUNS_SAVE_NS)
			return 0;
	}
	ret = zcs_run_seen_save(r->path, r->key_id, newest, err, errlen);
	r->saved_ns = now;
	r->failing = ret < 0;
	if (ret < 0)
		return ret;
	r->have_saved = true;
	r->saved = *newest;
	return 1;
}
