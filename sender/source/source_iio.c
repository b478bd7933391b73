// SPDX-License-Identifier: MIT
/* The libiio radio source: streams one AD9361 receiver (rx1 or rx2) from cf-ad9361-lpc, tunes
 * ad9361-phy as asked, hands samples out by pointer from the libiio buffer, and rebuilds the
 * buffer (flagging a discontinuity) when another program disables it or a refill fails. */
#include <errno.h>
#include <iio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "iio_rate.h"
#include "iio_src.h"
#include "proto.h"
#include "source.h"

/* Rebuild attempts after a failed refill; back-off doubles from 50 ms up to 1 s, so a radio
 * that never comes back is given up after about 4.5 s plus the refill time-outs.  The first
 * attempt waits too: iiod shares one kernel buffer among its clients and rebuilds it whenever
 * one leaves, so a new buffer that joined before iiod let go of our old one would be rebuilt
 * under us a moment later, losing samples between two of our refills with no error at all. */
#define REBUILD_TRIES 8
#define BACKOFF_FIRST_MS 50u
#define BACKOFF_MAX_MS 1000u
#define TIMEOUT_MIN_MS 1000u
static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Names the devices a context does have, so "not found" says what is there instead. */
static void list_devices(const struct iio_context *ctx, char *out, size_t len)
{
	const unsigned int n = iio_context_get_devices_count(ctx);
	size_t used = 0;

	out[0] = '\0';
	for (unsigned int i = 0; i < n && used + 1 < len; i++) {
		const struct iio_device *d = iio_context_get_device(ctx, i);
		const char *name = iio_device_get_name(d);
		const int w = snprintf(out + used, len - used, "%s%s", i ? ", " : "",
				       name ? name : iio_device_get_id(d));

		if (w < 0)
			break;
		used += (size_t)w;
	}
	if (!n)
		snprintf(out, len, "none");
}

static int open_context(struct iio_src *p, const char *uri, char *err, size_t errlen)
{
	int e;

	/* libiio takes anything with a colon; catch typos before it tries a backend. */
	if (!strchr(uri, ':') || (strncmp(uri, "local:", 6) && strncmp(uri, "ip:", 3) &&
				  strncmp(uri, "usb:", 4) && strncmp(uri, "serial:", 7) &&
				  strncmp(uri, "xml:", 4)))
		return zcs_err(err, errlen, -EINVAL,
			       "bad libiio URI '%s': use local:, ip:HOST or usb:[BUS.DEV]", uri);
	p->ctx = iio_create_context_from_uri(uri);
	if (p->ctx)
		return 0;
	e = errno ? errno : EIO;
	/* ENOSYS first: a libiio built without the network backend fails ip: that way, and
	 * "cannot connect to iiod" would send the user looking for a server */
	if (e == ENOSYS)
		return zcs_err(err, errlen, -e, "libiio has no backend for URI '%s'", uri);
	if (!strncmp(uri, "local:", 6))
		return zcs_err(err, errlen, -e, "no local IIO devices (%s): %s; is this the radio "
			       "board?", uri, strerror(e));
	if (!strncmp(uri, "ip:", 3))
		return zcs_err(err, errlen, -e, "cannot connect to iiod at '%s': %s", uri + 3,
			       strerror(e));
	return zcs_err(err, errlen, -e, "cannot open libiio context '%s': %s", uri, strerror(e));
}

static struct iio_device *find_dev(struct iio_src *p, const char *name, const char *uri,
				   char *err, size_t errlen)
{
	struct iio_device *d = iio_context_find_device(p->ctx, name);
	char have[256];

	if (!d) {
		list_devices(p->ctx, have, sizeof(have));
		(void)zcs_err(err, errlen, -ENODEV, "IIO device %s not found at %s (devices there: %s)",
			      name, uri, have);
	}
	return d;
}

/* The Pluto's capture core lists its rates as "BASE BASE/8 " (the FPGA's decimator); a core
 * without one has no such attribute. */
static bool lpc_has_dec8(const struct iio_channel *c)
{
	unsigned long long a, b;
	char buf[128];

	if (!c || iio_channel_attr_read(c, "sampling_frequency_available", buf, sizeof(buf)) <= 0)
		return false;
	return sscanf(buf, "%llu %llu", &a, &b) == 2 && b > 0 && (a + b / 2) / b == ZCS_LPC_DECIMATION;
}

