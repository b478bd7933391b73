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

/* Everything the program owns, set up in this order and released in reverse (tear_down). */
struct recv {
	struct zcs_recv_opts opts;
	char key_path[PATH_MAX], key_note[PATH_MAX + 64];
	struct zcs_key key;       /* loaded when opts.rx.key points at it */
	struct zcs_rx_runs runs;  /* the run state (keyed) */
	struct zcs_run_seen seen;
	struct ui u;
	uint64_t start_ns;
	struct zcs_kernels k;
	struct zcs_outputs *out;
	struct zcs_ctl_fwd *fwd;  /* --control: the rtl_tcp forwarder ... */
	struct zcs_ctl_live *live;/* ... and the liveness check */
	struct zcs_rx *rx;
	struct zcs_recv_snapshot cur, prev;
	int status;               /* the exit status */
	const char *ended_by;     /* what ended the run, for the summary */
};

/* The options (--help and --version answered here).  Returns -1 when the program goes on, else
 * its exit status. */
static int options(struct recv *r, int argc, char **argv)
{
	char err[512];
	int ret;

	/* before any descriptor is opened: with fd 1 closed, `-o -` would write into a socket */
	if (zcs_stdfds_guard(err, sizeof(err)) < 0) {
		fprintf(stderr, "zcs-recv: %s\n", err);
		return 1;
	}
	ret = zcs_recv_parse_opts(argc, argv, &r->opts, err, sizeof(err));
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
	return -1;
}

/* --key's key, or the default one (no --key nor --no-key), when there is one.  Returns 0, or
 * the exit status 2 with nothing loaded.  From here on every way out passes tear_down, which
 * wipes the key. */
static int load_key(struct recv *r)
{
	struct zcs_recv_opts *o = &r->opts;
	char err[512];

	if (zcs_recv_default_key(o, r->key_path, sizeof(r->key_path), r->key_note,
				 sizeof(r->key_note), err, sizeof(err)) < 0) {
		fprintf(stderr, "zcs-recv: %s\n", err);
		return 2;
	}
	if (!o->key_path)
		return 0;
	if (zcs_key_load(&r->key, o->key_path, err, sizeof(err)) < 0) {
		if (o->key_default)
			fprintf(stderr, "zcs-recv: default key: %s (--key FILE for another, "
				"--no-key for none)\n", err);
		else
			fprintf(stderr, "zcs-recv: --key: %s\n", err);
		return 2;
	}
	o->rx.key = &r->key;
	return 0;
}

/* The newest keyed run followed before, from the run state.  Returns 0 or the exit status. */
static int open_run_state(struct recv *r)
{
	char err[512];
	const int ret = zcs_recv_runs_open(&r->runs, &r->opts, &r->seen, err, sizeof(err));

	if (ret < 0) {
		char shown[4 * sizeof(err)];

		/* the message names the file, after the key's path: shown escaped */
		fprintf(stderr, "zcs-recv: --run-state: %s\n",
			zcs_text_escape(shown, sizeof(shown), err));
		return 2;
	}
	if (ret == 1)
		r->opts.rx.run_seen = &r->seen;
	return 0;
}

/* --control: the forwarder of rtl_tcp clients' tuning, and the liveness check of keyed runs.
 * Returns 0 or the exit status. */
static int open_control(struct recv *r)
{
	struct zcs_recv_opts *o = &r->opts;
	char err[512];
	int ret;

	/* the key loaded at start, --key's or the default one (--control needs a key) */
	ret = zcs_ctl_fwd_start(&r->fwd, o->control, &r->key, o->control_allow,
				o->ncontrol_allow, (struct zcs_log){ news, &r->u }, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "zcs-recv: --control: %s\n", err);
		return ret == -EINVAL || ret == -EPERM ? 2 : 1;
	}
	zcs_outputs_set_tune(r->out, zcs_ctl_fwd_tune_hook, r->fwd);
	zcs_outputs_set_tune_allow(r->out, zcs_ctl_fwd_allows);
	/* the board's control channel also says which keyed run is live: a run this receiver has
	 * no record of is followed only once it does (docs/security.md) */
	ret = zcs_ctl_live_start(&r->live, o->control, &r->key, (struct zcs_log){ news, &r->u },
				 err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "zcs-recv: --control: %s\n", err);
		return ret == -EINVAL ? 2 : 1;
	}
	o->rx.run_check = (struct zcs_run_check){ zcs_ctl_live_judge, r->live };
	return 0;
}

