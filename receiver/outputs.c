// SPDX-License-Identifier: MIT
/* The output framework: a fixed pool of refcounted blocks shared by every output, one bounded
 * queue and one writer thread per consumer, and the receive thread's never-blocking side. */
#include <assert.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "output_kinds.h"

#define MAX_OUTPUTS 32

struct zcs_outputs {
	enum zcs_sample_type type;
	struct zcs_out *outs[MAX_OUTPUTS];
	size_t n;
	zcs_outputs_log_fn log_fn;
	void *log_ctx;
	atomic_bool stop;
	bool started;
	/* The pool.  Sized so a block is always free (see zcs_outputs_start); the free list is a
	 * LIFO so the hot blocks stay resident and the untouched rest never costs RAM. */
	struct zcs_block *blocks;
	uint8_t *mem;
	size_t nblocks;
	pthread_mutex_t pool_mu;
	struct zcs_block *free_list;
	struct zcs_block spare;      /* only if the sizing were ever wrong: filled, never queued */
	uint64_t pool_misses;
	/* receive thread only */
	struct zcs_block *cur;
	bool defer_wakes;            /* see zcs_outputs_defer_wakes */
	size_t unwoken;              /* blocks queued whose writer was not woken yet */
};

static const struct zcs_out_ops *const kinds[] = {
	&zcs_out_fifo_ops, &zcs_out_tcpc_ops, &zcs_out_tcp_ops, &zcs_out_udp_ops,
	&zcs_out_file_ops, &zcs_out_rtltcp_ops, &zcs_out_sigmf_ops,
};

/* ---- pool ---- */

static struct zcs_block *block_get(struct zcs_outputs *o, enum zcs_block_type type)
{
	struct zcs_block *b;

	pthread_mutex_lock(&o->pool_mu);
	b = o->free_list;
	if (b)
		o->free_list = b->next_free;
	pthread_mutex_unlock(&o->pool_mu);
	if (!b) {
		o->pool_misses++;
		b = &o->spare;
	}
	atomic_store_explicit(&b->refs, 1, memory_order_relaxed);
	b->type = type;
	b->len = 0;
	b->pairs = 0;
	b->first_sample = 0;
	b->filled = false;
	return b;
}

void zcs_out_block_put(struct zcs_outputs *o, struct zcs_block *b)
{
	if (b == &o->spare)
		return;
	if (atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) != 1)
		return;
	pthread_mutex_lock(&o->pool_mu);
	b->next_free = o->free_list;
	o->free_list = b;
	pthread_mutex_unlock(&o->pool_mu);
}

/* ---- receive thread ---- */


/* Hands b to every attached consumer's queue; a full queue drops it for that consumer only. */
static void queue_block(struct zcs_outputs *o, struct zcs_block *b)
{
	const bool data = b->type == ZCS_BLOCK_DATA;
	bool deferred = false;

	if (b == &o->spare)
		return;
	for (size_t i = 0; i < o->n; i++) {
		struct zcs_out *out = o->outs[i];
		size_t attached = 0;

		pthread_mutex_lock(&out->mu);
		for (size_t j = 0; j < out->nsinks; j++) {
			struct zcs_sink *s = &out->sinks[j];
			size_t limit = zcs_ring_capacity(&s->q);

			if (atomic_load_explicit(&s->state, memory_order_relaxed) != ZCS_SINK_ATTACHED)
				continue;
			attached++;
			if (data)
				limit -= ZCS_OUT_EVENT_SLOTS;
			if (zcs_ring_count(&s->q) >= limit) {
				atomic_fetch_add_explicit(&out->overruns, 1, memory_order_relaxed);
				continue;
			}
			atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
			zcs_ring_push(&s->q, b);
			/* Pairs with the fence in sink_wait: either the writer sees the block or we
			 * see it asleep and wake it (now, or at the next flush when deferred: a
			 * wake-up costs a syscall and two context switches, a block ~34 datagrams). */
			atomic_thread_fence(memory_order_seq_cst);
			if (atomic_load_explicit(&s->sleeping, memory_order_relaxed)) {
				if (o->defer_wakes && zcs_ring_count(&s->q) < limit / 2) {
					s->wake_pending = true;
					deferred = true;
				} else {
					zcs_out_wake(s);
				}
			}
		}
		pthread_mutex_unlock(&out->mu);
		if (data && !attached)
			atomic_fetch_add_explicit(&out->unread, 1, memory_order_relaxed);
	}
	if (deferred)
		o->unwoken++;
	zcs_out_block_put(o, b);
}

/* Wakes every writer a block was queued for while wake-ups were deferred.  A writer that woke
 * by itself meanwhile gets a spurious wake-up, which it tolerates. */
