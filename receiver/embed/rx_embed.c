// SPDX-License-Identifier: MIT
/* zcs-recv's receive path on a thread of its own, read back in-process (rx_embed.h): the core
 * (zcs_rx_step) feeds an outputs set whose one output is a reader; the caller's thread takes
 * blocks of the wire's bytes and events from it and turns them into samples of the type it asks
 * for (converted as they are read, with the same kernels) and one event per gap. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "cond.h"
#include "ctl_live.h"
#include "err.h"
#include "key.h"
#include "output.h"
#include "rx.h"
#include "rx_embed.h"
#include "rx_runs.h"

/* The receive thread looks at its stop flag at least this often. */
#define STEP_MS 50

struct zcs_rx_embed {
	struct zcs_rx *rx;
	struct zcs_rx_opts ropt;
	struct zcs_key key;        /* key=, for ropt.key */
	struct zcs_rx_runs runs;   /* run_state= (receive thread after the open) */
	struct zcs_run_seen seen;
	bool said_runs;            /* a failure to keep the run state was said */
	struct zcs_ctl_live *live; /* control=: the liveness check */
	struct zcs_kernels k;
	struct zcs_outputs *out;
	struct zcs_reader *rd;
	zcs_rx_embed_log_fn log;
	void *log_ctx;
	bool rx_open;
	pthread_t thread;
	bool thread_started;
	atomic_bool stop;
	uint64_t start_ns;

	/* the receive thread's results, for any thread */
	pthread_mutex_t mu;
	struct zcs_rx_snapshot snap;
	struct zcs_output_stats out_st; /* the reader's */
	int error;                 /* the step's -errno that ended the thread */
	struct zcs_addr sender;    /* the followed stream's sender (len 0: none yet) */
	pthread_cond_t cond;       /* a step was taken (wait_meta) */

	/* the reader's side (the caller's thread) */
	struct zcs_reader_item it;
	bool have_item;            /* a DATA item partly read */
	size_t off;                /* bytes of it read */
	bool have_next;
	uint64_t next_sample;      /* the index the next data should start at */
	bool have_meta;
	struct zcs_meta meta;      /* of the samples being read */
	enum zcs_sample_type type; /* what reads convert to */
};

static void news(void *ctx, const char *msg)
{
	struct zcs_rx_embed *const e = ctx;

	if (e->log)
		e->log(e->log_ctx, msg);
}

/* The newest keyed run followed goes to the run state as it changes, as zcs-recv keeps it
 * (rx_runs.h); a failure is said once and costs nothing else. */
static void keep_runs(struct zcs_rx_embed *e, bool final)
{
	struct zcs_run_seen newest;
	char err[512], msg[800];

	if (!zcs_rx_run_newest(e->rx, &newest))
		return;
	if (zcs_rx_runs_keep(&e->runs, &newest, zcs_mono_ns(), final, err, sizeof(err)) >= 0 ||
	    e->said_runs)
		return;
	e->said_runs = true;
	snprintf(msg, sizeof(msg), "cannot keep the newest keyed run (%s): opened again, this "
		 "device would not know it and could follow a replay of it while no sender runs "
		 "(run_state=FILE elsewhere)", err);
	news(e, msg);
}

static void *receive_main(void *arg)
{
	struct zcs_rx_embed *const e = arg;
	int ret = 0;

	while (!atomic_load_explicit(&e->stop, memory_order_relaxed)) {
		ret = zcs_rx_step(e->rx, STEP_MS);
		keep_runs(e, false);
		pthread_mutex_lock(&e->mu);
		zcs_rx_snapshot(e->rx, &e->snap);
		zcs_outputs_stats(e->out, 0, &e->out_st);
		if (!zcs_rx_sender(e->rx, &e->sender))
			e->sender.len = 0;
		if (ret < 0)
			e->error = ret;
		pthread_cond_broadcast(&e->cond);
		pthread_mutex_unlock(&e->mu);
		if (ret < 0)
			break;
	}
	zcs_rx_finish(e->rx);
	keep_runs(e, true);
	return NULL;
}

