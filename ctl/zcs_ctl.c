// SPDX-License-Identifier: MIT
/* zcs-ctl: tune a zcs-send from a PC over its keyed control channel: `get` shows every setting
 * and what the radio can do, `set NAME=VALUE...` changes several at once, `watch` prints the
 * changes others make.  All protocol work is common/ctl/ctl_client.c's. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ctl_client.h"
#include "ctl_msg.h"
#include "err.h"
#include "key.h"
#include "proto.h"
#include "wire.h"
#include "zcs_config.h"

#define ERRLEN 512
#define DEFAULT_TIMEOUT_MS 5000

struct ctl_opts {
	const char *key_path;
	bool json;
	uint64_t timeout_ms;
	const char *addr;
	const char *cmd;
	char **args;
	int nargs;
};

static const char usage[] =
"Usage: zcs-ctl [OPTIONS] HOST[:PORT] get\n"
"       zcs-ctl [OPTIONS] HOST[:PORT] set NAME=VALUE...\n"
"       zcs-ctl [OPTIONS] HOST[:PORT] watch\n"
"Tune a zcs-send over its keyed control channel (zcs-send serves it when given a key and a\n"
"control port).\n"
"\n"
"HOST[:PORT] is the board; the default port is 5392.\n"
"  get                   every setting, what the radio can do, and the stream\n"
"  set NAME=VALUE...     change settings, all in one request: freq=433.92M, rate=2.4M,\n"
"                        bw=1.5M, gain=40 (dB, manual mode), gain_mode=manual|slow|fast|\n"
"                        hybrid, channel=rx1|rx2, format=i8|p12|i16 (each holds\n"
"                        from the sample index the answer gives)\n"
"  watch                 print every change other clients or programs make, until\n"
"                        interrupted\n"
"\n"
"Options:\n"
"  -k, --key FILE        the stream key (the file zcs-send --key reads); without it,\n"
"                        the default key: $ZCS_KEY, else ~/.config/zcs/key, else\n"
"                        /etc/zcs/key (docs/security.md)\n"
"      --json            replies and events as JSON lines on standard output\n"
"  -t, --timeout MS      wait this long for the board (default 5000); a connection it\n"
"                        closes before answering (under a flood) is tried again, up to\n"
"                        5 times, within it\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n"
"\n"
"Exit status: 0 done, 1 refused by the board or no connection, 2 bad command line.\n"
"See docs/control.md.\n";

enum { OPT_JSON = 256 };

static const struct option long_opts[] = {
	{ "key", required_argument, NULL, 'k' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "timeout", required_argument, NULL, 't' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* Returns 0 to run, 1 for --help/--version (printed), -EINVAL with err set. */
static int parse_opts(struct ctl_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->timeout_ms = DEFAULT_TIMEOUT_MS;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:k:t:hV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			o->key_path = optarg;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case 't':
			if (zcs_cli_opt_u64("--timeout", optarg, 1, 600000, "ms, 1..600000",
					    &o->timeout_ms, err, errlen) < 0)
				return -EINVAL;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		case 'V':
			printf("zcs-ctl %s\n", ZCS_VERSION);
			return 1;
		case ':':
			return zcs_err(err, errlen, -EINVAL, "option '%s' needs a value (see --help)",
				       argv[optind - 1]);
		default:
			return zcs_err(err, errlen, -EINVAL, "unknown option '%s' (see --help)",
				       argv[optind - 1]);
		}
	}
	if (argc - optind < 2)
		return zcs_err(err, errlen, -EINVAL, "expected HOST[:PORT] and a command: get, set "
			       "or watch (see --help)");
	o->addr = argv[optind];
	o->cmd = argv[optind + 1];
	o->args = argv + optind + 2;
	o->nargs = argc - optind - 2;
	if (strcmp(o->cmd, "get") && strcmp(o->cmd, "set") && strcmp(o->cmd, "watch"))
		return zcs_err(err, errlen, -EINVAL, "unknown command '%s': get, set or watch",
			       o->cmd);
	if (strcmp(o->cmd, "set") == 0 && o->nargs == 0)
		return zcs_err(err, errlen, -EINVAL, "set: give at least one NAME=VALUE "
			       "(freq=433.92M gain=40)");
	if (strcmp(o->cmd, "set") && o->nargs)
		return zcs_err(err, errlen, -EINVAL, "%s takes no arguments ('%s')", o->cmd,
			       o->args[0]);
	return 0;
}

