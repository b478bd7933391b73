// SPDX-License-Identifier: MIT
/* libFuzzer target for the receiver's parity path (issue 21): a live stream of 300 sample
 * datagrams protected by K:M parity (K 1..32, M 1..8, announced by its metadata or not, keyed or
 * not, all chosen by the input), through a network that loses, duplicates and swaps sample and
 * parity datagrams, with made-up parity datagrams among them (any block, k, m, index, length and
 * contents; keyed: unsealed, or sealed with the key over wrong contents) and copies of the real
 * parity with wrong samples (keyed: tagged, so what they rebuild parses and fails its own tag
 * alone).  Invariants:
 * - keyed, or unkeyed without made-up parity: every pair of the output is the stream's own in its
 *   place or zero, the zeros are exactly gap_samples, every datagram is released once;
 * - and when the metadata announced K:M and nothing was swapped or made up: exactly the blocks
 *   that lost more sample datagrams than parity datagrams reached the receiver lose anything:
 *   lost and restored are what the input's losses say, block by block;
 * - unkeyed with made-up parity: a forger writes at most what its datagrams can rebuild (each
 *   at most m datagrams of at most 65535 pairs), the output's length the stream's give or take
 *   as much.
 * Run: CC=clang meson setup -Dfuzz=true b && ninja -C b tests/fuzz/fuzz_rx_fec &&
 *      b/tests/fuzz/fuzz_rx_fec -runs=2000 tests/fuzz/corpus_rx_fec */
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "fec.h"
#include "key.h"
#include "output.h"
#include "proto.h"
#include "rx.h"

#include "fuzz_stream.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_rx_fec: %s:%d: %s\n", __FILE__, __LINE__, #c); abort(); } } while (0)

#define LIVE 300                  /* sample datagrams of the live stream */
#define SPD 100                   /* pairs each, i16 */
#define RATE 1000000ULL           /* one datagram each 100 us */
#define DGRAM_NS 100000ULL
#define STREAM 0xfec0
#define MAX_DGRAM 1024
#define MAX_K 32
#define MAX_M 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz {
	struct zcs_rx *rx;
	struct zcs_outputs *out;
	struct zcs_reader *rd;
	struct zcs_kernels k;
	struct zcs_key key;
	struct zcs_auth auth;
	struct zcs_auth_tagger tagger;
	struct zcs_fec_enc enc;
	bool keyed, announced;
	unsigned fk, fm;
	uint64_t now;
	uint64_t made_up;             /* made-up parity datagrams handed in */
	uint64_t swapped;             /* sample datagrams delivered after the next */
	/* per block (by its first seq / fk): sample datagrams lost, parity indices that arrived */
	unsigned block_lost[LIVE];
	uint32_t block_parity[LIVE];
	struct fuzz_cursor in;
};

static struct fuzz F;
static void send_meta(uint64_t next_seq)
{
	struct zcs_meta m = {
		.stream_id = STREAM, .meta_version = 1, .next_seq = next_seq, .sample_rate = RATE,
		.center_freq = 100000000, .format = ZCS_WIRE_I16, .samples_per_dgram = SPD,
	};
	uint8_t d[ZCS_PROTO_META_SIZE + ZCS_AUTH_MAX_TRAILER];
	size_t len;

	strcpy(m.sender, "fuzz");
	strcpy(m.source, "tone");
	zcs_proto_meta_version(&m, "f", F.announced ? F.fk : 0, F.announced ? F.fm : 0);
	len = zcs_proto_write_meta(d, &m);
	if (F.keyed)
		len = zcs_auth_seal_meta(&F.auth, &F.tagger, d);
	fuzz_feed(F.rx, d, len, F.now);
}

/* Live sample datagram seq into d, sealed when keyed, folded into its block. */
static size_t live(uint8_t *d, uint64_t seq)
{
	const struct zcs_sample_hdr h = {
		.stream_id = STREAM, .seq = seq, .first_sample = seq * SPD, .samples = SPD,
		.payload_len = SPD * 4, .format = ZCS_WIRE_I16,
		.flags = seq == LIVE - 1 ? ZCS_FLAG_EOS : 0,
	};
	size_t len = ZCS_PROTO_SAMPLE_HDR_SIZE + SPD * 4;

	zcs_proto_write_sample_hdr(d, &h);
	for (uint16_t i = 0; i < SPD; i++)
		fuzz_stream_pair(d + ZCS_PROTO_SAMPLE_HDR_SIZE + (size_t)i * 4, seq * SPD + i);
	if (F.keyed)
		len = zcs_auth_seal_samples(&F.auth, &F.tagger, d, len);
	zcs_fec_enc_add(&F.enc, d, len);
	return len;
}

