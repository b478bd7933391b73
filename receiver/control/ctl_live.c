// SPDX-License-Identifier: MIT
/* The liveness check (ctl_live.h): the rule under a mutex for the receive thread, and a thread
 * that asks the board with a one-shot control-channel get (common/ctl/ctl_client.h). */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "ctl_client.h"
#include "ctl_live.h"
#include "err.h"

enum zcs_run_verdict zcs_live_rule_judge(struct zcs_live_rule *r, const struct zcs_run_claim *c,
					 uint64_t now, bool *ask)
{
	if (ask)
		*ask = false;
	if (r->have_answer) {
		/* the board's run counter only grows: a run below its live one never is live again */
		if (c->run < r->run)
			return ZCS_RUN_NOT_LIVE;
		if (c->run == r->run)
			return c->stream_id == r->stream_id ? ZCS_RUN_LIVE : ZCS_RUN_NOT_LIVE;
		/* above it: the board had not begun that run when asked.  Asked after the claim
		 * came, it still had not, yet an authentic datagram of its run exists only once it
		 * has (it counts the run before sending any): not its run */
		if (r->answer_asked_ns >= c->since_ns)
			return ZCS_RUN_NOT_LIVE;
	}
	if (r->busy || !ask)
		return ZCS_RUN_UNKNOWN;
	/* the generic cell rate algorithm: one request per interval, a burst of BURST ahead */
	if (r->tat_ns > now + (ZCS_CTL_LIVE_BURST - 1) * ZCS_CTL_LIVE_INTERVAL_NS) {
		r->limited++;
		return ZCS_RUN_UNKNOWN;
	}
	r->tat_ns = (r->tat_ns > now ? r->tat_ns : now) + ZCS_CTL_LIVE_INTERVAL_NS;
	r->busy = true;
	r->busy_ns = now;
	*ask = true;
	return ZCS_RUN_UNKNOWN;
}

void zcs_live_rule_answer(struct zcs_live_rule *r, bool ok, uint64_t run, uint32_t stream_id)
{
	r->busy = false;
	if (!ok)
		return;   /* an earlier answer stays: the counter it named has only grown since */
	r->have_answer = true;
	r->run = run;
	r->stream_id = stream_id;
	r->answer_asked_ns = r->busy_ns;
}

struct zcs_ctl_live {
	char host[256];               /* "" = each claim's sender */
	char port[8];
	struct zcs_key key;
	struct zcs_log log;
	pthread_t thread;
	bool started;
	/* written by zcs_ctl_live_stop: a request waiting on a board that does not answer is given
	 * up at once (zcs_ctl_client_request_cancel), so the program's exit is not held by it */
	int cancel_fd;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;
	struct zcs_live_rule rule;
	bool todo;                    /* a request to make (the rule counts it as out): */
	char to[300];                 /* ... to this control channel */
	uint64_t todo_run;            /* ... for this claim (for the messages) */
	bool failing;                 /* the last request failed, and it was said */
	struct zcs_ctl_live_stats st;
};

enum zcs_run_verdict zcs_ctl_live_judge(void *ctx, const struct zcs_run_claim *c, uint64_t now)
{
	struct zcs_ctl_live *l = ctx;
	enum zcs_run_verdict v;
	char to[300];
	bool can_ask, ask = false;

	if (l->host[0]) {
		snprintf(to, sizeof(to), "%s:%s", l->host, l->port);
		can_ask = true;
	} else {
		/* the claim's sender: unknown until a datagram of it carried its address */
		can_ask = c->from && zcs_ctl_addr_at(c->from, l->port, to, sizeof(to));
	}
	pthread_mutex_lock(&l->mu);
	v = zcs_live_rule_judge(&l->rule, c, now, can_ask ? &ask : NULL);
	if (ask) {
		l->todo = true;
		memcpy(l->to, to, sizeof(l->to));
		l->todo_run = c->run;
		l->st.requests++;
		pthread_cond_signal(&l->cv);
	}
	pthread_mutex_unlock(&l->mu);
	return v;
}

/* One request, without the lock: the board's live run into *run and *id, or -errno + err. */
static int ask_board(struct zcs_ctl_live *l, const char *to, uint64_t *run, uint32_t *id,
		     char *err, size_t errlen)
{
	struct zcs_ctl_reply r;
	int ret;

	memset(&r, 0, sizeof(r));
	ret = zcs_ctl_client_request_cancel(to, &l->key, NULL, &r, ZCS_CTL_LIVE_TIMEOUT_MS,
					    l->cancel_fd, err, errlen);
	if (ret < 0)
		return ret;
	if (!r.ok)
		return zcs_err(err, errlen, -EPROTO, "it refused get: %s", r.error);
	/* a zcs-send before protocol revision 5 does not say its run */
	if (!r.has_stream || r.stream.run == 0)
		return zcs_err(err, errlen, -EPROTO, "its get names no run (a zcs-send before "
			       "protocol revision 5?)");
	*run = r.stream.run;
	*id = r.stream.id;
	return 0;
}

