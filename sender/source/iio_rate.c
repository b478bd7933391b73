// SPDX-License-Identifier: MIT
/* Which rates the AD9361 makes alone, which need its FIR, which the capture core's /8 decimator
 * (iio_rate.h).  The order follows SoapyPlutoSDR and SDR++'s PlutoSDR source: the decimator only
 * where the AD9361 cannot go, so the radio's own filters do as much of the work as they can. */
#include <errno.h>
#include <inttypes.h>

#include "err.h"
#include "iio_rate.h"

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* The lowest rate the AD9361 itself makes with these caps (no decimator). */
static uint64_t chip_min(unsigned int caps)
{
	return caps & ZCS_RATE_CAN_FIR ? ZCS_AD9361_FIR_RATE_MIN : ZCS_AD9361_RATE_MIN;
}

uint64_t zcs_iio_rate_min(unsigned int caps)
{
	return caps & ZCS_RATE_CAN_DEC8 ? div_up(chip_min(caps), ZCS_LPC_DECIMATION) : chip_min(caps);
}

/* What the board lacks for rates below what it makes, for the refusal's message. */
static const char *lower_needs(unsigned int caps)
{
	const bool no_ctl = caps & ZCS_RATE_FIR_NO_CTL;

	switch (caps & (ZCS_RATE_CAN_FIR | ZCS_RATE_CAN_DEC8)) {
	case 0:
		return no_ctl ? "; lower rates need the AD9361's FIR (ad9361-phy has no "
				"in_out_voltage_filter_fir_en for libad9361 to set) or the capture "
				"core's /8 decimator (cf-ad9361-lpc has none)"
			      : "; lower rates need libad9361's FIR (this zcs-send was built without "
				"libad9361) or the capture core's /8 decimator (cf-ad9361-lpc has "
				"none)";
	case ZCS_RATE_CAN_FIR:
		return "; lower rates need the capture core's /8 decimator (cf-ad9361-lpc has none)";
	case ZCS_RATE_CAN_DEC8:
		return no_ctl ? "; lower rates need the AD9361's FIR (ad9361-phy has no "
				"in_out_voltage_filter_fir_en for libad9361 to set)"
			      : "; lower rates need libad9361's FIR (this zcs-send was built without "
				"libad9361)";
	default:
		return "";
	}
}

int zcs_iio_rate_plan(uint64_t rate, unsigned int caps, bool fir_on,
		      struct zcs_iio_rate_plan *plan, char *err, size_t errlen)
{
	const bool can_fir = caps & ZCS_RATE_CAN_FIR;
	const uint64_t lo = zcs_iio_rate_min(caps);

	if (rate < lo || rate > ZCS_AD9361_RATE_MAX)
		return zcs_err(err, errlen, -ERANGE, "rate %" PRIu64 " S/s: this board makes %" PRIu64
			       "..%u S/s%s", rate, lo, ZCS_AD9361_RATE_MAX,
			       rate < lo ? lower_needs(caps) : "");
	plan->rate = rate;
	plan->decimation = 1;
	if (rate < chip_min(caps))
		plan->decimation = ZCS_LPC_DECIMATION;
	plan->base = rate * plan->decimation;
	/* below ZCS_AD9361_RATE_MIN only the FIR makes the base; above it, only a FIR that is on
	 * already has to be led out by libad9361 */
	plan->fir = plan->base < ZCS_AD9361_RATE_MIN || (fir_on && can_fir);
	return 0;
}