/* The outputs (-o), with --control's hook into them.  Returns 0 or the exit status. */
static int open_outputs(struct recv *r)
{
	struct zcs_recv_opts *o = &r->opts;
	char err[512];
	int ret;

	ret = zcs_outputs_create(&r->out, o->rx.type);
	if (ret < 0) {
		fprintf(stderr, "zcs-recv: outputs: %s\n", strerror(-ret));
		return 1;
	}
	zcs_outputs_set_log(r->out, (struct zcs_log){ news, &r->u });
	if (o->control && (ret = open_control(r)) != 0)
		return ret;
	zcs_outputs_set_client_timeout(r->out, (uint64_t)(o->client_timeout * 1000.0 + 0.5));
	for (size_t i = 0; i < o->noutputs; i++) {
		err[0] = 0;
		ret = zcs_outputs_add(r->out, o->outputs[i], err, sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "zcs-recv: -o '%s': %s\n", o->outputs[i],
				err[0] ? err : strerror(-ret));
			return ret == -EINVAL ? 2 : 1;
		}
	}
	if (r->fwd)
		warn_exposed(r->out, o);
	return 0;
}

/* The receive engine on its socket, then the outputs' writers.  Returns 0 or the exit status. */
static int open_engine(struct recv *r)
{
	struct zcs_recv_opts *o = &r->opts;
	char err[512];
	int ret;

	o->rx.log = (struct zcs_log){ news, &r->u };
	o->rx.on_change = on_change;
	o->rx.on_change_ctx = &r->u;
	err[0] = 0;
	ret = zcs_rx_open(&r->rx, &o->rx, r->out, &r->k, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "zcs-recv: %s\n", err[0] ? err : strerror(-ret));
		return ret == -EINVAL ? 2 : 1;
	}
	ret = zcs_outputs_start(r->out);
	if (ret < 0) {
		fprintf(stderr, "zcs-recv: starting outputs: %s\n", strerror(-ret));
		return 1;
	}
	return 0;
}

/* Everything the run needs, in order.  Returns 0 or the exit status. */
static int set_up(struct recv *r)
{
	int ret = open_run_state(r);

	if (ret != 0)
		return ret;
	r->u.quiet = r->opts.quiet;
	r->u.json = r->opts.json;
	r->u.tty = isatty(STDERR_FILENO);
	install_signals();
	r->start_ns = zcs_mono_ns();
	zcs_kernels_init(&r->k, ZCS_ISA_BEST);
	if ((ret = open_outputs(r)) != 0)
		return ret;
	return open_engine(r);
}

