// SPDX-License-Identifier: MIT
/* Unit tests for common/wire/proto.c: round trips at extreme values, the exact bytes of the spec's
 * worked example, every rejection reason, no read past len (every prefix, exact-size buffers for
 * ASan) and a bit-flip sweep.  Offsets are restated here from docs/protocol.md on purpose. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "proto.h"

#define HDR ZCS_PROTO_SAMPLE_HDR_SIZE
#define META ZCS_PROTO_META_SIZE

/* Builds a valid uncompressed sample datagram of n pairs into buf; returns its length. */
static size_t make_samples(uint8_t *buf, int format, uint16_t n, uint8_t flags, uint64_t seq)
{
	const struct zcs_sample_hdr h = {
		.stream_id = 0x01020304, .seq = seq, .first_sample = seq * n,
		.samples = n, .payload_len = (uint16_t)(n * zcs_wire_pair_bytes(format)),
		.format = (uint8_t)format, .flags = flags,
	};

	zcs_proto_write_sample_hdr(buf, &h);
	for (size_t i = 0; i < h.payload_len; i++)
		buf[HDR + i] = (uint8_t)(i * 7 + 3);
	return HDR + h.payload_len;
}

static struct zcs_meta sample_meta(void)
{
	struct zcs_meta m = {
		.stream_id = 0xdeadbeef, .meta_version = 3, .next_seq = 1000, .ref_sample = 720000,
		.ref_time_ns = 1700000000123456789ull, .sample_rate = 30720000,
		.center_freq = 2400000000ull, .bandwidth = 20000000, .gain_mdb = -12500,
		.gain_mode = ZCS_GAIN_SLOW, .channel = 1, .format = ZCS_WIRE_P12,
		.flags = ZCS_META_FLAG_ZSTD, .samples_per_dgram = 480,
	};

	strcpy(m.sender, "pluto");
	strcpy(m.version, "0.1.0");
	strcpy(m.source, "iio");
	return m;
}

/* Parses len bytes copied into a buffer of exactly len bytes, so ASan sees any overread. */
static int parse_exact(const uint8_t *src, size_t len, struct zcs_dgram *d)
{
	uint8_t *const copy = malloc(len ? len : 1);
	int ret;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, src, len);
	ret = zcs_proto_parse(copy, len, d);
	if (ret == 0 && d->type == ZCS_DGRAM_SAMPLES) {
		ck_assert_ptr_eq(d->payload, copy + HDR);
		ck_assert_uint_eq(HDR + d->hdr.payload_len, len);
	}
	free(copy);
	return ret;
}

/* The fields a round trip must keep, compared one by one (and named in a failure). */
#define HDR_FIELDS(X) X(stream_id) X(seq) X(first_sample) X(samples) X(payload_len) X(format) \
	X(flags)
#define META_FIELDS(X) X(stream_id) X(meta_version) X(next_seq) X(ref_sample) X(ref_time_ns) \
	X(sample_rate) X(center_freq) X(bandwidth) X(gain_mdb) X(gain_mode) X(channel) X(format) \
	X(flags) X(samples_per_dgram)
