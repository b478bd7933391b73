// SPDX-License-Identifier: MIT
/* The run state (rx_runs.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "rx_runs.h"

int zcs_rx_runs_open(struct zcs_rx_runs *r, const char *path, const struct zcs_key *key,
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

static bool same_run(const struct zcs_run_seen *a, const struct zcs_run_seen *b)
{
	return a->run == b->run && a->stream_id == b->stream_id &&
	       memcmp(a->salt, b->salt, sizeof(a->salt)) == 0;
}

int zcs_rx_runs_keep(struct zcs_rx_runs *r, const struct zcs_run_seen *newest, uint64_t now,
		     bool final, char *err, size_t errlen)
{
	int ret;

	if (!r->path[0])
		return 0;
	/* a failing disk is not hammered: after a failure the next try waits as long */
	if (r->failing && !final && now - r->saved_ns < ZCS_RX_RUNS_SAVE_NS)
		return 0;
	if (r->have_saved && same_run(&r->saved, newest)) {
		if (newest->meta_seq == r->saved.meta_seq)
			return 0;
		if (!final && now - r->saved_ns < ZCS_RX_RUNS_SAVE_NS)
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
