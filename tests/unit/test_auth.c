// SPDX-License-Identifier: MIT
/* Unit tests for keyed datagrams (the trailer's layout in common/wire/proto.c, the tag in auth.c):
 * sealed sample, end-of-stream and metadata datagrams verify and parse as their unkeyed selves;
 * any changed byte, another key, no trailer or a short datagram is refused; the nonce's inputs
 * (salt, stream, type, number) all matter. */
#include <check.h>
#include <stdio.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "bytes.h"
#include "proto.h"

#include "../support/sealing.h"

static void key_of(struct zcs_key *k, uint8_t v)
{
	for (size_t i = 0; i < sizeof(k->bytes); i++)
		k->bytes[i] = (uint8_t)(v + i);
}

/* A p12 sample datagram of n pairs, sealed; returns its length. */
static size_t sealed_samples(const struct zcs_auth *a, uint8_t *buf, uint64_t seq, uint16_t n)
{
	const struct zcs_sample_hdr h = {
		.stream_id = 0x12345678, .seq = seq, .first_sample = seq * n, .samples = n,
		.payload_len = (uint16_t)(n * 3), .format = ZCS_WIRE_P12, .flags = n ? 0 : ZCS_FLAG_EOS,
	};

	zcs_proto_write_sample_hdr(buf, &h);
	for (size_t i = 0; i < (size_t)n * 3; i++)
		buf[ZCS_PROTO_SAMPLE_HDR_SIZE + i] = (uint8_t)(i * 7 + seq);
	return seal_samples(a, buf, ZCS_PROTO_SAMPLE_HDR_SIZE + (size_t)n * 3);
}

START_TEST(test_samples_round_trip)
{
	struct zcs_key k, other;
	struct zcs_auth a;
	struct zcs_dgram dg;
	uint8_t buf[2048];
	size_t len;

	key_of(&k, 1);
	key_of(&other, 2);
	ck_assert_int_eq(zcs_auth_init(&a, &k, 1000, NULL, 0), 0);
	len = sealed_samples(&a, buf, 7, 472);
	ck_assert_uint_eq(len, ZCS_PROTO_SAMPLE_HDR_SIZE + 472 * 3 + ZCS_AUTH_SAMPLE_TRAILER);
	ck_assert_uint_le(len, 1472);
	ck_assert_uint_eq(buf[3], ZCS_AUTH_TYPE_BIT);
	ck_assert_int_eq(zcs_auth_verify(&k, buf, len), ZCS_AUTH_OK);
	ck_assert_int_eq(zcs_auth_verify(&other, buf, len), ZCS_AUTH_BAD);
	/* an unkeyed receiver parses it as the datagram without its trailer */
	ck_assert_int_eq(zcs_proto_parse(buf, len, &dg), 0);
	ck_assert(dg.keyed);
	ck_assert_uint_eq(dg.hdr.seq, 7);
	ck_assert_uint_eq(dg.hdr.samples, 472);
	ck_assert_mem_eq(dg.salt, a.salt, sizeof(a.salt));
	/* every byte, every bit: refused */
	for (size_t i = 0; i < len; i++) {
		for (int bit = 0; bit < 8; bit++) {
			buf[i] ^= (uint8_t)(1u << bit);
			ck_assert_int_ne(zcs_auth_verify(&k, buf, len), ZCS_AUTH_OK);
			buf[i] ^= (uint8_t)(1u << bit);
		}
	}
	/* cut short or grown by a byte */
	for (size_t cut = 1; cut < len; cut += 97)
		ck_assert_int_ne(zcs_auth_verify(&k, buf, len - cut), ZCS_AUTH_OK);
	buf[len] = 0;
	ck_assert_int_ne(zcs_auth_verify(&k, buf, len + 1), ZCS_AUTH_OK);
	ck_assert_int_eq(zcs_auth_verify(&k, buf, len), ZCS_AUTH_OK);
	zcs_auth_wipe(&a);
}
END_TEST