#define FIELD_EQ(f) \
	ck_assert_msg(a->f == b->f, #f ": %lld != %lld", (long long)a->f, (long long)b->f);

static void assert_hdr_eq(const struct zcs_sample_hdr *a, const struct zcs_sample_hdr *b)
{
	HDR_FIELDS(FIELD_EQ)
}

static void assert_meta_eq(const struct zcs_meta *a, const struct zcs_meta *b)
{
	META_FIELDS(FIELD_EQ)
	ck_assert_str_eq(a->sender, b->sender);
	ck_assert_str_eq(a->version, b->version);
	ck_assert_str_eq(a->source, b->source);
}

START_TEST(test_sample_round_trip)
{
	static const struct zcs_sample_hdr cases[] = {
		{ 0, 0, 0, 1, 2, ZCS_WIRE_I8, 0 },
		{ UINT32_MAX, UINT64_MAX, UINT64_MAX, 720, 1440, ZCS_WIRE_I8, ZCS_FLAGS_KNOWN & ~ZCS_FLAG_ZSTD },
		{ 0x80000000u, 1ull << 63, (1ull << 63) - 1, 480, 1440, ZCS_WIRE_P12, ZCS_FLAG_DISCONT },
		{ 7, 42, 42 * 360, 360, 1440, ZCS_WIRE_I16, 0 },
		{ 7, 43, 43 * 360, 360, 100, ZCS_WIRE_I16, ZCS_FLAG_ZSTD | ZCS_FLAG_EOS },
		{ 1, 2, 3, 0, 0, ZCS_WIRE_P12, ZCS_FLAG_EOS },
		{ 1, 2, 3, 32737, 65474, ZCS_WIRE_I8, 0 },          /* largest i8 datagram */
		{ 1, 2, 3, 21825, 65475, ZCS_WIRE_P12, 0 },         /* largest p12 datagram */
		{ 1, 2, 3, 16368, 65472, ZCS_WIRE_I16, ZCS_FLAG_DISCONT },
	};
	static uint8_t buf[ZCS_PROTO_MAX_DGRAM];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct zcs_dgram d;

		memset(buf, 0xa5, sizeof(buf));
		zcs_proto_write_sample_hdr(buf, &cases[i]);
		ck_assert_int_eq(parse_exact(buf, HDR + cases[i].payload_len, &d), 0);
		ck_assert_int_eq(d.type, ZCS_DGRAM_SAMPLES);
		assert_hdr_eq(&d.hdr, &cases[i]);
	}
}
END_TEST

/* The worked example of docs/protocol.md, byte for byte. */
START_TEST(test_sample_golden_bytes)
{
	static const uint8_t expect[HDR + 6] = {
		0x5a, 0x53, 0x01, 0x00, 0x78, 0x56, 0x34, 0x12,
		0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0xe0, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x02, 0x04, 0x02, 0x00, 0x06, 0x00, 0x00, 0x00,
		0xff, 0x07, 0x80, 0x01, 0x30, 0x00,
	};
	const struct zcs_sample_hdr h = {
		.stream_id = 0x12345678, .seq = 5, .first_sample = 3040, .samples = 2,
		.payload_len = 6, .format = ZCS_WIRE_P12, .flags = ZCS_FLAG_DISCONT,
	};
	uint8_t buf[HDR + 6];
	struct zcs_dgram d;
	const uint8_t *p;

	zcs_proto_write_sample_hdr(buf, &h);
	ck_assert_int_eq(memcmp(buf, expect, HDR), 0);
	ck_assert_int_eq(zcs_proto_parse(expect, sizeof(expect), &d), 0);
	assert_hdr_eq(&d.hdr, &h);
	/* the p12 payload of the example: pair 0 = (2047, -2048), pair 1 = (1, 3) */
	p = d.payload;
	ck_assert_int_eq((int16_t)((p[0] | (p[1] & 0x0f) << 8) << 4) >> 4, 2047);
	ck_assert_int_eq((int16_t)((p[1] >> 4 | p[2] << 4) << 4) >> 4, -2048);
	ck_assert_int_eq((int16_t)((p[3] | (p[4] & 0x0f) << 8) << 4) >> 4, 1);
	ck_assert_int_eq((int16_t)((p[4] >> 4 | p[5] << 4) << 4) >> 4, 3);
}
END_TEST

/* Revision 10's example: metadata announcing erasure coding 32:4 in its version field's
 * attribute, byte for byte (docs/protocol.md, "Metadata datagram"). */
