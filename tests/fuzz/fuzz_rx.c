// SPDX-License-Identifier: MIT
/* libFuzzer target for the receive engine fed sequences of datagrams (issue 22 part 1): a live
 * stream of 300 datagrams at its real pace, with the network's losses, reorderings and copies,
 * and replayed or forged datagrams among it, all chosen by the input.  The input's first byte
 * picks the case:
 * - keyed (bit 0 set): every datagram authenticated; the input replays any earlier one of the
 *   run (sample or metadata) at any time and forges others (which fail their tag).  Invariant:
 *   every sample of the live stream comes out, in place, or is zero-filled and counted: the
 *   output holds exactly the stream's pairs, each the stream's own at its place or zero, and the
 *   zeros are exactly gap_samples.  With bit 1 set too, the receiver has a liveness check (a
 *   fake board that answers "live" from a datagram the input picks) and a hold of a size the
 *   input picks (none to about 34 datagrams): the run awaits the answer, kept or dropped in
 *   part, replays among it, and the same invariant holds once it is followed.
 * - unkeyed: the input forges datagrams with any number, sample index, size and flags.  What a
 *   forger gets is bounded by what it sent (docs/security.md): every pair of the output is the
 *   stream's own in place, or zero and counted, or one of at most 65535 per forged datagram, and
 *   the output's length is the stream's give or take as much.
 * - the start (unkeyed, bit 2 set): the sender repeats its metadata at the start as zcs-send does
 *   (before datagrams 0, 1, 2, 4, 8, 16, 32, then every 100) and the input loses the first 0 to 3
 *   of them; among the stream's first 16 datagrams it forges copies of them renumbered at least
 *   2^20 away in either direction (2^63 included), alone or in runs that continue each other,
 *   before or after the metadata, amid the network's reorderings and losses (those among the
 *   first 32 datagrams).  Nothing of them
 *   may move the stream's start (docs/protocol.md, "Receivers"), and what came before the
 *   metadata is kept: the output is exactly the stream's, every pair its own at its place or
 *   zero, the zeros exactly gap_samples, nothing dropped before the metadata, and no more lost
 *   than the network lost, delayed past the window (late) and the jump rules dropped
 *   (unconfirmed).
 * Run: CC=clang meson setup -Dfuzz=true b && ninja -C b tests/fuzz/fuzz_rx &&
 *      b/tests/fuzz/fuzz_rx -runs=20000 tests/fuzz/corpus_rx */
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "key.h"
#include "output.h"
#include "proto.h"
#include "rx.h"

#include "fuzz_stream.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_rx: %s:%d: %s\n", __FILE__, __LINE__, #c); abort(); } } while (0)

#define LIVE 300                  /* datagrams of the live stream */
#define SPD 100                   /* pairs each, i16 */
#define RATE 1000000ULL           /* one datagram each 100 us */
#define DGRAM_NS 100000ULL
#define STREAM 0xf022
#define MAX_DGRAM (ZCS_PROTO_META_SIZE + ZCS_AUTH_META_TRAILER + SPD * 4)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sent {
	uint8_t d[MAX_DGRAM];
	size_t len;
};

struct fuzz {
	struct zcs_rx *rx;
	struct zcs_outputs *out;
	struct zcs_reader *rd;
	struct zcs_kernels k;
	struct zcs_key key;
	struct zcs_auth auth;
	struct zcs_auth_tagger tagger;
	bool keyed;
	uint64_t now;
	uint64_t forged;              /* forged datagrams handed in (unkeyed) */
	bool start;                   /* the start case (bit 2, unkeyed) */
	unsigned int metas_lost;      /* ... the first metadata datagrams lost */
	uint64_t forged_seq, forged_first; /* ... the newest forged copy, continued by the next */
	uint64_t net_lost;            /* live datagrams the input lost */
	struct sent sent[LIVE + LIVE / 50 + 16]; /* every datagram of the run, for replays */
	size_t nsent;
	struct fuzz_cursor in;
};

