// SPDX-License-Identifier: MIT
/* The zcs SoapySDR module's registration: driver key "zcs", find() by listening briefly for
 * streams' metadata (rx_find.c), make() opening the first stream that matches the arguments. */
#include <arpa/inet.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <netinet/in.h>
#include <stdexcept>

#include <SoapySDR/Logger.hpp>
#include <SoapySDR/Registry.hpp>

#include "zcs_soapy.hpp"

/* Streams one find() lists at most. */
#define FIND_MAX 16
/* How long find() listens: metadata comes every 400 ms, so each stream is heard twice. */
#define FIND_MS 1000

static unsigned long parse_num(const std::string &key, const std::string &v, unsigned long max)
{
	char *end = nullptr;
	unsigned long n;

	errno = 0;
	n = strtoul(v.c_str(), &end, 0);
	if (v.empty() || errno || *end || n > max)
		throw std::runtime_error("zcs: bad " + key + "=" + v);
	return n;
}

ZcsArgs zcs_soapy_args(const SoapySDR::Kwargs &args)
{
	ZcsArgs a;
	auto get = [&](const char *k) {
		const auto it = args.find(k);
		return it == args.end() ? std::string() : it->second;
	};

	a.addr = get("addr");
	a.iface = get("iface");
	a.source = get("source");
	a.key = get("key");
	a.control = get("control");
	if (!get("stream").empty()) {
		a.have_stream = true;
		a.stream_id = (uint32_t)parse_num("stream", get("stream"), 0xffffffffUL);
	}
	if (!get("window").empty())
		a.window = parse_num("window", get("window"), 65536);
	if (!get("from_start").empty())
		a.from_start = parse_num("from_start", get("from_start"), 1) == 1;
	if (!get("strict").empty())
		a.strict = parse_num("strict", get("strict"), 1) == 1;
	if (!get("timeout").empty())
		a.timeout_ms = (int)parse_num("timeout", get("timeout"), 600000);
	return a;
}

std::string zcs_soapy_host(const struct zcs_addr &a)
{
	char buf[INET6_ADDRSTRLEN] = "?";

	if (a.ss.ss_family == AF_INET) {
		const auto *s = reinterpret_cast<const struct sockaddr_in *>(&a.ss);
		inet_ntop(AF_INET, &s->sin_addr, buf, sizeof(buf));
		return buf;
	}
	if (a.ss.ss_family == AF_INET6) {
		const auto *s = reinterpret_cast<const struct sockaddr_in6 *>(&a.ss);
		inet_ntop(AF_INET6, &s->sin6_addr, buf, sizeof(buf));
		return std::string("[") + buf + "]";
	}
	return buf;
}

static const char *wire_name(int f)
{
	return f == 1 ? "i8" : f == 2 ? "p12" : f == 3 ? "i16" : "?";
}

static int find_streams(const ZcsArgs &a, int timeout_ms, bool first_only,
			struct zcs_rx_found *found, size_t max)
{
	char err[256] = "";
	const int n = zcs_rx_find(a.addr.empty() ? nullptr : a.addr.c_str(),
				  a.iface.empty() ? nullptr : a.iface.c_str(),
				  a.source.empty() ? nullptr : a.source.c_str(), a.have_stream,
				  a.stream_id, timeout_ms, first_only, found, max, err, sizeof(err));

	if (n == -EADDRINUSE) {
		/* a receiver on the port is not an error of find(): it is skipped, and said so */
		SoapySDR::logf(SOAPY_SDR_WARNING, "zcs: find: skipped: %s", err);
		return 0;
	}
	if (n < 0)
		SoapySDR::logf(SOAPY_SDR_ERROR, "zcs: %s", err[0] ? err : strerror(-n));
	return n;
}

/* The device arguments find() passes on from its hint into each stream it lists. */
static const char *const PASSED_ON[] = { "iface", "key", "control", "window", "timeout",
					 "from_start", "strict" };

static SoapySDR::KwargsList find_zcs(const SoapySDR::Kwargs &args)
{
	struct zcs_rx_found found[FIND_MAX];
	SoapySDR::KwargsList list;
	ZcsArgs a;
	int n;

	try {
		a = zcs_soapy_args(args);
	} catch (const std::exception &e) {
		SoapySDR::log(SOAPY_SDR_ERROR, e.what());
		return list;
	}
	n = find_streams(a, FIND_MS, false, found, FIND_MAX);
	for (int i = 0; i < n; i++) {
		const struct zcs_meta &m = found[i].meta;
		const std::string host = zcs_soapy_host(found[i].from);
		struct zcs_addr listen;
		char label[256], id[16];
		SoapySDR::Kwargs k;
		char err[64];

		snprintf(label, sizeof(label), "zcs %s (%s) %.6f MHz %.6g MS/s %s", m.sender,
			 host.c_str(), m.center_freq / 1e6, m.sample_rate / 1e6, wire_name(m.format));
		snprintf(id, sizeof(id), "0x%08x", (unsigned)m.stream_id);
		k["driver"] = "zcs";
		k["label"] = label;
		k["serial"] = id;
		if (!a.addr.empty())
			k["addr"] = a.addr;
		/* unicast: follow this sender (any port, so its restarts too); a group's senders
		 * would need a source-specific join, which the user asks for with source= */
		if (zcs_net_parse_addr(&listen, a.addr.c_str(), ZCS_DEFAULT_PORT, err, sizeof(err)) == 0 &&
		    !zcs_net_is_multicast(&listen))
			k["source"] = host;
		if (a.have_stream)
			k["stream"] = id;
		/* what the hint says about how to open, not which stream: applications open the
		 * result, not the hint (CubicSDR's manual entry driver=zcs,key=... lost its key) */
		for (const char *const o : PASSED_ON) {
			const auto it = args.find(o);

			if (it != args.end())
				k[o] = it->second;
		}
		list.push_back(k);
	}
	return list;
}

/* Opens the receive path at once (so nothing of a stream that starts now is missed) and waits
 * for the first stream's metadata. */
static SoapySDR::Device *make_zcs(const SoapySDR::Kwargs &args)
{
	const ZcsArgs a = zcs_soapy_args(args);
	struct zcs_rx_embed *e = zcs_soapy_open(a, ZCS_SAMPLE_CS16);
	struct zcs_addr from;
	struct zcs_meta m;

	if (!zcs_rx_embed_wait_meta(e, a.timeout_ms, &m, &from)) {
		zcs_rx_embed_close(e);
		throw std::runtime_error("zcs: no stream arriving on " +
					 (a.addr.empty() ? std::string("port 5391") : a.addr) +
					 " within " + std::to_string(a.timeout_ms) + " ms (timeout=)");
	}
	try {
		return new ZcsDevice(a, e, m, from);
	} catch (...) {
		zcs_rx_embed_close(e);
		throw;
	}
}

static SoapySDR::Registry register_zcs("zcs", &find_zcs, &make_zcs, SOAPY_SDR_ABI_VERSION);
