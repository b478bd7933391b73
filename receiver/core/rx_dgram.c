// SPDX-License-Identifier: MIT
/* Each datagram once read (see rx_dgram.h): verified, parsed, filtered by sender, handed to the
 * stream-following unit (rx_follow.h) for which stream and what is believed, decompressed, placed
 * in the reorder window, and what the window releases handed to the gap filler, the one door to
 * the outputs.  Parity goes to rx_parity.c, a run awaiting the board's datagrams to
 * rx_pending.c.  rx.c calls in here; nothing here calls rx.c. */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "auth.h"
#include "bytes.h"
#include "clock.h"
#include "codec.h"
#include "rx_dgram.h"
#include "rx_parity.h"
#include "rx_pending.h"
#include "rx_pool.h"
#include "rx_start.h"
#include "seq.h"
#include "zcs_config.h"

/* The automatic window spans this much of the stream, so a hole delays samples at most this. */
#define AUTO_WINDOW_NS (5ULL * 1000 * 1000)
#define AUTO_WINDOW_MIN 64
/* Discontinuity news at most once a second: a failing source must not flood the log. */
#define DISCONT_LOG_NS ZCS_NS_PER_SEC

void zcs_rx_dgram_init(struct zcs_rx *rx)
{
	const struct zcs_follow_opts fo = {
		.have_stream = rx->opt.have_stream, .stream_id = rx->opt.stream_id,
		.keyed = rx->opt.key != NULL, .hold_ms = rx->opt.hold_ms, .log = rx->opt.log,
		.run_seen = rx->opt.key ? rx->opt.run_seen : NULL,
		.check = rx->opt.run_check,
	};

	zcs_follow_init(&rx->fs, &fo, &rx->ro, &rx->gf);
	rx->datagram = zcs_rx_datagram;
}

/* Buffer b leaves the engine's hands.  The buffer being handled (cur) stays in its batch slot;
 * others return to the pool.  ZCS_FOLLOW_NONE: nothing to free. */
static void free_buf(struct zcs_rx *rx, uint32_t b, uint32_t cur)
{
	if (b == ZCS_FOLLOW_NONE)
		return;
	rx->bufs[b].held = false;
	if (b != cur)
		rx->free_list[rx->nfree++] = b;
}

/* One datagram released in order: into the gap filler, and its flags acted on. */
static void deliver(struct zcs_rx *rx, const struct zcs_sample_hdr *hdr, const uint8_t *payload)
{
	const uint8_t flags = hdr->flags;
	const struct zcs_gapfill *g = &rx->gf;

	if (!rx->done) {
		if (flags & ZCS_FLAG_DISCONT) {
			rx->st.discont++;
			if (rx->now_ns - rx->last_discont_log_ns >= DISCONT_LOG_NS) {
				rx->last_discont_log_ns = rx->now_ns;
				zcs_log(&rx->opt.log, "stream 0x%08" PRIx32
					": the sender lost samples at its source before sample %"
					PRIu64 " (%" PRIu64 " such so far)", rx->fs.stream_id,
					hdr->first_sample, rx->st.discont);
			}
		}
		zcs_gapfill_data(&rx->gf, hdr, payload, rx->now_ns);
		if (g->fmt_ended && !rx->done)
			zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 ": the wire format changed from "
				"%s to %s at sample %" PRIu64 "; -F native writes the wire's own bytes, "
				"whose layout cannot change mid-stream: the outputs end before that "
				"sample (-F cs16, cs8, cu8 or cf32 keep flowing across a change)",
				rx->fs.stream_id, zcs_wire_name(g->native_fmt),
				zcs_wire_name(g->fmt_to), g->fmt_at);
		if (g->done)
			rx->done = true;
	}
	/* believed only once the stream then falls silent (zcs_rx_idle) */
	if ((flags & ZCS_FLAG_EOS) && zcs_follow_eos_delivered(&rx->fs, hdr->seq))
		zcs_gapfill_flush(&rx->gf);
}

