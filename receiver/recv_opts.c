// SPDX-License-Identifier: MIT
/* zcs-recv option parsing (see recv_opts.h).  Numbers go through common/cli.h (end pointer, SI
 * suffixes, range); combinations are checked once all options are read. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "recv_opts.h"

static const char usage[] =
"Usage: zcs-recv [OPTIONS] [GROUP|ADDR][:PORT]\n"
"Receives a zcs I/Q stream (default: every local address, port 5391) and hands it to SDR\n"
"applications: reordered, with every lost sample accounted for and replaced by zero.\n"
"\n"
"Outputs (repeatable; without any, samples are counted and discarded):\n"
"  -o, --output SPEC       fifo:PATH, tcp:[ADDR:]PORT, tcp-connect:HOST:PORT, udp:HOST:PORT,\n"
"                          file:PATH, - (stdout), rtl_tcp:[ADDR:]PORT, sigmf:PATH\n"
"  -F, --out-format TYPE   cs8, cu8, cs16, cf32 or native (the wire bytes); default cs16\n"
"\n"
"Network:\n"
"      --iface NAME        interface to join the group on / receive from\n"
"      --source ADDR       source-specific join, and accept datagrams from ADDR only\n"
"      --stream ID         follow only stream ID (0x... hex or decimal); default: the first seen\n"
"      --rcvbuf BYTES      socket receive buffer (default 32M; SO_RCVBUFFORCE when allowed)\n"
"      --max-datagram N    largest datagram accepted, bytes (default 9216)\n"
"      --batch N           datagrams per recvmmsg call, 1..1024 (default 64)\n"
"      --no-gro            no UDP_GRO trains: one datagram per recvmmsg entry\n"
"\n"
"Stream:\n"
"      --window N          reorder window in datagrams, 1..16384 (default: 5 ms of the stream,\n"
"                          64..1024)\n"
"      --gap zero|drop     lost samples become zeros (default) or are skipped\n"
"      --hold MS           when the stream pauses, release datagrams waiting for a missing one\n"
"                          after MS milliseconds (default: 100, or 8 datagrams if longer)\n"
"  -n, --count N           exit after exactly N samples out (suffixes k, M, G)\n"
"      --exit-on-eos       exit when the stream ends (default: wait for the next stream)\n"
"      --eos-timeout S     with --exit-on-eos: a stream silent for S seconds has ended too\n"
"                          (its end-of-stream datagram was lost); default 2, 0 = never\n"
"\n"
"Statistics (on standard error):\n"
"      --json              JSON lines instead of text\n"
"      --interval SECONDS  period of the statistics line (default 1; 0: summary only)\n"
"  -q, --quiet             no periodic line and no stream news; the summary still\n"
"  -h, --help              this text\n"
"  -V, --version           the version\n"
"\n"
"Exit status: 0 on success (also after SIGINT/SIGTERM), 1 on a run-time error, 2 on bad usage.\n";

const char *zcs_recv_usage(void)
{
	return usage;
}

enum {
	OPT_IFACE = 256,
	OPT_SOURCE,
	OPT_STREAM,
	OPT_WINDOW,
	OPT_GAP,
	OPT_EXIT_ON_EOS,
	OPT_JSON,
	OPT_RCVBUF,
	OPT_MAX_DGRAM,
	OPT_BATCH,
	OPT_INTERVAL,
	OPT_HOLD,
	OPT_EOS_TIMEOUT,
	OPT_NO_GRO,
};

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "out-format", required_argument, NULL, 'F' },
	{ "iface", required_argument, NULL, OPT_IFACE },
	{ "source", required_argument, NULL, OPT_SOURCE },
	{ "stream", required_argument, NULL, OPT_STREAM },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "gap", required_argument, NULL, OPT_GAP },
	{ "count", required_argument, NULL, 'n' },
	{ "exit-on-eos", no_argument, NULL, OPT_EXIT_ON_EOS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "rcvbuf", required_argument, NULL, OPT_RCVBUF },
	{ "max-datagram", required_argument, NULL, OPT_MAX_DGRAM },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "hold", required_argument, NULL, OPT_HOLD },
	{ "eos-timeout", required_argument, NULL, OPT_EOS_TIMEOUT },
	{ "no-gro", no_argument, NULL, OPT_NO_GRO },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int bad(char *err, size_t errlen, const char *flag, const char *val, const char *why)
{
	snprintf(err, errlen, "%s '%s': %s", flag, val, why);
	return -EINVAL;
}

/* The option as the user spelled it, for messages. */
static const char *flag_name(int c, char *buf, size_t len)
{
	for (const struct option *l = long_opts; l->name; l++) {
		if (l->val == c) {
			if (c < 256)
				snprintf(buf, len, "-%c/--%s", c, l->name);
			else
				snprintf(buf, len, "--%s", l->name);
			return buf;
		}
	}
	snprintf(buf, len, "-%c", c);
	return buf;
}

static int number(int c, const char *arg, uint64_t min, uint64_t max, uint64_t *out, char *err,
		  size_t errlen)
{
	char f[48], why[64];

	if (zcs_cli_parse_u64(arg, min, max, out) == 0)
		return 0;
	snprintf(why, sizeof(why), "expected a whole number in %llu..%llu", (unsigned long long)min,
		 (unsigned long long)max);
	return bad(err, errlen, flag_name(c, f, sizeof(f)), arg, why);
}