START_TEST(test_eos_and_unkeyed)
{
	struct zcs_key k;
	struct zcs_auth a;
	struct zcs_dgram dg;
	uint8_t buf[128];
	size_t len;

	key_of(&k, 3);
	ck_assert_int_eq(zcs_auth_init(&a, &k, 1, NULL, 0), 0);
	len = sealed_samples(&a, buf, 99, 0);
	ck_assert_uint_eq(len, ZCS_PROTO_SAMPLE_HDR_SIZE + ZCS_AUTH_SAMPLE_TRAILER);
	ck_assert_int_eq(zcs_auth_verify(&k, buf, len), ZCS_AUTH_OK);
	ck_assert_int_eq(zcs_proto_parse(buf, len, &dg), 0);
	ck_assert(dg.hdr.flags & ZCS_FLAG_EOS);
	/* the same datagram without its trailer and type bit is an unkeyed one */
	buf[3] &= (uint8_t)~ZCS_AUTH_TYPE_BIT;
	ck_assert_int_eq(zcs_auth_verify(&k, buf, ZCS_PROTO_SAMPLE_HDR_SIZE), ZCS_AUTH_UNKEYED);
	ck_assert_int_eq(zcs_proto_parse(buf, ZCS_PROTO_SAMPLE_HDR_SIZE, &dg), 0);
	ck_assert(!dg.keyed);
	ck_assert_int_eq(zcs_auth_verify(&k, buf, 0), ZCS_AUTH_UNKEYED);
	/* the type bit with no room for a trailer, or on an unknown type */
	buf[3] = ZCS_AUTH_TYPE_BIT;
	ck_assert_int_eq(zcs_auth_verify(&k, buf, 40), ZCS_AUTH_BAD);
	buf[3] = ZCS_AUTH_TYPE_BIT | 3; /* 2 is parity (revision 8) */
	ck_assert_int_eq(zcs_auth_verify(&k, buf, 56), ZCS_AUTH_BAD);
	ck_assert_int_eq(zcs_proto_parse(buf, 56, &dg), -ZCS_PERR_BAD_TYPE);
}
END_TEST

START_TEST(test_meta_round_trip)
{
	struct zcs_key k;
	struct zcs_auth a;
	struct zcs_dgram dg;
	struct zcs_meta m = {
		.stream_id = 42, .meta_version = 1, .sample_rate = 30720000, .format = ZCS_WIRE_P12,
		.samples_per_dgram = 472, .gain_mode = ZCS_GAIN_UNKNOWN,
	};
	uint8_t buf[ZCS_PROTO_META_SIZE + ZCS_AUTH_META_TRAILER], first[sizeof(buf)];
	size_t len;

	key_of(&k, 4);
	ck_assert_int_eq(zcs_auth_init(&a, &k, 0x1122334455667788ULL, NULL, 0), 0);
	a.run = 0x0102030405060708ULL;
	strcpy(m.sender, "pluto");
	zcs_proto_write_meta(buf, &m);
	len = seal_meta(&a, buf);
	ck_assert_uint_eq(len, sizeof(buf));
	ck_assert_int_eq(zcs_auth_verify(&k, buf, len), ZCS_AUTH_OK);
	ck_assert_int_eq(zcs_proto_parse(buf, len, &dg), 0);
	ck_assert(dg.keyed);
	ck_assert_uint_eq(dg.type, ZCS_DGRAM_META);
	ck_assert_uint_eq(dg.run_start_ns, 0x1122334455667788ULL);
	ck_assert_uint_eq(dg.meta_seq, 0);
	ck_assert_uint_eq(dg.run, 0x0102030405060708ULL);
	ck_assert_uint_eq(dg.meta.sample_rate, 30720000);
	memcpy(first, buf, sizeof(buf));
	/* the next one has the next number, hence another nonce and tag */
	zcs_proto_write_meta(buf, &m);
	ck_assert_uint_eq(seal_meta(&a, buf), len);
	ck_assert_int_eq(zcs_proto_parse(buf, len, &dg), 0);
	ck_assert_uint_eq(dg.meta_seq, 1);
	ck_assert_mem_ne(buf + len - 16, first + len - 16, 16);
	/* a forger renumbering an old one is caught */
	zcs_put_le64(first + ZCS_PROTO_META_SIZE + 8, 5);
	ck_assert_int_eq(zcs_auth_verify(&k, first, len), ZCS_AUTH_BAD);
	zcs_put_le64(first + ZCS_PROTO_META_SIZE + 8, 0);
	ck_assert_int_eq(zcs_auth_verify(&k, first, len), ZCS_AUTH_OK);
	/* ... and so is one giving an old run a later number (to pass for a rebooted board) */
	zcs_put_le64(first + ZCS_PROTO_META_SIZE + 16, 0x0102030405060709ULL);
	ck_assert_int_eq(zcs_auth_verify(&k, first, len), ZCS_AUTH_BAD);
	/* the trailer of revision 4 (no run), tag and all, is no longer a keyed metadata datagram */
	ck_assert_int_eq(zcs_auth_verify(&k, buf, len - 8), ZCS_AUTH_BAD);
	for (size_t i = 0; i < len; i++) {
		buf[i] ^= 0x40;
		ck_assert_int_ne(zcs_auth_verify(&k, buf, len), ZCS_AUTH_OK);
		buf[i] ^= 0x40;
	}
	ck_assert_int_ne(zcs_auth_verify(&k, buf, len - 1), ZCS_AUTH_OK);
}
END_TEST

