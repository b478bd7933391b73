/* SPDX-License-Identifier: MIT */
/* How a Pluto makes a sample rate: the AD9361 alone from 2.083 MS/s, with its FIR (loaded by
 * libad9361's ad9361_set_bb_rate) from 520.8 kS/s, and the FPGA's /8 decimator on cf-ad9361-lpc
 * below that, to 65.1 kS/s.  Arithmetic only: source_iio_tune.c does the writing. */
#ifndef ZCS_IIO_RATE_H
#define ZCS_IIO_RATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The AD9361's ADC clock must be at least 25 MHz; its half-band filters divide by at most 12
 * and its FIR by 4 more.  The clock-chain rules (libad9361's ad9361_calculate_rf_clock_chain,
 * MIN_ADC_CLK) check that exactly, so 25e6/12 = 2083333 itself is refused (12 x 2083333 is
 * under 25 MHz): each bound is the quotient rounded up, as SoapyPlutoSDR's lowest, 65105. */
#define ZCS_AD9361_RATE_MAX 61440000u
#define ZCS_AD9361_RATE_MIN 2083334u       /* no FIR */
#define ZCS_AD9361_FIR_RATE_MIN 520834u    /* with the FIR's /4 */
/* The capture core's decimator (cf-ad9361-lpc's sampling_frequency_available: rate, rate/8) */
#define ZCS_LPC_DECIMATION 8u

/* What the board and this build can do, as flags. */
enum zcs_iio_rate_caps {
	ZCS_RATE_CAN_FIR = 1,   /* built with libad9361 (ad9361_set_bb_rate), and ad9361-phy has
				 * the FIR enable it sets */
	ZCS_RATE_CAN_DEC8 = 2,  /* cf-ad9361-lpc offers rate/8 */
	/* built with libad9361, but ad9361-phy lacks the FIR enable (in_out_voltage_filter_fir_en)
	 * that libad9361 reads and sets without checking: no CAN_FIR (only the refusal's message
	 * differs) */
	ZCS_RATE_FIR_NO_CTL = 4,
};

struct zcs_iio_rate_plan {
	uint64_t rate;            /* asked: what the capture core delivers */
	uint64_t base;            /* the AD9361's own rate (rate * decimation) */
	unsigned int decimation;  /* the capture core's: 1 or ZCS_LPC_DECIMATION */
	bool fir;                 /* through ad9361_set_bb_rate (loads and enables its FIR) */
};

/* The lowest rate these caps reach (the highest is ZCS_AD9361_RATE_MAX either way). */
uint64_t zcs_iio_rate_min(unsigned int caps);

/* Plans rate: the AD9361 alone where it can (from ZCS_AD9361_RATE_MIN), its FIR below (from
 * ZCS_AD9361_FIR_RATE_MIN; without libad9361 the /8 decimator takes over from 2083334/8), the
 * /8 decimator with the AD9361 at 8 x rate under that, with the FIR where 8 x rate still needs
 * it.  fir_on: the AD9361's FIR is enabled now; a rate it could make alone then goes through
 * ad9361_set_bb_rate as well, which knows the order that leaves the FIR's rates (the driver
 * refuses a plain write the enabled FIR cannot follow).  Returns 0, or -ERANGE with a message
 * naming the rates these caps make (and what would reach lower). */
int zcs_iio_rate_plan(uint64_t rate, unsigned int caps, bool fir_on,
		      struct zcs_iio_rate_plan *plan, char *err, size_t errlen);

#endif