/* The end of stream delivered is believed: its outputs are told, after everything before it. */
static void end_stream(struct zcs_rx *rx)
{
	zcs_follow_end(&rx->fs);
	zcs_gapfill_eos(&rx->gf);
	if (rx->opt.exit_on_eos)
		rx->done = true;
}

/* Hands every event the window produced to the gap filler. */
static void drain(struct zcs_rx *rx, uint32_t cur)
{
	struct zcs_reorder_event ev;

	while (zcs_reorder_pop(&rx->ro, &ev)) {
		if (ev.type == ZCS_REORDER_EV_LOST) {
			zcs_gapfill_lost(&rx->gf, ev.count);
		} else if (ev.type == ZCS_REORDER_EV_RESYNC) {
			zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 ": sequence jumped from %"
				PRIu64 " to %" PRIu64 ": resynchronised (not counted as loss)",
				rx->fs.stream_id, ev.count, ev.seq);
			zcs_gapfill_restart(&rx->gf, rx->fs.meta.samples_per_dgram);
		} else {
			deliver(rx, &rx->bufs[ev.handle].hdr, rx->bufs[ev.handle].payload);
			free_buf(rx, ev.handle, cur);
		}
	}
}

/* Releases everything the window holds (the stream ended, went silent or is being replaced). */
static void flush_window(struct zcs_rx *rx, uint32_t cur)
{
	if (!zcs_reorder_started(&rx->ro) || zcs_reorder_depth(&rx->ro) == 0)
		return;
	zcs_reorder_flush(&rx->ro);
	drain(rx, cur);
	zcs_gapfill_flush(&rx->gf);
}

/* The stream followed ends because another replaces it (zcs_follow_select said SWITCH): the jump
 * awaiting confirmation is not believed, what the window holds goes out, and only then the end of
 * stream, so no sample of the old stream reaches the outputs after their end of stream. */
static void end_followed(struct zcs_rx *rx, uint32_t cur)
{
	/* judged before the window's release, as zcs_rx_idle judges it */
	const bool eos = rx->fs.switch_eos;

	free_buf(rx, zcs_follow_drop_cand(&rx->fs), cur);
	flush_window(rx, cur);
	zcs_fec_rx_reset(&rx->fec, rx->fs.need_start ? NULL : &rx->ro.next);
	if (eos)
		end_stream(rx);
	else if (!rx->fs.ended)
		zcs_gapfill_eos(&rx->gf);
}

static const char *gain_mode_name(int m)
{
	switch (m) {
	case ZCS_GAIN_MANUAL: return "manual";
	case ZCS_GAIN_SLOW: return "slow";
	case ZCS_GAIN_FAST: return "fast";
	case ZCS_GAIN_HYBRID: return "hybrid";
	default: return "unknown";
	}
}

/* The window in datagrams: --window, or AUTO_WINDOW_NS of the stream within [64, 1024] and, when
 * its metadata announces parity, ZCS_RX_FEC_WINDOW_BLOCKS blocks with it; either as the reorder
 * window will really be (a power of two), so the start-up test and the zero-fill bound reason
 * with the window in use, not the figure asked for. */
static size_t window_for(const struct zcs_rx *rx)
{
	const struct zcs_meta *m = &rx->fs.meta;
	const uint64_t spd = m->samples_per_dgram ? m->samples_per_dgram : 1;
	/* K:M announced, or seen in parity before the window is placed */
	const uint64_t km = m->fec_k ? (uint64_t)m->fec_k + m->fec_m :
			    (uint64_t)rx->fec.k + rx->fec.m;
	uint64_t w = rx->opt.window;

	if (!w) {
		w = m->sample_rate * AUTO_WINDOW_NS / ZCS_NS_PER_SEC / spd;
		if (w < AUTO_WINDOW_MIN)
			w = AUTO_WINDOW_MIN;
		if (w < ZCS_RX_FEC_WINDOW_BLOCKS * km)
			w = ZCS_RX_FEC_WINDOW_BLOCKS * km;
		if (w > ZCS_RX_MAX_WINDOW)
			w = ZCS_RX_MAX_WINDOW;
	}
	return zcs_reorder_window_for(&rx->ro, (size_t)w);
}