int zcs_recv_parse_opts(int argc, char **argv, struct zcs_recv_opts *o, char *err, size_t errlen)
{
	uint64_t v;
	bool eos_timeout_given = false;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->rx.type = ZCS_SAMPLE_CS16;
	o->rx.rcvbuf = ZCS_RX_DEFAULT_RCVBUF;
	o->rx.max_dgram = ZCS_RX_DEFAULT_MAX_DGRAM;
	o->rx.batch = ZCS_RX_DEFAULT_BATCH;
	o->interval = 1.0;
	o->eos_timeout = ZCS_RECV_DEFAULT_EOS_TIMEOUT;
	optind = 1;
	opterr = 0; /* our own messages, naming the flag */

	while ((c = getopt_long(argc, argv, ":o:F:n:qhV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (o->noutputs == ZCS_RECV_MAX_OUTPUTS)
				return bad(err, errlen, "-o/--output", optarg, "too many outputs (at most 16)");
			if (!*optarg)
				return bad(err, errlen, "-o/--output", optarg, "empty output");
			o->outputs[o->noutputs++] = optarg;
			break;
		case 'F':
			ret = zcs_sample_from_name(optarg);
			if (ret < 0)
				return bad(err, errlen, "-F/--out-format", optarg,
					   "expected cs8, cu8, cs16, cf32 or native");
			o->rx.type = (enum zcs_sample_type)ret;
			break;
		case OPT_IFACE:
			if (!*optarg)
				return bad(err, errlen, "--iface", optarg, "empty interface name");
			o->rx.iface = optarg;
			break;
		case OPT_SOURCE:
			if (!*optarg)
				return bad(err, errlen, "--source", optarg, "empty address");
			o->rx.source = optarg;
			break;
		case OPT_STREAM: {
			char *end;
			unsigned long long id;

			errno = 0;
			id = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end || id > UINT32_MAX || optarg[0] == '-')
				return bad(err, errlen, "--stream", optarg,
					   "expected a 32-bit stream id (0x... or decimal)");
			o->rx.have_stream = true;
			o->rx.stream_id = (uint32_t)id;
			break;
		}
		case OPT_WINDOW:
			/* the reorder history must reach twice as far as the window */
			ret = number(c, optarg, 1, ZCS_REORDER_HISTORY / 4, &v, err, errlen);
			if (ret < 0)
				return ret;
			o->rx.window = (size_t)v;
			break;
		case OPT_GAP:
			if (strcmp(optarg, "zero") == 0)
				o->rx.gap_drop = false;
			else if (strcmp(optarg, "drop") == 0)
				o->rx.gap_drop = true;
			else
				return bad(err, errlen, "--gap", optarg, "expected zero or drop");
			break;
		case 'n':
			ret = number(c, optarg, 1, UINT64_MAX, &v, err, errlen);
			if (ret < 0)
				return ret;
			o->rx.count = v;
			break;
		case OPT_EXIT_ON_EOS:
			o->rx.exit_on_eos = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_RCVBUF:
			ret = number(c, optarg, 4096, INT32_MAX, &v, err, errlen);
			if (ret < 0)
				return ret;
			o->rx.rcvbuf = (int)v;
			break;
		case OPT_MAX_DGRAM:
			ret = number(c, optarg, ZCS_PROTO_META_SIZE, 65536, &v, err, errlen);
			if (ret < 0)
				return ret;
			o->rx.max_dgram = (size_t)v;
			break;
		case OPT_BATCH:
			ret = number(c, optarg, 1, 1024, &v, err, errlen);
			if (ret < 0)
				return ret;
			o->rx.batch = (size_t)v;
			break;
		case OPT_NO_GRO:
			o->rx.no_gro = true;
			break;
		case OPT_INTERVAL: {
			double d;

			if (zcs_cli_parse_double(optarg, 0, 3600, &d) < 0)
				return bad(err, errlen, "--interval", optarg, "expected seconds in 0..3600");
			o->interval = d;
			break;
		}
		case OPT_EOS_TIMEOUT: {
			double d;

			if (zcs_cli_parse_double(optarg, 0, 86400, &d) < 0)
				return bad(err, errlen, "--eos-timeout", optarg,
					   "expected seconds in 0..86400 (0: never)");
			o->eos_timeout = d;
			eos_timeout_given = true;
			break;
		}
		case OPT_HOLD:
			ret = number(c, optarg, 1, 3600000, &v, err, errlen);
			if (ret < 0)
				return ret;
			o->rx.hold_ms = v;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			return ZCS_RECV_HELP;
		case 'V':
			return ZCS_RECV_VERSION;
		case ':': {
			char f[48];

			snprintf(err, errlen, "%s needs a value",
				 optopt ? flag_name(optopt, f, sizeof(f)) : argv[optind - 1]);
			return -EINVAL;
		}
		default:
			if (optopt && optopt < 256)
				snprintf(err, errlen, "unknown option '-%c'", optopt);
			else
				snprintf(err, errlen, "unknown option '%s'", argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind < argc)
		o->rx.listen = argv[optind++];
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s' (only one address to listen on)",
			 argv[optind]);
		return -EINVAL;
	}
	if (eos_timeout_given && !o->rx.exit_on_eos) {
		snprintf(err, errlen, "--eos-timeout applies with --exit-on-eos only");
		return -EINVAL;
	}
	if (o->rx.window && o->rx.window * 2 > ZCS_REORDER_HISTORY) {
		snprintf(err, errlen, "--window too large");
		return -EINVAL;
	}
	return ZCS_RECV_RUN;
}
