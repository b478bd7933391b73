// SPDX-License-Identifier: MIT
/* What happens to each datagram once read (see rx.h): validation, the sender filter, which
 * stream is followed (and when a new stream id is a sender restart), metadata, decompression,
 * the reorder window, and the released datagrams into the gap filler. */
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "auth.h"
#include "clock.h"
#include "zcs_config.h"
#include "codec.h"
#include "rx.h"
#include "seq.h"

/* A stream silent this long has gone: a new stream id then is its sender restarting.  Metadata
 * comes at least every 500 ms, so 1.5 s of silence is three missed metadata datagrams. */
#define SILENCE_NS (1500ULL * 1000 * 1000)
/* Held datagrams are released when nothing has come for this long (at least; see hold_for). */
#define HOLD_MIN_NS (100ULL * 1000 * 1000)
/* The automatic window spans this much of the stream, so a hole delays samples at most this. */
#define AUTO_WINDOW_NS (5ULL * 1000 * 1000)
#define AUTO_WINDOW_MIN 64
/* Discontinuity news at most once a second: a failing source must not flood the log. */
#define DISCONT_LOG_NS ZCS_NS_PER_SEC
/* A jump (in sequence or sample index) or an end of stream is believed whatever it claims once
 * the stream's current position has been silent this long (at least; 8 datagrams of a slow
 * stream): a live stream sends far more often, so a forger cannot make the silence, while a
 * sender that really moved or stopped makes it at once. */
#define QUIET_MIN_NS (100ULL * 1000 * 1000)
/* Unkeyed, a change of settings is believed once announced for this long with no metadata of
 * the old settings in between: the protocol has the sender repeat its metadata at least every
 * 500 ms, so a spoofed change is contradicted within this time (docs/protocol.md).  Keyed, it
 * is believed at once (meta_confirmed). */
#define META_CONFIRM_NS (500ULL * 1000 * 1000)

static void free_buf(struct zcs_rx *rx, uint32_t b, uint32_t cur)
{
	rx->bufs[b].held = false;
	/* the buffer being handled stays in its batch slot; others return to the pool */
	if (b != cur)
		rx->free_list[rx->nfree++] = b;
}

/* One datagram released in order: into the gap filler, and its flags acted on. */
static void deliver(struct zcs_rx *rx, const struct zcs_sample_hdr *hdr, const uint8_t *payload)
{
	const uint8_t flags = hdr->flags;

	if (!rx->done) {
		if (flags & ZCS_FLAG_DISCONT) {
			rx->st.discont++;
			if (rx->now_ns - rx->last_discont_log_ns >= DISCONT_LOG_NS) {
				rx->last_discont_log_ns = rx->now_ns;
				zcs_log(&rx->opt.log, "stream 0x%08" PRIx32
					": the sender lost samples at its source before sample %"
					PRIu64 " (%" PRIu64 " such so far)", rx->stream_id,
					hdr->first_sample, rx->st.discont);
			}
		}
		zcs_gapfill_data(&rx->gf, hdr, payload, rx->now_ns);
		if (rx->gf.fmt_ended && !rx->done)
			zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 ": the wire format changed from "
				"%s to %s at sample %" PRIu64 "; -F native writes the wire's own bytes, "
				"whose layout cannot change mid-stream: the outputs end before that "
				"sample (-F cs16, cs8, cu8 or cf32 keep flowing across a change)",
				rx->stream_id, zcs_wire_name(rx->gf.native_fmt),
				zcs_wire_name(rx->gf.fmt_to), rx->gf.fmt_at);
		if (rx->gf.done)
			rx->done = true;
	}
	/* believed only once the stream then falls silent (zcs_rx_idle): a forged end of stream
	 * must not end a run while the live stream flows */
	if (flags & ZCS_FLAG_EOS && !rx->ended && !rx->eos_pending) {
		rx->eos_pending = true;
		rx->eos_seq = hdr->seq;
		zcs_gapfill_flush(&rx->gf);
	}
}