START_TEST(test_salts_differ)
{
	struct zcs_key k;
	struct zcs_auth a, b;
	uint8_t x[256], y[256];
	size_t lx, ly;

	key_of(&k, 5);
	ck_assert_int_eq(zcs_auth_init(&a, &k, 1, NULL, 0), 0);
	ck_assert_int_eq(zcs_auth_init(&b, &k, 1, NULL, 0), 0);
	/* two runs of one sender: the same datagram gets another tag (another nonce) */
	ck_assert_mem_ne(a.salt, b.salt, sizeof(a.salt));
	lx = sealed_samples(&a, x, 0, 10);
	ly = sealed_samples(&b, y, 0, 10);
	ck_assert_uint_eq(lx, ly);
	ck_assert_mem_eq(x, y, lx - ZCS_AUTH_SAMPLE_TRAILER);
	ck_assert_mem_ne(x + lx - 16, y + ly - 16, 16);
	ck_assert_int_eq(zcs_auth_verify(&k, x, lx), ZCS_AUTH_OK);
	ck_assert_int_eq(zcs_auth_verify(&k, y, ly), ZCS_AUTH_OK);
	/* the tag of one run's datagram under the other's salt does not verify */
	memcpy(y + ly - 24, a.salt, 8);
	ck_assert_int_eq(zcs_auth_verify(&k, y, ly), ZCS_AUTH_BAD);
}
END_TEST

/* docs/protocol.md, "Keyed datagrams", Example: the worked example's datagram keyed. */
START_TEST(test_golden_vector)
{
	static const uint8_t want[62] = {
		0x5a, 0x53, 0x01, 0x80, 0x78, 0x56, 0x34, 0x12, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0xe0, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x04, 0x02, 0x00, 0x06, 0x00, 0x00, 0x00,
		0xff, 0x07, 0x80, 0x01, 0x30, 0x00, 0x5a, 0x43, 0x53, 0x2d, 0x73, 0x61, 0x6c, 0x74, 0x75, 0xde,
		0xd4, 0xe4, 0xb3, 0xdd, 0x2f, 0x10, 0xdf, 0x5d, 0x7b, 0x40, 0x6d, 0x8e, 0x16, 0x10,
	};
	struct zcs_key k;
	struct zcs_auth a;
	uint8_t buf[64];

	for (size_t i = 0; i < sizeof(k.bytes); i++)
		k.bytes[i] = (uint8_t)i;
	ck_assert_int_eq(zcs_auth_init(&a, &k, 0, NULL, 0), 0);
	memcpy(a.salt, "ZCS-salt", sizeof(a.salt));
	memcpy(buf, want, 38);
	buf[3] = 0; /* the unkeyed datagram */
	ck_assert_uint_eq(seal_samples(&a, buf, 38), sizeof(want));
	ck_assert_mem_eq(buf, want, sizeof(want));
	ck_assert_int_eq(zcs_auth_verify(&k, want, sizeof(want)), ZCS_AUTH_OK);
}
END_TEST