START_TEST(test_meta_fec_golden_bytes)
{
	static const uint8_t expect[META] = {
		0x5a, 0x53, 0x01, 0x01, 0x78, 0x56, 0x34, 0x12, 0x01, 0x00, 0x00, 0x00, 0x40, 0x9c,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x78, 0x41, 0xcb, 0x02, 0x00, 0x00, 0x00, 0x80, 0x84,
		0x1e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x18, 0xdd, 0x19, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0xda, 0x01,
		0x00, 0x00, 0x70, 0x6c, 0x75, 0x74, 0x6f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, 0x2e, 0x31, 0x2e, 0x30, 0x20, 0x66, 0x65,
		0x63, 0x3d, 0x33, 0x32, 0x3a, 0x34, 0x00, 0x00, 0x69, 0x69, 0x6f, 0x00, 0x00, 0x00,
		0x00, 0x00,
	};
	struct zcs_meta m = {
		.stream_id = 0x12345678, .meta_version = 1, .ref_time_ns = 12000000000ULL,
		.sample_rate = 2000000, .center_freq = 433920000, .gain_mdb = 40000,
		.gain_mode = ZCS_GAIN_MANUAL, .format = ZCS_WIRE_P12, .samples_per_dgram = 474,
		.sender = "pluto", .source = "iio",
	};
	uint8_t buf[META];
	struct zcs_dgram d;

	zcs_proto_meta_version(&m, "0.1.0", 32, 4);
	ck_assert_str_eq(m.version, "0.1.0 fec=32:4");
	ck_assert_uint_eq(zcs_proto_write_meta(buf, &m), META);
	ck_assert_int_eq(memcmp(buf, expect, META), 0);
	ck_assert_int_eq(zcs_proto_parse(expect, META, &d), 0);
	ck_assert_uint_eq(d.meta.fec_k, 32);
	ck_assert_uint_eq(d.meta.fec_m, 4);
	ck_assert_str_eq(d.meta.version, "0.1.0 fec=32:4");
}
END_TEST

/* The version's attributes: fec=K:M within the limits is read wherever it stands; anything else
 * is ignored, never rejected (a receiver of an earlier revision accepts every text, and a later
 * revision's attributes must pass this one); the attribute is never cut, the version is. */
START_TEST(test_meta_attributes)
{
	static const struct { const char *text; unsigned k, m; } cases[] = {
		{ "0.1.0", 0, 0 }, { "0.1.0 fec=1:1", 1, 1 }, { "0.1 fec=128:32", 128, 32 },
		{ "1 x=1 fec=64:8", 64, 8 }, { "0.1 fec=64:8 y", 64, 8 },
		{ "0.1.0 fec=0:4", 0, 0 }, { "0.1.0 fec=129:4", 0, 0 }, { "0.1.0 fec=32:33", 0, 0 },
		{ "0.1.0 fec=32:0", 0, 0 }, { "0.1.0 fec=32:4x", 0, 0 }, { "0.1 fec=0032:4", 0, 0 },
		{ "0.1.0 fec=32", 0, 0 }, { "0.1.0 fec=:4", 0, 0 }, { "0.1.0 fec=32:-4", 0, 0 },
		{ "0.1.0 xfec=32:4", 0, 0 }, { "fec=32:4", 0, 0 }, { "0.1.0  fec=32:4", 32, 4 },
		{ "0.1.0 fec=32:4 ", 32, 4 }, { "0.1.0 fec=032:4", 0, 0 }, { "0.1.0 fec=32:04", 0, 0 },
	};
	struct zcs_meta m = sample_meta();
	uint8_t buf[META];
	struct zcs_dgram d;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(m.version, 0, sizeof(m.version));
		memcpy(m.version, cases[i].text, strlen(cases[i].text));
		zcs_proto_write_meta(buf, &m);
		ck_assert_int_eq(zcs_proto_parse(buf, META, &d), 0);
		ck_assert_msg(d.meta.fec_k == cases[i].k && d.meta.fec_m == cases[i].m,
			      "\"%s\": %u:%u", cases[i].text, d.meta.fec_k, d.meta.fec_m);
		ck_assert_str_eq(d.meta.version, cases[i].text);
	}
	/* 15 characters: the version gives way to the attribute */
	zcs_proto_meta_version(&m, "0.1.0", 128, 32);
	ck_assert_str_eq(m.version, "0.1. fec=128:32");
	zcs_proto_write_meta(buf, &m);
	ck_assert_int_eq(zcs_proto_parse(buf, META, &d), 0);
	ck_assert(d.meta.fec_k == 128 && d.meta.fec_m == 32);
	zcs_proto_meta_version(&m, "0.1.0", 0, 0);
	ck_assert_str_eq(m.version, "0.1.0");
	ck_assert_uint_eq(m.fec_k, 0);
}
END_TEST

