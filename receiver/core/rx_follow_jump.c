// SPDX-License-Identifier: MIT
/* What sample datagrams claim (see rx_follow.h, docs/receiver.md "What is believed when"): where
 * the window starts, whether a datagram follows from the stream's position or claims a jump, and
 * when a jump is believed. */
#include <inttypes.h>

#include "rx_follow_parts.h"
#include "seq.h"

uint32_t zcs_follow_drop_cand(struct zcs_follow *f)
{
	if (!f->cand)
		return ZCS_FOLLOW_NONE;
	f->cand = false;
	f->st.unconfirmed++;
	return f->cand_handle;
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
			zcs_follow_replayed(f, ZCS_REPLAY_BEHIND);
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