/* The same example's metadata counterpart: a metadata datagram sealed as the 8th of run 3, the
 * trailer (run_start_ns, meta_seq, run, salt, tag) checked against
 * tests/security/zcs_auth_ref.py. */
START_TEST(test_meta_golden_vector)
{
	static const uint8_t want_trailer[ZCS_AUTH_META_TRAILER] = {
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5a, 0x43, 0x53, 0x2d,
		0x73, 0x61, 0x6c, 0x74, 0x52, 0xf6, 0xad, 0x31, 0xba, 0xb1, 0x19, 0xb4, 0x55, 0x0a,
		0xe0, 0xd2, 0x8d, 0x26, 0x2e, 0xcd,
	};
	struct zcs_meta m = {
		.stream_id = 0x12345678, .meta_version = 3, .next_seq = 5, .ref_sample = 3040,
		.sample_rate = 2000000, .center_freq = 100000000, .gain_mdb = -1500,
		.gain_mode = ZCS_GAIN_MANUAL, .format = ZCS_WIRE_P12, .samples_per_dgram = 2,
	};
	uint8_t buf[ZCS_PROTO_META_SIZE + ZCS_AUTH_META_TRAILER];
	struct zcs_key k;
	struct zcs_auth a;

	for (size_t i = 0; i < sizeof(k.bytes); i++)
		k.bytes[i] = (uint8_t)i;
	ck_assert_int_eq(zcs_auth_init(&a, &k, 0x1122334455667788ULL, NULL, 0), 0);
	memcpy(a.salt, "ZCS-salt", sizeof(a.salt));
	a.meta_seq = 7;
	a.run = 3;
	strcpy(m.sender, "pluto");
	strcpy(m.version, "1");
	strcpy(m.source, "tone");
	zcs_proto_write_meta(buf, &m);
	ck_assert_uint_eq(seal_meta(&a, buf), sizeof(buf));
	ck_assert_uint_eq(buf[3], ZCS_AUTH_TYPE_BIT | ZCS_DGRAM_META);
	ck_assert_mem_eq(buf + ZCS_PROTO_META_SIZE, want_trailer, sizeof(want_trailer));
	ck_assert_uint_eq(a.meta_seq, 8);
	ck_assert_int_eq(zcs_auth_verify(&k, buf, sizeof(buf)), ZCS_AUTH_OK);
}
END_TEST

/* The tag alone (auth.c knows no datagram): the golden vector's tag from its additional data and
 * the nonce docs/protocol.md spells out; any other byte range, nonce, key or tag is refused. */
START_TEST(test_tag_of_bytes)
{
	static const uint8_t dg[62] = {
		0x5a, 0x53, 0x01, 0x80, 0x78, 0x56, 0x34, 0x12, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0xe0, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x04, 0x02, 0x00, 0x06, 0x00, 0x00, 0x00,
		0xff, 0x07, 0x80, 0x01, 0x30, 0x00, 0x5a, 0x43, 0x53, 0x2d, 0x73, 0x61, 0x6c, 0x74, 0x75, 0xde,
		0xd4, 0xe4, 0xb3, 0xdd, 0x2f, 0x10, 0xdf, 0x5d, 0x7b, 0x40, 0x6d, 0x8e, 0x16, 0x10,
	};
	uint8_t nonce[ZCS_AUTH_NONCE_BYTES] = {
		0x5a, 0x43, 0x53, 0x2d, 0x73, 0x61, 0x6c, 0x74, 0x78, 0x56, 0x34, 0x12, 0x80, 0, 0, 0,
		0x05, 0, 0, 0, 0, 0, 0, 0,
	};
	uint8_t key[ZCS_KEY_BYTES], tag[ZCS_AUTH_TAG_BYTES];

	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)i;
	zcs_auth_tag(key, nonce, dg, 46, tag);
	ck_assert_mem_eq(tag, dg + 46, sizeof(tag));
	ck_assert(zcs_auth_tag_ok(key, nonce, dg, 46, dg + 46));
	ck_assert(!zcs_auth_tag_ok(key, nonce, dg, 45, dg + 46));
	nonce[13] = 1;
	ck_assert(!zcs_auth_tag_ok(key, nonce, dg, 46, dg + 46));
	nonce[13] = 0;
	key[31] ^= 1;
	ck_assert(!zcs_auth_tag_ok(key, nonce, dg, 46, dg + 46));
	key[31] ^= 1;
	tag[15] ^= 0x80;
	ck_assert(!zcs_auth_tag_ok(key, nonce, dg, 46, tag));
}
END_TEST

