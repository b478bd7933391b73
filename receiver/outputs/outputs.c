// SPDX-License-Identifier: MIT
/* The output set: outputs added from their specs, the pool sized and the writer and accept
 * threads started, statistics, and a shutdown that waits for consumers only up to a deadline.
 * The receive thread's side is out_feed.c, the writers' out_writer.c, the pool out_pool.c. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "err.h"
#include "net.h"
#include "output_kinds.h"

static const struct zcs_out_ops *const kinds[] = {
	&zcs_out_fifo_ops, &zcs_out_tcpc_ops, &zcs_out_tcp_ops, &zcs_out_udp_ops,
	&zcs_out_file_ops, &zcs_out_rtltcp_ops, &zcs_out_sigmf_ops,
};

/* ---- services for the kinds ---- */

bool zcs_out_stopping(const struct zcs_out *out)
{
	return atomic_load_explicit(&out->set->stop, memory_order_relaxed);
}

bool zcs_out_last_meta(struct zcs_out *out, struct zcs_meta *m)
{
	bool have;

	pthread_mutex_lock(&out->mu);
	have = out->have_meta;
	if (have)
		*m = out->meta;
	pthread_mutex_unlock(&out->mu);
	return have;
}

void zcs_out_fail(struct zcs_out *out, int err)
{
	int none = 0;

	if (err <= 0)
		err = EIO;
	/* a socket on stdout whose reader went away resets rather than breaks the pipe */
	if (err == ECONNRESET)
		err = EPIPE;
	if (!atomic_compare_exchange_strong(&out->failed, &none, err))
		return;
	/* a reader of stdout that went away (`| head`) is no error of ours, only the end */
	if (err == EPIPE)
		zcs_log_as(&out->set->log, out->name, "the reader went away");
	else
		zcs_log_as(&out->set->log, out->name, "cannot write: %s: what follows is not kept",
			   strerror(err));
}

int zcs_out_parse_hostport(const struct zcs_out *out, const char *arg, struct zcs_addr *a,
			   char *err, size_t errlen)
{
	const int ret = zcs_net_parse_addr(a, arg, 0, err, errlen);

	if (ret < 0)
		return ret;
	if (zcs_net_port(a) == 0 || !*arg || arg[0] == ':')
		return zcs_err(err, errlen, -EINVAL, "%s: give HOST:PORT", out->name);
	return 0;
}

/* ---- set ---- */

int zcs_outputs_create(struct zcs_outputs **out, enum zcs_sample_type type)
{
	struct zcs_outputs *o = calloc(1, sizeof(*o));

	if (!o)
		return -ENOMEM;
	o->type = type;
	o->client_timeout_ns = (uint64_t)ZCS_OUTPUTS_CLIENT_TIMEOUT_MS * 1000000u;
	if (zcs_out_pool_init(&o->pool) < 0) {
		free(o);
		return -ENOMEM;
	}
	*out = o;
	return 0;
}

void zcs_outputs_set_client_timeout(struct zcs_outputs *o, uint64_t ms)
{
	o->client_timeout_ns = ms * 1000000u;
}

int zcs_outputs_failed(struct zcs_outputs *o, size_t *index, bool *all)
{
	int first = 0;
	size_t n = 0;

	for (size_t i = 0; i < o->n; i++) {
		const int e = atomic_load(&o->outs[i]->failed);

		if (!e)
			continue;
		n++;
		/* a real error first: it decides the exit status over a reader gone */
		if (!first || (first == EPIPE && e != EPIPE)) {
			first = e;
			if (index)
				*index = i;
		}
	}
	if (all)
		*all = o->n > 0 && n == o->n;
	return first;
}

void zcs_outputs_set_log(struct zcs_outputs *o, struct zcs_log log)
{
	o->log = log;
}

void zcs_outputs_set_tune(struct zcs_outputs *o,
			  void (*fn)(void *ctx, const struct zcs_ctl_settings *want), void *ctx)
{
	o->tune = fn;
	o->tune_ctx = ctx;
}

void zcs_outputs_set_tune_allow(struct zcs_outputs *o,
				bool (*allow)(void *ctx, const struct zcs_addr *peer))
{
	o->tune_allow = allow;
}

int zcs_outputs_tune_listen(struct zcs_outputs *o, size_t i, struct zcs_addr *a)
{
	if (i >= o->n || o->outs[i]->ops != &zcs_out_rtltcp_ops || o->outs[i]->listen_fd < 0)
		return 0;
	a->len = sizeof(a->ss);
	return getsockname(o->outs[i]->listen_fd, (struct sockaddr *)&a->ss, &a->len) == 0;
}

/* Lets the kind finish (its close hook), then releases what the framework holds, the kind's
 * priv and kpriv blocks included.  No thread may use out any more. */