static void *live_main(void *arg)
{
	struct zcs_ctl_live *l = arg;

	pthread_mutex_lock(&l->mu);
	while (!l->stop) {
		char to[300], err[512];
		uint64_t claim, run = 0;
		uint32_t id = 0;
		int ret;

		if (!l->todo) {
			pthread_cond_wait(&l->cv, &l->mu);
			continue;
		}
		l->todo = false;
		memcpy(to, l->to, sizeof(to));
		claim = l->todo_run;
		pthread_mutex_unlock(&l->mu);
		ret = ask_board(l, to, &run, &id, err, sizeof(err));
		pthread_mutex_lock(&l->mu);
		if (l->stop)
			break;
		zcs_live_rule_answer(&l->rule, ret == 0, run, id);
		if (ret == 0) {
			l->st.answers++;
			if (l->failing)
				zcs_log(&l->log, "control: the board at %s answers again (its live run: %"
					PRIu64 ")", to, run);
			l->failing = false;
			continue;
		}
		l->st.failed++;
		if (!l->failing)
			zcs_log(&l->log, "control: cannot ask the board at %s whether run %" PRIu64
				" is live: %s.  A keyed run this receiver has no record of is not "
				"followed until the board answers (asked again at most once a second)",
				to, claim, err);
		l->failing = true;
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

int zcs_ctl_live_start(struct zcs_ctl_live **out, const char *addr, const struct zcs_key *key,
		       struct zcs_log log, char *err, size_t errlen)
{
	struct zcs_ctl_live *l;
	int ret;

	*out = NULL;
	if (!(l = calloc(1, sizeof(*l))))
		return zcs_err(err, errlen, -ENOMEM, "out of memory");
	ret = zcs_ctl_addr_split(addr, l->host, sizeof(l->host), l->port, sizeof(l->port),
				 "--control", err, errlen);
	if (ret < 0) {
		free(l);
		return ret;
	}
	l->key = *key;
	l->log = log;
	l->cancel_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (l->cancel_fd < 0) {
		ret = zcs_err_errno(err, errlen, "control: eventfd");
		zcs_key_wipe(&l->key);
		free(l);
		return ret;
	}
	if ((ret = pthread_mutex_init(&l->mu, NULL)) != 0) {
		ret = zcs_err(err, errlen, -ret, "control: mutex: %s", strerror(ret));
		goto fail;
	}
	if ((ret = pthread_cond_init(&l->cv, NULL)) != 0) {
		pthread_mutex_destroy(&l->mu);
		ret = zcs_err(err, errlen, -ret, "control: condition variable: %s", strerror(ret));
		goto fail;
	}
	if ((ret = pthread_create(&l->thread, NULL, live_main, l)) != 0) {
		zcs_ctl_live_stop(l);
		return zcs_err(err, errlen, -ret, "control: cannot start the liveness check's thread: "
			       "%s", strerror(ret));
	}
	l->started = true;
	*out = l;
	return 0;
fail:
	close(l->cancel_fd);
	zcs_key_wipe(&l->key);
	free(l);
	return ret;
}

void zcs_ctl_live_stats(struct zcs_ctl_live *l, struct zcs_ctl_live_stats *out)
{
	pthread_mutex_lock(&l->mu);
	*out = l->st;
	out->limited = l->rule.limited;
	pthread_mutex_unlock(&l->mu);
}

void zcs_ctl_live_stop(struct zcs_ctl_live *l)
{
	if (!l)
		return;
	if (l->started) {
		const uint64_t one = 1;

		pthread_mutex_lock(&l->mu);
		l->stop = true;
		pthread_cond_signal(&l->cv);
		pthread_mutex_unlock(&l->mu);
		/* a request out is given up (it waits on this fd too); nothing else here blocks */
		if (write(l->cancel_fd, &one, sizeof(one)) < 0) {
			/* an eventfd refuses a write only at its largest count: already cancelled */
		}
		pthread_join(l->thread, NULL);
	}
	close(l->cancel_fd);
	pthread_cond_destroy(&l->cv);
	pthread_mutex_destroy(&l->mu);
	zcs_key_wipe(&l->key);
	free(l);
}