/* docs/protocol.md, "Keyed datagrams", Example: a keyed metadata datagram of run 7 from a board
 * whose clock reads 12 s after 1970 (revision 5). */
START_TEST(test_golden_meta_vector)
{
	static const uint8_t want[176] = {
		0x5a, 0x53, 0x01, 0x81, 0x78, 0x56, 0x34, 0x12, 0x01, 0x00, 0x00, 0x00, 0x40, 0x9c, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x78, 0x41, 0xcb, 0x02, 0x00, 0x00, 0x00, 0x80, 0x84, 0x1e, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x18, 0xdd, 0x19, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x02, 0x00, 0xd8, 0x01, 0x00, 0x00, 0x70, 0x6c, 0x75, 0x74, 0x6f, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, 0x2e, 0x31, 0x2e, 0x30, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x69, 0x69, 0x6f, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x78, 0x41, 0xcb, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5a, 0x43, 0x53, 0x2d, 0x73, 0x61, 0x6c, 0x74,
		0x03, 0x29, 0x3c, 0x82, 0xa0, 0xaf, 0x94, 0x73, 0xfb, 0x13, 0xab, 0x29, 0xbe, 0xf6, 0x32, 0x67,
	};
	struct zcs_meta m = {
		.stream_id = 0x12345678, .meta_version = 1, .ref_time_ns = 12000000000ULL,
		.sample_rate = 2000000, .center_freq = 433920000, .gain_mdb = 40000,
		.gain_mode = ZCS_GAIN_MANUAL, .format = ZCS_WIRE_P12, .samples_per_dgram = 472,
	};
	struct zcs_key k;
	struct zcs_auth a;
	struct zcs_dgram dg;
	uint8_t buf[sizeof(want)];

	for (size_t i = 0; i < sizeof(k.bytes); i++)
		k.bytes[i] = (uint8_t)i;
	ck_assert_int_eq(zcs_auth_init(&a, &k, 12000000000ULL, NULL, 0), 0);
	memcpy(a.salt, "ZCS-salt", sizeof(a.salt));
	a.run = 7;
	strcpy(m.sender, "pluto");
	strcpy(m.version, "0.1.0");
	strcpy(m.source, "iio");
	zcs_proto_write_meta(buf, &m);
	ck_assert_uint_eq(seal_meta(&a, buf), sizeof(want));
	ck_assert_mem_eq(buf, want, sizeof(want));
	ck_assert_int_eq(zcs_auth_verify(&k, want, sizeof(want)), ZCS_AUTH_OK);
	ck_assert_int_eq(zcs_proto_parse(want, sizeof(want), &dg), 0);
	ck_assert_uint_eq(dg.run, 7);
	ck_assert_uint_eq(dg.run_start_ns, 12000000000ULL);
	ck_assert_uint_eq(dg.meta_seq, 0);
}
END_TEST

/* Tags of the golden vector's 46 bytes under numbers at the keystream's seams, from
 * tests/security/zcs_auth_ref.py (written from docs/protocol.md, "The tag"): 0 and 1 (the two
 * halves of block 0), 2^33 - 2 and 2^33 - 1 (the last block before the counter's low word wraps),
 * 2^33 and 2^33 + 1 (the first after: the high word 1), 2^64 - 2 and 2^64 - 1 (the last block). */