START_TEST(test_meta_round_trip)
{
	struct zcs_meta cases[3];
	uint8_t buf[META];
	struct zcs_dgram d;

	cases[0] = sample_meta();
	memset(&cases[1], 0, sizeof(cases[1]));
	cases[1].sample_rate = 1;
	cases[1].samples_per_dgram = 1;
	cases[1].format = ZCS_WIRE_I8;
	cases[1].gain_mdb = INT32_MIN;
	cases[2] = (struct zcs_meta){
		.stream_id = UINT32_MAX, .meta_version = UINT32_MAX, .next_seq = UINT64_MAX,
		.ref_sample = UINT64_MAX, .ref_time_ns = UINT64_MAX, .sample_rate = ZCS_PROTO_MAX_RATE,
		.center_freq = UINT64_MAX, .bandwidth = UINT64_MAX, .gain_mdb = INT32_MAX,
		.gain_mode = ZCS_GAIN_UNKNOWN, .channel = 1, .format = ZCS_WIRE_I16,
		.flags = ZCS_META_FLAGS_KNOWN, .samples_per_dgram = 16368,
	};
	memset(cases[2].sender, 'S', 31);
	memset(cases[2].version, 'V', 15);
	memset(cases[2].source, 'R', ZCS_PROTO_META_SOURCE_LEN - 1);

	for (size_t i = 0; i < 3; i++) {
		memset(buf, 0xa5, sizeof(buf));
		ck_assert_uint_eq(zcs_proto_write_meta(buf, &cases[i]), META);
		ck_assert_int_eq(parse_exact(buf, META, &d), 0);
		ck_assert_int_eq(d.type, ZCS_DGRAM_META);
		ck_assert_ptr_null(d.payload);
		assert_meta_eq(&d.meta, &cases[i]);
	}
}
END_TEST

/* A rate above any radio's is malformed metadata: 2^64 - 1 and 2^63 - 1 (what a forger sent,
 * and a SigMF recording then said) are refused, the bound itself taken. */
START_TEST(test_meta_rate_bound)
{
	static const uint64_t refused[] = { UINT64_MAX, INT64_MAX, ZCS_PROTO_MAX_RATE + 1, 0 };
	static const uint64_t taken[] = { 1, 61440000, 1000000000, ZCS_PROTO_MAX_RATE };
	struct zcs_meta m = sample_meta();
	uint8_t buf[META];
	struct zcs_dgram d;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		m.sample_rate = refused[i];
		zcs_proto_write_meta(buf, &m);
		ck_assert_int_eq(zcs_proto_parse(buf, META, &d), -ZCS_PERR_BAD_META);
	}
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
		m.sample_rate = taken[i];
		zcs_proto_write_meta(buf, &m);
		ck_assert_int_eq(zcs_proto_parse(buf, META, &d), 0);
		ck_assert_uint_eq(d.meta.sample_rate, taken[i]);
	}
}
END_TEST

/* The metadata offsets of docs/protocol.md, read back with the LE helpers. */
START_TEST(test_meta_offsets)
{
	const struct zcs_meta m = sample_meta();
	uint8_t buf[META];

	zcs_proto_write_meta(buf, &m);
	ck_assert_int_eq(memcmp(buf, "ZS\x01\x01", 4), 0);
	ck_assert_uint_eq(zcs_get_le32(buf + 4), m.stream_id);
	ck_assert_uint_eq(zcs_get_le32(buf + 8), m.meta_version);
	ck_assert_int_eq((int32_t)zcs_get_le32(buf + 12), m.gain_mdb);
	ck_assert_uint_eq(zcs_get_le64(buf + 16), m.next_seq);
	ck_assert_uint_eq(zcs_get_le64(buf + 24), m.ref_sample);
	ck_assert_uint_eq(zcs_get_le64(buf + 32), m.ref_time_ns);
	ck_assert_uint_eq(zcs_get_le64(buf + 40), m.sample_rate);
	ck_assert_uint_eq(zcs_get_le64(buf + 48), m.center_freq);
	ck_assert_uint_eq(zcs_get_le64(buf + 56), m.bandwidth);
	ck_assert_uint_eq(buf[64], m.gain_mode);
	ck_assert_uint_eq(buf[65], m.channel);
	ck_assert_uint_eq(buf[66], m.format);
	ck_assert_uint_eq(buf[67], m.flags);
	ck_assert_uint_eq(zcs_get_le16(buf + 68), m.samples_per_dgram);
	ck_assert_uint_eq(zcs_get_le16(buf + 70), 0);
	ck_assert_str_eq((const char *)buf + 72, "pluto");
	ck_assert_str_eq((const char *)buf + 104, "0.1.0");
	ck_assert_str_eq((const char *)buf + 120, "iio");
	for (size_t i = 72 + 6; i < 104; i++)
		ck_assert_uint_eq(buf[i], 0);
}
END_TEST

