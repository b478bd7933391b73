/* SPDX-License-Identifier: MIT */
/* The zcs SoapySDR device: a SoapySDR::Device over receiver/embed/rx_embed.h.  C++ only because
 * SoapySDR's API is: receiving, reordering, gap filling and conversion are zcs-recv's own C.
 * Split as SoapySDR's own modules are: zcs_soapy_settings.cpp (construction, identity, settings,
 * sensors), zcs_soapy_control.cpp (the board's control channel), zcs_soapy_streaming.cpp (the
 * stream), zcs_soapy_registry.cpp (arguments, find and make). */
#ifndef ZCS_SOAPY_HPP
#define ZCS_SOAPY_HPP

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include <SoapySDR/Device.hpp>

#include "rx_embed.h"

#include "ctl_client.h"

/* Device arguments, read once from the Kwargs (zcs_soapy_registry.cpp). */
struct ZcsArgs {
	std::string addr;            /* addr=: group or address, and port ("" = every address) */
	std::string iface;           /* iface= */
	std::string source;          /* source=: the sender's address */
	bool have_stream = false;    /* stream= */
	uint32_t stream_id = 0;
	std::string key;             /* key=: key file, or the default key's (make) */
	bool key_default = false;    /* key is the default key's: no key= was given */
	bool no_key = false;         /* key=none: no default key either */
	std::string control;         /* control=: HOST[:PORT] of the board's control channel */
	std::string run_state;       /* run_state=: FILE, or none; "": beside the key (KEY.seen) */
	size_t window = 0;           /* window=: reorder window in datagrams */
	int timeout_ms = 3000;       /* timeout=: how long make waits for the stream's metadata */
	bool strict = false;         /* strict=1: a frequency or rate not applied throws */
	bool from_start = false;     /* from_start=1: samples kept from the open, not the activation */
};

ZcsArgs zcs_soapy_args(const SoapySDR::Kwargs &args);
/* Without key= (nor key=none), the default key (key.h: $ZCS_KEY, ~/.config/zcs/key,
 * /etc/zcs/key) into a.key, said in the log; throws when it is there but cannot be loaded. */
void zcs_soapy_default_key(ZcsArgs &a);
/* Opens the receive path for args in sample type t; throws with the message on failure. */
struct zcs_rx_embed *zcs_soapy_open(const ZcsArgs &args, enum zcs_sample_type t);
/* "IP" or "[IPv6]" of a sender address, without its port. */
std::string zcs_soapy_host(const struct zcs_addr &a);

class ZcsDevice : public SoapySDR::Device {
public:
	/* Takes rx, open (type CS16) and with the stream's metadata m from sender. */
	ZcsDevice(const ZcsArgs &args, struct zcs_rx_embed *rx, const struct zcs_meta &m,
		  const struct zcs_addr &sender);
	~ZcsDevice() override;

	std::string getDriverKey() const override { return "zcs"; }
	std::string getHardwareKey() const override;
	SoapySDR::Kwargs getHardwareInfo() const override;
	size_t getNumChannels(const int dir) const override;
	bool getFullDuplex(const int, const size_t) const override { return false; }

	std::vector<std::string> getStreamFormats(const int dir, const size_t ch) const override;
	std::string getNativeStreamFormat(const int dir, const size_t ch, double &fullScale) const override;
	SoapySDR::Stream *setupStream(const int dir, const std::string &format,
				      const std::vector<size_t> &channels,
				      const SoapySDR::Kwargs &args) override;
	void closeStream(SoapySDR::Stream *stream) override;
	size_t getStreamMTU(SoapySDR::Stream *stream) const override;
	int activateStream(SoapySDR::Stream *stream, const int flags, const long long timeNs,
			   const size_t numElems) override;
	int deactivateStream(SoapySDR::Stream *stream, const int flags, const long long timeNs) override;
	int readStream(SoapySDR::Stream *stream, void *const *buffs, const size_t numElems, int &flags,
		       long long &timeNs, const long timeoutUs) override;

	/* The stream's clock: the announced time of the sample after the last one read (before
	 * the first read, of the metadata's reference sample); 0 when the sender announces none. */
	bool hasHardwareTime(const std::string &what = "") const override;
	long long getHardwareTime(const std::string &what = "") const override;

	std::vector<std::string> listAntennas(const int dir, const size_t ch) const override;
	void setAntenna(const int dir, const size_t ch, const std::string &name) override;
	std::string getAntenna(const int dir, const size_t ch) const override;