/* Enables exactly the I/Q pair of receiver ch on cf-ad9361-lpc, and finds its ad9361-phy input. */
static int pick_channels(struct iio_src *p, int ch, char *err, size_t errlen)
{
	char id_i[16];
	int ret;

	if ((ret = zcs_iio_rx_channels(p, ch, true, err, errlen)) < 0)
		return ret;
	/* On ad9361-phy the receivers are input voltage0 (rx1) and voltage1 (rx2). */
	snprintf(id_i, sizeof(id_i), "voltage%d", ch);
	p->phy_in = iio_device_find_channel(p->phy, id_i, false);
	p->phy_in0 = iio_device_find_channel(p->phy, "voltage0", false);
	p->lo = iio_device_find_channel(p->phy, "altvoltage0", true);
	if (!p->phy_in || !p->phy_in0)
		return zcs_err(err, errlen, -ENODEV, "%s has no input channel %s", PHY_DEV, id_i);
	p->lpc_rate = iio_device_find_channel(p->rx, "voltage0", false);
	if (p->lpc_rate && !iio_channel_find_attr(p->lpc_rate, "sampling_frequency"))
		p->lpc_rate = NULL;
	p->lpc_dec8 = lpc_has_dec8(p->lpc_rate);
	p->fir_ctl = zcs_iio_fir_ctl(p->phy);
	return 0;
}

static int set_ll(struct iio_channel *c, const char *attr, long long v, const char *what,
		  char *err, size_t errlen)
{
	const int ret = c ? iio_channel_attr_write_longlong(c, attr, v) : -ENOENT;

	if (ret < 0)
		return zcs_err(err, errlen, ret, "cannot set %s %lld on %s: %s", what, v, PHY_DEV,
			       strerror(-ret));
	return ret;
}

/* Applies the settings given; anything not given stays as the radio has it, because other
 * programs (through iiod) may have tuned it on purpose. */
static int apply_settings(struct iio_src *p, const struct zcs_source_config *cfg, char *err,
			  size_t errlen)
{
	int ret = 0;

	if (cfg->rate && (ret = zcs_iio_set_rate(p, cfg->rate, err, errlen)) < 0)
		return ret;
	if (cfg->bw && (ret = set_ll(p->phy_in, "rf_bandwidth", (long long)cfg->bw,
				     "rf_bandwidth", err, errlen)) < 0)
		return ret;
	if (cfg->freq && (ret = set_ll(p->lo, "frequency", (long long)cfg->freq,
				       "RX LO frequency", err, errlen)) < 0)
		return ret;
	if (cfg->gain_set || cfg->gain_mode >= 0) {
		const int mode = cfg->gain_set ? ZCS_GAIN_MANUAL : cfg->gain_mode;

		if (mode < 0 || mode > ZCS_GAIN_HYBRID)
			return zcs_err(err, errlen, -EINVAL, "bad gain mode %d", mode);
		ret = iio_channel_attr_write(p->phy_in, "gain_control_mode", zcs_iio_gain_mode_names[mode]);
		if (ret < 0)
			return zcs_err(err, errlen, ret,
				       "cannot set gain_control_mode %s on %s: %s",
				       zcs_iio_gain_mode_names[mode], PHY_DEV, strerror(-ret));
	}
	if (cfg->gain_set) {
		ret = iio_channel_attr_write_double(p->phy_in, "hardwaregain",
						    cfg->gain_mdb / 1000.0);
		if (ret < 0)
			return zcs_err(err, errlen, ret,
				       "cannot set hardwaregain %.3f dB on %s: %s",
				       cfg->gain_mdb / 1000.0, PHY_DEV, strerror(-ret));
	}
	return 0;
}

/* Returns -e with the message for a buffer libiio could not create (or rebuild). */
static int buffer_error(int e, char *err, size_t errlen)
{
	if (e == EBUSY)
		return zcs_err(err, errlen, -e, "%s: Device or resource busy: another program is "
			       "streaming from the radio (iio_readdev, an iiod client, another "
			       "zcs-send); stop it first", RX_DEV);
	return zcs_err(err, errlen, -e, "cannot create the %s buffer: %s", RX_DEV, strerror(e));
}

