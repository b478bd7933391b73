// SPDX-License-Identifier: MIT
/* Unit tests of the stream-following unit alone (receiver/core/rx_follow.h), with a window and a
 * gap filler of the test's own and no socket: which stream is followed and when another replaces
 * it (silence, a believed end, a later keyed run; an earlier one refused), which metadata is
 * believed, where the window starts, and the trust rules for jumps and ends of stream. */
#include <check.h>
#include <netinet/in.h>
#include <string.h>

#include "gapfill.h"
#include "proto.h"
#include "reorder.h"
#include "rx_follow.h"

#define MS (1000ULL * 1000)
#define SPD 100
#define RATE 1000000ULL

static struct zcs_follow F;
static struct zcs_reorder R;
static struct zcs_gapfill G;
static const struct sockaddr_in FROM = { .sin_family = AF_INET };

static void open_follow(bool keyed, bool have_stream, uint32_t stream)
{
	const struct zcs_follow_opts o = {
		.keyed = keyed, .have_stream = have_stream, .stream_id = stream,
	};

	ck_assert_int_eq(zcs_reorder_init(&R, 64, 0), 0);
	memset(&G, 0, sizeof(G));
	zcs_follow_init(&F, &o, &R, &G);
}

static void close_follow(void)
{
	zcs_reorder_free(&R);
}

static struct zcs_dgram meta_dg(uint32_t id, uint64_t rate)
{
	struct zcs_dgram d = { .type = ZCS_DGRAM_META };

	d.meta.stream_id = id;
	d.meta.sample_rate = rate;
	d.meta.format = ZCS_WIRE_I16;
	d.meta.samples_per_dgram = SPD;
	return d;
}

static struct zcs_dgram sample_dg(uint32_t id, uint64_t seq)
{
	struct zcs_dgram d = { .type = ZCS_DGRAM_SAMPLES };

	d.hdr.stream_id = id;
	d.hdr.seq = seq;
	d.hdr.first_sample = seq * SPD;
	d.hdr.samples = SPD;
	d.hdr.format = ZCS_WIRE_I16;
	return d;
}

static enum zcs_follow_sel sel(const struct zcs_dgram *d, uint64_t now)
{
	return zcs_follow_select(&F, d, (const struct sockaddr *)&FROM, now);
}

/* The stream id followed, its metadata applied and its window placed at datagram 0, as the
 * engine does for the stream's first datagrams. */
static void start_stream(uint32_t id, uint64_t now)
{
	struct zcs_dgram m = meta_dg(id, RATE), s = sample_dg(id, 0);
	struct zcs_meta eff;
	uint64_t skip;

	ck_assert_int_eq(sel(&m, now), ZCS_FOLLOW_TAKE);
	ck_assert_int_eq(zcs_follow_meta(&F, &m.meta, now, &eff), 1);
	ck_assert_int_eq(sel(&s, now), ZCS_FOLLOW_TAKE);
	ck_assert_uint_eq(zcs_follow_start(&F, &s.hdr, 64, &skip), 0);
	zcs_reorder_reset(&R, 0, 64);
	zcs_gapfill_bound(&G, RATE, 64 * SPD);
}

/* Sample datagram seq taken at the current position at now, as the window would. */
static void take(uint64_t seq, uint64_t now)
{
	struct zcs_dgram s = sample_dg(0xa, seq);

	ck_assert(!zcs_follow_claims_jump(&F, &s.hdr, now, now));
	ck_assert(zcs_reorder_take(&R, seq));
	ck_assert_uint_eq(zcs_follow_taken(&F, &s.hdr, now), ZCS_FOLLOW_NONE);
}

START_TEST(first_stream_then_foreign)
{
	struct zcs_dgram b = meta_dg(0xb, RATE);

	open_follow(false, false, 0);
	start_stream(0xa, 1000 * MS);
	ck_assert_int_eq(sel(&b, 1001 * MS), ZCS_FOLLOW_FOREIGN);
	ck_assert_uint_eq(F.st.foreign, 1);
	ck_assert_uint_eq(F.stream_id, 0xa);
	/* after 1.5 s of silence the other is its sender restarting: a switch, the old one not
	 * believed ended (no end of stream came) */
	ck_assert_int_eq(sel(&b, 2600 * MS), ZCS_FOLLOW_SWITCH);
	ck_assert(!F.switch_eos);
	zcs_follow_switch(&F, &b, (const struct sockaddr *)&FROM, 2600 * MS);
	ck_assert_uint_eq(F.stream_id, 0xb);
	ck_assert_uint_eq(F.st.restarts, 1);
	ck_assert_uint_eq(F.st.streams, 2);
	ck_assert(F.need_start && !F.have_meta);
	close_follow();
}
END_TEST