static const struct {
	uint64_t number;
	uint8_t tag[ZCS_AUTH_TAG_BYTES];
} number_vectors[] = {
	{ 0, { 0xdc, 0xc5, 0xdb, 0xc7, 0xe1, 0xc0, 0x93, 0x87, 0x71, 0xf4, 0x8b, 0xd3, 0xbe, 0x54, 0x71, 0xd5 } },
	{ 1, { 0x8b, 0x56, 0xba, 0xfd, 0x50, 0xff, 0xe3, 0xcb, 0x0a, 0x2d, 0xdc, 0x3d, 0xd6, 0x03, 0xb0, 0xe5 } },
	{ 2, { 0xed, 0x94, 0x28, 0xb3, 0x25, 0xce, 0x6e, 0x86, 0x96, 0x63, 0x63, 0x2b, 0x0c, 0xf2, 0x0e, 0x56 } },
	{ 0x1fffffffeULL, { 0xb6, 0x05, 0xef, 0x92, 0x01, 0x24, 0xa2, 0x82, 0x6e, 0x88, 0x16, 0x80, 0xd0, 0xf2, 0x01, 0x81 } },
	{ 0x1ffffffffULL, { 0x1f, 0xd6, 0x94, 0x06, 0x4e, 0xb9, 0x12, 0x56, 0xd5, 0x7b, 0x1b, 0x17, 0x33, 0x9a, 0x84, 0xeb } },
	{ 0x200000000ULL, { 0x75, 0x63, 0x9c, 0xe2, 0xbc, 0x9d, 0x00, 0x89, 0xaf, 0xbc, 0x6d, 0x07, 0xbc, 0xc9, 0xb0, 0xb6 } },
	{ 0x200000001ULL, { 0x1e, 0x44, 0x58, 0x70, 0x8c, 0x2a, 0x25, 0x06, 0xc3, 0x1d, 0x0f, 0x46, 0x14, 0x8d, 0x95, 0xbc } },
	{ 0xfffffffffffffffeULL, { 0xd8, 0x06, 0x8e, 0x1f, 0x5c, 0x96, 0x32, 0x14, 0x20, 0xc0, 0xb7, 0x3b, 0xf1, 0xb6, 0x58, 0x1d } },
	{ 0xffffffffffffffffULL, { 0x90, 0x56, 0xfa, 0x1e, 0xb7, 0x2e, 0x4f, 0xc8, 0xae, 0xba, 0x1e, 0x44, 0xb2, 0x71, 0x07, 0x7e } },
};

/* The golden vector's prefix (salt "ZCS-salt", stream 0x12345678, type 128) with number n. */
static void golden_nonce(uint8_t nonce[ZCS_AUTH_NONCE_BYTES], uint64_t n)
{
	static const uint8_t prefix[16] = {
		0x5a, 0x43, 0x53, 0x2d, 0x73, 0x61, 0x6c, 0x74, 0x78, 0x56, 0x34, 0x12, 0x80, 0, 0, 0,
	};

	memcpy(nonce, prefix, sizeof(prefix));
	zcs_put_le64(nonce + 16, n);
}

/* Each number's tag is the reference's, whichever way it is made: alone (a receiver's
 * zcs_auth_tag), by a tagger unprepared, and by a tagger that prepared a run of numbers across
 * the seam (one keystream call each side of the counter's low word, and the run cut at 2^64 - 1). */