/* Without --key, the default key (key.h: $ZCS_KEY, the per-user place, /etc/zcs/key) into
 * o->key_path (path holds it); -EINVAL with err when there is none: the board admits only
 * holders of the stream key. */
static int default_key(struct ctl_opts *o, char *path, size_t pathlen, char *err, size_t errlen)
{
	struct zcs_key_env env;
	char note[256];
	int ret;

	zcs_key_env_get(&env);
	ret = zcs_key_default_path(&env, path, pathlen, note, sizeof(note), err, errlen);
	if (ret < 0)
		return ret;
	if (ret == 0)
		return zcs_err(err, errlen, -EINVAL, "a key is needed: the board admits only holders "
			       "of the stream key: --key FILE, or a default key ($ZCS_KEY, "
			       "~/.config/zcs/key or /etc/zcs/key, docs/security.md)%s%s",
			       note[0] ? "; " : "", note);
	o->key_path = path;
	return 0;
}

static void print_json(const struct zcs_ctl_reply *r)
{
	char text[ZCS_CTL_MAX_PLAIN];
	const ssize_t n = zcs_ctl_msg_write_reply(r, text, sizeof(text));

	if (n > 0)
		printf("%.*s\n", (int)n, text);
	fflush(stdout);
}

static void print_settings(const struct zcs_ctl_settings *s, const struct zcs_ctl_caps *c)
{
	if (s->have & ZCS_CTL_FREQ)
		printf("freq       %" PRIu64 " Hz", s->freq);
	if (c && c->freq_max)
		printf("  (%" PRIu64 "..%" PRIu64 ")", c->freq_min, c->freq_max);
	printf("\nrate       %" PRIu64 " S/s", s->rate);
	if (c && c->rate_max)
		printf("  (%" PRIu64 "..%" PRIu64 ")", c->rate_min, c->rate_max);
	if (s->have & ZCS_CTL_BW) {
		printf("\nbw         %" PRIu64 " Hz", s->bw);
		if (c && c->bw_max)
			printf("  (%" PRIu64 "..%" PRIu64 ")", c->bw_min, c->bw_max);
	}
	if (s->have & ZCS_CTL_GAIN) {
		printf("\ngain       %.3f dB, %s", s->gain_mdb / 1000.0,
		       zcs_ctl_gain_mode_name(s->gain_mode));
		if (c && c->gain_max_mdb > c->gain_min_mdb)
			printf("  (%.3f..%.3f dB)", c->gain_min_mdb / 1000.0,
			       c->gain_max_mdb / 1000.0);
	}
	if (s->have & ZCS_CTL_CHANNEL)
		printf("\nchannel    rx%d", s->channel + 1);
	if (s->have & ZCS_CTL_FORMAT)
		printf("\nformat     %s", zcs_wire_name(s->format));
	printf("\n");
}

static void print_names(const char *what, uint32_t bits)
{
	printf("%s", what);
	for (uint32_t b = 1; b <= ZCS_CTL_ALL; b <<= 1)
		if (bits & b)
			printf(" %s", zcs_ctl_field_name(b));
	printf("\n");
}

