// SPDX-License-Identifier: MIT
/* The forwarder of zcs-recv --control: one thread, one control-channel client (common/
 * ctl_client.c), requests merged under a mutex and sent as one set when the burst is over. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "cond.h"
#include "ctl_client.h"
#include "ctl_fwd.h"
#include "err.h"
#include "proto.h"

/* Answers of the board (a retune takes the radio's own time, ~ms) and a connection's set-up. */
#define SET_TIMEOUT_MS 5000
#define CONNECT_TIMEOUT_MS 3000

struct zcs_ctl_fwd {
	char host[256];               /* "" = the stream's sender */
	char port[8];
	struct zcs_net_prefix allow[ZCS_CTL_FWD_MAX_ALLOW];
	size_t nallow;
	struct zcs_key key;
	struct zcs_log log;
	pthread_t thread;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;
	struct zcs_ctl_settings want; /* merged, not yet sent (want.have == 0: nothing) */
	uint64_t first_ns, last_ns;   /* the burst's first and latest request */
	bool have_sender;
	bool waiting_logged;          /* "a set waits for the stream" said once */
	struct zcs_addr sender;
	struct zcs_ctl_fwd_stats st;
	struct zcs_ctl_client *c;     /* thread only */
};

static void merge(struct zcs_ctl_settings *into, const struct zcs_ctl_settings *w)
{
	if (w->have & ZCS_CTL_FREQ)
		into->freq = w->freq;
	if (w->have & ZCS_CTL_RATE)
		into->rate = w->rate;
	if (w->have & ZCS_CTL_BW)
		into->bw = w->bw;
	if (w->have & ZCS_CTL_GAIN)
		into->gain_mdb = w->gain_mdb;
	if (w->have & ZCS_CTL_GAIN_MODE)
		into->gain_mode = w->gain_mode;
	if (w->have & ZCS_CTL_CHANNEL)
		into->channel = w->channel;
	if (w->have & ZCS_CTL_FORMAT)
		into->format = w->format;
	into->have |= w->have;
	/* automatic gain asked last voids a manual value asked before it */
	if ((w->have & ZCS_CTL_GAIN_MODE) && !(w->have & ZCS_CTL_GAIN) &&
	    w->gain_mode != ZCS_GAIN_MANUAL)
		into->have &= ~(uint32_t)ZCS_CTL_GAIN;
}

void zcs_ctl_fwd_post(struct zcs_ctl_fwd *f, const struct zcs_ctl_settings *want)
{
	const uint64_t now = zcs_mono_ns();

	pthread_mutex_lock(&f->mu);
	if (!f->want.have)
		f->first_ns = now;
	f->last_ns = now;
	merge(&f->want, want);
	f->st.posted++;
	pthread_cond_signal(&f->cv);
	pthread_mutex_unlock(&f->mu);
}

void zcs_ctl_fwd_tune_hook(void *ctx, const struct zcs_ctl_settings *want)
{
	zcs_ctl_fwd_post(ctx, want);
}

void zcs_ctl_fwd_set_sender(struct zcs_ctl_fwd *f, const struct zcs_addr *sender)
{
	pthread_mutex_lock(&f->mu);
	if (!f->have_sender)
		pthread_cond_signal(&f->cv);
	f->sender = *sender;
	f->have_sender = true;
	pthread_mutex_unlock(&f->mu);
}

/* The address to connect to, "" when the sender is not known yet (called with mu held). */
static void target(const struct zcs_ctl_fwd *f, char *buf, size_t len)
{
	if (f->host[0]) {
		snprintf(buf, len, "%s:%s", f->host, f->port);
		return;
	}
	buf[0] = '\0';
	if (f->have_sender)
		zcs_ctl_addr_at((const struct sockaddr *)&f->sender.ss, f->port, buf, len);
}

static void describe(const struct zcs_ctl_settings *s, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (s->have & ZCS_CTL_FREQ)
		n += (size_t)snprintf(buf + n, len - n, " freq=%" PRIu64, s->freq);
	if ((s->have & ZCS_CTL_RATE) && n < len)
		n += (size_t)snprintf(buf + n, len - n, " rate=%" PRIu64, s->rate);
	if ((s->have & ZCS_CTL_GAIN_MODE) && n < len)
		n += (size_t)snprintf(buf + n, len - n, " gain_mode=%s",
				      zcs_ctl_gain_mode_name(s->gain_mode));
	if ((s->have & ZCS_CTL_GAIN) && n < len)
		n += (size_t)snprintf(buf + n, len - n, " gain=%.1f", s->gain_mdb / 1000.0);
	if ((s->have & ZCS_CTL_BW) && n < len)
		snprintf(buf + n, len - n, " bw=%" PRIu64, s->bw);
}

