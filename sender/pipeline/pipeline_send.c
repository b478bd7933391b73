// SPDX-License-Identifier: MIT
/* The send thread: sends trains in order on the running send path, metadata before the first
 * train, again after the first few, on every change and at least every 500 ms, and the
 * end-of-stream datagram last.  With a second send thread (pipeline_aside.c) it hands that one
 * a share of the trains (spread.h) and keeps the order: see struct zcs_pipeline. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "pipeline_impl.h"
#include "proto.h"
#include "zcs_config.h"

/* The protocol asks for metadata at least every 500 ms; 400 leaves room for scheduling. */
#define META_INTERVAL_NS (400 * 1000000ULL)
/* At a run's start the metadata goes out again after trains 1, 2, 4, ... up to this one (6
 * more datagrams), so a receiver that missed the first (a socket not ready yet, a multicast
 * join under way, one datagram lost) learns the stream within a train or two instead of 400 ms
 * later, and one that keeps what came before (docs/protocol.md, "When metadata is sent") keeps
 * little. */
#define START_META_LAST_TRAIN 32
/* A second send thread takes trains only where receivers' windows hold this many trains. */
#define SPREAD_WINDOW_TRAINS 3
/* Zero-copy completions still owed at exit are waited for this long. */
#define DRAIN_NS (2 * ZCS_NS_PER_SEC)
/* The cores' load is read this often for the second send thread's share: a second holds a
 * hundred of the kernel's ticks, so a reading is good to about 1%. */
#define SPREAD_READ_NS ZCS_NS_PER_SEC
/* --send-threads auto: the second send thread takes trains only as far as keeps the send
 * thread's core under this share of its time (and balances the two above it): the headroom the
 * board's projections ask of a core (docs/board.md, section 8). */
#define SPREAD_AUTO_FLOOR (ZCS_SPREAD_ONE * 6 / 10)

struct send_state {
	struct zcs_pipeline *p;
	struct zcs_radio_info info;
	int format;               /* the wire format of the trains now sent */
	size_t spd;               /* and their samples per full datagram */
	uint32_t meta_version;
	uint64_t next_meta_ns;
	uint64_t next_seq;        /* of the next sample datagram */
	uint64_t next_sample;     /* index of the next sample */
	uint64_t ref_sample, ref_time_ns; /* first sample of the last train and its wall clock */
	uint64_t samples, datagrams, bytes, trains, metas, parity;
	bool aside_ok;            /* the rate lets a second send thread take trains */
	struct zcs_spread spread; /* which trains it takes */
	uint64_t next_spread_ns;  /* when the cores' load is read next */
	uint64_t aside_handed;    /* trains handed to it */
	/* the first seq of each train handed to it, by its count mod the slots (fewer than that
	 * are ever out), and how far past the oldest one not yet sent a train may go out */
	uint64_t aside_first[ZCS_PIPELINE_SLOTS];
	uint64_t aside_lead;
	uint64_t window_start;    /* a receiver's window from the stream's first settings */
	/* the small side slot for metadata and end of stream, keyed or not */
	uint8_t side[ZCS_PROTO_META_SIZE + ZCS_AUTH_MAX_TRAILER];
};

static void flush(struct send_state *s);

/* --send-threads 2: whether a train ending at seq `last` must wait for the second send thread:
 * with all = true, until it has handed every train it got to the kernel; else only while `last`
 * lies aside_lead or more past the first datagram of the oldest one it has not. */
static bool aside_behind(const struct send_state *s, bool all, uint64_t last)
{
	const uint64_t sent = atomic_load(&s->p->aside_sent);

	if (sent == s->aside_handed)
		return false;
	return all || last - s->aside_first[sent % ZCS_PIPELINE_SLOTS] >= s->aside_lead;
}

/* Waits while aside_behind(): it never waits for ever, as a train the second send thread
 * cannot send it gives up, counted. */
static void aside_wait(struct send_state *s, bool all, uint64_t last)
{
	struct zcs_pipeline *const p = s->p;

	while (aside_behind(s, all, last)) {
		zcs_doorbell_arm(&p->aside_done_db);
		if (aside_behind(s, all, last))
			zcs_doorbell_wait(&p->aside_done_db, 100);
		zcs_doorbell_disarm(&p->aside_done_db);
	}
}