static void print_reply(const struct zcs_ctl_reply *r)
{
	if (r->has_stream)
		printf("stream     0x%08" PRIx32 ", %s at %" PRIu64 " S/s, source %s, run %" PRIu64
		       "\n", r->stream.id, zcs_wire_name(r->stream.format), r->stream.rate,
		       r->stream.source, r->stream.run);
	print_settings(&r->now, r->has_caps ? &r->caps : NULL);
	if (r->has_caps) {
		printf("gain modes");
		for (int m = 0; m <= ZCS_GAIN_HYBRID; m++)
			if (r->caps.gain_modes & (1u << m))
				printf(" %s", zcs_ctl_gain_mode_name(m));
		printf("\nchannels  ");
		for (int ch = 0; ch < 2; ch++)
			if (r->caps.channels & (1u << ch))
				printf(" rx%d", ch + 1);
		printf("\nformats   ");
		for (int f = 1; f <= ZCS_WIRE_MAX; f++)
			if (r->caps.formats & (1u << f))
				printf(" %s", zcs_wire_name(f));
		printf("\n");
		print_names("settable  ", r->caps.settable);
	}
	if (r->changed)
		print_names("changed   ", r->changed);
	if (r->has_since)
		printf("from sample %" PRIu64 " of the stream\n", r->since_sample);
	fflush(stdout);
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int watch(struct zcs_ctl_client *c, const struct ctl_opts *o, char *err, size_t errlen)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!stop) {
		struct pollfd p = { .fd = zcs_ctl_client_fd(c), .events = POLLIN };
		struct zcs_ctl_reply r;
		int ret;

		if (poll(&p, 1, 500) <= 0)
			continue;
		while ((ret = zcs_ctl_client_poll(c, &r, err, errlen)) == 1) {
			/* id 0 answers no request: the board's reason for closing */
			if (!r.event && r.id == 0 && !r.ok)
				return zcs_err(err, errlen, -EBUSY, "control: the board refused: %s",
					       r.error);
			if (!r.event)
				continue;
			if (o->json) {
				print_json(&r);
			} else {
				printf("changed by another client or program:\n");
				print_reply(&r);
				fflush(stdout);
			}
		}
		if (ret < 0)
			return ret;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ctl_opts o;
	struct zcs_ctl_client *c = NULL;
	struct zcs_ctl_reply r;
	struct zcs_ctl_settings want = { 0 };
	struct zcs_key key;
	char err[ERRLEN] = "", key_path[PATH_MAX];
	int ret, status = 1;

	ret = parse_opts(&o, argc, argv, err, sizeof(err));
	if (ret == 1)
		return 0;
	for (int i = 0; ret == 0 && i < o.nargs; i++)
		ret = zcs_ctl_settings_parse_kv(&want, o.args[i], err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "zcs-ctl: %s\n", err);
		return 2;
	}
	if (!o.key_path && default_key(&o, key_path, sizeof(key_path), err, sizeof(err)) < 0) {
		fprintf(stderr, "zcs-ctl: %s\n", err);
		return 2;
	}
	if (zcs_key_load(&key, o.key_path, err, sizeof(err)) < 0) {
		fprintf(stderr, "zcs-ctl: %s: %s\n", key_path == o.key_path ? "default key" : "--key",
			err);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (strcmp(o.cmd, "watch") == 0) {
		ret = zcs_ctl_client_open(&c, o.addr, &key, (int)o.timeout_ms, err, sizeof(err));
		zcs_key_wipe(&key);
		if (ret == 0)
			ret = watch(c, &o, err, sizeof(err));
		status = ret < 0 ? 1 : 0;
		goto out;
	}
	/* a connection the board closes before answering (a flood of others' connections) is
	 * tried again, a few times, within --timeout */
	ret = zcs_ctl_client_request(o.addr, &key, strcmp(o.cmd, "get") == 0 ? NULL : &want, &r,
				     (int)o.timeout_ms, err, sizeof(err));
	zcs_key_wipe(&key);
	if (ret < 0)
		goto out;
	if (o.json)
		print_json(&r);
	else if (!r.ok)
		printf("refused%s%s: %s\n", r.field[0] ? " " : "", r.field, r.error);
	if (!o.json)
		print_reply(&r);
	status = r.ok ? 0 : 1;
	if (!r.ok)
		snprintf(err, sizeof(err), "refused: %s", r.error);
out:
	if (ret < 0 || status)
		fprintf(stderr, "zcs-ctl: %s\n", err);
	zcs_ctl_client_close(c);
	return status;
}