START_TEST(stream_option_and_lone_first)
{
	struct zcs_dgram a = sample_dg(0xa, 0), c = meta_dg(0xc, RATE);

	open_follow(false, true, 0xc);
	ck_assert_int_eq(sel(&a, 0), ZCS_FOLLOW_FOREIGN);
	ck_assert(!F.locked);
	close_follow();
	/* a lone datagram sent first is followed until another stream's metadata shows itself */
	open_follow(false, false, 0);
	ck_assert_int_eq(sel(&a, 0), ZCS_FOLLOW_TAKE);
	ck_assert_int_eq(sel(&c, 1), ZCS_FOLLOW_TAKE);
	ck_assert_uint_eq(F.stream_id, 0xc);
	ck_assert_uint_eq(F.st.streams, 1);
	close_follow();
}
END_TEST

START_TEST(believed_end_switches)
{
	struct zcs_dgram b = meta_dg(0xb, RATE);

	open_follow(false, false, 0);
	start_stream(0xa, 1000 * MS);
	take(0, 1000 * MS);
	ck_assert(zcs_follow_eos_delivered(&F, 0));
	ck_assert(!zcs_follow_eos_delivered(&F, 0)); /* pending already */
	ck_assert(!zcs_follow_eos_believed(&F, 1050 * MS));
	ck_assert_int_eq(sel(&b, 1050 * MS), ZCS_FOLLOW_FOREIGN);
	/* silent for quiet_ns (100 ms) after it: believed, and the switch says so */
	ck_assert(zcs_follow_eos_believed(&F, 1100 * MS));
	ck_assert_int_eq(sel(&b, 1100 * MS), ZCS_FOLLOW_SWITCH);
	ck_assert(F.switch_eos);
	ck_assert_str_eq(F.switch_why, "ended");
	close_follow();
}
END_TEST

START_TEST(end_contradicted_by_stream)
{
	open_follow(false, false, 0);
	start_stream(0xa, 1000 * MS);
	take(0, 1000 * MS);
	ck_assert(zcs_follow_eos_delivered(&F, 0));
	take(1, 1001 * MS);
	ck_assert(!F.eos_pending);
	ck_assert_uint_eq(F.st.unconfirmed, 1);
	close_follow();
}
END_TEST

START_TEST(keyed_runs)
{
	struct zcs_dgram m = meta_dg(0xa, RATE), later = meta_dg(0xb, RATE), old = meta_dg(0xc, RATE);
	struct zcs_dgram s = sample_dg(0xd, 0);

	open_follow(true, false, 0);
	m.keyed = later.keyed = old.keyed = true;
	memset(m.salt, 1, sizeof(m.salt));
	memset(later.salt, 2, sizeof(later.salt));
	memset(old.salt, 3, sizeof(old.salt));
	/* runs are ordered by their number, never by the sender's clock: the later run comes from
	 * a board rebooted at 1970, the earlier one was recorded while its clock was set */
	m.run = 5;
	m.run_start_ns = 5000;
	m.meta_seq = 10;
	later.run = 6;
	later.run_start_ns = 10;
	old.run = 4;
	old.run_start_ns = 9000;
	ck_assert_int_eq(sel(&m, 0), ZCS_FOLLOW_TAKE);
	/* an older metadata number of the same run: a replay */
	m.meta_seq = 9;
	ck_assert_int_eq(sel(&m, 1), ZCS_FOLLOW_REPLAYED);
	/* a sample datagram of a run not followed: foreign; an earlier run: replayed */
	ck_assert_int_eq(sel(&s, 2), ZCS_FOLLOW_FOREIGN);
	ck_assert_int_eq(sel(&old, 3), ZCS_FOLLOW_REPLAYED);
	ck_assert_uint_eq(F.st.replayed, 2);
	ck_assert_uint_eq(F.st.replayed_by[ZCS_REPLAY_META_SEQ], 1);
	ck_assert_uint_eq(F.st.replayed_by[ZCS_REPLAY_OLD_RUN], 1);
	/* a later run replaces it at once */
	ck_assert_int_eq(sel(&later, 4), ZCS_FOLLOW_SWITCH);
	ck_assert_str_eq(F.switch_why, "replaced");
	zcs_follow_switch(&F, &later, (const struct sockaddr *)&FROM, 4);
	ck_assert_uint_eq(F.stream_id, 0xb);
	ck_assert_uint_eq(F.newest.run, 6);
	/* and the first run is now an earlier one */
	m.meta_seq = 11;
	ck_assert_int_eq(sel(&m, 5), ZCS_FOLLOW_REPLAYED);
	ck_assert_uint_eq(F.st.replayed_by[ZCS_REPLAY_OLD_RUN], 2);
	close_follow();
}
END_TEST