/* A made-up parity datagram near live position cur. */
static void made_up(uint64_t cur)
{
	uint8_t d[MAX_DGRAM + 64];
	const unsigned kind = fuzz_byte(&F.in);
	struct zcs_parity_hdr p = { .stream_id = STREAM };
	size_t len;

	/* one statement each: the input's bytes are read in this order (an initializer list's
	 * order of evaluation is not defined) */
	p.block_seq = cur - fuzz_byte(&F.in) % 64;
	p.number = fuzz_bytes(&F.in, 2);
	p.k = (uint8_t)(kind & 1 ? F.fk : 1 + fuzz_byte(&F.in) % ZCS_FEC_MAX_K);
	p.m = (uint8_t)(kind & 2 ? F.fm : 1 + fuzz_byte(&F.in) % ZCS_FEC_MAX_M);
	p.index = (uint8_t)(fuzz_byte(&F.in) % p.m);
	p.shard_len = (uint16_t)(16 + fuzz_bytes(&F.in, 2) % (MAX_DGRAM - ZCS_PROTO_PARITY_HDR_SIZE -
						  ZCS_AUTH_SAMPLE_TRAILER - 16));
	if (kind & 4)   /* a block of the stream's own, so it meets the real one */
		p.block_seq = cur / F.fk * F.fk;
	zcs_proto_write_parity_hdr(d, &p);
	memset(d + ZCS_PROTO_PARITY_HDR_SIZE, (int)fuzz_byte(&F.in), p.shard_len);
	len = ZCS_PROTO_PARITY_HDR_SIZE + p.shard_len;
	/* keyed: sealed with the key (a correct tag over wrong contents) or not at all */
	if (F.keyed && (kind & 8))
		len = zcs_auth_seal_parity(&F.auth, &F.tagger, d, len);
	fuzz_feed(F.rx, d, len, F.now);
	F.made_up++;
}

/* The open block's parity after its last datagram: each lost, sent, sent twice, or sent after a
 * copy with wrong contents (keyed: tagged, so it is taken and the real one is not; what it
 * rebuilds has its header right and its samples wrong, and fails its own tag). */
