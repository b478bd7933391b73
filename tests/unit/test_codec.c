// SPDX-License-Identifier: MIT
/* Unit tests for common/wire/codec.c: tone-like samples round trip and shrink, noise goes raw, corrupt
 * or oversized frames are -EBADMSG, and every frame decodes alone (no state between frames). */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "proto.h"
#include "zcs_config.h"

#define PAIRS 360                 /* a full i16 datagram at MTU 1500 */
#define RAW (PAIRS * 4)

/* i16 wire samples of a tone a quarter of full scale, period 32 pairs, starting at pair `start`. */
static void make_tone(uint8_t *buf, size_t start)
{
	for (size_t i = 0; i < PAIRS; i++) {
		const double ph = 2.0 * M_PI * (double)(start + i) / 32.0;
		const int16_t iv = (int16_t)lrint(500.0 * cos(ph)), qv = (int16_t)lrint(500.0 * sin(ph));

		buf[4 * i] = (uint8_t)iv;
		buf[4 * i + 1] = (uint8_t)((uint16_t)iv >> 8);
		buf[4 * i + 2] = (uint8_t)qv;
		buf[4 * i + 3] = (uint8_t)((uint16_t)qv >> 8);
	}
}

static void make_noise(uint8_t *buf, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		buf[i] = (uint8_t)(seed >> 24);
	}
}

#if ZCS_HAVE_ZSTD

/* A codec at level 3 into *c, and the frame of a tone (into raw) compressed into frame[cap]:
 * returns the frame's length, checked to be > 0. */
static ssize_t tone_frame(struct zcs_codec **c, uint8_t *raw, uint8_t *frame, size_t cap)
{
	ssize_t n;

	ck_assert_int_eq(zcs_codec_create(c, 3, ZCS_CODEC_ENCODE | ZCS_CODEC_DECODE), 0);
	make_tone(raw, 0);
	n = zcs_codec_compress(*c, frame, cap, raw, RAW);
	ck_assert_int_gt(n, 0);
	return n;
}

START_TEST(test_create)
{
	struct zcs_codec *c = (struct zcs_codec *)&c;

	ck_assert_int_eq(zcs_codec_create(&c, -1, ZCS_CODEC_ENCODE | ZCS_CODEC_DECODE), -EINVAL);
	ck_assert_ptr_null(c);
	ck_assert_int_eq(zcs_codec_create(&c, 1000, ZCS_CODEC_ENCODE | ZCS_CODEC_DECODE), -EINVAL);
	ck_assert_int_eq(zcs_codec_create(&c, 0, ZCS_CODEC_ENCODE | ZCS_CODEC_DECODE), 0);
	zcs_codec_destroy(c);
	ck_assert_int_eq(zcs_codec_create(&c, 19, ZCS_CODEC_ENCODE | ZCS_CODEC_DECODE), 0);
	zcs_codec_destroy(c);
	zcs_codec_destroy(NULL);
	ck_assert_int_eq(zcs_codec_create(&c, 3, 0), -EINVAL);
	ck_assert_int_eq(zcs_codec_create(&c, 3, 4), -EINVAL);
}
END_TEST

/* Regression recv_no_cctx: zcs-recv allocated a compression context it never used.  A codec has
 * only the contexts asked for, and refuses the other way. */