/* A receiver started with the newest run it followed before (its run state): an earlier run, or
 * the newest run's part it has seen, is refused at once; the newest run going on and any later
 * run are followed; what it would keep next time follows the run. */
START_TEST(keyed_run_seen_before)
{
	struct zcs_run_seen seen = { .run = 5, .stream_id = 0xa, .meta_seq = 10 }, now;
	struct zcs_dgram m = meta_dg(0xa, RATE), other = meta_dg(0xe, RATE), old = meta_dg(0xc, RATE);
	struct zcs_dgram later = meta_dg(0xb, RATE);
	const struct zcs_follow_opts o = { .keyed = true, .run_seen = &seen };

	memset(seen.salt, 1, sizeof(seen.salt));
	ck_assert_int_eq(zcs_reorder_init(&R, 64, 0), 0);
	memset(&G, 0, sizeof(G));
	zcs_follow_init(&F, &o, &R, &G);
	seen.run = 99;                 /* copied at init */
	m.keyed = other.keyed = old.keyed = later.keyed = true;
	memset(m.salt, 1, sizeof(m.salt));
	memset(other.salt, 1, sizeof(other.salt));
	memset(old.salt, 3, sizeof(old.salt));
	memset(later.salt, 2, sizeof(later.salt));
	m.run = other.run = 5;
	old.run = 4;
	later.run = 6;
	ck_assert(zcs_follow_newest(&F, &now));
	ck_assert_uint_eq(now.run, 5);
	/* the part of run 5 already seen, another run under number 5, run 4: replays */
	m.meta_seq = other.meta_seq = 10;
	old.meta_seq = 1000;
	ck_assert_int_eq(sel(&m, 0), ZCS_FOLLOW_REPLAYED);
	ck_assert_int_eq(sel(&other, 1), ZCS_FOLLOW_REPLAYED);
	ck_assert_int_eq(sel(&old, 2), ZCS_FOLLOW_REPLAYED);
	ck_assert_uint_eq(F.st.replayed_by[ZCS_REPLAY_OLD_RUN], 3);
	ck_assert(!F.locked);
	/* run 5 going on: followed, and kept with its newest metadata number */
	m.meta_seq = 11;
	ck_assert_int_eq(sel(&m, 3), ZCS_FOLLOW_TAKE);
	ck_assert(F.locked);
	m.meta_seq = 12;
	ck_assert_int_eq(sel(&m, 4), ZCS_FOLLOW_TAKE);
	ck_assert(zcs_follow_newest(&F, &now));
	ck_assert_uint_eq(now.run, 5);
	ck_assert_uint_eq(now.stream_id, 0xa);
	ck_assert_uint_eq(now.meta_seq, 12);
	/* the board rebooted: run 6 at once */
	ck_assert_int_eq(sel(&later, 5), ZCS_FOLLOW_SWITCH);
	zcs_follow_switch(&F, &later, (const struct sockaddr *)&FROM, 5);
	ck_assert(zcs_follow_newest(&F, &now));
	ck_assert_uint_eq(now.run, 6);
	ck_assert_uint_eq(now.stream_id, 0xb);
	close_follow();
}
END_TEST