int zcs_rx_embed_open(struct zcs_rx_embed **ep, const struct zcs_rx_embed_opts *o, char *err,
		      size_t errlen)
{
	struct zcs_rx_embed *e;
	sigset_t all, old;
	int ret;

	*ep = NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return zcs_err(err, errlen, -ENOMEM, "out of memory");
	/* wait_meta's deadlines are on CLOCK_MONOTONIC: a wall clock set meanwhile moves neither */
	ret = zcs_cond_init_mono(&e->cond);
	if (ret < 0) {
		free(e);
		return zcs_err(err, errlen, ret, "condition variable");
	}
	ret = pthread_mutex_init(&e->mu, NULL);
	if (ret != 0) {
		pthread_cond_destroy(&e->cond);
		free(e);
		return zcs_err(err, errlen, -ret, "mutex");
	}
	e->log = o->log;
	e->log_ctx = o->log_ctx;
	e->start_ns = zcs_mono_ns();
	zcs_kernels_init(&e->k, ZCS_ISA_BEST);
	e->ropt.listen = o->listen;
	e->ropt.iface = o->iface;
	e->ropt.source = o->source;
	e->ropt.have_stream = o->have_stream;
	e->ropt.stream_id = o->stream_id;
	_Static_assert(ZCS_RX_EMBED_WINDOW_LIMIT == ZCS_RX_WINDOW_LIMIT, "one window limit");
	e->ropt.window = o->window;
	e->ropt.rcvbuf = ZCS_RX_DEFAULT_RCVBUF;
	/* the wire's bytes, converted when read: a change of the reader's type (setupStream's
	 * format) keeps the socket, the stream's state and what is queued */
	e->ropt.type = ZCS_SAMPLE_NATIVE;
	e->ropt.native_follows = true; /* each block's format is its pair size (zcs_wire_of_pair_bytes) */
	e->type = o->type;
	if (o->key_file) {
		ret = zcs_key_load(&e->key, o->key_file, err, errlen);
		if (ret < 0)
			goto out;
		e->ropt.key = &e->key;
		ret = zcs_rx_runs_open(&e->runs, o->run_state, &e->key, &e->seen, err,
					      errlen);
		if (ret < 0)
			goto out;
		if (ret == 1)
			e->ropt.run_seen = &e->seen;
		if (e->runs.other_key)
			news(e, "keyed runs: the run state was kept for another key: none yet for "
			     "this one (it replaces the other's)");
		if (o->control) {
			ret = zcs_ctl_live_start(&e->live, o->control, &e->key,
						 (struct zcs_log){ news, e }, err, errlen);
			if (ret < 0)
				goto out;
			e->ropt.run_check = (struct zcs_run_check){ zcs_ctl_live_judge, e->live };
		}
	}
	e->ropt.log.fn = news;
	e->ropt.log.ctx = e;

	ret = zcs_outputs_create(&e->out, ZCS_SAMPLE_NATIVE);
	if (ret < 0) {
		zcs_err(err, errlen, ret, "outputs: out of memory");
		e->out = NULL;
		goto out;
	}
	zcs_outputs_set_log(e->out, e->ropt.log);
	ret = zcs_outputs_add_reader(e->out, "soapy", &e->rd, err, errlen);
	if (ret < 0)
		goto out;
	ret = zcs_rx_open(&e->rx, &e->ropt, e->out, &e->k, err, errlen);
	if (ret < 0)
		goto out;
	e->rx_open = true;
	ret = zcs_outputs_start(e->out);
	if (ret < 0) {
		zcs_err(err, errlen, ret, "starting outputs");
		goto out;
	}
	/* before the receive thread runs: nothing the socket already holds is discarded, and the
	 * caller's "listening on" (the news below) means samples are kept from here */
	if (o->attached)
		zcs_rx_embed_activate(e);
	/* the receive thread takes no signals: they belong to the application */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&e->thread, NULL, receive_main, e);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret < 0) {
		zcs_err(err, errlen, ret, "receive thread");
		goto out;
	}
	e->thread_started = true;
	{
		char msg[160], where[64];

		snprintf(msg, sizeof(msg), "listening on %s, receive buffer %d bytes%s, read as %s",
			 zcs_rx_listen_name(o->listen, where, sizeof(where)),
			 zcs_rx_rcvbuf(e->rx), zcs_rx_gro(e->rx) ? ", UDP GRO" : "",
			 zcs_sample_name(o->type));
		news(e, msg);
	}
	*ep = e;
	return 0;
out:
	zcs_rx_embed_close(e);
	return ret;
}

