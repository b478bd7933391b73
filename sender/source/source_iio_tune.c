// SPDX-License-Identifier: MIT
/* The radio's settings from the control channel: ranges read from ad9361-phy's *_available
 * attributes (the rate's from iio_rate.h: the FIR and the decimator reach below the AD9361's own),
 * every field checked before any is written, written in one order (rate, bandwidth, LO, gain
 * mode, gain), and everything read back: the answer is what the radio took. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "iio_rate.h"
#include "iio_src.h"
#include "zcs_config.h"
#if ZCS_HAVE_AD9361
#include <ad9361.h>
#endif
#include "proto.h"
#include "wire.h"

/* "[min step max]" (the AD9361 driver's range form) into lo/hi; false when not that form. */
static bool read_range(const struct iio_channel *c, const char *attr, double *lo, double *hi)
{
	char buf[128];
	double step;

	if (!c || iio_channel_attr_read(c, attr, buf, sizeof(buf)) <= 0)
		return false;
	return sscanf(buf, " [ %lf %lf %lf ]", lo, &step, hi) == 3 && *lo <= *hi;
}

static void range_u64(const struct iio_channel *c, const char *attr, uint64_t *lo, uint64_t *hi)
{
	double a, b;

	*lo = *hi = 0;
	if (read_range(c, attr, &a, &b) && a >= 0 && b < 1e15) {
		*lo = (uint64_t)a;
		*hi = (uint64_t)b;
	}
}

bool zcs_iio_fir_ctl(const struct iio_device *phy)
{
	const struct iio_channel *const out = iio_device_find_channel(phy, "out", false);
	const bool enable = iio_device_find_attr(phy, "in_out_voltage_filter_fir_en") ||
			    (out && iio_channel_find_attr(out, "voltage_filter_fir_en"));

	return enable && iio_device_find_channel(phy, "voltage0", true);
}

unsigned int zcs_iio_rate_caps(const struct iio_src *p)
{
	unsigned int caps = p->lpc_dec8 ? ZCS_RATE_CAN_DEC8 : 0u;

	if (ZCS_HAVE_AD9361)
		caps |= p->fir_ctl ? ZCS_RATE_CAN_FIR : ZCS_RATE_FIR_NO_CTL;
	return caps;
}

/* Whether the AD9361's FIR is on now (ours from an earlier low rate, or another program's).  A
 * board without the FIR's controls has none to be on, and libad9361 must not be asked. */
static bool fir_is_on(struct iio_src *p)
{
	int on = 0;

#if ZCS_HAVE_AD9361
	if (p->fir_ctl && ad9361_get_trx_fir_enable(p->phy, &on) < 0)
		on = 0;
#else
	(void)p;
#endif
	return on != 0;
}

int zcs_iio_set_rate(struct iio_src *p, uint64_t rate, char *err, size_t errlen)
{
	struct zcs_iio_rate_plan plan;
	int ret = zcs_iio_rate_plan(rate, zcs_iio_rate_caps(p), fir_is_on(p), &plan, err, errlen);

	if (ret < 0)
		return ret;
	if (plan.fir) {
#if ZCS_HAVE_AD9361
		/* loads a FIR for the rate and enables it in the order the driver accepts (through
		 * 3 MS/s when the old FIR or none could not reach the new rate directly) */
		ret = ad9361_set_bb_rate(p->phy, (unsigned long)plan.base);
		if (ret < 0)
			return zcs_err(err, errlen, ret < 0 ? ret : -EIO, "rate %" PRIu64 ": libad9361 "
				       "could not set %s to %" PRIu64 " S/s with its FIR: %s", rate,
				       PHY_DEV, plan.base, strerror(-ret));
#endif
	} else if ((ret = iio_channel_attr_write_longlong(p->phy_in0, "sampling_frequency",
							  (long long)plan.base)) < 0) {
		return zcs_err(err, errlen, ret, "rate %" PRIu64 ": %s refused sampling_frequency %"
			       PRIu64 ": %s", rate, PHY_DEV, plan.base, strerror(-ret));
	}
	if (p->lpc_dec8) {
		/* after the AD9361's rate: the core takes the factor nearest to its input rate over
		 * this one (1 or 8) and keeps it across later changes of that rate */
		ret = iio_channel_attr_write_longlong(p->lpc_rate, "sampling_frequency",
						      (long long)plan.rate);
		if (ret < 0)
			return zcs_err(err, errlen, ret, "rate %" PRIu64 ": %s refused decimation by "
				       "%u: %s", rate, RX_DEV, plan.decimation, strerror(-ret));
	} else if (p->lpc_rate) {
		/* read-only on a real core without the decimator; written where it is not */
		(void)iio_channel_attr_write_longlong(p->lpc_rate, "sampling_frequency",
						      (long long)plan.rate);
	}
	return 0;
}