/* The end of stream delivered is believed: the stream fell silent after it, or the run ends. */
static void end_stream(struct zcs_rx *rx)
{
	rx->eos_pending = false;
	rx->ended = true;
	rx->st.eos++;
	zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 ": end of stream", rx->stream_id);
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
				rx->stream_id, ev.count, ev.seq);
			zcs_gapfill_restart(&rx->gf, rx->meta.samples_per_dgram);
		} else {
			deliver(rx, &rx->bufs[ev.handle].hdr, rx->bufs[ev.handle].payload);
			free_buf(rx, ev.handle, cur);
		}
	}
}

/* Releases everything the window holds (the stream ended, went silent or is replaced). */
static void flush_window(struct zcs_rx *rx, uint32_t cur)
{
	if (!zcs_reorder_started(&rx->ro) || zcs_reorder_depth(&rx->ro) == 0)
		return;
	zcs_reorder_flush(&rx->ro);
	drain(rx, cur);
	zcs_gapfill_flush(&rx->gf);
}

/* The jump awaiting confirmation is not believed: its datagram is dropped. */
static void drop_cand(struct zcs_rx *rx, uint32_t cur)
{
	if (!rx->cand)
		return;
	rx->cand = false;
	rx->st.unconfirmed++;
	free_buf(rx, rx->cand_buf, cur);
}

/* Forgets what the stream followed has shown (a new stream, or a resync). */
static void forget_position(struct zcs_rx *rx)
{
	drop_cand(rx, UINT32_MAX);
	rx->have_anchor = false;
	rx->eos_pending = false;
	rx->meta_pending = false;
}

static void follow(struct zcs_rx *rx, uint32_t id, const struct sockaddr *from)
{
	char a[96] = "?";
	struct zcs_addr fa;

	memset(&fa, 0, sizeof(fa));
	if (from->sa_family == AF_INET || from->sa_family == AF_INET6) {
		fa.len = from->sa_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
		memcpy(&fa.ss, from, fa.len);
		zcs_net_addr_str(&fa, a, sizeof(a));
	}
	rx->sender = fa;
	rx->locked = true;
	rx->stream_id = id;
	rx->have_meta = false;
	rx->need_start = true;
	rx->have_pre_meta = false;
	rx->ended = false;
	forget_position(rx);
	rx->st.streams++;
	zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 " from %s: waiting for its metadata", id, a);
}

/* The stream followed ends (its window flushed, its outputs told) and stream id begins: a
 * sender restarted, went silent, or (keyed) a later run replaced it.  why and what say which. */
static void restart_to(struct zcs_rx *rx, uint32_t id, const struct sockaddr *from,
		       const char *why, const char *what)
{
	const uint32_t old = rx->stream_id;

	flush_window(rx, UINT32_MAX);
	if (!rx->ended)
		zcs_gapfill_eos(&rx->gf);
	rx->st.restarts++;
	zcs_log(&rx->opt.log, "sender restart: stream 0x%08" PRIx32 " %s, stream 0x%08" PRIx32
		"%s begins", old, why, id, what);
	follow(rx, id, from);
}

/* Whether a valid datagram of stream id is to be handled (switching streams when due). */
static bool select_stream(struct zcs_rx *rx, uint32_t id, bool is_meta,
			  const struct sockaddr *from)
{
	if (rx->opt.have_stream && id != rx->opt.stream_id)
		return false;
	if (!rx->locked) {
		follow(rx, id, from);
		return true;
	}
	if (id == rx->stream_id)
		return true;
	/* a stream is held to only once it has shown itself: metadata, then a sample datagram
	 * that placed the window.  Before that, the metadata of another stream takes the receiver
	 * over: a lone datagram sent first (a forger) does not keep it from the stream that follows,
	 * and of two real senders starting together the first to show itself wins */
	if (rx->need_start && !rx->ended && is_meta) {
		rx->st.streams--;
		follow(rx, id, from);
		return true;
	}
	if (rx->eos_pending && rx->now_ns - rx->last_rx_ns >= rx->quiet_ns) {
		/* what the window still holds goes out before the end, as in zcs_rx_idle */
		flush_window(rx, UINT32_MAX);
		end_stream(rx);
	}
	if (rx->ended || rx->now_ns - rx->last_rx_ns > SILENCE_NS) {
		restart_to(rx, id, from, rx->ended ? "ended" : "went silent", "");
		return true;
	}
	return false;
}