static void send_parity(void)
{
	uint8_t d[MAX_DGRAM + 64], w[MAX_DGRAM + 64];
	const uint64_t block = F.enc.block_seq / F.fk;

	for (unsigned i = 0; i < F.fm; i++) {
		size_t len = zcs_fec_enc_parity(&F.enc, i, STREAM, d), wlen = len;
		const unsigned op = F.in.left ? fuzz_byte(&F.in) % 4 : 0;

		if (op == 3) {
			memcpy(w, d, len);
			/* the shards' samples only (every datagram of the stream is as long): the
			 * rebuilt headers and trailers come out right, the samples and so the tags
			 * wrong */
			for (size_t x = ZCS_PROTO_PARITY_HDR_SIZE + ZCS_FEC_SKIP;
			     x < len - (F.keyed ? ZCS_AUTH_SAMPLE_TRAILER : 0); x++)
				w[x] ^= 0xa5;
			if (F.keyed)
				wlen = zcs_auth_seal_parity(&F.auth, &F.tagger, w, len);
			fuzz_feed(F.rx, w, wlen, F.now);
			F.made_up++;
		}
		if (F.keyed)
			len = zcs_auth_seal_parity(&F.auth, &F.tagger, d, len);
		if (op == 1)
			continue;
		fuzz_feed(F.rx, d, len, F.now);
		if (op == 2)
			fuzz_feed(F.rx, d, len, F.now);
		F.block_parity[block] |= 1u << i;
	}
	zcs_fec_enc_close(&F.enc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zcs_rx_opts o = {
		/* never sent to: the datagrams are handed in (a namespace of its own under meson) */
		.listen = "127.0.0.1:22598", .rcvbuf = 1 << 16, .max_dgram = MAX_DGRAM, .batch = 2,
		.no_gro = true, .type = ZCS_SAMPLE_NATIVE, .native_follows = true,
	};
	struct zcs_rx_snapshot snap;
	struct zcs_reader_item it;
	uint8_t held[MAX_DGRAM], cur[MAX_DGRAM];
	size_t held_len = 0;
	uint64_t out = 0, zeros = 0, other = 0, lost = 0, unrestorable = 0;
	char err[256];
	unsigned mode;

	if (!zcs_fec_available())
		return 0;   /* a build without the code has no parity path to fuzz */
	memset(&F, 0, sizeof(F));
	F.in.p = data;
	F.in.left = size;
	mode = fuzz_byte(&F.in);
	F.keyed = mode & 1;
	F.announced = mode & 2;
	F.fk = 1 + fuzz_byte(&F.in) % MAX_K;
	F.fm = 1 + fuzz_byte(&F.in) % MAX_M;
	if (F.keyed) {
		memset(F.key.bytes, 0x5a, sizeof(F.key.bytes));
		o.key = &F.key;
		CHECK(zcs_auth_init(&F.auth, &F.key, 1000, err, sizeof(err)) == 0);
		CHECK(zcs_auth_tagger_init(&F.tagger, F.key.bytes, err, sizeof(err)) == 0);
	}
	CHECK(zcs_fec_enc_init(&F.enc, F.fk, F.fm, MAX_DGRAM) == 0);
	zcs_kernels_init(&F.k, ZCS_ISA_SCALAR);
	CHECK(zcs_outputs_create(&F.out, ZCS_SAMPLE_NATIVE) == 0);
	CHECK(zcs_outputs_add_reader(F.out, "fuzz", &F.rd, err, sizeof(err)) == 0);
	zcs_reader_attach(F.rd);
	CHECK(zcs_outputs_start(F.out) == 0);
	if (zcs_rx_open(&F.rx, &o, F.out, &F.k, err, sizeof(err)) < 0) {
		fprintf(stderr, "fuzz_rx_fec: %s\n", err);
		abort();
	}

	for (uint64_t s = 0; s < LIVE; s++) {
		size_t len;
		bool send = true;

		F.now = 1000000000ULL + s * DGRAM_NS;
		if (s % 100 == 0)
			send_meta(s);
		len = live(cur, s);
		/* 0 deliver, 1 lose, 2 deliver twice, 3 deliver after the next, 4 a made-up parity
		 * datagram first (then look again) */
		for (;;) {
			const unsigned op = F.in.left ? fuzz_byte(&F.in) % 8 : 0;

			if (op == 4) {
				made_up(s);
				continue;
			}
			/* the stream's first datagram and its end of stream always arrive: before the
			 * first arrival a receiver cannot tell its start from a late join once the
			 * losses exceed its window (the unit test rx restores a lost datagram 0), and
			 * after the end nothing tells how much was lost (regression late_start) */
			if (op == 1 && s != 0 && s != LIVE - 1) {
				send = false;
				F.block_lost[s / F.fk]++;
			} else if (op == 2) {
				fuzz_feed(F.rx, cur, len, F.now);
			} else if (op == 3 && !held_len && s != LIVE - 1 &&
				   (s + 1) % F.fk != 0) {
				memcpy(held, cur, len);
				held_len = len;
				send = false;
				F.swapped++;
			}
			break;
		}
		if (send)
			fuzz_feed(F.rx, cur, len, F.now);
		if (held_len && send) {
			fuzz_feed(F.rx, held, held_len, F.now);
			held_len = 0;
		}
		/* a block ends after K datagrams, or early at the end of stream */
		if (F.enc.count == F.fk || s == LIVE - 1)
			send_parity();
	}
	zcs_rx_finish(F.rx);
	zcs_rx_snapshot(F.rx, &snap);

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
	for (uint64_t b = 0; b * F.fk < LIVE; b++) {
		lost += F.block_lost[b];
		if (F.block_lost[b] > (unsigned)__builtin_popcount(F.block_parity[b]))
			unrestorable += F.block_lost[b];
	}
	/* a datagram that comes late may be rebuilt first (its original is then a duplicate) */
	CHECK(snap.rx.restored <= lost + F.swapped || (!F.keyed && F.made_up));
	if (F.keyed || !F.made_up) {
		CHECK(snap.ro.delivered + snap.ro.lost == LIVE);
		CHECK(out == (uint64_t)LIVE * SPD);
		CHECK(other == 0);
		CHECK(zeros == snap.gf.gap_samples);
		CHECK(snap.gf.jumps == 0);
		if (F.announced && !F.made_up && !F.swapped) {
			CHECK(snap.ro.lost == unrestorable);
			CHECK(snap.rx.restored == lost - unrestorable);
		}
	} else {
		const uint64_t budget = F.made_up * ZCS_FEC_MAX_M * 65535;

		CHECK(other <= budget);
		CHECK(out <= (uint64_t)LIVE * SPD + budget && out + budget >= (uint64_t)LIVE * SPD);
	}
	zcs_reader_detach(F.rd);
	zcs_rx_close(F.rx);
	zcs_outputs_destroy(F.out, 0);
	zcs_fec_enc_free(&F.enc);
	zcs_auth_wipe(&F.auth);
	zcs_auth_tagger_wipe(&F.tagger);
	return 0;
}