static void send_meta(struct send_state *s, bool change)
{
	struct zcs_pipeline *const p = s->p;
	struct zcs_meta m = {
		.stream_id = p->cfg.stream_id,
		.meta_version = s->meta_version,
		.next_seq = s->next_seq,
		.ref_sample = s->ref_sample,
		.ref_time_ns = s->ref_time_ns,
		.sample_rate = s->info.sample_rate,
		.center_freq = s->info.center_freq,
		.bandwidth = s->info.bandwidth,
		.gain_mdb = s->info.gain_mdb,
		.gain_mode = s->info.gain_mode,
		.channel = s->info.channel,
		.format = (uint8_t)s->format,
		.flags = (uint8_t)(zcs_compress_meta_flags(&p->z) |
				   (change ? ZCS_META_FLAG_CHANGE : 0)),
		.samples_per_dgram = (uint16_t)s->spd,
	};
	size_t len;

	/* next_seq says what follows: the trains before it, repeats of failed ones included, go
	 * out first */
	flush(s);
	snprintf(m.sender, sizeof(m.sender), "%s", p->cfg.sender_name ? p->cfg.sender_name : "");
	/* --fec announced, so a receiver keeps datagrams for parity from the stream's first */
	zcs_proto_meta_version(&m, ZCS_VERSION, p->fec ? p->fec_enc.k : 0,
			       p->fec ? p->fec_enc.m : 0);
	snprintf(m.source, sizeof(m.source), "%s", p->cfg.source_name ? p->cfg.source_name : "");
	len = zcs_proto_write_meta(s->side, &m);
	if (p->keyed)
		len = zcs_auth_seal_meta(&p->auth, &p->tag_send, s->side);
	if (zcs_sendpath_send_small(p->sp, s->side, len) >= 0)
		s->metas++;
	s->next_meta_ns = zcs_mono_ns() + META_INTERVAL_NS;
}

/* --fec: the open block's parity datagrams, sealed when keyed, are queued in fec_pend and the
 * block closed: the next sample datagram opens another. */
static void fec_close(struct send_state *s)
{
	struct zcs_pipeline *const p = s->p;
	struct zcs_fec_enc *const e = &p->fec_enc;

	if (!p->fec || e->count == 0)
		return;
	if (p->keyed) /* the block's parity numbers are e->number on */
		zcs_auth_prepare(&p->auth, &p->tag_send, p->cfg.stream_id, ZCS_DGRAM_PARITY,
				 e->number, e->m);
	for (unsigned i = 0; i < e->m && p->fec_npend < p->fec_pend_max; i++) {
		uint8_t *const buf = p->fec_pend + p->fec_pend_stride * p->fec_npend;
		size_t len = zcs_fec_enc_parity(e, i, p->cfg.stream_id, buf);

		if (p->keyed)
			len = zcs_auth_seal_parity(&p->auth, &p->tag_send, buf, len);
		p->fec_pend_len[p->fec_npend++] = len;
	}
	zcs_fec_enc_close(e);
}

/* The parity queued goes out, after every sample datagram handed over before it (the second
 * send thread's too). */
static void fec_send(struct send_state *s)
{
	struct zcs_pipeline *const p = s->p;

	if (p->fec_npend)
		aside_wait(s, true, 0);
	for (size_t i = 0; i < p->fec_npend; i++)
		if (zcs_sendpath_send_small(p->sp, p->fec_pend + p->fec_pend_stride * i,
					    p->fec_pend_len[i]) >= 0)
			s->parity++;
	p->fec_npend = 0;
}

/* --fec: folds each datagram of train t into its block before t is handed over (the slot may
 * return to the source as soon as it is sent); blocks t completes have their parity queued, to
 * go out after t. */
static void fec_fold(struct send_state *s, const struct zcs_train *t)
{
	struct zcs_pipeline *const p = s->p;

	if (!p->fec)
		return;
	for (size_t i = 0; i < t->count; i++) {
		const size_t len = t->variable ? t->lens[i] :
				   i + 1 < t->count ? t->seg : t->bytes - (t->count - 1) * t->seg;

		if (zcs_fec_enc_add(&p->fec_enc, t->buf + i * t->seg, len) == p->fec_enc.k)
			fec_close(s);
	}
}

