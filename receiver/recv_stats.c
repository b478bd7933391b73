// SPDX-License-Identifier: MIT
/* Statistics formatting for zcs-recv (see recv_stats.h and docs/receiver.md, which defines every
 * counter).  All output goes into the caller's buffer through one bounded appender. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "clock.h"
#include "jsonout.h"
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

void zcs_recv_snapshot_take(struct zcs_recv_snapshot *s, const struct zcs_rx *rx,
			    struct zcs_outputs *o, uint64_t start_ns)
{
	struct zcs_rx_snapshot e;

	memset(s, 0, sizeof(*s));
	s->t_ns = zcs_mono_ns();
	s->seconds = (double)(s->t_ns - start_ns) / 1e9;
	zcs_rx_snapshot(rx, &e);
	s->rx = e.rx;
	s->ro = e.ro;
	s->gf = e.gf;
	s->depth = e.depth;
	s->window = e.window;
	s->locked = e.locked;
	s->have_meta = e.have_meta;
	s->stream_id = e.stream_id;
	s->rate = e.meta.sample_rate;
	s->center_freq = e.meta.center_freq;
	s->gain_mdb = e.meta.gain_mdb;
	s->fec_k = e.fec_k;
	s->fec_m = e.fec_m;
	s->nout = o ? zcs_outputs_count(o) : 0;
	if (s->nout > ZCS_RECV_MAX_OUTPUTS)
		s->nout = ZCS_RECV_MAX_OUTPUTS;
	for (size_t i = 0; i < s->nout; i++) {
		zcs_outputs_stats(o, i, &s->out[i]);
		s->overruns += s->out[i].overruns;
		s->skipped += s->out[i].skipped;
	}
}

/* Samples per second over the interval since prev (or since the start). */
static double msps(const struct zcs_recv_snapshot *cur, const struct zcs_recv_snapshot *prev)
{
	const double dt = prev ? (double)(cur->t_ns - prev->t_ns) / 1e9 : cur->seconds;
	const uint64_t n = cur->gf.samples - (prev ? prev->gf.samples : 0);

	return dt > 0 ? (double)n / dt / 1e6 : 0.0;
}

/* The live line's fields, kept in the order they are shown; on a narrow terminal the ones of
 * lowest rank (the highest number) give way first. */
#define LINE_FIELDS 24
#define FIELD_CHARS 48

struct line {
	char text[LINE_FIELDS][FIELD_CHARS];
	int rank[LINE_FIELDS];
	size_t n;
};