/* Stream choice of a keyed receiver: the datagram is authentic, but may be a replay.  A run is
 * (stream id, salt); a new run is followed only on its metadata, which carries the sender's start
 * time, and only when it began after every run followed so far: a replay of an earlier run can
 * neither capture the receiver nor draw it away from the live stream (docs/security.md).  A
 * newer run replaces the one followed at once: it is that sender restarted.  Returns 1 to
 * handle the datagram, 0 for another stream's (foreign), -1 for a replay (counted here). */
static int select_keyed(struct zcs_rx *rx, const struct zcs_dgram *dg, uint32_t id,
			const struct sockaddr *from)
{
	const bool same = rx->locked && id == rx->stream_id && rx->have_run &&
			  memcmp(dg->salt, rx->salt, sizeof(rx->salt)) == 0;

	if (rx->opt.have_stream && id != rx->opt.stream_id)
		return 0;
	if (same) {
		if (dg->type != ZCS_DGRAM_META)
			return true;
		/* an earlier metadata datagram of this very run would set old settings again */
		if (!zcs_seq_after(dg->meta_seq, rx->meta_seq)) {
			rx->st.replayed++;
			return -1;
		}
		rx->meta_seq = dg->meta_seq;
		return 1;
	}
	if (dg->type != ZCS_DGRAM_META)
		return 0;
	if (rx->have_run && dg->run_start_ns <= rx->run_start_ns) {
		rx->st.replayed++;
		if (!rx->said_replay) {
			rx->said_replay = true;
			zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 " is authentic but began %.3f s "
				"before the stream followed: refused as a replay of an earlier run (or "
				"its sender's clock went back); counted as replayed", id,
				(double)(rx->run_start_ns - dg->run_start_ns) / 1e9);
		}
		return -1;
	}
	if (rx->locked)
		restart_to(rx, id, from, rx->ended ? "ended" : "replaced", " (a later run)");
	else
		follow(rx, id, from);
	memcpy(rx->salt, dg->salt, sizeof(rx->salt));
	rx->have_run = true;
	rx->run_start_ns = dg->run_start_ns;
	rx->meta_seq = dg->meta_seq;
	return 1;
}