static void out_free(struct zcs_out *out)
{
	if (out->ops->close)
		out->ops->close(out);
	free(out->priv);
	for (size_t i = 0; i < out->nsinks; i++) {
		struct zcs_sink *s = &out->sinks[i];

		if (s->fd >= 0)
			close(s->fd);
		if (s->efd >= 0)
			close(s->efd);
		zcs_ring_free(&s->q);
		free(s->kpriv);
	}
	if (out->listen_fd >= 0)
		close(out->listen_fd);
	pthread_mutex_destroy(&out->mu);
	free(out->spec);
	free(out->sinks);
	free(out);
}

static int add_kind(struct zcs_outputs *o, const struct zcs_out_ops *ops, const char *spec,
		    const char *arg, struct zcs_out **added, char *err, size_t errlen);

int zcs_outputs_add(struct zcs_outputs *o, const char *spec, char *err, size_t errlen)
{
	const struct zcs_out_ops *ops = NULL;
	const char *arg = NULL;

	if (o->started || o->n == ZCS_OUT_MAX)
		return zcs_err(err, errlen, -EINVAL, "%s: too many outputs, or added after start",
			       spec);
	if (strcmp(spec, "-") == 0) {
		ops = &zcs_out_file_ops;
		arg = spec;
	}
	for (size_t i = 0; !ops && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const size_t pl = strlen(kinds[i]->prefix);

		if (strncmp(spec, kinds[i]->prefix, pl) == 0) {
			ops = kinds[i];
			arg = spec + pl;
		}
	}
	if (!ops)
		return zcs_err(err, errlen, -EINVAL,
			       "\"%s\": unknown output (fifo:PATH, tcp:[ADDR:]PORT, "
			       "tcp-connect:HOST:PORT, udp:HOST:PORT, file:PATH, -, "
			       "rtl_tcp:[ADDR:]PORT, sigmf:PATH)", spec);
	return add_kind(o, ops, spec, arg, NULL, err, errlen);
}

int zcs_outputs_add_in_process(struct zcs_outputs *o, const struct zcs_out_ops *ops,
			       const char *name, struct zcs_out **added, char *err, size_t errlen)
{
	if (o->started || o->n == ZCS_OUT_MAX)
		return zcs_err(err, errlen, -EINVAL, "%s: too many outputs, or added after start",
			       name);
	return add_kind(o, ops, name, name, added, err, errlen);
}

/* Creates output `spec` of kind ops (arg: what its open hook parses) and adds it to the set. */
static int add_kind(struct zcs_outputs *o, const struct zcs_out_ops *ops, const char *spec,
		    const char *arg, struct zcs_out **added, char *err, size_t errlen)
{
	struct zcs_out *out = NULL;
	int ret;

	for (size_t i = 0; i < o->n; i++) {
		if (strcmp(o->outs[i]->spec, spec) == 0)
			return zcs_err(err, errlen, -EEXIST, "\"%s\" given twice", spec);
	}
	out = calloc(1, sizeof(*out));
	if (!out)
		return -ENOMEM;
	out->set = o;
	out->ops = ops;
	out->type = o->type;
	out->listen_fd = -1;
	snprintf(out->name, sizeof(out->name), "%s", spec);
	pthread_mutex_init(&out->mu, NULL);
	out->spec = strdup(spec);
	if (!out->spec) {
		ret = -ENOMEM;
		goto out;
	}
	out->sinks = calloc(ops->server ? ZCS_OUT_MAX_CLIENTS : 1, sizeof(*out->sinks));
	if (!out->sinks) {
		ret = -ENOMEM;
		goto out;
	}
	out->nsinks = ops->server ? ZCS_OUT_MAX_CLIENTS : 1;
	/* every sink holds "no descriptor" before anything can fail: calloc's zeros would make
	 * the cleanup close fd 0 */
	for (size_t i = 0; i < out->nsinks; i++) {
		out->sinks[i].out = out;
		out->sinks[i].index = i;
		out->sinks[i].fd = -1;
		out->sinks[i].efd = -1;
	}
	for (size_t i = 0; i < out->nsinks; i++) {
		struct zcs_sink *s = &out->sinks[i];

		s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (s->efd < 0) {
			ret = -errno;
			goto out;
		}
		ret = zcs_ring_init(&s->q, ops->server ? ZCS_OUT_CLIENT_QUEUE_BLOCKS
						       : ZCS_OUT_QUEUE_BLOCKS);
		if (ret < 0)
			goto out;
		if (ops->sink_priv_size && !(s->kpriv = calloc(1, ops->sink_priv_size))) {
			ret = -ENOMEM;
			goto out;
		}
	}
	if (ops->priv_size && !(out->priv = calloc(1, ops->priv_size))) {
		ret = -ENOMEM;
		goto out;
	}
	ret = ops->open(out, arg, err, errlen);
	if (ret < 0)
		goto out;
	o->outs[o->n++] = out;
	if (added)
		*added = out;
	return 0;
out:
	if (ret == -ENOMEM || ret == -EMFILE)
		ret = zcs_err(err, errlen, ret, "%s: %s", spec, strerror(-ret));
	out_free(out);
	return ret;
}