/* Host strings that do not fit (or are not even terminated) are cut, never overrun. */
START_TEST(test_meta_writer_cuts_strings)
{
	struct zcs_meta m = sample_meta();
	uint8_t buf[META];
	struct zcs_dgram d;

	memset(m.sender, 'x', sizeof(m.sender));
	memset(m.version, 'y', sizeof(m.version));
	strcpy(m.source, "synthetic");
	zcs_proto_write_meta(buf, &m);
	ck_assert_int_eq(zcs_proto_parse(buf, META, &d), 0);
	ck_assert_uint_eq(strlen(d.meta.sender), 31);
	ck_assert_uint_eq(strlen(d.meta.version), 15);
	ck_assert_str_eq(d.meta.source, "synthet");
}
END_TEST

struct reject_case {
	const char *what;
	int base;            /* 0: i16 samples, 1: metadata, 2: ZSTD-flagged p12 samples */
	size_t off;          /* first byte to overwrite */
	size_t n;            /* bytes to overwrite (0 means 1) */
	int value;           /* new value, or -1 to leave the bytes alone */
	long len_delta;      /* change of the datagram's length */
	int expect;
};

static const struct reject_case rejects[] = {
	{ "empty", 0, 0, 0, -1, -36 - HDR, ZCS_PERR_TRUNCATED },
	{ "one byte", 0, 0, 0, -1, 1 - 36 - HDR, ZCS_PERR_TRUNCATED },
	{ "magic only", 0, 0, 0, -1, 2 - 36 - HDR, ZCS_PERR_TRUNCATED },
	{ "prefix only", 0, 0, 0, -1, 4 - 36 - HDR, ZCS_PERR_TRUNCATED },
	{ "short header", 0, 0, 0, -1, -37, ZCS_PERR_TRUNCATED },
	{ "magic 0", 0, 0, 0, 'z', 0, ZCS_PERR_BAD_MAGIC },
	{ "magic 1", 0, 1, 0, 's', 0, ZCS_PERR_BAD_MAGIC },
	{ "magic in a 1-byte dgram", 0, 0, 0, 0, 1 - 36 - HDR, ZCS_PERR_TRUNCATED },
	{ "version 0", 0, 2, 0, 0, 0, ZCS_PERR_BAD_VERSION },
	{ "version 2", 0, 2, 0, 2, 0, ZCS_PERR_BAD_VERSION },
	{ "version 2, 3 bytes", 0, 2, 0, 2, 3 - 36 - HDR, ZCS_PERR_BAD_VERSION },
	{ "type 3", 0, 3, 0, 3, 0, ZCS_PERR_BAD_TYPE },
	{ "type 255", 1, 3, 0, 255, 0, ZCS_PERR_BAD_TYPE },
	{ "format 0", 0, 24, 0, 0, 0, ZCS_PERR_BAD_FORMAT },
	{ "format 4", 0, 24, 0, 4, 0, ZCS_PERR_BAD_FORMAT },
	{ "flag bit 3", 0, 25, 0, 0x08, 0, ZCS_PERR_RESERVED },
	{ "flag bit 7", 0, 25, 0, 0x80, 0, ZCS_PERR_RESERVED },
	{ "reserved 30", 0, 30, 0, 1, 0, ZCS_PERR_RESERVED },
	{ "reserved 31", 0, 31, 0, 0x80, 0, ZCS_PERR_RESERVED },
	{ "one byte more", 0, 0, 0, -1, 1, ZCS_PERR_BAD_LENGTH },
	{ "one byte less", 0, 0, 0, -1, -1, ZCS_PERR_BAD_LENGTH },
	{ "payload_len low", 0, 28, 0, 35, 0, ZCS_PERR_BAD_LENGTH },
	{ "samples != payload", 0, 26, 0, 8, 0, ZCS_PERR_BAD_COUNT },
	{ "zero samples without EOS", 0, 26, 0, 0, 0, ZCS_PERR_BAD_COUNT },
	{ "count over the maximum", 0, 27, 0, 0x40, 0, ZCS_PERR_BAD_COUNT },
	{ "zstd not smaller", 2, 28, 0, 36, 16, ZCS_PERR_BAD_COUNT },
	{ "zstd length mismatch", 2, 28, 0, 36, 0, ZCS_PERR_BAD_LENGTH },
	{ "meta short", 1, 0, 0, -1, -1, ZCS_PERR_TRUNCATED },
	{ "meta long", 1, 0, 0, -1, 1, ZCS_PERR_BAD_LENGTH },
	{ "meta reserved", 1, 71, 0, 1, 0, ZCS_PERR_RESERVED },
	{ "meta flag bit 2", 1, 67, 0, 0x04, 0, ZCS_PERR_RESERVED },
	{ "meta format 0", 1, 66, 0, 0, 0, ZCS_PERR_BAD_FORMAT },
	{ "meta format 9", 1, 66, 0, 9, 0, ZCS_PERR_BAD_FORMAT },
	{ "meta rate 0", 1, 40, 8, 0, 0, ZCS_PERR_BAD_META },
	{ "meta gain mode 4", 1, 64, 0, 4, 0, ZCS_PERR_BAD_META },
	{ "meta gain mode 254", 1, 64, 0, 254, 0, ZCS_PERR_BAD_META },
	{ "meta channel 2", 1, 65, 0, 2, 0, ZCS_PERR_BAD_META },
	{ "meta spd 0", 1, 68, 2, 0, 0, ZCS_PERR_BAD_META },
	{ "meta spd too big", 1, 69, 0, 0xff, 0, ZCS_PERR_BAD_META },
	{ "sender unterminated", 1, 72, 32, 'x', 0, ZCS_PERR_BAD_META },
	{ "version unterminated", 1, 104, 16, 'x', 0, ZCS_PERR_BAD_META },
	{ "source unterminated", 1, 120, 8, 'x', 0, ZCS_PERR_BAD_META },
	{ "sender not zero padded", 1, 100, 0, 'x', 0, ZCS_PERR_RESERVED },
	{ "version not zero padded", 1, 110, 0, 1, 0, ZCS_PERR_RESERVED },
	{ "source not zero padded", 1, 125, 0, 'x', 0, ZCS_PERR_RESERVED },
	/* strings go to JSON, SigMF and terminals: UTF-8 without control characters only */
	{ "sender newline", 1, 72, 0, '\n', 0, ZCS_PERR_BAD_META },
	{ "version escape", 1, 104, 0, 0x1b, 0, ZCS_PERR_BAD_META },
	{ "version DEL", 1, 105, 0, 0x7f, 0, ZCS_PERR_BAD_META },
	{ "source not UTF-8", 1, 120, 0, 0xff, 0, ZCS_PERR_BAD_META },
	{ "sender cut UTF-8", 1, 72, 0, 0xc3, 0, ZCS_PERR_BAD_META },
};