void zcs_iio_caps(struct zcs_source *s, struct zcs_ctl_caps *caps)
{
	const struct iio_src *p = s->priv;
	char modes[128];
	double a, b;

	memset(caps, 0, sizeof(*caps));
	range_u64(p->lo, "frequency_available", &caps->freq_min, &caps->freq_max);
	caps->rate_min = zcs_iio_rate_min(zcs_iio_rate_caps(p));
	caps->rate_max = ZCS_AD9361_RATE_MAX;
	range_u64(p->phy_in, "rf_bandwidth_available", &caps->bw_min, &caps->bw_max);
	if (read_range(p->phy_in, "hardwaregain_available", &a, &b) && a > -1000 && b < 1000) {
		caps->gain_min_mdb = (int32_t)(a * 1000.0);
		caps->gain_max_mdb = (int32_t)(b * 1000.0);
	}
	if (iio_channel_attr_read(p->phy_in, "gain_control_mode_available", modes,
				  sizeof(modes)) > 0) {
		for (int m = 0; m <= ZCS_GAIN_HYBRID; m++) {
			const char *hit = strstr(modes, zcs_iio_gain_mode_names[m]);
			const size_t n = strlen(zcs_iio_gain_mode_names[m]);

			/* a whole word: "slow_attack" must not match inside another name */
			if (hit && (hit == modes || hit[-1] == ' ') &&
			    (hit[n] == '\0' || hit[n] == ' ' || hit[n] == '\n'))
				caps->gain_modes |= (uint8_t)(1u << m);
		}
	}
	caps->channels = 1;
	if (iio_device_find_channel(p->rx, "voltage2", false) &&
	    iio_device_find_channel(p->rx, "voltage3", false))
		caps->channels |= 2;
	caps->formats = 1u << ZCS_WIRE_I8 | 1u << ZCS_WIRE_P12 | 1u << ZCS_WIRE_I16;
	caps->settable = ZCS_CTL_FREQ | ZCS_CTL_RATE | ZCS_CTL_GAIN_MODE | ZCS_CTL_GAIN |
			 ZCS_CTL_BW | (caps->channels & 2 ? ZCS_CTL_CHANNEL : 0);
}

static int out_of(uint32_t bit, uint32_t *refused, char *err, size_t errlen, uint64_t v,
		  uint64_t lo, uint64_t hi)
{
	*refused = bit;
	return zcs_err(err, errlen, -ERANGE, "%s %" PRIu64 " out of range %" PRIu64 "..%" PRIu64
		       " (%s)", zcs_ctl_field_name(bit), v, lo, hi, PHY_DEV);
}

/* Every check that can be made before writing, so a refused set changes nothing. */
static int check(struct zcs_source *s, const struct zcs_ctl_settings *w, uint32_t *refused,
		 char *err, size_t errlen)
{
	struct zcs_ctl_caps c;

	zcs_iio_caps(s, &c);
	if ((w->have & ZCS_CTL_CHANNEL) && w->channel != s->info.channel) {
		struct iio_src *p = s->priv;
		char id[16];
		int ret;

		snprintf(id, sizeof(id), "voltage%u", (unsigned int)w->channel);
		if ((ret = zcs_iio_rx_channels(p, w->channel, false, err, errlen)) < 0) {
			*refused = ZCS_CTL_CHANNEL;
			return ret;
		}
		if (!iio_device_find_channel(p->phy, id, false)) {
			*refused = ZCS_CTL_CHANNEL;
			return zcs_err(err, errlen, -EINVAL, "channel rx%u: %s has no input channel "
				       "%s", w->channel + 1u, PHY_DEV, id);
		}
	}
	if ((w->have & ZCS_CTL_FREQ) && c.freq_max && (w->freq < c.freq_min || w->freq > c.freq_max))
		return out_of(ZCS_CTL_FREQ, refused, err, errlen, w->freq, c.freq_min, c.freq_max);
	if (w->have & ZCS_CTL_RATE) {
		struct zcs_iio_rate_plan plan;
		int ret = zcs_iio_rate_plan(w->rate, zcs_iio_rate_caps(s->priv), false, &plan, err,
					    errlen);

		if (ret < 0) {
			*refused = ZCS_CTL_RATE;
			return ret;
		}
	}
	if ((w->have & ZCS_CTL_BW) && c.bw_max && (w->bw < c.bw_min || w->bw > c.bw_max))
		return out_of(ZCS_CTL_BW, refused, err, errlen, w->bw, c.bw_min, c.bw_max);
	if ((w->have & ZCS_CTL_GAIN_MODE) && (w->gain_mode > ZCS_GAIN_HYBRID ||
					      (c.gain_modes && !(c.gain_modes & (1u << w->gain_mode))))) {
		*refused = ZCS_CTL_GAIN_MODE;
		return zcs_err(err, errlen, -EINVAL, "gain_mode %s: not offered by %s",
			       zcs_ctl_gain_mode_name(w->gain_mode), PHY_DEV);
	}
	if (w->have & ZCS_CTL_GAIN) {
		const int mode = w->have & ZCS_CTL_GAIN_MODE ? w->gain_mode : ZCS_GAIN_MANUAL;

		if (mode != ZCS_GAIN_MANUAL) {
			*refused = ZCS_CTL_GAIN;
			return zcs_err(err, errlen, -EINVAL, "gain: a manual gain needs gain_mode "
				       "manual (asked: %s)", zcs_ctl_gain_mode_name(mode));
		}
		if (c.gain_max_mdb > c.gain_min_mdb &&
		    (w->gain_mdb < c.gain_min_mdb || w->gain_mdb > c.gain_max_mdb)) {
			*refused = ZCS_CTL_GAIN;
			return zcs_err(err, errlen, -ERANGE, "gain %.3f dB out of range %.3f..%.3f "
				       "(%s)", w->gain_mdb / 1000.0, c.gain_min_mdb / 1000.0,
				       c.gain_max_mdb / 1000.0, PHY_DEV);
		}
	}
	return 0;
}