static void wake_pending(struct zcs_outputs *o)
{
	if (!o->unwoken)
		return;
	o->unwoken = 0;
	for (size_t i = 0; i < o->n; i++) {
		struct zcs_out *out = o->outs[i];

		for (size_t j = 0; j < out->nsinks; j++) {
			struct zcs_sink *s = &out->sinks[j];

			if (s->wake_pending) {
				s->wake_pending = false;
				zcs_out_wake(s);
			}
		}
	}
}

void zcs_outputs_defer_wakes(struct zcs_outputs *o, bool on)
{
	o->defer_wakes = on;
	if (!on)
		wake_pending(o);
}

size_t zcs_outputs_pending(const struct zcs_outputs *o)
{
	return o->unwoken + (o->cur && o->cur->len ? 1 : 0);
}

static void queue_current(struct zcs_outputs *o)
{
	struct zcs_block *b = o->cur;

	o->cur = NULL;
	if (!b)
		return;
	if (b->len == 0) {
		zcs_out_block_put(o, b);
		return;
	}
	queue_block(o, b);
}

void *zcs_outputs_reserve(struct zcs_outputs *o, size_t len)
{
	assert(len <= ZCS_BLOCK_BYTES);
	if (o->cur && ZCS_BLOCK_BYTES - o->cur->len < len)
		queue_current(o);
	if (!o->cur)
		o->cur = block_get(o, ZCS_BLOCK_DATA);
	return o->cur->data + o->cur->len;
}

void zcs_outputs_commit(struct zcs_outputs *o, uint64_t first_sample, size_t pairs, size_t len)
{
	struct zcs_block *b = o->cur;

	if (!b || len == 0 || len > ZCS_BLOCK_BYTES - b->len)
		return;
	if (b->len == 0) {
		b->first_sample = first_sample;
	} else if (first_sample != b->first_sample + b->pairs) {
		/* These samples do not follow the block's: a block holds one contiguous run, so
		 * writers can tell where the stream jumped.  Rare (a resync), so a copy is fine. */
		struct zcs_block *nb = block_get(o, ZCS_BLOCK_DATA);

		memcpy(nb->data, b->data + b->len, len);
		queue_current(o);
		o->cur = b = nb;
		b->first_sample = first_sample;
	}
	b->len += len;
	b->pairs += pairs;
	if (b->len == ZCS_BLOCK_BYTES)
		queue_current(o);
}

void zcs_outputs_flush(struct zcs_outputs *o)
{
	if (o->cur && o->cur->len)
		queue_current(o);
	wake_pending(o);
}

static struct zcs_block *event_block(struct zcs_outputs *o, enum zcs_block_type type)
{
	/* the samples before the event go first */
	zcs_outputs_flush(o);
	return block_get(o, type);
}

void zcs_outputs_meta(struct zcs_outputs *o, const struct zcs_meta *meta)
{
	struct zcs_block *b = event_block(o, ZCS_BLOCK_META);

	b->meta = *meta;
	for (size_t i = 0; i < o->n; i++) {
		pthread_mutex_lock(&o->outs[i]->mu);
		o->outs[i]->meta = *meta;
		o->outs[i]->have_meta = true;
		pthread_mutex_unlock(&o->outs[i]->mu);
	}
	queue_block(o, b);
}

void zcs_outputs_gap(struct zcs_outputs *o, uint64_t first_sample, uint64_t pairs, bool filled)
{
	struct zcs_block *b = event_block(o, ZCS_BLOCK_GAP);

	b->first_sample = first_sample;
	b->pairs = pairs;
	b->filled = filled;
	queue_block(o, b);
}

void zcs_outputs_eos(struct zcs_outputs *o)
{
	queue_block(o, event_block(o, ZCS_BLOCK_EOS));
	/* the end is news a consumer acts on (closing a recording): no deferring */
	wake_pending(o);
}

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