START_TEST(test_rejections)
{
	const struct reject_case *const c = &rejects[_i];
	uint8_t buf[META + 8] = { 0 };
	size_t len;
	struct zcs_dgram d;
	int ret;

	if (c->base == 1) {
		const struct zcs_meta m = sample_meta();

		len = zcs_proto_write_meta(buf, &m);
	} else if (c->base == 2) {
		/* 12 p12 pairs (36 raw bytes) "compressed" to 20 bytes: framing is all parse checks */
		const struct zcs_sample_hdr h = { 9, 1, 12, 12, 20, ZCS_WIRE_P12, ZCS_FLAG_ZSTD };

		zcs_proto_write_sample_hdr(buf, &h);
		len = HDR + 20;
		ck_assert_int_eq(zcs_proto_parse(buf, len, &d), 0);
	} else {
		len = make_samples(buf, ZCS_WIRE_I16, 9, 0, 1);   /* 36-byte payload */
	}
	ck_assert_int_eq(zcs_proto_parse(buf, len, &d), 0);
	if (c->value >= 0)
		memset(buf + c->off, c->value, c->n ? c->n : 1);
	len = (size_t)((long)len + c->len_delta);
	ret = parse_exact(buf, len, &d);
	ck_assert_msg(ret == -c->expect, "%s: got %d (%s), want %s", c->what, ret,
		      zcs_proto_err_name(ret), zcs_proto_err_name(c->expect));
}
END_TEST

