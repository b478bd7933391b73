// SPDX-License-Identifier: MIT
/* Parsing and checking zcs-send's options: every number through common/util/cli.h's parsers, every
 * option that does not apply to the chosen source or destination refused by name.  The --help
 * text is send_usage.c. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ctl_server.h"
#include "err.h"
#include "formats.h"
#include "proto.h"
#include "fec.h"
#include "pipeline.h"
#include "send_opts.h"
#include "sendpath.h"
#include "sigmf_read.h"
#include "text.h"
#include "wire.h"
#include "zcs_config.h"

enum {
	OPT_FREQ = 256, OPT_GAIN, OPT_BW, OPT_CHANNEL, OPT_TONE, OPT_AMPLITUDE, OPT_NOISE, OPT_SEED,
	OPT_FILE_TYPE, OPT_LOOP, OPT_MTU, OPT_LINK_SPEED, OPT_TTL, OPT_IFACE, OPT_MCAST_LOOP, OPT_ZSTD,
	OPT_FEC,
	OPT_SEND_PATH, OPT_CPUS, OPT_JSON, OPT_UNPACED, OPT_KEY, OPT_CONTROL, OPT_CONTROL_CLIENTS,
	OPT_GEN_KEY, OPT_ANNOUNCE, OPT_RUN_COUNTER, OPT_STATE_DIR, OPT_SEND_THREADS,
};

/* --mtu's range in its message, from the protocol's own minimum */
#define STR_(x) #x
#define STR(x) STR_(x)
#define MTU_RANGE STR(ZCS_PROTO_MIN_MTU) "..65535"

/* Options given, to check combinations once everything is read. */
#define G_RATE (1u << 0)
#define G_RADIO (1u << 1)     /* --freq --gain --bw --channel --uri */
#define G_TONE (1u << 2)
#define G_SYNTH (1u << 3)     /* --amplitude --seed */
#define G_NOISE (1u << 4)
#define G_FILE (1u << 5)      /* --file-type */
#define G_LOOP (1u << 6)
#define G_MCAST (1u << 7)     /* --ttl --mcast-loop */

