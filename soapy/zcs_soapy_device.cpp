// SPDX-License-Identifier: MIT
/* The zcs SoapySDR device (zcs_soapy.hpp): one RX channel read through rx_embed.h, settings
 * from the stream's metadata, the receiver's counters as sensors. */
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <SoapySDR/Formats.hpp>
#include <SoapySDR/Logger.hpp>

#include "zcs_soapy.hpp"

/* The longest one readStream waits, whatever timeout it is given. */
static const long READ_WAIT_US = 1000000;

/* The one stream a device has: its handle is the device's own rx_embed. */
static SoapySDR::Stream *const THE_STREAM = reinterpret_cast<SoapySDR::Stream *>(1);

static void news(void *, const char *msg)
{
	SoapySDR::logf(SOAPY_SDR_INFO, "zcs: %s", msg);
}

ZcsDevice::ZcsDevice(const ZcsArgs &args, struct zcs_rx_embed *rx, const struct zcs_meta &m,
		     const struct zcs_addr &sender)
	: args_(args), sender_(sender), meta_(m), rx_(rx)
{
	if (args_.control.empty())
		args_.control = zcs_soapy_host(sender_) + ":5392";
	SoapySDR::logf(SOAPY_SDR_INFO, "zcs: stream 0x%08x from %s (%s): %.6g MS/s at %.6f MHz",
		       (unsigned)meta_.stream_id, zcs_soapy_host(sender_).c_str(), meta_.sender,
		       meta_.sample_rate / 1e6, meta_.center_freq / 1e6);
	memset(&ctl_last_, 0, sizeof(ctl_last_));
	open_control();
}

ZcsDevice::~ZcsDevice()
{
	zcs_ctl_client_close(ctl_);
	zcs_rx_embed_close(rx_);
}

void ZcsDevice::open_control()
{
	struct zcs_key key;
	char err[512] = "";
	int ret;

	/* the control channel admits only holders of the stream key */
	if (args_.key.empty()) {
		SoapySDR::log(SOAPY_SDR_INFO, "zcs: no key=: no control channel, settings read-only "
			      "(from the stream's metadata)");
		return;
	}
	ret = zcs_key_load(&key, args_.key.c_str(), err, sizeof(err));
	if (ret < 0)
		throw std::runtime_error(std::string("zcs: key=: ") + err);
	ret = zcs_ctl_client_open(&ctl_, args_.control.c_str(), &key, 3000, err, sizeof(err));
	zcs_key_wipe(&key);
	if (ret < 0) {
		ctl_ = nullptr;
		SoapySDR::logf(SOAPY_SDR_WARNING, "zcs: control channel %s: %s: settings read-only",
			       args_.control.c_str(), err);
		return;
	}
	ret = zcs_ctl_client_get(ctl_, &ctl_last_, 3000, err, sizeof(err));
	if (ret < 0 || !ctl_last_.ok) {
		SoapySDR::logf(SOAPY_SDR_WARNING, "zcs: control channel %s: get: %s: settings "
			       "read-only", args_.control.c_str(), ret < 0 ? err : ctl_last_.error);
		zcs_ctl_client_close(ctl_);
		ctl_ = nullptr;
		return;
	}
	SoapySDR::logf(SOAPY_SDR_INFO, "zcs: control channel %s: connected", args_.control.c_str());
}

bool ZcsDevice::ctl_state(struct zcs_ctl_reply &r) const
{
	std::lock_guard<std::mutex> lock(ctl_mu_);

	if (!ctl_)
		return false;
	r = ctl_last_;
	return r.has_caps;
}

void ZcsDevice::set_ctl(const struct zcs_ctl_settings &want, uint32_t bit, const std::string &what,
			double value, double have, bool fatal)
{
	struct zcs_ctl_reply r;
	char err[512] = "";
	int ret;

	std::unique_lock<std::mutex> lock(ctl_mu_);
	if (!ctl_) {
		lock.unlock();
		no_control(what, value, have, fatal);
		return;
	}
	if (!(ctl_last_.caps.settable & bit)) {
		const std::string msg = "zcs: the board does not set " + what + " while streaming";
		SoapySDR::log(SOAPY_SDR_ERROR, msg);
		if (fatal)
			throw std::runtime_error(msg);
		return;
	}
	memset(&r, 0, sizeof(r));
	ret = zcs_ctl_client_set(ctl_, &want, &r, 5000, err, sizeof(err));
	if (ret < 0) {
		const std::string msg = "zcs: control channel: " + std::string(err) + ": " + what +
			" left as it is";
		SoapySDR::log(SOAPY_SDR_ERROR, msg);
		if (fatal)
			throw std::runtime_error(msg);
		return;
	}
	if (!r.ok) {
		const std::string msg = "zcs: the board refused " + what + " " + std::to_string(value) +
			": " + r.error;
		SoapySDR::log(SOAPY_SDR_ERROR, msg);
		if (fatal)
			throw std::runtime_error(msg);
		return;
	}
	/* what the radio took (a reply carries every setting; its capabilities only with get) */
	ctl_last_.now = r.now;
}