static bool same_settings(const struct zcs_meta *a, const struct zcs_meta *b)
{
	return a->sample_rate == b->sample_rate && a->center_freq == b->center_freq &&
	       a->bandwidth == b->bandwidth && a->gain_mdb == b->gain_mdb &&
	       a->gain_mode == b->gain_mode && a->channel == b->channel && a->format == b->format &&
	       a->samples_per_dgram == b->samples_per_dgram &&
	       /* CHANGE marks the announcement of a retune, not a setting of its own */
	       (a->flags & ~ZCS_META_FLAG_CHANGE) == (b->flags & ~ZCS_META_FLAG_CHANGE);
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

/* The window in datagrams: --window, or AUTO_WINDOW_NS of the stream within [64, 1024]; either
 * as the reorder window will really be (a power of two), so the start-up test and the zero-fill
 * bound reason with the window in use, not the figure asked for. */
static size_t window_for(const struct zcs_rx *rx)
{
	const uint64_t spd = rx->meta.samples_per_dgram ? rx->meta.samples_per_dgram : 1;
	uint64_t w = rx->opt.window;

	if (!w) {
		w = rx->meta.sample_rate * AUTO_WINDOW_NS / ZCS_NS_PER_SEC / spd;
		if (w < AUTO_WINDOW_MIN)
			w = AUTO_WINDOW_MIN;
		if (w > ZCS_RX_MAX_WINDOW)
			w = ZCS_RX_MAX_WINDOW;
	}
	return zcs_reorder_window_for(&rx->ro, (size_t)w);
}

/* Zero fill's bound (gapfill.h): the rate, and a window's samples of slack. */
static void bound_fill(struct zcs_rx *rx)
{
	zcs_gapfill_bound(&rx->gf, rx->meta.sample_rate,
			  (uint64_t)window_for(rx) * rx->meta.samples_per_dgram);
}

/* Whether metadata m may change the settings now.  The first metadata is taken (the stream was
 * chosen by it).  With --key, m has verified (zcs_rx_datagram) and is newer than every metadata
 * of its run (select_keyed: run and meta_seq), so only the sender can have said it: a change is
 * taken at once.  Unkeyed, anyone can say it: a change only once announced for META_CONFIRM_NS
 * with nothing contradicting it (zcs_rx_datagram: a sample datagram of the old format; here:
 * metadata of other settings). */
static bool meta_confirmed(struct zcs_rx *rx, const struct zcs_meta *m)
{
	if (!rx->have_meta || rx->opt.key)
		return true;
	if (same_settings(&rx->meta, m)) {
		/* the stream repeats its settings: a change announced meanwhile was not its own */
		if (rx->meta_pending) {
			rx->meta_pending = false;
			rx->st.unconfirmed++;
		}
		return true;
	}
	if (!rx->meta_pending || !same_settings(&rx->meta_new, m)) {
		if (rx->meta_pending)
			rx->st.unconfirmed++;
		rx->meta_pending = true;
		rx->meta_new = *m;
		rx->meta_new_ns = rx->now_ns;
		return false;
	}
	if (rx->now_ns - rx->meta_new_ns < META_CONFIRM_NS)
		return false;
	rx->meta_pending = false;
	return true;
}

static void apply_meta(struct zcs_rx *rx, const struct zcs_meta *m)
{
	const bool first = !rx->have_meta;
	bool changed;
	char from[48] = "";
	struct zcs_meta eff;
	uint64_t dgram_ns;

	rx->st.meta++;
	/* a retune announced with its index (CHANGE) and believed only once confirmed (unkeyed)
	 * still holds from that index: the announcement, not the datagram that confirmed it,
	 * says where the outputs (a SigMF capture) and the news put it */
	eff = rx->meta_pending ? rx->meta_new : *m;
	if (!meta_confirmed(rx, m))
		return;
	if (!((eff.flags & ZCS_META_FLAG_CHANGE) && same_settings(&eff, m)))
		eff = *m;
	changed = first || !same_settings(&rx->meta, m);
	rx->meta = *m;
	rx->have_meta = true;
	if (!changed)
		return;
	/* a stream may be several minutes of silence on a slow link: hold at least 8 datagrams */
	dgram_ns = m->sample_rate ? (uint64_t)m->samples_per_dgram * ZCS_NS_PER_SEC / m->sample_rate : 0;
	rx->hold_ns = 8 * dgram_ns > HOLD_MIN_NS ? 8 * dgram_ns : HOLD_MIN_NS;
	if (rx->opt.hold_ms)
		rx->hold_ns = rx->opt.hold_ms * 1000000ULL;
	rx->quiet_ns = 8 * dgram_ns > QUIET_MIN_NS ? 8 * dgram_ns : QUIET_MIN_NS;
	if (!rx->need_start) {
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
	zcs_log(&rx->opt.log, "stream 0x%08" PRIx32
		"%s%s: rate %.6g MS/s, frequency %.6f MHz, gain %.3f dB (%s), "
		"bandwidth %.6g MHz, format %s, %u samples/datagram, from %s (%s %s)",
		rx->stream_id, first ? "" : " changed", from, (double)m->sample_rate / 1e6,
		(double)m->center_freq / 1e6, m->gain_mdb / 1000.0, gain_mode_name(m->gain_mode),
		(double)m->bandwidth / 1e6, zcs_wire_name(m->format),
		(unsigned int)m->samples_per_dgram, m->sender, m->source, m->version);
	/* docs/protocol.md: a receiver that cannot decode zstd says so with the stream's settings
	 * (once, unless they change), rather than leaving the user to wonder why every compressed
	 * datagram counts as invalid */
	if (!ZCS_HAVE_ZSTD && (m->flags & ZCS_META_FLAG_ZSTD))
		zcs_log(&rx->opt.log, "stream 0x%08" PRIx32
			": the sender compresses with zstd, which this build of "
			"zcs-recv cannot decode: those datagrams count as invalid (decompress)",
			rx->stream_id);
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
	if (want > rx->opt.max_dgram - ZCS_PROTO_SAMPLE_HDR_SIZE)
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

/* Whether sample datagram h continues the stream where it stands: its sample index follows from
 * the newest one taken (a lost datagram held at most 65535 pairs; a discontinuity at most
 * ZCS_GAPFILL_MAX_SOURCE_GAP) and no more zeros lie before it than real time could have lost
 * (zcs_gapfill_within, since the newest datagram taken).  A datagram behind the newest must lie
 * before its samples.  The usual case, the very next datagram, costs two compares. */
static bool continues(const struct zcs_rx *rx, const struct zcs_sample_hdr *h, uint64_t seq,
		      uint64_t end, uint64_t since_ns)
{
	const int64_t k = zcs_seq_diff(h->seq, seq);
	int64_t gap;
	uint64_t most;

	if (k == 1 && h->first_sample == end)
		return true;
	if (k <= 0)
		return false;
	gap = zcs_seq_diff(h->first_sample, end);
	if (gap < 0)
		return false;
	most = (uint64_t)k > (1ULL << 32) ? UINT64_MAX : (uint64_t)(k - 1) * UINT16_MAX;
	if (h->flags & ZCS_FLAG_DISCONT)
		most = most > UINT64_MAX - ZCS_GAPFILL_MAX_SOURCE_GAP ? UINT64_MAX
							      : most + ZCS_GAPFILL_MAX_SOURCE_GAP;
	if ((uint64_t)gap > most)
		return false;
	return zcs_gapfill_within(&rx->gf, end, h->first_sample, rx->now_ns - since_ns, rx->now_ns);
}

static bool believable(const struct zcs_rx *rx, const struct zcs_sample_hdr *h)
{
	int64_t k;

	if (!rx->have_anchor)
		return true;
	if (continues(rx, h, rx->anchor_seq, rx->anchor_end, rx->live_ns))
		return true;
	k = zcs_seq_diff(h->seq, rx->anchor_seq);
	/* the newest again (a duplicate), or one from before it */
	if (k == 0)
		return true;
	return k < 0 && !zcs_seq_after(h->first_sample + h->samples, rx->anchor_first);
}

/* The window took sample datagram h at the current position: the stream is live there. */
static void taken(struct zcs_rx *rx, const struct zcs_sample_hdr *h, uint32_t cur)
{
	rx->live_ns = rx->now_ns;
	if (!rx->have_anchor || zcs_seq_after(h->seq, rx->anchor_seq)) {
		rx->have_anchor = true;
		rx->anchor_seq = h->seq;
		rx->anchor_first = h->first_sample;
		rx->anchor_end = h->first_sample + h->samples;
		/* the live stream went on: the jump claimed meanwhile was not its own (a straggler
		 * reordered from before it proves nothing: it is not dropped for one) */
		drop_cand(rx, cur);
	}
	if (rx->eos_pending && zcs_seq_after(h->seq, rx->eos_seq)) {
		rx->eos_pending = false;
		rx->st.unconfirmed++;
		zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 ": an end of stream at datagram %" PRIu64 " was "
		    "followed by more of the stream: not believed", rx->stream_id, rx->eos_seq);
	}
}

/* Whether the jump awaiting confirmation may be believed now that a datagram continued it: the
 * current position fell silent (quiet_ns, proven by an empty socket), or the jump moves forward as a loss would, with no
 * more zeros than real time allows (continues()). */
static bool jump_plausible(const struct zcs_rx *rx)
{
	const struct zcs_sample_hdr *c = &rx->bufs[rx->cand_buf].hdr;
	const int64_t ahead = zcs_seq_diff(c->seq, rx->ro.next);

	/* silence proven: nothing of the old position came between its newest datagram and the
	 * last look that found the socket empty (a receiver descheduled meanwhile proves none) */
	if (rx->look_ns > rx->live_ns && rx->look_ns - rx->live_ns >= rx->quiet_ns)
		return true;
	/* backwards, or a resync: only the silence above makes those plausible */
	if (!rx->have_anchor || ahead < 0 ||
	    ((uint64_t)ahead >= rx->ro.window &&
	     (uint64_t)ahead - rx->ro.window >= rx->ro.resync_dist))
		return false;
	return continues(rx, c, rx->anchor_seq, rx->anchor_end, rx->live_ns);
}

/* Sample datagram h (in buffer bi) claims a jump: a number far beyond the window or a resync
 * (reorder.h, ZCS_REORDER_JUMP), or a sample index that does not follow (believable).  It is
 * believed only when a later datagram continues from it while the jump is plausible; until then
 * the first datagram of the jump is held, and the others are dropped (counted unconfirmed, and
 * lost like any datagram never delivered once the jump is believed).  The live stream going on
 * drops it (taken).  Returns whether buffer bi is kept. */
static bool jump(struct zcs_rx *rx, uint32_t bi, const struct zcs_sample_hdr *h,
		 const uint8_t *payload)
{
	struct zcs_rx_buf *b = &rx->bufs[bi];
	const struct zcs_rx_buf *c;
	enum zcs_reorder_verdict v;

	if (rx->cand && continues(rx, h, rx->cand_last, rx->cand_end, 0) && jump_plausible(rx)) {
		c = &rx->bufs[rx->cand_buf];
		zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 ": jumped from datagram %" PRIu64 " (sample %" PRIu64
		    ") to %" PRIu64 " (sample %" PRIu64 "), confirmed by the stream", rx->stream_id,
		    rx->ro.next, rx->gf.pos, c->hdr.seq, c->hdr.first_sample);
		rx->cand = false;
		v = zcs_reorder_push_jump(&rx->ro, c->hdr.seq, rx->cand_buf);
		if (v == ZCS_REORDER_ACCEPTED) {
			rx->bufs[rx->cand_buf].held = true;
			rx->have_anchor = false;
			taken(rx, &c->hdr, bi);
			drain(rx, bi);
		} else {
			free_buf(rx, rx->cand_buf, bi);
		}
		/* and this datagram, now at the current position (it continues the jump; the zeros
		 * for what was dropped meanwhile stay within gapfill's bound) */
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
	if (rx->cand && continues(rx, h, rx->cand_last, rx->cand_end, 0)) {
		/* continued, not yet plausible: the jump stands, this datagram is dropped */
		rx->st.unconfirmed++;
		rx->cand_last = h->seq;
		rx->cand_end = h->first_sample + h->samples;
		return false;
	}
	/* a jump elsewhere replaces the one held (a forger cannot pin one to block a real one) */
	drop_cand(rx, bi);
	rx->cand = true;
	rx->cand_buf = bi;
	rx->cand_last = h->seq;
	rx->cand_end = h->first_sample + h->samples;
	b->hdr = *h;
	b->payload = payload;
	b->held = true;
	return true;
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

bool zcs_rx_datagram(struct zcs_rx *rx, uint32_t bi, size_t len, const struct sockaddr *from)
{
	struct zcs_rx_buf *b = &rx->bufs[bi];
	struct zcs_dgram dg;
	const uint8_t *payload;
	enum zcs_reorder_verdict v;
	uint32_t id;
	int ret, sel;

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
	id = dg.type == ZCS_DGRAM_META ? dg.meta.stream_id : dg.hdr.stream_id;
	if (!source_ok(rx, from)) {
		rx->st.filtered++;
		return false;
	}
	if (dg.keyed && !rx->opt.key && !rx->said_unverified) {
		rx->said_unverified = true;
		zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 " is keyed (authenticated), but this "
			"receiver has no --key: it cannot verify it and takes its datagrams "
			"unverified", id);
	}
	sel = rx->opt.key ? select_keyed(rx, &dg, id, from) : select_stream(rx, id, dg.type == ZCS_DGRAM_META, from);
	if (sel <= 0) {
		if (sel == 0)
			rx->st.foreign++;
		return false;
	}
	rx->last_rx_ns = rx->now_ns;
	if (dg.type == ZCS_DGRAM_META) {
		apply_meta(rx, &dg.meta);
		return false;
	}
	rx->st.sample_dgrams++;
	/* nothing goes out before the rate and format are known */
	if (!rx->have_meta) {
		rx->st.pre_meta++;
		rx->st.pre_meta_samples += dg.hdr.samples;
		/* remembered so the window starts at the right place once the metadata comes */
		if (!rx->have_pre_meta || zcs_seq_after(dg.hdr.seq, rx->pre_meta_high))
			rx->pre_meta_high = dg.hdr.seq;
		if (!rx->have_pre_meta || zcs_seq_before(dg.hdr.seq, rx->pre_meta_low))
			rx->pre_meta_low = dg.hdr.seq;
		rx->have_pre_meta = true;
		return false;
	}
	/* samples still in the old format: the change of format announced is not the stream's */
	if (rx->meta_pending && dg.hdr.format == rx->meta.format &&
	    rx->meta_new.format != rx->meta.format) {
		rx->meta_pending = false;
		rx->st.unconfirmed++;
	}
	payload = dg.payload;
	if (dg.hdr.flags & ZCS_FLAG_ZSTD) {
		b->hdr = dg.hdr;
		b->payload = dg.payload;
		if (!decompress(rx, b)) {
			invalid(rx, ZCS_PERR_DECOMPRESS);
			return false;
		}
		payload = b->payload;
	}
	if (rx->need_start) {
		/* the metadata names the stream's next number: start there when this datagram is
		 * within a window of it, so datagrams reordered or lost at the start count */
		const size_t w = window_for(rx);
		const int64_t d = zcs_seq_diff(dg.hdr.seq, rx->meta.next_seq);
		uint64_t start = (d >= 0 && (uint64_t)d < w) ? rx->meta.next_seq : dg.hdr.seq;

		/* the stream's start (its datagram 0) came before its metadata: those datagrams were
		 * sent to us and could not be used, so they are lost like any other, at once (they
		 * will not come again), and zero-filled from sample 0.  Only datagram 0 itself tells:
		 * a receiver that joined a few datagrams late must not zero-fill what it never had */
		const bool start_lost = rx->have_pre_meta && rx->pre_meta_low == 0 &&
					!zcs_seq_after(rx->pre_meta_high + 1, dg.hdr.seq);

		if (start_lost) {
			start = 0;
		} else if (rx->have_pre_meta && zcs_seq_after(rx->pre_meta_high + 1, start) &&
			   !zcs_seq_after(rx->pre_meta_high + 1, dg.hdr.seq)) {
			/* joined mid-stream: what came before the metadata was seen, not lost */
			start = rx->pre_meta_high + 1;
		}
		if (start != 0) {
			/* a sender numbers its datagrams from 0: this stream began before we came */
			rx->st.late_joins++;
			zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 ": joined late, at datagram %" PRIu64
				" (%" PRIu64 " samples before its metadata discarded, not counted lost)",
				rx->stream_id, rx->have_pre_meta ? rx->pre_meta_low : start,
				rx->st.pre_meta_samples);
		}
		zcs_reorder_reset(&rx->ro, start, w);
		/* farther than a window beyond the window is a jump to confirm (jump()) */
		zcs_reorder_set_jump(&rx->ro, rx->ro.window);
		zcs_gapfill_restart(&rx->gf, rx->meta.samples_per_dgram);
		bound_fill(rx);
		if (start_lost) {
			zcs_reorder_skip(&rx->ro, rx->pre_meta_high + 1);
			drain(rx, bi);
		}
		rx->need_start = false;
		zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 ": starting at datagram %" PRIu64
			", reorder window %zu datagrams", rx->stream_id, start, rx->ro.window);
	}
	/* in order with nothing held (the usual case): straight to the gap filler, the header
	 * read where the parser put it (copying it whole stalls on the parser's narrower stores) */
	/* a jump waits for confirmation: what continues it goes there, even where it could also
	 * pass for a loss at the old position */
	if ((rx->cand && continues(rx, &dg.hdr, rx->cand_last, rx->cand_end, 0)) ||
	    !believable(rx, &dg.hdr))
		return jump(rx, bi, &dg.hdr, payload);
	if (zcs_reorder_take(&rx->ro, dg.hdr.seq)) {
		taken(rx, &dg.hdr, bi);
		deliver(rx, &dg.hdr, payload);
		return false;
	}
	b->hdr = dg.hdr;
	b->payload = payload;
	v = zcs_reorder_push(&rx->ro, dg.hdr.seq, bi);
	if (v == ZCS_REORDER_JUMP)
		return jump(rx, bi, &dg.hdr, payload);
	if (v != ZCS_REORDER_ACCEPTED)
		return false;
	taken(rx, &dg.hdr, bi);
	b->held = true;
	drain(rx, bi);
	return b->held;
}