/* ZSTD framing has its own edges: an empty frame and one as long as the raw samples. */
START_TEST(test_zstd_framing)
{
	uint8_t buf[HDR + 64] = { 0 };
	struct zcs_sample_hdr h = { 9, 1, 12, 12, 35, ZCS_WIRE_P12, ZCS_FLAG_ZSTD };
	struct zcs_dgram d;

	zcs_proto_write_sample_hdr(buf, &h);
	ck_assert_int_eq(zcs_proto_parse(buf, HDR + 35, &d), 0);
	ck_assert_uint_eq(zcs_proto_sample_bytes(&d.hdr), 36);
	h.payload_len = 36;
	zcs_proto_write_sample_hdr(buf, &h);
	ck_assert_int_eq(zcs_proto_parse(buf, HDR + 36, &d), -ZCS_PERR_BAD_COUNT);
	h.payload_len = 0;
	zcs_proto_write_sample_hdr(buf, &h);
	ck_assert_int_eq(zcs_proto_parse(buf, HDR, &d), -ZCS_PERR_BAD_COUNT);
	/* an EOS datagram with no samples cannot be compressed either */
	h.samples = 0;
	h.flags |= ZCS_FLAG_EOS;
	h.payload_len = 1;
	zcs_proto_write_sample_hdr(buf, &h);
	ck_assert_int_eq(zcs_proto_parse(buf, HDR + 1, &d), -ZCS_PERR_BAD_COUNT);
}
END_TEST

/* Every proper prefix of a valid datagram is rejected, from an exact-size buffer. */
START_TEST(test_prefixes)
{
	static uint8_t buf[ZCS_PROTO_MAX_DGRAM];
	size_t lens[5];
	struct zcs_dgram d;
	const struct zcs_meta m = sample_meta();
	const struct zcs_sample_hdr z = { 9, 1, 12, 480, 700, ZCS_WIRE_P12, ZCS_FLAG_ZSTD };

	for (size_t k = 0; k < 5; k++) {
		if (k < 3) {
			const int f = (int)k + 1;

			lens[k] = make_samples(buf, f, (uint16_t)zcs_proto_max_samples(f, 1472), 0, 5);
		} else if (k == 3) {
			lens[k] = zcs_proto_write_meta(buf, &m);
		} else {
			zcs_proto_write_sample_hdr(buf, &z);
			lens[k] = HDR + 700;
		}
		for (size_t n = 0; n <= lens[k]; n++) {
			const int ret = parse_exact(buf, n, &d);

			if (n == lens[k])
				ck_assert_int_eq(ret, 0);
			else if (n < 4 || (k == 3 && n < META) || (k != 3 && n < HDR))
				ck_assert_int_eq(ret, -ZCS_PERR_TRUNCATED);
			else
				ck_assert_int_eq(ret, -ZCS_PERR_BAD_LENGTH);
		}
	}
}
END_TEST

/* Flipping any bit of a valid datagram never crashes; an accepted result re-encodes exactly. */
static void flip_sweep(uint8_t *dg, size_t len)
{
	uint8_t *const copy = malloc(len);
	uint8_t again[META];
	struct zcs_dgram d;
	size_t accepted = 0;

	ck_assert_ptr_nonnull(copy);
	for (size_t i = 0; i < len; i++) {
		for (int bit = 0; bit < 8; bit++) {
			int ret;

			memcpy(copy, dg, len);
			copy[i] ^= (uint8_t)(1u << bit);
			ret = zcs_proto_parse(copy, len, &d);
			ck_assert_msg(ret <= 0 && ret > -ZCS_PERR_DECOMPRESS, "byte %zu bit %d: %d", i, bit, ret);
			if (ret)
				continue;
			accepted++;
			if (d.type == ZCS_DGRAM_META) {
				zcs_proto_write_meta(again, &d.meta);
				ck_assert_int_eq(memcmp(again, copy, META), 0);
			} else {
				zcs_proto_write_sample_hdr(again, &d.hdr);
				ck_assert_int_eq(memcmp(again, copy, HDR), 0);
				ck_assert_ptr_eq(d.payload, copy + HDR);
			}
		}
	}
	/* payload bits and most header values are free: plenty of flips must still parse */
	ck_assert_uint_gt(accepted, 8 * len / 4);
	free(copy);
}

