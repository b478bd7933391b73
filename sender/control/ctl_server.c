// SPDX-License-Identifier: MIT
/* The control listener: one thread, one poll() over the listening socket, at most max_clients
 * sessions and ZCS_CTL_SERVER_HANDSHAKES handshakes, each with a fixed buffer.  A connection
 * proves the stream key or is closed; any frame that does not open or parse closes it (counted by
 * reason); when every handshake slot is held, ctl_admit.c says who gives way. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "clock.h"
#include "ctl_admit.h"
#include "ctl_msg.h"
#include "ctl_server.h"
#include "err.h"
#include "net.h"
#include "source.h"
#include "wire.h"

/* How long a set may wait for the source thread to fix the retune's index: a radio's read
 * returns every block (~50 ms); a stalled one is answered without an index. */
#define RETUNE_WAIT_MS 2000
/* Failures logged one by one; a peer hammering the port is counted after that, not logged. */
#define FAILS_LOGGED 20
/* Connections taken per turn of the loop: under a flood the sessions' and handshakes' input is
 * read between batches, and the kernel's queue (LISTEN_BACKLOG) holds the rest meanwhile. */
#define ACCEPT_BATCH 32
#define LISTEN_BACKLOG 128

enum stage { ST_FREE = 0, ST_HELLO, ST_AUTH, ST_READY };

struct client {
	int fd;
	enum stage stage;
	uint64_t since;               /* accepted at (CLOCK_MONOTONIC ns) */
	uint64_t deadline;            /* handshake must end by then */
	struct zcs_ctl_source src;
	struct zcs_ctl_session s;
	struct zcs_ctl_rxbuf rb;
	char peer[64];
};

struct zcs_ctl_server {
	struct zcs_ctl_server_config cfg;
	int lfd, stop_fd;
	pthread_t thread;
	bool started;
	struct client *cl;            /* nslots: sessions and handshakes alike */
	size_t nslots, nready, npending;
	struct zcs_ctl_admit *admit;
	struct zcs_ctl_admit_cand cand[ZCS_CTL_SERVER_HANDSHAKES];
	struct pollfd *pfd;
	uint64_t fails_logged;
	/* the settings clients last heard of (a reply, an event): what another program's change
	 * is told against; and how many such changes the pipeline had posted then */
	struct zcs_radio_info seen;
	bool radio;
	uint64_t ext_gen;
	struct zcs_ctl_server_stats st;  /* written by the thread with __atomic, read by stats */
	uint8_t frame[ZCS_CTL_MAX_FRAME];
	uint8_t plain[ZCS_CTL_MAX_PLAIN];
	char text[ZCS_CTL_MAX_PLAIN];
};

#define COUNT(field) __atomic_fetch_add(&(field), 1, __ATOMIC_RELAXED)

static void drop(struct zcs_ctl_server *s, struct client *c, int reason, const char *why)
{
	if (reason > 0 && reason < ZCS_CTL_E_COUNT)
		COUNT(s->st.dropped[reason]);
	if (why && s->fails_logged++ < FAILS_LOGGED)
		zcs_log(&s->cfg.log, "control: %s closed: %s%s", c->peer, why,
		     s->fails_logged == FAILS_LOGGED ? " (further failures are counted only)" : "");
	close(c->fd);
	if (c->stage == ST_READY)
		s->nready--;
	else if (c->stage != ST_FREE)
		s->npending--;
	zcs_ctl_session_wipe(&c->s);
	c->fd = -1;
	c->stage = ST_FREE;
	c->rb.used = 0;
}

/* Sends a whole frame now or closes the client: replies are small against the socket buffer,
 * so one that does not fit means a peer that stopped reading. */
