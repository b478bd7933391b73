// SPDX-License-Identifier: MIT
/* Statistics formatting for zcs-recv (see recv_stats.h and docs/receiver.md, which defines every
 * counter).  All output goes into the caller's buffer through one bounded appender. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "recv_stats.h"

struct sbuf {
	char *p;
	size_t len, used;
};

static void put(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->used < b->len ? b->p + b->used : NULL, b->used < b->len ? b->len - b->used : 0,
		      fmt, ap);
	va_end(ap);
	if (n > 0)
		b->used += (size_t)n;
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void put_str(struct sbuf *b, const char *s)
{
	put(b, "\"");
	for (; *s; s++) {
		const unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			put(b, "\\%c", c);
		else if (c < 0x20)
			put(b, "\\u%04x", c);
		else
			put(b, "%c", c);
	}
	put(b, "\"");
}

void zcs_recv_snapshot_take(struct zcs_recv_snapshot *s, const struct zcs_rx *rx,
			    struct zcs_outputs *o, uint64_t start_ns)
{
	memset(s, 0, sizeof(*s));
	s->t_ns = zcs_mono_ns();
	s->seconds = (double)(s->t_ns - start_ns) / 1e9;
	s->rx = rx->st;
	s->ro = rx->ro.st;
	s->gf = rx->gf.st;
	s->depth = zcs_reorder_depth(&rx->ro);
	s->window = rx->ro.window;
	s->locked = rx->locked;
	s->have_meta = rx->have_meta;
	s->stream_id = rx->stream_id;
	s->rate = rx->meta.sample_rate;
	s->center_freq = rx->meta.center_freq;
	s->gain_mdb = rx->meta.gain_mdb;
	s->nout = o ? zcs_outputs_count(o) : 0;
	if (s->nout > ZCS_RECV_MAX_OUTPUTS)
		s->nout = ZCS_RECV_MAX_OUTPUTS;
	for (size_t i = 0; i < s->nout; i++) {
		zcs_outputs_stats(o, i, &s->out[i]);
		s->overruns += s->out[i].overruns;
	}
}

/* Samples per second over the interval since prev (or since the start). */
static double msps(const struct zcs_recv_snapshot *cur, const struct zcs_recv_snapshot *prev)
{
	const double dt = prev ? (double)(cur->t_ns - prev->t_ns) / 1e9 : cur->seconds;
	const uint64_t n = cur->gf.samples - (prev ? prev->gf.samples : 0);

	return dt > 0 ? (double)n / dt / 1e6 : 0.0;
}

int zcs_recv_stats_line(char *buf, size_t len, const struct zcs_recv_snapshot *c,
			const struct zcs_recv_snapshot *prev)
{
	struct sbuf b = { buf, len, 0 };

	if (len)
		buf[0] = 0;
	put(&b, "%7.1f s %8.3f MS/s  samples %" PRIu64 "  lost %" PRIu64 "  late %" PRIu64
	    "  dup %" PRIu64 "  reord %" PRIu64 "  invalid %" PRIu64 "  gap %" PRIu64
	    "  sockdrop %" PRIu64 "  overruns %" PRIu64 "  depth %zu/%zu",
	    c->seconds, msps(c, prev), c->gf.samples, c->ro.lost, c->ro.late, c->ro.duplicate,
	    c->ro.reordered, c->rx.invalid, c->gf.gap_samples, c->rx.socket_drops, c->overruns,
	    c->depth, c->window);
	if (c->rx.have_age)
		put(&b, "  age %.1f ms", (double)c->rx.age_ns / 1e6);
	if (!c->locked)
		put(&b, "  (waiting for a stream)");
	else if (!c->have_meta)
		put(&b, "  (waiting for metadata)");
	return (int)b.used;
}

static void put_u(struct sbuf *b, const char *key, uint64_t v)
{
	put(b, ",\"%s\":%" PRIu64, key, v);
}

