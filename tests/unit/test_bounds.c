// SPDX-License-Identifier: MIT
/* Unit tests of the bounded answer to any datagram (issue 10, part 2): the reorder window's JUMP
 * verdict, the rate bound on zero fill (zcs_gapfill_within), and the receive path's confirmation
 * rules, fed datagram by datagram through zcs_rx_feed with the clock in the test's hand:
 * a jump is believed only when the stream continues it while it is plausible, the live stream
 * going on drops it (counted unconfirmed), a real outage is believed, an end of stream waits for
 * silence, a change of settings for 500 ms unopposed (unkeyed; keyed and verified, at once, from
 * its index), and a lone datagram sent first does not capture the receiver. */
#include <check.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "gapfill.h"
#include "key.h"
#include "output.h"
#include "proto.h"
#include "reorder.h"
#include "rx.h"

#include "../support/sealing.h"

#define MS (1000ULL * 1000)

/* --- the reorder window's JUMP verdict --- */

START_TEST(reorder_jump_changes_nothing)
{
	struct zcs_reorder r;
	struct zcs_reorder_event ev;

	ck_assert_int_eq(zcs_reorder_init(&r, 8, 0), 0);
	zcs_reorder_reset(&r, 0, 8);
	zcs_reorder_set_jump(&r, 8);
	for (uint64_t s = 0; s < 4; s++)
		ck_assert(zcs_reorder_take(&r, s));
	/* within a window beyond the window: a slide, as before */
	ck_assert_int_eq(zcs_reorder_push(&r, 4 + 8 + 7, 19), ZCS_REORDER_ACCEPTED);
	while (zcs_reorder_pop(&r, &ev))
		;
	ck_assert_uint_eq(r.st.lost, 8);
	/* further: a JUMP, and nothing changed or counted */
	{
		const struct zcs_reorder_stats before = r.st;
		const uint64_t next = r.next;

		ck_assert_int_eq(zcs_reorder_push(&r, 1000, 1000), ZCS_REORDER_JUMP);
		ck_assert_int_eq(zcs_reorder_push(&r, next - (1u << 18) - 1 - 10, 7), ZCS_REORDER_JUMP);
		ck_assert(!zcs_reorder_pop(&r, &ev));
		ck_assert_uint_eq(r.next, next);
		ck_assert_mem_eq(&r.st, &before, sizeof(before));
	}
	/* believed: push_jump takes it as push did before */
	ck_assert_int_eq(zcs_reorder_push_jump(&r, 1000, 1000), ZCS_REORDER_ACCEPTED);
	while (zcs_reorder_pop(&r, &ev))
		;
	ck_assert_uint_eq(r.next, 1000 - 8 + 1);
	ck_assert_uint_eq(r.highest, 1000);
	/* without jump_dist (0) nothing is a JUMP */
	zcs_reorder_set_jump(&r, 0);
	ck_assert_int_eq(zcs_reorder_push(&r, 5000, 5000), ZCS_REORDER_ACCEPTED);
	zcs_reorder_free(&r);
}
END_TEST

/* --- the rate bound --- */