struct zcs_meta ZcsDevice::meta() const
{
	std::lock_guard<std::mutex> lock(mu_);
	struct zcs_meta m = meta_;

	if (rx_)
		zcs_rx_embed_meta(rx_, &m);
	return m;
}

bool ZcsDevice::is_rx0(const int dir, const size_t ch)
{
	return dir == SOAPY_SDR_RX && ch == 0;
}

bool ZcsDevice::set_rx0(const int dir, const size_t ch, const char *what) const
{
	if (is_rx0(dir, ch))
		return true;
	SoapySDR::logf(SOAPY_SDR_ERROR, "zcs: cannot set %s of %s channel %zu: one receive "
		       "channel only (RX 0)", what, dir == SOAPY_SDR_RX ? "RX" : "TX", ch);
	return false;
}

void ZcsDevice::no_control(const std::string &what, double want, double have, bool fatal) const
{
	/* asking for what the stream already has is no change: applications set what they read */
	if (std::fabs(want - have) <= 1e-6 * std::fabs(have) + 1e-9)
		return;
	const std::string msg = "zcs: cannot set " + what + " to " + std::to_string(want) +
		": no control channel to the board (give key=, and control= unless it is the "
		"stream's sender at port 5392; the stream has " + std::to_string(have) + ")";
	SoapySDR::log(SOAPY_SDR_ERROR, msg);
	if (fatal)
		throw std::runtime_error(msg);
}

std::string ZcsDevice::getHardwareKey() const
{
	return "zcs:" + std::string(meta().source);
}

SoapySDR::Kwargs ZcsDevice::getHardwareInfo() const
{
	const struct zcs_meta m = meta();
	char id[16];
	SoapySDR::Kwargs info;

	snprintf(id, sizeof(id), "0x%08x", (unsigned)m.stream_id);
	info["sender"] = m.sender;
	info["sender_address"] = zcs_soapy_host(sender_);
	info["sender_version"] = m.version;
	info["source"] = m.source;
	info["stream"] = id;
	info["wire_format"] = m.format == 1 ? "i8" : m.format == 2 ? "p12" : m.format == 3 ? "i16" : "?";
	info["control"] = args_.control;
	return info;
}

