// SPDX-License-Identifier: MIT
/* A keyed run awaiting the board's word (see rx_follow.h, "A run awaiting the board"): noted,
 * judged at each of its datagrams, and taken up once the board says it is live. */
#include <inttypes.h>
#include <netinet/in.h>
#include <string.h>

#include "rx_follow_parts.h"
#include "seq.h"

static void copy_from(struct sockaddr_storage *to, const struct sockaddr *from)
{
	if (from->sa_family == AF_INET)
		memcpy(to, from, sizeof(struct sockaddr_in));
	else if (from->sa_family == AF_INET6)
		memcpy(to, from, sizeof(struct sockaddr_in6));
}

void zcs_follow_pend_begin(struct zcs_follow *f, const struct zcs_dgram *dg,
			   const struct sockaddr *from, uint64_t now)
{
	f->pend = true;
	f->pend_gen++;
	f->pend_claim = (struct zcs_run_claim){ .run = dg->run, .stream_id = zcs_follow_id(dg),
						.since_ns = now };
	memset(&f->pend_from, 0, sizeof(f->pend_from));
	copy_from(&f->pend_from, from);
	memcpy(f->pend_salt, dg->salt, sizeof(f->pend_salt));
	f->pend_meta_seq = dg->meta_seq;
	f->pend_meta = dg->meta;
	f->pend_samples = false;
	f->pend_seen = false;
	f->pend_go = false;
}

void zcs_follow_take_pending(struct zcs_follow *f, uint64_t now)
{
	const struct zcs_run_claim *c = &f->pend_claim;

	zcs_follow_begin(f, c->stream_id, (const struct sockaddr *)&f->pend_from, now);
	f->taken_since_ns = c->since_ns;
	f->taken_seen = f->pend_seen;
	f->taken_low = f->pend_seen_low;
	memcpy(f->salt, f->pend_salt, sizeof(f->salt));
	f->have_run = true;
	f->meta_seq = f->pend_meta_seq;
	f->have_newest = true;
	f->newest = (struct zcs_run_seen){ .run = c->run, .stream_id = c->stream_id,
					   .meta_seq = f->pend_meta_seq };
	memcpy(f->newest.salt, f->pend_salt, sizeof(f->newest.salt));
	/* its sample datagrams that came before the board's answer: as before metadata, so a run
	 * whose datagram 0 was among them starts at sample 0, what came zero-filled and counted */
	if (f->pend_samples) {
		f->have_pre_meta = true;
		f->pre_meta_low = f->pend_low;
		f->pre_meta_high = f->pend_high;
	}
	f->pend = false;
	f->pend_go = false;
	f->took_pend = true;
	zcs_log(&f->opt.log, "stream 0x%08" PRIx32 ": the board says its run %" PRIu64 " is live "
		"(its control channel): followed", c->stream_id, c->run);
}

enum zcs_follow_sel zcs_follow_pend_judge(struct zcs_follow *f, const struct zcs_dgram *dg,
					  bool stale, uint64_t now)
{
	const enum zcs_run_verdict v = f->opt.check.judge(f->opt.check.ctx, &f->pend_claim, now);

	if (v == ZCS_RUN_NOT_LIVE) {
		f->pend = false;
		if (dg->type != ZCS_DGRAM_META) {
			f->st.foreign++;
			return ZCS_FOLLOW_FOREIGN;
		}
		zcs_follow_replayed(f, ZCS_REPLAY_NOT_LIVE);
		if (!f->said_not_live) {
			f->said_not_live = true;
			zcs_log(&f->opt.log, "stream 0x%08" PRIx32 " is authentic, but the board says "
				"its run %" PRIu64 " is not the live one (asked over its control "
				"channel): refused as a replay of an earlier run; counted as replayed "
				"(not_live)", f->pend_claim.stream_id, f->pend_claim.run);
		}
		return ZCS_FOLLOW_REPLAYED;
	}
	if (stale) {
		/* its own earlier metadata sets nothing, live or not: the run is taken at its next
		 * datagram */
		zcs_follow_replayed(f, ZCS_REPLAY_META_SEQ);
		return ZCS_FOLLOW_REPLAYED;
	}
	if (v == ZCS_RUN_LIVE) {
		f->pend_go = true;
		/* the engine applies the held metadata before this datagram, unless it is some */
		f->meta_held = dg->type != ZCS_DGRAM_META;
		if (f->locked) {
			f->switch_eos = false;
			f->switch_why = f->ended ? "ended" : "replaced";
			f->switch_what = " (a later run, live says the board)";
			return ZCS_FOLLOW_SWITCH;
		}
		zcs_follow_take_pending(f, now);
		return ZCS_FOLLOW_TAKE;
	}
	/* no answer yet: nothing of it is followed; its metadata is counted, its samples are the
	 * engine's to keep until there is one */
	if (dg->type != ZCS_DGRAM_META) {
		if (!f->pend_seen || zcs_seq_before(dg->hdr.seq, f->pend_seen_low))
			f->pend_seen_low = dg->hdr.seq;
		f->pend_seen = true;
		return ZCS_FOLLOW_PEND;
	}
	f->st.unconfirmed++;
	return ZCS_FOLLOW_HELD;
}

void zcs_follow_pend_drop(struct zcs_follow *f, uint64_t gen, uint64_t seq, uint32_t samples)
{
	f->st.pre_meta++;
	f->st.pre_meta_samples += samples;
	if (!zcs_follow_awaits(f, gen))
		return;
	if (!f->pend_samples || zcs_seq_after(seq, f->pend_high))
		f->pend_high = seq;
	if (!f->pend_samples || zcs_seq_before(seq, f->pend_low))
		f->pend_low = seq;
	f->pend_samples = true;
}

bool zcs_follow_took_pending(struct zcs_follow *f, uint64_t *gen)
{
	if (!f->took_pend)
		return false;
	f->took_pend = false;
	*gen = f->pend_gen;
	return true;
}

enum zcs_follow_sel zcs_follow_select_pending(struct zcs_follow *f, const struct zcs_dgram *dg,
					      const struct sockaddr *from, uint64_t now)
{
	bool stale = false;

	f->pend_last_ns = now;
	/* the metadata that began the wait may have come without its sender's address (the
	 * engine asks for addresses only while a new stream may be followed) */
	if (f->pend_from.ss_family == AF_UNSPEC)
		copy_from(&f->pend_from, from);
	f->pend_claim.from = (const struct sockaddr *)&f->pend_from;
	if (dg->type == ZCS_DGRAM_META) {
		stale = !zcs_seq_after(dg->meta_seq, f->pend_meta_seq);
		if (!stale) {
			f->pend_meta_seq = dg->meta_seq;
			f->pend_meta = dg->meta;
		}
	}
	return zcs_follow_pend_judge(f, dg, stale, now);
}

bool zcs_follow_held_meta(struct zcs_follow *f, struct zcs_meta *m)
{
	if (!f->meta_held)
		return false;
	f->meta_held = false;
	*m = f->pend_meta;
	return true;
}
