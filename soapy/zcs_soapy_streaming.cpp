// SPDX-License-Identifier: MIT
/* The zcs SoapySDR device's stream (zcs_soapy.hpp): one RX channel read through rx_embed.h in
 * CS16, CF32 or CS8, its events as SoapySDR's return codes, and the stream's clock. */
#include <cerrno>
#include <climits>
#include <cstring>
#include <stdexcept>

#include <SoapySDR/Formats.hpp>
#include <SoapySDR/Logger.hpp>

#include "zcs_soapy.hpp"

#include "output.h"
#include "runstate.h"
#include "text.h"

/* The longest one readStream waits, whatever timeout it is given. */
static const long READ_WAIT_US = 1000000;

/* The one stream a device has: its handle is the device's own rx_embed. */
static SoapySDR::Stream *const THE_STREAM = reinterpret_cast<SoapySDR::Stream *>(1);

static void news(void *, const char *msg)
{
	SoapySDR::logf(SOAPY_SDR_INFO, "zcs: %s", msg);
}

std::vector<std::string> ZcsDevice::getStreamFormats(const int dir, const size_t ch) const
{
	if (!is_rx0(dir, ch))
		return {};
	return { SOAPY_SDR_CS16, SOAPY_SDR_CF32, SOAPY_SDR_CS8 };
}

std::string ZcsDevice::getNativeStreamFormat(const int, const size_t, double &fullScale) const
{
	/* zcs-recv's cs16: the 12-bit value << 4 (for any channel, as SoapySDR's default) */
	fullScale = 32768;
	return SOAPY_SDR_CS16;
}

struct zcs_rx_embed *zcs_soapy_open(const ZcsArgs &args, enum zcs_sample_type t)
{
	struct zcs_rx_embed_opts o;
	struct zcs_rx_embed *e = nullptr;
	char err[512] = "";
	int ret;

	memset(&o, 0, sizeof(o));
	o.listen = args.addr.empty() ? nullptr : args.addr.c_str();
	o.iface = args.iface.empty() ? nullptr : args.iface.c_str();
	o.source = args.source.empty() ? nullptr : args.source.c_str();
	o.have_stream = args.have_stream;
	o.stream_id = args.stream_id;
	o.window = args.window;
	o.key_file = args.key.empty() ? nullptr : args.key.c_str();
	/* keyed: the newest run followed is kept as zcs-recv keeps it, by default beside the key
	 * (~/.config/zcs/key.seen for the default key: this user's), so a replay of it or of an
	 * earlier run is refused when the device is opened again; and with control= the board is
	 * asked which run is live before a run with no record is followed (docs/security.md) */
	const std::string seen = args.run_state.empty() ? args.key + ZCS_RUN_SEEN_SUFFIX
							: args.run_state;
	const bool keep = !args.key.empty() && seen != ZCS_KEY_ENV_NONE;
	o.run_state = keep ? seen.c_str() : nullptr;
	o.control = !args.key.empty() && !args.control.empty() ? args.control.c_str() : nullptr;
	if (keep) {
		std::vector<char> shown(4 * seen.size() + 1);

		/* named after the key's path, which may hold escape sequences: shown escaped */
		SoapySDR::logf(SOAPY_SDR_INFO, "zcs: keyed runs: the newest followed is kept in %s "
			       "(run_state=FILE or none)",
			       zcs_text_escape(shown.data(), shown.size(), seen.c_str()));
	}
	if (o.control)
		SoapySDR::logf(SOAPY_SDR_INFO, "zcs: a keyed run with no record is followed once the "
			       "board's control channel %s says it is live (control=)",
			       args.control.c_str());
	o.type = t;
	/* from_start=1: everything from the open on is kept for the first activation (up to the
	 * reader's 256 blocks), so a stream that starts now is read from its first sample */
	o.attached = args.from_start;
	o.log = news;
	ret = zcs_rx_embed_open(&e, &o, err, sizeof(err));
	if (ret < 0) {
		const std::string msg = std::string("zcs: ") + (err[0] ? err : strerror(-ret));
		SoapySDR::log(SOAPY_SDR_ERROR, msg);
		throw std::runtime_error(msg);
	}
	return e;
}

SoapySDR::Stream *ZcsDevice::setupStream(const int dir, const std::string &format,
					 const std::vector<size_t> &channels, const SoapySDR::Kwargs &)
{
	enum zcs_sample_type t;
	size_t pb;

	if (dir != SOAPY_SDR_RX)
		throw std::runtime_error("zcs: receive only");
	if (channels.size() > 1 || (channels.size() == 1 && channels[0] != 0))
		throw std::runtime_error("zcs: one channel only (0)");
	if (format == SOAPY_SDR_CS16) {
		t = ZCS_SAMPLE_CS16;
		pb = 4;
	} else if (format == SOAPY_SDR_CF32) {
		t = ZCS_SAMPLE_CF32;
		pb = 8;
	} else if (format == SOAPY_SDR_CS8) {
		t = ZCS_SAMPLE_CS8;
		pb = 2;
	} else {
		throw std::runtime_error("zcs: stream format " + format + " not offered (CS16, CF32, CS8)");
	}
	if (setup_)
		throw std::runtime_error("zcs: the stream is already set up");
	if (!rx_)
		throw std::runtime_error("zcs: no receive path");
	/* only the conversion of what is read changes: the socket and the stream's state stay */
	zcs_rx_embed_set_type(rx_, t);
	type_ = t;
	pair_bytes_ = pb;
	setup_ = true;
	return THE_STREAM;
}

void ZcsDevice::closeStream(SoapySDR::Stream *)
{
	/* the socket stays open (and read) until the device goes: set-up again is instant */
	if (rx_ && active_)
		zcs_rx_embed_deactivate(rx_);
	active_ = false;
	setup_ = false;
}