static void send_set(struct zcs_ctl_fwd *f, const struct zcs_ctl_settings *want, const char *to)
{
	struct zcs_ctl_reply r;
	char err[256], what[160], took[160];
	int ret;

	describe(want, what, sizeof(what));
	__atomic_fetch_add(&f->st.sets, 1, __ATOMIC_RELAXED);
	for (bool again = false;; again = true) {
		if (!f->c) {
			ret = zcs_ctl_client_open(&f->c, to, &f->key, CONNECT_TIMEOUT_MS, err,
						  sizeof(err));
			if (ret < 0) {
				zcs_log(&f->log, "control: set%s not sent: %s: %s", what, to, err);
				__atomic_fetch_add(&f->st.failed, 1, __ATOMIC_RELAXED);
				return;
			}
			__atomic_fetch_add(&f->st.connects, 1, __ATOMIC_RELAXED);
			zcs_log(&f->log, "control: connected to %s (it holds our key)", to);
		}
		ret = zcs_ctl_client_set(f->c, want, &r, SET_TIMEOUT_MS, err, sizeof(err));
		if (ret == 0)
			break;
		zcs_ctl_client_close(f->c);
		f->c = NULL;
		/* the connection kept from an earlier set was closed meanwhile (zcs-send restarted;
		 * a flood closed a handshake), or this one was before its answer: once more, on a
		 * new one (a set is absolute values: taken twice, it is the same set) */
		if (!again && zcs_ctl_client_retryable(ret)) {
			zcs_log(&f->log, "control: set%s: %s: again on a new connection", what, err);
			continue;
		}
		zcs_log(&f->log, "control: set%s: %s", what, err);
		__atomic_fetch_add(&f->st.failed, 1, __ATOMIC_RELAXED);
		return;
	}
	describe(&r.now, took, sizeof(took));
	if (!r.ok) {
		struct zcs_ctl_settings rest = *want;
		const char *field = r.field;

		__atomic_fetch_add(&f->st.refused, 1, __ATOMIC_RELAXED);
		zcs_log(&f->log, "control: set%s refused by the board: %s (it has%s)", what, r.error,
			took);
		/* an application asks for what an rtl dongle does (250 kS/s, say): the rest of its
		 * burst still stands, so it goes again without the setting the board refused */
		for (uint32_t b = 1; b <= ZCS_CTL_ALL; b <<= 1)
			if (field[0] && zcs_ctl_field_name(b) && !strcmp(field, zcs_ctl_field_name(b)))
				rest.have &= ~b;
		if (rest.have && rest.have != want->have)
			send_set(f, &rest, to);
		return;
	}
	__atomic_fetch_add(&f->st.taken, 1, __ATOMIC_RELAXED);
	if (r.has_since)
		zcs_log(&f->log, "control: set%s: the board took%s from sample %" PRIu64, what,
			took, r.since_sample);
	else
		zcs_log(&f->log, "control: set%s: the board has%s (nothing changed)", what, took);
}

static void *fwd_main(void *arg)
{
	struct zcs_ctl_fwd *f = arg;

	pthread_mutex_lock(&f->mu);
	while (!f->stop) {
		struct zcs_ctl_settings want;
		char to[300];
		uint64_t now = zcs_mono_ns(), due;

		if (!f->want.have) {
			pthread_cond_wait(&f->cv, &f->mu);
			continue;
		}
		/* the burst is over when quiet for QUIET_MS, or MAX_MS after it began */
		due = f->last_ns + ZCS_CTL_FWD_QUIET_MS * 1000000ULL;
		if (due > f->first_ns + ZCS_CTL_FWD_MAX_MS * 1000000ULL)
			due = f->first_ns + ZCS_CTL_FWD_MAX_MS * 1000000ULL;
		if (now < due) {
			struct timespec ts = { .tv_sec = (time_t)(due / ZCS_NS_PER_SEC),
					       .tv_nsec = (long)(due % ZCS_NS_PER_SEC) };

			pthread_cond_timedwait(&f->cv, &f->mu, &ts);
			continue;
		}
		target(f, to, sizeof(to));
		if (!to[0]) {
			/* an application tunes as soon as it connects, which may be before the
			 * stream (and so its sender) is known: the set waits for it */
			struct timespec ts;
			const uint64_t t = now + 100000000ULL;

			if (!f->waiting_logged)
				zcs_log(&f->log, "control: a set waits for the stream: its sender is "
					"where it goes (or give --control HOST:PORT)");
			f->waiting_logged = true;
			ts.tv_sec = (time_t)(t / ZCS_NS_PER_SEC);
			ts.tv_nsec = (long)(t % ZCS_NS_PER_SEC);
			pthread_cond_timedwait(&f->cv, &f->mu, &ts);
			continue;
		}
		want = f->want;
		f->want.have = 0;
		pthread_mutex_unlock(&f->mu);
		send_set(f, &want, to);
		pthread_mutex_lock(&f->mu);
	}
	pthread_mutex_unlock(&f->mu);
	zcs_ctl_client_close(f->c);
	f->c = NULL;
	return NULL;
}