static struct fuzz F;
/* the fake board's answer, for every claim */
static enum zcs_run_verdict VERDICT;

static enum zcs_run_verdict fake_board(void *ctx, const struct zcs_run_claim *c, uint64_t now)
{
	(void)ctx;
	(void)c;
	(void)now;
	return VERDICT;
}
static struct sent *record(void)
{
	CHECK(F.nsent < sizeof(F.sent) / sizeof(F.sent[0]));
	return &F.sent[F.nsent++];
}

static void send_meta(uint64_t next_seq)
{
	struct zcs_meta m = {
		.stream_id = STREAM, .meta_version = 1, .next_seq = next_seq, .sample_rate = RATE,
		.center_freq = 100000000, .format = ZCS_WIRE_I16, .samples_per_dgram = SPD,
	};
	struct sent *s = record();

	strcpy(m.sender, "fuzz");
	strcpy(m.version, "f");
	strcpy(m.source, "tone");
	s->len = zcs_proto_write_meta(s->d, &m);
	if (F.keyed)
		s->len = zcs_auth_seal_meta(&F.auth, &F.tagger, s->d);
	fuzz_feed(F.rx, s->d, s->len, F.now);
}

/* A sample datagram into d: seq, first, samples (<= SPD), flags; the stream's values, or
 * `fill` bytes for a forgery.  Sealed when keyed and `seal`.  Returns its length. */
static size_t write_samples(uint8_t *d, uint64_t seq, uint64_t first, uint16_t samples,
			    uint8_t flags, int fill, bool seal)
{
	const struct zcs_sample_hdr h = {
		.stream_id = STREAM, .seq = seq, .first_sample = first, .samples = samples,
		.payload_len = (uint16_t)(samples * 4), .format = ZCS_WIRE_I16, .flags = flags,
	};
	size_t len = ZCS_PROTO_SAMPLE_HDR_SIZE + (size_t)samples * 4;

	zcs_proto_write_sample_hdr(d, &h);
	for (uint16_t i = 0; i < samples; i++) {
		if (fill >= 0)
			memset(d + ZCS_PROTO_SAMPLE_HDR_SIZE + (size_t)i * 4, fill, 4);
		else
			fuzz_stream_pair(d + ZCS_PROTO_SAMPLE_HDR_SIZE + (size_t)i * 4, first + i);
	}
	if (F.keyed && seal)
		len = zcs_auth_seal_samples(&F.auth, &F.tagger, d, len);
	return len;
}

/* The live datagram seq: written (and kept for replays), not yet sent. */
static struct sent *live(uint64_t seq)
{
	struct sent *s = record();

	s->len = write_samples(s->d, seq, seq * SPD, SPD, seq == LIVE - 1 ? ZCS_FLAG_EOS : 0, -1,
			       true);
	return s;
}

/* The start case's forgery at live position `cur`: a copy of one of the stream's first 16
 * datagrams (its own samples) renumbered at least 2^20 away, or the next of the forged run. */
static void forge_start(uint64_t cur)
{
	uint8_t d[MAX_DGRAM];
	const unsigned int k = fuzz_byte(&F.in);

	if (!(k & 1) || !F.forged) {
		const uint64_t of = fuzz_bytes(&F.in, 1) % 16;
		uint64_t off = (1ULL << 20) + fuzz_bytes(&F.in, 8) % ((1ULL << 63) - (1ULL << 21));

		if (k & 2)
			off = 1ULL << 63;
		if (k & 4)
			off = -off;
		F.forged_seq = of + off;
		F.forged_first = of * SPD;
	} else {
		F.forged_seq++;
		F.forged_first += SPD;
	}
	(void)cur;
	fuzz_feed(F.rx, d, write_samples(d, F.forged_seq, F.forged_first, SPD, 0, -1, false), F.now);
	F.forged++;
}