int zcs_recv_stats_json(char *buf, size_t len, const struct zcs_recv_snapshot *c,
			const struct zcs_recv_snapshot *prev, bool final)
{
	struct sbuf b = { buf, len, 0 };

	if (len)
		buf[0] = 0;
	put(&b, "{\"type\":\"%s\",\"seconds\":%.3f", final ? "summary" : "stats", c->seconds);
	if (final && c->ended_by)
		put(&b, ",\"ended_by\":\"%s\"", c->ended_by);
	if (c->locked)
		put(&b, ",\"stream\":\"0x%08" PRIx32 "\"", c->stream_id);
	else
		put(&b, ",\"stream\":null");
	if (c->have_meta)
		put(&b, ",\"sample_rate\":%" PRIu64 ",\"center_freq\":%" PRIu64 ",\"gain_db\":%.3f",
		    c->rate, c->center_freq, c->gain_mdb / 1000.0);
	put_u(&b, "samples", c->gf.samples);
	put_u(&b, "rx_samples", c->gf.rx_samples);
	put_u(&b, "datagrams", c->rx.datagrams);
	put_u(&b, "bytes", c->rx.bytes);
	put_u(&b, "sample_datagrams", c->rx.sample_dgrams);
	put_u(&b, "delivered", c->ro.delivered);
	put_u(&b, "lost", c->ro.lost);
	put_u(&b, "late", c->ro.late);
	put_u(&b, "duplicate", c->ro.duplicate);
	put_u(&b, "reordered", c->ro.reordered);
	put_u(&b, "stale", c->ro.stale);
	put_u(&b, "resyncs", c->ro.resyncs);
	put_u(&b, "invalid", c->rx.invalid);
	put(&b, ",\"invalid_by\":{");
	for (int r = 1; r < ZCS_RX_INVALID_REASONS; r++)
		put(&b, "%s\"%s\":%" PRIu64, r > 1 ? "," : "",
		    r == ZCS_RX_OVERSIZE ? "oversize" : zcs_proto_err_name(r), c->rx.invalid_by[r]);
	put(&b, "}");
	put_u(&b, "gap_samples", c->gf.gap_samples);
	put_u(&b, "gaps", c->gf.gaps);
	put_u(&b, "discont", c->rx.discont);
	put_u(&b, "discont_samples", c->gf.discont_samples);
	put_u(&b, "sample_jumps", c->gf.jumps);
	put_u(&b, "socket_drops", c->rx.socket_drops);
	put_u(&b, "filtered", c->rx.filtered);
	put_u(&b, "foreign", c->rx.foreign);
	put_u(&b, "pre_meta", c->rx.pre_meta);
	put_u(&b, "meta", c->rx.meta);
	put_u(&b, "compressed", c->rx.compressed);
	put_u(&b, "streams", c->rx.streams);
	put_u(&b, "restarts", c->rx.restarts);
	put_u(&b, "eos", c->rx.eos);
	put_u(&b, "idle_flushes", c->rx.idle_flushes);
	put_u(&b, "overruns", c->overruns);
	put(&b, ",\"msps\":%.6f", msps(c, final ? NULL : prev));
	put_u(&b, "reorder_depth", c->depth);
	put_u(&b, "reorder_max_depth", c->ro.max_depth);
	put_u(&b, "window", c->window);
	/* the age compares the sender's clock with ours: meaningful only with synced clocks */
	if (c->rx.have_age)
		put(&b, ",\"age_ms\":%.3f", (double)c->rx.age_ns / 1e6);
	else
		put(&b, ",\"age_ms\":null");
	put(&b, ",\"outputs\":[");
	for (size_t i = 0; i < c->nout; i++) {
		const struct zcs_output_stats *o = &c->out[i];

		put(&b, "%s{\"name\":", i ? "," : "");
		put_str(&b, o->name);
		put(&b, ",\"bytes\":%" PRIu64 ",\"blocks\":%" PRIu64 ",\"overruns\":%" PRIu64
		    ",\"unread\":%" PRIu64 ",\"connects\":%" PRIu64 ",\"consumers\":%" PRIu32
		    ",\"queued\":%" PRIu32 ",\"commands\":%" PRIu64 "}", o->bytes, o->blocks,
		    o->overruns, o->unread, o->connects, o->consumers, o->queued, o->commands);
	}
	put(&b, "]}");
	return (int)b.used;
}