/* Zero fill's bound (gapfill.h): the rate, and a window's samples of slack. */
static void bound_fill(struct zcs_rx *rx)
{
	zcs_gapfill_bound(&rx->gf, rx->fs.meta.sample_rate,
			  (uint64_t)window_for(rx) * rx->fs.meta.samples_per_dgram);
}

/* Metadata of the stream followed: applied when the following unit believes it. */
static void apply_meta(struct zcs_rx *rx, const struct zcs_meta *m)
{
	struct zcs_meta eff;
	char from[48] = "", fec[96] = "";
	const int how = zcs_follow_meta(&rx->fs, m, rx->now_ns, &eff);
	const bool first = how == 1;

	if (how == 0)
		return;
	/* the buffers the engine keeps datagrams in take the stream's largest (they grow now if
	 * none is in use; else a datagram that does not fit is counted oversize: samples()) */
	zcs_rx_pool_fit(rx, ZCS_PROTO_SAMPLE_HDR_SIZE + ZCS_AUTH_SAMPLE_TRAILER +
			(size_t)m->samples_per_dgram * zcs_wire_pair_bytes(m->format));
	if (!rx->fs.need_start) {
		bound_fill(rx);
		/* a change of wire format changes the datagrams' size: the gap filler's estimates
		 * for lost datagrams (before a DISCONT) use the size in force */
		zcs_gapfill_set_spd(&rx->gf, m->samples_per_dgram);
	}
	zcs_gapfill_meta(&rx->gf, &eff);
	if (!first) {
		/* the sender says from which sample a retune holds; a receiver that missed both
		 * copies of that announcement knows only that it holds by now */
		const bool exact = (eff.flags & ZCS_META_FLAG_CHANGE) != 0;
		const uint64_t since = exact ? eff.ref_sample :
				       rx->gf.have_pos ? rx->gf.pos : eff.ref_sample;

		snprintf(from, sizeof(from), " from sample %s%" PRIu64, exact ? "" : "~", since);
		if (rx->opt.on_change)
			rx->opt.on_change(rx->opt.on_change_ctx, &eff, since, exact);
	}
	if (m->fec_k)
		snprintf(fec, sizeof(fec), ", erasure coding %u:%u%s", (unsigned)m->fec_k,
			 (unsigned)m->fec_m, zcs_fec_available() ? "" : " (not in this build: "
			 "parity only counted)");
	zcs_log(&rx->opt.log, "stream 0x%08" PRIx32
		"%s%s: rate %.6g MS/s, frequency %.6f MHz, gain %.3f dB (%s), "
		"bandwidth %.6g MHz, format %s, %u samples/datagram%s, from %s (%s %s)",
		rx->fs.stream_id, first ? "" : " changed", from, (double)m->sample_rate / 1e6,
		(double)m->center_freq / 1e6, m->gain_mdb / 1000.0, gain_mode_name(m->gain_mode),
		(double)m->bandwidth / 1e6, zcs_wire_name(m->format),
		(unsigned int)m->samples_per_dgram, fec, m->sender, m->source, m->version);
	/* docs/protocol.md: a receiver that cannot decode zstd says so with the stream's settings
	 * (once, unless they change), rather than leaving the user to wonder why every compressed
	 * datagram counts as invalid */
	if (!ZCS_HAVE_ZSTD && (m->flags & ZCS_META_FLAG_ZSTD))
		zcs_log(&rx->opt.log, "stream 0x%08" PRIx32
			": the sender compresses with zstd, which this build of "
			"zcs-recv cannot decode: those datagrams count as invalid (decompress)",
			rx->fs.stream_id);
}

