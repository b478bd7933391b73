// SPDX-License-Identifier: MIT
/* The source thread: reads blocks from the source and converts each straight into the datagrams
 * of a train slot (the samples' only copy), writes the headers, paces, and hands trains on. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "clock.h"
#include "pipeline_impl.h"
#include "proto.h"

/* How often the source is asked whether someone else retuned the radio. */
#define POLL_INFO_NS ZCS_NS_PER_SEC
/* An unpaced source wakes a sleeping send thread once per this many trains (or before it may
 * block itself), so the send thread sends them in one batch and the two threads do not switch
 * for every train when they share a CPU. */
#define WAKE_EVERY 4
/* Paced, the send thread is woken when pace() sleeps (once per batch); a source that never sleeps
 * (it cannot keep up with the rate) still wakes it every this many trains, more than a batch
 * holds at 61.44 MS/s (14 trains of p12). */
#define PACED_WAKE_EVERY 16
/* Longest pacing sleep between two looks at the stop flag (zcs-send's watch loop ticks at 100 ms
 * too, so a stop is noticed within about two ticks). */
#define PACE_SLICE_NS (100 * 1000000ULL)
/* A paced source sleeps at most once per this much stream time: it sleeps until a train is due
 * plus this much, and the trains falling due meanwhile go out at once when it wakes: late by up
 * to that much, never early, as a radio's samples can never leave before they were taken.
 * Sleeping for each train woke both threads once per train, 1400 times a second at 30.72 MS/s of
 * p12 (a 64 KB train is 0.7 ms of it), and the wake-ups, not the samples, were most of a paced
 * tone's cost (docs/measurements.md, "The board's budget").  5 ms bursts are gentler than a
 * radio's: the board's DMA hands over 50 ms blocks. */
#define PACE_BATCH_NS (5 * 1000000ULL)

struct src_state {
	struct zcs_pipeline *p;
	const int16_t *ptr;     /* unconsumed part of the last block */
	size_t avail;           /* pairs there */
	uint32_t events;        /* ZCS_SRC_* not yet applied to a train */
	uint64_t seq;           /* next datagram */
	uint64_t sample;        /* next sample index */
	uint64_t next_poll_ns;
	struct zcs_radio_info info;
	bool ended;             /* count reached, end of source, stop or error */
	unsigned unrung;        /* trains pushed since the send thread's doorbell was last rung */
	uint64_t read_end;      /* index past the last pair read from the source */
	struct zcs_tune_pending tune; /* a retune waiting for its index */
	bool ext;               /* the RETUNED in events is (also) another program's change */
	/* the wire format packed now, and the one a retune taken asks for from its train on */
	int format, want_format;
	const struct zcs_pipeline_fmt *fmt;
	zcs_pack_fn pack;
};

/* Packs wire format f from the next datagram on (the start of a train: its size changes). */
static void use_format(struct src_state *s, int f)
{
	s->format = f;
	s->fmt = &s->p->fmt[f];
	s->pack = s->p->k.pack[f];
}

static uint64_t remaining(const struct src_state *s)
{
	const uint64_t count = s->p->cfg.count;

	return count ? count - s->sample : UINT64_MAX;
}

/* Wakes the send thread (if it sleeps) for the trains pushed since the last time. */
static void ring_full(struct src_state *s)
{
	if (s->unrung) {
		zcs_doorbell_ring(&s->p->full_db);
		s->unrung = 0;
	}
}

/* Makes s->avail > 0, or sets s->ended; left: pairs -n still wants, counting those packed into
 * the datagram being filled (0: the source is not read again).  Returns 0 or -errno (fatal,
 * message in p->src_msg). */
static int next_block(struct src_state *s, uint64_t left)
{
	struct zcs_pipeline *const p = s->p;
	struct zcs_source *const src = p->cfg.src;

	while (s->avail == 0) {
		const size_t max = left < SIZE_MAX / 4 ? (size_t)left : SIZE_MAX / 4;
		uint32_t ev = 0;
		ssize_t n;

		if (left == 0 || atomic_load(&p->stop)) {
			s->ended = true;
			return 0;
		}
		if (src->ops->poll_info && zcs_mono_ns() >= s->next_poll_ns) {
			s->next_poll_ns = zcs_mono_ns() + POLL_INFO_NS;
			/* not while the control thread writes settings: it announces them itself */
			pthread_mutex_lock(&p->tune_mu);
			if (src->ops->poll_info(src, &s->info) == 1) {
				s->events |= ZCS_SRC_RETUNED;
				s->ext = true;
			}
			pthread_mutex_unlock(&p->tune_mu);
		}
		/* a radio's read waits for its buffer: what is done goes out first */
		if (src->paced_by_device)
			ring_full(s);
		n = src->ops->read(src, &s->ptr, max, &ev, p->src_msg, sizeof(p->src_msg));
		if (n == -EAGAIN)
			continue;
		if (n < 0) {
			s->ended = true;
			return (int)n;
		}
		if (n == 0) {
			s->ended = true;
			return 0;
		}
		s->avail = (size_t)n;
		if (ev & ZCS_SRC_REBUILT)
			zcs_pipeline_tune_rebuilt(p, s->read_end);
		s->read_end += (uint64_t)n;
		atomic_store(&p->read_end, s->read_end);
		/* where the second send thread goes too (spread.h: the core whose load it shares) */
		if (p->spread)
			atomic_store(&p->src_cpu, sched_getcpu());
		s->events |= ev;
		if ((ev & ZCS_SRC_RETUNED) && src->ops->poll_info) {
			pthread_mutex_lock(&p->tune_mu);
			src->ops->poll_info(src, &s->info);
			pthread_mutex_unlock(&p->tune_mu);
			s->ext = true;
		}
	}
	return 0;
}