/* The start-up lines: where it listens, and what it keys with. */
static void say_started(struct recv *r)
{
	const struct zcs_recv_opts *o = &r->opts;
	char where[64], shown[1024], text[256];

	if (r->u.quiet)
		return;
	fprintf(stderr, "zcs-recv %s: listening on %s, receive buffer %d bytes%s, %s kernels, "
		"%s to %zu output%s\n", ZCS_VERSION,
		zcs_rx_listen_name(o->rx.listen, where, sizeof(where)),
		zcs_rx_rcvbuf(r->rx), zcs_rx_gro(r->rx) ? ", UDP GRO" : "",
		zcs_isa_name(r->k.isa), zcs_sample_name(o->rx.type),
		o->noutputs, o->noutputs == 1 ? "" : "s");
	if (o->key_path) {
		/* the path as typed may hold escape sequences: shown escaped */
		fprintf(stderr, "zcs-recv: keyed: only datagrams authenticated with %s are "
			"accepted%s\n", zcs_text_escape(shown, sizeof(shown), o->key_path),
			o->key_default ? " (the default key, no --key given: --no-key receives "
			"unkeyed streams)" : "");
	}
	/* escaped by key.c */
	if (r->key_note[0])
		fprintf(stderr, "zcs-recv: %s\n", r->key_note);
	if (r->runs.path[0]) {
		if (o->rx.run_seen)
			snprintf(text, sizeof(text), "run %" PRIu64 " of stream 0x%08" PRIx32,
				 r->seen.run, r->seen.stream_id);
		else if (r->runs.other_key)
			snprintf(text, sizeof(text), "none yet for this key: what it holds was kept "
				 "for another key, and is replaced");
		else
			snprintf(text, sizeof(text), "none yet");
		/* named after the key's path: shown escaped too */
		fprintf(stderr, "zcs-recv: keyed runs: the newest followed is kept in %s (%s)\n",
			zcs_text_escape(shown, sizeof(shown), r->runs.path), text);
	}
}

/* The receive loop: steps of the engine, a statistics line every --interval, until a signal,
 * --count, the end of stream (--exit-on-eos, or its silence), an error or the outputs' end. */
static void receive(struct recv *r)
{
	const struct zcs_recv_opts *o = &r->opts;
	const uint64_t period_ns = (uint64_t)(o->interval * 1e9);
	uint64_t next_tick = 0, idle_end_ns = 0;
	struct zcs_addr sender;
	uint32_t id;
	int ret;

	/* the end-of-stream datagram may be lost like any other (docs/protocol.md): with
	 * --exit-on-eos, long silence of the stream followed ends it too */
	if (o->rx.exit_on_eos)
		idle_end_ns = (uint64_t)(o->eos_timeout * 1e9);
	if (period_ns)
		next_tick = r->start_ns + period_ns;
	zcs_recv_snapshot_take(&r->prev, r->rx, r->out, r->start_ns);
	while (!stop_signal) {
		int timeout = 100;
		const uint64_t now = zcs_mono_ns();

		if (period_ns && !r->u.quiet && now >= next_tick) {
			zcs_recv_snapshot_take(&r->cur, r->rx, r->out, r->start_ns);
			stats_line(&r->u, &r->cur, &r->prev);
			r->prev = r->cur;
			/* skip ticks missed rather than printing a burst of them */
			while (next_tick <= now)
				next_tick += period_ns;
		}
		if (period_ns && next_tick > now && (next_tick - now) / 1000000 < (uint64_t)timeout)
			timeout = (int)((next_tick - now) / 1000000) + 1;
		ret = zcs_rx_step(r->rx, timeout);
		keep_runs(&r->u, &r->runs, r->rx, false);
		/* the forwarder sends to the stream's sender unless --control named a host */
		if (r->fwd && zcs_rx_stream_open(r->rx, NULL)) {
			/* its address, or none (len 0) while the datagrams carried none */
			memset(&sender, 0, sizeof(sender));
			(void)zcs_rx_sender(r->rx, &sender);
			zcs_ctl_fwd_set_sender(r->fwd, &sender);
		}
		if (ret < 0) {
			clear_line(&r->u);
			fprintf(stderr, "zcs-recv: receive: %s\n", strerror(-ret));
			r->status = 1;
			r->ended_by = "error";
			break;
		}
		if (ret == 1) {
			r->ended_by = zcs_rx_count_reached(r->rx) ? "count" : "eos";
			if (zcs_rx_format_ended(r->rx)) {
				/* the outputs hold less than the stream: not a clean end */
				r->ended_by = "format";
				r->status = 1;
			}
			break;
		}
		if (outputs_ended(&r->u, r->out, o, &r->status, &r->ended_by))
			break;
		/* silence the socket really had: a late run reads what waits first (rx.h) */
		if (idle_end_ns && zcs_rx_stream_open(r->rx, &id) &&
		    zcs_rx_silence_ns(r->rx) >= idle_end_ns) {
			char msg[160];

			snprintf(msg, sizeof(msg), "stream 0x%08x: silent for %.1f s: taken as ended "
				 "(its end-of-stream datagram was lost; --eos-timeout)",
				 (unsigned)id, o->eos_timeout);
			news(&r->u, msg);
			r->ended_by = "idle";
			break;
		}
	}
}

