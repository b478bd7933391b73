// SPDX-License-Identifier: MIT
/* The libiio source's radio as both its files use it (iio_src.h): receiver channels found and
 * enabled, every setting read back, the block fitted to a rate, the gain modes' names.  Calls
 * neither source_iio.c nor source_iio_tune.c: both stand on it. */
#include <errno.h>
#include <iio.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "iio_src.h"
#include "proto.h"
#include "source.h"

/* A block of about 1/20 s: small blocks cost rate on the board (the seed measured it), huge
 * ones cost memory and latency.  Bounded so a slow or unknown rate still gets a sane block. */
#define BLOCK_DIV 20
#define BLOCK_MIN_PAIRS 4096u
#define BLOCK_MAX_PAIRS (1024u * 1024u)

const char *const zcs_iio_gain_mode_names[4] = {
	[ZCS_GAIN_MANUAL] = "manual",
	[ZCS_GAIN_SLOW] = "slow_attack",
	[ZCS_GAIN_FAST] = "fast_attack",
	[ZCS_GAIN_HYBRID] = "hybrid",
};

static uint8_t gain_mode_parse(const char *s)
{
	for (size_t i = 0; i < 4; i++)
		if (zcs_iio_gain_mode_names[i] && strcmp(s, zcs_iio_gain_mode_names[i]) == 0)
			return (uint8_t)i;
	return ZCS_GAIN_UNKNOWN;
}

int zcs_iio_rx_channels(struct iio_src *p, int ch, bool enable, char *err, size_t errlen)
{
	struct iio_channel *ci, *cq;
	char id_i[16], id_q[16];

	if (ch != 0 && ch != 1)
		return zcs_err(err, errlen, -EINVAL, "bad channel %d: use rx1 or rx2", ch + 1);
	snprintf(id_i, sizeof(id_i), "voltage%d", 2 * ch);
	snprintf(id_q, sizeof(id_q), "voltage%d", 2 * ch + 1);
	ci = iio_device_find_channel(p->rx, id_i, false);
	cq = iio_device_find_channel(p->rx, id_q, false);
	if (!ci || !cq || !iio_channel_is_scan_element(ci) || !iio_channel_is_scan_element(cq))
		return zcs_err(err, errlen, -EINVAL,
			       "bad channel rx%d: %s has no input channels %s/%s (a one-"
			       "receiver AD9363 has rx1 only)", ch + 1, RX_DEV, id_i, id_q);
	for (const struct iio_channel *c = ci; c; c = c == ci ? cq : NULL) {
		const struct iio_data_format *f = iio_channel_get_data_format(c);

		/* We hand the words out untouched: they must already be LE int16, LSB-aligned. */
		if (f->length != 16 || f->shift != 0 || f->is_be || !f->is_signed ||
		    f->bits > 16)
			return zcs_err(err, errlen, -ENOTSUP,
				       "%s %s: sample format is not le:S12/16>>0 (%s%u/%u>>%u)",
				       RX_DEV, iio_channel_get_id(c), f->is_be ? "be:" : "le:",
				       f->bits, f->length, f->shift);
	}
	if (!enable)
		return 0;
	for (unsigned int i = 0; i < iio_device_get_channels_count(p->rx); i++)
		iio_channel_disable(iio_device_get_channel(p->rx, i));
	p->ch_i = ci;
	p->ch_q = cq;
	iio_channel_enable(p->ch_i);
	iio_channel_enable(p->ch_q);
	p->channel = ch;
	return 0;
}

int zcs_iio_read_info(const struct iio_src *p, uint8_t channel, struct zcs_radio_info *info)
{
	long long v;
	double g;
	char mode[32];

	memset(info, 0, sizeof(*info));
	info->channel = channel;
	info->gain_mode = ZCS_GAIN_UNKNOWN;
	/* the rate delivered: after the capture core's decimator where it has one */
	if (iio_channel_attr_read_longlong(p->lpc_dec8 ? p->lpc_rate : p->phy_in0,
					   "sampling_frequency", &v) < 0 || v <= 0)
		return -EIO;
	info->sample_rate = (uint64_t)v;
	if (p->lo && iio_channel_attr_read_longlong(p->lo, "frequency", &v) == 0 && v > 0)
		info->center_freq = (uint64_t)v;
	if (iio_channel_attr_read_longlong(p->phy_in, "rf_bandwidth", &v) == 0 && v > 0)
		info->bandwidth = (uint64_t)v;
	if (iio_channel_attr_read_double(p->phy_in, "hardwaregain", &g) == 0)
		info->gain_mdb = (int32_t)(g * 1000.0 + (g < 0 ? -0.5 : 0.5));
	if (iio_channel_attr_read(p->phy_in, "gain_control_mode", mode, sizeof(mode)) > 0)
		info->gain_mode = gain_mode_parse(mode);
	return 0;
}

size_t zcs_iio_block_pairs(uint64_t rate)
{
	uint64_t n = rate / BLOCK_DIV;

	if (n < BLOCK_MIN_PAIRS)
		n = BLOCK_MIN_PAIRS;
	if (n > BLOCK_MAX_PAIRS)
		n = BLOCK_MAX_PAIRS;
	return (size_t)(n + 1023) / 1024 * 1024;
}

/* A new rate keeps the block while it lies within a factor of 2 of the rate's own (1/20 s):
 * from 2 to 20 MS/s it would be 5 ms, a refill 200 times a second and 20 ms of DMA queue left
 * to a reader that falls behind, and back down a retune would wait up to 0.5 s for its refill.
 * Farther, the source thread rebuilds the buffer at its next refill, as for a channel switch
 * (ZCS_SRC_REBUILT, DISCONT: the kernel's queue of the old rate goes with the old buffer).
 * A set from the control channel then holds from the new buffer's first pair (deferred). */
void zcs_iio_fit_block(struct zcs_source *s, struct iio_src *p, uint64_t rate, bool deferred)
{
	const size_t pairs = zcs_iio_block_pairs(rate);
	size_t block = p->pairs_asked;
	unsigned int t;

	if (pairs > 2 * block || 2 * pairs < block) {
		p->pairs_asked = block = pairs;
		atomic_store(&p->want_pairs, pairs);
		s->tune_deferred |= deferred;
		s->tune_lag_pairs = ZCS_IIO_KERNEL_BUFFERS * (uint64_t)pairs;
	}
	/* a refill must still be allowed a few blocks' time at the new rate */
	t = (unsigned int)(block * 3000 / rate) + 500;
	(void)iio_context_set_timeout(p->ctx, t < 1000 ? 1000 : t);
}