/* True when the sender's address passes --source (its port too, when --source gave one). */
static bool source_ok(const struct zcs_rx *rx, const struct sockaddr *from)
{
	const struct sockaddr *want = (const struct sockaddr *)&rx->source.ss;

	if (!rx->opt.source)
		return true;
	if (from->sa_family != want->sa_family)
		return false;
	if (want->sa_family == AF_INET) {
		const struct sockaddr_in *f = (const struct sockaddr_in *)(const void *)from;
		const struct sockaddr_in *w = (const struct sockaddr_in *)(const void *)want;

		return f->sin_addr.s_addr == w->sin_addr.s_addr &&
		       (w->sin_port == 0 || w->sin_port == f->sin_port);
	}
	if (want->sa_family == AF_INET6) {
		const struct sockaddr_in6 *f = (const struct sockaddr_in6 *)(const void *)from;
		const struct sockaddr_in6 *w = (const struct sockaddr_in6 *)(const void *)want;

		return memcmp(&f->sin6_addr, &w->sin6_addr, sizeof(w->sin6_addr)) == 0 &&
		       (w->sin6_port == 0 || w->sin6_port == f->sin6_port);
	}
	return false;
}

static void invalid(struct zcs_rx *rx, int reason)
{
	rx->st.invalid++;
	rx->st.invalid_by[reason]++;
}

/* Decompresses a zstd payload into scratch and back into the buffer, behind the header. */
static bool decompress(struct zcs_rx *rx, struct zcs_rx_buf *b)
{
	const size_t want = zcs_proto_sample_bytes(&b->hdr);
	ssize_t n;

	if (!rx->codec)
		return false;
	if (want > rx->buf_size - ZCS_PROTO_SAMPLE_HDR_SIZE)
		return false;
	n = zcs_codec_decompress(rx->codec, rx->scratch, want, b->payload, b->hdr.payload_len);
	if (n < 0 || (size_t)n != want)
		return false;
	/* into the buffer's own memory: a segment of a GRO train has no room behind it */
	memcpy(b->own + ZCS_PROTO_SAMPLE_HDR_SIZE, rx->scratch, want);
	b->payload = b->own + ZCS_PROTO_SAMPLE_HDR_SIZE;
	rx->st.compressed++;
	return true;
}

/* Places the reorder window for the stream followed at its first usable sample datagram h (in
 * buffer cur): where the following unit says it starts, sized from the rate, with the stream's
 * start declared lost when it came before the metadata. */
static void place_window(struct zcs_rx *rx, const struct zcs_sample_hdr *h, uint32_t cur)
{
	const size_t w = window_for(rx);
	uint64_t skip_to;
	const uint64_t start = zcs_follow_start(&rx->fs, h, w, &skip_to);

	zcs_reorder_reset(&rx->ro, start, w);
	/* parity announced: the store keeps the stream from its start (datagrams lost before the
	 * first that came may be rebuilt too) */
	if (rx->fec.armed)
		zcs_fec_rx_arm(&rx->fec, start);
	/* farther than a window beyond the window is a jump to confirm (place's jump()) */
	zcs_reorder_set_jump(&rx->ro, rx->ro.window);
	zcs_gapfill_restart(&rx->gf, rx->fs.meta.samples_per_dgram);
	/* a run that awaited the board began when its metadata came, not at the answer; one whose
	 * start awaited confirmation when its first datagram was kept */
	if (rx->fs.taken_since_ns)
		zcs_gapfill_began(&rx->gf, rx->fs.taken_since_ns);
	else if (!rx->opt.key && rx->fs.start_since_ns)
		zcs_gapfill_began(&rx->gf, rx->fs.start_since_ns);
	bound_fill(rx);
	if (skip_to) {
		zcs_reorder_skip(&rx->ro, skip_to);
		drain(rx, cur);
	}
	zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 ": starting at datagram %" PRIu64
		", reorder window %zu datagrams", rx->fs.stream_id, start, rx->ro.window);
}

/* The window took buffer bi (h) at the current position: the following unit learns it, and a
 * jump it no longer believes gives its buffer back. */
static void taken(struct zcs_rx *rx, const struct zcs_sample_hdr *h, uint32_t bi)
{
	free_buf(rx, zcs_follow_taken(&rx->fs, h, rx->now_ns), bi);
}

