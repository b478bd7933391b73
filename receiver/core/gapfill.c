// SPDX-License-Identifier: MIT
/* Gap filling and conversion into the outputs (see gapfill.h).  Gaps are measured in samples
 * from the datagrams' first_sample, never estimated from sequence numbers, so a consumer's time
 * stays exact; the only estimate is for datagrams lost before the first one of a stream. */
#include <string.h>

#include "gapfill.h"
#include "seq.h"

void zcs_gapfill_init(struct zcs_gapfill *g, struct zcs_outputs *out, const struct zcs_kernels *k,
		      enum zcs_sample_type type, bool drop, uint64_t limit)
{
	memset(g, 0, sizeof(*g));
	g->out = out;
	g->k = k;
	g->type = type;
	g->drop = drop;
	g->limit = limit;
}

void zcs_gapfill_set_native_strict(struct zcs_gapfill *g, bool on)
{
	g->native_strict = on;
}

void zcs_gapfill_set_spd(struct zcs_gapfill *g, uint64_t spd)
{
	g->spd = spd;
}

void zcs_gapfill_meta(struct zcs_gapfill *g, const struct zcs_meta *m)
{
	zcs_outputs_meta(g->out, m);
}

void zcs_gapfill_flush(struct zcs_gapfill *g)
{
	zcs_outputs_flush(g->out);
}

size_t zcs_gapfill_pending(const struct zcs_gapfill *g)
{
	return zcs_outputs_pending(g->out);
}

void zcs_gapfill_eos(struct zcs_gapfill *g)
{
	zcs_outputs_eos(g->out);
}

void zcs_gapfill_restart(struct zcs_gapfill *g, uint64_t spd)
{
	g->have_pos = false;
	g->have_line = false;
	g->began_ns = 0;
	g->lost_dgrams = 0;
	g->have_contest = false;
	g->spd = spd;
}

void zcs_gapfill_bound(struct zcs_gapfill *g, uint64_t rate, uint64_t slack)
{
	g->rate = rate;
	g->slack = slack;
}

bool zcs_gapfill_within(const struct zcs_gapfill *g, uint64_t from, uint64_t to, uint64_t dt_ns,
			uint64_t now)
{
	const int64_t ahead = zcs_seq_diff(to, g->line_pos);
	double line;

	if (g->rate == 0 || zcs_seq_diff(to, from) <= 0)
		return true;
	if (to - from <= zcs_gapfill_budget(g->rate, dt_ns, g->slack))
		return true;
	if (!g->have_line)
		return false;
	if (ahead <= 0)
		return true;
	line = (double)g->rate * (double)(now - g->line_ns) *
	       (1e6 + ZCS_GAPFILL_LINE_TOLERANCE_PPM) / 1e15 + (double)g->slack;
	return (double)ahead <= line;
}

/* The stream (re)begins at index pos now: the line of zcs_gapfill_within starts here. */
static void begin_line(struct zcs_gapfill *g, uint64_t pos)
{
	g->have_line = true;
	g->line_pos = pos;
	g->line_ns = g->began_ns && g->began_ns < g->now_ns ? g->began_ns : g->now_ns;
}

void zcs_gapfill_began(struct zcs_gapfill *g, uint64_t ns)
{
	g->began_ns = ns;
}

void zcs_gapfill_observe(struct zcs_gapfill *g)
{
	const bool clean = g->st.gaps == g->obs_gaps && g->st.jumps == g->obs_jumps;
	int64_t ahead;
	double back;

	g->obs_gaps = g->st.gaps;
	g->obs_jumps = g->st.jumps;
	if (!clean || !g->have_line || !g->have_pos || g->rate == 0)
		return;
	ahead = zcs_seq_diff(g->pos, g->line_pos);
	if (ahead <= 0)
		return;
	/* the stream was at pos by last_ns: it began no later than this */
	back = (double)ahead * 1e9 / (double)g->rate;
	if (back < (double)g->last_ns && g->last_ns - (uint64_t)back < g->line_ns)
		g->line_ns = g->last_ns - (uint64_t)back;
}

void zcs_gapfill_lost(struct zcs_gapfill *g, uint64_t count)
{
	g->lost_dgrams += count;
}

void zcs_gapfill_contested(struct zcs_gapfill *g, uint64_t first, uint64_t samples)
{
	if (!g->have_pos || samples == 0 || zcs_seq_before(first, g->pos) ||
	    (g->spd && samples > g->spd))
		return;
	g->have_contest = true;
	g->contest_from = first;
	g->contest_to = first + samples;
}

/* Pairs still allowed by --count. */
static uint64_t room(const struct zcs_gapfill *g, uint64_t want)
{
	if (g->limit == 0)
		return want;
	return g->limit - g->st.samples < want ? g->limit - g->st.samples : want;
}

static void note_done(struct zcs_gapfill *g)
{
	if (g->limit && g->st.samples >= g->limit)
		g->done = true;
}

/* Puts out up to `pairs` samples from stream index first, as many as --count allows, block by
 * block straight into the outputs: converted from src (pairs of wire format fmt) by unpack, or
 * zeros when unpack is NULL.  The one loop of both data and fill.  Returns the pairs put out. */