void zcs_out_log(struct zcs_out *out, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	if (!out->set->log_fn)
		return;
	n = snprintf(msg, sizeof(msg), "%s: ", out->name);
	if (n < 0 || (size_t)n >= sizeof(msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	out->set->log_fn(out->set->log_ctx, msg);
}

/* ---- set ---- */

int zcs_outputs_create(struct zcs_outputs **out, enum zcs_sample_type type)
{
	struct zcs_outputs *o = calloc(1, sizeof(*o));

	if (!o)
		return -ENOMEM;
	o->type = type;
	pthread_mutex_init(&o->pool_mu, NULL);
	o->spare.data = malloc(ZCS_BLOCK_BYTES);
	if (!o->spare.data) {
		free(o);
		return -ENOMEM;
	}
	*out = o;
	return 0;
}

void zcs_outputs_set_log(struct zcs_outputs *o, zcs_outputs_log_fn fn, void *ctx)
{
	o->log_fn = fn;
	o->log_ctx = ctx;
}

static void out_free(struct zcs_out *out)
{
	for (size_t i = 0; i < out->nsinks; i++) {
		struct zcs_sink *s = &out->sinks[i];

		if (s->fd >= 0)
			close(s->fd);
		if (s->efd >= 0)
			close(s->efd);
		zcs_ring_free(&s->q);
	}
	if (out->listen_fd >= 0)
		close(out->listen_fd);
	pthread_mutex_destroy(&out->mu);
	free(out->sinks);
	free(out);
}

int zcs_outputs_add(struct zcs_outputs *o, const char *spec, char *err, size_t errlen)
{
	const struct zcs_out_ops *ops = NULL;
	const char *arg = NULL;
	struct zcs_out *out = NULL;
	int ret;

	if (o->started || o->n == MAX_OUTPUTS) {
		snprintf(err, errlen, "%s: too many outputs, or added after start", spec);
		return -EINVAL;
	}
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
	if (!ops) {
		snprintf(err, errlen, "\"%s\": unknown output (fifo:PATH, tcp:[ADDR:]PORT, "
			 "tcp-connect:HOST:PORT, udp:HOST:PORT, file:PATH, -, rtl_tcp:[ADDR:]PORT, "
			 "sigmf:PATH)", spec);
		return -EINVAL;
	}
	for (size_t i = 0; i < o->n; i++) {
		if (strcmp(o->outs[i]->name, spec) == 0) {
			snprintf(err, errlen, "\"%s\" given twice", spec);
			return -EEXIST;
		}
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
	out->nsinks = ops->server ? ZCS_OUT_MAX_CLIENTS : 1;
	out->sinks = calloc(out->nsinks, sizeof(*out->sinks));
	if (!out->sinks) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < out->nsinks; i++) {
		struct zcs_sink *s = &out->sinks[i];

		s->out = out;
		s->index = i;
		s->fd = -1;
		s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (s->efd < 0) {
			ret = -errno;
			goto out;
		}
		ret = zcs_ring_init(&s->q, ops->server ? ZCS_OUT_CLIENT_QUEUE_BLOCKS
						       : ZCS_OUT_QUEUE_BLOCKS);
		if (ret < 0)
			goto out;
	}
	ret = ops->open(out, arg, err, errlen);
	if (ret < 0) {
		if (ops->close)
			ops->close(out);
		goto out;
	}
	o->outs[o->n++] = out;
	return 0;
out:
	if (ret == -ENOMEM || ret == -EMFILE)
		snprintf(err, errlen, "%s: %s", spec, strerror(-ret));
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
	o->nblocks = slots + sinks + 2;
	o->blocks = calloc(o->nblocks, sizeof(*o->blocks));
	/* untouched pages of this area are never made resident (see ZCS_OUT_QUEUE_BLOCKS) */
	o->mem = aligned_alloc(ZCS_CACHELINE, o->nblocks * ZCS_BLOCK_BYTES);
	if (!o->blocks || !o->mem)
		return -ENOMEM;
	for (size_t i = o->nblocks; i-- > 0;) {
		o->blocks[i].data = o->mem + i * ZCS_BLOCK_BYTES;
		o->blocks[i].next_free = o->free_list;
		o->free_list = &o->blocks[i];
	}

	/* Writer threads take no signals: SIGINT/SIGTERM go to the program's main thread, and a
	 * pipe's SIGPIPE stays pending on the writer, which consumes it (zcs_out_write_all). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	o->started = true;
	for (size_t i = 0; i < o->n && ret == 0; i++) {
		struct zcs_out *out = o->outs[i];

		for (size_t j = 0; j < out->nsinks && ret == 0; j++) {
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
	st->unread = atomic_load(&out->unread);
	st->connects = atomic_load(&out->connects);
	st->commands = atomic_load(&out->commands);
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

	if (!o->started)
		return 0;
	zcs_outputs_flush(o);
	for (int waited = 0; !drained(o); waited += 5) {
		if (waited >= timeout_ms)
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
		if (out->ops->close)
			out->ops->close(out);
		for (size_t j = 0; j < out->nsinks; j++) {
			struct zcs_block *b;

			while ((b = zcs_ring_pop(&out->sinks[j].q)))
				zcs_out_block_put(o, b);
		}
		out_free(out);
	}
	if (o->cur)
		zcs_out_block_put(o, o->cur);
	pthread_mutex_destroy(&o->pool_mu);
	free(o->blocks);
	free(o->mem);
	free(o->spare.data);
	free(o);
}
