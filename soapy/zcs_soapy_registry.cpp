// SPDX-License-Identifier: MIT
/* The zcs SoapySDR module's registration: driver key "zcs", find() by listening briefly for
 * streams' metadata (rx_find.c) and browsing DNS-SD meanwhile (common/dnssd/dnssd.h), make() opening
 * the first stream that matches the arguments. */
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <net/if.h>
#include <netinet/in.h>
#include <stdexcept>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include <SoapySDR/Logger.hpp>
#include <SoapySDR/Registry.hpp>

#include "zcs_soapy.hpp"

#include "dnssd.h"
#include "text.h"
#include "wire.h"

/* Streams one find() lists at most. */
#define FIND_MAX 16
/* How long find() listens: metadata comes every 400 ms, so each stream is heard twice.  The
 * DNS-SD browse runs meanwhile: an mDNS answer comes within 20-120 ms of the query (RFC 6762
 * 5.2), so its resolves are done well within the same second. */
#define FIND_MS 1000
/* Streams the browse hands over at most. */
#define FIND_DNSSD_MAX 32

static unsigned long parse_num(const std::string &key, const std::string &v, unsigned long max)
{
	char *end = nullptr;
	unsigned long n;

	errno = 0;
	n = strtoul(v.c_str(), &end, 0);
	if (v.empty() || errno || *end || n > max)
		throw std::runtime_error("zcs: bad " + key + "=" + v + " (a number, at most " +
					 std::to_string(max) + ")");
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
	if (a.key == ZCS_KEY_ENV_NONE) {
		a.key.clear();
		a.no_key = true;
	}
	a.control = get("control");
	a.run_state = get("run_state");
	if (!get("stream").empty()) {
		a.have_stream = true;
		a.stream_id = (uint32_t)parse_num("stream", get("stream"), 0xffffffffUL);
	}
	if (!get("window").empty())
		a.window = parse_num("window", get("window"), ZCS_RX_EMBED_WINDOW_LIMIT);
	if (!get("from_start").empty())
		a.from_start = parse_num("from_start", get("from_start"), 1) == 1;
	if (!get("strict").empty())
		a.strict = parse_num("strict", get("strict"), 1) == 1;
	if (!get("timeout").empty())
		a.timeout_ms = (int)parse_num("timeout", get("timeout"), 600000);
	return a;
}

void zcs_soapy_default_key(ZcsArgs &a)
{
	struct zcs_key_env env;
	struct zcs_key key;
	char path[PATH_MAX], note[PATH_MAX + 64], err[PATH_MAX + 256];
	int ret;

	if (!a.key.empty() || a.no_key)
		return;
	zcs_key_env_get(&env);
	ret = zcs_key_default_path(&env, path, sizeof(path), note, sizeof(note), err, sizeof(err));
	if (note[0])
		SoapySDR::logf(SOAPY_SDR_INFO, "zcs: %s", note);
	if (ret < 0)
		throw std::runtime_error(std::string("zcs: ") + err);
	if (ret == 0)
		return;
	/* loaded here once to say which key failed; the receive path and the control channel load
	 * it again */
	if (zcs_key_load(&key, path, err, sizeof(err)) < 0) {
		const std::string msg = std::string("zcs: the default key (no key= given; key=FILE for "
						    "another, key=none for none): ") + err;
		SoapySDR::log(SOAPY_SDR_ERROR, msg);
		throw std::runtime_error(msg);
	}
	zcs_key_wipe(&key);
	a.key = path;
	a.key_default = true;
	/* the path from the environment may hold escape sequences: shown escaped */
	SoapySDR::logf(SOAPY_SDR_INFO, "zcs: the default key %s (no key= given): the stream is "
		       "verified with it and the board's control channel opened (key=none for "
		       "neither)", zcs_text_escape(note, sizeof(note), path));
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
					 "from_start", "strict", "run_state" };

/* what the hint says about how to open, not which stream: applications open the result, not
 * the hint (CubicSDR's manual entry driver=zcs,key=... lost its key); a hint's iface= or
 * control= wins over what an announcement says */
static void pass_on(const SoapySDR::Kwargs &args, SoapySDR::Kwargs &k)
{
	for (const char *const o : PASSED_ON) {
		const auto it = args.find(o);

		if (it != args.end())
			k[o] = it->second;
	}
}

static void dnssd_log(void *ctx, const char *line)
{
	(void)ctx;
	/* debug only: a find() on a LAN with a stray announcement should not shout */
	SoapySDR::logf(SOAPY_SDR_DEBUG, "zcs: %s", line);
}

/* A unicast stream is for this host only when its destination is one of this host's
 * addresses: one a socket can be bound to.  A loopback destination is every host's: only an
 * announcement this host made itself means this one. */