static uint64_t put(struct zcs_gapfill *g, uint64_t first, uint64_t pairs, int fmt,
		    zcs_unpack_fn unpack, const uint8_t *src)
{
	const size_t pb = zcs_sample_pair_bytes(g->type, fmt);
	const size_t in_pb = zcs_wire_pair_bytes(fmt);
	/* the zero of unsigned 8-bit is 128; every other type's zero is all-zero bytes */
	const int zero = g->type == ZCS_SAMPLE_CU8 ? 0x80 : 0;
	const uint64_t left = room(g, pairs);
	uint64_t n;

	for (uint64_t done = 0; done < left; done += n) {
		void *dst;

		n = ZCS_BLOCK_BYTES / pb;
		if (n > left - done)
			n = left - done;
		dst = zcs_outputs_reserve(g->out, (size_t)n * pb);
		if (unpack)
			unpack(dst, src + done * in_pb, (size_t)n);
		else
			memset(dst, zero, (size_t)n * pb);
		zcs_outputs_commit(g->out, first + done, (size_t)n, (size_t)n * pb);
	}
	g->st.samples += left;
	note_done(g);
	return left;
}

/* Puts out `pairs` zero samples from stream index first (or only reports them with --gap drop). */
static uint64_t fill(struct zcs_gapfill *g, uint64_t first, uint64_t pairs, int wire_format)
{
	g->st.gaps++;
	if (g->drop) {
		zcs_outputs_gap(g->out, first, pairs, false);
		return 0;
	}
	/* the event before its zeros: a consumer learns of the discontinuity at its first sample
	 * (the SoapySDR module's OVERFLOW comes before the zeros, as applications expect), and
	 * the zeros start a block of their own */
	zcs_outputs_gap(g->out, first, room(g, pairs), true);
	return put(g, first, pairs, wire_format, NULL, NULL);
}

/* Accounts for and fills the stretch between the expected position and hdr->first_sample. */
static uint64_t close_gap(struct zcs_gapfill *g, const struct zcs_sample_hdr *hdr)
{
	const bool discont = hdr->flags & ZCS_FLAG_DISCONT;
	const int64_t d = zcs_seq_diff(hdr->first_sample, g->pos);
	uint64_t gap, net, most_net;

	if (d == 0)
		return 0;
	/* each lost datagram held at most 65535 pairs: more than that is not network loss */
	most_net = g->lost_dgrams * UINT16_MAX;
	/* samples refused with a duplicate (zcs_gapfill_contested), when the gap lies within them */
	if (g->have_contest && !zcs_seq_before(g->pos, g->contest_from) &&
	    !zcs_seq_after(hdr->first_sample, g->contest_to))
		most_net += g->contest_to - g->pos;
	/* more zeros than real time could have lost are not filled either (the receive path
	 * confirms jumps before they get here; this bounds whatever slips through) */
	if (d < 0 || (!discont && (uint64_t)d > most_net) ||
	    (discont && (uint64_t)d > most_net + ZCS_GAPFILL_MAX_SOURCE_GAP) ||
	    !zcs_gapfill_within(g, g->pos, hdr->first_sample, g->now_ns - g->last_ns, g->now_ns)) {
		g->st.jumps++;
		g->pos = hdr->first_sample;
		begin_line(g, g->pos);
		return 0;
	}
	gap = (uint64_t)d;
	net = gap;
	if (discont) {
		/* lost datagrams before a discontinuity: theirs are the full datagrams' worth */
		const uint64_t est = g->spd ? g->lost_dgrams * g->spd : most_net;

		net = est < gap ? est : gap;
		g->st.discont_samples += gap - net;
	}
	g->st.gap_samples += net;
	return fill(g, g->pos, gap, hdr->format);
}

uint64_t zcs_gapfill_data(struct zcs_gapfill *g, const struct zcs_sample_hdr *hdr,
			  const uint8_t *payload, uint64_t now_ns)
{
	const int fmt = hdr->format;
	const zcs_unpack_fn unpack = (fmt >= 1 && fmt <= ZCS_WIRE_MAX) ? g->k->unpack[fmt][g->type] : NULL;
	uint64_t out = 0, done;

	g->now_ns = now_ns;
	if (g->done || !unpack || zcs_sample_pair_bytes(g->type, fmt) == 0)
		return 0;
	if (g->native_strict) {
		if (!g->native_fmt) {
			g->native_fmt = fmt;
		} else if (fmt != g->native_fmt) {
			/* not one sample of the new layout after the old (nor zeros for what was lost
			 * just before it: the output ends at the last sample it had) */
			g->done = true;
			g->fmt_ended = true;
			g->fmt_to = fmt;
			g->fmt_at = hdr->first_sample;
			return 0;
		}
	}
	if (!g->have_pos) {
		/* datagrams lost at the very start: their full size is the only measure there is */
		const uint64_t est = g->lost_dgrams * g->spd;

		g->have_pos = true;
		g->pos = hdr->first_sample;
		if (est > 0 && est <= hdr->first_sample && !(hdr->flags & ZCS_FLAG_DISCONT)) {
			g->pos = hdr->first_sample - est;
			g->st.gap_samples += est;
		}
		begin_line(g, g->pos);
		if (g->pos != hdr->first_sample)
			out += fill(g, g->pos, est, fmt);
	} else {
		out += close_gap(g, hdr);
	}
	g->lost_dgrams = 0;
	g->have_contest = false;
	g->pos = hdr->first_sample + hdr->samples;
	g->last_ns = g->now_ns;
	if (g->done)
		return out;

	done = put(g, hdr->first_sample, hdr->samples, fmt, unpack, payload);
	g->st.rx_samples += done;
	return out + done;
}
