// SPDX-License-Identifier: MIT
/* zcs-recv: receives a zcs stream and hands it to SDR applications.  This file only wires the
 * parts together: options, outputs, the receive loop, signals and the statistics lines. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "ctl_fwd.h"
#include "ctl_live.h"
#include "jsonout.h"
#include "key.h"
#include "log.h"
#include "output.h"
#include "recv_opts.h"
#include "recv_runs.h"
#include "recv_stats.h"
#include "rx.h"
#include "stdfds.h"
#include "text.h"
#include "zcs_config.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

struct ui {
	bool quiet, json, tty;
	bool line_open;           /* an updating line is on the terminal and needs clearing */
	bool said_runs;           /* a failure to keep the run state was said */
};

static void clear_line(struct ui *u)
{
	if (u->line_open) {
		fputs("\r\033[K", stderr);
		u->line_open = false;
	}
}

/* News from the receive thread and the output writers: one line each on stderr. */
static void news(void *ctx, const char *msg)
{
	struct ui *u = ctx;
	char safe[4 * ZCS_LOG_LINE];

	if (u->quiet)
		return;
	clear_line(u);
	/* news may quote outside text (names from the wire are checked already, paths and specs
	 * are the user's): a line that is not plain text reaches the terminal escaped */
	if (!zcs_text_valid(msg, strlen(msg)))
		msg = zcs_text_escape(safe, sizeof(safe), msg);
	fprintf(stderr, "zcs-recv: %s\n", msg);
}

/* The newest keyed run followed goes to the run state as it changes (rx_runs.h).  A failure is
 * said once and costs nothing else: the running receiver still refuses replays, only a restarted
 * one would not know this run. */
static void keep_runs(struct ui *u, struct zcs_rx_runs *runs, const struct zcs_rx *rx,
		      bool final)
{
	struct zcs_run_seen newest;
	char err[512], msg[800];

	if (!zcs_rx_run_newest(rx, &newest))
		return;
	if (zcs_rx_runs_keep(runs, &newest, zcs_mono_ns(), final, err, sizeof(err)) >= 0 ||
	    u->said_runs)
		return;
	u->said_runs = true;
	snprintf(msg, sizeof(msg), "cannot keep the newest keyed run (%s): a receiver restarted "
		 "would not know it and could follow a replay of it while no sender runs "
		 "(--run-state FILE elsewhere)", err);
	news(u, msg);
}

/* A retune of the stream followed: the news line says it already; with --json it is also an
 * event line of its own, so a script sees exactly from which sample the new settings hold. */
static void on_change(void *ctx, const struct zcs_meta *m, uint64_t since, bool exact)
{
	struct ui *u = ctx;
	char line[1024], id[16];
	json_t *o;
	int bad = 0;

	if (!u->json)
		return;
	o = json_object();
	if (!o)
		return;
	snprintf(id, sizeof(id), "0x%08" PRIx32, m->stream_id);
	bad |= zcs_json_set(o, "type", json_string("change"));
	bad |= zcs_json_set(o, "stream", json_string(id));
	bad |= zcs_json_set(o, "since_sample", zcs_json_u64(since));
	bad |= zcs_json_set(o, "exact", json_boolean(exact));
	bad |= zcs_json_set(o, "sample_rate", zcs_json_u64(m->sample_rate));
	bad |= zcs_json_set(o, "center_freq", zcs_json_u64(m->center_freq));
	bad |= zcs_json_set(o, "bandwidth", zcs_json_u64(m->bandwidth));
	bad |= zcs_json_set(o, "gain_db", zcs_json_real(m->gain_mdb / 1000.0, 3));
	bad |= zcs_json_set(o, "gain_mode", json_integer(m->gain_mode));
	bad |= zcs_json_set(o, "format", json_string(zcs_wire_name(m->format)));
	bad |= zcs_json_set(o, "samples_per_dgram", zcs_json_u64(m->samples_per_dgram));
	bad |= zcs_json_set(o, "meta_version", zcs_json_u64(m->meta_version));
	if (bad) {
		json_decref(o);
		return;
	}
	if (zcs_json_line(line, sizeof(line), o) >= 0) {
		clear_line(u);
		fprintf(stderr, "%s\n", line);
	}
}

