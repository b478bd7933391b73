// SPDX-License-Identifier: MIT
/* The stream's metadata (see rx_follow.h): which settings are believed, and when, and the
 * sample datagrams that came before any. */
#include <string.h>

#include "clock.h"
#include "rx_follow_parts.h"
#include "seq.h"

/* Held datagrams are released when nothing has come for this long (at least; see hold_ns). */
#define HOLD_MIN_NS (100ULL * 1000 * 1000)
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

static bool same_settings(const struct zcs_meta *a, const struct zcs_meta *b)
{
	return a->sample_rate == b->sample_rate && a->center_freq == b->center_freq &&
	       a->bandwidth == b->bandwidth && a->gain_mdb == b->gain_mdb &&
	       a->gain_mode == b->gain_mode && a->channel == b->channel && a->format == b->format &&
	       a->samples_per_dgram == b->samples_per_dgram &&
	       /* CHANGE marks the announcement of a retune, not a setting of its own */
	       (a->flags & ~ZCS_META_FLAG_CHANGE) == (b->flags & ~ZCS_META_FLAG_CHANGE);
}

/* Whether metadata m may change the settings now.  The first metadata is taken (the stream was
 * chosen by it).  Keyed, m has verified and is newer than every metadata of its run
 * (select_keyed: run and meta_seq), so only the sender can have said it: a change is taken at
 * once.  Unkeyed, anyone can say it: a change only once announced for META_CONFIRM_NS with
 * nothing contradicting it (zcs_follow_sample_format: a sample datagram of the old format; here:
 * metadata of other settings). */
static bool meta_confirmed(struct zcs_follow *f, const struct zcs_meta *m, uint64_t now)
{
	if (!f->have_meta || f->opt.keyed)
		return true;
	if (same_settings(&f->meta, m)) {
		/* the stream repeats its settings: a change announced meanwhile was not its own */
		if (f->meta_pending) {
			f->meta_pending = false;
			f->st.unconfirmed++;
		}
		return true;
	}
	if (!f->meta_pending || !same_settings(&f->meta_new, m)) {
		if (f->meta_pending)
			f->st.unconfirmed++;
		f->meta_pending = true;
		f->meta_new = *m;
		f->meta_new_ns = now;
		return false;
	}
	if (now - f->meta_new_ns < META_CONFIRM_NS)
		return false;
	f->meta_pending = false;
	return true;
}

int zcs_follow_meta(struct zcs_follow *f, const struct zcs_meta *m, uint64_t now,
		    struct zcs_meta *eff)
{
	const bool first = !f->have_meta;
	uint64_t dgram_ns;

	f->st.meta++;
	/* a retune announced with its index (CHANGE) and believed only once confirmed (unkeyed)
	 * still holds from that index: the announcement, not the datagram that confirmed it,
	 * says where the outputs (a SigMF capture) and the news put it */
	*eff = f->meta_pending ? f->meta_new : *m;
	if (!meta_confirmed(f, m, now))
		return 0;
	if (!((eff->flags & ZCS_META_FLAG_CHANGE) && same_settings(eff, m)))
		*eff = *m;
	/* its next_seq says where the stream was now (a start is judged by it) */
	f->meta_ns = now;
	if (!first && same_settings(&f->meta, m)) {
		f->meta = *m;
		return 0;
	}
	f->meta = *m;
	f->have_meta = true;
	/* a stream may be several minutes of silence on a slow link: hold at least 8 datagrams */
	dgram_ns = m->sample_rate ? (uint64_t)m->samples_per_dgram * ZCS_NS_PER_SEC / m->sample_rate : 0;
	f->hold_ns = 8 * dgram_ns > HOLD_MIN_NS ? 8 * dgram_ns : HOLD_MIN_NS;
	if (f->opt.hold_ms)
		f->hold_ns = f->opt.hold_ms * 1000000ULL;
	f->quiet_ns = 8 * dgram_ns > QUIET_MIN_NS ? 8 * dgram_ns : QUIET_MIN_NS;
	return first ? 1 : 2;
}

bool zcs_follow_pre_meta(struct zcs_follow *f, const struct zcs_sample_hdr *h)
{
	if (f->have_meta)
		return false;
	f->st.pre_meta++;
	f->st.pre_meta_samples += h->samples;
	/* remembered so the window starts at the right place once the metadata comes */
	if (!f->have_pre_meta || zcs_seq_after(h->seq, f->pre_meta_high))
		f->pre_meta_high = h->seq;
	if (!f->have_pre_meta || zcs_seq_before(h->seq, f->pre_meta_low))
		f->pre_meta_low = h->seq;
	f->have_pre_meta = true;
	return true;
}

void zcs_follow_sample_format(struct zcs_follow *f, int fmt)
{
	if (f->meta_pending && fmt == f->meta.format && f->meta_new.format != f->meta.format) {
		f->meta_pending = false;
		f->st.unconfirmed++;
	}
}