/* Writes the header of datagram k (samples already packed at its payload), compresses when asked,
 * seals it when keyed.  Returns the datagram's length. */
static size_t finish_dgram(struct src_state *s, struct zcs_train *t, size_t k, size_t samples,
			   uint8_t flags)
{
	struct zcs_pipeline *const p = s->p;
	uint8_t *const dg = t->buf + k * s->fmt->seg;
	uint8_t *const payload = dg + ZCS_PROTO_SAMPLE_HDR_SIZE;
	const size_t raw = samples * s->fmt->pair_bytes;
	struct zcs_sample_hdr h = {
		.stream_id = p->cfg.stream_id, .seq = s->seq, .first_sample = s->sample,
		.samples = (uint16_t)samples, .payload_len = (uint16_t)raw,
		.format = (uint8_t)s->format, .flags = flags,
	};

	h.payload_len = (uint16_t)zcs_compress_payload(&p->z, payload, raw, &h.flags);
	zcs_proto_write_sample_hdr(dg, &h);
	s->seq++;
	s->sample += samples;
	/* sealed in place, behind the (possibly compressed) payload: the slot has the room; the
	 * train's later datagrams are the send thread's to seal */
	if (p->keyed && k < s->fmt->seal_src) {
		/* the one-time keys of the datagrams this thread seals, in one keystream call */
		if (k == 0)
			zcs_auth_prepare(&p->auth, &p->tag_source, p->cfg.stream_id,
					 ZCS_DGRAM_SAMPLES, h.seq, s->fmt->seal_src);
		p->slot_settings[t->index].sealed = k + 1;
		return zcs_auth_seal_samples(&p->auth, &p->tag_source, dg, ZCS_PROTO_SAMPLE_HDR_SIZE + h.payload_len);
	}
	return ZCS_PROTO_SAMPLE_HDR_SIZE + h.payload_len;
}

/* Fills a train: full datagrams until the train is full, the source ends, or an event (a
 * discontinuity or a retune) must start a new train so its flag or metadata lands exactly. */
static int fill_train(struct src_state *s, struct zcs_train *t)
{
	struct zcs_pipeline *const p = s->p;
	struct zcs_slot_settings *const settings = &p->slot_settings[t->index];
	int ret = 0;

	t->count = 0;
	t->bytes = 0;
	t->samples = 0;
	t->variable = zcs_compress_on(&p->z);
	settings->changed = false;
	settings->sealed = 0;
	t->first_seq = s->seq;
	t->first_sample = s->sample;
	t->wall_ns = zcs_wall_ns();
	for (size_t k = 0; k < s->fmt->dgrams && !s->ended; k++) {
		/* s->fmt changes only at k == 0 with nothing packed: datagram 0 is at buf either way */
		uint8_t *const payload = t->buf + k * s->fmt->seg + ZCS_PROTO_SAMPLE_HDR_SIZE;
		size_t filled = 0;
		uint8_t flags = 0;
		bool cut = false;

		while (filled < s->fmt->spd) {
			size_t n;

			/* counted as packed: -n ending inside a datagram must not read the source
			 * once more (a held-open pipe would hold the end of the stream) */
			ret = next_block(s, remaining(s) - filled);
			if (ret < 0 || s->ended)
				break;
			if (zcs_pipeline_tune_take(p, &s->tune, s->sample + filled, &s->info,
						   &s->want_format))
				s->events |= ZCS_SRC_RETUNED;
			if (s->events) {
				if (filled || k) {
					cut = true; /* the event belongs at the start of a train */
					break;
				}
				if (s->events & ZCS_SRC_DISCONT)
					flags |= ZCS_FLAG_DISCONT;
				if (s->events & ZCS_SRC_RETUNED) {
					settings->changed = true;
					settings->info = s->info;
					/* the control server tells its clients (it told them of its
					 * own changes already) */
					if (s->ext)
						zcs_pipeline_ext_post(p, &s->info, s->sample);
					s->ext = false;
					/* a new wire format holds from this train's first sample */
					if (s->want_format != s->format)
						use_format(s, s->want_format);
				}
				s->events = 0;
			}
			n = s->fmt->spd - filled;
			if (n > s->avail)
				n = s->avail;
			/* a retune's index ends the datagram: its train starts there */
			if (s->tune.active && n > s->tune.at - (s->sample + filled))
				n = (size_t)(s->tune.at - (s->sample + filled));
			if (n > remaining(s) - filled)
				n = (size_t)(remaining(s) - filled);
			if (n == 0) {
				s->ended = true;
				break;
			}
			s->pack(payload + filled * s->fmt->pair_bytes, s->ptr, n);
			s->ptr += 2 * n;
			s->avail -= n;
			filled += n;
		}
		if (filled) {
			t->lens[k] = (uint16_t)finish_dgram(s, t, k, filled, flags);
			t->bytes += t->lens[k];
			t->samples += filled;
			t->count++;
		}
		/* a short datagram may only be a train's last (GSO segments are equal but the last) */
		if (ret < 0 || cut || filled < s->fmt->spd)
			break;
	}
	t->format = s->format;
	t->seg = s->fmt->seg;
	t->spd = s->fmt->spd;
	t->max_dgrams = s->fmt->dgrams;
	ZCS_PUB(p->pub.discontinuities, p->cfg.src->discontinuities);
	return ret;
}