/* The run ends: the stream and the outputs are closed off, then the summary and --control's
 * counts are said, and the exit status settled. */
static void finish(struct recv *r)
{
	char text[8192];

	zcs_rx_finish(r->rx);
	keep_runs(&r->u, &r->runs, r->rx, true);
	if (zcs_rx_stream_open(r->rx, NULL))
		zcs_outputs_eos(r->out);
	/* the writers empty their queues (5 s at most) so the summary counts what they wrote; then
	 * nothing is left for destroy to wait for */
	zcs_outputs_drain(r->out, 5000);
	/* a recording's last meta is written at the end of stream: its failure counts too */
	if (r->status == 0 && strcmp(r->ended_by, "error") != 0)
		outputs_ended(&r->u, r->out, &r->opts, &r->status, &r->ended_by);
	zcs_recv_snapshot_take(&r->cur, r->rx, r->out, r->start_ns);
	r->cur.ended_by = r->ended_by;
	/* a recording with holes is not what the user asked to keep: as a failed write */
	if (r->status == 0 && zcs_recv_stats_incomplete(&r->cur))
		r->status = 1;
	clear_line(&r->u);
	if (r->u.json)
		zcs_recv_stats_json(text, sizeof(text), &r->cur, NULL, true);
	else
		zcs_recv_stats_summary(text, sizeof(text), &r->cur);
	fprintf(stderr, r->u.json ? "%s\n" : "%s", text);
	if (r->fwd) {
		struct zcs_ctl_fwd_stats fs;

		zcs_ctl_fwd_stats(r->fwd, &fs);
		snprintf(text, sizeof(text), "control: %llu requests forwarded as %llu sets: %llu "
			 "taken, %llu refused, %llu failed; %llu connections",
			 (unsigned long long)fs.posted, (unsigned long long)fs.sets,
			 (unsigned long long)fs.taken, (unsigned long long)fs.refused,
			 (unsigned long long)fs.failed, (unsigned long long)fs.connects);
		news(&r->u, text);
	}
	if (r->live) {
		struct zcs_ctl_live_stats ls;

		zcs_ctl_live_stats(r->live, &ls);
		snprintf(text, sizeof(text), "liveness: %llu requests to the board (%llu answered, "
			 "%llu failed), %llu waits for the rate limit",
			 (unsigned long long)ls.requests, (unsigned long long)ls.answers,
			 (unsigned long long)ls.failed, (unsigned long long)ls.limited);
		news(&r->u, text);
	}
}

/* Releases what set_up made, in reverse, whatever it got to; the key is wiped last. */
static void tear_down(struct recv *r)
{
	if (r->out)
		zcs_outputs_destroy(r->out, 0);
	zcs_rx_close(r->rx);
	/* after the outputs: their writers call the forwarder's hook */
	zcs_ctl_fwd_stop(r->fwd);
	/* after the engine, whose receive thread asked it */
	zcs_ctl_live_stop(r->live);
	if (r->opts.rx.key)
		zcs_key_wipe(&r->key);
}

int main(int argc, char **argv)
{
	static struct recv r = { .ended_by = "signal" };
	const int ret = options(&r, argc, argv);

	if (ret >= 0)
		return ret;
	if ((r.status = load_key(&r)) != 0)
		return r.status;
	r.status = set_up(&r);
	if (r.status == 0) {
		say_started(&r);
		receive(&r);
		finish(&r);
	}
	tear_down(&r);
	return r.status;
}