START_TEST(test_recv_no_cctx)
{
	struct zcs_codec *dec, *enc;
	uint8_t raw[RAW], frame[RAW], back[RAW];
	ssize_t n;

	ck_assert_int_eq(zcs_codec_create(&dec, 1, ZCS_CODEC_DECODE), 0);
	ck_assert_int_eq(zcs_codec_create(&enc, 3, ZCS_CODEC_ENCODE), 0);
	ck_assert(zcs_codec_can(dec, ZCS_CODEC_DECODE) && !zcs_codec_can(dec, ZCS_CODEC_ENCODE));
	ck_assert(zcs_codec_can(enc, ZCS_CODEC_ENCODE) && !zcs_codec_can(enc, ZCS_CODEC_DECODE));
	make_tone(raw, 0);
	ck_assert_int_eq(zcs_codec_compress(dec, frame, sizeof(frame), raw, RAW), -EINVAL);
	n = zcs_codec_compress(enc, frame, sizeof(frame), raw, RAW);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(zcs_codec_decompress(enc, back, RAW, frame, (size_t)n), -EINVAL);
	ck_assert_int_eq(zcs_codec_decompress(dec, back, RAW, frame, (size_t)n), RAW);
	ck_assert_mem_eq(back, raw, RAW);
	zcs_codec_destroy(dec);
	zcs_codec_destroy(enc);
}
END_TEST

START_TEST(test_tone_round_trip)
{
	uint8_t raw[RAW], frame[RAW], out[RAW + 16];
	struct zcs_codec *c;
	ssize_t n, m;

	n = tone_frame(&c, raw, frame, sizeof(frame));
	ck_assert_int_lt(n, RAW / 4);
	m = zcs_codec_decompress(c, out, sizeof(out), frame, (size_t)n);
	ck_assert_int_eq(m, RAW);
	ck_assert_int_eq(memcmp(out, raw, RAW), 0);
	/* an exact-size destination is enough */
	ck_assert_int_eq(zcs_codec_decompress(c, out, RAW, frame, (size_t)n), RAW);
	zcs_codec_destroy(c);
}
END_TEST

START_TEST(test_noise_goes_raw)
{
	uint8_t raw[RAW], frame[2 * RAW];
	struct zcs_codec *c;

	ck_assert_int_eq(zcs_codec_create(&c, 3, ZCS_CODEC_ENCODE | ZCS_CODEC_DECODE), 0);
	for (uint64_t seed = 1; seed < 5; seed++) {
		make_noise(raw, RAW, seed * 0x9e3779b97f4a7c15ull);
		ck_assert_int_eq(zcs_codec_compress(c, frame, sizeof(frame), raw, RAW), 0);
	}
	/* nothing to gain from empty or one-byte inputs */
	ck_assert_int_eq(zcs_codec_compress(c, frame, sizeof(frame), raw, 0), 0);
	ck_assert_int_eq(zcs_codec_compress(c, frame, sizeof(frame), raw, 1), 0);
	/* a destination too small for the frame also means "send raw" */
	make_tone(raw, 0);
	ck_assert_int_eq(zcs_codec_compress(c, frame, 8, raw, RAW), 0);
	zcs_codec_destroy(c);
}
END_TEST

START_TEST(test_corrupt_frames)
{
	uint8_t raw[RAW], frame[RAW + 8], bad[RAW + 8], out[RAW];
	struct zcs_codec *c;
	const ssize_t n = tone_frame(&c, raw, frame, sizeof(frame));

	ck_assert_int_gt(n, 8);

	/* wrong magic, truncated, trailing byte, empty, noise */
	memcpy(bad, frame, (size_t)n);
	bad[0] ^= 0xff;
	ck_assert_int_eq(zcs_codec_decompress(c, out, sizeof(out), bad, (size_t)n), -EBADMSG);
	ck_assert_int_eq(zcs_codec_decompress(c, out, sizeof(out), frame, (size_t)n - 1), -EBADMSG);
	memcpy(bad, frame, (size_t)n);
	bad[n] = 0;
	ck_assert_int_eq(zcs_codec_decompress(c, out, sizeof(out), bad, (size_t)n + 1), -EBADMSG);
	ck_assert_int_eq(zcs_codec_decompress(c, out, sizeof(out), frame, 0), -EBADMSG);
	make_noise(bad, sizeof(bad), 42);
	ck_assert_int_eq(zcs_codec_decompress(c, out, sizeof(out), bad, sizeof(bad)), -EBADMSG);
	/* two frames back to back are not one datagram's payload */
	ck_assert_uint_le(2 * (size_t)n, sizeof(bad));
	memcpy(bad, frame, (size_t)n);
	memcpy(bad + n, frame, (size_t)n);
	ck_assert_int_eq(zcs_codec_decompress(c, out, sizeof(out), bad, 2 * (size_t)n), -EBADMSG);

	/* any single corrupted byte: an error or at most cap bytes, never a crash; the codec is
	 * still good afterwards */
	for (ssize_t i = 0; i < n; i++) {
		ssize_t r;

		memcpy(bad, frame, (size_t)n);
		bad[i] ^= 0x5a;
		r = zcs_codec_decompress(c, out, sizeof(out), bad, (size_t)n);
		ck_assert(r == -EBADMSG || (r >= 0 && r <= (ssize_t)sizeof(out)));
	}
	ck_assert_int_eq(zcs_codec_decompress(c, out, sizeof(out), frame, (size_t)n), RAW);
	ck_assert_int_eq(memcmp(out, raw, RAW), 0);
	zcs_codec_destroy(c);
}
END_TEST