START_TEST(gapfill_budget_and_line)
{
	struct zcs_gapfill g;

	memset(&g, 0, sizeof(g));
	/* unbounded without a rate */
	ck_assert(zcs_gapfill_within(&g, 0, UINT64_MAX / 2, 0, 0));
	zcs_gapfill_bound(&g, 1000000, 6400);
	/* the gap's own bound: rate x time since the datagram before it, 1% fast, + slack */
	ck_assert(zcs_gapfill_within(&g, 1000, 1000 + 6400, 0, 0));
	ck_assert(!zcs_gapfill_within(&g, 1000, 1000 + 6401, 0, 0));
	ck_assert(zcs_gapfill_within(&g, 1000, 1000 + 10000000 + 6400, 10000 * MS, 0));
	ck_assert(zcs_gapfill_within(&g, 1000, 1000 + 10100000 + 6400, 10000 * MS, 0));
	ck_assert(!zcs_gapfill_within(&g, 1000, 1000 + 10100000 + 6500, 10000 * MS, 0));
	/* a backward step is no fill */
	ck_assert(zcs_gapfill_within(&g, 1000, 10, 0, 0));
	/* the stream's line: begun at index 0 at time 1 s; at 3 s up to 2 s of the rate, 0.1% fast */
	g.have_line = true;
	g.line_pos = 0;
	g.line_ns = 1000 * MS;
	ck_assert(zcs_gapfill_within(&g, 100, 2002000 + 6400, 0, 3000 * MS));
	ck_assert(!zcs_gapfill_within(&g, 100, 2002000 + 6400 + 2, 0, 3000 * MS));
	/* the 2^32 of a forged discontinuity fits neither */
	ck_assert(!zcs_gapfill_within(&g, 100, 100 + (1ULL << 32), 1 * MS, 3000 * MS));
	/* the budget saturates rather than wrapping */
	ck_assert_uint_eq(zcs_gapfill_budget(UINT64_MAX, UINT64_MAX, 0), UINT64_MAX);
}
END_TEST

/* --- the receive path, datagram by datagram --- */

#define SPD 100
#define RATE 1000000ULL
#define STREAM 0x5eed

struct fix {
	struct zcs_rx *rx;
	struct zcs_outputs *out;
	struct zcs_kernels k;
	uint64_t now;
	/* keyed: the receiver's --key, and the sender's run that seals with it */
	bool keyed;
	struct zcs_key key;
	struct zcs_auth auth;
	/* what the receiver reported as a change (rx_opts.on_change) */
	unsigned int changes;
	uint64_t change_since, change_freq;
	bool change_exact;
};

static struct fix F;

static void on_change(void *ctx, const struct zcs_meta *m, uint64_t since, bool exact)
{
	(void)ctx;
	F.changes++;
	F.change_since = since;
	F.change_freq = m->center_freq;
	F.change_exact = exact;
}

static void open_rx(bool keyed)
{
	struct zcs_rx_opts o = {
		/* never sent to: the datagrams are handed in by put() */
		.listen = "127.0.0.1:22499", .window = 8, .rcvbuf = 1 << 20,
		.max_dgram = 2048, .batch = 4, .no_gro = true, .type = ZCS_SAMPLE_CS16,
		.on_change = on_change,
	};
	char err[256];

	memset(&F, 0, sizeof(F));
	if (keyed) {
		F.keyed = true;
		memset(F.key.bytes, 0x5a, sizeof(F.key.bytes));
		o.key = &F.key;
		ck_assert_msg(zcs_auth_init(&F.auth, &F.key, 1000, err, sizeof(err)) == 0, "%s", err);
	}
	zcs_kernels_init(&F.k, ZCS_ISA_SCALAR);
	ck_assert_int_eq(zcs_outputs_create(&F.out, ZCS_SAMPLE_CS16), 0);
	ck_assert_int_eq(zcs_outputs_add(F.out, "file:/dev/null", err, sizeof(err)), 0);
	ck_assert_int_eq(zcs_outputs_start(F.out), 0);
	ck_assert_msg(zcs_rx_open(&F.rx, &o, F.out, &F.k, err, sizeof(err)) == 0, "%s", err);
	F.now = 1000 * MS;
}

static void setup(void)
{
	open_rx(false);
}

static void setup_keyed(void)
{
	open_rx(true);
}

static void teardown(void)
{
	zcs_rx_finish(F.rx);
	zcs_rx_close(F.rx);
	zcs_outputs_destroy(F.out, 0);
}

/* Hands one datagram to the engine at time F.now, read alone, the socket found empty after it. */
static void put(const uint8_t *d, size_t len)
{
	static const struct sockaddr_in from = { .sin_family = AF_INET };

	zcs_rx_feed(F.rx, d, len, (const struct sockaddr *)&from, F.now);
}

/* The engine's counters and state now. */
static struct zcs_rx_snapshot snap(void)
{
	struct zcs_rx_snapshot s;

