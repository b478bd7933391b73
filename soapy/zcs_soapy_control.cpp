// SPDX-License-Identifier: MIT
/* The zcs SoapySDR device's control channel (zcs_soapy.hpp): the client of the board's
 * zcs-send --control that its settings go through, and what a setting does without one. */
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <SoapySDR/Logger.hpp>

#include "zcs_soapy.hpp"

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

void ZcsDevice::no_control(const std::string &what, double want, double have, bool fatal) const
{
	/* asking for what the stream already has is no change: applications set what they read */
	if (std::fabs(want - have) <= 1e-6 * std::fabs(have) + 1e-9)
		return;
	const std::string msg = "zcs: cannot set " + what + " to " + std::to_string(want) +
		": no control channel to the board (give key=, and control= unless it is the "
		"stream's sender at port " + std::to_string(ZCS_CTL_DEFAULT_PORT) + "; the stream has " +
		std::to_string(have) + ")";
	SoapySDR::log(SOAPY_SDR_ERROR, msg);
	if (fatal)
		throw std::runtime_error(msg);
}