START_TEST(test_cap_too_small)
{
	uint8_t raw[RAW], frame[RAW], out[RAW];
	struct zcs_codec *c;
	const ssize_t n = tone_frame(&c, raw, frame, sizeof(frame));

	ck_assert_int_eq(zcs_codec_decompress(c, out, RAW - 1, frame, (size_t)n), -EBADMSG);
	ck_assert_int_eq(zcs_codec_decompress(c, out, 0, frame, (size_t)n), -EBADMSG);
	zcs_codec_destroy(c);
}
END_TEST

START_TEST(test_frames_independent)
{
	uint8_t raw1[RAW], raw2[RAW], f1[RAW], f2[RAW], f2b[RAW], out[RAW];
	struct zcs_codec *tx, *rx, *fresh;
	ssize_t n1, n2, n2b;

	ck_assert_int_eq(zcs_codec_create(&tx, 3, ZCS_CODEC_ENCODE | ZCS_CODEC_DECODE), 0);
	ck_assert_int_eq(zcs_codec_create(&rx, 3, ZCS_CODEC_ENCODE | ZCS_CODEC_DECODE), 0);
	ck_assert_int_eq(zcs_codec_create(&fresh, 3, ZCS_CODEC_ENCODE | ZCS_CODEC_DECODE), 0);
	make_tone(raw1, 0);
	make_tone(raw2, PAIRS);  /* the continuation: would compress better against frame 1 */
	n1 = zcs_codec_compress(tx, f1, sizeof(f1), raw1, RAW);
	n2 = zcs_codec_compress(tx, f2, sizeof(f2), raw2, RAW);
	ck_assert_int_gt(n1, 0);
	ck_assert_int_gt(n2, 0);
	/* frame 2 is the same bytes whether or not frame 1 went through the compressor first */
	n2b = zcs_codec_compress(fresh, f2b, sizeof(f2b), raw2, RAW);
	ck_assert_int_eq(n2b, n2);
	ck_assert_int_eq(memcmp(f2, f2b, (size_t)n2), 0);
	/* and decodes on a receiver that never saw frame 1 */
	ck_assert_int_eq(zcs_codec_decompress(rx, out, sizeof(out), f2, (size_t)n2), RAW);
	ck_assert_int_eq(memcmp(out, raw2, RAW), 0);
	ck_assert_int_eq(zcs_codec_decompress(rx, out, sizeof(out), f1, (size_t)n1), RAW);
	ck_assert_int_eq(memcmp(out, raw1, RAW), 0);
	zcs_codec_destroy(fresh);
	zcs_codec_destroy(rx);
	zcs_codec_destroy(tx);
}
END_TEST

/* The receiver's DECOMPRESS check, as docs/protocol.md puts it: a ZSTD datagram that parses but
 * whose frame does not decode to exactly samples * pair bytes. */