/* Sample datagram h (in buffer bi) claims a jump: the following unit judges it (zcs_follow_jump);
 * a believed jump goes into the window, its first datagram then this one (keyed: this one
 * alone).  Returns whether buffer bi is kept. */
static bool jump(struct zcs_rx *rx, uint32_t bi, const struct zcs_sample_hdr *h,
		 const uint8_t *payload)
{
	struct zcs_rx_buf *b = &rx->bufs[bi];
	uint32_t other;
	enum zcs_reorder_verdict v;

	switch (zcs_follow_jump(&rx->fs, bi, h, rx->now_ns, rx->look_ns, &other)) {
	case ZCS_FOLLOW_JUMP_DROP:
		return false;
	case ZCS_FOLLOW_JUMP_HELD:
		free_buf(rx, other, bi);
		b->hdr = *h;
		b->payload = payload;
		b->held = true;
		return true;
	case ZCS_FOLLOW_JUMP_TAKEN:
		zcs_follow_moved(&rx->fs);
		break;
	case ZCS_FOLLOW_JUMP_BELIEVED:
		v = zcs_reorder_push_jump(&rx->ro, rx->bufs[other].hdr.seq, other);
		if (v == ZCS_REORDER_ACCEPTED) {
			zcs_follow_moved(&rx->fs);
			taken(rx, &rx->bufs[other].hdr, bi);
			drain(rx, bi);
		} else {
			free_buf(rx, other, bi);
		}
		break;
	}
	/* and this datagram, now at the current position (it continues the jump; the zeros for
	 * what was dropped meanwhile stay within gapfill's bound) */
	b->hdr = *h;
	b->payload = payload;
	v = zcs_reorder_push_jump(&rx->ro, h->seq, bi);
	if (v != ZCS_REORDER_ACCEPTED)
		return false;
	taken(rx, h, bi);
	b->held = true;
	drain(rx, bi);
	return b->held;
}

/* A sample datagram of the stream followed, its window placed, into the window: in order with
 * nothing held (the usual case) straight to the gap filler, the header read where the parser put
 * it (copying it whole stalls on the parser's narrower stores); else held, or released with what
 * it completes.  What claims a jump goes to jump().  Returns whether buffer bi is kept. */
static bool place(struct zcs_rx *rx, uint32_t bi, const struct zcs_sample_hdr *h,
		  const uint8_t *payload)
{
	struct zcs_rx_buf *b = &rx->bufs[bi];
	enum zcs_reorder_verdict v;

	if (zcs_follow_claims_jump(&rx->fs, h, rx->now_ns, rx->look_ns))
		return jump(rx, bi, h, payload);
	if (zcs_reorder_take(&rx->ro, h->seq)) {
		taken(rx, h, bi);
		deliver(rx, h, payload);
		return false;
	}
	b->hdr = *h;
	b->payload = payload;
	v = zcs_reorder_push(&rx->ro, h->seq, bi);
	if (v == ZCS_REORDER_JUMP)
		return jump(rx, bi, h, payload);
	/* a number delivered already: when the outputs have not reached its samples, what was
	 * delivered for it did not carry them, and the gap filler counts them lost */
	if (v == ZCS_REORDER_DUPLICATE && zcs_seq_before(h->seq, rx->ro.next))
		zcs_gapfill_contested(&rx->gf, h->first_sample, h->samples);
	if (v != ZCS_REORDER_ACCEPTED)
		return false;
	taken(rx, h, bi);
	b->held = true;
	drain(rx, bi);
	return b->held;
}

/* A datagram that failed verification: counted, and said once per kind when it is otherwise a
 * well-formed zcs datagram (parsed only for the message; nothing of it is acted on). */
static void refuse(struct zcs_rx *rx, const uint8_t *buf, size_t len, int verdict)
{
	struct zcs_dgram dg;
	bool *const said = verdict == ZCS_AUTH_UNKEYED ? &rx->said_unkeyed : &rx->said_bad_key;
	uint32_t id;

	invalid(rx, ZCS_PERR_AUTH);
	if (*said || zcs_proto_parse(buf, len, &dg) < 0)
		return;
	*said = true;
	id = dg.type == ZCS_DGRAM_META ? dg.meta.stream_id : dg.hdr.stream_id;
	if (verdict == ZCS_AUTH_UNKEYED)
		zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 " is not keyed (its sender has no "
			"--key): its datagrams are refused and counted as invalid (auth)", id);
	else
		zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 " is keyed under another key (or "
			"forged): its datagrams do not verify with --key and are counted as invalid "
			"(auth)", id);
}