static void send_eos(struct send_state *s)
{
	struct zcs_pipeline *const p = s->p;
	const struct zcs_sample_hdr h = {
		.stream_id = p->cfg.stream_id, .seq = s->next_seq, .first_sample = s->next_sample,
		.samples = 0, .payload_len = 0, .format = (uint8_t)s->format,
		.flags = ZCS_FLAG_EOS,
	};
	size_t len = ZCS_PROTO_SAMPLE_HDR_SIZE;
	int ret;

	zcs_proto_write_sample_hdr(s->side, &h);
	if (p->keyed)
		len = zcs_auth_seal_samples(&p->auth, &p->tag_send, s->side, len);
	ret = zcs_sendpath_send_small(p->sp, s->side, len);
	if (ret < 0 && !p->send_err) {
		/* receivers wait for their timeout instead of ending the stream: zcs-send must not
		 * report a clean end (a failure before it is the one reported) */
		p->send_err = ret;
		snprintf(p->send_msg, sizeof(p->send_msg), "send: the end of stream was not sent: %s",
			 strerror(-ret));
	}
	/* the stream's last block ends here, protected like any other */
	if (p->fec) {
		zcs_fec_enc_add(&p->fec_enc, s->side, len);
		fec_close(s);
		fec_send(s);
	}
}

static void publish(struct send_state *s)
{
	struct zcs_pipeline *const p = s->p;
	struct zcs_pipeline_stats *const o = &p->pub;
	const struct zcs_sendpath_stats *const st = zcs_sendpath_stats(p->sp);

	/* sent: the trains given up after errors are left out (a receiver misses exactly them) */
	ZCS_PUB(o->samples, s->samples - st->dropped_samples);
	ZCS_PUB(o->datagrams, s->datagrams - st->dropped_dgrams);
	ZCS_PUB(o->bytes, s->bytes - st->dropped_bytes);
	ZCS_PUB(o->trains, s->trains - st->dropped_trains);
	ZCS_PUB(o->meta_sent, s->metas);
	ZCS_PUB(o->parity_sent, s->parity);
	zcs_sendpath_stats_copy(&o->path, st);
	ZCS_PUB(o->send_path, zcs_sendpath_kind(p->sp));
}

static void failed(struct zcs_pipeline *p, int ret)
{
	p->send_err = ret;
	snprintf(p->send_msg, sizeof(p->send_msg), "send: %s", strerror(-ret));
	zcs_pipeline_stop(p);
}

/* Hands queued sends to the kernel and deals with the ones that failed; waits until the second
 * send thread has handed its train over too. */
static void flush(struct send_state *s)
{
	struct zcs_pipeline *const p = s->p;
	const int ret = p->send_err ? 0 : zcs_sendpath_flush(p->sp);

	if (ret < 0)
		failed(p, ret);
	aside_wait(s, true, 0);
}

/* --send-threads 2: the second send thread gets the share of trains spread.h sets.  No datagram
 * goes out (by either thread) aside_lead or more past the first of the oldest train the second
 * has not yet handed to the kernel, so a receiver's window takes the trains in whatever order
 * they meet; and the send thread's own trains before it go first (on uring-zc they may only be
 * queued: that costs the batching of sends).  Parity, metadata and the end of stream wait for
 * every train handed to it (fec_send, flush).  Returns false when t is the send thread's own. */
static bool hand_aside(struct send_state *s, struct zcs_train *t)
{
	struct zcs_pipeline *const p = s->p;
	int ret;

	/* a second thread whose path failed gets none: the send thread sends them itself until
	 * the stop it asked for ends the stream */
	if (!s->aside_ok || ZCS_GET(p->aside_err) || !zcs_spread_pick(&s->spread))
		return false;
	if (!p->send_err && (ret = zcs_sendpath_flush(p->sp)) < 0)
		failed(p, ret);
	aside_wait(s, false, t->first_seq + t->count - 1);
	s->aside_first[s->aside_handed % ZCS_PIPELINE_SLOTS] = t->first_seq;
	zcs_ring_push(&p->aside, t);
	s->aside_handed++;
	zcs_doorbell_ring(&p->aside_db);
	return true;
}

/* --send-threads 2: once a second, the load of this thread's core and of the one the second
 * send thread last ran on (before its first train, the source thread's, where it is pinned or
 * mostly runs) moves the share of trains it gets towards equal load (spread.h); with auto,
 * towards none while this core has room.  On one core (or without /proc/stat) the share stays. */
static void spread_read(struct send_state *s)
{
	struct zcs_pipeline *const p = s->p;
	const uint64_t now = zcs_mono_ns();
	struct zcs_cpu_load load[2];
	int cpus[2];

	if (!s->aside_ok || p->stat_fd < 0 || now < s->next_spread_ns)
		return;
	s->next_spread_ns = now + SPREAD_READ_NS;
	cpus[0] = sched_getcpu();
	cpus[1] = atomic_load(&p->aside_cpu);
	if (cpus[1] < 0)
		cpus[1] = atomic_load(&p->src_cpu);
	if (cpus[0] < 0 || cpus[1] < 0 || zcs_cpu_load_read(p->stat_fd, cpus, load, 2) < 0)
		return;
	if (zcs_spread_balance(&s->spread, cpus[0], &load[0], cpus[1], &load[1],
			       p->cfg.spread_auto ? SPREAD_AUTO_FLOOR : 0))
		atomic_store(&p->spread_share, s->spread.share);
}