static int create_buffer(struct iio_src *p, char *err, size_t errlen)
{
	p->left = 0;
	p->buf = iio_device_create_buffer(p->rx, p->buf_pairs, false);
	if (!p->buf) {
		return buffer_error(errno ? errno : EIO, err, errlen);
	}
	/* Pairs go out by pointer: the pair must be I,Q int16 side by side, 4 bytes a sample. */
	if (iio_buffer_step(p->buf) != 4 ||
	    (const char *)iio_buffer_first(p->buf, p->ch_q) -
	    (const char *)iio_buffer_first(p->buf, p->ch_i) != 2) {
		const ssize_t step = iio_buffer_step(p->buf);

		iio_buffer_destroy(p->buf);
		p->buf = NULL;
		return zcs_err(err, errlen, -ENOTSUP, "%s: unexpected buffer layout (step %zd)",
			       RX_DEV, step);
	}
	return 0;
}

/* Hands out the whole buffer: iio_buffer_end() already accounts for a short refill.  A refill
 * is short only when the buffer was torn down under it (iiod ends a client's read early when it
 * rebuilds the shared buffer, because another client came or went): the radio goes on without
 * us meanwhile, so whatever comes next is after a gap and is flagged. */
static void take(struct zcs_source *s, struct iio_src *p)
{
	const char *first = iio_buffer_first(p->buf, p->ch_i);
	const char *end = iio_buffer_end(p->buf);

	p->next = (const int16_t *)(const void *)first;
	p->left = (size_t)(end - first) / 4;
	if (p->cut_short) {
		s->discontinuities++;
		p->discont = true;
	}
	p->cut_short = p->left < p->buf_pairs;
}

/* Refills; on failure destroys and rebuilds the buffer with bounded retries and back-off.  A
 * channel switch asked for meanwhile destroys the buffer first: the rebuild then enables the
 * other receiver, and its first block is reported as ZCS_SRC_REBUILT (and DISCONT: what the
 * kernel had queued of the old receiver is dropped with the buffer). */
static int refill(struct zcs_source *s, struct iio_src *p, uint32_t *events, char *err,
		  size_t errlen)
{
	const int want = atomic_exchange(&p->want_channel, -1);
	const size_t pairs = atomic_exchange(&p->want_pairs, 0);
	ssize_t got;
	int why;
	unsigned int backoff = BACKOFF_FIRST_MS;

	if (want >= 0 || pairs) {
		/* checked by the control thread: only the enabling is left.  Rebuilt even when a
		 * second set switched back before this refill: its announcement waits for it */
		if (want >= 0 && (why = zcs_iio_rx_channels(p, want, true, err, errlen)) < 0)
			return why;
		if (pairs)
			p->buf_pairs = pairs;
		if (p->buf) {
			iio_buffer_destroy(p->buf);
			p->buf = NULL;
		}
		*events |= ZCS_SRC_REBUILT;
	}
	got = p->buf ? iio_buffer_refill(p->buf) : -EBADF;
	why = got < 0 ? (int)got : -EIO;
	if (got > 0) {
		take(s, p);
		return 0;
	}
	for (int attempt = 0; attempt < REBUILD_TRIES; attempt++) {
		if (p->buf) {
			iio_buffer_destroy(p->buf);
			p->buf = NULL;
		}
		sleep_ms(backoff);
		backoff *= 2;
		if (backoff > BACKOFF_MAX_MS)
			backoff = BACKOFF_MAX_MS;
		if ((why = create_buffer(p, err, errlen)) < 0)
			continue;
		got = iio_buffer_refill(p->buf);
		if (got > 0) {
			/* one gap, however many tries it took: counted once, flagged once */
			p->cut_short = false;
			s->discontinuities++;
			p->discont = true;
			take(s, p);
			return 0;
		}
		why = got < 0 ? (int)got : -EIO;
	}
	if (why == -EBUSY)
		return buffer_error(EBUSY, err, errlen);
	return zcs_err(err, errlen, why, "%s: refill failed and %d rebuilds of the buffer failed: "
		       "%s", RX_DEV, REBUILD_TRIES, strerror(-why));
}

static void iio_close(struct zcs_source *s)
{
	struct iio_src *p = s->priv;

	if (!p)
		return;
	if (p->buf)
		iio_buffer_destroy(p->buf);
	if (p->ctx)
		iio_context_destroy(p->ctx);
	free(p);
	s->priv = NULL;
}