static void field(struct line *l, int rank, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void field(struct line *l, int rank, const char *fmt, ...)
{
	va_list ap;

	if (l->n == LINE_FIELDS)
		return;
	va_start(ap, fmt);
	vsnprintf(l->text[l->n], FIELD_CHARS, fmt, ap);
	va_end(ap);
	l->rank[l->n++] = rank;
}

int zcs_recv_stats_line(char *buf, size_t len, const struct zcs_recv_snapshot *c,
			const struct zcs_recv_snapshot *prev, unsigned width)
{
	struct sbuf b = { buf, len, 0 };
	struct line l = { .n = 0 };
	bool shown[LINE_FIELDS] = { false };
	size_t used = 0;

	if (len)
		buf[0] = 0;
	if (width && width < 20)
		width = 20;
	/* what is wrong first: until a stream is locked no counter means anything */
	if (!c->locked)
		field(&l, 0, "(waiting for a stream)");
	else if (!c->have_meta)
		field(&l, 0, "(waiting for metadata)");
	/* then every way a sample can be lost or spoiled, so a narrow terminal keeps them */
	field(&l, 1, "lost %" PRIu64, c->ro.lost);
	field(&l, 1, "gap %" PRIu64, c->gf.gap_samples);
	field(&l, 1, "sockdrop %" PRIu64, c->rx.socket_drops);
	field(&l, 1, "overruns %" PRIu64, c->overruns);
	field(&l, 3, "invalid %" PRIu64, c->rx.invalid);
	field(&l, 3, "late %" PRIu64, c->ro.late);
	/* erasure coding: only on a stream that carries parity */
	if (c->rx.parity)
		field(&l, 3, "unrecoverable %" PRIu64, c->rx.unrecoverable);
	/* keyed streams: datagrams that failed verification are news whenever there are any */
	if (c->rx.invalid_by[ZCS_PERR_AUTH] || c->rx.replayed) {
		field(&l, 3, "auth %" PRIu64, c->rx.invalid_by[ZCS_PERR_AUTH]);
		field(&l, 3, "replayed %" PRIu64, c->rx.replayed);
	}
	/* parity that was not the sender's: news whenever there is any */
	if (c->rx.rebuilt_refused)
		field(&l, 3, "rebuilt_refused %" PRIu64, c->rx.rebuilt_refused);
	/* only when it happened: on a clean stream the line stays as it was */
	if (c->rx.unconfirmed)
		field(&l, 3, "unconfirmed %" PRIu64, c->rx.unconfirmed);
	/* a consumer that came and started reading late: no loss in its stream, so only news */
	if (c->skipped)
		field(&l, 4, "skipped %" PRIu64, c->skipped);
	/* how it goes (the rate right after the loss counters in rank), then the rest */
	field(&l, 2, "| %.3f MS/s", msps(c, prev));
	field(&l, 4, "%.1f s", c->seconds);
	field(&l, 5, "samples %" PRIu64, c->gf.samples);
	field(&l, 5, "dup %" PRIu64, c->ro.duplicate);
	field(&l, 5, "reord %" PRIu64, c->ro.reordered);
	field(&l, 5, "depth %zu/%zu", c->depth, c->window);
	if (c->rx.parity) {
		field(&l, 6, "restored %" PRIu64, c->rx.restored);
		field(&l, 6, "parity %" PRIu64, c->rx.parity);
	}
	if (c->rx.have_age)
		field(&l, 6, "age %.1f ms", (double)c->rx.age_ns / 1e6);
	/* by rank, then in order, every field that still fits in width - 1 (the last column stays
	 * free: a terminal that wraps there breaks the \r update); a rank that does not fit whole
	 * ends the choice, so a narrow line never shows a lesser field in place of a greater one */
	for (int rank = 0; rank <= 6; rank++) {
		size_t need = 0;

		for (size_t i = 0; i < l.n; i++)
			if (l.rank[i] == rank)
				need += strlen(l.text[i]) + 1;
		if (width && used + need > (size_t)width) {
			for (size_t i = 0; i < l.n; i++) {
				const size_t w = strlen(l.text[i]) + 1;

				if (l.rank[i] == rank && used + w <= (size_t)width) {
					shown[i] = true;
					used += w;
				}
			}
			break;
		}
		for (size_t i = 0; i < l.n; i++)
			shown[i] = shown[i] || l.rank[i] == rank;
		used += need;
	}
	for (size_t i = 0; i < l.n; i++)
		if (shown[i])
			put(&b, "%s%s", b.used ? " " : "", l.text[i]);
	return (int)b.used;
}

unsigned zcs_recv_stats_width(int fd)
{
	struct winsize ws;
	const char *const cols = getenv("COLUMNS");
	char *end;
	unsigned long n;

	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	if (cols && *cols) {
		errno = 0;
		n = strtoul(cols, &end, 10);
		if (!errno && !*end && n > 0 && n <= 1000)
			return (unsigned)n;
	}
	return 80;
}

/* A recording: an output that writes to storage, where a block dropped is a hole for good (a live
 * consumer that falls behind loses blocks too, but has nothing to keep). */
static bool is_recording(const struct zcs_output_stats *o)
{
	return strncmp(o->name, "file:", 5) == 0 || strncmp(o->name, "sigmf:", 6) == 0;
}

/* Blocks of a recording that never reached it: dropped for a full queue (the disk did not keep
 * up), or still queued when the run ended and its writer was given up on. */
static uint64_t unwritten(const struct zcs_output_stats *o)
{
	return is_recording(o) ? o->overruns + o->queued : 0;
}

/* Builds the stats object: every key docs/receiver.md lists, in its order.  NULL when out of
 * memory. */
static json_t *stats_doc(const struct zcs_recv_snapshot *c, const struct zcs_recv_snapshot *prev,
			 bool final)
{
	json_t *const o = json_object(), *const by = json_object(), *const outs = json_array();
	char id[16];
	int bad = !o;

#define U(key, v) (bad |= zcs_json_set(o, key, zcs_json_u64(v)))
	bad |= zcs_json_set(o, "type", json_string(final ? "summary" : "stats"));
	bad |= zcs_json_set(o, "seconds", zcs_json_real(c->seconds, 3));
	if (final && c->ended_by)
		bad |= zcs_json_set(o, "ended_by", json_string(c->ended_by));
	/* the recordings with holes, by name ([] when every recording is whole) */
	if (final) {
		json_t *const inc = json_array();

		bad |= !inc;
		for (size_t i = 0; inc && i < c->nout; i++)
			if (unwritten(&c->out[i]))
				bad |= json_array_append_new(inc, json_string(c->out[i].name)) < 0;
		bad |= zcs_json_set(o, "incomplete", inc);
	}
	snprintf(id, sizeof(id), "0x%08" PRIx32, c->stream_id);
	bad |= zcs_json_set(o, "stream", c->locked ? json_string(id) : json_null());
	if (c->have_meta) {
		U("sample_rate", c->rate);
		U("center_freq", c->center_freq);
		bad |= zcs_json_set(o, "gain_db", zcs_json_real(c->gain_mdb / 1000.0, 3));
	}
	/* "K:M" as the metadata announces it (or the parity says), null without parity */
	if (c->fec_k) {
		char fec[16];

		snprintf(fec, sizeof(fec), "%u:%u", c->fec_k, c->fec_m);
		bad |= zcs_json_set(o, "fec", json_string(fec));
	} else {
		bad |= zcs_json_set(o, "fec", json_null());
	}
	U("samples", c->gf.samples);
	U("rx_samples", c->gf.rx_samples);
	U("datagrams", c->rx.datagrams);
	U("bytes", c->rx.bytes);
	U("sample_datagrams", c->rx.sample_dgrams);
	U("delivered", c->ro.delivered);
	U("lost", c->ro.lost);
	U("late", c->ro.late);
	U("duplicate", c->ro.duplicate);
	U("reordered", c->ro.reordered);
	U("stale", c->ro.stale);
	U("resyncs", c->ro.resyncs);
	U("invalid", c->rx.invalid);
	for (int r = 1; r < ZCS_RX_INVALID_REASONS && by; r++)
		bad |= zcs_json_set(by, r == ZCS_RX_OVERSIZE ? "oversize" : zcs_proto_err_name(r),
				    zcs_json_u64(c->rx.invalid_by[r]));
	bad |= zcs_json_set(o, "invalid_by", by);
	U("gap_samples", c->gf.gap_samples);
	U("gaps", c->gf.gaps);
	U("discont", c->rx.discont);
	U("discont_samples", c->gf.discont_samples);
	U("sample_jumps", c->gf.jumps);
	U("socket_drops", c->rx.socket_drops);
	U("filtered", c->rx.filtered);
	U("foreign", c->rx.foreign);
	U("pre_meta", c->rx.pre_meta);
	U("pre_meta_samples", c->rx.pre_meta_samples);
	U("late_joins", c->rx.late_joins);
	U("meta", c->rx.meta);
	U("compressed", c->rx.compressed);
	U("streams", c->rx.streams);
	U("restarts", c->rx.restarts);
	U("eos", c->rx.eos);
	U("idle_flushes", c->rx.idle_flushes);
	U("parity", c->rx.parity);
	U("restored", c->rx.restored);
	U("unrecoverable", c->rx.unrecoverable);
	U("rebuilt_refused", c->rx.rebuilt_refused);
	U("unconfirmed", c->rx.unconfirmed);
	U("replayed", c->rx.replayed);
	{
		json_t *rb = json_object();

		for (int r = 0; r < ZCS_REPLAY_REASONS && rb; r++)
			bad |= zcs_json_set(rb, zcs_replay_reason_name(r),
					    zcs_json_u64(c->rx.replayed_by[r]));
		bad |= zcs_json_set(o, "replayed_by", rb);
	}
	U("overruns", c->overruns);
	U("skipped", c->skipped);
	bad |= zcs_json_set(o, "msps", zcs_json_real(msps(c, final ? NULL : prev), 6));
	U("reorder_depth", c->depth);
	U("reorder_max_depth", c->ro.max_depth);
	U("window", c->window);
	/* the age compares the sender's clock with ours: meaningful only with synced clocks */
	bad |= zcs_json_set(o, "age_ms", c->rx.have_age ?
			    zcs_json_real((double)c->rx.age_ns / 1e6, 3) : json_null());
	for (size_t i = 0; i < c->nout && outs; i++) {
		const struct zcs_output_stats *s = &c->out[i];
		json_t *const e = json_object(), *name;

		bad |= json_array_append_new(outs, e);
		if (!e)
			continue;
		/* the name is the user's -o spec: jansson escapes it, and refuses it (null) when it
		 * is not UTF-8 */
		name = json_string(s->name);
		bad |= zcs_json_set(e, "name", name ? name : json_null());
		bad |= zcs_json_set(e, "bytes", zcs_json_u64(s->bytes));
		bad |= zcs_json_set(e, "blocks", zcs_json_u64(s->blocks));
		bad |= zcs_json_set(e, "overruns", zcs_json_u64(s->overruns));
		bad |= zcs_json_set(e, "skipped", zcs_json_u64(s->skipped));
		bad |= zcs_json_set(e, "unread", zcs_json_u64(s->unread));
		bad |= zcs_json_set(e, "connects", zcs_json_u64(s->connects));
		bad |= zcs_json_set(e, "consumers", zcs_json_u64(s->consumers));
		bad |= zcs_json_set(e, "queued", zcs_json_u64(s->queued));
		bad |= zcs_json_set(e, "commands", zcs_json_u64(s->commands));
		bad |= zcs_json_set(e, "forwarded", zcs_json_u64(s->forwarded));
		bad |= zcs_json_set(e, "not_allowed", zcs_json_u64(s->not_allowed));
	}
	bad |= zcs_json_set(o, "outputs", outs);
#undef U
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int zcs_recv_stats_json(char *buf, size_t len, const struct zcs_recv_snapshot *c,
			const struct zcs_recv_snapshot *prev, bool final)
{
	return zcs_json_line(buf, len, stats_doc(c, prev, final));
}

size_t zcs_recv_stats_incomplete(const struct zcs_recv_snapshot *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nout; i++)
		n += unwritten(&c->out[i]) > 0;
	return n;
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
		{ "consumer", "the reader of its output going away" },
		{ "format", "a change of wire format that -F native cannot follow" },
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
	/* first, before anything that reads like success: a recording with holes is not the stream */
	for (size_t i = 0; i < c->nout; i++) {
		const struct zcs_output_stats *o = &c->out[i];

		if (unwritten(o))
			put(&b, "INCOMPLETE recording %s: %" PRIu64 " blocks of samples not written (%"
			    PRIu64 " dropped because the output could not keep up, %" PRIu64
			    " unwritten at exit); the file has holes where they were\n", o->name,
			    unwritten(o), o->overruns, (uint64_t)o->queued);
	}
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
	    ", before metadata %" PRIu64 " (%" PRIu64 " samples), late joins %" PRIu64 "\n",
	    c->rx.socket_drops, c->rx.filtered, c->rx.foreign, c->rx.pre_meta,
	    c->rx.pre_meta_samples, c->rx.late_joins);
	put(&b, "  streams %" PRIu64 ", restarts %" PRIu64 ", ends %" PRIu64 ", discontinuities %"
	    PRIu64 ", unconfirmed %" PRIu64 ", reorder depth max %" PRIu64 " of %zu",
	    c->rx.streams, c->rx.restarts, c->rx.eos, c->rx.discont, c->rx.unconfirmed,
	    c->ro.max_depth, c->window);
	if (c->rx.replayed)
		put(&b, ", replayed %" PRIu64 " (authentic, but not fresh: %" PRIu64 " of an earlier "
		    "run, %" PRIu64 " an earlier metadata number, %" PRIu64 " sample datagrams from "
		    "behind the window)", c->rx.replayed, c->rx.replayed_by[ZCS_REPLAY_OLD_RUN],
		    c->rx.replayed_by[ZCS_REPLAY_META_SEQ], c->rx.replayed_by[ZCS_REPLAY_BEHIND]);
	if (c->rx.have_age)
		put(&b, ", age %.1f ms (sender and receiver clocks must be synced)",
		    (double)c->rx.age_ns / 1e6);
	put(&b, "\n");
	for (size_t i = 0; i < c->nout; i++) {
		const struct zcs_output_stats *o = &c->out[i];

		put(&b, "  output %s: %" PRIu64 " bytes, %" PRIu64 " blocks, overruns %" PRIu64
		    ", skipped %" PRIu64 ", unread %" PRIu64 ", consumers %" PRIu32 " now, %" PRIu64
		    " came", o->name, o->bytes, o->blocks, o->overruns, o->skipped, o->unread,
		    o->consumers, o->connects);
		/* only rtl_tcp clients send commands: other outputs keep their line short */
		if (o->commands)
			put(&b, ", %" PRIu64 " commands (%" PRIu64 " forwarded)", o->commands,
			    o->forwarded);
		if (o->not_allowed)
			put(&b, ", %" PRIu64 " settings of clients not allowed to tune (not "
			    "forwarded)", o->not_allowed);
		put(&b, "\n");
	}
	return (int)b.used;
}