void zcs_rx_embed_close(struct zcs_rx_embed *e)
{
	if (!e)
		return;
	if (e->thread_started) {
		atomic_store(&e->stop, true);
		pthread_join(e->thread, NULL);
	}
	if (e->rd)
		zcs_reader_detach(e->rd);
	if (e->out)
		zcs_outputs_destroy(e->out, 0);
	if (e->rx_open)
		zcs_rx_close(e->rx);
	/* after the engine, whose receive thread asked it */
	zcs_ctl_live_stop(e->live);
	zcs_key_wipe(&e->key);
	pthread_cond_destroy(&e->cond);
	pthread_mutex_destroy(&e->mu);
	free(e);
}

void zcs_rx_embed_activate(struct zcs_rx_embed *e)
{
	e->have_item = false;
	e->have_next = false;
	zcs_reader_attach(e->rd);
}

void zcs_rx_embed_deactivate(struct zcs_rx_embed *e)
{
	e->have_item = false;
	zcs_reader_detach(e->rd);
}

void zcs_rx_embed_set_type(struct zcs_rx_embed *e, enum zcs_sample_type t)
{
	e->type = t;
}

/* A META item: what changed for the samples after it. */
static enum zcs_rx_embed_event meta_event(struct zcs_rx_embed *e, const struct zcs_meta *m)
{
	enum zcs_rx_embed_event ev = ZCS_RX_EMBED_NONE;

	if (e->have_meta) {
		if (m->stream_id != e->meta.stream_id)
			ev = ZCS_RX_EMBED_RESTART;
		else if (m->sample_rate != e->meta.sample_rate)
			/* a new wire format alone is no news to the reader: each block is converted
			 * by its own pair size (zcs_wire_of_pair_bytes) into the same type, nothing lost */
			ev = ZCS_RX_EMBED_CHANGE;
	}
	if (ev == ZCS_RX_EMBED_RESTART)
		e->have_next = false;
	e->meta = *m;
	e->have_meta = true;
	return ev;
}

/* Converts what the DATA item in hand still holds, up to max_pairs, into the reader's type. */
static long copy_out(struct zcs_rx_embed *e, void *buf, size_t max_pairs, struct zcs_rx_embed_read *r)
{
	const struct zcs_reader_item *it = &e->it;
	const size_t pb = (size_t)(it->len / it->pairs);
	const size_t done = e->off / pb;
	size_t n = (size_t)it->pairs - done;

	if (n > max_pairs)
		n = max_pairs;
	if (e->type == ZCS_SAMPLE_NATIVE)
		memcpy(buf, it->data + e->off, n * pb);
	else
		e->k.unpack[zcs_wire_of_pair_bytes(pb)][e->type](buf, it->data + e->off, n);
	r->first_sample = it->first_sample + done;
	r->meta = e->meta;
	r->have_meta = e->have_meta;
	e->off += n * pb;
	if (e->off >= it->len)
		e->have_item = false;
	e->have_next = true;
	e->next_sample = r->first_sample + n;
	return (long)n;
}

/* Takes the item just read: true when it is an event to report now (in *r). */
static bool take_item(struct zcs_rx_embed *e, struct zcs_rx_embed_read *r)
{
	const struct zcs_reader_item *it = &e->it;

	switch (it->kind) {
	case ZCS_READER_DATA:
		/* whole pairs of one wire format: what gapfill commits, checked before converting */
		if (it->pairs == 0 || it->len % it->pairs ||
		    !zcs_wire_of_pair_bytes((size_t)(it->len / it->pairs)))
			return false;
		e->have_item = true;
		e->off = 0;
		if (!e->have_meta)
			e->have_meta = zcs_reader_last_meta(e->rd, &e->meta);
		if (e->have_next && it->first_sample != e->next_sample) {
			/* not explained by a gap: blocks the reader was too slow for, or a
			 * resynchronisation; the samples after it come with the next read */
			r->event = ZCS_RX_EMBED_JUMP;
			r->first_sample = e->next_sample;
			r->pairs = it->first_sample - e->next_sample;
			e->have_next = false;
			return true;
		}
		return false;
	case ZCS_READER_META:
		r->event = meta_event(e, &it->meta);
		r->meta = e->meta;
		r->have_meta = true;
		return r->event != ZCS_RX_EMBED_NONE;
	case ZCS_READER_GAP:
		/* the settings of the zeros to come: their time */
		if (!e->have_meta)
			e->have_meta = zcs_reader_last_meta(e->rd, &e->meta);
		r->meta = e->meta;
		r->have_meta = e->have_meta;
		r->event = ZCS_RX_EMBED_GAP;
		r->first_sample = it->first_sample;
		r->pairs = it->pairs;
		return true;
	case ZCS_READER_EOS:
		r->event = ZCS_RX_EMBED_EOS;
		e->have_next = false;
		return true;
	}
	return false;
}