static bool samples(struct zcs_rx *rx, uint32_t bi, size_t len, const struct zcs_dgram *dg,
		    const struct sockaddr *from);

/* Unkeyed, the stream's start awaiting confirmation (rx_follow.h, "The stream's start"): when
 * the following unit confirms a run (after a sample datagram, a silence, or at the end: silent,
 * ending), the window is placed at it and the run's datagrams kept go through it in the order
 * they came, each in a buffer of its own; the rest are dropped.  True when it did, with the
 * run's numbers in *lo..*hi. */
static bool start_settle(struct zcs_rx *rx, const struct sockaddr *from, bool silent, bool ending,
			 uint64_t *lo, uint64_t *hi)
{
	struct zcs_sample_hdr h = { 0 };
	struct zcs_start_run run;
	struct zcs_dgram dg;
	uint32_t hb;
	size_t len;

	if (rx->opt.key || !rx->fs.need_start ||
	    !zcs_follow_start_pick(&rx->fs, window_for(rx), rx->now_ns, silent, ending, &run))
		return false;
	zcs_rx_start_extend(rx, &run);
	*lo = run.lo;
	*hi = run.hi;
	h.seq = *lo;
	place_window(rx, &h, ZCS_FOLLOW_NONE);
	while (zcs_rx_start_next(rx, *lo, *hi, &hb, &len, &dg))
		if (!samples(rx, hb, len, &dg, from))
			rx->free_list[rx->nfree++] = hb;
	return true;
}

/* Unkeyed, sample datagram h (len bytes at data) of a stream whose start is not confirmed yet:
 * noted, then either the start is confirmed with it (true: it goes on into the window, after
 * what was kept before it) or it is kept, or dropped when the start confirmed is not its run
 * (false). */
static bool start_sample(struct zcs_rx *rx, const uint8_t *data, size_t len,
			 const struct zcs_sample_hdr *h, const struct sockaddr *from)
{
	uint64_t lo, hi;

	if (rx->hold.count && rx->hold.gen != rx->fs.start_gen)
		zcs_rx_start_discard(rx);
	/* a clean start: the metadata names the first datagram, nothing kept */
	if (!rx->hold.count && zcs_follow_start_named(&rx->fs, h, window_for(rx)))
		return true;
	zcs_follow_start_keep(&rx->fs, h, rx->now_ns);
	if (!start_settle(rx, from, false, false, &lo, &hi)) {
		zcs_rx_start_keep(rx, data, len, h);
		return false;
	}
	if (h->seq - lo <= hi - lo)
		return true;
	rx->fs.st.unconfirmed++;
	return false;
}

/* A sample datagram dg (len bytes in buffer bi) of the stream followed: through the window to
 * the gap filler.  Returns whether buffer bi is kept. */