START_TEST(unkeyed_change_confirmed)
{
	struct zcs_dgram m = meta_dg(0xa, RATE), fast = meta_dg(0xa, 2 * RATE);
	struct zcs_meta eff;

	open_follow(false, false, 0);
	start_stream(0xa, 0);
	/* announced, contradicted by the old settings again */
	ck_assert_int_eq(zcs_follow_meta(&F, &fast.meta, 10 * MS, &eff), 0);
	ck_assert_int_eq(zcs_follow_meta(&F, &m.meta, 20 * MS, &eff), 0);
	ck_assert_uint_eq(F.st.unconfirmed, 1);
	/* announced for 500 ms unopposed: believed */
	ck_assert_int_eq(zcs_follow_meta(&F, &fast.meta, 100 * MS, &eff), 0);
	ck_assert_int_eq(zcs_follow_meta(&F, &fast.meta, 600 * MS, &eff), 2);
	ck_assert_uint_eq(F.meta.sample_rate, 2 * RATE);
	/* a format change contradicted by a sample datagram of the old format */
	fast.meta.format = ZCS_WIRE_P12;
	ck_assert_int_eq(zcs_follow_meta(&F, &fast.meta, 700 * MS, &eff), 0);
	zcs_follow_sample_format(&F, ZCS_WIRE_I16);
	ck_assert(!F.meta_pending);
	ck_assert_uint_eq(F.st.unconfirmed, 2);
	close_follow();
}
END_TEST

START_TEST(start_after_pre_meta)
{
	struct zcs_dgram m = meta_dg(0xa, RATE), s0 = sample_dg(0xa, 0), s1 = sample_dg(0xa, 1);
	struct zcs_dgram s2 = sample_dg(0xa, 2);
	struct zcs_meta eff;
	uint64_t skip;

	open_follow(false, false, 0);
	ck_assert_int_eq(sel(&s0, 0), ZCS_FOLLOW_TAKE);
	ck_assert(zcs_follow_pre_meta(&F, &s0.hdr));
	ck_assert(zcs_follow_pre_meta(&F, &s1.hdr));
	m.meta.next_seq = 2;
	ck_assert_int_eq(sel(&m, 1), ZCS_FOLLOW_TAKE);
	ck_assert_int_eq(zcs_follow_meta(&F, &m.meta, 1, &eff), 1);
	ck_assert(!zcs_follow_pre_meta(&F, &s2.hdr));
	/* the stream's datagram 0 came before its metadata: lost from 0 up to 2 */
	ck_assert_uint_eq(zcs_follow_start(&F, &s2.hdr, 64, &skip), 0);
	ck_assert_uint_eq(skip, 2);
	ck_assert_uint_eq(F.st.late_joins, 0);
	ck_assert_uint_eq(F.st.pre_meta_samples, 2 * SPD);
	close_follow();
}
END_TEST

START_TEST(jump_held_then_dropped_by_live_stream)
{
	struct zcs_dgram far = sample_dg(0xa, 100000);
	uint32_t other;

	open_follow(false, false, 0);
	start_stream(0xa, 1000 * MS);
	take(0, 1000 * MS);
	/* far ahead of real time: a claimed jump, held in handle 7 */
	ck_assert(zcs_follow_claims_jump(&F, &far.hdr, 1000 * MS, 1000 * MS));
	ck_assert_int_eq(zcs_follow_jump(&F, 7, &far.hdr, 1000 * MS, 1000 * MS, &other),
			 ZCS_FOLLOW_JUMP_HELD);
	ck_assert_uint_eq(other, ZCS_FOLLOW_NONE);
	/* the live stream goes on: the jump is not believed, its buffer handed back */
	{
		struct zcs_dgram s = sample_dg(0xa, 1);

		ck_assert(!zcs_follow_claims_jump(&F, &s.hdr, 1001 * MS, 1001 * MS));
		ck_assert(zcs_reorder_take(&R, 1));
		ck_assert_uint_eq(zcs_follow_taken(&F, &s.hdr, 1001 * MS), 7);
	}
	ck_assert(!F.cand);
	ck_assert_uint_eq(F.st.unconfirmed, 1);
	close_follow();
}
END_TEST

START_TEST(jump_believed_after_silence)
{
	struct zcs_dgram a = sample_dg(0xa, 100000), b = sample_dg(0xa, 100001);
	uint32_t other;

	open_follow(false, false, 0);
	start_stream(0xa, 1000 * MS);
	take(0, 1000 * MS);
	ck_assert_int_eq(zcs_follow_jump(&F, 7, &a.hdr, 1000 * MS, 1000 * MS, &other),
			 ZCS_FOLLOW_JUMP_HELD);
	/* continued while the old position is live: dropped */
	ck_assert(zcs_follow_claims_jump(&F, &b.hdr, 1001 * MS, 1000 * MS));
	ck_assert_int_eq(zcs_follow_jump(&F, 8, &b.hdr, 1001 * MS, 1000 * MS, &other),
			 ZCS_FOLLOW_JUMP_DROP);
	/* continued after the old position was seen silent for quiet_ns: believed, the held
	 * datagram handed back for the window */
	b = sample_dg(0xa, 100002);
	ck_assert_int_eq(zcs_follow_jump(&F, 8, &b.hdr, 1200 * MS, 1150 * MS, &other),
			 ZCS_FOLLOW_JUMP_BELIEVED);
	ck_assert_uint_eq(other, 7);
	ck_assert(!F.cand);
	ck_assert_uint_eq(F.st.unconfirmed, 1);
	close_follow();
}
END_TEST