/* One datagram the input makes up at live position `cur`: a replay (keyed) or a forgery. */
static void extra(uint64_t cur)
{
	uint8_t d[MAX_DGRAM];

	if (F.start) {
		if (cur < 16)
			forge_start(cur);
		return;
	}

	if (F.keyed && F.nsent && (fuzz_byte(&F.in) & 1)) {
		const struct sent *s = &F.sent[fuzz_bytes(&F.in, 2) % F.nsent];

		fuzz_feed(F.rx, s->d, s->len, F.now);
		return;
	}
	{
		const int64_t dseq = (int64_t)(int32_t)fuzz_bytes(&F.in, 4);
		const int64_t dfirst = (int64_t)(int32_t)fuzz_bytes(&F.in, 4);
		const unsigned int k = fuzz_byte(&F.in);
		/* a few far jumps, else near ones: both kinds of claim */
		const uint64_t seq = k & 0x80 ? cur + (uint64_t)dseq * 4096 : cur + (uint64_t)(dseq % 300);
		const uint64_t first = seq * SPD + (uint64_t)(k & 0x40 ? dfirst * 65536 : dfirst % 2000);
		const uint16_t samples = (uint16_t)(fuzz_bytes(&F.in, 1) % (SPD + 1));
		const uint8_t flags = (uint8_t)(fuzz_byte(&F.in) & (ZCS_FLAG_EOS | ZCS_FLAG_DISCONT));

		/* unsealed when keyed: refused by its tag */
		fuzz_feed(F.rx, d, write_samples(d, seq, first, samples, flags, 0xee, false), F.now);
		F.forged++;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zcs_rx_opts o = {
		/* never sent to: the datagrams are handed in (a namespace of its own under meson) */
		.listen = "127.0.0.1:22599", .rcvbuf = 1 << 16, .max_dgram = 2048, .batch = 2,
		.no_gro = true, .type = ZCS_SAMPLE_NATIVE, .native_follows = true,
	};
	struct zcs_rx_snapshot snap;
	struct zcs_reader_item it;
	struct sent *held = NULL;
	uint64_t out = 0, zeros = 0, other = 0, answer_at = 0;
	unsigned int first;
	bool checked;
	char err[256];

	memset(&F, 0, sizeof(F));
	F.in.p = data;
	F.in.left = size;
	first = fuzz_byte(&F.in);
	F.keyed = first & 1;
	checked = F.keyed && (first & 2);
	F.start = !F.keyed && (first & 4);
	if (F.start)
		F.metas_lost = fuzz_byte(&F.in) % 4;
	if (checked) {
		VERDICT = ZCS_RUN_UNKNOWN;
		o.run_check = (struct zcs_run_check){ fake_board, NULL };
		o.hold_bytes = 8 + (size_t)fuzz_byte(&F.in) * 64;
		/* before the last datagram, which always arrives and then finds the answer */
		answer_at = fuzz_bytes(&F.in, 2) % (LIVE - 1);
	}
	if (F.keyed) {
		memset(F.key.bytes, 0x5a, sizeof(F.key.bytes));
		o.key = &F.key;
		CHECK(zcs_auth_init(&F.auth, &F.key, 1000, err, sizeof(err)) == 0);
		CHECK(zcs_auth_tagger_init(&F.tagger, F.key.bytes, err, sizeof(err)) == 0);
	}
	zcs_kernels_init(&F.k, ZCS_ISA_SCALAR);
	CHECK(zcs_outputs_create(&F.out, ZCS_SAMPLE_NATIVE) == 0);
	CHECK(zcs_outputs_add_reader(F.out, "fuzz", &F.rd, err, sizeof(err)) == 0);
	zcs_reader_attach(F.rd);
	CHECK(zcs_outputs_start(F.out) == 0);
	if (zcs_rx_open(&F.rx, &o, F.out, &F.k, err, sizeof(err)) < 0) {
		fprintf(stderr, "fuzz_rx: %s\n", err);
		abort();
	}
	F.now = 1000000000ULL;

	for (uint64_t s = 0; s < LIVE; s++) {
		struct sent *d;

		F.now = 1000000000ULL + s * DGRAM_NS;
		if (checked && s == answer_at)
			VERDICT = ZCS_RUN_LIVE;
		if (s % 100 == 0 || (F.start && s <= 32 && (s & (s - 1)) == 0)) {
			if (F.start && F.metas_lost)
				F.metas_lost--;       /* sent, and lost */
			else
				send_meta(s);
		}
		d = live(s);
		/* what the input does around this datagram: 0 deliver, 1 lose, 2 deliver after the
		 * next, 3 a made-up datagram first (then look again) */
		for (;;) {
			const unsigned int op = F.in.left ? fuzz_byte(&F.in) % 8 : 0;

			if (op == 3 || op == 4) {
				extra(s);
				continue;
			}
			/* the stream's first and last datagrams always arrive (before the first, nothing
			 * tells a receiver of a loss; after the last, nothing tells how much); in the
			 * start case the first before any other (behind a repeated metadata, a later one
			 * that came first is where the stream starts: docs/protocol.md) */
			/* (the start case loses datagrams only among the first 32: a long loss later
			 * is the jump rules' matter, not the start's) */
			if (op == 1 && s != 0 && s != LIVE - 1 && !(F.start && s >= 32)) {
				d = NULL;
				F.net_lost++;
			} else if (op == 2 && !held && s != LIVE - 1 && !(F.start && s == 0)) {
				held = d;
				d = NULL;
			}
			break;
		}
		if (d)
			fuzz_feed(F.rx, d->d, d->len, F.now);
		if (held && d) {
			fuzz_feed(F.rx, held->d, held->len, F.now);
			held = NULL;
		}
	}
	zcs_rx_finish(F.rx);
	zcs_rx_snapshot(F.rx, &snap);

	/* the output, pair by pair */
	/* zcs_rx_finish handed everything to the reader, which has no thread of its own */
	while (zcs_reader_next(F.rd, 0, &it) == 1) {
		if (it.kind != ZCS_READER_DATA)
			continue;
		for (uint64_t j = 0; j < it.pairs; j++) {
			const uint8_t *p = it.data + j * 4;
			uint8_t want[4];

			fuzz_stream_pair(want, out + j);
			if (!p[0] && !p[1] && !p[2] && !p[3])
				zeros++;
			else if (memcmp(p, want, 4) != 0)
				other++;
		}
		out += it.pairs;
	}
	if (F.keyed || F.start) {
		/* every number of the run released once, as data or as lost */
		CHECK(snap.ro.delivered + snap.ro.lost == LIVE);
		CHECK(out == (uint64_t)LIVE * SPD);
		CHECK(other == 0);
		CHECK(zeros == snap.gf.gap_samples);
		CHECK(snap.gf.jumps == 0);
		/* the start: what came before the metadata is kept and delivered, so only what the
		 * network lost is zero-filled, what came after the window had passed it (late), and
		 * what a jump held meanwhile dropped (a burst of loss longer than the window followed
		 * by a reordering makes one: counted unconfirmed) */
		if (F.start) {
			CHECK(snap.ro.lost <= F.net_lost + snap.ro.late + snap.rx.unconfirmed);
			CHECK(snap.rx.pre_meta == 0);
		}
	} else {
		const uint64_t budget = F.forged * 65535;

		CHECK(other <= budget);
		CHECK(zeros <= snap.gf.gap_samples + snap.gf.discont_samples);
		CHECK(out <= (uint64_t)LIVE * SPD + budget && out + budget >= (uint64_t)LIVE * SPD);
	}
	zcs_reader_detach(F.rd);
	zcs_rx_close(F.rx);
	zcs_outputs_destroy(F.out, 0);
	zcs_auth_wipe(&F.auth);
	zcs_auth_tagger_wipe(&F.tagger);
	return 0;
}