static const struct option long_opts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "source", required_argument, NULL, 's' },
	{ "uri", required_argument, NULL, 'u' },
	{ "rate", required_argument, NULL, 'r' },
	{ "count", required_argument, NULL, 'n' },
	{ "freq", required_argument, NULL, OPT_FREQ },
	{ "gain", required_argument, NULL, OPT_GAIN },
	{ "bw", required_argument, NULL, OPT_BW },
	{ "channel", required_argument, NULL, OPT_CHANNEL },
	{ "tone", required_argument, NULL, OPT_TONE },
	{ "amplitude", required_argument, NULL, OPT_AMPLITUDE },
	{ "noise", no_argument, NULL, OPT_NOISE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "file-type", required_argument, NULL, OPT_FILE_TYPE },
	{ "loop", no_argument, NULL, OPT_LOOP },
	{ "mtu", required_argument, NULL, OPT_MTU },
	{ "link-speed", required_argument, NULL, OPT_LINK_SPEED },
	{ "ttl", required_argument, NULL, OPT_TTL },
	{ "iface", required_argument, NULL, OPT_IFACE },
	{ "mcast-loop", no_argument, NULL, OPT_MCAST_LOOP },
	{ "zstd", optional_argument, NULL, OPT_ZSTD },
	{ "fec", required_argument, NULL, OPT_FEC },
	{ "send-path", required_argument, NULL, OPT_SEND_PATH },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "send-threads", required_argument, NULL, OPT_SEND_THREADS },
	{ "unpaced", no_argument, NULL, OPT_UNPACED },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "control", required_argument, NULL, OPT_CONTROL },
	{ "control-clients", required_argument, NULL, OPT_CONTROL_CLIENTS },
	{ "gen-key", required_argument, NULL, OPT_GEN_KEY },
	{ "run-counter", required_argument, NULL, OPT_RUN_COUNTER },
	{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
	{ "announce", optional_argument, NULL, OPT_ANNOUNCE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* "SRC,SEND": each a CPU number or "-" (leave unpinned); "none" for both. */
/* --fec K:M: K sample datagrams per block (1..128), M parity datagrams (1..32), the protocol's
 * limits (docs/protocol.md, "Parity datagrams"). */
static int parse_fec(struct zcs_send_opts *o, const char *arg, char *err, size_t errlen)
{
	const char *colon = strchr(arg, ':');
	char k_text[16];
	uint64_t k, m;
	int ret;

	if (!colon || (size_t)(colon - arg) >= sizeof(k_text))
		return zcs_err(err, errlen, -EINVAL, "--fec '%s': give K:M, for example 32:4", arg);
	memcpy(k_text, arg, (size_t)(colon - arg));
	k_text[colon - arg] = 0;
	ret = zcs_cli_parse_u64(k_text, 1, ZCS_FEC_MAX_K, &k);
	if (ret < 0)
		return zcs_err(err, errlen, -EINVAL, "--fec '%s': K (sample datagrams per block) "
			       "%s: 1..%d", arg, zcs_cli_why(ret), ZCS_FEC_MAX_K);
	ret = zcs_cli_parse_u64(colon + 1, 1, ZCS_FEC_MAX_M, &m);
	if (ret < 0)
		return zcs_err(err, errlen, -EINVAL, "--fec '%s': M (parity datagrams per block) "
			       "%s: 1..%d", arg, zcs_cli_why(ret), ZCS_FEC_MAX_M);
	if (!zcs_fec_available())
		return zcs_err(err, errlen, -ENOTSUP, "--fec: this build of zcs-send has no erasure "
			       "code (built without gf-complete and jerasure: meson -Dfec=enabled)");
	o->fec_k = (unsigned)k;
	o->fec_m = (unsigned)m;
	return 0;
}

static int parse_cpus(struct zcs_send_opts *o, const char *s, char *err, size_t errlen)
{
	char a[32], b[32];
	const char *comma = strchr(s, ',');
	uint64_t v;

	if (strcmp(s, "none") == 0) {
		o->cpu_src = o->cpu_send = -1;
		return 0;
	}
	if (!comma || (size_t)(comma - s) >= sizeof(a) || strlen(comma + 1) >= sizeof(b))
		return zcs_err(err, errlen, -EINVAL,
			       "--cpus '%s': expected SRC,SEND (e.g. 0,1; '-' leaves one "
			       "unpinned)", s);
	memcpy(a, s, (size_t)(comma - s));
	a[comma - s] = '\0';
	strcpy(b, comma + 1);
	if (strcmp(a, "-") == 0)
		o->cpu_src = -1;
	else if (zcs_cli_parse_u64(a, 0, CPU_SETSIZE - 1, &v) == 0)
		o->cpu_src = (int)v;
	else
		return zcs_err(err, errlen, -EINVAL, "--cpus '%s': bad source CPU '%s'", s, a);
	if (strcmp(b, "-") == 0)
		o->cpu_send = -1;
	else if (zcs_cli_parse_u64(b, 0, CPU_SETSIZE - 1, &v) == 0)
		o->cpu_send = (int)v;
	else
		return zcs_err(err, errlen, -EINVAL, "--cpus '%s': bad send CPU '%s'", s, b);
	return 0;
}

static int parse_source(struct zcs_send_opts *o, const char *s, char *err, size_t errlen)
{
	if (strcmp(s, "iio") == 0 || strcmp(s, "tone") == 0 || strcmp(s, "noise") == 0) {
		o->src.kind = s;
	} else if (strcmp(s, "-") == 0 || strcmp(s, "stdin") == 0 || strcmp(s, "file:-") == 0) {
		o->src.kind = "stdin";
		o->src.path = "-";
	} else if (strncmp(s, "file:", 5) == 0 && s[5]) {
		o->src.kind = "file";
		o->src.path = s + 5;
	} else {
		return zcs_err(err, errlen, -EINVAL,
			       "--source '%s': expected iio, tone, noise, file:PATH or -", s);
	}
	return 0;
}

static int parse_gain(struct zcs_send_opts *o, const char *s, char *err, size_t errlen)
{
	static const struct { const char *name; int mode; } modes[] = {
		{ "slow", ZCS_GAIN_SLOW }, { "fast", ZCS_GAIN_FAST }, { "hybrid", ZCS_GAIN_HYBRID },
		{ "slow_attack", ZCS_GAIN_SLOW }, { "fast_attack", ZCS_GAIN_FAST },
	};
	double db;
	int ret;

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (strcmp(s, modes[i].name) == 0) {
			o->src.gain_mode = modes[i].mode;
			return 0;
		}
	}
	/* the AD9361's manual range is about -3..71 dB; the device refuses what it cannot do */
	ret = zcs_cli_parse_double(s, -20.0, 100.0, &db);
	if (ret < 0)
		return zcs_err(err, errlen, -EINVAL,
			       "--gain '%s': expected dB (-20..100), slow, fast or hybrid", s);
	o->src.gain_set = true;
	o->src.gain_mdb = (int32_t)lround(db * 1000.0);
	o->src.gain_mode = ZCS_GAIN_MANUAL;
	return 0;
}

static int parse_dest(struct zcs_send_opts *o, char *err, size_t errlen)
{
	char why[ZCS_NET_ERR_LEN] = "";
	const struct sockaddr_storage *ss = &o->addr.ss;
	bool any = false;

	if (zcs_net_parse_addr(&o->addr, o->dest, ZCS_DEFAULT_PORT, why, sizeof(why)) < 0)
		return zcs_err(err, errlen, -EINVAL, "destination '%s': %s", o->dest, why);
	if (ss->ss_family == AF_INET) {
		struct sockaddr_in sin;

		memcpy(&sin, ss, sizeof(sin));
		any = sin.sin_addr.s_addr == htonl(INADDR_ANY);
	} else if (ss->ss_family == AF_INET6) {
		struct sockaddr_in6 sin6;

		memcpy(&sin6, ss, sizeof(sin6));
		any = IN6_IS_ADDR_UNSPECIFIED(&sin6.sin6_addr);
	}
	if (any)
		return zcs_err(err, errlen, -EINVAL,
			       "destination '%s': needs a host or group to send to", o->dest);
	if (zcs_net_port(&o->addr) == 0)
		return zcs_err(err, errlen, -EINVAL, "destination '%s': port 0 cannot be sent to",
			       o->dest);
	return 0;
}

/* A SigMF recording (-s file:NAME.sigmf-data) says its type and rate in NAME.sigmf-meta: they
 * apply unless --file-type and -r say otherwise.  Returns 0 or -EINVAL with err set. */
static int sigmf_defaults(struct zcs_send_opts *o, unsigned given, char *err, size_t errlen)
{
	const bool need_type = o->src.file_type < 0, want_rate = !(given & G_RATE);
	struct zcs_sigmf_info si;
	char why[256];
	int ret;

	if (!zcs_sigmf_is_data(o->src.path) || (!need_type && !want_rate))
		return 0;
	ret = zcs_sigmf_read(o->src.path, &si, why, sizeof(why));
	if (ret == -ENOENT && !need_type)
		return 0; /* a bare data file with its type given: paced at the default rate */
	if (ret < 0)
		return zcs_err(err, errlen, -EINVAL, "-s file:%s: %s (or give --file-type%s)",
			       o->src.path, why, want_rate ? " and -r" : "");
	if (need_type && si.type < 0)
		return zcs_err(err, errlen, -EINVAL,
			       "-s file:%s: %s: core:datatype %s%s%s cannot be replayed "
			       "(ci16_le, cf32_le, ci8 and cu8 can), or give --file-type",
			       o->src.path, si.meta_path, si.datatype[0] ? "\"" : "",
			       si.datatype[0] ? si.datatype : "missing",
			       si.datatype[0] ? "\"" : "");
	if (need_type)
		o->src.file_type = si.type;
	if (want_rate && si.rate)
		o->src.rate = si.rate;
	return 0;
}

/* Everything that depends on more than one option. */
static int check_combinations(struct zcs_send_opts *o, unsigned given, char *err, size_t errlen)
{
	const char *const kind = o->src.kind;
	const bool iio = strcmp(kind, "iio") == 0;
	const bool synth = strcmp(kind, "tone") == 0 || strcmp(kind, "noise") == 0;
	const bool file = strcmp(kind, "file") == 0 || strcmp(kind, "stdin") == 0;
	size_t payload;

	if (iio && !ZCS_HAVE_IIO)
		return zcs_err(err, errlen, -EINVAL,
			       "--source iio: this build has no libiio (use -s tone, noise, "
			       "file:PATH or -)");
	if (!iio && (given & G_RADIO))
		return zcs_err(err, errlen, -EINVAL,
			       "--freq, --gain, --bw, --channel and --uri apply to -s iio "
			       "only (source is %s)", kind);
	if (!synth && (given & (G_TONE | G_SYNTH | G_NOISE)))
		return zcs_err(err, errlen, -EINVAL,
			       "--tone, --amplitude, --noise and --seed apply to -s tone or "
			       "noise only (source is %s)", kind);
	if (strcmp(kind, "noise") == 0 && (given & (G_TONE | G_NOISE)))
		return zcs_err(err, errlen, -EINVAL,
			       "--tone and --noise apply to -s tone (-s noise is noise alone)");
	if (!file && (given & (G_FILE | G_LOOP)))
		return zcs_err(err, errlen, -EINVAL,
			       "--file-type and --loop apply to file:PATH and - only (source "
			       "is %s)", kind);
	if (strcmp(kind, "stdin") == 0 && (given & G_LOOP))
		return zcs_err(err, errlen, -EINVAL, "--loop: standard input cannot be rewound");
	if (iio && o->unpaced)
		return zcs_err(err, errlen, -EINVAL,
			       "-r max and --unpaced: the radio sets the pace of -s iio");
	if (strcmp(kind, "file") == 0 && sigmf_defaults(o, given, err, errlen) < 0)
		return -EINVAL;
	if (!iio && o->src.rate == 0)
		o->src.rate = ZCS_SEND_DEFAULT_RATE;
	if (synth && !(given & G_TONE))
		o->src.tone_hz = (double)o->src.rate / 10.0;
	if (synth && fabs(o->src.tone_hz) > (double)o->src.rate / 2.0)
		return zcs_err(err, errlen, -EINVAL,
			       "--tone %g: beyond the Nyquist limit of +-%g Hz at rate %llu",
			       o->src.tone_hz, (double)o->src.rate / 2.0,
			       (unsigned long long)o->src.rate);
	if (zcs_compress_check(o->zstd_level, o->path, err, errlen) < 0)
		return -EINVAL;
	if (o->run_counter && !o->key_path)
		return zcs_err(err, errlen, -EINVAL,
			       "--run-counter numbers keyed runs: it needs --key FILE");
	if (o->state_dir && !o->key_path)
		return zcs_err(err, errlen, -EINVAL,
			       "--state-dir keeps the keyed run counter: it needs --key FILE");
	if (o->state_dir && o->run_counter)
		return zcs_err(err, errlen, -EINVAL, "--state-dir and --run-counter both say where "
			       "the run counter is: give one or the other");
	if (o->control && !o->key_path)
		return zcs_err(err, errlen, -EINVAL,
			       "--control needs --key FILE: the control channel admits only "
			       "holders of the stream key (no key, no control)");
	if (!o->dest)
		return zcs_err(err, errlen, -EINVAL,
			       "missing destination (HOST[:PORT], [IPV6][:PORT] or a "
			       "multicast group)");
	if (parse_dest(o, err, errlen) < 0)
		return -EINVAL;
	if ((given & G_MCAST) && !zcs_net_is_multicast(&o->addr))
		return zcs_err(err, errlen, -EINVAL,
			       "--ttl and --mcast-loop apply to multicast destinations only "
			       "('%s' is not one)", o->dest);
	payload = zcs_proto_udp_payload(o->mtu, zcs_net_is_ipv6(&o->addr));
	if (zcs_proto_max_samples(o->format, payload) == 0)
		return zcs_err(err, errlen, -EINVAL,
			       "--mtu %zu: too small for one %s sample over %s", o->mtu,
			       zcs_wire_name(o->format),
			       zcs_net_is_ipv6(&o->addr) ? "IPv6" : "IPv4");
	if (!o->cpus_given) {
		o->cpu_src = -1;
		o->cpu_send = ZCS_SEND_DEFAULT_CPU_SEND;
	}
	return 0;
}

static void set_defaults(struct zcs_send_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->format = ZCS_WIRE_P12;
	o->src.kind = "iio";
	o->src.uri = "local:";
	o->src.file_type = -1;
	o->src.gain_mode = -1;
	o->src.amplitude = 0.5;
	o->src.seed = 1;
	o->mtu = ZCS_PROTO_DEFAULT_MTU;
	o->path = ZCS_PATH_AUTO;
	o->cpu_src = -1;
	o->cpu_send = -1;
	o->send_threads = 1;
	o->control_clients = ZCS_CTL_SERVER_DEFAULT_CLIENTS;
}

/* --announce[=NAME]: a DNS-SD instance name is 1..63 bytes of UTF-8 (RFC 6763 4.1.1) */
static int parse_announce(struct zcs_send_opts *o, const char *arg, char *err, size_t errlen)
{
	if (!ZCS_HAVE_AVAHI)
		return zcs_err(err, errlen, -EINVAL,
			       "--announce: this build has no DNS-SD (built without avahi)");
	if (arg && (!arg[0] || strlen(arg) > 63 || !zcs_text_valid(arg, strlen(arg)))) {
		char safe[4 * 64];

		/* escaped: the name given may hold the control characters it is refused for */
		return zcs_err(err, errlen, -EINVAL,
			       "--announce='%s': a name is 1..63 bytes of printable UTF-8",
			       zcs_text_escape(safe, sizeof(safe), arg));
	}
	o->announce = true;
	o->announce_name = arg;
	return 0;
}

/* One option; returns 0, or a parse result >= 1 to stop, or -EINVAL. */
static int parse_one(struct zcs_send_opts *o, int c, const char *arg, unsigned *given,
		     char *err, size_t errlen)
{
	uint64_t v;
	int ret;

	switch (c) {
	case 'f':
		o->format = zcs_wire_from_name(arg);
		if (o->format < 0)
			return zcs_err(err, errlen, -EINVAL,
				       "--format '%s': expected i8, p12 or i16", arg);
		return 0;
	case 's':
		return parse_source(o, arg, err, errlen);
	case 'u':
		o->src.uri = arg;
		*given |= G_RADIO;
		return 0;
	case 'r':
		*given |= G_RATE;
		if (strcmp(arg, "max") == 0) {
			o->unpaced = true;
			return 0;
		}
		/* the AD9361 runs 0.52..61.44 MS/s; files and synthetic sources may go lower */
		return zcs_cli_opt_u64("--rate", arg, 1, 1000000000, "samples per second, 1..1G, or max",
				       &o->src.rate, err, errlen);
	case 'n':
		/* sample indexes are 64-bit: half their range is centuries of any stream */
		return zcs_cli_opt_u64("--count", arg, 1, UINT64_MAX / 2, "samples, 1..2^63-1",
				       &o->count, err, errlen);
	case OPT_FREQ:
		*given |= G_RADIO;
		return zcs_cli_opt_u64("--freq", arg, 1, 100000000000ULL, "Hz, e.g. 915M", &o->src.freq,
				       err, errlen);
	case OPT_GAIN:
		*given |= G_RADIO;
		return parse_gain(o, arg, err, errlen);
	case OPT_BW:
		*given |= G_RADIO;
		return zcs_cli_opt_u64("--bw", arg, 1, 1000000000, "Hz, e.g. 20M", &o->src.bw, err,
				       errlen);
	case OPT_CHANNEL:
		*given |= G_RADIO;
		if (strcmp(arg, "rx1") == 0)
			o->src.channel = 0;
		else if (strcmp(arg, "rx2") == 0)
			o->src.channel = 1;
		else
			return zcs_err(err, errlen, -EINVAL, "--channel '%s': expected rx1 or rx2",
				       arg);
		return 0;
	case OPT_TONE:
		*given |= G_TONE;
		return zcs_cli_opt_double("--tone", arg, -1e9, 1e9, "Hz, may be negative",
					  &o->src.tone_hz, err, errlen);
	case OPT_AMPLITUDE:
		*given |= G_SYNTH;
		return zcs_cli_opt_double("--amplitude", arg, 0.0, 1.0, "0..1 of full scale",
					  &o->src.amplitude, err, errlen);
	case OPT_NOISE:
		*given |= G_NOISE;
		o->src.noise = true;
		return 0;
	case OPT_SEED:
		*given |= G_SYNTH;
		return zcs_cli_opt_u64("--seed", arg, 0, UINT64_MAX, NULL, &o->src.seed, err, errlen);
	case OPT_FILE_TYPE:
		*given |= G_FILE;
		ret = zcs_import_from_name(arg);
		if (ret < 0)
			return zcs_err(err, errlen, -EINVAL,
				       "--file-type '%s': expected cs16, ci16, cs8, cu8 or cf32",
				       arg);
		o->src.file_type = ret;
		return 0;
	case OPT_LOOP:
		*given |= G_LOOP;
		o->src.loop = true;
		return 0;
	case OPT_MTU:
		ret = zcs_cli_opt_u64("--mtu", arg, ZCS_PROTO_MIN_MTU, 65535, MTU_RANGE " bytes", &v,
				      err, errlen);
		o->mtu = ret < 0 ? o->mtu : (size_t)v;
		return ret;
	case OPT_LINK_SPEED:
		/* bits a second: 100M for Fast Ethernet, 1G, 480M a USB 2.0 bus */
		return zcs_cli_opt_u64("--link-speed", arg, 1000, 1000000000000ULL,
				       "bits per second, 1k..1T", &o->link_speed, err, errlen);
	case OPT_TTL:
		*given |= G_MCAST;
		ret = zcs_cli_opt_u64("--ttl", arg, 1, 255, "1..255", &v, err, errlen);
		o->tx.ttl = ret < 0 ? o->tx.ttl : (int)v;
		return ret;
	case OPT_IFACE:
		if (!arg[0] || strlen(arg) >= 16)
			return zcs_err(err, errlen, -EINVAL, "--iface '%s': not an interface name",
				       arg);
		o->tx.iface = arg;
		return 0;
	case OPT_MCAST_LOOP:
		*given |= G_MCAST;
		o->tx.mcast_loop = true;
		return 0;
	case OPT_ZSTD:
		o->zstd_level = ZCS_SEND_DEFAULT_ZSTD;
		if (arg) {
			ret = zcs_cli_parse_u64(arg, 1, 19, &v);
			if (ret < 0)
				return zcs_err(err, errlen, -EINVAL, "--zstd='%s': %s (level "
					       "1..19)", arg, zcs_cli_why(ret));
			o->zstd_level = (int)v;
		}
		return 0;
	case OPT_FEC:
		return parse_fec(o, arg, err, errlen);
	case OPT_SEND_PATH:
		o->path = zcs_path_from_name(arg);
		if (o->path < ZCS_PATH_AUTO)
			return zcs_err(err, errlen, -EINVAL,
				       "--send-path '%s': expected auto, uring-zc, msg-zc, "
				       "gso or plain", arg);
		if (o->path == ZCS_PATH_URING_ZC && !ZCS_HAVE_URING)
			return zcs_err(err, errlen, -EINVAL,
				       "--send-path uring-zc: this build has no liburing");
		return 0;
	case OPT_CPUS:
		o->cpus_given = true;
		return parse_cpus(o, arg, err, errlen);
	case OPT_SEND_THREADS:
		o->send_threads_auto = strcmp(arg, "auto") == 0;
		if (o->send_threads_auto) {
			o->send_threads = ZCS_SEND_MAX_SEND_THREADS;
			return 0;
		}
		if ((ret = zcs_cli_parse_u64(arg, 1, ZCS_SEND_MAX_SEND_THREADS, &v)) < 0)
			return zcs_err(err, errlen, -EINVAL, "--send-threads '%s': %s: 1, %d or auto",
				       arg, zcs_cli_why(ret), ZCS_SEND_MAX_SEND_THREADS);
		o->send_threads = (unsigned)v;
		return 0;
	case OPT_UNPACED:
		o->unpaced = true;
		return 0;
	case OPT_JSON:
		o->json = true;
		return 0;
	case OPT_KEY:
		return zcs_cli_opt_path("--key", arg, &o->key_path, err, errlen);
	case OPT_CONTROL:
		if (!arg[0])
			return zcs_err(err, errlen, -EINVAL, "--control '': expected [ADDR:]PORT "
				       "(the docs use 5392)");
		o->control = arg;
		return 0;
	case OPT_CONTROL_CLIENTS:
		ret = zcs_cli_opt_u64("--control-clients", arg, 1, ZCS_CTL_SERVER_MAX_CLIENTS,
				      "1..64", &v, err, errlen);
		o->control_clients = ret < 0 ? o->control_clients : (size_t)v;
		return ret;
	case OPT_GEN_KEY:
		return zcs_cli_opt_path("--gen-key", arg, &o->gen_key, err, errlen);
	case OPT_RUN_COUNTER:
		return zcs_cli_opt_path("--run-counter", arg, &o->run_counter, err, errlen);
	case OPT_STATE_DIR:
		return zcs_cli_opt_path("--state-dir", arg, &o->state_dir, err, errlen);
	case OPT_ANNOUNCE:
		return parse_announce(o, arg, err, errlen);
	case 'q':
		o->quiet = true;
		return 0;
	case 'h':
		return ZCS_SEND_HELP;
	case 'V':
		return ZCS_SEND_VERSION;
	default:
		return zcs_err(err, errlen, -EINVAL, "internal: option %d", c);
	}
}

/* What parse_one needs besides the option: zcs_cli_getopt hands this through. */
struct parse_ctx {
	struct zcs_send_opts *o;
	unsigned given;           /* G_* of the options given, for check_combinations */
	unsigned nopts;           /* options given: --gen-key must come alone */
};

static int take_opt(void *ctx, int c, const char *arg, char *err, size_t errlen)
{
	struct parse_ctx *const p = ctx;

	p->nopts++;
	return parse_one(p->o, c, arg, &p->given, err, errlen);
}

int zcs_send_parse_opts(struct zcs_send_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	struct parse_ctx p = { .o = o };
	int next, ret;

	set_defaults(o);
	ret = zcs_cli_getopt(argc, argv, "f:s:u:r:n:qhV", long_opts, take_opt, &p, &next, err,
			     errlen);
	if (ret != 0)
		return ret;
	if (next < argc)
		o->dest = argv[next++];
	if (o->gen_key) {
		/* --gen-key writes a file and exits: anything else given would be silently ignored */
		if (o->dest || p.nopts != 1)
			return zcs_err(err, errlen, -EINVAL,
				       "--gen-key FILE takes no other option or destination");
		return ZCS_SEND_GEN_KEY;
	}
	if (next < argc)
		return zcs_err(err, errlen, -EINVAL, "unexpected argument '%s' (one destination "
			       "only)", argv[next]);
	return check_combinations(o, p.given, err, errlen);
}