static int iio_open(struct zcs_source *s, const struct zcs_source_config *cfg, char *err,
		    size_t errlen)
{
	const char *uri = cfg->uri && cfg->uri[0] ? cfg->uri : "local:";
	struct iio_src *p = calloc(1, sizeof(*p));
	unsigned int timeout;
	int ret;

	if (!p)
		return zcs_err(err, errlen, -ENOMEM, "out of memory");
	s->priv = p;
	if ((ret = open_context(p, uri, err, errlen)) < 0)
		goto out;
	ret = -ENODEV;
	if (!(p->rx = find_dev(p, RX_DEV, uri, err, errlen)) ||
	    !(p->phy = find_dev(p, PHY_DEV, uri, err, errlen)))
		goto out;
	atomic_init(&p->want_channel, -1);
	atomic_init(&p->want_pairs, 0);
	if ((ret = pick_channels(p, cfg->channel, err, errlen)) < 0)
		goto out;
	if ((ret = apply_settings(p, cfg, err, errlen)) < 0)
		goto out;
	if ((ret = zcs_iio_read_info(p, (uint8_t)cfg->channel, &s->info)) < 0) {
		ret = zcs_err(err, errlen, ret, "cannot read the sampling_frequency of %s", PHY_DEV);
		goto out;
	}
	p->buf_pairs = zcs_iio_block_pairs(s->info.sample_rate);
	p->pairs_asked = p->buf_pairs;
	/* A refill must be allowed a few blocks' time, but a dead buffer must be noticed soon. */
	timeout = (unsigned int)(p->buf_pairs * 3000 / s->info.sample_rate) + 500;
	if (timeout < TIMEOUT_MIN_MS)
		timeout = TIMEOUT_MIN_MS;
	(void)iio_context_set_timeout(p->ctx, timeout);
	if ((ret = create_buffer(p, err, errlen)) < 0)
		goto out;
	s->paced_by_device = true;
	s->discontinuities = 0;
	/* libiio queues 4 kernel blocks by default: at most that many were captured before a
	 * retune and not yet read when it takes effect (docs/protocol.md, "Retunes") */
	s->tune_lag_pairs = ZCS_IIO_KERNEL_BUFFERS * (uint64_t)p->buf_pairs;
	ret = 0;
out:
	if (ret < 0)
		iio_close(s);
	return ret;
}

static ssize_t iio_read(struct zcs_source *s, const int16_t **pairs, size_t max_pairs,
			uint32_t *events, char *err, size_t errlen)
{
	struct iio_src *p = s->priv;
	size_t n;

	*events = 0;
	if (!max_pairs)
		return zcs_err(err, errlen, -EINVAL, "read of 0 pairs");
	if (!p->left) {
		const int ret = refill(s, p, events, err, errlen);

		if (ret < 0)
			return ret;
	}
	n = p->left < max_pairs ? p->left : max_pairs;
	*pairs = p->next;
	p->next += 2 * n;
	p->left -= n;
	if (p->discont) {
		*events |= ZCS_SRC_DISCONT;
		p->discont = false;
	}
	return (ssize_t)n;
}

static int iio_poll_info(struct zcs_source *s, struct zcs_radio_info *info)
{
	struct iio_src *p = s->priv;
	struct zcs_radio_info now;

	if (zcs_iio_read_info(p, s->info.channel, &now) < 0) {
		*info = s->info;
		return -EIO;
	}
	*info = now;
	if (now.sample_rate == s->info.sample_rate && now.center_freq == s->info.center_freq &&
	    now.bandwidth == s->info.bandwidth && now.gain_mdb == s->info.gain_mdb &&
	    now.gain_mode == s->info.gain_mode)
		return 0;
	/* another program's rate: announced now (not exact: docs/protocol.md), and the buffer
	 * fitted to it at the next refill */
	if (now.sample_rate != s->info.sample_rate && now.sample_rate)
		zcs_iio_fit_block(s, p, now.sample_rate, false);
	s->info = now;
	return 1;
}

const struct zcs_source_ops zcs_source_iio_ops = {
	.name = "iio",
	.open = iio_open,
	.read = iio_read,
	.poll_info = iio_poll_info,
	.close = iio_close,
	.tune = zcs_iio_tune,
	.caps = zcs_iio_caps,
};
