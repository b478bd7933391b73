// SPDX-License-Identifier: MIT
/* The zcs SoapySDR device's control channel (zcs_soapy.hpp): the client of the board's
 * zcs-send --control that its settings go through, kept connected (a connection the board
 * closed, or one that broke, is opened again at the next setting), and what a setting does
 * without one. */
#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <SoapySDR/Logger.hpp>

#include "zcs_soapy.hpp"

/* How long connecting (with its handshake) and one request may take. */
static const int CONNECT_MS = 3000;
static const int SET_MS = 5000;
/* After a connection attempt failed, settings within this time do not try again: each attempt
 * may wait CONNECT_MS, and a GUI sends a setting per mouse-wheel step. */
static const auto RECONNECT_PAUSE = std::chrono::seconds(2);

void ZcsDevice::open_control()
{
	char err[512] = "";

	/* the control channel admits only holders of the stream key */
	if (args_.key.empty()) {
		SoapySDR::log(SOAPY_SDR_INFO, "zcs: no key: no control channel, settings read-only "
			      "(from the stream's metadata)");
		return;
	}
	if (zcs_key_load(&key_, args_.key.c_str(), err, sizeof(err)) < 0)
		throw std::runtime_error(std::string("zcs: key=: ") + err);
	have_key_ = true;
	std::lock_guard<std::mutex> lock(ctl_mu_);
	if (connect_locked(err, sizeof(err)) < 0)
		SoapySDR::logf(SOAPY_SDR_WARNING, "zcs: control channel %s: %s: settings read-only "
			       "until it answers", args_.control.c_str(), err);
	else
		SoapySDR::logf(SOAPY_SDR_INFO, "zcs: control channel %s: connected",
			       args_.control.c_str());
}

int ZcsDevice::connect_locked(char *err, size_t errlen)
{
	struct zcs_ctl_reply r;
	int ret;

	zcs_ctl_client_close(ctl_);
	ctl_ = nullptr;
	last_attempt_ = std::chrono::steady_clock::now();
	ret = zcs_ctl_client_open(&ctl_, args_.control.c_str(), &key_, CONNECT_MS, err, errlen);
	if (ret < 0) {
		ctl_ = nullptr;
		return ret;
	}
	memset(&r, 0, sizeof(r));
	ret = zcs_ctl_client_get(ctl_, &r, CONNECT_MS, err, errlen);
	if (ret == 0 && !r.ok) {
		snprintf(err, errlen, "get: %s", r.error);
		ret = -EPROTO;
	}
	if (ret < 0) {
		zcs_ctl_client_close(ctl_);
		ctl_ = nullptr;
		return ret;
	}
	ctl_last_ = r;
	return 0;
}

bool ZcsDevice::ctl_state(struct zcs_ctl_reply &r) const
{
	std::lock_guard<std::mutex> lock(ctl_mu_);

	/* the board's settings as last heard, also while a lost connection waits to be opened
	 * again: its ranges do not change, and what it was set to is the best knowledge there is */
	if (!ctl_last_.has_caps)
		return false;
	r = ctl_last_;
	return true;
}

void ZcsDevice::refuse(const std::string &msg, bool fatal) const
{
	SoapySDR::log(SOAPY_SDR_ERROR, msg);
	if (fatal)
		throw std::runtime_error(msg);
}

/* The board's range for the setting bit, in the unit the application gives it (Hz, S/s, dB);
 * false when the board gives none. */
static bool caps_range(const struct zcs_ctl_caps &c, uint32_t bit, double &lo, double &hi)
{
	switch (bit) {
	case ZCS_CTL_FREQ:
		lo = (double)c.freq_min, hi = (double)c.freq_max;
		break;
	case ZCS_CTL_RATE:
		lo = (double)c.rate_min, hi = (double)c.rate_max;
		break;
	case ZCS_CTL_BW:
		lo = (double)c.bw_min, hi = (double)c.bw_max;
		break;
	case ZCS_CTL_GAIN:
		lo = c.gain_min_mdb / 1000.0, hi = c.gain_max_mdb / 1000.0;
		break;
	default:
		return false;
	}
	return hi > lo;
}

