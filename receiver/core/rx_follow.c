// SPDX-License-Identifier: MIT
/* Stream following (see rx_follow.h): the stream chosen, keyed runs, the metadata believed, and
 * the trust rules for what sample datagrams claim.  Decisions only: every buffer, the window and
 * the outputs are the engine's (rx_dgram.c). */
#include <inttypes.h>
#include <netinet/in.h>
#include <string.h>

#include "clock.h"
#include "rx_follow.h"
#include "seq.h"

/* A stream silent this long has gone: a new stream id then is its sender restarting.  Metadata
 * comes at least every 500 ms, so 1.5 s of silence is three missed metadata datagrams. */
#define SILENCE_NS (1500ULL * 1000 * 1000)
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

void zcs_follow_init(struct zcs_follow *f, const struct zcs_follow_opts *opt,
		     const struct zcs_reorder *ro, const struct zcs_gapfill *gf)
{
	memset(f, 0, sizeof(*f));
	f->opt = *opt;
	if (opt->run_seen) {
		f->have_newest = true;
		f->newest = *opt->run_seen;
	}
	f->opt.run_seen = NULL;   /* copied: the caller's record need not outlive init */
	if (!opt->keyed)
		f->opt.check.judge = NULL;
	f->ro = ro;
	f->gf = gf;
}

uint32_t zcs_follow_drop_cand(struct zcs_follow *f)
{
	if (!f->cand)
		return ZCS_FOLLOW_NONE;
	f->cand = false;
	f->st.unconfirmed++;
	return f->cand_handle;
}

/* Forgets what the stream followed has shown (a new stream).  No jump is held then: the engine
 * released the candidate's buffer with the window it ended (zcs_follow_switch's contract). */
static void forget_position(struct zcs_follow *f)
{
	f->cand = false;
	f->have_anchor = false;
	f->eos_pending = false;
	f->meta_pending = false;
}

static void follow(struct zcs_follow *f, uint32_t id, const struct sockaddr *from, uint64_t now)
{
	char a[96] = "?";
	struct zcs_addr fa;

	memset(&fa, 0, sizeof(fa));
	if (from->sa_family == AF_INET || from->sa_family == AF_INET6) {
		fa.len = from->sa_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
		memcpy(&fa.ss, from, fa.len);
		zcs_net_addr_str(&fa, a, sizeof(a));
	}
	f->sender = fa;
	f->locked = true;
	f->stream_id = id;
	f->have_meta = false;
	f->need_start = true;
	f->have_pre_meta = false;
	f->ended = false;
	f->last_rx_ns = now;
	f->taken_since_ns = 0;
	f->taken_seen = false;
	forget_position(f);
	f->st.streams++;
	zcs_log(&f->opt.log, "stream 0x%08" PRIx32 " from %s: waiting for its metadata", id, a);
}

static uint32_t id_of(const struct zcs_dgram *dg)
{
	return dg->type == ZCS_DGRAM_META ? dg->meta.stream_id : dg->hdr.stream_id;
}

bool zcs_follow_eos_believed(const struct zcs_follow *f, uint64_t now)
{
	return f->eos_pending && now - f->last_rx_ns >= f->quiet_ns;
}

/* Stream choice of an unkeyed receiver. */
static enum zcs_follow_sel select_unkeyed(struct zcs_follow *f, const struct zcs_dgram *dg,
					  const struct sockaddr *from, uint64_t now)
{
	const uint32_t id = id_of(dg);

	if (!f->locked) {
		follow(f, id, from, now);
		return ZCS_FOLLOW_TAKE;
	}
	if (id == f->stream_id)
		return ZCS_FOLLOW_TAKE;
	/* a stream is held to only once it has shown itself: metadata, then a sample datagram
	 * that placed the window.  Before that, the metadata of another stream takes the receiver
	 * over: a lone datagram sent first (a forger) does not keep it from the stream that follows,
	 * and of two real senders starting together the first to show itself wins */
	if (f->need_start && !f->ended && dg->type == ZCS_DGRAM_META) {
		f->st.streams--;
		follow(f, id, from, now);
		return ZCS_FOLLOW_TAKE;
	}
	f->switch_eos = zcs_follow_eos_believed(f, now);
	if (f->ended || f->switch_eos || now - f->last_rx_ns > SILENCE_NS) {
		f->switch_why = f->ended || f->switch_eos ? "ended" : "went silent";
		f->switch_what = "";
		return ZCS_FOLLOW_SWITCH;
	}
	f->st.foreign++;
	return ZCS_FOLLOW_FOREIGN;
}