static int receive(struct zcs_codec *c, const uint8_t *dg, size_t len, uint8_t *out)
{
	struct zcs_dgram d;
	ssize_t n;
	int ret;

	ret = zcs_proto_parse(dg, len, &d);
	if (ret < 0)
		return ret;
	n = zcs_codec_decompress(c, out, zcs_proto_sample_bytes(&d.hdr), d.payload, d.hdr.payload_len);
	if (n < 0 || (size_t)n != zcs_proto_sample_bytes(&d.hdr))
		return -ZCS_PERR_DECOMPRESS;
	return 0;
}

START_TEST(test_decompress_reason)
{
	uint8_t raw[RAW], dg[ZCS_PROTO_SAMPLE_HDR_SIZE + RAW], out[RAW + 8];
	struct zcs_sample_hdr h = { 1, 2, 3, PAIRS, 0, ZCS_WIRE_I16, ZCS_FLAG_ZSTD };
	struct zcs_codec *c;
	const ssize_t n = tone_frame(&c, raw, dg + ZCS_PROTO_SAMPLE_HDR_SIZE, RAW);

	h.payload_len = (uint16_t)n;
	zcs_proto_write_sample_hdr(dg, &h);
	ck_assert_int_eq(receive(c, dg, ZCS_PROTO_SAMPLE_HDR_SIZE + (size_t)n, out), 0);
	ck_assert_int_eq(memcmp(out, raw, RAW), 0);
	/* one pair more announced than the frame holds: decodes short */
	h.samples = PAIRS + 1;
	zcs_proto_write_sample_hdr(dg, &h);
	ck_assert_int_eq(receive(c, dg, ZCS_PROTO_SAMPLE_HDR_SIZE + (size_t)n, out), -ZCS_PERR_DECOMPRESS);
	/* one pair fewer: the frame does not fit the announced size */
	h.samples = PAIRS - 1;
	zcs_proto_write_sample_hdr(dg, &h);
	ck_assert_int_eq(receive(c, dg, ZCS_PROTO_SAMPLE_HDR_SIZE + (size_t)n, out), -ZCS_PERR_DECOMPRESS);
	/* garbage that parses as a frame-sized payload */
	h.samples = PAIRS;
	zcs_proto_write_sample_hdr(dg, &h);
	make_noise(dg + ZCS_PROTO_SAMPLE_HDR_SIZE, (size_t)n, 7);
	ck_assert_int_eq(receive(c, dg, ZCS_PROTO_SAMPLE_HDR_SIZE + (size_t)n, out), -ZCS_PERR_DECOMPRESS);
	zcs_codec_destroy(c);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_test(tc, test_create);
	tcase_add_test(tc, test_recv_no_cctx);
	tcase_add_test(tc, test_decompress_reason);
	tcase_add_test(tc, test_tone_round_trip);
	tcase_add_test(tc, test_noise_goes_raw);
	tcase_add_test(tc, test_corrupt_frames);
	tcase_add_test(tc, test_cap_too_small);
	tcase_add_test(tc, test_frames_independent);
}

#else /* !ZCS_HAVE_ZSTD */

START_TEST(test_not_supported)
{
	struct zcs_codec *c = (struct zcs_codec *)&c;
	uint8_t raw[RAW], frame[RAW];

	make_tone(raw, 0);
	make_noise(frame, sizeof(frame), 1);
	ck_assert_int_eq(zcs_codec_create(&c, 3, ZCS_CODEC_ENCODE | ZCS_CODEC_DECODE), -ENOTSUP);
	ck_assert_ptr_null(c);
	ck_assert_int_eq(zcs_codec_compress(NULL, frame, sizeof(frame), raw, RAW), -ENOTSUP);
	ck_assert_int_eq(zcs_codec_decompress(NULL, raw, RAW, frame, 100), -ENOTSUP);
	zcs_codec_destroy(NULL);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_test(tc, test_not_supported);
}

#endif

static Suite *codec_suite(void)
{
	Suite *s = suite_create("codec");
	TCase *tc = tcase_create("core");

	add_tests(tc);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(codec_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