/* The summary's words for the JSON's "ended_by" value. */
static const char *ended_by_text(const char *why)
{
	static const struct { const char *key, *text; } words[] = {
		{ "eos", "the end-of-stream datagram" },
		{ "idle", "silence (--eos-timeout): the end-of-stream datagram did not come" },
		{ "count", "--count" },
		{ "signal", "a signal" },
		{ "error", "an error" },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(why, words[i].key) == 0)
			return words[i].text;
	return why;
}

int zcs_recv_stats_summary(char *buf, size_t len, const struct zcs_recv_snapshot *c)
{
	struct sbuf b = { buf, len, 0 };

	if (len)
		buf[0] = 0;
	put(&b, "summary after %.1f s: %" PRIu64 " samples out (%" PRIu64 " received, %" PRIu64
	    " zero-filled for loss, %" PRIu64 " for source discontinuities), %.3f MS/s\n",
	    c->seconds, c->gf.samples, c->gf.rx_samples, c->gf.gap_samples, c->gf.discont_samples,
	    msps(c, NULL));
	if (c->ended_by)
		put(&b, "  ended by %s\n", ended_by_text(c->ended_by));
	put(&b, "  datagrams %" PRIu64 " (%" PRIu64 " bytes): delivered %" PRIu64 ", lost %" PRIu64
	    ", late %" PRIu64 ", duplicate %" PRIu64 ", reordered %" PRIu64 ", stale %" PRIu64
	    ", resyncs %" PRIu64 "\n", c->rx.datagrams, c->rx.bytes, c->ro.delivered, c->ro.lost,
	    c->ro.late, c->ro.duplicate, c->ro.reordered, c->ro.stale, c->ro.resyncs);
	put(&b, "  invalid %" PRIu64, c->rx.invalid);
	for (int r = 1; r < ZCS_RX_INVALID_REASONS; r++)
		if (c->rx.invalid_by[r])
			put(&b, ", %s %" PRIu64, r == ZCS_RX_OVERSIZE ? "oversize" : zcs_proto_err_name(r),
			    c->rx.invalid_by[r]);
	put(&b, "; socket drops %" PRIu64 "; other senders %" PRIu64 ", other streams %" PRIu64
	    ", before metadata %" PRIu64 "\n", c->rx.socket_drops, c->rx.filtered, c->rx.foreign,
	    c->rx.pre_meta);
	put(&b, "  streams %" PRIu64 ", restarts %" PRIu64 ", ends %" PRIu64 ", discontinuities %"
	    PRIu64 ", reorder depth max %" PRIu64 " of %zu", c->rx.streams, c->rx.restarts,
	    c->rx.eos, c->rx.discont, c->ro.max_depth, c->window);
	if (c->rx.have_age)
		put(&b, ", age %.1f ms (sender and receiver clocks must be synced)",
		    (double)c->rx.age_ns / 1e6);
	put(&b, "\n");
	for (size_t i = 0; i < c->nout; i++) {
		const struct zcs_output_stats *o = &c->out[i];

		put(&b, "  output %s: %" PRIu64 " bytes, %" PRIu64 " blocks, overruns %" PRIu64
		    ", unread %" PRIu64 ", consumers %" PRIu32 " now, %" PRIu64 " came", o->name,
		    o->bytes, o->blocks, o->overruns, o->unread, o->consumers, o->connects);
		/* only rtl_tcp clients send commands: other outputs keep their line short */
		if (o->commands)
			put(&b, ", %" PRIu64 " commands (ignored)", o->commands);
		put(&b, "\n");
	}
	return (int)b.used;
}