START_TEST(live_stream_never_drawn_to_jump_behind)
{
	/* a forged number 2^20 behind, whose sample index the live stream "continues" */
	struct zcs_dgram far = sample_dg(0xa, 1 - (1ULL << 20));
	struct zcs_dgram s = sample_dg(0xa, 1);
	uint32_t other;

	open_follow(false, false, 0);
	start_stream(0xa, 1000 * MS);
	take(0, 1000 * MS);
	far.hdr.first_sample = 0;
	ck_assert(zcs_follow_claims_jump(&F, &far.hdr, 1000 * MS, 1000 * MS));
	ck_assert_int_eq(zcs_follow_jump(&F, 7, &far.hdr, 1000 * MS, 1000 * MS, &other),
			 ZCS_FOLLOW_JUMP_HELD);
	/* the live stream's next datagram continues it, yet goes to the live position (the jump is
	 * not plausible: backwards, the position not silent), and drops it */
	ck_assert(!zcs_follow_claims_jump(&F, &s.hdr, 1001 * MS, 1001 * MS));
	ck_assert(zcs_reorder_take(&R, 1));
	ck_assert_uint_eq(zcs_follow_taken(&F, &s.hdr, 1001 * MS), 7);
	ck_assert_uint_eq(F.st.unconfirmed, 1);
	ck_assert(!F.cand);
	close_follow();
}
END_TEST

START_TEST(keyed_never_jumps_back)
{
	struct zcs_dgram old = sample_dg(0xa, 0);
	uint32_t other;

	open_follow(true, false, 0);
	F.opt.keyed = true;
	{
		struct zcs_dgram m = meta_dg(0xa, RATE);
		struct zcs_meta eff;
		uint64_t skip;
		struct zcs_dgram s = sample_dg(0xa, 1000000);

		m.keyed = true;
		ck_assert_int_eq(sel(&m, 0), ZCS_FOLLOW_TAKE);
		ck_assert_int_eq(zcs_follow_meta(&F, &m.meta, 0, &eff), 1);
		zcs_follow_start(&F, &s.hdr, 64, &skip);
		zcs_reorder_reset(&R, 1000000, 64);
		ck_assert(zcs_reorder_take(&R, 1000000));
		zcs_follow_taken(&F, &s.hdr, 0);
	}
	/* an authentic datagram of the run, far behind: a replay, dropped without being held */
	ck_assert_int_eq(zcs_follow_jump(&F, 7, &old.hdr, 1 * MS, 1 * MS, &other),
			 ZCS_FOLLOW_JUMP_DROP);
	ck_assert(!F.cand);
	ck_assert_uint_eq(F.st.replayed, 1);
	ck_assert_uint_eq(F.st.replayed_by[ZCS_REPLAY_BEHIND], 1);
	close_follow();
}
END_TEST

START_TEST(jump_within_window_continued_exactly)
{
	/* the datagram taken at 1 claimed no samples (a forged end of stream, say); 2 and 3 of the
	 * live stream follow from the real 1: 2 is held as a jump in sample index, 3 continues it
	 * exactly where the window expects it, and the jump is believed at once */
	struct zcs_dgram one = sample_dg(0xa, 1), two = sample_dg(0xa, 2), three = sample_dg(0xa, 3);
	uint32_t other;

	open_follow(false, false, 0);
	start_stream(0xa, 1000 * MS);
	take(0, 1000 * MS);
	one.hdr.samples = 0;
	ck_assert(!zcs_follow_claims_jump(&F, &one.hdr, 1000 * MS, 1000 * MS));
	ck_assert(zcs_reorder_take(&R, 1));
	zcs_follow_taken(&F, &one.hdr, 1000 * MS);
	ck_assert(zcs_follow_claims_jump(&F, &two.hdr, 1000 * MS, 1000 * MS));
	ck_assert_int_eq(zcs_follow_jump(&F, 7, &two.hdr, 1000 * MS, 1000 * MS, &other),
			 ZCS_FOLLOW_JUMP_HELD);
	ck_assert(zcs_follow_claims_jump(&F, &three.hdr, 1000 * MS, 1000 * MS));
	ck_assert_int_eq(zcs_follow_jump(&F, 8, &three.hdr, 1000 * MS, 1000 * MS, &other),
			 ZCS_FOLLOW_JUMP_BELIEVED);
	ck_assert_uint_eq(other, 7);
	close_follow();
}
END_TEST