START_TEST(test_flip_sweep)
{
	uint8_t buf[HDR + 60];
	const struct zcs_meta m = sample_meta();
	uint8_t mbuf[META];

	flip_sweep(buf, make_samples(buf, ZCS_WIRE_P12, 20, ZCS_FLAG_DISCONT, 77));
	zcs_proto_write_meta(mbuf, &m);
	flip_sweep(mbuf, META);
}
END_TEST

START_TEST(test_sizes)
{
	static const size_t v4[] = { 720, 480, 360 }, v6[] = { 710, 473, 355 };

	ck_assert_uint_eq(zcs_proto_udp_payload(1500, false), 1472);
	ck_assert_uint_eq(zcs_proto_udp_payload(1500, true), 1452);
	ck_assert_uint_eq(zcs_proto_udp_payload(28, false), 0);
	ck_assert_uint_eq(zcs_proto_udp_payload(48, true), 0);
	ck_assert_uint_eq(zcs_proto_udp_payload(0, true), 0);
	ck_assert_uint_eq(zcs_proto_udp_payload(65536, false), ZCS_PROTO_MAX_DGRAM);
	for (int f = 1; f <= ZCS_WIRE_MAX; f++) {
		ck_assert_uint_eq(zcs_proto_max_samples(f, zcs_proto_udp_payload(1500, false)), v4[f - 1]);
		ck_assert_uint_eq(zcs_proto_max_samples(f, zcs_proto_udp_payload(1500, true)), v6[f - 1]);
		ck_assert_uint_eq(zcs_proto_max_samples(f, HDR), 0);
		ck_assert_uint_eq(zcs_proto_max_samples(f, 0), 0);
		/* the largest count must itself pass the parser's limit */
		ck_assert_uint_le(zcs_proto_max_samples(f, SIZE_MAX) * zcs_wire_pair_bytes(f),
				  ZCS_PROTO_MAX_DGRAM - HDR);
	}
	ck_assert_uint_eq(zcs_proto_max_samples(ZCS_WIRE_I8, SIZE_MAX), 32737);
	ck_assert_uint_eq(zcs_proto_max_samples(0, 1472), 0);
	ck_assert_uint_eq(zcs_proto_max_samples(4, 1472), 0);
	ck_assert_uint_eq(zcs_proto_udp_payload(ZCS_PROTO_MIN_MTU, true) > HDR, 1);
}
END_TEST

START_TEST(test_err_names)
{
	static const char *const want[] = {
		"none", "truncated", "bad_magic", "bad_version", "bad_type", "bad_format",
		"bad_length", "bad_count", "reserved", "bad_meta", "decompress", "auth",
	};

	ck_assert_uint_eq(sizeof(want) / sizeof(want[0]), ZCS_PERR_COUNT);
	for (int e = 0; e < ZCS_PERR_COUNT; e++) {
		ck_assert_str_eq(zcs_proto_err_name(e), want[e]);
		ck_assert_str_eq(zcs_proto_err_name(-e), want[e]);
	}
	ck_assert_str_eq(zcs_proto_err_name(ZCS_PERR_COUNT), "unknown");
	ck_assert_str_eq(zcs_proto_err_name(-ZCS_PERR_COUNT), "unknown");
	ck_assert_str_eq(zcs_proto_err_name(INT32_MIN), "unknown");
	ck_assert_str_eq(zcs_proto_err_name(INT32_MAX), "unknown");
}
END_TEST

static Suite *proto_suite(void)
{
	Suite *s = suite_create("proto");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_sample_round_trip);
	tcase_add_test(tc, test_sample_golden_bytes);
	tcase_add_test(tc, test_meta_round_trip);
	tcase_add_test(tc, test_meta_rate_bound);
	tcase_add_test(tc, test_meta_offsets);
	tcase_add_test(tc, test_meta_writer_cuts_strings);
	tcase_add_loop_test(tc, test_rejections, 0, (int)(sizeof(rejects) / sizeof(rejects[0])));
	tcase_add_test(tc, test_zstd_framing);
	tcase_add_test(tc, test_prefixes);
	tcase_add_test(tc, test_flip_sweep);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_err_names);
	tcase_add_test(tc, test_meta_fec_golden_bytes);
	tcase_add_test(tc, test_meta_attributes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(proto_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