static int write_ll(struct iio_channel *c, const char *attr, long long v, uint32_t bit,
		    uint32_t *refused, char *err, size_t errlen)
{
	const int ret = c ? iio_channel_attr_write_longlong(c, attr, v) : -ENOENT;

	if (ret < 0) {
		*refused = bit;
		return zcs_err(err, errlen, ret, "%s %lld refused by %s: %s", zcs_ctl_field_name(bit),
			       v, PHY_DEV, strerror(-ret));
	}
	return 0;
}

static int apply(struct zcs_source *s, struct iio_src *p, const struct zcs_ctl_settings *w,
		 uint32_t *refused, char *err, size_t errlen)
{
	int ret;

	if ((w->have & ZCS_CTL_CHANNEL) && w->channel != s->info.channel) {
		char id[16];

		/* first, so a gain in the same set is the new receiver's; the settings are
		 * ad9361-phy's (read here, under the tuning lock), the buffer the source thread's:
		 * it rebuilds it on the new pair at its next refill, and the stream announces the
		 * change from that block's first pair (ZCS_SRC_REBUILT) */
		snprintf(id, sizeof(id), "voltage%u", (unsigned int)w->channel);
		p->phy_in = iio_device_find_channel(p->phy, id, false);
		atomic_store(&p->want_channel, (int)w->channel);
		s->info.channel = w->channel;
		s->tune_deferred = true;
	}
	if ((w->have & ZCS_CTL_RATE) && (ret = zcs_iio_set_rate(p, w->rate, err, errlen)) < 0) {
		*refused = ZCS_CTL_RATE;
		return ret;
	}
	if ((w->have & ZCS_CTL_BW) &&
	    (ret = write_ll(p->phy_in, "rf_bandwidth", (long long)w->bw, ZCS_CTL_BW, refused, err,
			    errlen)) < 0)
		return ret;
	if ((w->have & ZCS_CTL_FREQ) &&
	    (ret = write_ll(p->lo, "frequency", (long long)w->freq, ZCS_CTL_FREQ, refused, err,
			    errlen)) < 0)
		return ret;
	if (w->have & (ZCS_CTL_GAIN_MODE | ZCS_CTL_GAIN)) {
		/* a manual gain implies manual mode, as --gain DB does */
		const int mode = w->have & ZCS_CTL_GAIN_MODE ? w->gain_mode : ZCS_GAIN_MANUAL;

		ret = iio_channel_attr_write(p->phy_in, "gain_control_mode",
					     zcs_iio_gain_mode_names[mode]);
		if (ret < 0) {
			*refused = ZCS_CTL_GAIN_MODE;
			return zcs_err(err, errlen, ret, "gain_mode %s refused by %s: %s",
				       zcs_ctl_gain_mode_name(mode), PHY_DEV, strerror(-ret));
		}
	}
	if (w->have & ZCS_CTL_GAIN) {
		ret = iio_channel_attr_write_double(p->phy_in, "hardwaregain", w->gain_mdb / 1000.0);
		if (ret < 0) {
			*refused = ZCS_CTL_GAIN;
			return zcs_err(err, errlen, ret, "gain %.3f dB refused by %s: %s",
				       w->gain_mdb / 1000.0, PHY_DEV, strerror(-ret));
		}
	}
	return 0;
}

int zcs_iio_tune(struct zcs_source *s, const struct zcs_ctl_settings *want, uint32_t *refused,
		 char *err, size_t errlen)
{
	struct iio_src *p = s->priv;
	struct zcs_radio_info now;
	int ret;

	*refused = 0;
	if ((ret = check(s, want, refused, err, errlen)) < 0)
		return ret;
	ret = apply(s, p, want, refused, err, errlen);
	/* whatever happened, the answer and the stream say what the radio has now */
	if (zcs_iio_read_info(p, s->info.channel, &now) == 0) {
		if (now.sample_rate != s->info.sample_rate && now.sample_rate)
			zcs_iio_fit_block(s, p, now.sample_rate, true);
		s->info = now;
	} else if (ret == 0) {
		ret = zcs_err(err, errlen, -EIO, "cannot read the settings of %s back", PHY_DEV);
	}
	return ret;
}
