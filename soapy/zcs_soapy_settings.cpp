// SPDX-License-Identifier: MIT
/* The zcs SoapySDR device's settings (zcs_soapy.hpp): its construction and identity, antenna,
 * gain, frequency, rate and bandwidth (the board's through the control channel, else the
 * stream's metadata), and the receiver's counters as sensors. */
#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <SoapySDR/Logger.hpp>

#include "zcs_soapy.hpp"

#include "wire.h"

ZcsDevice::ZcsDevice(const ZcsArgs &args, struct zcs_rx_embed *rx, const struct zcs_meta &m,
		     const struct zcs_addr &sender)
	: args_(args), sender_(sender), meta_(m), rx_(rx)
{
	if (args_.control.empty())
		args_.control = zcs_soapy_host(sender_) + ":" + std::to_string(ZCS_CTL_DEFAULT_PORT);
	SoapySDR::logf(SOAPY_SDR_INFO, "zcs: stream 0x%08x from %s (%s): %.6g MS/s at %.6f MHz",
		       (unsigned)meta_.stream_id, zcs_soapy_host(sender_).c_str(), meta_.sender,
		       meta_.sample_rate / 1e6, meta_.center_freq / 1e6);
	memset(&ctl_last_, 0, sizeof(ctl_last_));
	memset(&key_, 0, sizeof(key_));
	open_control();
}

ZcsDevice::~ZcsDevice()
{
	zcs_ctl_client_close(ctl_);
	zcs_key_wipe(&key_);
	zcs_rx_embed_close(rx_);
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
	info["wire_format"] = zcs_wire_name(m.format);
	info["control"] = args_.control;
	return info;
}

size_t ZcsDevice::getNumChannels(const int dir) const
{
	return dir == SOAPY_SDR_RX ? 1 : 0;
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

	/* only a mode the board sets: an application that is told there is one sets its own at
	 * every start (SDR++ turns its AGC off), which without a control channel, or on a board
	 * that does not set it while streaming, was an error logged each time */
	if (!is_rx0(dir, ch) || !ctl_state(r) || !(r.caps.settable & ZCS_CTL_GAIN_MODE))
		return false;
	return (r.caps.gain_modes & ~(1u << ZCS_GAIN_MANUAL)) != 0;
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
	if (!sendable("the gain", value, false))
		return;
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
	if (!sendable("the frequency", frequency, args_.strict))
		return;
	if (frequency < 0) {
		refuse("zcs: cannot set the frequency to " + std::to_string(frequency) + ": negative",
		       args_.strict);
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

	if (!set_rx0(dir, ch, "the sample rate") || !sendable("the sample rate", rate, args_.strict))
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
		static const double usual[] = { 250e3, 1e6, 1.024e6, 2e6, 2.4e6, 2.5e6, 3.2e6, 5e6, 6e6, 8e6, 10e6,
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

	if (!set_rx0(dir, ch, "the bandwidth") || !sendable("the bandwidth", bw, false))
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