/* A fake liveness check: answers what the test says, and remembers the claims it was asked. */
static enum zcs_run_verdict VERDICT;
static struct zcs_run_claim LAST_CLAIM;
static unsigned JUDGED;

static enum zcs_run_verdict fake_judge(void *ctx, const struct zcs_run_claim *c, uint64_t now)
{
	(void)ctx;
	(void)now;
	LAST_CLAIM = *c;
	JUDGED++;
	return VERDICT;
}

static void open_checked(void)
{
	const struct zcs_follow_opts o = { .keyed = true, .check = { fake_judge, NULL } };

	ck_assert_int_eq(zcs_reorder_init(&R, 64, 0), 0);
	memset(&G, 0, sizeof(G));
	zcs_follow_init(&F, &o, &R, &G);
	VERDICT = ZCS_RUN_UNKNOWN;
	JUDGED = 0;
}

static struct zcs_dgram keyed_meta(uint32_t id, uint64_t run, uint64_t meta_seq, int salt)
{
	struct zcs_dgram d = meta_dg(id, RATE);

	d.keyed = true;
	d.run = run;
	d.meta_seq = meta_seq;
	memset(d.salt, salt, sizeof(d.salt));
	return d;
}

static struct zcs_dgram keyed_sample(uint32_t id, uint64_t seq, int salt)
{
	struct zcs_dgram d = sample_dg(id, seq);

	d.keyed = true;
	memset(d.salt, salt, sizeof(d.salt));
	return d;
}

/* With a liveness check a new run waits for the board: its metadata is held back and counted,
 * its samples are the engine's to keep (PEND) while no answer is in; once the board says it is
 * live it is followed at the datagram that found the answer, its held metadata given to the
 * engine and the engine told to deliver what it kept (took_pending, with the run's tag).  What
 * the engine could not keep (pend_drop) counts as dropped before metadata: when datagram 0 was
 * among it, the window starts at 0 with what was dropped lost (zero-filled and counted). */
