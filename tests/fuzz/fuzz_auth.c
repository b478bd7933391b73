// SPDX-License-Identifier: MIT
/* Fuzz target: the keyed receiver's first step, zcs_auth_verify.  Properties: it never crashes or
 * reads past the datagram on any input, and says one of its three verdicts; a datagram sealed
 * from the input (as samples, and as metadata) verifies and parses, and the same datagram with
 * any one bit flipped, cut short or grown never verifies.  Seeds in corpus_auth include authentic
 * datagrams under the fuzz key (bytes 0..31), so the mutator starts from the accepting path.
 *   CC=clang meson setup b -Dfuzz=true && ninja -C b && b/tests/fuzz/fuzz_auth corpus_auth */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "bytes.h"
#include "proto.h"

#include "../support/sealing.h"

#define FUZZ_CHECK(cond)                                                                      \
	do {                                                                                  \
		if (!(cond)) {                                                                \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                              \
		}                                                                             \
	} while (0)

/* Keyed sample datagrams up to the largest p12 count of MTU 1500, plus room to grow by one. */
#define MAX_PAIRS 472
#define BUF_BYTES (ZCS_PROTO_SAMPLE_HDR_SIZE + MAX_PAIRS * 3 + ZCS_AUTH_MAX_TRAILER + 1)
/* Modified copies tried per sealed datagram: each is one verification. */
#define FLIPS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_key(struct zcs_key *k)
{
	for (size_t i = 0; i < sizeof(k->bytes); i++)
		k->bytes[i] = (uint8_t)i;
}

/* A position and a bit from the input, so the mutator steers which byte is changed. */
static size_t pick(const uint8_t *data, size_t size, size_t i, size_t n)
{
	const size_t a = size ? data[(3 * i) % size] : 0, b = size ? data[(3 * i + 1) % size] : 0;

	return (a | b << 8 | i * 40503u) % n;
}

/* The sealed datagram dg of len bytes verifies; no change of one bit, no cut and no extra byte
 * does. */
static void check_sealed(const struct zcs_key *k, uint8_t *dg, size_t len, const uint8_t *data,
			 size_t size)
{
	struct zcs_dgram d;

	FUZZ_CHECK(zcs_auth_verify(k, dg, len) == ZCS_AUTH_OK);
	FUZZ_CHECK(zcs_proto_parse(dg, len, &d) == 0 && d.keyed);
	for (size_t i = 0; i < FLIPS; i++) {
		const size_t at = pick(data, size, i, len);
		const uint8_t bit = (uint8_t)(1u << (size ? data[i % size] % 8 : i % 8));

		dg[at] ^= bit;
		FUZZ_CHECK(zcs_auth_verify(k, dg, len) != ZCS_AUTH_OK);
		dg[at] ^= bit;
	}
	FUZZ_CHECK(zcs_auth_verify(k, dg, len - 1 - pick(data, size, FLIPS, len - 1)) != ZCS_AUTH_OK);
	dg[len] = size ? data[0] : 0;
	FUZZ_CHECK(zcs_auth_verify(k, dg, len + 1) != ZCS_AUTH_OK);
	FUZZ_CHECK(zcs_auth_verify(k, dg, len) == ZCS_AUTH_OK);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[BUF_BYTES];
	struct zcs_key k;
	struct zcs_auth a;
	struct zcs_sample_hdr h = { 0 };
	size_t pairs, len;
	int v;

	fuzz_key(&k);
	/* 1: the input as it comes, exactly its size (the replay main gives ASan the bounds) */
	v = zcs_auth_verify(&k, data, size);
	FUZZ_CHECK(v == ZCS_AUTH_OK || v == ZCS_AUTH_UNKEYED || v == ZCS_AUTH_BAD);
	if (v == ZCS_AUTH_OK && size + 1 <= sizeof(buf)) {
		/* an authentic input (a seed, or the mutator found the tag: it never should) */
		memcpy(buf, data, size);
		for (size_t i = 0; i < FLIPS; i++) {
			const size_t at = pick(data, size, i, size);

			buf[at] ^= 0x01;
			FUZZ_CHECK(zcs_auth_verify(&k, buf, size) != ZCS_AUTH_OK);
			buf[at] ^= 0x01;
		}
	}
	FUZZ_CHECK(zcs_auth_init(&a, &k, size >= 8 ? zcs_get_le64(data) : 0, NULL, 0) == 0);

	/* 2: the input's bytes as the payload of a sealed p12 sample datagram */
	pairs = size / 3 > MAX_PAIRS ? MAX_PAIRS : size / 3;
	h.stream_id = size >= 4 ? zcs_get_le32(data) : 0;
	h.seq = size >= 16 ? zcs_get_le64(data + 8) : size;
	h.first_sample = h.seq * pairs;
	h.samples = (uint16_t)pairs;
	h.payload_len = (uint16_t)(pairs * 3);
	h.format = ZCS_WIRE_P12;
	h.flags = pairs ? 0 : ZCS_FLAG_EOS;
	zcs_proto_write_sample_hdr(buf, &h);
	memcpy(buf + ZCS_PROTO_SAMPLE_HDR_SIZE, data, pairs * 3);
	len = seal_samples(&a, buf, ZCS_PROTO_SAMPLE_HDR_SIZE + pairs * 3);
	check_sealed(&k, buf, len, data, size);

	/* 3: a sealed metadata datagram carrying the input's strings and numbers */
	if (size >= 16) {
		struct zcs_meta m = {
			.stream_id = h.stream_id, .meta_version = zcs_get_le32(data + 4),
			.next_seq = h.seq, .sample_rate = (uint64_t)zcs_get_le32(data) + 1,
			.format = ZCS_WIRE_P12,
			.samples_per_dgram = MAX_PAIRS, .gain_mode = ZCS_GAIN_UNKNOWN,
		};

		for (size_t i = 0; i < sizeof(m.sender) - 1 && i < size; i++)
			m.sender[i] = (char)('a' + data[i] % 26);
		strcpy(m.version, "0.1.0");
		strcpy(m.source, "tone");
		a.meta_seq = h.seq;
		zcs_proto_write_meta(buf, &m);
		len = seal_meta(&a, buf);
		check_sealed(&k, buf, len, data, size);
	}
	zcs_auth_wipe(&a);
	return 0;
}