	zcs_rx_snapshot(F.rx, &s);
	return s;
}

/* Metadata m as the sender writes it (sealed when keyed) into buf; returns its length. */
static size_t write_meta(uint8_t *buf, struct zcs_meta *m)
{
	size_t len;

	strcpy(m->sender, "unit");
	strcpy(m->version, "t");
	strcpy(m->source, "tone");
	len = zcs_proto_write_meta(buf, m);
	return F.keyed ? seal_meta(&F.auth, buf) : len;
}

static void meta_of(uint32_t stream, uint64_t rate, uint8_t format)
{
	struct zcs_meta m = {
		.stream_id = stream, .meta_version = 1, .sample_rate = rate, .center_freq = 1000000,
		.format = format, .samples_per_dgram = SPD, .gain_mode = ZCS_GAIN_MANUAL,
	};
	uint8_t buf[ZCS_PROTO_META_SIZE + ZCS_AUTH_META_TRAILER];

	put(buf, write_meta(buf, &m));
}

/* A retune to freq announced as the sender does (CHANGE, holding from sample since); the
 * datagram is left in buf (for a replay) and its length returned. */
static size_t retune_in(uint8_t *buf, uint64_t freq, uint64_t since)
{
	struct zcs_meta m = {
		.stream_id = STREAM, .meta_version = 2, .sample_rate = RATE, .center_freq = freq,
		.format = ZCS_WIRE_I16, .samples_per_dgram = SPD, .gain_mode = ZCS_GAIN_MANUAL,
		.flags = ZCS_META_FLAG_CHANGE, .ref_sample = since,
	};
	const size_t len = write_meta(buf, &m);

	put(buf, len);
	return len;
}

static void meta(void)
{
	meta_of(STREAM, RATE, ZCS_WIRE_I16);
}

/* Sample datagram seq of stream id, its first sample given, 100 i16 pairs. */
static void dgram_of(uint32_t stream, uint64_t seq, uint64_t first, uint8_t flags)
{
	uint8_t buf[ZCS_PROTO_SAMPLE_HDR_SIZE + SPD * 4 + ZCS_AUTH_SAMPLE_TRAILER];
	const struct zcs_sample_hdr h = {
		.stream_id = stream, .seq = seq, .first_sample = first, .samples = SPD,
		.payload_len = SPD * 4, .format = ZCS_WIRE_I16, .flags = flags,
	};
	size_t len = ZCS_PROTO_SAMPLE_HDR_SIZE + SPD * 4;

	memset(buf, 0, sizeof(buf));
	zcs_proto_write_sample_hdr(buf, &h);
	if (F.keyed)
		len = seal_samples(&F.auth, buf, len);
	put(buf, len);
}

static void dgram(uint64_t seq)
{
	dgram_of(STREAM, seq, seq * SPD, 0);
}

/* Datagrams a..b in order, one each 100 us (the stream's real rate). */
static void live(uint64_t a, uint64_t b)
{
	for (uint64_t s = a; s <= b; s++) {
		dgram(s);
		F.now += 100 * 1000;
	}
}

/* Silence of ns: the socket is seen empty, and the receiver idles. */
static void silence(uint64_t ns)
{
	F.now += ns;
	zcs_rx_tick(F.rx, F.now);
}

START_TEST(clean_stream)
{
	meta();
	live(0, 99);
	ck_assert_uint_eq(snap().gf.samples, 100 * SPD);
	ck_assert_uint_eq(snap().rx.unconfirmed, 0);
}
END_TEST