	std::vector<std::string> listGains(const int dir, const size_t ch) const override;
	bool hasGainMode(const int dir, const size_t ch) const override;
	void setGainMode(const int dir, const size_t ch, const bool automatic) override;
	bool getGainMode(const int dir, const size_t ch) const override;
	void setGain(const int dir, const size_t ch, const double value) override;
	void setGain(const int dir, const size_t ch, const std::string &name, const double value) override;
	double getGain(const int dir, const size_t ch) const override;
	double getGain(const int dir, const size_t ch, const std::string &name) const override;
	SoapySDR::Range getGainRange(const int dir, const size_t ch) const override;
	SoapySDR::Range getGainRange(const int dir, const size_t ch, const std::string &name) const override;

	void setFrequency(const int dir, const size_t ch, const double frequency,
			  const SoapySDR::Kwargs &args) override;
	void setFrequency(const int dir, const size_t ch, const std::string &name,
			  const double frequency, const SoapySDR::Kwargs &args) override;
	double getFrequency(const int dir, const size_t ch) const override;
	double getFrequency(const int dir, const size_t ch, const std::string &name) const override;
	std::vector<std::string> listFrequencies(const int dir, const size_t ch) const override;
	SoapySDR::RangeList getFrequencyRange(const int dir, const size_t ch) const override;
	SoapySDR::RangeList getFrequencyRange(const int dir, const size_t ch, const std::string &name) const override;

	void setSampleRate(const int dir, const size_t ch, const double rate) override;
	double getSampleRate(const int dir, const size_t ch) const override;
	std::vector<double> listSampleRates(const int dir, const size_t ch) const override;
	SoapySDR::RangeList getSampleRateRange(const int dir, const size_t ch) const override;

	void setBandwidth(const int dir, const size_t ch, const double bw) override;
	double getBandwidth(const int dir, const size_t ch) const override;
	SoapySDR::RangeList getBandwidthRange(const int dir, const size_t ch) const override;

	std::vector<std::string> listSensors() const override;
	SoapySDR::ArgInfo getSensorInfo(const std::string &key) const override;
	std::string readSensor(const std::string &key) const override;

private:
	struct zcs_meta meta() const;
	/* Applications ask about TX and other channels too (CubicSDR lists TX antennas): a
	 * query about a channel that is not there gets SoapySDR's own empty answer, a setting
	 * for one is logged (set_rx0 false); neither throws. */
	static bool is_rx0(const int dir, const size_t ch);
	bool set_rx0(const int dir, const size_t ch, const char *what) const;
	/* Logs msg as an error; throws it too when fatal. */
	void refuse(const std::string &msg, bool fatal) const;
	/* Without a control channel a setting can only be what the stream already has. */
	void no_control(const std::string &what, double want, double have, bool fatal) const;
	/* Loads the key (key=, or the default one) and connects to the board's control channel. */
	void open_control();
	/* Opens the control connection (closing one there was) and reads the board's settings into
	 * ctl_last_.  ctl_mu_ held.  Returns 0 or -errno with err set. */
	int connect_locked(char *err, size_t errlen);
	/* Applies want through the control channel (or, without one, accepts only what the
	 * stream has); a refusal throws with the board's reason when fatal, else is only logged
	 * (the default for every setting: GQRX exits on any exception, CubicSDR aborts; strict=1
	 * makes a frequency or rate refusal throw).  value (in the application's unit) outside
	 * the board's range is refused without asking.  A connection that is gone is opened again
	 * and the setting sent once more. */
	void set_ctl(const struct zcs_ctl_settings &want, uint32_t bit, const std::string &what,
		     double value, double have, bool fatal = true);
	/* Whether value can be asked for at all: a finite number; otherwise refused (as refuse())
	 * and false.  Range checks against the board's are set_ctl's. */
	bool sendable(const std::string &what, double value, bool fatal) const;
	/* The board's settings and capabilities as last heard (also while a lost connection waits
	 * to be opened again); false when it never answered. */
	bool ctl_state(struct zcs_ctl_reply &r) const;

	ZcsArgs args_;
	struct zcs_addr sender_;
	mutable std::mutex mu_;       /* meta_ and the stream pointer, against readStream */
	struct zcs_meta meta_;        /* the newest metadata: from discovery, then the stream */
	struct zcs_rx_embed *rx_ = nullptr;
	enum zcs_sample_type type_ = ZCS_SAMPLE_CS16;
	size_t pair_bytes_ = 4;
	bool active_ = false;
	bool setup_ = false;
	std::atomic<long long> hw_time_{0}; /* readStream's next sample's time, for any thread */
	mutable std::mutex ctl_mu_;   /* the client is not thread-safe */
	struct zcs_ctl_client *ctl_ = nullptr;
	struct zcs_ctl_reply ctl_last_; /* settings and capabilities from the board */
	struct zcs_key key_;          /* for connecting again; wiped with the device */
	bool have_key_ = false;
	std::chrono::steady_clock::time_point last_attempt_; /* the last connection attempt */
};

#endif
