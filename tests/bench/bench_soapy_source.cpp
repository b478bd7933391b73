// SPDX-License-Identifier: MIT
/* A zero-cost SoapySDR radio for the board benchmark (bench_board.sh): driver=zcsbench hands out a
 * precomputed tone in CS16 or CS12 at the set sample rate, in blocks of 1/20 s like the board's
 * DMA, so SoapyRemote's server is measured with nearly nothing of a driver's own cost below it.
 * Test code only; the only per-sample work is the memcpy any readStream into a caller's buffer
 * needs. */
#include <SoapySDR/Device.hpp>
#include <SoapySDR/Formats.hpp>
#include <SoapySDR/Registry.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace {

/* Pairs of the precomputed tone: a power of two, so the tone (rate / 64) repeats exactly. */
constexpr size_t TONE_PAIRS = 65536;
/* 1/20 s blocks, as zcs-send's iio source asks of libiio; bounded like there. */
constexpr double BLOCK_DIV = 20.0;
constexpr size_t BLOCK_MIN = 4096, BLOCK_MAX = 1024 * 1024;
/* A reader this far behind the radio has lost samples: a DMA overflows its buffers. */
constexpr double OVERFLOW_S = 0.25;

using clk = std::chrono::steady_clock;

class BenchSource : public SoapySDR::Device {
public:
	BenchSource()
	{
		cs16.resize(2 * TONE_PAIRS);
		cs12.resize(3 * TONE_PAIRS);
		for (size_t k = 0; k < TONE_PAIRS; k++) {
			const double ph = 2.0 * M_PI * (double)(k % 64) / 64.0;
			const int16_t i = (int16_t)std::lround(1000.0 * std::cos(ph));
			const int16_t q = (int16_t)std::lround(1000.0 * std::sin(ph));
			const uint32_t w = ((uint32_t)i & 0xfffu) | (((uint32_t)q & 0xfffu) << 12);

			cs16[2 * k] = i;
			cs16[2 * k + 1] = q;
			cs12[3 * k] = (uint8_t)w;
			cs12[3 * k + 1] = (uint8_t)(w >> 8);
			cs12[3 * k + 2] = (uint8_t)(w >> 16);
		}
	}

	std::string getDriverKey() const override { return "zcsbench"; }
	std::string getHardwareKey() const override { return "zcsbench"; }
	size_t getNumChannels(const int dir) const override { return dir == SOAPY_SDR_RX ? 1 : 0; }

	std::vector<std::string> getStreamFormats(const int, const size_t) const override
	{
		return {SOAPY_SDR_CS16, SOAPY_SDR_CS12};
	}
	std::string getNativeStreamFormat(const int, const size_t, double &fs) const override
	{
		fs = 2048;
		return SOAPY_SDR_CS16;
	}

	void setSampleRate(const int, const size_t, const double r) override { rate = r; }
	double getSampleRate(const int, const size_t) const override { return rate; }
	SoapySDR::RangeList getSampleRateRange(const int, const size_t) const override
	{
		return {SoapySDR::Range(1e5, 1e8)};
	}
	void setFrequency(const int, const size_t, const std::string &, const double f,
			  const SoapySDR::Kwargs &) override
	{
		freq = f;
	}
	double getFrequency(const int, const size_t, const std::string &) const override
	{
		return freq;
	}
	std::vector<std::string> listFrequencies(const int, const size_t) const override
	{
		return {"RF"};
	}

	SoapySDR::Stream *setupStream(const int dir, const std::string &format,
				      const std::vector<size_t> &, const SoapySDR::Kwargs &) override
	{
		if (dir != SOAPY_SDR_RX)
			throw std::runtime_error("zcsbench: receive only");
		if (format == SOAPY_SDR_CS16)
			pair_bytes = 4;
		else if (format == SOAPY_SDR_CS12)
			pair_bytes = 3;
		else
			throw std::runtime_error("zcsbench: CS16 or CS12 only");
		return reinterpret_cast<SoapySDR::Stream *>(this);
	}
	void closeStream(SoapySDR::Stream *) override {}
	size_t getStreamMTU(SoapySDR::Stream *) const override { return 65536; }

	int activateStream(SoapySDR::Stream *, const int, const long long, const size_t) override
	{
		block = (size_t)std::min((double)BLOCK_MAX, std::max((double)BLOCK_MIN, rate / BLOCK_DIV));
		t0 = clk::now();
		n = 0;
		left = 0;
		return 0;
	}
	int deactivateStream(SoapySDR::Stream *, const int, const long long) override { return 0; }

	/* Hands out the current block; when it is used up, waits for the next one to be "captured"
	 * (its last sample due), as a read from the DMA waits. */
	int readStream(SoapySDR::Stream *, void *const *buffs, const size_t want, int &flags,
		       long long &time_ns, const long timeout_us) override
	{
		flags = 0;
		time_ns = 0;
		if (!left) {
			const double due = (double)(n + block) / rate;
			const double now = std::chrono::duration<double>(clk::now() - t0).count();

			if (now - due > OVERFLOW_S) {
				/* the reader fell behind: the samples it did not take are gone */
				n = (uint64_t)(now * rate);
				return SOAPY_SDR_OVERFLOW;
			}
			if (due - now > (double)timeout_us / 1e6) {
				std::this_thread::sleep_for(std::chrono::microseconds(timeout_us));
				return SOAPY_SDR_TIMEOUT;
			}
			if (due > now)
				std::this_thread::sleep_until(t0 + std::chrono::duration_cast<clk::duration>(
						std::chrono::duration<double>(due)));
			left = block;
		}
		size_t got = std::min(want, left);
		uint8_t *out = static_cast<uint8_t *>(buffs[0]);
		const uint8_t *src = pair_bytes == 4 ? reinterpret_cast<const uint8_t *>(cs16.data())
						     : cs12.data();
		for (size_t done = 0; done < got;) {
			const size_t at = (size_t)((n + done) % TONE_PAIRS);
			const size_t k = std::min(got - done, TONE_PAIRS - at);

			std::memcpy(out + done * pair_bytes, src + at * pair_bytes, k * pair_bytes);
			done += k;
		}
		n += got;
		left -= got;
		return (int)got;
	}

private:
	std::vector<int16_t> cs16;
	std::vector<uint8_t> cs12;
	double rate = 1e6, freq = 1e8;
	size_t pair_bytes = 4, block = BLOCK_MIN, left = 0;
	uint64_t n = 0;
	clk::time_point t0;
};

SoapySDR::KwargsList find_bench(const SoapySDR::Kwargs &args)
{
	const auto d = args.find("driver");

	if (d == args.end() || d->second != "zcsbench")
		return {};
	return {{{"driver", "zcsbench"}, {"label", "zcs benchmark source"}}};
}

SoapySDR::Device *make_bench(const SoapySDR::Kwargs &)
{
	return new BenchSource();
}

SoapySDR::Registry register_bench("zcsbench", &find_bench, &make_bench, SOAPY_SDR_ABI_VERSION);

} // namespace