static void replayed(struct zcs_follow *f, int reason)
{
	f->st.replayed++;
	f->st.replayed_by[reason]++;
}

/* Whether a keyed run (stream id, salt) that is not the one followed may be followed: the one
 * place where a new run is accepted or refused.  Runs are ordered by the number the sender
 * counts them with across its reboots (its metadata's run), never by its clock, which a board
 * without one sets to 1970 at every boot: only a run fresh against the newest followed (a
 * later number, or the newest run itself going on past what was seen of it) is taken, so a
 * replay of an earlier run can neither capture the receiver nor draw it away from the live
 * stream, and a rebooted board is followed at once (docs/protocol.md, "Fresh runs").  Refusals
 * are counted replayed (old_run) here. */
static bool run_acceptable(struct zcs_follow *f, const struct zcs_dgram *dg)
{
	if (zcs_run_is_fresh(f->have_newest ? &f->newest : NULL, dg->run, id_of(dg), dg->salt,
			     dg->meta_seq))
		return true;
	replayed(f, ZCS_REPLAY_OLD_RUN);
	if (!f->said_replay) {
		f->said_replay = true;
		zcs_log(&f->opt.log, "stream 0x%08" PRIx32 " is authentic but its run %" PRIu64
			" is not after run %" PRIu64 ", the newest this receiver followed: refused "
			"as a replay of an earlier run; counted as replayed (a sender that lost its "
			"run counter must be given one above %" PRIu64 ": docs/security.md)",
			id_of(dg), dg->run, f->newest.run, f->newest.run);
	}
	return false;
}

/* The run of metadata dg is the one followed from now on, and the newest. */
static void take_run(struct zcs_follow *f, const struct zcs_dgram *dg)
{
	memcpy(f->salt, dg->salt, sizeof(f->salt));
	f->have_run = true;
	f->meta_seq = dg->meta_seq;
	f->have_newest = true;
	f->newest = (struct zcs_run_seen){ .run = dg->run, .stream_id = id_of(dg),
					   .meta_seq = dg->meta_seq };
	memcpy(f->newest.salt, dg->salt, sizeof(f->newest.salt));
}

/* --- a run awaiting the board (opt.check) --- */

static void copy_from(struct sockaddr_storage *to, const struct sockaddr *from)
{
	if (from->sa_family == AF_INET)
		memcpy(to, from, sizeof(struct sockaddr_in));
	else if (from->sa_family == AF_INET6)
		memcpy(to, from, sizeof(struct sockaddr_in6));
}

