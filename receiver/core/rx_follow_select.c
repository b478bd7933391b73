// SPDX-License-Identifier: MIT
/* Stream following (see rx_follow.h): which stream is followed, keyed runs judged fresh, and the
 * switch to a new one.  The unit's other files (rx_follow_parts.h) keep a run awaiting the board,
 * the stream's record, its metadata and the trust rules for what its sample datagrams claim.
 * Decisions only: every buffer, the window and the outputs are the engine's (rx_dgram.c). */
#include <inttypes.h>
#include <string.h>

#include "rx_follow_parts.h"
#include "seq.h"

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

/* Stream choice of an unkeyed receiver. */
static enum zcs_follow_sel select_unkeyed(struct zcs_follow *f, const struct zcs_dgram *dg,
					  const struct sockaddr *from, uint64_t now)
{
	const uint32_t id = zcs_follow_id(dg);

	if (!f->locked) {
		zcs_follow_begin(f, id, from, now);
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
		zcs_follow_begin(f, id, from, now);
		return ZCS_FOLLOW_TAKE;
	}
	f->switch_eos = zcs_follow_eos_believed(f, now);
	if (f->ended || f->switch_eos || now - f->last_rx_ns > ZCS_FOLLOW_SILENCE_NS) {
		f->switch_why = f->ended || f->switch_eos ? "ended" : "went silent";
		f->switch_what = "";
		return ZCS_FOLLOW_SWITCH;
	}
	f->st.foreign++;
	return ZCS_FOLLOW_FOREIGN;
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
	if (zcs_run_is_fresh(f->have_newest ? &f->newest : NULL, dg->run, zcs_follow_id(dg), dg->salt,
			     dg->meta_seq))
		return true;
	zcs_follow_replayed(f, ZCS_REPLAY_OLD_RUN);
	if (!f->said_replay) {
		f->said_replay = true;
		zcs_log(&f->opt.log, "stream 0x%08" PRIx32 " is authentic but its run %" PRIu64
			" is not after run %" PRIu64 ", the newest this receiver followed: refused "
			"as a replay of an earlier run; counted as replayed (a sender that lost its "
			"run counter must be given one above %" PRIu64 ": docs/security.md)",
			zcs_follow_id(dg), dg->run, f->newest.run, f->newest.run);
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
	f->newest = (struct zcs_run_seen){ .run = dg->run, .stream_id = zcs_follow_id(dg),
					   .meta_seq = dg->meta_seq };
	memcpy(f->newest.salt, dg->salt, sizeof(f->newest.salt));
}

/* Stream choice of a keyed receiver: the datagram is authentic, but may be a replay.  A new run
 * is followed only on its metadata, when run_acceptable(); it replaces the one followed at once
 * (it is that sender restarted).  With a liveness check (opt.check) it first awaits the board's
 * word that it is live: a receiver that has no record of the run (started afresh, or the run
 * recorded after it last ran) cannot tell a replay from the live run by itself. */
static enum zcs_follow_sel select_keyed(struct zcs_follow *f, const struct zcs_dgram *dg,
					const struct sockaddr *from, uint64_t now)
{
	const uint32_t id = zcs_follow_id(dg);
	const bool same = f->locked && id == f->stream_id && f->have_run &&
			  memcmp(dg->salt, f->salt, sizeof(f->salt)) == 0;

	if (same) {
		if (dg->type != ZCS_DGRAM_META)
			return ZCS_FOLLOW_TAKE;
		/* an earlier metadata datagram of this very run would set old settings again */
		if (!zcs_seq_after(dg->meta_seq, f->meta_seq)) {
			zcs_follow_replayed(f, ZCS_REPLAY_META_SEQ);
			return ZCS_FOLLOW_REPLAYED;
		}
		f->meta_seq = dg->meta_seq;
		f->newest.meta_seq = dg->meta_seq;
		return ZCS_FOLLOW_TAKE;
	}
	if (f->pend && id == f->pend_claim.stream_id &&
	    memcmp(dg->salt, f->pend_salt, sizeof(f->pend_salt)) == 0)
		return zcs_follow_select_pending(f, dg, from, now);
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
		if (f->pend && !(dg->run > f->pend_claim.run) && now - f->pend_last_ns < ZCS_FOLLOW_SILENCE_NS) {
			f->st.unconfirmed++;
			return ZCS_FOLLOW_HELD;
		}
		zcs_follow_pend_begin(f, dg, from, now);
		f->pend_last_ns = now;
		f->pend_claim.from = (const struct sockaddr *)&f->pend_from;
		return zcs_follow_pend_judge(f, dg, false, now);
	}
	if (f->locked) {
		f->switch_eos = false;
		f->switch_why = f->ended ? "ended" : "replaced";
		f->switch_what = " (a later run)";
		return ZCS_FOLLOW_SWITCH;
	}
	zcs_follow_begin(f, id, from, now);
	take_run(f, dg);
	return ZCS_FOLLOW_TAKE;
}

enum zcs_follow_sel zcs_follow_select(struct zcs_follow *f, const struct zcs_dgram *dg,
				      const struct sockaddr *from, uint64_t now)
{
	enum zcs_follow_sel sel;

	if (f->opt.have_stream && zcs_follow_id(dg) != f->opt.stream_id) {
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
		f->pend_go ? f->pend_claim.stream_id : zcs_follow_id(dg), f->switch_what);
	if (f->pend_go) {
		zcs_follow_take_pending(f, now);
		return;
	}
	zcs_follow_begin(f, zcs_follow_id(dg), from, now);
	if (f->opt.keyed)
		take_run(f, dg);
}