START_TEST(forged_jumps_dropped)
{
	meta();
	live(0, 49);
	/* a sample jump with DISCONT and 2^32, at the next number */
	dgram_of(STREAM, 50, 50 * SPD + (1ULL << 32), ZCS_FLAG_DISCONT);
	/* the real 50 is taken, the forged one dropped */
	live(50, 52);
	ck_assert_uint_eq(snap().rx.unconfirmed, 1);
	/* a sequence jump far ahead, then even a forged follower continuing it */
	dgram(100000);
	dgram(100001);
	live(53, 55);
	ck_assert_uint_eq(snap().rx.unconfirmed, 3);
	/* a resync far away, continued at once */
	dgram(1ULL << 40);
	dgram((1ULL << 40) + 1);
	live(56, 99);
	ck_assert_uint_eq(snap().rx.unconfirmed, 5);
	ck_assert_uint_eq(snap().gf.samples, 100 * SPD);
	ck_assert_uint_eq(snap().gf.gap_samples, 0);
	ck_assert_uint_eq(snap().ro.lost, 0);
	ck_assert_uint_eq(snap().ro.late, 0);
	ck_assert_uint_eq(snap().ro.resyncs, 0);
	ck_assert_uint_eq(snap().gf.jumps, 0);
}
END_TEST

START_TEST(outage_believed_and_filled)
{
	meta();
	live(0, 99);
	/* 10 s without a datagram, then the stream 10 s further on */
	silence(10000 * MS);
	live(100100, 100199);
	silence(200 * MS);
	ck_assert_uint_eq(snap().rx.unconfirmed, 0);
	ck_assert_uint_eq(snap().ro.lost, 100000);
	ck_assert_uint_eq(snap().gf.gap_samples, 100000 * SPD);
	ck_assert_uint_eq(snap().gf.samples, 100200 * SPD);
}
END_TEST

START_TEST(burst_loss_in_real_time_filled)
{
	meta();
	live(0, 99);
	/* 30 datagrams lost on the way: 3 ms pass before the next arrives */
	F.now += 30 * 100 * 1000;
	live(130, 199);
	silence(200 * MS);
	ck_assert_uint_eq(snap().rx.unconfirmed, 0);
	ck_assert_uint_eq(snap().gf.gap_samples, 30 * SPD);
	ck_assert_uint_eq(snap().gf.samples, 200 * SPD);
}
END_TEST

START_TEST(source_loss_believed_when_time_allows)
{
	meta();
	live(0, 49);
	/* the sender's source lost 50 ms of samples, but 50 reached us only 100 us after 49: more
	 * zeros than real time allows yet, so held ... */
	dgram_of(STREAM, 50, 50 * SPD + 50000, ZCS_FLAG_DISCONT);
	ck_assert_uint_eq(snap().gf.samples, 50 * SPD);
	/* ... and believed when 51 continues it 60 ms later, the old position silent since: the
	 * zeros now fit real time (the jump is within the window: no silence of 100 ms needed) */
	F.now += 60 * MS;
	dgram_of(STREAM, 51, 51 * SPD + 50000, 0);
	ck_assert_uint_eq(snap().rx.unconfirmed, 0);
	ck_assert_uint_eq(snap().gf.discont_samples, 50000);
	ck_assert_uint_eq(snap().gf.samples, 52 * SPD + 50000);
	ck_assert_uint_eq(snap().gf.jumps, 0);
}
END_TEST

START_TEST(jump_faster_than_time_waits)
{
	meta();
	live(0, 99);
	/* 1 s further on after 100 us: not plausible while the old position is live ... */
	dgram(10100);
	F.now += 100 * 1000;
	dgram(10101);
	ck_assert_uint_eq(snap().gf.samples, 100 * SPD);
	ck_assert_uint_eq(snap().rx.unconfirmed, 1);
	/* ... believed once the old position has been silent (100 ms, proven by an empty socket)
	 * while the stream went on from the new one; what came meanwhile was dropped */
	{
		uint64_t s = 10102;

		for (; snap().jump_pending && s < 10200; s++) {
			F.now += 10 * MS;
			dgram(s);
		}
		ck_assert(!snap().jump_pending);
		ck_assert_uint_gt(s, 10102 + 9);
		ck_assert_uint_eq(snap().rx.unconfirmed, s - 1 - 10101);
	}
	silence(200 * MS);
	ck_assert_uint_eq(snap().ro.delivered, 102);
	/* the zeros: only what real time allowed; the 1 s jump was more, so its position is taken
	 * as is (a jump) rather than filled; the 11 datagrams dropped meanwhile are lost and
	 * zero-filled (their time did pass) */
	ck_assert_uint_eq(snap().gf.jumps, 1);
	ck_assert_uint_eq(snap().gf.samples, 102 * SPD + 11 * SPD);
}
END_TEST