START_TEST(checked_run_waits_then_followed)
{
	struct zcs_dgram m = keyed_meta(0xa, 7, 1, 1), s0 = keyed_sample(0xa, 0, 1);
	struct zcs_dgram s1 = keyed_sample(0xa, 1, 1), s2 = keyed_sample(0xa, 2, 1);
	struct zcs_meta held, eff;
	struct zcs_run_seen now;
	uint64_t skip, gen;

	open_checked();
	ck_assert_int_eq(sel(&m, 10), ZCS_FOLLOW_HELD);
	ck_assert_uint_eq(LAST_CLAIM.run, 7);
	ck_assert_uint_eq(LAST_CLAIM.stream_id, 0xa);
	ck_assert_uint_eq(LAST_CLAIM.since_ns, 10);
	ck_assert_int_eq(LAST_CLAIM.from->sa_family, AF_INET);
	ck_assert(!F.locked && !zcs_follow_newest(&F, &now));
	ck_assert(zcs_follow_wants_sender(&F, 11));
	ck_assert_int_eq(sel(&s0, 11), ZCS_FOLLOW_PEND);
	ck_assert_int_eq(sel(&s1, 12), ZCS_FOLLOW_PEND);
	ck_assert_uint_eq(F.st.unconfirmed, 1);
	ck_assert_uint_eq(F.st.pre_meta, 0);
	ck_assert_uint_eq(JUDGED, 3);
	ck_assert(!zcs_follow_held_meta(&F, &held));
	ck_assert(!zcs_follow_took_pending(&F, &gen));
	/* an engine with no room for them: dropped, and remembered for the run's start */
	zcs_follow_pend_drop(&F, zcs_follow_pend_gen(&F), 0, SPD);
	zcs_follow_pend_drop(&F, zcs_follow_pend_gen(&F), 1, SPD);
	/* ... not so those of a run no longer awaiting (another tag): counted only */
	zcs_follow_pend_drop(&F, zcs_follow_pend_gen(&F) + 1, 40, SPD);
	ck_assert_uint_eq(F.st.pre_meta, 3);
	ck_assert_uint_eq(F.pend_high, 1);
	/* the board's answer is in: followed at the next datagram, its metadata first */
	VERDICT = ZCS_RUN_LIVE;
	ck_assert_int_eq(sel(&s2, 13), ZCS_FOLLOW_TAKE);
	ck_assert(F.locked);
	ck_assert_uint_eq(F.stream_id, 0xa);
	ck_assert(zcs_follow_held_meta(&F, &held));
	ck_assert(!zcs_follow_held_meta(&F, &held));     /* once */
	ck_assert_uint_eq(held.stream_id, 0xa);
	ck_assert(zcs_follow_took_pending(&F, &gen));
	ck_assert_uint_eq(gen, 1);
	ck_assert(!zcs_follow_took_pending(&F, &gen));    /* once */
	ck_assert_int_eq(zcs_follow_meta(&F, &held, 13, &eff), 1);
	ck_assert(!zcs_follow_pre_meta(&F, &s2.hdr));
	ck_assert_uint_eq(zcs_follow_start(&F, &s2.hdr, 64, &skip), 0);
	ck_assert_uint_eq(skip, 2);
	ck_assert(zcs_follow_newest(&F, &now));
	ck_assert_uint_eq(now.run, 7);
	ck_assert_uint_eq(now.meta_seq, 1);
	/* its next metadata is the run's own */
	m.meta_seq = 2;
	ck_assert_int_eq(sel(&m, 14), ZCS_FOLLOW_TAKE);
	ck_assert_uint_eq(F.st.replayed, 0);
	close_follow();
}
END_TEST

/* A run the board says is not live is refused (counted not_live, its samples foreign), and
 * asked about again at its next metadata (the checker answers from what it knows); the live run,
 * a higher number, takes the place of a replay awaiting the answer, while an earlier one never
 * takes the live one's. */
START_TEST(checked_run_denied)
{
	struct zcs_dgram old = keyed_meta(0xc, 3, 5, 3), olds = keyed_sample(0xc, 9, 3);
	struct zcs_dgram live = keyed_meta(0xb, 4, 1, 2), older = keyed_meta(0xd, 2, 1, 4);

	open_checked();
	ck_assert_int_eq(sel(&old, 1), ZCS_FOLLOW_HELD);
	ck_assert_uint_eq(zcs_follow_pend_gen(&F), 1);
	ck_assert(zcs_follow_awaits(&F, 1));
	VERDICT = ZCS_RUN_NOT_LIVE;
	ck_assert_int_eq(sel(&olds, 2), ZCS_FOLLOW_FOREIGN);
	ck_assert(!F.pend);
	ck_assert(!zcs_follow_awaits(&F, 1));       /* what the engine kept of it is given up */
	old.meta_seq = 6;
	ck_assert_int_eq(sel(&old, 3), ZCS_FOLLOW_REPLAYED);
	ck_assert_uint_eq(F.st.replayed_by[ZCS_REPLAY_NOT_LIVE], 1);
	ck_assert_uint_eq(F.st.foreign, 1);
	ck_assert(!F.locked);
	/* a replay awaiting the answer; the live run comes: it takes the place */
	VERDICT = ZCS_RUN_UNKNOWN;
	old.meta_seq = 7;
	ck_assert_int_eq(sel(&old, 4), ZCS_FOLLOW_HELD);
	ck_assert(zcs_follow_awaits(&F, zcs_follow_pend_gen(&F)));
	ck_assert_int_eq(sel(&live, 5), ZCS_FOLLOW_HELD);
	ck_assert_uint_eq(F.pend_claim.run, 4);
	/* another tag: what the engine kept of the replay is given up */
	ck_assert(!zcs_follow_awaits(&F, zcs_follow_pend_gen(&F) - 1));
	/* an earlier run meanwhile waits, unjudged */
	JUDGED = 0;
	ck_assert_int_eq(sel(&older, 6), ZCS_FOLLOW_HELD);
	ck_assert_uint_eq(JUDGED, 0);
	ck_assert_uint_eq(F.pend_claim.run, 4);
	/* the earlier metadata of the run awaiting the answer is a replay, whatever the answer */
	live.meta_seq = 0;
	ck_assert_int_eq(sel(&live, 7), ZCS_FOLLOW_REPLAYED);
	ck_assert_uint_eq(F.st.replayed_by[ZCS_REPLAY_META_SEQ], 1);
	VERDICT = ZCS_RUN_LIVE;
	live.meta_seq = 2;
	ck_assert_int_eq(sel(&live, 8), ZCS_FOLLOW_TAKE);
	ck_assert_uint_eq(F.stream_id, 0xb);
	/* a run awaiting the answer that fell silent gives way to any other */
	close_follow();
	open_checked();
	ck_assert_int_eq(sel(&live, 10), ZCS_FOLLOW_HELD);
	JUDGED = 0;
	ck_assert_int_eq(sel(&older, 11 + 1600 * MS), ZCS_FOLLOW_HELD);
	ck_assert_uint_eq(JUDGED, 1);
	ck_assert_uint_eq(F.pend_claim.run, 2);
	close_follow();
}
END_TEST

