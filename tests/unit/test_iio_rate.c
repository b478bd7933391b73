// SPDX-License-Identifier: MIT
/* Unit tests for sender/source/iio_rate.c: which rates the AD9361 makes alone, which need its FIR
 * (ad9361_set_bb_rate), which the capture core's /8 decimator, with and without libad9361 and
 * the decimator; every boundary rate on both sides; the refusals and what their messages name. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "iio_rate.h"

#define ALL (ZCS_RATE_CAN_FIR | ZCS_RATE_CAN_DEC8)
#define FIR ZCS_RATE_CAN_FIR
#define DEC8 ZCS_RATE_CAN_DEC8

START_TEST(test_min)
{
	ck_assert_uint_eq(zcs_iio_rate_min(ALL), 65105);      /* 25 MHz / 48 / 8, rounded up */
	ck_assert_uint_eq(zcs_iio_rate_min(FIR), 520834);     /* 25 MHz / 48 */
	ck_assert_uint_eq(zcs_iio_rate_min(DEC8), 260417);    /* 25 MHz / 12 / 8 */
	ck_assert_uint_eq(zcs_iio_rate_min(0), 2083334);      /* 25 MHz / 12 */
}
END_TEST

START_TEST(test_plans)
{
	static const struct {
		unsigned int caps;
		int fir_on;
		uint64_t rate, base;
		unsigned int decimation;
		int fir;
	} rows[] = {
		/* the whole range on a Pluto built with libad9361 */
		{ ALL, 0, 61440000, 61440000, 1, 0 },
		{ ALL, 0, 30720000, 30720000, 1, 0 },
		{ ALL, 0, 2083334, 2083334, 1, 0 },    /* the AD9361 alone */
		{ ALL, 0, 2083333, 2083333, 1, 1 },    /* its FIR from here down */
		{ ALL, 0, 2400000, 2400000, 1, 0 },    /* SDR++'s RTL-TCP list */
		{ ALL, 0, 2048000, 2048000, 1, 1 },
		{ ALL, 0, 1024000, 1024000, 1, 1 },
		{ ALL, 0, 1000000, 1000000, 1, 1 },    /* rtl_433's 1 MS/s */
		{ ALL, 0, 520834, 520834, 1, 1 },
		{ ALL, 0, 520833, 4166664, 8, 0 },     /* the decimator, 8x is the AD9361's alone */
		{ ALL, 0, 260417, 2083336, 8, 0 },
		{ ALL, 0, 260416, 2083328, 8, 1 },     /* 8x needs the FIR as well */
		{ ALL, 0, 250000, 2000000, 8, 1 },     /* rtl_433's 250 kS/s */
		{ ALL, 0, 65105, 520840, 8, 1 },
		/* a FIR already on is led out of by libad9361, whatever the rate */
		{ ALL, 1, 30720000, 30720000, 1, 1 },
		{ ALL, 1, 400000, 3200000, 8, 1 },
		/* without libad9361: the decimator reaches down to 260417 */
		{ DEC8, 0, 2083334, 2083334, 1, 0 },
		{ DEC8, 0, 1000000, 8000000, 8, 0 },
		{ DEC8, 0, 260417, 2083336, 8, 0 },
		{ DEC8, 1, 1000000, 8000000, 8, 0 },   /* no libad9361: no FIR path, on or not */
		/* without the decimator (an AD9361 board that is not a Pluto) */
		{ FIR, 0, 520834, 520834, 1, 1 },
		{ FIR, 0, 10000000, 10000000, 1, 0 },
		{ 0, 0, 2083334, 2083334, 1, 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct zcs_iio_rate_plan p;
		char err[256] = "";
		const int ret = zcs_iio_rate_plan(rows[i].rate, rows[i].caps, rows[i].fir_on, &p,
						  err, sizeof(err));

		ck_assert_msg(ret == 0, "row %zu: rate %lu refused: %s", i,
			      (unsigned long)rows[i].rate, err);
		ck_assert_uint_eq(p.rate, rows[i].rate);
		ck_assert_msg(p.base == rows[i].base && p.decimation == rows[i].decimation &&
			      p.fir == (bool)rows[i].fir, "row %zu: rate %lu: base %lu /%u fir %d",
			      i, (unsigned long)rows[i].rate, (unsigned long)p.base, p.decimation,
			      p.fir);
		ck_assert_uint_eq(p.base, p.rate * p.decimation);
	}
}
END_TEST

/* Every rate the plan accepts delivers exactly that rate, and never needs what the caps lack. */
START_TEST(test_sweep)
{
	for (unsigned int caps = 0; caps <= ALL; caps++)
		for (uint64_t r = 60000; r <= 62000000; r += r / 97 + 1) {
			struct zcs_iio_rate_plan p;
			const int ret = zcs_iio_rate_plan(r, caps, false, &p, NULL, 0);

			if (r < zcs_iio_rate_min(caps) || r > ZCS_AD9361_RATE_MAX) {
				ck_assert_int_eq(ret, -ERANGE);
				continue;
			}
			ck_assert_int_eq(ret, 0);
			ck_assert_uint_eq(p.base / p.decimation, r);
			ck_assert(p.base <= ZCS_AD9361_RATE_MAX);
			ck_assert(p.base >= (p.fir ? ZCS_AD9361_FIR_RATE_MIN : ZCS_AD9361_RATE_MIN));
			ck_assert(!p.fir || (caps & FIR));
			ck_assert(p.decimation == 1 || (caps & DEC8));
			/* the decimator only where the AD9361 cannot go */
			ck_assert(p.decimation == 1 || r < ((caps & FIR) ? ZCS_AD9361_FIR_RATE_MIN :
							     ZCS_AD9361_RATE_MIN));
		}
}
END_TEST

START_TEST(test_refused)
{
	static const struct {
		unsigned int caps;
		uint64_t rate;
		const char *says;
	} rows[] = {
		{ ALL, 65104, "rate 65104 S/s: this board makes 65105..61440000 S/s" },
		{ ALL, 0, "rate 0 S/s: this board makes 65105..61440000 S/s" },
		{ ALL, 61440001, "rate 61440001 S/s: this board makes 65105..61440000 S/s" },
		{ DEC8, 250000, "makes 260417..61440000 S/s; lower rates need libad9361's FIR" },
		{ FIR, 250000, "makes 520834..61440000 S/s; lower rates need the capture core's /8" },
		{ 0, 2083333, "makes 2083334..61440000 S/s; lower rates need libad9361's FIR" },
		/* libad9361 there, the board without the FIR enable it sets */
		{ ZCS_RATE_FIR_NO_CTL | DEC8, 250000, "makes 260417..61440000 S/s; lower rates need "
		  "the AD9361's FIR (ad9361-phy has no in_out_voltage_filter_fir_en" },
		{ ZCS_RATE_FIR_NO_CTL, 2000000, "makes 2083334..61440000 S/s; lower rates need the "
		  "AD9361's FIR (ad9361-phy has no in_out_voltage_filter_fir_en for libad9361 to "
		  "set) or the capture core's /8" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct zcs_iio_rate_plan p = { .rate = 7 };
		char err[256] = "";

		ck_assert_int_eq(zcs_iio_rate_plan(rows[i].rate, rows[i].caps, false, &p, err,
						   sizeof(err)), -ERANGE);
		ck_assert_msg(strstr(err, rows[i].says), "row %zu: '%s' lacks '%s'", i, err,
			      rows[i].says);
		ck_assert_uint_eq(p.rate, 7);   /* nothing planned */
	}
	/* above the range, nothing is said about lower rates */
	{
		char err[256] = "";

		ck_assert_int_eq(zcs_iio_rate_plan(70000000, 0, false, &(struct zcs_iio_rate_plan){ 0 },
						   err, sizeof(err)), -ERANGE);
		ck_assert_ptr_null(strstr(err, "lower"));
	}
}
END_TEST

static Suite *iio_rate_suite(void)
{
	Suite *s = suite_create("iio_rate");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_min);
	tcase_add_test(tc, test_plans);
	tcase_add_test(tc, test_sweep);
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(iio_rate_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