START_TEST(test_number_vectors)
{
	static const uint8_t ad[46] = {
		0x5a, 0x53, 0x01, 0x80, 0x78, 0x56, 0x34, 0x12, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0xe0, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x04, 0x02, 0x00, 0x06, 0x00, 0x00, 0x00,
		0xff, 0x07, 0x80, 0x01, 0x30, 0x00, 0x5a, 0x43, 0x53, 0x2d, 0x73, 0x61, 0x6c, 0x74,
	};
	static const uint64_t starts[] = { 0, 1, 0x1fffffffdULL, 0x1fffffffeULL, 0xffffffffffffffc0ULL,
					   0xfffffffffffffffdULL };
	uint8_t key[ZCS_KEY_BYTES], nonce[ZCS_AUTH_NONCE_BYTES], tag[ZCS_AUTH_TAG_BYTES];
	struct zcs_auth_tagger t;

	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)i;
	ck_assert_int_eq(zcs_auth_tagger_init(&t, key, NULL, 0), 0);
	for (size_t v = 0; v < sizeof(number_vectors) / sizeof(number_vectors[0]); v++) {
		golden_nonce(nonce, number_vectors[v].number);
		zcs_auth_tag(key, nonce, ad, sizeof(ad), tag);
		ck_assert_mem_eq(tag, number_vectors[v].tag, sizeof(tag));
		ck_assert(zcs_auth_tag_ok(key, nonce, ad, sizeof(ad), number_vectors[v].tag));
		zcs_auth_tagger_tag(&t, nonce, ad, sizeof(ad), tag);
		ck_assert_mem_eq(tag, number_vectors[v].tag, sizeof(tag));
	}
	for (size_t s = 0; s < sizeof(starts) / sizeof(starts[0]); s++) {
		golden_nonce(nonce, starts[s]);
		zcs_auth_tagger_prepare(&t, nonce, ZCS_AUTH_TAGGER_OTKS);
		ck_assert_uint_eq(t.otk_count, starts[s] > UINT64_MAX - ZCS_AUTH_TAGGER_OTKS ?
					       UINT64_MAX - starts[s] + 1 : ZCS_AUTH_TAGGER_OTKS);
		for (size_t v = 0; v < sizeof(number_vectors) / sizeof(number_vectors[0]); v++) {
			const uint64_t n = number_vectors[v].number;

			if (n - starts[s] >= ZCS_AUTH_TAGGER_OTKS)
				continue;
			golden_nonce(nonce, n);
			zcs_auth_tagger_tag(&t, nonce, ad, sizeof(ad), tag);
			ck_assert_mem_eq(tag, number_vectors[v].tag, sizeof(tag));
		}
	}
	zcs_auth_tagger_wipe(&t);
}
END_TEST

/* The tagger against zcs_auth_tag (the construction step by step, libsodium alone): random keys,
 * nonces and lengths from 0 to past a jumbo datagram, the tag written apart or right after the
 * bytes (a trailer: with no padding, Poly1305 takes the lengths from there); runs of numbers prepared at random starts
 * (odd and even) and lengths (past the most a tagger prepares), tagged in order as a sender seals a
 * train, with numbers outside the run, other types' prefixes (a metadata datagram between a train's
 * datagrams) and a new run's prefix among them; one tagger reused throughout as a thread reuses its
 * own.  Every tag is zcs_auth_tag's, every flipped bit refused. */
START_TEST(test_tagger_is_the_tag)
{
	enum { ROUNDS = 160, MAXLEN = 9100 };
	static uint8_t bytes[MAXLEN + ZCS_AUTH_TAG_BYTES];
	uint8_t key[ZCS_KEY_BYTES], nonce[ZCS_AUTH_NONCE_BYTES], other[ZCS_AUTH_NONCE_BYTES];
	uint8_t want[16], got[16];
	struct zcs_auth_tagger t;
	size_t tags = 0, prepared = 0;

	randombytes_buf(key, sizeof(key));
	ck_assert_int_eq(zcs_auth_tagger_init(&t, key, NULL, 0), 0);
	randombytes_buf(nonce, sizeof(nonce));
	nonce[12] = 0x80;
	for (int r = 0; r < ROUNDS; r++) {
		const size_t count = randombytes_uniform(ZCS_AUTH_TAGGER_OTKS + 8) + 1;
		uint64_t first;

		if (r % 23 == 0) {
			randombytes_buf(nonce, 12);        /* a new run: new salt and stream */
			randombytes_buf(key, sizeof(key)); /* ... under another key */
			zcs_auth_tagger_wipe(&t);
			ck_assert_int_eq(zcs_auth_tagger_init(&t, key, NULL, 0), 0);
		}
		randombytes_buf(nonce + 16, 8);
		first = zcs_get_le64(nonce + 16);
		if (r % 3 == 0)
			zcs_put_le64(nonce + 16, first >>= 40); /* small numbers, as a run's are */
		if (r % 2 == 0)
			zcs_auth_tagger_prepare(&t, nonce, count);
		for (size_t i = 0; i < count + 2; i++) {
			/* lengths around every multiple of 16 often, any length otherwise */
			const size_t len = i % 3 ? randombytes_uniform(MAXLEN) :
						   (size_t)(i % 97) * 16 + (size_t)(r % 5);
			/* the tag right after the bytes, as a datagram's trailer has it */
			const bool trailer = i % 4 == 3;
			const uint8_t *use = nonce;

			zcs_put_le64(nonce + 16, first + i);
			if (i % 11 == 5) {
				/* a metadata datagram (or parity) of the same run between them */
				memcpy(other, nonce, sizeof(other));
				other[12] = (uint8_t)(0x81 + r % 2);
				zcs_put_le64(other + 16, (uint64_t)r);
				use = other;
			}
			prepared += use == nonce && r % 2 == 0 && i < count;
			randombytes_buf(bytes, len);
			zcs_auth_tag(key, use, bytes, len, want);
			if (trailer) {
				zcs_auth_tagger_tag(&t, use, bytes, len, bytes + len);
				memcpy(got, bytes + len, sizeof(got));
			} else {
				zcs_auth_tagger_tag(&t, use, bytes, len, got);
			}
			ck_assert_mem_eq(got, want, sizeof(want));
			ck_assert(zcs_auth_tagger_ok(&t, use, bytes, len, want));
			want[i % 16] ^= (uint8_t)(1u << (i % 8));
			ck_assert(!zcs_auth_tagger_ok(&t, use, bytes, len, want));
			tags++;
		}
	}
	zcs_auth_tagger_wipe(&t);
	ck_assert_uint_gt(prepared, tags / 3);
	printf("note tagger: Poly1305 from %s; %zu tags, %zu of them prepared\n",
	       zcs_auth_poly1305_impl(), tags, prepared);
}
END_TEST