START_TEST(forged_eos_not_believed)
{
	meta();
	live(0, 9);
	dgram_of(STREAM, 10, 10 * SPD, ZCS_FLAG_EOS);
	F.now += 100 * 1000;
	ck_assert(!snap().ended);
	live(11, 20);
	ck_assert_uint_eq(snap().rx.unconfirmed, 1);
	ck_assert_uint_eq(snap().rx.eos, 0);
	/* the real end: believed once the stream fell silent after it */
	dgram_of(STREAM, 21, 21 * SPD, ZCS_FLAG_EOS);
	silence(50 * MS);
	ck_assert(!snap().ended);
	silence(60 * MS);
	ck_assert(snap().ended);
	ck_assert_uint_eq(snap().rx.eos, 1);
	ck_assert_uint_eq(snap().gf.samples, 22 * SPD);
}
END_TEST

START_TEST(spoofed_settings_not_applied)
{
	meta();
	live(0, 9);
	/* a doubled rate: contradicted by the stream's own next metadata */
	meta_of(STREAM, 2 * RATE, ZCS_WIRE_I16);
	F.now += 100 * MS;
	meta();
	ck_assert_uint_eq(snap().meta.sample_rate, RATE);
	ck_assert_uint_eq(snap().rx.unconfirmed, 1);
	/* another format: contradicted by the next sample datagram of the old one */
	meta_of(STREAM, RATE, ZCS_WIRE_P12);
	live(10, 10);
	ck_assert_uint_eq(snap().meta.format, ZCS_WIRE_I16);
	ck_assert_uint_eq(snap().rx.unconfirmed, 2);
	/* a real change, repeated for 500 ms with nothing against it, is applied */
	meta_of(STREAM, 2 * RATE, ZCS_WIRE_I16);
	F.now += 400 * MS;
	meta_of(STREAM, 2 * RATE, ZCS_WIRE_I16);
	ck_assert_uint_eq(snap().meta.sample_rate, RATE);
	F.now += 400 * MS;
	meta_of(STREAM, 2 * RATE, ZCS_WIRE_I16);
	ck_assert_uint_eq(snap().meta.sample_rate, 2 * RATE);
	ck_assert_uint_eq(snap().rx.unconfirmed, 2);
}
END_TEST

START_TEST(unkeyed_retune_waits)
{
	uint8_t buf[ZCS_PROTO_META_SIZE];

	meta();
	live(0, 9);
	/* unkeyed, even the sender's own announcement waits for its 500 ms unopposed */
	retune_in(buf, 2000000, 1000);
	live(10, 10);
	ck_assert_uint_eq(snap().meta.center_freq, 1000000);
	ck_assert_uint_eq(F.changes, 0);
	F.now += 500 * MS;
	retune_in(buf, 2000000, 1000);
	ck_assert_uint_eq(snap().meta.center_freq, 2000000);
	/* and still holds from the index the first announcement gave */
	ck_assert_uint_eq(F.changes, 1);
	ck_assert_uint_eq(F.change_since, 1000);
	ck_assert(F.change_exact);
}
END_TEST