/* The reorder window protocol.md ("Receiver parameters") recommends for a stream of this rate,
 * datagram and parity: 5 ms of it, at least 64 datagrams and 4 blocks with their parity, at most
 * 1024, rounded up to a power of two. */
static uint64_t receiver_window(uint64_t rate, size_t spd, unsigned fec_k, unsigned fec_m)
{
	uint64_t w = spd ? rate * 5 / 1000 / spd : 0, p2 = 1;

	if (w < 64)
		w = 64;
	if (w < 4 * ((uint64_t)fec_k + fec_m))
		w = 4 * ((uint64_t)fec_k + fec_m);
	if (w > 1024)
		w = 1024;
	while (p2 < w)
		p2 <<= 1;
	return p2;
}

/* Sets how far ahead of the second send thread's oldest unsent train a datagram may go out: a
 * receiver's recommended window less a train (the kernel may still hold the tail of one it was
 * handed), and whether the second thread takes trains at all: only when that lead holds two more
 * (its own and the send thread's next), that is when the window holds SPREAD_WINDOW_TRAINS.  A
 * receiver keeps the window it placed at the stream's start through every change, and one that
 * joins later places its own from the settings then: the smaller of the two counts.
 * Between about 1 and 12 MS/s of p12 it does not (paced trains of 10 ms, 44 datagrams at most,
 * against 5 ms of window), and one core carries such a rate anyway. */
static void spread_set(struct send_state *s)
{
	const struct zcs_pipeline *const p = s->p;
	const size_t dgrams = p->fmt[s->format].dgrams;
	uint64_t w = receiver_window(s->info.sample_rate, s->spd, p->fec ? p->fec_enc.k : 0,
				     p->fec ? p->fec_enc.m : 0);

	if (!s->window_start)
		s->window_start = w;
	if (w > s->window_start)
		w = s->window_start;

	s->aside_ok = p->spread && w >= SPREAD_WINDOW_TRAINS * dgrams;
	s->aside_lead = s->aside_ok ? w - dgrams : 0;
}

/* Sends t on the send thread's own path, within the lead on the second send thread's trains. */
static void send_train(struct send_state *s, struct zcs_train *t)
{
	struct zcs_pipeline *const p = s->p;
	int ret;

	aside_wait(s, false, t->first_seq + t->count - 1);
	ret = zcs_sendpath_send(p->sp, t);
	if (ret < 0)
		failed(p, ret);
	fec_send(s);
}

/* Keyed: seals the datagrams of t the source thread left (its fill_train sealed the first ones),
 * in place behind each payload. */
static void seal_rest(struct zcs_pipeline *p, struct zcs_train *t)
{
	const size_t sealed = p->slot_settings[t->index].sealed;

	/* their one-time keys in one keystream call */
	if (sealed < t->count)
		zcs_auth_prepare(&p->auth, &p->tag_send, p->cfg.stream_id, ZCS_DGRAM_SAMPLES,
				 t->first_seq + sealed, t->count - sealed);
	for (size_t k = sealed; k < t->count; k++) {
		const size_t len = t->lens[k];

		t->lens[k] = (uint16_t)zcs_auth_seal_samples(&p->auth, &p->tag_send,
							     t->buf + k * t->seg, len);
		t->bytes += t->lens[k] - len;
	}
}

/* Waits for a train, a completion, or the next metadata time.  Returns the train or NULL. */
static struct zcs_train *next_train(struct send_state *s)
{
	struct zcs_pipeline *const p = s->p;
	struct zcs_train *t;
	uint64_t now;
	int wait_ms;