long zcs_rx_embed_read(struct zcs_rx_embed *e, void *buf, size_t max_pairs, int timeout_ms,
		       struct zcs_rx_embed_read *r)
{
	const uint64_t end = zcs_mono_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ULL;

	memset(r, 0, sizeof(*r));
	if (max_pairs == 0)
		return 0;
	for (;;) {
		uint64_t now;
		int error;

		if (e->have_item)
			return copy_out(e, buf, max_pairs, r);
		now = zcs_mono_ns();
		if (zcs_reader_next(e->rd, now >= end ? 0 : (int)((end - now + 999999) / 1000000),
				    &e->it) == 1) {
			if (take_item(e, r))
				return 0;
			continue;
		}
		pthread_mutex_lock(&e->mu);
		error = e->error;
		pthread_mutex_unlock(&e->mu);
		if (error < 0)
			return error;
		if (zcs_mono_ns() >= end)
			return 0;
	}
}

void zcs_rx_embed_counters(struct zcs_rx_embed *e, struct zcs_rx_embed_counters *c)
{
	const struct zcs_rx_snapshot *s = &e->snap;

	pthread_mutex_lock(&e->mu);
	c->datagrams = s->rx.datagrams;
	c->invalid = s->rx.invalid;
	c->auth = s->rx.invalid_by[ZCS_PERR_AUTH];
	c->unconfirmed = s->rx.unconfirmed;
	c->socket_drops = s->rx.socket_drops;
	c->lost = s->ro.lost;
	c->late = s->ro.late;
	c->duplicate = s->ro.duplicate;
	c->reordered = s->ro.reordered;
	c->gaps = s->gf.gaps;
	c->gap_samples = s->gf.gap_samples;
	c->samples = s->gf.samples;
	c->rx_samples = s->gf.rx_samples;
	c->restarts = s->rx.restarts;
	c->overruns = e->out_st.overruns;
	c->unread = e->out_st.unread;
	c->have_meta = s->have_meta;
	pthread_mutex_unlock(&e->mu);
}

bool zcs_rx_embed_wait_meta(struct zcs_rx_embed *e, int timeout_ms, struct zcs_meta *m,
			    struct zcs_addr *from)
{
	const uint64_t end = zcs_mono_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ULL;
	bool have;

	pthread_mutex_lock(&e->mu);
	/* the condition variable runs on CLOCK_MONOTONIC (open); a step comes every 50 ms */
	for (;;) {
		uint64_t t;
		struct timespec ts;

		have = zcs_reader_last_meta(e->rd, m);
		/* the sender is known once the step that brought the metadata is over */
		if ((have && e->sender.len) || e->error < 0 || zcs_mono_ns() >= end)
			break;
		t = zcs_mono_ns() + 100 * 1000000ULL;
		ts.tv_sec = (time_t)(t / 1000000000ULL);
		ts.tv_nsec = (long)(t % 1000000000ULL);
		pthread_cond_timedwait(&e->cond, &e->mu, &ts);
	}
	*from = e->sender;
	pthread_mutex_unlock(&e->mu);
	return have;
}

bool zcs_rx_embed_meta(struct zcs_rx_embed *e, struct zcs_meta *m)
{
	return zcs_reader_last_meta(e->rd, m);
}

uint64_t zcs_rx_embed_time_ns(const struct zcs_meta *m, uint64_t index)
{
	const int64_t d = (int64_t)(index - m->ref_sample);
	int64_t whole, part;

	if (m->ref_time_ns == 0 || m->sample_rate == 0)
		return 0;
	whole = d / (int64_t)m->sample_rate;
	part = d % (int64_t)m->sample_rate;
	/* exact to the ns, without the overflow of d * 1e9 at large indices */
	return (uint64_t)((int64_t)m->ref_time_ns + whole * 1000000000LL +
			  part * 1000000000LL / (int64_t)m->sample_rate);
}