size_t ZcsDevice::getStreamMTU(SoapySDR::Stream *) const
{
	/* one block of the receiver's outputs: what one read can hand over */
	return ZCS_BLOCK_BYTES / pair_bytes_;
}

int ZcsDevice::activateStream(SoapySDR::Stream *, const int flags, const long long, const size_t)
{
	if (flags != 0)
		return SOAPY_SDR_NOT_SUPPORTED;
	if (!rx_ || !setup_)
		return SOAPY_SDR_STREAM_ERROR;
	zcs_rx_embed_activate(rx_);
	active_ = true;
	return 0;
}

int ZcsDevice::deactivateStream(SoapySDR::Stream *, const int flags, const long long)
{
	if (flags != 0)
		return SOAPY_SDR_NOT_SUPPORTED;
	if (!rx_ || !setup_)
		return SOAPY_SDR_STREAM_ERROR;
	zcs_rx_embed_deactivate(rx_);
	active_ = false;
	return 0;
}

int ZcsDevice::readStream(SoapySDR::Stream *, void *const *buffs, const size_t numElems, int &flags,
			  long long &timeNs, const long timeoutUs)
{
	/* at most READ_WAIT_US per call: CubicSDR reads with a 2^30 us (18 min) timeout, so a
	 * stream that ended or went silent held its SDR thread past the 3 s it waits on quit
	 * or stop; a TIMEOUT returned sooner is what every application reads again after */
	const long wait_us = timeoutUs > READ_WAIT_US ? READ_WAIT_US : timeoutUs;
	const int timeout_ms = wait_us <= 0 ? 0 : (int)((wait_us + 999) / 1000);
	const size_t n = numElems > INT_MAX ? INT_MAX : numElems;
	struct zcs_rx_embed_read r;
	long ret;

	flags = 0;
	if (!rx_ || !setup_ || !active_)
		return SOAPY_SDR_STREAM_ERROR;
	ret = zcs_rx_embed_read(rx_, buffs[0], n, timeout_ms, &r);
	if (ret > 0) {
		const uint64_t t = r.have_meta ? zcs_rx_embed_time_ns(&r.meta, r.first_sample) : 0;

		if (t) {
			flags |= SOAPY_SDR_HAS_TIME;
			timeNs = (long long)t;
			hw_time_ = (long long)zcs_rx_embed_time_ns(&r.meta, r.first_sample + (uint64_t)ret);
		}
		return (int)ret;
	}
	if (ret < 0) {
		SoapySDR::logf(SOAPY_SDR_ERROR, "zcs: receive: %s", strerror((int)-ret));
		return SOAPY_SDR_STREAM_ERROR;
	}
	switch (r.event) {
	case ZCS_RX_EMBED_NONE:
		return SOAPY_SDR_TIMEOUT;
	case ZCS_RX_EMBED_GAP: {
		/* once, before the zeros standing in for the lost samples (the next reads return
		 * them), as SoapyRTLSDR returns its OVERFLOW before the samples after the drop; with
		 * the time of the first of them */
		const uint64_t t = r.have_meta ? zcs_rx_embed_time_ns(&r.meta, r.first_sample) : 0;

		if (t) {
			flags |= SOAPY_SDR_HAS_TIME;
			timeNs = (long long)t;
			hw_time_ = (long long)t;
		}
		SoapySDR::logf(SOAPY_SDR_DEBUG, "zcs: %llu samples lost from index %llu (zero-filled)",
			       (unsigned long long)r.pairs, (unsigned long long)r.first_sample);
		return SOAPY_SDR_OVERFLOW;
	}
	case ZCS_RX_EMBED_JUMP:
		SoapySDR::logf(SOAPY_SDR_WARNING, "zcs: %llu samples from index %llu not read "
			       "(the application fell behind, or the stream jumped)",
			       (unsigned long long)r.pairs, (unsigned long long)r.first_sample);
		return SOAPY_SDR_OVERFLOW;
	case ZCS_RX_EMBED_CHANGE:
		SoapySDR::logf(SOAPY_SDR_WARNING, "zcs: the stream's settings changed: now %.6g MS/s",
			       r.meta.sample_rate / 1e6);
		return SOAPY_SDR_OVERFLOW;
	case ZCS_RX_EMBED_RESTART:
		SoapySDR::logf(SOAPY_SDR_WARNING, "zcs: the sender restarted: stream 0x%08x, %.6g MS/s",
			       (unsigned)r.meta.stream_id, r.meta.sample_rate / 1e6);
		return SOAPY_SDR_OVERFLOW;
	case ZCS_RX_EMBED_EOS:
		SoapySDR::log(SOAPY_SDR_INFO, "zcs: the stream ended");
		flags |= SOAPY_SDR_END_BURST;
		return SOAPY_SDR_TIMEOUT;
	}
	return SOAPY_SDR_TIMEOUT;
}

bool ZcsDevice::hasHardwareTime(const std::string &what) const
{
	/* one clock: the stream's sample index with its announced time */
	return what.empty() && meta().ref_time_ns != 0;
}

long long ZcsDevice::getHardwareTime(const std::string &what) const
{
	const long long t = hw_time_;

	if (!what.empty()) {
		/* logged, not thrown, as every query the module cannot answer (GUIs abort on it) */
		SoapySDR::logf(SOAPY_SDR_WARNING, "zcs: no time source \"%s\" (only the stream's)",
			       what.c_str());
		return 0;
	}
	if (t)
		return t;
	const struct zcs_meta m = meta();
	return (long long)zcs_rx_embed_time_ns(&m, m.ref_sample);
}