static bool dest_is_here(const struct zcs_dnssd_stream &d)
{
	const struct zcs_addr &dest = d.dest;
	struct sockaddr_storage ss = dest.ss;
	int fd;
	bool here;

	if (ss.ss_family == AF_INET) {
		auto *const sin = reinterpret_cast<struct sockaddr_in *>(&ss);

		if ((ntohl(sin->sin_addr.s_addr) >> 24) == 127 && !d.local)
			return false;
		sin->sin_port = 0;
	} else if (ss.ss_family == AF_INET6) {
		auto *const sin6 = reinterpret_cast<struct sockaddr_in6 *>(&ss);

		if (IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr) && !d.local)
			return false;
		sin6->sin6_port = 0;
	} else {
		return false;
	}
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	here = bind(fd, reinterpret_cast<const struct sockaddr *>(&ss), dest.len) == 0;
	close(fd);
	return here;
}

static bool same_ip(const struct zcs_addr &x, const struct zcs_addr &y)
{
	if (x.ss.ss_family != y.ss.ss_family)
		return false;
	if (x.ss.ss_family == AF_INET)
		return reinterpret_cast<const struct sockaddr_in *>(&x.ss)->sin_addr.s_addr ==
		       reinterpret_cast<const struct sockaddr_in *>(&y.ss)->sin_addr.s_addr;
	if (x.ss.ss_family == AF_INET6)
		return memcmp(&reinterpret_cast<const struct sockaddr_in6 *>(&x.ss)->sin6_addr,
			      &reinterpret_cast<const struct sockaddr_in6 *>(&y.ss)->sin6_addr,
			      sizeof(struct in6_addr)) == 0;
	return false;
}

/* The arguments find() was given (addr=, source=, stream=) select among announced streams as
 * they select among the streams heard. */
static bool dnssd_wanted(const ZcsArgs &a, const struct zcs_dnssd_stream &d)
{
	struct zcs_addr want;
	char err[128];

	if (a.have_stream && d.stream_id != a.stream_id)
		return false;
	if (!a.source.empty() &&
	    (zcs_net_parse_addr(&want, a.source.c_str(), 0, err, sizeof(err)) < 0 ||
	     !same_ip(want, d.sender)))
		return false;
	if (!a.addr.empty()) {
		if (zcs_net_parse_addr(&want, a.addr.c_str(), ZCS_DEFAULT_PORT, err, sizeof(err)) < 0 ||
		    zcs_net_port(&want) != zcs_net_port(&d.dest))
			return false;
		/* a group or an address given must be the one announced; a wildcard takes any */
		if ((zcs_net_is_multicast(&want) || zcs_net_is_multicast(&d.dest)) &&
		    !same_ip(want, d.dest))
			return false;
	}
	return true;
}

/* What a stream is sent from and to, which a retune or a restart of its sender does not change:
 * the serial applications find the device again by (SDR++ by its label, which holds no
 * setting either). */
static std::string serial_of(const std::string &sender_host, unsigned dest_port)
{
	return sender_host + "/" + std::to_string(dest_port);
}

/* The stream's settings as find() saw them, for a person reading the list: keys of their own,
 * never in the label (make() reads none of them). */
static void describe(SoapySDR::Kwargs &k, uint64_t freq, uint64_t rate, int format)
{
	k["stream_frequency"] = std::to_string(freq);
	k["stream_rate"] = std::to_string(rate);
	k["wire_format"] = zcs_wire_name(format);
}

/* An announced stream as find() lists it, with the arguments that open it: a group (and the
 * interface it was announced on) is joined without the user knowing it. */
static SoapySDR::Kwargs dnssd_kwargs(const struct zcs_dnssd_stream &d)
{
	const std::string host = zcs_soapy_host(d.sender);
	char label[512], id[16], dest[INET6_ADDRSTRLEN + 16], ifname[IF_NAMESIZE];
	SoapySDR::Kwargs k;

	snprintf(label, sizeof(label), "zcs %s (%s), DNS-SD '%s'", d.host, host.c_str(), d.name);
	snprintf(id, sizeof(id), "0x%08x", (unsigned)d.stream_id);
	k["driver"] = "zcs";
	k["label"] = label;
	k["serial"] = serial_of(host, zcs_net_port(&d.dest));
	describe(k, d.freq, d.rate, d.format);
	k["keyed"] = d.keyed ? "yes" : "no";
	k["addr"] = zcs_net_addr_str(&d.dest, dest, sizeof(dest));
	k["stream"] = id;
	if (zcs_net_is_multicast(&d.dest)) {
		if (d.ifindex > 0 && if_indextoname((unsigned)d.ifindex, ifname))
			k["iface"] = ifname;
	} else {
		k["source"] = host;
	}
	/* the announced control port, which need not be the docs' 5392 (key= still needed) */
	if (d.control_port)
		k["control"] = host + ":" + std::to_string(d.control_port);
	return k;
}