static bool samples(struct zcs_rx *rx, uint32_t bi, size_t len, const struct zcs_dgram *dg,
		    const struct sockaddr *from)
{
	struct zcs_rx_buf *b = &rx->bufs[bi];
	const uint8_t *payload;
	bool kept;

	rx->st.sample_dgrams++;
	/* unkeyed, where the stream starts is confirmed before anything of it goes out: kept
	 * meanwhile, but a clean start (the metadata names the first datagram) goes on at once */
	if (rx->fs.need_start && !rx->opt.key && !start_sample(rx, b->data, len, &dg->hdr, from))
		return false;
	/* nothing goes out before the rate and format are known */
	if (zcs_follow_pre_meta(&rx->fs, &dg->hdr))
		return false;
	zcs_follow_sample_format(&rx->fs, dg->hdr.format);
	/* larger than the buffers it may be kept in, which cannot grow now (or past --max-datagram):
	 * more than its metadata announced */
	if (!zcs_rx_pool_fit(rx, ZCS_PROTO_SAMPLE_HDR_SIZE + zcs_proto_sample_bytes(&dg->hdr))) {
		invalid(rx, ZCS_RX_OVERSIZE);
		return false;
	}
	/* as received: decompression below overwrites it */
	zcs_rx_parity_data(rx, b->data, len, dg->hdr.seq);
	payload = dg->payload;
	if (dg->hdr.flags & ZCS_FLAG_ZSTD) {
		b->hdr = dg->hdr;
		b->payload = dg->payload;
		if (!decompress(rx, b)) {
			invalid(rx, ZCS_PERR_DECOMPRESS);
			return false;
		}
		payload = b->payload;
	}
	if (rx->fs.need_start)
		place_window(rx, &dg->hdr, bi);
	kept = place(rx, bi, &dg->hdr, payload);
	/* a datagram that came after its block's parity may complete what a rebuild needs */
	zcs_rx_parity_restore(rx, dg->hdr.seq, from);
	return kept;
}

/* After the following unit judged a datagram: the run awaiting the board just followed gets what
 * the hold kept of it, delivered as if it came now, oldest first, each in a buffer of its own
 * (the one being handled is left alone), before the datagram that found the board's answer; a
 * run no longer awaiting (refused, replaced) loses it. */
static void hold_settle(struct zcs_rx *rx, const struct sockaddr *from)
{
	struct zcs_dgram dg;
	uint64_t gen;
	uint32_t hb;
	size_t len;

	if (zcs_follow_took_pending(&rx->fs, &gen)) {
		while (zcs_rx_pending_next(rx, gen, &hb, &len, &dg))
			if (!samples(rx, hb, len, &dg, from))
				rx->free_list[rx->nfree++] = hb;
	} else if (rx->hold.count && !zcs_follow_awaits(&rx->fs, rx->hold.gen)) {
		zcs_rx_pending_discard(rx);
	}
}

bool zcs_rx_datagram(struct zcs_rx *rx, uint32_t bi, size_t len, const struct sockaddr *from)
{
	struct zcs_rx_buf *b = &rx->bufs[bi];
	struct zcs_dgram dg;
	struct zcs_meta held;
	int ret;

	/* keyed: verified before anything else, so a datagram that fails touches nothing */
	if (rx->opt.key) {
		ret = zcs_auth_verify(rx->opt.key, b->data, len);
		if (ret != ZCS_AUTH_OK) {
			refuse(rx, b->data, len, ret);
			return false;
		}
	}
	ret = zcs_proto_parse(b->data, len, &dg);
	if (ret < 0) {
		invalid(rx, -ret < ZCS_PERR_COUNT ? -ret : ZCS_PERR_NONE);
		return false;
	}
	if (!source_ok(rx, from)) {
		rx->st.filtered++;
		return false;
	}
	if (dg.type == ZCS_DGRAM_PARITY) {
		zcs_rx_parity(rx, &dg, from);
		return false;
	}
	if (dg.keyed && !rx->opt.key && !rx->said_unverified) {
		rx->said_unverified = true;
		zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 " is keyed (authenticated), but this "
			"receiver has no --key: it cannot verify it and takes its datagrams "
			"unverified", dg.type == ZCS_DGRAM_META ? dg.meta.stream_id : dg.hdr.stream_id);
	}
	switch (zcs_follow_select(&rx->fs, &dg, from, rx->now_ns)) {
	case ZCS_FOLLOW_PEND:
		zcs_rx_pending_keep(rx, b->data, len, &dg);
		return false;
	case ZCS_FOLLOW_FOREIGN:
	case ZCS_FOLLOW_REPLAYED:
	case ZCS_FOLLOW_HELD:
		if (rx->opt.key && rx->hold.count)
			hold_settle(rx, from);
		return false;
	case ZCS_FOLLOW_SWITCH:
		end_followed(rx, bi);
		zcs_follow_switch(&rx->fs, &dg, from, rx->now_ns);
		break;
	case ZCS_FOLLOW_TAKE:
		break;
	}
	/* a run the board just confirmed live: its metadata, held while it awaited the answer,
	 * then its datagrams kept meanwhile, before this one */
	if (zcs_follow_held_meta(&rx->fs, &held))
		apply_meta(rx, &held);
	if (dg.type == ZCS_DGRAM_META)
		apply_meta(rx, &dg.meta);
	if (rx->opt.key && (rx->fs.took_pend || rx->hold.count))
		hold_settle(rx, from);
	/* (what was kept before the metadata is judged at the next sample datagram, so that a
	 * stream shows itself, metadata then a sample datagram, before it is held to) */
	if (dg.type == ZCS_DGRAM_META)
		return false;
	return samples(rx, bi, len, &dg, from);
}