bool zcs_ctl_fwd_allows(void *ctx, const struct zcs_addr *peer)
{
	const struct zcs_ctl_fwd *f = ctx;

	if (zcs_net_is_loopback(peer))
		return true;
	for (size_t i = 0; i < f->nallow; i++)
		if (zcs_net_prefix_match(&f->allow[i], peer))
			return true;
	return false;
}

int zcs_ctl_fwd_start(struct zcs_ctl_fwd **out, const char *addr, const struct zcs_key *key,
		      const struct zcs_net_prefix *allow, size_t nallow, struct zcs_log log,
		      char *err, size_t errlen)
{
	struct zcs_ctl_fwd *f;
	int ret;

	*out = NULL;
	if (nallow > ZCS_CTL_FWD_MAX_ALLOW)
		return zcs_err(err, errlen, -EINVAL, "--control-allow: at most %d entries",
			       ZCS_CTL_FWD_MAX_ALLOW);
	if (!(f = calloc(1, sizeof(*f))))
		return zcs_err(err, errlen, -ENOMEM, "out of memory");
	if (nallow)
		memcpy(f->allow, allow, nallow * sizeof(*allow));
	f->nallow = nallow;
	if ((ret = zcs_ctl_addr_split(addr, f->host, sizeof(f->host), f->port, sizeof(f->port),
				      "--control", err, errlen)) < 0) {
		free(f);
		return ret;
	}
	/* the burst's deadlines (fwd_main) are on CLOCK_MONOTONIC */
	if ((ret = zcs_cond_init_mono(&f->cv)) < 0) {
		free(f);
		return zcs_err(err, errlen, ret, "control: condition variable: %s", strerror(-ret));
	}
	if ((ret = pthread_mutex_init(&f->mu, NULL)) != 0) {
		pthread_cond_destroy(&f->cv);
		free(f);
		return zcs_err(err, errlen, -ret, "control: mutex: %s", strerror(ret));
	}
	f->key = *key;
	f->log = log;
	if ((ret = pthread_create(&f->thread, NULL, fwd_main, f)) != 0) {
		zcs_ctl_fwd_stop(f);
		return zcs_err(err, errlen, -ret, "control: cannot start its thread: %s",
			       strerror(ret));
	}
	f->started = true;
	*out = f;
	return 0;
}

void zcs_ctl_fwd_stats(struct zcs_ctl_fwd *f, struct zcs_ctl_fwd_stats *out)
{
	pthread_mutex_lock(&f->mu);
	out->posted = f->st.posted;
	pthread_mutex_unlock(&f->mu);
	out->sets = __atomic_load_n(&f->st.sets, __ATOMIC_RELAXED);
	out->taken = __atomic_load_n(&f->st.taken, __ATOMIC_RELAXED);
	out->refused = __atomic_load_n(&f->st.refused, __ATOMIC_RELAXED);
	out->failed = __atomic_load_n(&f->st.failed, __ATOMIC_RELAXED);
	out->connects = __atomic_load_n(&f->st.connects, __ATOMIC_RELAXED);
}

void zcs_ctl_fwd_stop(struct zcs_ctl_fwd *f)
{
	if (!f)
		return;
	if (f->started) {
		pthread_mutex_lock(&f->mu);
		f->stop = true;
		pthread_cond_signal(&f->cv);
		pthread_mutex_unlock(&f->mu);
		pthread_join(f->thread, NULL);
	}
	pthread_cond_destroy(&f->cv);
	pthread_mutex_destroy(&f->mu);
	zcs_key_wipe(&f->key);
	free(f);
}