size_t ZcsDevice::getNumChannels(const int dir) const
{
	return dir == SOAPY_SDR_RX ? 1 : 0;
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
	/* one block of the receiver's outputs (ZCS_BLOCK_BYTES): what one read can hand over */
	return 65536 / pair_bytes_;
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

/* ---- settings: the board's through the control channel, else the stream's metadata ---- */

std::vector<std::string> ZcsDevice::listAntennas(const int dir, const size_t ch) const
{
	struct zcs_ctl_reply r;

	if (!is_rx0(dir, ch))
		return {};
	if (ctl_state(r) && r.caps.channels) {
		std::vector<std::string> v;

		if (r.caps.channels & 1)
			v.push_back("RX1");
		if (r.caps.channels & 2)
			v.push_back("RX2");
		return v;
	}
	return { getAntenna(dir, ch) };
}

void ZcsDevice::setAntenna(const int dir, const size_t ch, const std::string &name)
{
	struct zcs_ctl_settings w = {};

	if (!set_rx0(dir, ch, "the antenna"))
		return;
	if (name != "RX1" && name != "RX2") {
		/* CubicSDR sets "" when it has no choice of its own: logged, not thrown */
		SoapySDR::logf(SOAPY_SDR_WARNING, "zcs: no antenna \"%s\" (RX1, RX2): left as it is",
			       name.c_str());
		return;
	}
	if (name == getAntenna(dir, ch))
		return;
	w.have = ZCS_CTL_CHANNEL;
	w.channel = name == "RX2" ? 1 : 0;
	set_ctl(w, ZCS_CTL_CHANNEL, "the antenna", w.channel, !w.channel, false);
}

std::string ZcsDevice::getAntenna(const int dir, const size_t ch) const
{
	struct zcs_ctl_reply r;

	if (!is_rx0(dir, ch))
		return "";
	if (ctl_state(r))
		return r.now.channel ? "RX2" : "RX1";
	return meta().channel ? "RX2" : "RX1";
}

std::vector<std::string> ZcsDevice::listGains(const int dir, const size_t ch) const
{
	if (!is_rx0(dir, ch))
		return {};
	return { "PGA" };
}

bool ZcsDevice::hasGainMode(const int dir, const size_t ch) const
{
	struct zcs_ctl_reply r;

	if (!is_rx0(dir, ch))
		return false;
	if (ctl_state(r))
		return (r.caps.gain_modes & ~(1u << ZCS_GAIN_MANUAL)) != 0;
	return true;
}

void ZcsDevice::setGainMode(const int dir, const size_t ch, const bool automatic)
{
	struct zcs_ctl_settings w = {};
	struct zcs_ctl_reply r;

	if (!set_rx0(dir, ch, "the gain mode"))
		return;
	if (automatic == getGainMode(dir, ch))
		return;
	w.have = ZCS_CTL_GAIN_MODE;
	w.gain_mode = ZCS_GAIN_MANUAL;
	if (automatic) {
		/* the AD9361's slow attack is the usual AGC; another one when that is not offered */
		w.gain_mode = ZCS_GAIN_SLOW;
		if (ctl_state(r) && !(r.caps.gain_modes & (1u << ZCS_GAIN_SLOW)))
			w.gain_mode = (r.caps.gain_modes & (1u << ZCS_GAIN_FAST)) ? ZCS_GAIN_FAST
										   : ZCS_GAIN_HYBRID;
	}
	set_ctl(w, ZCS_CTL_GAIN_MODE, "the gain mode", automatic, !automatic, false);
}

bool ZcsDevice::getGainMode(const int dir, const size_t ch) const
{
	struct zcs_ctl_reply r;

	if (!is_rx0(dir, ch))
		return false;
	if (ctl_state(r))
		return r.now.gain_mode != ZCS_GAIN_MANUAL;
	return meta().gain_mode != ZCS_GAIN_MANUAL;
}

void ZcsDevice::setGain(const int dir, const size_t ch, const double value)
{
	setGain(dir, ch, "PGA", value);
}

void ZcsDevice::setGain(const int dir, const size_t ch, const std::string &name, const double value)
{
	struct zcs_ctl_settings w = {};

	if (!set_rx0(dir, ch, "the gain"))
		return;
	if (name != "PGA") {
		SoapySDR::logf(SOAPY_SDR_ERROR, "zcs: no gain element \"%s\" (PGA): left as it is",
			       name.c_str());
		return;
	}
	w.have = ZCS_CTL_GAIN;
	w.gain_mdb = (int32_t)std::lround(value * 1000.0);
	set_ctl(w, ZCS_CTL_GAIN, "the gain", value, getGain(dir, ch), false);
}

double ZcsDevice::getGain(const int dir, const size_t ch) const
{
	struct zcs_ctl_reply r;

	if (!is_rx0(dir, ch))
		return 0;
	if (ctl_state(r))
		return r.now.gain_mdb / 1000.0;
	return meta().gain_mdb / 1000.0;
}

double ZcsDevice::getGain(const int dir, const size_t ch, const std::string &name) const
{
	return name == "PGA" ? getGain(dir, ch) : 0;
}

SoapySDR::Range ZcsDevice::getGainRange(const int dir, const size_t ch) const
{
	struct zcs_ctl_reply r;

	if (!is_rx0(dir, ch))
		return SoapySDR::Range();
	if (ctl_state(r) && r.caps.gain_max_mdb > r.caps.gain_min_mdb)
		return SoapySDR::Range(r.caps.gain_min_mdb / 1000.0, r.caps.gain_max_mdb / 1000.0);
	const double g = getGain(dir, ch);
	return SoapySDR::Range(g, g);
}

SoapySDR::Range ZcsDevice::getGainRange(const int dir, const size_t ch, const std::string &name) const
{
	return name == "PGA" ? getGainRange(dir, ch) : SoapySDR::Range();
}

void ZcsDevice::setFrequency(const int dir, const size_t ch, const double frequency,
			     const SoapySDR::Kwargs &args)
{
	setFrequency(dir, ch, "RF", frequency, args);
}

void ZcsDevice::setFrequency(const int dir, const size_t ch, const std::string &name,
			     const double frequency, const SoapySDR::Kwargs &)
{
	struct zcs_ctl_settings w = {};
	const double have = getFrequency(dir, ch);

	if (!set_rx0(dir, ch, "the frequency"))
		return;
	if (name != "RF") {
		/* CubicSDR sets "CORR" (ppm) where listFrequencies offers it; others may anyway */
		SoapySDR::logf(SOAPY_SDR_ERROR, "zcs: no frequency element \"%s\" (RF): left as it is",
			       name.c_str());
		return;
	}
	if (frequency < 0) {
		const std::string msg = "zcs: cannot set the frequency to " +
			std::to_string(frequency) + ": negative";
		SoapySDR::log(SOAPY_SDR_ERROR, msg);
		if (args_.strict)
			throw std::runtime_error(msg);
		return;
	}
	if (std::llround(frequency) == std::llround(have))
		return;
	w.have = ZCS_CTL_FREQ;
	w.freq = (uint64_t)std::llround(frequency);
	set_ctl(w, ZCS_CTL_FREQ, "the frequency", frequency, have, args_.strict);
}

double ZcsDevice::getFrequency(const int dir, const size_t ch) const
{
	struct zcs_ctl_reply r;

	if (!is_rx0(dir, ch))
		return 0;
	if (ctl_state(r))
		return (double)r.now.freq;
	return (double)meta().center_freq;
}

double ZcsDevice::getFrequency(const int dir, const size_t ch, const std::string &name) const
{
	return name == "RF" ? getFrequency(dir, ch) : 0;
}

std::vector<std::string> ZcsDevice::listFrequencies(const int dir, const size_t ch) const
{
	if (!is_rx0(dir, ch))
		return {};
	return { "RF" };
}

SoapySDR::RangeList ZcsDevice::getFrequencyRange(const int dir, const size_t ch) const
{
	struct zcs_ctl_reply r;

	if (!is_rx0(dir, ch))
		return {};
	if (ctl_state(r) && r.caps.freq_max)
		return { SoapySDR::Range((double)r.caps.freq_min, (double)r.caps.freq_max) };
	const double f = getFrequency(dir, ch);
	return { SoapySDR::Range(f, f) };
}

SoapySDR::RangeList ZcsDevice::getFrequencyRange(const int dir, const size_t ch,
						 const std::string &name) const
{
	if (name != "RF")
		return {};
	return getFrequencyRange(dir, ch);
}

void ZcsDevice::setSampleRate(const int dir, const size_t ch, const double rate)
{
	struct zcs_ctl_settings w = {};
	const double have = getSampleRate(dir, ch);

	if (!set_rx0(dir, ch, "the sample rate"))
		return;
	if (std::llround(rate) == std::llround(have))
		return;
	w.have = ZCS_CTL_RATE;
	w.rate = (uint64_t)std::llround(rate);
	set_ctl(w, ZCS_CTL_RATE, "the sample rate", rate, have, args_.strict);
}

double ZcsDevice::getSampleRate(const int dir, const size_t ch) const
{
	struct zcs_ctl_reply r;

	if (!is_rx0(dir, ch))
		return 0;
	if (ctl_state(r) && r.now.rate)
		return (double)r.now.rate;
	return (double)meta().sample_rate;
}

std::vector<double> ZcsDevice::listSampleRates(const int dir, const size_t ch) const
{
	struct zcs_ctl_reply r;

	if (!is_rx0(dir, ch))
		return {};
	if (ctl_state(r) && r.caps.rate_max > r.caps.rate_min) {
		/* applications offer a list: the usual rates the board's range holds, and its ends */
		static const double usual[] = { 1e6, 2e6, 2.4e6, 2.5e6, 3.2e6, 5e6, 6e6, 8e6, 10e6,
						12.5e6, 15.36e6, 20e6, 25e6, 30.72e6, 40e6, 61.44e6 };
		std::vector<double> v = { (double)r.caps.rate_min };

		for (const double u : usual)
			if (u > r.caps.rate_min && u < r.caps.rate_max)
				v.push_back(u);
		v.push_back((double)r.caps.rate_max);
		return v;
	}
	return { getSampleRate(dir, ch) };
}

SoapySDR::RangeList ZcsDevice::getSampleRateRange(const int dir, const size_t ch) const
{
	struct zcs_ctl_reply r;

	if (!is_rx0(dir, ch))
		return {};
	if (ctl_state(r) && r.caps.rate_max)
		return { SoapySDR::Range((double)r.caps.rate_min, (double)r.caps.rate_max) };
	const double v = getSampleRate(dir, ch);
	return { SoapySDR::Range(v, v) };
}

void ZcsDevice::setBandwidth(const int dir, const size_t ch, const double bw)
{
	struct zcs_ctl_settings w = {};
	const double have = getBandwidth(dir, ch);

	if (!set_rx0(dir, ch, "the bandwidth"))
		return;
	/* 0 is "leave it" to several applications */
	if (bw == 0 || std::llround(bw) == std::llround(have))
		return;
	w.have = ZCS_CTL_BW;
	w.bw = (uint64_t)std::llround(bw);
	set_ctl(w, ZCS_CTL_BW, "the bandwidth", bw, have, false);
}

double ZcsDevice::getBandwidth(const int dir, const size_t ch) const
{
	struct zcs_ctl_reply r;

	if (!is_rx0(dir, ch))
		return 0;
	if (ctl_state(r) && r.now.bw)
		return (double)r.now.bw;
	return (double)meta().bandwidth;
}

SoapySDR::RangeList ZcsDevice::getBandwidthRange(const int dir, const size_t ch) const
{
	struct zcs_ctl_reply r;

	if (!is_rx0(dir, ch))
		return {};
	if (ctl_state(r) && r.caps.bw_max)
		return { SoapySDR::Range((double)r.caps.bw_min, (double)r.caps.bw_max) };
	const double b = getBandwidth(dir, ch);
	return { SoapySDR::Range(b, b) };
}

/* ---- sensors: the receiver's counters ---- */

static const char *const SENSORS[][2] = {
	{ "lost", "sample datagrams lost on the way (reorder window)" },
	{ "late", "datagrams that came after they were declared lost" },
	{ "duplicate", "datagrams that came twice" },
	{ "gaps", "stretches of lost samples, each zero-filled" },
	{ "gap_samples", "samples lost and zero-filled" },
	{ "socket_drops", "datagrams the socket dropped (receive buffer full)" },
	{ "overruns", "blocks the application was too slow to read" },
	{ "invalid", "datagrams refused by the parser" },
	{ "samples", "samples delivered by the receiver, zero fill included" },
	{ "restarts", "sender restarts followed" },
	{ "auth", "datagrams refused by the key (key=): forged, or another key" },
	{ "unconfirmed", "datagrams whose claims the stream did not confirm (docs/receiver.md)" },
	{ "stream_frequency", "the centre frequency the stream's metadata announces, Hz" },
	{ "stream_rate", "the sample rate the stream's metadata announces, S/s" },
};

std::vector<std::string> ZcsDevice::listSensors() const
{
	std::vector<std::string> v;

	for (const auto &s : SENSORS)
		v.push_back(s[0]);
	return v;
}

SoapySDR::ArgInfo ZcsDevice::getSensorInfo(const std::string &key) const
{
	SoapySDR::ArgInfo info;

	for (const auto &s : SENSORS) {
		if (key == s[0]) {
			info.key = key;
			info.name = key;
			info.description = s[1];
			info.type = SoapySDR::ArgInfo::INT;
			info.value = "0";
			return info;
		}
	}
	SoapySDR::logf(SOAPY_SDR_ERROR, "zcs: no sensor \"%s\"", key.c_str());
	return SoapySDR::ArgInfo();
}

std::string ZcsDevice::readSensor(const std::string &key) const
{
	struct zcs_rx_embed_counters c;
	uint64_t v;

	memset(&c, 0, sizeof(c));
	{
		std::lock_guard<std::mutex> lock(mu_);
		if (rx_)
			zcs_rx_embed_counters(rx_, &c);
	}
	if (key == "lost")
		v = c.lost;
	else if (key == "late")
		v = c.late;
	else if (key == "duplicate")
		v = c.duplicate;
	else if (key == "gaps")
		v = c.gaps;
	else if (key == "gap_samples")
		v = c.gap_samples;
	else if (key == "socket_drops")
		v = c.socket_drops;
	else if (key == "overruns")
		v = c.overruns;
	else if (key == "invalid")
		v = c.invalid;
	else if (key == "samples")
		v = c.samples;
	else if (key == "restarts")
		v = c.restarts;
	else if (key == "auth")
		v = c.auth;
	else if (key == "unconfirmed")
		v = c.unconfirmed;
	else if (key == "stream_frequency")
		v = meta().center_freq;
	else if (key == "stream_rate")
		v = meta().sample_rate;
	else {
		SoapySDR::logf(SOAPY_SDR_ERROR, "zcs: no sensor \"%s\"", key.c_str());
		return "";
	}
	return std::to_string(v);
}