static void stats_line(struct ui *u, const struct zcs_recv_snapshot *cur,
		       const struct zcs_recv_snapshot *prev)
{
	char line[8192];

	if (u->json) {
		zcs_recv_stats_json(line, sizeof(line), cur, prev, false);
		fprintf(stderr, "%s\n", line);
	} else if (u->tty) {
		/* fits the terminal, resized or not: a wrapped line no longer redraws in place */
		zcs_recv_stats_line(line, sizeof(line), cur, prev, zcs_recv_stats_width(STDERR_FILENO));
		fprintf(stderr, "\r%s\033[K", line);
		u->line_open = true;
	} else {
		zcs_recv_stats_line(line, sizeof(line), cur, prev, 0);
		fprintf(stderr, "%s\n", line);
	}
	fflush(stderr);
}

/* An output that cannot go on (zcs_outputs_failed): a write error ends the run with status 1,
 * since what the user asked to keep is being lost; the reader of every output gone (`-o - |
 * head`) ends it with 0.  True when the run must end. */
static bool outputs_ended(struct ui *u, struct zcs_outputs *out, const struct zcs_recv_opts *o,
			  int *status, const char **ended_by)
{
	size_t i = 0;
	bool all = false;
	const int e = zcs_outputs_failed(out, &i, &all);

	if (e && e != EPIPE) {
		clear_line(u);
		fprintf(stderr, "zcs-recv: -o '%s': cannot write: %s\n",
			i < o->noutputs ? o->outputs[i] : "?", strerror(e));
		*status = 1;
		*ended_by = "error";
		return true;
	}
	if (e == EPIPE && all) {
		*ended_by = "consumer";
		return true;
	}
	return false;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	/* no SA_RESTART: poll() must return so the loop sees the flag */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a consumer that leaves must be an EPIPE for its writer, not the end of the program */
	signal(SIGPIPE, SIG_IGN);
}

/* An rtl_tcp: port whose clients' tuning is forwarded and which listens beyond loopback: said at
 * start, with who may tune through it (the port gives samples to anyone who reaches it). */
static void warn_exposed(struct zcs_outputs *out, const struct zcs_recv_opts *o)
{
	for (size_t i = 0; i < zcs_outputs_count(out); i++) {
		struct zcs_addr a;
		char as[64], who[128] = "only clients on loopback (name others with --control-allow)";

		if (zcs_outputs_tune_listen(out, i, &a) != 1 || zcs_net_is_loopback(&a))
			continue;
		if (o->ncontrol_allow)
			snprintf(who, sizeof(who), "clients on loopback and in the %zu --control-allow "
				 "prefix%s", o->ncontrol_allow, o->ncontrol_allow == 1 ? "" : "es");
		fprintf(stderr, "zcs-recv: warning: the rtl_tcp: output on %s is reachable from the "
			"network and --control forwards its clients' tuning to the board: rtl_tcp has "
			"no authentication; %s may tune, every client gets the samples\n",
			zcs_net_addr_str(&a, as, sizeof(as)), who);
	}
}