/* Appends the announced streams that listening did not hear (a group nobody named, say).  A
 * stream heard as well keeps its heard entry (list[j] for heard[j]), which takes from the
 * announcement what the stream itself does not say: the control port, for a zcs-send --control
 * on a port other than the default, so an application that gives no device argument (SDR++)
 * still tunes it.  A hint's control= wins. */
static void dnssd_merge(const SoapySDR::Kwargs &args, const ZcsArgs &a,
			struct zcs_dnssd_browse *b, const struct zcs_rx_found *heard, int nheard,
			SoapySDR::KwargsList &list)
{
	struct zcs_dnssd_stream found[FIND_DNSSD_MAX];
	const size_t n = zcs_dnssd_browse_results(b, found, FIND_DNSSD_MAX);

	for (size_t i = 0; i < n && list.size() < FIND_MAX; i++) {
		const struct zcs_dnssd_stream &d = found[i];
		bool dup = false;

		for (int j = 0; j < nheard; j++) {
			if (heard[j].meta.stream_id != d.stream_id)
				continue;
			dup = true;
			if (d.control_port && (size_t)j < list.size() && !args.count("control"))
				list[(size_t)j]["control"] = zcs_soapy_host(d.sender) + ":" +
							    std::to_string(d.control_port);
		}
		if (dup || !dnssd_wanted(a, d))
			continue;
		if (!zcs_net_is_multicast(&d.dest) && !dest_is_here(d)) {
			char dest[INET6_ADDRSTRLEN + 16];

			SoapySDR::logf(SOAPY_SDR_DEBUG, "zcs: DNS-SD: '%s' streams to %s, not here",
				       d.name, zcs_net_addr_str(&d.dest, dest, sizeof(dest)));
			continue;
		}
		SoapySDR::Kwargs k = dnssd_kwargs(d);

		pass_on(args, k);
		list.push_back(k);
	}
}

static SoapySDR::KwargsList find_zcs(const SoapySDR::Kwargs &args)
{
	const struct zcs_log blog = { dnssd_log, nullptr };
	const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(FIND_MS);
	struct zcs_dnssd_browse *browse = nullptr;
	char berr[256] = "";
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
	/* browse while listening, so one find() takes the same second either way */
	if (zcs_dnssd_browse_start(&browse, &blog, berr, sizeof(berr)) < 0 && berr[0])
		SoapySDR::logf(SOAPY_SDR_DEBUG, "zcs: %s", berr);
	n = find_streams(a, FIND_MS, false, found, FIND_MAX);
	for (int i = 0; i < n; i++) {
		const struct zcs_meta &m = found[i].meta;
		const std::string host = zcs_soapy_host(found[i].from);
		struct zcs_addr listen;
		char label[256], id[16];
		SoapySDR::Kwargs k;
		char err[64];
		const bool listen_ok = zcs_net_parse_addr(&listen, a.addr.c_str(), ZCS_DEFAULT_PORT,
							  err, sizeof(err)) == 0;

		/* no setting in the label: SDR++ finds its device again by the label alone */
		snprintf(label, sizeof(label), "zcs %s (%s)%s%s", m.sender, host.c_str(),
			 a.addr.empty() ? "" : " on ", a.addr.c_str());
		snprintf(id, sizeof(id), "0x%08x", (unsigned)m.stream_id);
		k["driver"] = "zcs";
		k["label"] = label;
		k["serial"] = serial_of(host, listen_ok ? zcs_net_port(&listen) : ZCS_DEFAULT_PORT);
		describe(k, m.center_freq, m.sample_rate, m.format);
		if (!a.addr.empty())
			k["addr"] = a.addr;
		/* unicast: follow this sender (any port, so its restarts too); a group's senders
		 * would need a source-specific join, which the user asks for with source= */
		if (listen_ok && !zcs_net_is_multicast(&listen))
			k["source"] = host;
		if (a.have_stream)
			k["stream"] = id;
		pass_on(args, k);
		list.push_back(k);
	}
	if (browse) {
		/* listening may have ended early (its socket refused): the browse gets its second */
		std::this_thread::sleep_until(until);
		dnssd_merge(args, a, browse, found, n < 0 ? 0 : n, list);
		zcs_dnssd_browse_stop(browse);
	}
	return list;
}

/* Opens the receive path at once (so nothing of a stream that starts now is missed) and waits
 * for the first stream's metadata. */
static SoapySDR::Device *make_zcs(const SoapySDR::Kwargs &args)
{
	ZcsArgs a = zcs_soapy_args(args);
	struct zcs_rx_embed *e;
	struct zcs_addr from;
	struct zcs_meta m;

	zcs_soapy_default_key(a);
	e = zcs_soapy_open(a, ZCS_SAMPLE_CS16);
	if (!zcs_rx_embed_wait_meta(e, a.timeout_ms, &m, &from)) {
		zcs_rx_embed_close(e);
		throw std::runtime_error("zcs: no stream arriving on " +
					 (a.addr.empty() ? "port " + std::to_string(ZCS_DEFAULT_PORT) : a.addr) +
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
