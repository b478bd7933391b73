// SPDX-License-Identifier: MIT
/* Unit tests for receiver/core/gapfill.c, the product's promise of exact loss and true time: in
 * order, loss (zero-filled to the sample, or skipped with --gap drop), losses before the first
 * datagram, a source discontinuity (DISCONT: the sender's loss kept apart from the network's),
 * jumps back and beyond what loss explains (taken as is, never filled), and --count ending
 * exactly, mid-datagram and mid-gap; a change of wire format (exact across it; -F native
 * ends).  The samples go through real outputs into a file. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytes.h"
#include "gapfill.h"
#include "output.h"
#include "proto.h"

#define SPD 360 /* pairs per datagram, as i16 at MTU 1500 */
#define VAL 5   /* every received sample's I and Q: cs16 is VAL << 4 */

struct rig {
	char dir[64], path[96];
	struct zcs_outputs *out;
	struct zcs_kernels k;
	struct zcs_gapfill g;
	uint8_t payload[SPD * 4];
};

static void rig_open_type(struct rig *r, enum zcs_sample_type type, bool drop, uint64_t limit)
{
	char spec[128], err[256];

	snprintf(r->dir, sizeof(r->dir), "/tmp/zcs-test-gapfill-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(r->dir));
	snprintf(r->path, sizeof(r->path), "%s/out.cs16", r->dir);
	snprintf(spec, sizeof(spec), "file:%s", r->path);
	ck_assert_int_eq(zcs_kernels_init(&r->k, ZCS_ISA_SCALAR), 0);
	ck_assert_int_eq(zcs_outputs_create(&r->out, type), 0);
	ck_assert_int_eq(zcs_outputs_add(r->out, spec, err, sizeof(err)), 0);
	ck_assert_int_eq(zcs_outputs_start(r->out), 0);
	zcs_gapfill_init(&r->g, r->out, &r->k, type, drop, limit);
	zcs_gapfill_restart(&r->g, SPD);
	for (size_t i = 0; i < 2 * SPD; i++)
		zcs_put_le16(r->payload + 2 * i, VAL);
}

static void rig_open(struct rig *r, bool drop, uint64_t limit)
{
	rig_open_type(r, ZCS_SAMPLE_CS16, drop, limit);
}

/* One i8 datagram of `samples` pairs, every byte b: cs16 is b << 8 (v = b << 4, cs16 = v << 4). */
static uint64_t deliver_i8(struct rig *r, uint64_t first, uint16_t samples, int8_t b)
{
	const struct zcs_sample_hdr h = {
		.stream_id = 1, .first_sample = first, .samples = samples,
		.payload_len = (uint16_t)(samples * 2), .format = ZCS_WIRE_I8,
	};
	uint8_t pl[SPD * 4];

	memset(pl, (uint8_t)b, sizeof(pl));
	return zcs_gapfill_data(&r->g, &h, pl, 0);
}

/* One datagram of `samples` pairs starting at stream index first. */
static uint64_t deliver(struct rig *r, uint64_t first, uint16_t samples, uint8_t flags)
{
	const struct zcs_sample_hdr h = {
		.stream_id = 1, .first_sample = first, .samples = samples,
		.payload_len = (uint16_t)(samples * 4), .format = ZCS_WIRE_I16, .flags = flags,
	};

	return zcs_gapfill_data(&r->g, &h, r->payload, 0);
}

/* Closes the outputs (all written) and returns the file: pairs of int16 I, Q. */
static int16_t *rig_close(struct rig *r, size_t *pairs)
{
	struct stat st;
	int16_t *iq;
	FILE *f;

	ck_assert_int_eq(zcs_outputs_drain(r->out, 10000), 0);
	zcs_outputs_destroy(r->out, 0);
	ck_assert_int_eq(stat(r->path, &st), 0);
	*pairs = (size_t)st.st_size / 4;
	iq = malloc((size_t)st.st_size + 4);
	ck_assert_ptr_nonnull(iq);
	f = fopen(r->path, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(iq, 4, *pairs, f), *pairs);
	fclose(f);
	unlink(r->path);
	rmdir(r->dir);
	return iq;
}

/* Pairs [from, to) of iq are all received samples (want_zero false) or all zeros. */
static void expect_run(const int16_t *iq, size_t from, size_t to, bool want_zero)
{
	for (size_t i = from; i < to; i++) {
		const int16_t want = want_zero ? 0 : VAL << 4;

		ck_assert_msg(iq[2 * i] == want && iq[2 * i + 1] == want,
			      "pair %zu: %d,%d, want %d", i, iq[2 * i], iq[2 * i + 1], want);
	}
}

START_TEST(test_loss_zero_filled)
{
	struct rig r;
	int16_t *iq;
	size_t n;

	rig_open(&r, false, 0);
	ck_assert_uint_eq(deliver(&r, 1000, SPD, 0), SPD);
	/* two datagrams lost: exactly their samples come out as zeros, before the next one */
	zcs_gapfill_lost(&r.g, 2);
	ck_assert_uint_eq(deliver(&r, 1000 + 3 * SPD, SPD, 0), 3 * SPD);
	ck_assert_uint_eq(r.g.st.samples, 4 * SPD);
	ck_assert_uint_eq(r.g.st.rx_samples, 2 * SPD);
	ck_assert_uint_eq(r.g.st.gap_samples, 2 * SPD);
	ck_assert_uint_eq(r.g.st.gaps, 1);
	ck_assert_uint_eq(r.g.st.jumps, 0);
	iq = rig_close(&r, &n);
	ck_assert_uint_eq(n, 4 * SPD);
	expect_run(iq, 0, SPD, false);
	expect_run(iq, SPD, 3 * SPD, true);
	expect_run(iq, 3 * SPD, 4 * SPD, false);
	free(iq);
}
END_TEST

START_TEST(test_loss_dropped)
{
	struct rig r;
	int16_t *iq;
	size_t n;

	rig_open(&r, true, 0);
	deliver(&r, 0, SPD, 0);
	zcs_gapfill_lost(&r.g, 1);
	ck_assert_uint_eq(deliver(&r, 2 * SPD, SPD, 0), SPD); /* --gap drop: no zeros */
	ck_assert_uint_eq(r.g.st.gap_samples, SPD);
	ck_assert_uint_eq(r.g.st.gaps, 1);
	iq = rig_close(&r, &n);
	ck_assert_uint_eq(n, 2 * SPD);
	expect_run(iq, 0, n, false);
	free(iq);
}
END_TEST

START_TEST(test_loss_before_first)
{
	struct rig r;
	int16_t *iq;
	size_t n;

	/* datagrams lost before the stream's first one: their full size is the only measure */
	rig_open(&r, false, 0);
	zcs_gapfill_lost(&r.g, 2);
	ck_assert_uint_eq(deliver(&r, 5 * SPD, SPD, 0), 3 * SPD);
	ck_assert_uint_eq(r.g.st.gap_samples, 2 * SPD);
	iq = rig_close(&r, &n);
	ck_assert_uint_eq(n, 3 * SPD);
	expect_run(iq, 0, 2 * SPD, true);
	expect_run(iq, 2 * SPD, 3 * SPD, false);
	free(iq);
}
END_TEST

START_TEST(test_discont)
{
	struct rig r;
	int16_t *iq;
	size_t n;

	/* one datagram lost on the way, then the sender's source lost 1000 pairs (DISCONT): the
	 * whole stretch is filled, time stays true, and each loss is counted where it happened */
	rig_open(&r, false, 0);
	deliver(&r, 0, SPD, 0);
	zcs_gapfill_lost(&r.g, 1);
	ck_assert_uint_eq(deliver(&r, 2 * SPD + 1000, SPD, ZCS_FLAG_DISCONT), 2 * SPD + 1000);
	ck_assert_uint_eq(r.g.st.gap_samples, SPD);
	ck_assert_uint_eq(r.g.st.discont_samples, 1000);
	ck_assert_uint_eq(r.g.st.gaps, 1);
	/* a discontinuity with nothing lost on the network: all of it is the source's */
	ck_assert_uint_eq(deliver(&r, 3 * SPD + 1000 + 77, SPD, ZCS_FLAG_DISCONT), SPD + 77);
	ck_assert_uint_eq(r.g.st.discont_samples, 1077);
	ck_assert_uint_eq(r.g.st.gap_samples, SPD);
	iq = rig_close(&r, &n);
	ck_assert_uint_eq(n, 4 * SPD + 1077);
	expect_run(iq, SPD, 2 * SPD + 1000, true);
	expect_run(iq, 3 * SPD + 1000, 3 * SPD + 1077, true);
	free(iq);
}
END_TEST

START_TEST(test_jumps)
{
	struct rig r;
	int16_t *iq;
	size_t n;

	rig_open(&r, false, 0);
	deliver(&r, 100000, SPD, 0);
	/* backwards: taken as is, nothing filled */
	ck_assert_uint_eq(deliver(&r, 50000, SPD, 0), SPD);
	ck_assert_uint_eq(r.g.st.jumps, 1);
	/* ahead with no datagram lost: not network loss, so not filled */
	ck_assert_uint_eq(deliver(&r, 90000000, SPD, 0), SPD);
	ck_assert_uint_eq(r.g.st.jumps, 2);
	/* ahead by more than one lost datagram could hold (65535 pairs) */
	zcs_gapfill_lost(&r.g, 1);
	ck_assert_uint_eq(deliver(&r, 90000000 + SPD + 70000, SPD, 0), SPD);
	ck_assert_uint_eq(r.g.st.jumps, 3);
	/* and the position follows the jump: the next datagram in order is no gap */
	ck_assert_uint_eq(deliver(&r, 90000000 + 2 * SPD + 70000, SPD, 0), SPD);
	ck_assert_uint_eq(r.g.st.jumps, 3);
	ck_assert_uint_eq(r.g.st.gaps, 0);
	ck_assert_uint_eq(r.g.st.gap_samples, 0);
	iq = rig_close(&r, &n);
	ck_assert_uint_eq(n, 5 * SPD);
	expect_run(iq, 0, n, false);
	free(iq);
}
END_TEST

/* Samples refused with a duplicate of a number delivered without them (without a key, a forged
 * datagram that came first and claimed fewer): the gap they leave is zero-filled and counted,
 * and no more than that, only until the next datagram delivered. */
START_TEST(test_contested)
{
	struct rig r;
	int16_t *iq;
	size_t n;

	rig_open(&r, false, 0);
	deliver(&r, 0, SPD, 0);
	deliver(&r, SPD, 0, 0);                 /* number 1 delivered with no samples */
	zcs_gapfill_contested(&r.g, SPD, SPD);  /* the real number 1, refused as a duplicate */
	ck_assert_uint_eq(deliver(&r, 2 * SPD, SPD, 0), 2 * SPD);
	ck_assert_uint_eq(r.g.st.gap_samples, SPD);
	ck_assert_uint_eq(r.g.st.jumps, 0);
	/* spent by the next datagram delivered */
	zcs_gapfill_contested(&r.g, 3 * SPD, SPD);
	deliver(&r, 3 * SPD, SPD, 0);
	ck_assert_uint_eq(deliver(&r, 5 * SPD, SPD, 0), SPD);
	ck_assert_uint_eq(r.g.st.jumps, 1);
	/* behind the position, or more than a full datagram: not taken */
	zcs_gapfill_contested(&r.g, 0, SPD);
	ck_assert(!r.g.have_contest);
	zcs_gapfill_contested(&r.g, 6 * SPD, 2 * SPD);
	ck_assert(!r.g.have_contest);
	ck_assert_uint_eq(r.g.st.gap_samples, SPD);
	iq = rig_close(&r, &n);
	ck_assert_uint_eq(n, 5 * SPD);
	expect_run(iq, 0, SPD, false);
	expect_run(iq, SPD, 2 * SPD, true);
	expect_run(iq, 2 * SPD, 5 * SPD, false);
	free(iq);
}
END_TEST

START_TEST(test_count_mid_datagram)
{
	struct rig r;
	int16_t *iq;
	size_t n;

	/* -n 500: the second datagram is cut at 140 of its pairs, and nothing more comes out */
	rig_open(&r, false, 500);
	ck_assert_uint_eq(deliver(&r, 0, SPD, 0), SPD);
	ck_assert(!r.g.done);
	ck_assert_uint_eq(deliver(&r, SPD, SPD, 0), 500 - SPD);
	ck_assert(r.g.done);
	ck_assert_uint_eq(deliver(&r, 2 * SPD, SPD, 0), 0);
	ck_assert_uint_eq(r.g.st.samples, 500);
	iq = rig_close(&r, &n);
	ck_assert_uint_eq(n, 500);
	free(iq);
}
END_TEST

START_TEST(test_count_mid_gap)
{
	struct rig r;
	int16_t *iq;
	size_t n;

	/* -n 500 reached inside a zero fill: the fill stops there and the datagram is not put out */
	rig_open(&r, false, 500);
	deliver(&r, 0, SPD, 0);
	zcs_gapfill_lost(&r.g, 1);
	ck_assert_uint_eq(deliver(&r, 2 * SPD, SPD, 0), 500 - SPD);
	ck_assert(r.g.done);
	ck_assert_uint_eq(r.g.st.samples, 500);
	ck_assert_uint_eq(r.g.st.rx_samples, SPD);
	iq = rig_close(&r, &n);
	ck_assert_uint_eq(n, 500);
	expect_run(iq, 0, SPD, false);
	expect_run(iq, SPD, 500, true);
	free(iq);
}
END_TEST

/* A gap's event comes before its zeros, so a reader (the SoapySDR module's OVERFLOW) learns of
 * the discontinuity at its first sample, not after the last zero (regression: it came after). */
START_TEST(test_gap_event_before_zeros)
{
	struct zcs_outputs *out;
	struct zcs_reader *rd;
	struct zcs_reader_item it;
	struct zcs_kernels k;
	struct zcs_gapfill g;
	uint8_t payload[SPD * 4];
	char err[256];
	const struct zcs_sample_hdr h1 = {
		.stream_id = 1, .first_sample = 1000, .samples = SPD,
		.payload_len = SPD * 4, .format = ZCS_WIRE_I16,
	};
	const struct zcs_sample_hdr h2 = {
		.stream_id = 1, .first_sample = 1000 + 3 * SPD, .samples = SPD,
		.payload_len = SPD * 4, .format = ZCS_WIRE_I16,
	};

	for (size_t i = 0; i < 2 * SPD; i++)
		zcs_put_le16(payload + 2 * i, VAL);
	ck_assert_int_eq(zcs_kernels_init(&k, ZCS_ISA_SCALAR), 0);
	ck_assert_int_eq(zcs_outputs_create(&out, ZCS_SAMPLE_CS16), 0);
	ck_assert_int_eq(zcs_outputs_add_reader(out, "test", &rd, err, sizeof(err)), 0);
	ck_assert_int_eq(zcs_outputs_start(out), 0);
	zcs_reader_attach(rd);
	zcs_gapfill_init(&g, out, &k, ZCS_SAMPLE_CS16, false, 0);
	zcs_gapfill_restart(&g, SPD);
	ck_assert_uint_eq(zcs_gapfill_data(&g, &h1, payload, 0), SPD);
	zcs_gapfill_lost(&g, 2);
	ck_assert_uint_eq(zcs_gapfill_data(&g, &h2, payload, 0), 3 * SPD);
	zcs_outputs_flush(out);

	ck_assert_int_eq(zcs_reader_next(rd, 1000, &it), 1);
	ck_assert_int_eq(it.kind, ZCS_READER_DATA);
	ck_assert_uint_eq(it.first_sample, 1000);
	ck_assert_uint_eq(it.pairs, SPD);
	ck_assert_int_eq(zcs_reader_next(rd, 1000, &it), 1);
	ck_assert_int_eq(it.kind, ZCS_READER_GAP);
	ck_assert_uint_eq(it.first_sample, 1000 + SPD);
	ck_assert_uint_eq(it.pairs, 2 * SPD);
	ck_assert(it.filled);
	/* then the zeros, and the samples after them */
	ck_assert_int_eq(zcs_reader_next(rd, 1000, &it), 1);
	ck_assert_int_eq(it.kind, ZCS_READER_DATA);
	ck_assert_uint_eq(it.first_sample, 1000 + SPD);
	ck_assert_uint_eq(it.pairs, 3 * SPD);
	for (size_t i = 0; i < 2 * 3 * SPD; i++) {
		const int16_t v = (int16_t)zcs_get_le16(it.data + 2 * i);

		ck_assert_int_eq(v, i < 2 * 2 * SPD ? 0 : VAL << 4);
	}
	zcs_reader_detach(rd);
	zcs_outputs_destroy(out, 0);
}
END_TEST

START_TEST(test_format_change)
{
	struct rig r;
	int16_t *iq;
	size_t n;

	/* i16, then a datagram lost across a change of wire format, then i8 (twice the pairs a
	 * datagram): the gap is the sample indices' difference, whatever the sizes, and every
	 * datagram is read by the format in its own header into the same cs16 */
	rig_open(&r, false, 0);
	ck_assert_uint_eq(deliver(&r, 0, SPD, 0), SPD);
	zcs_gapfill_lost(&r.g, 1);
	ck_assert_uint_eq(deliver_i8(&r, 2 * SPD, 2 * SPD, 3), 3 * SPD);
	ck_assert_uint_eq(deliver_i8(&r, 4 * SPD, 2 * SPD, 3), 2 * SPD);
	ck_assert(!r.g.done && !r.g.fmt_ended);
	ck_assert_uint_eq(r.g.st.gap_samples, SPD);
	ck_assert_uint_eq(r.g.st.gaps, 1);
	ck_assert_uint_eq(r.g.st.jumps, 0);
	iq = rig_close(&r, &n);
	ck_assert_uint_eq(n, 6 * SPD);
	expect_run(iq, 0, SPD, false);
	expect_run(iq, SPD, 2 * SPD, true);
	for (size_t i = 2 * SPD; i < 6 * SPD; i++)
		ck_assert_msg(iq[2 * i] == 3 << 8 && iq[2 * i + 1] == 3 << 8, "pair %zu: %d", i,
			      iq[2 * i]);
	free(iq);
}
END_TEST

START_TEST(test_native_format_change)
{
	struct rig r;
	int16_t *iq;
	size_t n;

	/* -F native writes the wire's bytes: an i8 datagram after i16 ends it, nothing of the new
	 * layout written, and says where */
	rig_open_type(&r, ZCS_SAMPLE_NATIVE, false, 0);
	zcs_gapfill_set_native_strict(&r.g, true); /* as zcs-recv sets it (rx.h, native_follows) */
	ck_assert_uint_eq(deliver(&r, 0, SPD, 0), SPD);
	ck_assert_uint_eq(deliver_i8(&r, SPD, SPD, 3), 0);
	ck_assert(r.g.done && r.g.fmt_ended);
	ck_assert_int_eq(r.g.native_fmt, ZCS_WIRE_I16);
	ck_assert_int_eq(r.g.fmt_to, ZCS_WIRE_I8);
	ck_assert_uint_eq(r.g.fmt_at, SPD);
	ck_assert_uint_eq(deliver(&r, 2 * SPD, SPD, 0), 0); /* ended: not even the old format */
	iq = rig_close(&r, &n);
	/* native i16 is the wire's int16 holding v: VAL itself */
	ck_assert_uint_eq(n, SPD);
	for (size_t i = 0; i < SPD; i++)
		ck_assert_int_eq(iq[2 * i], VAL);
	free(iq);
}
END_TEST

static Suite *gapfill_suite(void)
{
	Suite *s = suite_create("gapfill");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_loss_zero_filled);
	tcase_add_test(tc, test_loss_dropped);
	tcase_add_test(tc, test_loss_before_first);
	tcase_add_test(tc, test_discont);
	tcase_add_test(tc, test_jumps);
	tcase_add_test(tc, test_contested);
	tcase_add_test(tc, test_count_mid_datagram);
	tcase_add_test(tc, test_count_mid_gap);
	tcase_add_test(tc, test_gap_event_before_zeros);
	tcase_add_test(tc, test_format_change);
	tcase_add_test(tc, test_native_format_change);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gapfill_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