void ZcsDevice::set_ctl(const struct zcs_ctl_settings &want, uint32_t bit, const std::string &what,
			double value, double have, bool fatal)
{
	struct zcs_ctl_reply r;
	char err[512] = "";
	int ret;

	std::unique_lock<std::mutex> lock(ctl_mu_);
	if (!have_key_) {
		lock.unlock();
		no_control(what, value, have, fatal);
		return;
	}
	if (!ctl_) {
		if (std::chrono::steady_clock::now() - last_attempt_ < RECONNECT_PAUSE) {
			refuse("zcs: control channel " + args_.control + ": not connected (tried again "
			       "at the next setting after 2 s): " + what + " left as it is", fatal);
			return;
		}
		if (connect_locked(err, sizeof(err)) < 0) {
			refuse("zcs: control channel: " + args_.control + ": " + err + ": " + what +
			       " left as it is", fatal);
			return;
		}
		SoapySDR::logf(SOAPY_SDR_INFO, "zcs: control channel %s: connected again",
			       args_.control.c_str());
	}
	if (!(ctl_last_.caps.settable & bit)) {
		refuse("zcs: the board does not set " + what + " while streaming", fatal);
		return;
	}
	/* out of the board's range is refused here: beyond what the protocol carries, a value
	 * would make a request the board cannot parse, and it closes the connection on one */
	double lo, hi;
	if (caps_range(ctl_last_.caps, bit, lo, hi) && (value < lo || value > hi)) {
		refuse("zcs: cannot set " + what + " to " + std::to_string(value) + ": outside the "
		       "board's range, " + std::to_string(lo) + " to " + std::to_string(hi), fatal);
		return;
	}
	memset(&r, 0, sizeof(r));
	ret = zcs_ctl_client_set(ctl_, &want, &r, SET_MS, err, sizeof(err));
	if (ret < 0 && ret != -ETIMEDOUT) {
		/* the connection is gone (the board's zcs-send restarted, or closed it): a new one
		 * and the same setting once more (a setting is absolute: twice is once) */
		SoapySDR::logf(SOAPY_SDR_WARNING, "zcs: control channel %s: %s: connecting again",
			       args_.control.c_str(), err);
		ret = connect_locked(err, sizeof(err));
		if (ret == 0) {
			SoapySDR::logf(SOAPY_SDR_INFO, "zcs: control channel %s: connected again",
				       args_.control.c_str());
			memset(&r, 0, sizeof(r));
			ret = zcs_ctl_client_set(ctl_, &want, &r, SET_MS, err, sizeof(err));
		}
	}
	if (ret < 0) {
		/* a reply that did not come in time may still come: a new connection next time */
		zcs_ctl_client_close(ctl_);
		ctl_ = nullptr;
		refuse("zcs: control channel: " + std::string(err) + ": " + what + " left as it is",
		       fatal);
		return;
	}
	if (!r.ok) {
		refuse("zcs: the board refused " + what + " " + std::to_string(value) + ": " + r.error,
		       fatal);
		return;
	}
	/* what the radio took (a reply carries every setting; its capabilities only with get) */
	ctl_last_.now = r.now;
}

bool ZcsDevice::sendable(const std::string &what, double value, bool fatal) const
{
	/* NaN or an infinity would make a request the board cannot parse, and it closes the
	 * connection on one (with every later setting then lost): refused here, alone */
	if (std::isfinite(value))
		return true;
	refuse("zcs: cannot set " + what + " to " + std::to_string(value) + ": not a number", fatal);
	return false;
}

void ZcsDevice::no_control(const std::string &what, double want, double have, bool fatal) const
{
	/* asking for what the stream already has is no change: applications set what they read */
	if (std::fabs(want - have) <= 1e-6 * std::fabs(have) + 1e-9)
		return;
	refuse("zcs: cannot set " + what + " to " + std::to_string(want) + ": no control channel "
	       "to the board (give key=, and control= unless it is the stream's sender at port " +
	       std::to_string(ZCS_CTL_DEFAULT_PORT) + "; the stream has " + std::to_string(have) +
	       ")", fatal);
}