void zcs_rx_update_age(struct zcs_rx *rx)
{
	const struct zcs_meta *m = &rx->meta;
	double t;

	/* the newest sample's stamp, from the metadata's (ref_sample, ref_time_ns) and the rate */
	if (!rx->have_meta || m->ref_time_ns == 0 || m->sample_rate == 0 || !rx->gf.have_pos ||
	    rx->out_wall_ns == 0)
		return;
	t = (double)m->ref_time_ns +
	    (double)zcs_seq_diff(rx->gf.pos, m->ref_sample) * 1e9 / (double)m->sample_rate;
	rx->st.age_ns = (int64_t)((double)rx->out_wall_ns - t);
	rx->st.have_age = true;
}

bool zcs_rx_want_from(const struct zcs_rx *rx, uint64_t now)
{
	/* a third: select_stream judges the silence at the batch's now_ns, after the read; asking
	 * from a third on leaves a second for the read to have been late by */
	return rx->opt.source || !rx->locked || rx->ended || now - rx->last_rx_ns >= SILENCE_NS / 3;
}

bool zcs_rx_sender(const struct zcs_rx *rx, struct zcs_addr *a)
{
	if (!rx->locked || rx->sender.len == 0)
		return false;
	*a = rx->sender;
	return true;
}

uint64_t zcs_rx_silence_ns(const struct zcs_rx *rx)
{
	return rx->dry_ns > rx->last_rx_ns ? rx->dry_ns - rx->last_rx_ns : 0;
}

void zcs_rx_idle(struct zcs_rx *rx)
{
	if (!rx->locked)
		return;
	/* a jump nobody continued, or an end of stream nothing contradicted */
	if ((rx->cand || rx->eos_pending) && zcs_rx_silence_ns(rx) >= rx->quiet_ns) {
		drop_cand(rx, UINT32_MAX);
		if (rx->eos_pending) {
			flush_window(rx, UINT32_MAX);
			end_stream(rx);
		}
	}
	if (zcs_reorder_depth(&rx->ro) == 0)
		return;
	if (zcs_rx_silence_ns(rx) < rx->hold_ns)
		return;
	rx->st.idle_flushes++;
	flush_window(rx, UINT32_MAX);
}

void zcs_rx_finish(struct zcs_rx *rx)
{
	drop_cand(rx, UINT32_MAX);
	flush_window(rx, UINT32_MAX);
	/* the run ends: nothing can follow an end of stream delivered any more */
	if (rx->eos_pending)
		end_stream(rx);
	zcs_gapfill_flush(&rx->gf);
}