int main(int argc, char **argv)
{
	static struct zcs_recv_snapshot cur, prev;
	static struct zcs_recv_opts opts;
	static char key_path[PATH_MAX], key_note[PATH_MAX + 64];
	struct zcs_rx *rx = NULL;
	struct zcs_addr sender;
	char where[64];
	struct zcs_outputs *out = NULL;
	struct zcs_ctl_fwd *fwd = NULL;
	struct zcs_ctl_live *live = NULL;
	struct zcs_kernels k;
	char err[512], text[8192];
	struct ui u = { 0 };
	uint64_t start_ns, next_tick = 0, period_ns, idle_end_ns = 0;
	const char *ended_by = "signal";
	uint32_t id;
	struct zcs_key key;
	struct zcs_rx_runs runs;
	struct zcs_run_seen seen;
	int ret, status = 0;

	/* before any descriptor is opened: with fd 1 closed, `-o -` would write into a socket */
	if (zcs_stdfds_guard(err, sizeof(err)) < 0) {
		fprintf(stderr, "zcs-recv: %s\n", err);
		return 1;
	}

	ret = zcs_recv_parse_opts(argc, argv, &opts, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "zcs-recv: %s\nTry 'zcs-recv --help'.\n", err);
		return 2;
	}
	if (ret == ZCS_RECV_HELP) {
		fputs(zcs_recv_usage(), stdout);
		return 0;
	}
	if (ret == ZCS_RECV_VERSION) {
		/* what a user asking "why is every datagram invalid (decompress)?" needs to see */
		printf("zcs-recv %s (zstd %s)\n", ZCS_VERSION, ZCS_HAVE_ZSTD ? "yes" : "no");
		return 0;
	}
	/* no --key (nor --no-key): the default key, when there is one */
	if (zcs_recv_default_key(&opts, key_path, sizeof(key_path), key_note, sizeof(key_note), err,
				 sizeof(err)) < 0) {
		fprintf(stderr, "zcs-recv: %s\n", err);
		return 2;
	}
	/* from here on every way out passes out_outputs, which wipes the key (none before it
	 * returns but the load's own failure, which leaves nothing of it) */
	if (opts.key_path) {
		if (zcs_key_load(&key, opts.key_path, err, sizeof(err)) < 0) {
			if (opts.key_default)
				fprintf(stderr, "zcs-recv: default key: %s (--key FILE for another, "
					"--no-key for none)\n", err);
			else
				fprintf(stderr, "zcs-recv: --key: %s\n", err);
			return 2;
		}
		opts.rx.key = &key;
	}
	ret = zcs_recv_runs_open(&runs, &opts, &seen, err, sizeof(err));
	if (ret < 0) {
		char shown[4 * sizeof(err)];

		/* the message names the file, after the key's path: shown escaped */
		fprintf(stderr, "zcs-recv: --run-state: %s\n",
			zcs_text_escape(shown, sizeof(shown), err));
		status = 2;
		goto out_outputs;
	}
	if (ret == 1)
		opts.rx.run_seen = &seen;
	u.quiet = opts.quiet;
	u.json = opts.json;
	u.tty = isatty(STDERR_FILENO);
	install_signals();
	start_ns = zcs_mono_ns();

	zcs_kernels_init(&k, ZCS_ISA_BEST);
	ret = zcs_outputs_create(&out, opts.rx.type);
	if (ret < 0) {
		fprintf(stderr, "zcs-recv: outputs: %s\n", strerror(-ret));
		status = 1;
		goto out_outputs;
	}
	zcs_outputs_set_log(out, (struct zcs_log){ news, &u });
	if (opts.control) {
		/* the key loaded at start, --key's or the default one (--control needs a key) */
		ret = zcs_ctl_fwd_start(&fwd, opts.control, &key, opts.control_allow,
					opts.ncontrol_allow, (struct zcs_log){ news, &u }, err,
					sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "zcs-recv: --control: %s\n", err);
			status = ret == -EINVAL || ret == -EPERM ? 2 : 1;
			goto out_outputs;
		}
		zcs_outputs_set_tune(out, zcs_ctl_fwd_tune_hook, fwd);
		zcs_outputs_set_tune_allow(out, zcs_ctl_fwd_allows);
		/* the board's control channel also says which keyed run is live: a run this
		 * receiver has no record of is followed only once it does (docs/security.md) */
		ret = zcs_ctl_live_start(&live, opts.control, &key, (struct zcs_log){ news, &u },
					 err, sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "zcs-recv: --control: %s\n", err);
			status = ret == -EINVAL ? 2 : 1;
			goto out_outputs;
		}
		opts.rx.run_check = (struct zcs_run_check){ zcs_ctl_live_judge, live };
	}
	zcs_outputs_set_client_timeout(out, (uint64_t)(opts.client_timeout * 1000.0 + 0.5));
	for (size_t i = 0; i < opts.noutputs; i++) {
		err[0] = 0;
		ret = zcs_outputs_add(out, opts.outputs[i], err, sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "zcs-recv: -o '%s': %s\n", opts.outputs[i],
				err[0] ? err : strerror(-ret));
			status = ret == -EINVAL ? 2 : 1;
			goto out_outputs;
		}
	}
	if (fwd)
		warn_exposed(out, &opts);
	opts.rx.log = (struct zcs_log){ news, &u };
	opts.rx.on_change = on_change;
	opts.rx.on_change_ctx = &u;
	err[0] = 0;
	ret = zcs_rx_open(&rx, &opts.rx, out, &k, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "zcs-recv: %s\n", err[0] ? err : strerror(-ret));
		status = ret == -EINVAL ? 2 : 1;
		goto out_outputs;
	}
	ret = zcs_outputs_start(out);
	if (ret < 0) {
		fprintf(stderr, "zcs-recv: starting outputs: %s\n", strerror(-ret));
		status = 1;
		goto out_rx;
	}
	if (!u.quiet)
		fprintf(stderr, "zcs-recv %s: listening on %s, receive buffer %d bytes%s, %s kernels, "
			"%s to %zu output%s\n", ZCS_VERSION,
			zcs_rx_listen_name(opts.rx.listen, where, sizeof(where)),
			zcs_rx_rcvbuf(rx), zcs_rx_gro(rx) ? ", UDP GRO" : "",
			zcs_isa_name(k.isa), zcs_sample_name(opts.rx.type),
			opts.noutputs, opts.noutputs == 1 ? "" : "s");
	if (!u.quiet && opts.key_path) {
		char shown[1024];

		/* the path as typed may hold escape sequences: shown escaped */
		fprintf(stderr, "zcs-recv: keyed: only datagrams authenticated with %s are "
			"accepted%s\n", zcs_text_escape(shown, sizeof(shown), opts.key_path),
			opts.key_default ? " (the default key, no --key given: --no-key receives "
			"unkeyed streams)" : "");
	}
	/* escaped by key.c */
	if (!u.quiet && key_note[0])
		fprintf(stderr, "zcs-recv: %s\n", key_note);
	if (!u.quiet && runs.path[0]) {
		char shown[1024];

		if (opts.rx.run_seen)
			snprintf(text, sizeof(text), "run %" PRIu64 " of stream 0x%08" PRIx32,
				 seen.run, seen.stream_id);
		else if (runs.other_key)
			snprintf(text, sizeof(text), "none yet for this key: what it holds was kept "
				 "for another key, and is replaced");
		else
			snprintf(text, sizeof(text), "none yet");
		/* named after the key's path: shown escaped too */
		fprintf(stderr, "zcs-recv: keyed runs: the newest followed is kept in %s (%s)\n",
			zcs_text_escape(shown, sizeof(shown), runs.path), text);
	}

	period_ns = (uint64_t)(opts.interval * 1e9);
	/* the end-of-stream datagram may be lost like any other (docs/protocol.md): with
	 * --exit-on-eos, long silence of the stream followed ends it too */
	if (opts.rx.exit_on_eos)
		idle_end_ns = (uint64_t)(opts.eos_timeout * 1e9);
	if (period_ns)
		next_tick = start_ns + period_ns;
	zcs_recv_snapshot_take(&prev, rx, out, start_ns);
	while (!stop_signal) {
		int timeout = 100;
		const uint64_t now = zcs_mono_ns();

		if (period_ns && !u.quiet && now >= next_tick) {
			zcs_recv_snapshot_take(&cur, rx, out, start_ns);
			stats_line(&u, &cur, &prev);
			prev = cur;
			/* skip ticks missed rather than printing a burst of them */
			while (next_tick <= now)
				next_tick += period_ns;
		}
		if (period_ns && next_tick > now && (next_tick - now) / 1000000 < (uint64_t)timeout)
			timeout = (int)((next_tick - now) / 1000000) + 1;
		ret = zcs_rx_step(rx, timeout);
		keep_runs(&u, &runs, rx, false);
		/* the forwarder sends to the stream's sender unless --control named a host */
		if (fwd && zcs_rx_stream_open(rx, NULL)) {
			/* its address, or none (len 0) while the datagrams carried none */
			memset(&sender, 0, sizeof(sender));
			(void)zcs_rx_sender(rx, &sender);
			zcs_ctl_fwd_set_sender(fwd, &sender);
		}
		if (ret < 0) {
			clear_line(&u);
			fprintf(stderr, "zcs-recv: receive: %s\n", strerror(-ret));
			status = 1;
			ended_by = "error";
			break;
		}
		if (ret == 1) {
			ended_by = zcs_rx_count_reached(rx) ? "count" : "eos";
			if (zcs_rx_format_ended(rx)) {
				/* the outputs hold less than the stream: not a clean end */
				ended_by = "format";
				status = 1;
			}
			break;
		}
		if (outputs_ended(&u, out, &opts, &status, &ended_by))
			break;
		/* silence the socket really had: a late run reads what waits first (rx.h) */
		if (idle_end_ns && zcs_rx_stream_open(rx, &id) && zcs_rx_silence_ns(rx) >= idle_end_ns) {
			char msg[160];

			snprintf(msg, sizeof(msg), "stream 0x%08x: silent for %.1f s: taken as ended "
				 "(its end-of-stream datagram was lost; --eos-timeout)",
				 (unsigned)id, opts.eos_timeout);
			news(&u, msg);
			ended_by = "idle";
			break;
		}
	}
	zcs_rx_finish(rx);
	keep_runs(&u, &runs, rx, true);
	if (zcs_rx_stream_open(rx, NULL))
		zcs_outputs_eos(out);
	/* the writers empty their queues (5 s at most) so the summary counts what they wrote; then
	 * nothing is left for destroy to wait for */
	zcs_outputs_drain(out, 5000);
	/* a recording's last meta is written at the end of stream: its failure counts too */
	if (status == 0 && strcmp(ended_by, "error") != 0)
		outputs_ended(&u, out, &opts, &status, &ended_by);
	zcs_recv_snapshot_take(&cur, rx, out, start_ns);
	cur.ended_by = ended_by;
	/* a recording with holes is not what the user asked to keep: as a failed write */
	if (status == 0 && zcs_recv_stats_incomplete(&cur))
		status = 1;
	clear_line(&u);
	if (u.json)
		zcs_recv_stats_json(text, sizeof(text), &cur, NULL, true);
	else
		zcs_recv_stats_summary(text, sizeof(text), &cur);
	fprintf(stderr, u.json ? "%s\n" : "%s", text);
	if (fwd) {
		struct zcs_ctl_fwd_stats fs;

		zcs_ctl_fwd_stats(fwd, &fs);
		snprintf(text, sizeof(text), "control: %llu requests forwarded as %llu sets: %llu "
			 "taken, %llu refused, %llu failed; %llu connections",
			 (unsigned long long)fs.posted, (unsigned long long)fs.sets,
			 (unsigned long long)fs.taken, (unsigned long long)fs.refused,
			 (unsigned long long)fs.failed, (unsigned long long)fs.connects);
		news(&u, text);
	}
	if (live) {
		struct zcs_ctl_live_stats ls;

		zcs_ctl_live_stats(live, &ls);
		snprintf(text, sizeof(text), "liveness: %llu requests to the board (%llu answered, "
			 "%llu failed), %llu waits for the rate limit",
			 (unsigned long long)ls.requests, (unsigned long long)ls.answers,
			 (unsigned long long)ls.failed, (unsigned long long)ls.limited);
		news(&u, text);
	}
out_rx:
	zcs_outputs_destroy(out, 0);
	out = NULL;
	zcs_rx_close(rx);
out_outputs:
	if (out)
		zcs_outputs_destroy(out, 0);
	/* after the outputs: their writers call the forwarder's hook */
	zcs_ctl_fwd_stop(fwd);
	/* after the engine, whose receive thread asked it */
	zcs_ctl_live_stop(live);
	if (opts.rx.key)
		zcs_key_wipe(&key);
	return status;
}