/* When the train's last sample is not yet due, sleeps until PACE_BATCH_NS after it is; a train
 * already due goes out at once.  Absolute times, so errors never accumulate.  The trains pushed
 * so far go to the send thread before the sleep (one wake-up per batch).  The sleep is cut into
 * slices that look at the stop flag: at a low rate one datagram spans minutes (480 p12 samples
 * at -r 1), and a stop must not wait for it; the train then goes out early. */
static void pace(struct src_state *s, uint64_t t0, uint64_t samples_end)
{
	struct zcs_pipeline *const p = s->p;
	const uint64_t r = p->cfg.pace_rate;
	uint64_t due, now;

	if (!r)
		return;
	/* no overflow: samples_end / r is seconds of stream, centuries away from 2^64 ns */
	due = t0 + samples_end / r * ZCS_NS_PER_SEC + samples_end % r * ZCS_NS_PER_SEC / r;
	now = zcs_mono_ns();
	if (due <= now)
		return;
	due += PACE_BATCH_NS;
	ring_full(s);
	while (!atomic_load(&p->stop)) {
		if (now >= due)
			return;
		zcs_sleep_until_ns(due - now > PACE_SLICE_NS ? now + PACE_SLICE_NS : due);
		now = zcs_mono_ns();
	}
}

/* A slot the send thread gave back, or the second send thread (--send-threads 2). */
static struct zcs_train *pop_free(struct zcs_pipeline *p)
{
	struct zcs_train *const t = zcs_ring_pop(&p->free);

	return t || !p->spread ? t : zcs_ring_pop(&p->free2);
}

static struct zcs_train *get_free(struct src_state *s)
{
	struct zcs_pipeline *const p = s->p;
	struct zcs_train *t;

	while (!(t = pop_free(p))) {
		ring_full(s);
		if (atomic_load(&p->stop))
			return NULL;
		zcs_doorbell_arm(&p->free_db);
		t = pop_free(p);
		if (!t && !atomic_load(&p->stop))
			zcs_doorbell_wait(&p->free_db, 100);
		zcs_doorbell_disarm(&p->free_db);
		if (t)
			break;
	}
	return t;
}

void *zcs_pipeline_source_main(void *arg)
{
	struct zcs_pipeline *const p = arg;
	struct src_state s = { .p = p };
	struct zcs_train *spare = NULL;
	uint64_t t0;
	int ret = 0;

	zcs_pipeline_info_now(p, &s.info);
	use_format(&s, p->cfg.format);
	s.want_format = s.format;
	zcs_pipeline_pin(p, p->cfg.cpu_src, "source");
	s.next_poll_ns = zcs_mono_ns() + POLL_INFO_NS;
	t0 = zcs_mono_ns();
	ZCS_PUB(p->pub.start_ns, t0); /* the pacing clock's origin: sample 0 is due now */
	while (!s.ended) {
		struct zcs_train *t = spare ? spare : get_free(&s);

		spare = NULL;
		if (!t)
			break;
		ret = fill_train(&s, t);
		if (t->count == 0) {
			spare = t; /* nothing in it: keep it for the next round */
			if (ret < 0)
				break;
			continue;
		}
		pace(&s, t0, t->first_sample + t->samples);
		zcs_ring_push(&p->full, t);
		/* paced, the batch goes to the send thread when pace() next sleeps */
		if (++s.unrung >= (p->cfg.pace_rate ? PACED_WAKE_EVERY : WAKE_EVERY))
			ring_full(&s);
		/* a stop ends the stream after this train, not after the rest of the source's block
		 * (up to 1M pairs of a radio's), which pace() would no longer space out */
		if (ret < 0 || atomic_load(&p->stop))
			break;
	}
	/* a spare slot is not handed back (it is not the send thread's to return): the pool is
	 * freed as a whole */
	if (ret < 0)
		p->src_err = ret;
	ZCS_PUB(p->pub.src_cpu_ns, zcs_clock_ns(CLOCK_THREAD_CPUTIME_ID));
	atomic_store(&p->source_done, true);
	zcs_doorbell_ring(&p->full_db);
	return NULL;
}