START_TEST(keyed_retune_at_once)
{
	uint8_t first[ZCS_PROTO_META_SIZE + ZCS_AUTH_META_TRAILER];
	uint8_t buf[ZCS_PROTO_META_SIZE + ZCS_AUTH_META_TRAILER];
	size_t first_len;

	meta();
	live(0, 9);
	ck_assert_uint_eq(snap().rx.streams, 1);
	/* a verified announcement is believed as it comes, the clock not moved: a change from
	 * its index, with nothing waiting */
	first_len = retune_in(first, 2000000, 1000);
	ck_assert_uint_eq(snap().meta.center_freq, 2000000);
	ck_assert_uint_eq(F.changes, 1);
	ck_assert_uint_eq(F.change_since, 1000);
	ck_assert_uint_eq(F.change_freq, 2000000);
	ck_assert(F.change_exact);
	ck_assert(!snap().meta_pending);
	/* its second copy is the same description again: no second change */
	retune_in(buf, 2000000, 1000);
	ck_assert_uint_eq(F.changes, 1);
	live(10, 10);
	/* another retune straight after, then the end of the stream: each reported */
	retune_in(buf, 3000000, 1100);
	ck_assert_uint_eq(snap().meta.center_freq, 3000000);
	ck_assert_uint_eq(F.changes, 2);
	ck_assert_uint_eq(F.change_since, 1100);
	/* a replay of the first announcement verifies, but is older than what the run has said:
	 * refused (replayed), the settings stay */
	put(first, first_len);
	ck_assert_uint_eq(snap().meta.center_freq, 3000000);
	ck_assert_uint_eq(F.changes, 2);
	ck_assert_uint_eq(snap().rx.replayed, 1);
	ck_assert_uint_eq(snap().rx.unconfirmed, 0);
	/* unkeyed metadata is not even read by a keyed receiver */
	F.keyed = false;
	meta_of(STREAM, 2 * RATE, ZCS_WIRE_I16);
	ck_assert_uint_eq(snap().meta.sample_rate, RATE);
	ck_assert_uint_eq(snap().rx.invalid_by[ZCS_PERR_AUTH], 1);
}
END_TEST

START_TEST(lone_datagram_first_does_not_capture)
{
	/* a forger sends first: one sample datagram, one metadata datagram of its own stream */
	dgram_of(0xbad, 0, 0, 0);
	meta_of(0xbad, RATE, ZCS_WIRE_I16);
	ck_assert_uint_eq(snap().stream_id, 0xbad);
	/* the real stream then: followed, not foreign */
	meta();
	live(0, 9);
	ck_assert_uint_eq(snap().stream_id, STREAM);
	ck_assert_uint_eq(snap().rx.foreign, 0);
	ck_assert_uint_eq(snap().rx.streams, 1);
	ck_assert_uint_eq(snap().gf.samples, 10 * SPD);
	/* once it has shown itself (metadata, then samples), another id is foreign */
	meta_of(0xbad, RATE, ZCS_WIRE_I16);
	dgram_of(0xbad, 0, 0, 0);
	ck_assert_uint_eq(snap().stream_id, STREAM);
	ck_assert_uint_eq(snap().rx.foreign, 2);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("bounds");
	TCase *t = tcase_create("reorder");
	TCase *g = tcase_create("gapfill");
	TCase *r = tcase_create("rx");
	TCase *k = tcase_create("rx_keyed");

	tcase_add_test(t, reorder_jump_changes_nothing);
	suite_add_tcase(s, t);
	tcase_add_test(g, gapfill_budget_and_line);
	suite_add_tcase(s, g);
	tcase_add_checked_fixture(r, setup, teardown);
	tcase_add_test(r, clean_stream);
	tcase_add_test(r, forged_jumps_dropped);
	tcase_add_test(r, outage_believed_and_filled);
	tcase_add_test(r, burst_loss_in_real_time_filled);
	tcase_add_test(r, source_loss_believed_when_time_allows);
	tcase_add_test(r, jump_faster_than_time_waits);
	tcase_add_test(r, forged_eos_not_believed);
	tcase_add_test(r, spoofed_settings_not_applied);
	tcase_add_test(r, unkeyed_retune_waits);
	tcase_add_test(r, lone_datagram_first_does_not_capture);
	suite_add_tcase(s, r);
	tcase_add_checked_fixture(k, setup_keyed, teardown);
	tcase_add_test(k, keyed_retune_at_once);
	suite_add_tcase(s, k);
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