	zcs_sendpath_reap(p->sp);
	t = zcs_ring_pop(&p->full);
	if (t)
		return t;
	/* nothing more to batch with: what is queued goes out before the wait */
	flush(s);
	now = zcs_mono_ns();
	if (now >= s->next_meta_ns) {
		send_meta(s, false);
		now = zcs_mono_ns();
	}
	wait_ms = (int)((s->next_meta_ns - now) / 1000000) + 1;
	if (wait_ms > 100)
		wait_ms = 100;
	zcs_doorbell_arm(&p->full_db);
	t = zcs_ring_pop(&p->full);
	if (!t && !atomic_load(&p->source_done)) {
		/* completions wake us only when the source may soon run short of slots: each wake-up
		 * would otherwise preempt the source for one slot (they are reaped on the next pass) */
		if (zcs_sendpath_inflight(p->sp) >= p->pool.nslots / 2)
			zcs_sendpath_wait(p->sp, p->full_db.fd, wait_ms);
		else
			zcs_doorbell_wait(&p->full_db, wait_ms);
	}
	zcs_doorbell_disarm(&p->full_db);
	return t ? t : zcs_ring_pop(&p->full);
}

void *zcs_pipeline_send_main(void *arg)
{
	struct zcs_pipeline *const p = arg;
	struct send_state s = { .p = p, .meta_version = 1, .format = p->cfg.format,
				.spd = p->fmt[p->cfg.format].spd };

	zcs_spread_init(&s.spread, atomic_load(&p->spread_share));
	zcs_pipeline_info_now(p, &s.info);
	spread_set(&s);
	if (p->spread && !s.aside_ok && !p->cfg.spread_auto)
		zcs_log(&p->cfg.log, "at %llu S/s one send thread sends: a receiver's reorder window "
			"(5 ms of the stream) holds fewer than %d trains",
			(unsigned long long)s.info.sample_rate, SPREAD_WINDOW_TRAINS);
	zcs_pipeline_pin(p, p->cfg.cpu_send, "send");
	s.ref_time_ns = zcs_wall_ns();
	send_meta(&s, false); /* before any sample, so a receiver knows the stream from its first datagram */
	for (;;) {
		struct zcs_train *t = next_train(&s);
		int ret;

		if (!t) {
			if (atomic_load(&p->source_done) && zcs_ring_count(&p->full) == 0)
				break;
			continue;
		}
		if (p->send_err) {
			/* the path is gone: hand the slot back so the source can notice the stop */
			zcs_ring_push(&p->free, t);
			zcs_doorbell_ring(&p->free_db);
			continue;
		}
		s.ref_sample = t->first_sample;
		s.ref_time_ns = t->wall_ns;
		if (p->slot_settings[t->index].changed) {
			const bool new_format = t->format != s.format;

			s.info = p->slot_settings[t->index].info;
			s.format = t->format;
			s.spd = t->spd;
			spread_set(&s);
			s.meta_version++;
			/* the block of the old settings ends before their change is announced */
			fec_close(&s);
			fec_send(&s);
			/* twice: one lost datagram must not cost a receiver the exact index (a copy
			 * is "the same description again" to it) */
			send_meta(&s, true);
			send_meta(&s, true);
			/* send_meta flushed every train of the old format: the GSO size can change */
			if (new_format && (ret = zcs_sendpath_set_seg(p->sp, t->seg)) < 0) {
				failed(p, ret);
				zcs_ring_push(&p->free, t);
				zcs_doorbell_ring(&p->free_db);
				continue;
			}
		} else if (zcs_mono_ns() >= s.next_meta_ns) {
			send_meta(&s, false);
		}
		if (p->keyed)
			seal_rest(p, t);
		s.datagrams += t->count;
		s.bytes += t->bytes;
		s.samples += t->samples;
		s.trains++;
		s.next_seq = t->first_seq + t->count;
		s.next_sample = t->first_sample + t->samples;
		fec_fold(&s, t);
		if (!hand_aside(&s, t))
			send_train(&s, t);
		spread_read(&s);
		/* the start's repeats: after the train, which the metadata's next_seq then follows */
		if (s.trains <= START_META_LAST_TRAIN && (s.trains & (s.trains - 1)) == 0)
			send_meta(&s, false);
		publish(&s);
	}
	flush(&s);
	ZCS_PUB(p->pub.end_ns, zcs_mono_ns()); /* the last sample is with the kernel */
	send_eos(&s);
	/* after the end of stream: the second send thread ends (its last train went before) */
	atomic_store(&p->aside_end, true);
	zcs_doorbell_ring(&p->aside_db);
	if (zcs_sendpath_drain(p->sp, zcs_mono_ns() + DRAIN_NS))
		zcs_log(&p->cfg.log, "%zu zero-copy completions still missing at exit",
			zcs_sendpath_inflight(p->sp));
	publish(&s);
	ZCS_PUB(p->pub.send_cpu_ns, zcs_clock_ns(CLOCK_THREAD_CPUTIME_ID));
	atomic_store(&p->send_done, true);
	return NULL;
}