/* A board restarted: the run followed is replaced only once the board confirms the next one
 * (a switch then, at the datagram that found the answer); meanwhile the run followed goes on. */
START_TEST(checked_restart_switches)
{
	struct zcs_dgram a = keyed_meta(0xa, 5, 1, 1), as = keyed_sample(0xa, 3, 1);
	struct zcs_dgram b = keyed_meta(0xb, 6, 1, 2), bs = keyed_sample(0xb, 0, 2);
	struct zcs_meta held;
	struct zcs_run_seen now;

	open_checked();
	VERDICT = ZCS_RUN_LIVE;
	ck_assert_int_eq(sel(&a, 1), ZCS_FOLLOW_TAKE);
	ck_assert(!zcs_follow_held_meta(&F, &held));     /* the metadata itself: none held */
	VERDICT = ZCS_RUN_UNKNOWN;
	ck_assert_int_eq(sel(&b, 2), ZCS_FOLLOW_HELD);
	ck_assert_int_eq(sel(&as, 3), ZCS_FOLLOW_TAKE);  /* the run followed goes on */
	ck_assert_uint_eq(F.stream_id, 0xa);
	VERDICT = ZCS_RUN_LIVE;
	ck_assert_int_eq(sel(&bs, 4), ZCS_FOLLOW_SWITCH);
	zcs_follow_switch(&F, &bs, (const struct sockaddr *)&FROM, 4);
	ck_assert_uint_eq(F.stream_id, 0xb);
	ck_assert_uint_eq(F.st.restarts, 1);
	ck_assert(zcs_follow_held_meta(&F, &held));
	ck_assert_uint_eq(held.stream_id, 0xb);
	ck_assert(zcs_follow_newest(&F, &now));
	ck_assert_uint_eq(now.run, 6);
	close_follow();
}
END_TEST

START_TEST(wants_sender)
{
	open_follow(false, false, 0);
	ck_assert(zcs_follow_wants_sender(&F, 0));
	start_stream(0xa, 1000 * MS);
	ck_assert(!zcs_follow_wants_sender(&F, 1000 * MS));
	ck_assert(zcs_follow_wants_sender(&F, 1500 * MS));
	close_follow();
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("rx_follow");
	TCase *t = tcase_create("follow");

	tcase_add_test(t, first_stream_then_foreign);
	tcase_add_test(t, stream_option_and_lone_first);
	tcase_add_test(t, believed_end_switches);
	tcase_add_test(t, end_contradicted_by_stream);
	tcase_add_test(t, keyed_runs);
	tcase_add_test(t, keyed_run_seen_before);
	tcase_add_test(t, unkeyed_change_confirmed);
	tcase_add_test(t, start_after_pre_meta);
	tcase_add_test(t, jump_held_then_dropped_by_live_stream);
	tcase_add_test(t, jump_believed_after_silence);
	tcase_add_test(t, live_stream_never_drawn_to_jump_behind);
	tcase_add_test(t, keyed_never_jumps_back);
	tcase_add_test(t, jump_within_window_continued_exactly);
	tcase_add_test(t, checked_run_waits_then_followed);
	tcase_add_test(t, checked_run_denied);
	tcase_add_test(t, checked_restart_switches);
	tcase_add_test(t, wants_sender);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