void zcs_rx_update_age(struct zcs_rx *rx)
{
	const struct zcs_meta *m = &rx->fs.meta;
	double t;

	/* the newest sample's stamp, from the metadata's (ref_sample, ref_time_ns) and the rate */
	if (!rx->fs.have_meta || m->ref_time_ns == 0 || m->sample_rate == 0 || !rx->gf.have_pos ||
	    rx->out_wall_ns == 0)
		return;
	t = (double)m->ref_time_ns +
	    (double)zcs_seq_diff(rx->gf.pos, m->ref_sample) * 1e9 / (double)m->sample_rate;
	rx->st.age_ns = (int64_t)((double)rx->out_wall_ns - t);
	rx->st.have_age = true;
}

bool zcs_rx_want_from(const struct zcs_rx *rx, uint64_t now)
{
	return rx->opt.source || zcs_follow_wants_sender(&rx->fs, now);
}

void zcs_rx_idle(struct zcs_rx *rx)
{
	static const struct sockaddr unknown = { .sa_family = AF_UNSPEC };
	uint64_t lo, hi;

	if (!rx->fs.locked)
		return;
	/* a start kept awaiting confirmation, and the stream fell silent */
	if (rx->hold.count && rx->fs.have_meta && zcs_rx_silence(rx) >= rx->fs.quiet_ns)
		start_settle(rx, &unknown, true, false, &lo, &hi);
	/* a jump nobody continued, or an end of stream nothing contradicted */
	if ((rx->fs.cand || rx->fs.eos_pending) && zcs_rx_silence(rx) >= rx->fs.quiet_ns) {
		free_buf(rx, zcs_follow_drop_cand(&rx->fs), ZCS_FOLLOW_NONE);
		if (rx->fs.eos_pending) {
			flush_window(rx, ZCS_FOLLOW_NONE);
			end_stream(rx);
		}
	}
	if (zcs_reorder_depth(&rx->ro) == 0)
		return;
	if (zcs_rx_silence(rx) < rx->fs.hold_ns)
		return;
	rx->st.idle_flushes++;
	flush_window(rx, ZCS_FOLLOW_NONE);
}

void zcs_rx_finish(struct zcs_rx *rx)
{
	static const struct sockaddr unknown = { .sa_family = AF_UNSPEC };
	uint64_t lo, hi;

	if (rx->opt.key) {
		/* a run still awaiting the board: what was kept of it is dropped, and counted */
		zcs_rx_pending_discard(rx);
	} else {
		/* a start still awaiting confirmation: the run kept most, if the metadata came;
		 * else what was kept is dropped, and counted */
		start_settle(rx, &unknown, false, true, &lo, &hi);
		zcs_rx_start_discard(rx);
	}
	free_buf(rx, zcs_follow_drop_cand(&rx->fs), ZCS_FOLLOW_NONE);
	flush_window(rx, ZCS_FOLLOW_NONE);
	zcs_fec_rx_close_all(&rx->fec, rx->fs.need_start ? NULL : &rx->ro.next);
	/* the run ends: nothing can follow an end of stream delivered any more */
	if (rx->fs.eos_pending)
		end_stream(rx);
	zcs_gapfill_flush(&rx->gf);
}