/* What revision 13 changes for a receiver of revisions 3-12: a datagram tagged by the earlier
 * construction (libsodium's XChaCha20-Poly1305 of the empty message, the one-time key block 0 of
 * the nonce's number) is refused by zcs_auth_verify, and a revision 13 datagram fails the earlier
 * check, whatever its number: keyed senders and receivers are updated together. */
START_TEST(test_earlier_revision_refused)
{
	struct zcs_key k;
	struct zcs_auth a;
	uint8_t buf[128], nonce[ZCS_AUTH_NONCE_BYTES], tag[ZCS_AUTH_TAG_BYTES], none = 0;
	size_t len;

	key_of(&k, 9);
	ck_assert_int_eq(zcs_auth_init(&a, &k, 1, NULL, 0), 0);
	for (uint64_t seq = 0; seq < 4; seq++) {
		len = sealed_samples(&a, buf, seq, 20);
		ck_assert_int_eq(zcs_auth_verify(&k, buf, len), ZCS_AUTH_OK);
		memcpy(nonce, buf + len - 24, 8);
		memcpy(nonce + 8, buf + 4, 4);
		nonce[12] = buf[3];
		memset(nonce + 13, 0, 3);
		memcpy(nonce + 16, buf + 8, 8);
		/* an earlier receiver's check of it */
		ck_assert_int_ne(crypto_aead_xchacha20poly1305_ietf_decrypt_detached(
					 &none, NULL, &none, 0, buf + len - 16, buf, len - 16, nonce,
					 k.bytes), 0);
		/* an earlier sender's tag of the same bytes */
		crypto_aead_xchacha20poly1305_ietf_encrypt_detached(&none, tag, NULL, &none, 0, buf,
								    len - 16, NULL, nonce, k.bytes);
		ck_assert_mem_ne(tag, buf + len - 16, sizeof(tag));
		memcpy(buf + len - 16, tag, sizeof(tag));
		ck_assert_int_eq(zcs_auth_verify(&k, buf, len), ZCS_AUTH_BAD);
	}
	zcs_auth_wipe(&a);
}
END_TEST

static Suite *auth_suite(void)
{
	Suite *s = suite_create("auth");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_samples_round_trip);
	tcase_add_test(tc, test_eos_and_unkeyed);
	tcase_add_test(tc, test_meta_round_trip);
	tcase_add_test(tc, test_salts_differ);
	tcase_add_test(tc, test_golden_vector);
	tcase_add_test(tc, test_meta_golden_vector);
	tcase_add_test(tc, test_tag_of_bytes);
	tcase_add_test(tc, test_golden_meta_vector);
	tcase_add_test(tc, test_number_vectors);
	tcase_add_test(tc, test_tagger_is_the_tag);
	tcase_add_test(tc, test_earlier_revision_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(auth_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
