// SPDX-License-Identifier: MIT
/* zcs-recv option parsing (see recv_opts.h).  Numbers go through common/util/cli.h (end pointer, SI
 * suffixes, range); combinations are checked once all options are read. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "err.h"
#include "key.h"
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
"      --client-timeout S  once a tcp: or rtl_tcp: client was turned away (4 held), drop\n"
"                          one that read nothing for S seconds while data waited for it\n"
"                          (default 5, 0 = never)\n"
"\n"
"Network:\n"
"      --iface NAME        interface to join the group on / receive from\n"
"      --source ADDR       source-specific join, and accept datagrams from ADDR only\n"
"      --stream ID         follow only stream ID (0x... hex or decimal); default: the first seen\n"
"      --rcvbuf BYTES      socket receive buffer (default 32M; SO_RCVBUFFORCE when allowed)\n"
"      --max-datagram N    largest datagram accepted, bytes (default 65507: any)\n"
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
"Keys and control:\n"
"      --key FILE          the stream key: accept only datagrams authenticated with it\n"
"                          (64 hex digits, readable by its owner only; zcs-send makes\n"
"                          one); others count as invalid (auth); see docs/security.md.\n"
"                          Default: the default key, $ZCS_KEY, else ~/.config/zcs/key,\n"
"                          else /etc/zcs/key, when there is one\n"
"      --no-key            no default key: receive unkeyed (and keyed streams unverified)\n"
"      --run-state FILE    where the newest keyed run followed is kept across restarts, so\n"
"                          a replay of an earlier run is refused even right after a start\n"
"                          (default: the key file's name + .seen; 'none': keep nothing)\n"
"      --state-dir DIR     keep the run state in DIR (as DIR/<key file's name>.seen)\n"
"                          instead of beside the key: a writable place for a key kept\n"
"                          read-only (a service's StateDirectory, /var/lib/zcs)\n"
"      --control [HOST:]PORT  forward rtl_tcp: clients' set_freq, set_sample_rate,\n"
"                          set_gain_mode, set_gain (or by index) and set_bandwidth to\n"
"                          zcs-send's control channel (HOST default: the stream's\n"
"                          sender; the docs use port 5392); bursts are merged into one\n"
"                          set; needs a key (--key or the default key).  rtl_tcp has\n"
"                          no authentication: whoever reaches the port may tune the\n"
"                          board, so only clients on loopback are forwarded unless\n"
"                          --control-allow names others.  The board is also asked\n"
"                          which keyed run is live: a run this receiver has no record\n"
"                          of is followed only once the board says it is (a replay it\n"
"                          denies is refused; unreachable, nothing new is followed)\n"
"      --control-allow ADDR[/PREFIX][,...]  rtl_tcp: clients from these addresses\n"
"                          (IPv4 or IPv6 literals) are forwarded too; others still get\n"
"                          the samples, their settings are counted, not forwarded\n"
"\n"
"Statistics (on standard error):\n"
"      --json              statistics as JSON lines on standard error (as zcs-send)\n"
"      --interval SECONDS  period of the statistics line (default 1; 0: summary only)\n"
"  -q, --quiet             no periodic line and no stream news; the summary still\n"
"  -h, --help              this text\n"
"  -V, --version           the version\n"
"\n"
"Exit status: 0 on success (also after SIGINT/SIGTERM, and when the reader of - went away),\n"
"1 on a run-time error (an output that cannot write, a full disk), 2 on bad usage.\n";

const char *zcs_recv_usage(void)
{
	return usage;
}

/* long options without a short letter */
enum {
	OPT_IFACE = 256, OPT_SOURCE, OPT_STREAM, OPT_WINDOW, OPT_GAP, OPT_EXIT_ON_EOS, OPT_JSON,
	OPT_RCVBUF, OPT_MAX_DGRAM, OPT_BATCH, OPT_INTERVAL, OPT_HOLD, OPT_EOS_TIMEOUT, OPT_NO_GRO,
	OPT_CLIENT_TIMEOUT, OPT_KEY, OPT_NO_KEY, OPT_CONTROL, OPT_RUN_STATE, OPT_CONTROL_ALLOW,
	OPT_STATE_DIR,
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
	{ "client-timeout", required_argument, NULL, OPT_CLIENT_TIMEOUT },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "no-key", no_argument, NULL, OPT_NO_KEY },
	{ "control", required_argument, NULL, OPT_CONTROL },
	{ "run-state", required_argument, NULL, OPT_RUN_STATE },
	{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
	{ "control-allow", required_argument, NULL, OPT_CONTROL_ALLOW },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* The option as --help spells it, for messages: "-n/--count", "--window". */
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

/* A whole number for option c in min..max, suffixes k, M, G allowed; the message names the
 * option, the value, its unit and the range. */
static int number(int c, const char *arg, uint64_t min, uint64_t max, const char *unit,
		  uint64_t *out, char *err, size_t errlen)
{
	char f[48], hint[96];

	if (max == UINT64_MAX)   /* no useful upper bound to tell */
		snprintf(hint, sizeof(hint), "%s, at least %" PRIu64, unit, min);
	else
		snprintf(hint, sizeof(hint), "%s, %" PRIu64 "..%" PRIu64, unit, min, max);
	return zcs_cli_opt_u64(flag_name(c, f, sizeof(f)), arg, min, max, hint, out, err, errlen);
}

/* A 32-bit stream id as the statistics print it (0x...) or in decimal. */
static int stream_id(const char *arg, struct zcs_rx_opts *rx, char *err, size_t errlen)
{
	unsigned long long id;
	char *end;

	errno = 0;
	id = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || id > UINT32_MAX || arg[0] == '-')
		return zcs_err(err, errlen, -EINVAL,
			       "--stream '%s': expected a 32-bit stream id (0x... or decimal)",
			       arg);
	rx->have_stream = true;
	rx->stream_id = (uint32_t)id;
	return 0;
}