static int start_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	return -pthread_create(t, NULL, fn, arg);
}

int zcs_outputs_start(struct zcs_outputs *o)
{
	size_t slots = 0, sinks = 0;
	sigset_t all, old;
	int ret = 0;

	if (o->started)
		return -EALREADY;
	for (size_t i = 0; i < o->n; i++) {
		for (size_t j = 0; j < o->outs[i]->nsinks; j++)
			slots += zcs_ring_capacity(&o->outs[i]->sinks[j].q);
		sinks += o->outs[i]->nsinks;
	}
	/* Every block is on the free list, being filled (one data block, one event), in a queue
	 * slot, or in one writer's hands: so reserve can never find the pool empty. */
	ret = zcs_out_pool_fill(&o->pool, slots + sinks + 2);
	if (ret < 0)
		return ret;

	/* Writer threads take no signals: SIGINT/SIGTERM go to the program's main thread, and a
	 * pipe's SIGPIPE stays pending on the writer, which consumes it (zcs_out_write_all). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	o->started = true;
	for (size_t i = 0; i < o->n && ret == 0; i++) {
		struct zcs_out *out = o->outs[i];

		/* an in-process consumer takes its blocks on its own thread */
		for (size_t j = 0; j < out->nsinks && ret == 0 && !out->ops->in_process; j++) {
			ret = start_thread(&out->sinks[j].thread, zcs_out_sink_main, &out->sinks[j]);
			out->sinks[j].thread_started = ret == 0;
		}
		if (ret == 0 && out->listen_fd >= 0) {
			ret = start_thread(&out->accept_thread, zcs_out_accept_main, out);
			out->accept_started = ret == 0;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

size_t zcs_outputs_count(const struct zcs_outputs *o)
{
	return o->n;
}

void zcs_outputs_stats(struct zcs_outputs *o, size_t i, struct zcs_output_stats *st)
{
	const struct zcs_out *out;

	memset(st, 0, sizeof(*st));
	if (i >= o->n)
		return;
	out = o->outs[i];
	snprintf(st->name, sizeof(st->name), "%s", out->name);
	st->bytes = atomic_load(&out->bytes);
	st->blocks = atomic_load(&out->blocks);
	st->overruns = atomic_load(&out->overruns);
	st->skipped = atomic_load(&out->skipped);
	st->unread = atomic_load(&out->unread);
	st->connects = atomic_load(&out->connects);
	st->commands = atomic_load(&out->commands);
	st->forwarded = atomic_load(&out->forwarded);
	st->not_allowed = atomic_load(&out->not_allowed);
	st->consumers = atomic_load(&out->consumers);
	for (size_t j = 0; j < out->nsinks; j++)
		st->queued += (uint32_t)zcs_ring_count(&o->outs[i]->sinks[j].q);
}

static bool drained(struct zcs_outputs *o)
{
	for (size_t i = 0; i < o->n; i++)
		for (size_t j = 0; j < o->outs[i]->nsinks; j++) {
			struct zcs_sink *s = &o->outs[i]->sinks[j];

			if (atomic_load(&s->state) == ZCS_SINK_ATTACHED &&
			    (zcs_ring_count(&s->q) || atomic_load(&s->busy)))
				return false;
		}
	return true;
}

int zcs_outputs_drain(struct zcs_outputs *o, int timeout_ms)
{
	const struct timespec step = { 0, 5 * 1000 * 1000 };
	const uint64_t deadline = zcs_mono_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000u;

	if (!o->started)
		return 0;
	zcs_outputs_flush(o);
	while (!drained(o)) {
		if (zcs_mono_ns() >= deadline)
			return -ETIMEDOUT;
		nanosleep(&step, NULL);
	}
	return 0;
}

void zcs_outputs_destroy(struct zcs_outputs *o, int timeout_ms)
{
	if (!o)
		return;
	zcs_outputs_drain(o, timeout_ms);
	atomic_store(&o->stop, true);
	for (size_t i = 0; i < o->n; i++) {
		struct zcs_out *out = o->outs[i];

		for (size_t j = 0; j < out->nsinks; j++)
			zcs_out_wake(&out->sinks[j]);
		for (size_t j = 0; j < out->nsinks; j++)
			if (out->sinks[j].thread_started)
				pthread_join(out->sinks[j].thread, NULL);
		if (out->accept_started)
			pthread_join(out->accept_thread, NULL);
		for (size_t j = 0; j < out->nsinks; j++) {
			struct zcs_block *b;

			while ((b = zcs_ring_pop(&out->sinks[j].q)))
				zcs_out_pool_put(&o->pool, b);
		}
		out_free(out);
	}
	if (o->cur)
		zcs_out_pool_put(&o->pool, o->cur);
	zcs_out_pool_free(&o->pool);
	free(o);
}