/* The run of metadata dg awaits the board from now on (it replaces any that did). */
static void pend_start(struct zcs_follow *f, const struct zcs_dgram *dg, const struct sockaddr *from,
		       uint64_t now)
{
	f->pend = true;
	f->pend_gen++;
	f->pend_claim = (struct zcs_run_claim){ .run = dg->run, .stream_id = id_of(dg),
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

/* The run awaiting the board is followed from now on: its newest metadata and what came of its
 * samples meanwhile become the stream's. */
static void take_pending(struct zcs_follow *f, uint64_t now)
{
	const struct zcs_run_claim *c = &f->pend_claim;

	follow(f, c->stream_id, (const struct sockaddr *)&f->pend_from, now);
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

/* The board's answer on the run awaiting it, at dg (of that run, already noted); stale: dg is
 * metadata of it numbered before its newest, a replay within the replay, taken for nothing. */
static enum zcs_follow_sel pend_judge(struct zcs_follow *f, const struct zcs_dgram *dg,
				      bool stale, uint64_t now)
{
	const enum zcs_run_verdict v = f->opt.check.judge(f->opt.check.ctx, &f->pend_claim, now);

	if (v == ZCS_RUN_NOT_LIVE) {
		f->pend = false;
		if (dg->type != ZCS_DGRAM_META) {
			f->st.foreign++;
			return ZCS_FOLLOW_FOREIGN;
		}
		replayed(f, ZCS_REPLAY_NOT_LIVE);
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
		replayed(f, ZCS_REPLAY_META_SEQ);
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
		take_pending(f, now);
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

/* A datagram of the run awaiting the board: judged again at each, so the answer is acted on as
 * soon as one comes (the judge only reads it). */
static enum zcs_follow_sel select_pending(struct zcs_follow *f, const struct zcs_dgram *dg,
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
	return pend_judge(f, dg, stale, now);
}

bool zcs_follow_held_meta(struct zcs_follow *f, struct zcs_meta *m)
{
	if (!f->meta_held)
		return false;
	f->meta_held = false;
	*m = f->pend_meta;
	return true;
}

/* Stream choice of a keyed receiver: the datagram is authentic, but may be a replay.  A new run
 * is followed only on its metadata, when run_acceptable(); it replaces the one followed at once
 * (it is that sender restarted).  With a liveness check (opt.check) it first awaits the board's
 * word that it is live: a receiver that has no record of the run (started afresh, or the run
 * recorded after it last ran) cannot tell a replay from the live run by itself. */
static enum zcs_follow_sel select_keyed(struct zcs_follow *f, const struct zcs_dgram *dg,
					const struct sockaddr *from, uint64_t now)
{
	const uint32_t id = id_of(dg);
	const bool same = f->locked && id == f->stream_id && f->have_run &&
			  memcmp(dg->salt, f->salt, sizeof(f->salt)) == 0;

	if (same) {
		if (dg->type != ZCS_DGRAM_META)
			return ZCS_FOLLOW_TAKE;
		/* an earlier metadata datagram of this very run would set old settings again */
		if (!zcs_seq_after(dg->meta_seq, f->meta_seq)) {
			replayed(f, ZCS_REPLAY_META_SEQ);
			return ZCS_FOLLOW_REPLAYED;
		}
		f->meta_seq = dg->meta_seq;
		f->newest.meta_seq = dg->meta_seq;
		return ZCS_FOLLOW_TAKE;
	}
	if (f->pend && id == f->pend_claim.stream_id &&
	    memcmp(dg->salt, f->pend_salt, sizeof(f->pend_salt)) == 0)
		return select_pending(f, dg, from, now);
	if (dg->type != ZCS_DGRAM_META) {
		f->st.foreign++;
		return ZCS_FOLLOW_FOREIGN;
	}
	if (!run_acceptable(f, dg))
		return ZCS_FOLLOW_REPLAYED;
	if (f->opt.check.judge) {
		/* an earlier run than the one awaiting the board: if that one is live this one is
		 * not, and it is judged once that one is answered or has fallen silent.  So a flood
		 * of replays never takes the live run's place (its number is the board's newest) */
		if (f->pend && !(dg->run > f->pend_claim.run) && now - f->pend_last_ns < SILENCE_NS) {
			f->st.unconfirmed++;
			return ZCS_FOLLOW_HELD;
		}
		pend_start(f, dg, from, now);
		f->pend_last_ns = now;
		f->pend_claim.from = (const struct sockaddr *)&f->pend_from;
		return pend_judge(f, dg, false, now);
	}
	if (f->locked) {
		f->switch_eos = false;
		f->switch_why = f->ended ? "ended" : "replaced";
		f->switch_what = " (a later run)";
		return ZCS_FOLLOW_SWITCH;
	}
	follow(f, id, from, now);
	take_run(f, dg);
	return ZCS_FOLLOW_TAKE;
}

enum zcs_follow_sel zcs_follow_select(struct zcs_follow *f, const struct zcs_dgram *dg,
				      const struct sockaddr *from, uint64_t now)
{
	enum zcs_follow_sel sel;

	if (f->opt.have_stream && id_of(dg) != f->opt.stream_id) {
		f->st.foreign++;
		return ZCS_FOLLOW_FOREIGN;
	}
	sel = f->opt.keyed ? select_keyed(f, dg, from, now) : select_unkeyed(f, dg, from, now);
	if (sel == ZCS_FOLLOW_TAKE)
		f->last_rx_ns = now;
	return sel;
}

void zcs_follow_switch(struct zcs_follow *f, const struct zcs_dgram *dg, const struct sockaddr *from,
		       uint64_t now)
{
	f->st.restarts++;
	zcs_log(&f->opt.log, "sender restart: stream 0x%08" PRIx32 " %s, stream 0x%08" PRIx32
		"%s begins", f->stream_id, f->switch_why,
		f->pend_go ? f->pend_claim.stream_id : id_of(dg), f->switch_what);
	if (f->pend_go) {
		take_pending(f, now);
		return;
	}
	follow(f, id_of(dg), from, now);
	if (f->opt.keyed)
		take_run(f, dg);
}

bool zcs_follow_eos_delivered(struct zcs_follow *f, uint64_t seq)
{
	if (f->ended || f->eos_pending)
		return false;
	f->eos_pending = true;
	f->eos_seq = seq;
	return true;
}

void zcs_follow_end(struct zcs_follow *f)
{
	f->eos_pending = false;
	f->ended = true;
	f->st.eos++;
	zcs_log(&f->opt.log, "stream 0x%08" PRIx32 ": end of stream", f->stream_id);
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

uint64_t zcs_follow_start(struct zcs_follow *f, const struct zcs_sample_hdr *h, size_t window,
			  uint64_t *skip_to)
{
	/* the metadata names the stream's next number: start there when this datagram is within a
	 * window of it, so datagrams reordered or lost at the start count */
	const int64_t d = zcs_seq_diff(h->seq, f->meta.next_seq);
	uint64_t start = (d >= 0 && (uint64_t)d < window) ? f->meta.next_seq : h->seq;
	/* the stream's start (its datagram 0) came before its metadata: those datagrams were sent
	 * to us and could not be used, so they are lost like any other, at once (they will not
	 * come again), and zero-filled from sample 0.  Only datagram 0 itself tells: a receiver
	 * that joined a few datagrams late must not zero-fill what it never had.  Up to h at
	 * most: one dropped after h (reordered, or a run awaiting the board whose hold gave up
	 * its oldest) is lost when the window passes it */
	const bool start_lost = f->have_pre_meta && f->pre_meta_low == 0;

	*skip_to = 0;
	if (start_lost) {
		start = 0;
		*skip_to = zcs_seq_after(f->pre_meta_high + 1, h->seq) ? h->seq : f->pre_meta_high + 1;
	} else if (f->taken_seen && zcs_seq_before(f->taken_low, start) &&
		   !zcs_seq_after(f->taken_low, h->seq) &&
		   (uint64_t)zcs_seq_diff(h->seq, f->taken_low) < window) {
		/* a run kept while the board was asked is delivered in the order it came: its
		 * lowest number, not its first to arrive, is where it starts (within a window,
		 * as the metadata's next number is) */
		start = f->taken_low;
	} else if (f->have_pre_meta && zcs_seq_after(f->pre_meta_high + 1, start) &&
		   !zcs_seq_after(f->pre_meta_high + 1, h->seq)) {
		/* joined mid-stream: what came before the metadata was seen, not lost */
		start = f->pre_meta_high + 1;
	}
	if (start != 0) {
		/* a sender numbers its datagrams from 0: this stream began before we came */
		f->st.late_joins++;
		zcs_log(&f->opt.log, "stream 0x%08" PRIx32 ": joined late, at datagram %" PRIu64
			" (%" PRIu64 " samples before its metadata discarded, not counted lost)",
			f->stream_id, f->have_pre_meta ? f->pre_meta_low : start,
			f->st.pre_meta_samples);
	}
	f->need_start = false;
	return start;
}

/* Whether sample datagram h continues the stream from datagram seq, whose samples end at `end`:
 * its sample index follows (a lost datagram held at most 65535 pairs; a discontinuity at most
 * ZCS_GAPFILL_MAX_SOURCE_GAP) and no more zeros lie before it than real time could have lost
 * since since_ns (zcs_gapfill_within).  The usual case, the very next datagram, costs two
 * compares. */
static bool continues(const struct zcs_follow *f, const struct zcs_sample_hdr *h, uint64_t seq,
		      uint64_t end, uint64_t since_ns, uint64_t now)
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
	return zcs_gapfill_within(f->gf, end, h->first_sample, now - since_ns, now);
}

/* Whether h may be put into the window at the current position: it continues from the newest
 * datagram taken, repeats it, or lies before its samples (a straggler or a duplicate). */
static bool believable(const struct zcs_follow *f, const struct zcs_sample_hdr *h, uint64_t now)
{
	int64_t k;

	if (!f->have_anchor)
		return true;
	if (continues(f, h, f->anchor_seq, f->anchor_end, f->live_ns, now))
		return true;
	k = zcs_seq_diff(h->seq, f->anchor_seq);
	/* the newest again (a duplicate), or one from before it */
	if (k == 0)
		return true;
	return k < 0 && !zcs_seq_after(h->first_sample + h->samples, f->anchor_first);
}

static bool jump_plausible(const struct zcs_follow *f, const struct zcs_sample_hdr *h, uint64_t now,
			   uint64_t look_ns);

bool zcs_follow_claims_jump(const struct zcs_follow *f, const struct zcs_sample_hdr *h,
			    uint64_t now, uint64_t look_ns)
{
	if (!believable(f, h, now))
		return true;
	/* it follows from the current position: the live stream's.  A jump awaiting confirmation
	 * takes it only when that jump is plausible now, and then explains it better (the rest of
	 * a source discontinuity, say).  Never otherwise: a live stream that merely "continues" a
	 * forged number far behind it must not be drawn away from its own position */
	return f->cand && continues(f, h, f->cand_last, f->cand_end, 0, now) &&
	       jump_plausible(f, h, now, look_ns);
}

uint32_t zcs_follow_taken(struct zcs_follow *f, const struct zcs_sample_hdr *h, uint64_t now)
{
	uint32_t drop = ZCS_FOLLOW_NONE;

	f->live_ns = now;
	if (!f->have_anchor || zcs_seq_after(h->seq, f->anchor_seq)) {
		f->have_anchor = true;
		f->anchor_seq = h->seq;
		f->anchor_first = h->first_sample;
		f->anchor_end = h->first_sample + h->samples;
		/* the live stream went on: the jump claimed meanwhile was not its own (a straggler
		 * reordered from before it proves nothing: it is not dropped for one) */
		drop = zcs_follow_drop_cand(f);
	}
	if (f->eos_pending && zcs_seq_after(h->seq, f->eos_seq)) {
		f->eos_pending = false;
		f->st.unconfirmed++;
		zcs_log(&f->opt.log, "stream 0x%08" PRIx32 ": an end of stream at datagram %" PRIu64
			" was followed by more of the stream: not believed", f->stream_id, f->eos_seq);
	}
	return drop;
}

void zcs_follow_moved(struct zcs_follow *f)
{
	f->have_anchor = false;
}

/* Whether the jump awaiting confirmation may be believed now that datagram h continued it: the
 * current position fell silent (quiet_ns, proven by an empty socket at look_ns), or the jump
 * moves forward as a loss would, with no more zeros than real time allows (continues()), or it
 * lies within the window and h continues it exactly. */
static bool jump_plausible(const struct zcs_follow *f, const struct zcs_sample_hdr *h, uint64_t now,
			   uint64_t look_ns)
{
	const struct zcs_sample_hdr *c = &f->cand_hdr;
	const int64_t ahead = zcs_seq_diff(c->seq, f->ro->next);

	/* silence proven: nothing of the old position came between its newest datagram and the
	 * last look that found the socket empty (a receiver descheduled meanwhile proves none) */
	if (look_ns > f->live_ns && look_ns - f->live_ns >= f->quiet_ns)
		return true;
	/* backwards, or a resync: only the silence above makes those plausible */
	if (!f->have_anchor || ahead < 0 ||
	    ((uint64_t)ahead >= f->ro->window &&
	     (uint64_t)ahead - f->ro->window >= f->ro->resync_dist))
		return false;
	/* where the window expects the stream, and continued exactly by the next number: the
	 * stream's own sequence, which contradicts only the sample index of the datagram taken
	 * before it (a forged one that claimed fewer samples than the real one it displaced, say).
	 * The gap filler bounds and counts what that difference is worth */
	if ((uint64_t)ahead < f->ro->window && zcs_seq_diff(h->seq, f->cand_last) == 1 &&
	    h->first_sample == f->cand_end)
		return true;
	return continues(f, c, f->anchor_seq, f->anchor_end, f->live_ns, now);
}

/* A jump is a number far beyond the window or a resync (reorder.h, ZCS_REORDER_JUMP), or a
 * sample index that does not follow (believable).  It is believed only when a later datagram
 * continues from it while the jump is plausible; until then its first datagram is held, and the
 * others are dropped (counted unconfirmed, and lost like any datagram never delivered once the
 * jump is believed).  The live stream going on drops it (zcs_follow_taken). */
enum zcs_follow_jump zcs_follow_jump(struct zcs_follow *f, uint32_t handle,
				     const struct zcs_sample_hdr *h, uint64_t now, uint64_t look_ns,
				     uint32_t *drop)
{
	*drop = ZCS_FOLLOW_NONE;
	/* keyed: the datagram is authentic, and a run's numbers only grow.  Behind the window it
	 * is a replay, never a jump (a sender that restarts begins another run); ahead of it, only
	 * the sender can have sent it (a replay comes from the past), so it is believed as it
	 * comes: after a long loss, the stream's last datagram needs nothing to continue it */
	if (f->opt.keyed) {
		if (zcs_seq_before(h->seq, f->ro->next)) {
			replayed(f, ZCS_REPLAY_BEHIND);
			return ZCS_FOLLOW_JUMP_DROP;
		}
		return ZCS_FOLLOW_JUMP_TAKEN;
	}
	if (f->cand && continues(f, h, f->cand_last, f->cand_end, 0, now)) {
		if (jump_plausible(f, h, now, look_ns)) {
			zcs_log(&f->opt.log, "stream 0x%08" PRIx32 ": jumped from datagram %" PRIu64
				" (sample %" PRIu64 ") to %" PRIu64 " (sample %" PRIu64 "), confirmed by "
				"the stream", f->stream_id, f->ro->next, f->gf->pos, f->cand_hdr.seq,
				f->cand_hdr.first_sample);
			f->cand = false;
			*drop = f->cand_handle;
			return ZCS_FOLLOW_JUMP_BELIEVED;
		}
		/* continued, not yet plausible: the jump stands, this datagram is dropped */
		f->st.unconfirmed++;
		f->cand_last = h->seq;
		f->cand_end = h->first_sample + h->samples;
		return ZCS_FOLLOW_JUMP_DROP;
	}
	/* a jump elsewhere replaces the one held (a forger cannot pin one to block a real one) */
	*drop = zcs_follow_drop_cand(f);
	f->cand = true;
	f->cand_handle = handle;
	f->cand_hdr = *h;
	f->cand_last = h->seq;
	f->cand_end = h->first_sample + h->samples;
	return ZCS_FOLLOW_JUMP_HELD;
}

bool zcs_follow_newest(const struct zcs_follow *f, struct zcs_run_seen *out)
{
	if (!f->have_newest)
		return false;
	*out = f->newest;
	return true;
}

bool zcs_follow_wants_sender(const struct zcs_follow *f, uint64_t now)
{
	/* a third: select judges the silence at the batch's time, after the read; asking from a
	 * third on leaves a second for the read to have been late by */
	return !f->locked || f->ended || f->pend || now - f->last_rx_ns >= SILENCE_NS / 3;
}