/* --control-allow's comma-separated prefixes, appended to o's (the option may be repeated). */
static int control_allow(struct zcs_recv_opts *o, const char *arg, char *err, size_t errlen)
{
	char item[128], why[256];
	const char *p = arg;

	for (;;) {
		const size_t n = strcspn(p, ",");

		if (!n || n >= sizeof(item))
			return zcs_err(err, errlen, -EINVAL, "--control-allow '%s': expected "
				       "ADDR[/PREFIX][,ADDR[/PREFIX]...] (%s)", arg,
				       n ? "an entry too long" : "an empty entry");
		if (o->ncontrol_allow == ZCS_RECV_MAX_ALLOW)
			return zcs_err(err, errlen, -EINVAL, "--control-allow '%s': at most %d "
				       "entries", arg, ZCS_RECV_MAX_ALLOW);
		memcpy(item, p, n);
		item[n] = '\0';
		if (zcs_net_parse_prefix(&o->control_allow[o->ncontrol_allow], item, why,
					 sizeof(why)) < 0)
			return zcs_err(err, errlen, -EINVAL, "--control-allow %s", why);
		o->ncontrol_allow++;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

/* One option; the numbers' ranges are the documented ones (docs/receiver.md). */
static int parse_one(struct zcs_recv_opts *o, int c, const char *arg, bool *eos_timeout_given,
		     char *err, size_t errlen)
{
	uint64_t v;
	int ret;

	switch (c) {
	case 'o':
		if (o->noutputs == ZCS_RECV_MAX_OUTPUTS)
			return zcs_err(err, errlen, -EINVAL,
				       "-o/--output '%s': too many outputs (at most %d)", arg,
				       ZCS_RECV_MAX_OUTPUTS);
		if (!*arg)
			return zcs_err(err, errlen, -EINVAL, "-o/--output '': empty output");
		o->outputs[o->noutputs++] = arg;
		return 0;
	case 'F':
		ret = zcs_sample_from_name(arg);
		if (ret < 0)
			return zcs_err(err, errlen, -EINVAL,
				       "-F/--out-format '%s': expected cs8, cu8, cs16, "
				       "cf32 or native", arg);
		o->rx.type = (enum zcs_sample_type)ret;
		return 0;
	case OPT_IFACE:
	case OPT_SOURCE:
		if (!*arg)
			return zcs_err(err, errlen, -EINVAL, "%s '': empty %s",
				       c == OPT_IFACE ? "--iface" : "--source",
				       c == OPT_IFACE ? "interface name" : "address");
		*(c == OPT_IFACE ? &o->rx.iface : &o->rx.source) = arg;
		return 0;
	case OPT_STREAM:
		return stream_id(arg, &o->rx, err, errlen);
	case OPT_WINDOW:
		v = o->rx.window;
		ret = number(c, arg, 1, ZCS_RX_WINDOW_LIMIT, "datagrams", &v, err, errlen);
		o->rx.window = (size_t)v;
		return ret;
	case OPT_GAP:
		if (strcmp(arg, "zero") != 0 && strcmp(arg, "drop") != 0)
			return zcs_err(err, errlen, -EINVAL, "--gap '%s': expected zero or drop",
				       arg);
		o->rx.gap_drop = strcmp(arg, "drop") == 0;
		return 0;
	case 'n':
		return number(c, arg, 1, UINT64_MAX, "samples", &o->rx.count, err, errlen);
	case OPT_EXIT_ON_EOS:
		o->rx.exit_on_eos = true;
		return 0;
	case OPT_JSON:
		o->json = true;
		return 0;
	case OPT_RCVBUF:
		v = (uint64_t)o->rx.rcvbuf;
		ret = number(c, arg, 4096, INT32_MAX, "bytes", &v, err, errlen);
		o->rx.rcvbuf = (int)v;
		return ret;
	case OPT_MAX_DGRAM:
		v = o->rx.max_dgram;
		ret = number(c, arg, ZCS_PROTO_META_SIZE, 65536, "bytes", &v, err, errlen);
		o->rx.max_dgram = (size_t)v;
		return ret;
	case OPT_BATCH:
		v = o->rx.batch;
		ret = number(c, arg, 1, 1024, "datagrams", &v, err, errlen);
		o->rx.batch = (size_t)v;
		return ret;
	case OPT_NO_GRO:
		o->rx.no_gro = true;
		return 0;
	case OPT_INTERVAL:
		return zcs_cli_opt_double("--interval", arg, 0, 3600, "seconds, 0..3600",
					  &o->interval, err, errlen);
	case OPT_EOS_TIMEOUT:
		*eos_timeout_given = true;
		return zcs_cli_opt_double("--eos-timeout", arg, 0, 86400,
					  "seconds, 0..86400; 0: never", &o->eos_timeout, err, errlen);
	case OPT_CLIENT_TIMEOUT:
		return zcs_cli_opt_double("--client-timeout", arg, 0, 3600,
					  "seconds, 0..3600; 0: never", &o->client_timeout, err,
					  errlen);
	case OPT_HOLD:
		return number(c, arg, 1, 3600000, "milliseconds", &o->rx.hold_ms, err, errlen);
	case OPT_KEY:
		return zcs_cli_opt_path("--key", arg, &o->key_path, err, errlen);
	case OPT_NO_KEY:
		o->no_key = true;
		return 0;
	case OPT_CONTROL:
		o->control = arg;
		return 0;
	case OPT_RUN_STATE:
		return zcs_cli_opt_path("--run-state", arg, &o->run_state, err, errlen);
	case OPT_STATE_DIR:
		return zcs_cli_opt_path("--state-dir", arg, &o->state_dir, err, errlen);
	case OPT_CONTROL_ALLOW:
		return control_allow(o, arg, err, errlen);
	case 'q':
		o->quiet = true;
		return 0;
	case 'h':
		return ZCS_RECV_HELP;
	case 'V':
		return ZCS_RECV_VERSION;
	default:
		return zcs_err(err, errlen, -EINVAL, "internal: option %d", c);
	}
}

/* What parse_one needs besides the option: zcs_cli_getopt hands this through. */
struct parse_ctx {
	struct zcs_recv_opts *o;
	bool eos_timeout_given;
};

static int take_opt(void *ctx, int c, const char *arg, char *err, size_t errlen)
{
	struct parse_ctx *const p = ctx;

	return parse_one(p->o, c, arg, &p->eos_timeout_given, err, errlen);
}

int zcs_recv_parse_opts(int argc, char **argv, struct zcs_recv_opts *o, char *err, size_t errlen)
{
	struct parse_ctx p = { .o = o };
	int next, ret;

	memset(o, 0, sizeof(*o));
	o->rx.type = ZCS_SAMPLE_CS16;
	o->rx.rcvbuf = ZCS_RX_DEFAULT_RCVBUF;
	o->rx.max_dgram = ZCS_RX_DEFAULT_MAX_DGRAM;
	o->rx.batch = ZCS_RX_DEFAULT_BATCH;
	o->interval = 1.0;
	o->eos_timeout = ZCS_RECV_DEFAULT_EOS_TIMEOUT;
	o->client_timeout = ZCS_OUTPUTS_CLIENT_TIMEOUT_MS / 1000.0;
	ret = zcs_cli_getopt(argc, argv, "o:F:n:qhV", long_opts, take_opt, &p, &next, err,
			     errlen);
	if (ret != 0)
		return ret;
	if (next < argc)
		o->rx.listen = argv[next++];
	if (next < argc)
		return zcs_err(err, errlen, -EINVAL,
			       "unexpected argument '%s' (only one address to listen on)",
			       argv[next]);
	if (o->key_path && o->no_key)
		return zcs_err(err, errlen, -EINVAL, "--key and --no-key: give one or the other");
	/* without --key, whether a default key serves --control and --run-state is known once it
	 * is looked for (zcs_recv_default_key) */
	if (o->control && o->no_key)
		return zcs_err(err, errlen, -EINVAL, "--control needs a key, and --no-key leaves "
			       "none: the sender's control channel admits only holders of the stream "
			       "key");
	if (o->run_state && o->no_key)
		return zcs_err(err, errlen, -EINVAL, "--run-state keeps the newest keyed run: it "
			       "needs a key, and --no-key leaves none");
	if (o->state_dir && o->no_key)
		return zcs_err(err, errlen, -EINVAL, "--state-dir keeps the newest keyed run: it "
			       "needs a key, and --no-key leaves none");
	if (o->state_dir && o->run_state)
		return zcs_err(err, errlen, -EINVAL, "--state-dir and --run-state both say where "
			       "the run state is: give one or the other");
	if (o->ncontrol_allow && !o->control)
		return zcs_err(err, errlen, -EINVAL, "--control-allow applies with --control only "
			       "(without it no client's command is forwarded)");
	if (p.eos_timeout_given && !o->rx.exit_on_eos)
		return zcs_err(err, errlen, -EINVAL,
			       "--eos-timeout applies with --exit-on-eos only");
	return ZCS_RECV_RUN;
}

int zcs_recv_default_key(struct zcs_recv_opts *o, char *path, size_t pathlen, char *note,
			 size_t notelen, char *err, size_t errlen)
{
	struct zcs_key_env env;
	int ret = 0;

	if (note && notelen)
		note[0] = 0;
	if (!o->key_path && !o->no_key) {
		zcs_key_env_get(&env);
		ret = zcs_key_default_path(&env, path, pathlen, note, notelen, err, errlen);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			o->key_path = path;
			o->key_default = true;
		}
	}
	if (o->control && !o->key_path)
		return zcs_err(err, errlen, -EINVAL, "--control needs a key: --key FILE, or a default "
			       "key ($ZCS_KEY, ~/.config/zcs/key or /etc/zcs/key, docs/security.md): "
			       "the sender's control channel admits only holders of the stream key%s%s",
			       note && note[0] ? "; " : "", note ? note : "");
	if ((o->run_state || o->state_dir) && !o->key_path)
		return zcs_err(err, errlen, -EINVAL, "%s keeps the newest keyed run: it needs a key, "
			       "--key FILE or a default key", o->run_state ? "--run-state" :
			       "--state-dir");
	return 0;
}