static bool send_frame(struct zcs_ctl_server *s, struct client *c, const uint8_t *f, size_t n)
{
	const ssize_t w = send(c->fd, f, n, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (w == (ssize_t)n)
		return true;
	COUNT(s->st.slow);
	drop(s, c, 0, w < 0 && errno != EAGAIN ? "send failed" : "not reading its replies");
	return false;
}

static bool send_msg(struct zcs_ctl_server *s, struct client *c, const struct zcs_ctl_reply *r)
{
	const ssize_t n = zcs_ctl_msg_write_reply(r, s->text, sizeof(s->text));
	ssize_t f;

	if (n <= 0)
		return false;
	f = zcs_ctl_seal(&c->s, (const uint8_t *)s->text, (size_t)n, s->frame);
	return f > 0 && send_frame(s, c, s->frame, (size_t)f);
}

/* ---- what the radio has and can do ---- */

struct snap {
	struct zcs_pipeline *pl;
	int format;
	struct zcs_radio_info info;
	struct zcs_ctl_caps caps;
	bool radio;
};

static int take_snap(void *ctx, struct zcs_source *src)
{
	struct snap *sn = ctx;

	sn->info = src->info;
	sn->format = zcs_pipeline_format(sn->pl);
	sn->radio = src->ops->tune != NULL;
	if (src->ops->caps)
		src->ops->caps(src, &sn->caps);
	else
		zcs_source_caps_meta(src, &sn->caps);
	/* the wire format is the pipeline's to change, whatever the source */
	sn->caps.settable |= ZCS_CTL_FORMAT;
	return 0;
}

static void settings_of(const struct zcs_radio_info *i, int format, bool radio,
			struct zcs_ctl_settings *out)
{
	memset(out, 0, sizeof(*out));
	out->have = ZCS_CTL_FREQ | ZCS_CTL_RATE | ZCS_CTL_FORMAT;
	out->freq = i->center_freq;
	out->rate = i->sample_rate;
	out->format = (uint8_t)format;
	if (!radio)
		return;
	out->have |= ZCS_CTL_BW | ZCS_CTL_GAIN | ZCS_CTL_GAIN_MODE | ZCS_CTL_CHANNEL;
	out->bw = i->bandwidth;
	out->gain_mdb = i->gain_mdb;
	out->gain_mode = i->gain_mode;
	out->channel = i->channel;
}

static uint32_t changed_bits(const struct zcs_radio_info *a, const struct zcs_radio_info *b)
{
	return (a->center_freq != b->center_freq ? ZCS_CTL_FREQ : 0) |
	       (a->sample_rate != b->sample_rate ? ZCS_CTL_RATE : 0) |
	       (a->bandwidth != b->bandwidth ? ZCS_CTL_BW : 0) |
	       (a->gain_mdb != b->gain_mdb ? ZCS_CTL_GAIN : 0) |
	       (a->gain_mode != b->gain_mode ? ZCS_CTL_GAIN_MODE : 0) |
	       (a->channel != b->channel ? ZCS_CTL_CHANNEL : 0);
}

static void do_get(struct zcs_ctl_server *s, struct client *c, uint32_t id)
{
	struct zcs_ctl_reply r = { .id = id, .ok = true, .has_caps = true, .has_stream = true };
	struct snap sn = { .pl = s->cfg.pl };

	COUNT(s->st.gets);
	(void)zcs_pipeline_locked(s->cfg.pl, take_snap, &sn);
	settings_of(&sn.info, sn.format, sn.radio, &r.now);
	r.caps = sn.caps;
	r.stream.id = s->cfg.stream_id;
	r.stream.run = s->cfg.run;
	r.stream.format = (uint8_t)sn.format;
	r.stream.rate = sn.info.sample_rate;
	snprintf(r.stream.source, sizeof(r.stream.source), "%s",
		 s->cfg.source_name ? s->cfg.source_name : "");
	(void)send_msg(s, c, &r);
}

struct tune_ctx {
	struct zcs_pipeline *pl;
	const struct zcs_ctl_settings *want;
	int format_before, format_after;
	struct zcs_radio_info before, after;
	bool radio;
	uint32_t refused;
	char err[200];
};

static int tune_apply(void *ctx, struct zcs_source *src)
{
	struct tune_ctx *t = ctx;
	struct zcs_ctl_settings w = *t->want;
	bool fmt;
	int ret = 0;

	t->before = src->info;
	t->radio = src->ops->tune != NULL;
	t->format_before = zcs_pipeline_format(t->pl);
	/* the wire format is the pipeline's (its kernels and datagram sizes), not the radio's:
	 * checked first, so a format it cannot take changes nothing else either, and taken last,
	 * so a setting the radio refuses leaves the format as it was too */
	fmt = (w.have & ZCS_CTL_FORMAT) && w.format != t->format_before;
	if (fmt && (ret = zcs_pipeline_check_format(t->pl, w.format, t->err, sizeof(t->err))) < 0)
		t->refused = ZCS_CTL_FORMAT;
	w.have &= ~(uint32_t)ZCS_CTL_FORMAT;
	if (ret == 0 && w.have)
		ret = t->radio ? src->ops->tune(src, &w, &t->refused, t->err, sizeof(t->err))
			       : zcs_source_tune_meta(src, &w, &t->refused, t->err, sizeof(t->err));
	if (ret == 0 && fmt)
		ret = zcs_pipeline_set_format(t->pl, t->want->format, t->err, sizeof(t->err));
	t->after = src->info;
	t->format_after = zcs_pipeline_format(t->pl);
	return ret;
}

static void broadcast(struct zcs_ctl_server *s, const struct client *from,
		      const struct zcs_ctl_reply *r)
{
	struct zcs_ctl_reply ev = *r;

	ev.event = true;
	ev.ok = true;
	ev.id = 0;
	ev.error[0] = ev.field[0] = '\0';
	for (size_t i = 0; i < s->nslots; i++) {
		struct client *o = &s->cl[i];

		if (o != from && o->stage == ST_READY && send_msg(s, o, &ev))
			COUNT(s->st.events);
	}
}

static void do_set(struct zcs_ctl_server *s, struct client *c, const struct zcs_ctl_request *rq)
{
	struct zcs_ctl_reply r = { .id = rq->id };
	struct tune_ctx t = { .pl = s->cfg.pl, .want = &rq->set };
	uint64_t since;
	int ret;

	COUNT(s->st.sets);
	ret = zcs_pipeline_retune(s->cfg.pl, tune_apply, &t, RETUNE_WAIT_MS, &since);
	r.ok = ret == 0;
	if (!r.ok) {
		COUNT(s->st.set_refused);
		snprintf(r.error, sizeof(r.error), "%s", t.err[0] ? t.err : strerror(-ret));
		snprintf(r.field, sizeof(r.field), "%s",
			 t.refused ? zcs_ctl_field_name(t.refused) : "");
	}
	settings_of(&t.after, t.format_after, t.radio, &r.now);
	r.changed = changed_bits(&t.before, &t.after) |
		    (t.format_before != t.format_after ? ZCS_CTL_FORMAT : 0);
	r.has_since = since != UINT64_MAX;
	r.since_sample = since;
	zcs_log(&s->cfg.log, "control: %s set: %s%s (freq %" PRIu64 ", rate %" PRIu64
		", gain %.3f dB %s, format %s)%s",
	     c->peer, r.ok ? "ok" : "refused: ", r.ok ? "" : r.error, t.after.center_freq,
	     t.after.sample_rate, t.after.gain_mdb / 1000.0, zcs_ctl_gain_mode_name(t.after.gain_mode),
	     zcs_wire_name(t.format_after),
	     r.has_since ? "" : " (no index: nothing changed or the stream has ended)");
	s->seen = t.after;
	if (!send_msg(s, c, &r))
		c = NULL;
	if (r.changed)
		broadcast(s, c, &r);
}

/* Another program changed the radio (the source thread noticed and announced it in the
 * stream): every ready client gets an event with the settings now, what changed since they last
 * heard, and the index the stream announced them from.  One event for however many changes
 * came since the last look: the pipeline keeps only the newest, so nothing here grows. */
static void on_ext_change(struct zcs_ctl_server *s)
{
	struct zcs_ctl_reply r = { .ok = true };
	struct zcs_radio_info now;
	uint64_t since;

	if (!zcs_pipeline_ext_take(s->cfg.pl, &s->ext_gen, &now, &since))
		return;
	settings_of(&now, zcs_pipeline_format(s->cfg.pl), s->radio, &r.now);
	r.changed = changed_bits(&s->seen, &now);
	r.has_since = true;
	r.since_sample = since;
	s->seen = now;
	if (!r.changed)
		return;
	zcs_log(&s->cfg.log, "control: the radio was changed by another program (freq %" PRIu64
		", rate %" PRIu64 ", gain %.3f dB %s) from sample %" PRIu64 ": telling the clients",
		now.center_freq, now.sample_rate, now.gain_mdb / 1000.0,
		zcs_ctl_gain_mode_name(now.gain_mode), since);
	broadcast(s, NULL, &r);
}

/* ---- frames ---- */

static void refuse_message(struct zcs_ctl_server *s, struct client *c, const char *why)
{
	struct zcs_ctl_reply r = { .ok = false };

	/* the peer holds the key, so it may know why before the connection goes */
	snprintf(r.error, sizeof(r.error), "bad request: %.180s", why);
	(void)send_msg(s, c, &r);
	if (c->fd >= 0)
		drop(s, c, ZCS_CTL_E_MESSAGE, r.error);
}

/* Handles one whole frame; false when the client was closed. */
static bool on_frame(struct zcs_ctl_server *s, struct client *c, const uint8_t *body, size_t len)
{
	struct zcs_ctl_request rq;
	char why[200];
	ssize_t n;
	int ret;

	switch (c->stage) {
	case ST_HELLO:
		if ((ret = zcs_ctl_hello_check(&c->s, body, len)) < 0) {
			drop(s, c, -ret, zcs_ctl_err_name(ret));
			return false;
		}
		n = (ssize_t)zcs_ctl_shello_write(&c->s, s->cfg.key, s->frame);
		c->stage = ST_AUTH;
		return send_frame(s, c, s->frame, (size_t)n);
	case ST_AUTH:
		if ((ret = zcs_ctl_auth_check(&c->s, s->cfg.key, body, len)) < 0) {
			drop(s, c, -ret, ret == -ZCS_CTL_E_AUTH ? "does not hold the stream key"
								 : zcs_ctl_err_name(ret));
			return false;
		}
		zcs_ctl_admit_proved(s->admit, &c->src, zcs_mono_ns());
		if (s->nready == s->cfg.max_clients) {
			struct zcs_ctl_reply r = { .ok = false };

			/* a key holder: it may know why, sealed, before the connection goes */
			COUNT(s->st.refused_full);
			snprintf(r.error, sizeof(r.error), "every one of the %zu control sessions is "
				 "held by a key holder (zcs-send --control-clients)", s->cfg.max_clients);
			c->stage = ST_READY;
			s->npending--;
			s->nready++;
			(void)send_msg(s, c, &r);
			if (c->fd >= 0)
				drop(s, c, 0, r.error);
			return false;
		}
		c->stage = ST_READY;
		s->npending--;
		s->nready++;
		COUNT(s->st.sessions);
		zcs_log(&s->cfg.log, "control: %s holds the key", c->peer);
		return true;
	case ST_READY:
		if ((n = zcs_ctl_open(&c->s, body, len, s->plain)) < 0) {
			drop(s, c, (int)-n, "a frame does not open (forged, replayed or cut)");
			return false;
		}
		if (zcs_ctl_msg_parse_request(s->plain, (size_t)n, &rq, why, sizeof(why)) < 0) {
			refuse_message(s, c, why);
			return false;
		}
		if (rq.op == ZCS_CTL_OP_GET)
			do_get(s, c, rq.id);
		else
			do_set(s, c, &rq);
		return c->fd >= 0;
	case ST_FREE:
		break;
	}
	return false;
}

static void on_input(struct zcs_ctl_server *s, struct client *c)
{
	for (;;) {
		const uint8_t *body;
		size_t len;
		int ret;
		const ssize_t got = zcs_ctl_rxbuf_read(&c->rb, c->fd);

		if (got == 0) {
			if (c->stage != ST_READY)
				COUNT(s->st.abandoned);
			drop(s, c, 0, c->stage == ST_READY ? NULL : "left during the handshake "
			     "(another key?)");
			return;
		}
		if (got < 0 && got != -EAGAIN) {
			drop(s, c, 0, "read failed");
			return;
		}
		while ((ret = zcs_ctl_rxbuf_frame(&c->rb, &body, &len)) == 1) {
			if (!on_frame(s, c, body, len))
				return;
			zcs_ctl_rxbuf_consume(&c->rb);
		}
		if (ret < 0) {
			drop(s, c, -ret, "frame length out of bounds");
			return;
		}
		if (got == -EAGAIN)
			return;
	}
}

/* Room for a newcomer from src, if it is to have any: a free slot (after closing the handshake
 * that gives way, when every handshake slot is held), or NULL to refuse it. */
static struct client *make_room(struct zcs_ctl_server *s, const struct zcs_ctl_source *src,
				uint64_t now, const char *peer)
{
	size_t idx[ZCS_CTL_SERVER_HANDSHAKES], n = 0;
	long pick;

	for (size_t i = 0; i < s->nslots && n < ZCS_CTL_SERVER_HANDSHAKES; i++) {
		const struct client *c = &s->cl[i];

		if (c->stage == ST_HELLO || c->stage == ST_AUTH) {
			s->cand[n] = (struct zcs_ctl_admit_cand){ .src = c->src, .since_ns = c->since };
			idx[n++] = i;
		}
	}
	pick = zcs_ctl_admit_decide(s->admit, s->cand, n, ZCS_CTL_SERVER_HANDSHAKES, src, now);
	if (pick == ZCS_CTL_ADMIT_REFUSE) {
		COUNT(s->st.refused_busy);
		if (s->fails_logged++ < FAILS_LOGGED)
			zcs_log(&s->cfg.log, "control: %s refused: every handshake slot is held, and "
				"its address opened more connections lately than any of theirs%s", peer,
				s->fails_logged == FAILS_LOGGED ? " (further failures are counted only)"
								: "");
		return NULL;
	}
	if (pick >= 0) {
		struct client *v = &s->cl[idx[pick]];

		COUNT(s->st.evicted);
		if (s->fails_logged < FAILS_LOGGED) {
			char why[200];

			snprintf(why, sizeof(why), "its handshake gave way to %s (every handshake slot "
				 "held; its address the busiest)", peer);
			drop(s, v, 0, why);
		} else {
			drop(s, v, 0, NULL);
		}
		return v;
	}
	for (size_t i = 0; i < s->nslots; i++)
		if (s->cl[i].stage == ST_FREE)
			return &s->cl[i];
	return NULL;    /* cannot be: nready <= max_clients, npending < HANDSHAKES */
}

static void on_accept(struct zcs_ctl_server *s)
{
	for (int k = 0; k < ACCEPT_BATCH; k++) {
		struct zcs_addr a = { .len = sizeof(a.ss) };
		const int fd = accept4(s->lfd, (struct sockaddr *)&a.ss, &a.len,
				       SOCK_NONBLOCK | SOCK_CLOEXEC);
		const uint64_t now = zcs_mono_ns();
		struct zcs_ctl_source src;
		struct client *c;
		char peer[64];

		if (fd < 0)
			return;
		COUNT(s->st.accepted);
		zcs_net_addr_str(&a, peer, sizeof(peer));
		zcs_ctl_admit_source(&a, &src);
		zcs_ctl_admit_count(s->admit, &src, now);
		if (!(c = make_room(s, &src, now, peer))) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->stage = ST_HELLO;
		s->npending++;
		c->rb.used = 0;
		c->src = src;
		c->since = now;
		c->deadline = now + ZCS_CTL_HANDSHAKE_MS * 1000000ULL;
		memcpy(c->peer, peer, sizeof(c->peer));
		if (zcs_ctl_session_init(&c->s, true) < 0) {
			drop(s, c, 0, "libsodium failed to initialise");
			continue;
		}
		/* a client sends its HELLO with the connection: answered now, its handshake needs
		 * the slot one round trip less */
		on_input(s, c);
	}
}

static void *server_main(void *arg)
{
	struct zcs_ctl_server *s = arg;
	const size_t n = s->nslots;
	struct snap sn = { .pl = s->cfg.pl };

	(void)zcs_pipeline_locked(s->cfg.pl, take_snap, &sn);
	s->seen = sn.info;
	s->radio = sn.radio;
	for (;;) {
		const uint64_t now = zcs_mono_ns();
		int timeout = 1000;
		size_t k = 3;

		s->pfd[0] = (struct pollfd){ .fd = s->stop_fd, .events = POLLIN };
		s->pfd[1] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
		s->pfd[2] = (struct pollfd){ .fd = zcs_pipeline_ext_fd(s->cfg.pl), .events = POLLIN };
		for (size_t i = 0; i < n; i++) {
			struct client *c = &s->cl[i];

			s->pfd[k + i] = (struct pollfd){ .fd = c->fd, .events = POLLIN };
			if (c->stage == ST_FREE || c->stage == ST_READY)
				continue;
			if (now >= c->deadline) {
				COUNT(s->st.handshake_timeouts);
				drop(s, c, 0, "no handshake in time");
				s->pfd[k + i].fd = -1;
				continue;
			}
			if ((int)((c->deadline - now) / 1000000) + 1 < timeout)
				timeout = (int)((c->deadline - now) / 1000000) + 1;
		}
		/* armed before the poll, then one look: a change posted in between is not missed */
		zcs_pipeline_ext_arm(s->cfg.pl);
		on_ext_change(s);
		if (poll(s->pfd, k + n, timeout) < 0 && errno != EINTR)
			break;
		zcs_pipeline_ext_disarm(s->cfg.pl);
		/* before the stop: a change the stream announced just before zcs-send was told
		 * to end still reaches the clients */
		if (s->pfd[2].revents)
			on_ext_change(s);
		if (s->pfd[0].revents)
			break;
		/* clients first: a slot whose peer left is free before the next one is accepted */
		for (size_t i = 0; i < n; i++)
			if (s->cl[i].stage != ST_FREE && s->pfd[k + i].fd == s->cl[i].fd &&
			    s->pfd[k + i].revents)
				on_input(s, &s->cl[i]);
		if (s->pfd[1].revents & POLLIN)
			on_accept(s);
	}
	for (size_t i = 0; i < n; i++)
		if (s->cl[i].stage != ST_FREE)
			drop(s, &s->cl[i], 0, NULL);
	return NULL;
}

/* "PORT" alone means every address, as ":PORT" does. */
static int parse_listen(struct zcs_addr *a, const char *spec, char *err, size_t errlen)
{
	char buf[300];
	char why[ZCS_NET_ERR_LEN];

	if (spec[0] && strspn(spec, "0123456789") == strlen(spec)) {
		snprintf(buf, sizeof(buf), ":%s", spec);
		spec = buf;
	}
	if (zcs_net_parse_addr(a, spec, ZCS_CTL_DEFAULT_PORT, why, sizeof(why)) < 0)
		return zcs_err(err, errlen, -EINVAL, "--control '%s': %s", spec, why);
	return 0;
}

int zcs_ctl_server_start(struct zcs_ctl_server **out, const struct zcs_ctl_server_config *cfg,
			 char *err, size_t errlen)
{
	struct zcs_ctl_server *s = calloc(1, sizeof(*s));
	struct zcs_addr a;
	int ret;

	*out = NULL;
	if (!s)
		return zcs_err(err, errlen, -ENOMEM, "out of memory");
	s->cfg = *cfg;
	s->lfd = s->stop_fd = -1;
	if (!cfg->max_clients || cfg->max_clients > ZCS_CTL_SERVER_MAX_CLIENTS) {
		ret = zcs_err(err, errlen, -EINVAL, "control: 1..%d clients",
			      ZCS_CTL_SERVER_MAX_CLIENTS);
		goto fail;
	}
	s->nslots = cfg->max_clients + ZCS_CTL_SERVER_HANDSHAKES;
	s->cl = calloc(s->nslots, sizeof(*s->cl));
	s->pfd = calloc(s->nslots + 3, sizeof(*s->pfd));
	s->admit = malloc(sizeof(*s->admit));
	if (!s->cl || !s->pfd || !s->admit) {
		ret = zcs_err(err, errlen, -ENOMEM, "out of memory");
		goto fail;
	}
	if (zcs_ctl_admit_init(s->admit) < 0) {
		ret = zcs_err(err, errlen, -EIO, "libsodium failed to initialise");
		goto fail;
	}
	for (size_t i = 0; i < s->nslots; i++)
		s->cl[i].fd = -1;
	if ((ret = parse_listen(&a, cfg->listen, err, errlen)) < 0)
		goto fail;
	if ((ret = s->lfd = zcs_net_tcp_listen(&a, LISTEN_BACKLOG, err, errlen)) < 0)
		goto fail;
	if ((s->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		ret = zcs_err_errno(err, errlen, "control: eventfd");
		goto fail;
	}
	if ((ret = pthread_create(&s->thread, NULL, server_main, s)) != 0) {
		ret = zcs_err(err, errlen, -ret, "control: cannot start its thread: %s",
			      strerror(ret));
		goto fail;
	}
	s->started = true;
	*out = s;
	return 0;
fail:
	zcs_ctl_server_stop(s);
	return ret;
}

void zcs_ctl_server_stats(struct zcs_ctl_server *s, struct zcs_ctl_server_stats *out)
{
	const uint64_t *src = (const uint64_t *)(const void *)&s->st;
	uint64_t *dst = (uint64_t *)(void *)out;

	/* the struct is uint64_t counters only: each read whole */
	for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

void zcs_ctl_server_stop(struct zcs_ctl_server *s)
{
	if (!s)
		return;
	if (s->started) {
		const uint64_t one = 1;

		if (write(s->stop_fd, &one, sizeof(one)) != sizeof(one))
			(void)0; /* an eventfd write of 1 cannot fail short of overflow */
		pthread_join(s->thread, NULL);
	}
	if (s->stop_fd >= 0)
		close(s->stop_fd);
	if (s->lfd >= 0)
		close(s->lfd);
	free(s->cl);
	free(s->pfd);
	free(s->admit);
	free(s);
}

static uint64_t dropped_total(const struct zcs_ctl_server_stats *st)
{
	uint64_t n = 0;

	for (int i = 0; i < ZCS_CTL_E_COUNT; i++)
		n += st->dropped[i];
	return n;
}

const char *zcs_ctl_server_summary(const struct zcs_ctl_server_stats *st, char *buf, size_t len)
{
	snprintf(buf, len, "control: %" PRIu64 " connections, %" PRIu64 " with the key, %" PRIu64
		 " refused (sessions full), %" PRIu64 " closed for bad frames (auth %" PRIu64
		 ", seal %" PRIu64 "), %" PRIu64 " handshakes abandoned, %" PRIu64 " timed out, %"
		 PRIu64 " given way and %" PRIu64 " refused under a flood; %" PRIu64 " get, %"
		 PRIu64 " set (%" PRIu64 " refused)", st->accepted, st->sessions,
		 st->refused_full, dropped_total(st), st->dropped[ZCS_CTL_E_AUTH],
		 st->dropped[ZCS_CTL_E_SEAL], st->abandoned, st->handshake_timeouts, st->evicted,
		 st->refused_busy, st->gets, st->sets, st->set_refused);
	return buf;
}

const char *zcs_ctl_server_json(const struct zcs_ctl_server_stats *st, char *buf, size_t len)
{
	json_t *d = json_object(), *o;
	size_t n;

	for (int i = 1; d && i < ZCS_CTL_E_COUNT; i++)
		json_object_set_new(d, zcs_ctl_err_name(i), json_integer((json_int_t)st->dropped[i]));
	o = json_pack("{s:{sIsIsIsIsIsIsIsIsIsIsIsIso}}", "control",
		      "accepted", (json_int_t)st->accepted, "sessions", (json_int_t)st->sessions,
		      "refused_full", (json_int_t)st->refused_full,
		      "evicted", (json_int_t)st->evicted,
		      "refused_busy", (json_int_t)st->refused_busy,
		      "handshake_timeouts", (json_int_t)st->handshake_timeouts,
		      "abandoned", (json_int_t)st->abandoned,
		      "slow", (json_int_t)st->slow, "gets", (json_int_t)st->gets,
		      "sets", (json_int_t)st->sets, "set_refused", (json_int_t)st->set_refused,
		      "events", (json_int_t)st->events, "dropped", d ? d : json_null());
	n = o ? json_dumpb(o, buf, len - 1, JSON_COMPACT) : 0;
	json_decref(o);
	buf[n < len ? n : 0] = '\0';
	return buf;
}
