// SPDX-License-Identifier: MIT
/* zcs-send: parse the command line, open the source and the socket, run the two-thread pipeline,
 * print statistics once a second and a summary at the end. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "clock.h"
#include "ctl_proto.h"
#include "ctl_server.h"
#include "dnssd.h"
#include "err.h"
#include "key.h"
#include "link_info.h"
#include "log.h"
#include "net.h"
#include "pipeline.h"
#include "proto.h"
#include "runstate.h"
#include "send_opts.h"
#include "send_stats.h"
#include "source.h"
#include "stdfds.h"
#include "synth.h"
#include "text.h"
#include "zcs_config.h"

#define ERRLEN 512

static void log_line(void *ctx, const char *line)
{
	char safe[4 * ZCS_LOG_LINE];

	(void)ctx;
	/* a line that is not plain text (a path the user gave, say) reaches the terminal escaped */
	if (!zcs_text_valid(line, strlen(line)))
		line = zcs_text_escape(safe, sizeof(safe), line);
	fprintf(stderr, "zcs-send: %s\n", line);
}

static const struct zcs_source_ops *source_ops(const char *kind)
{
	if (strcmp(kind, "tone") == 0 || strcmp(kind, "noise") == 0)
		return &zcs_source_tone_ops;
	if (strcmp(kind, "file") == 0 || strcmp(kind, "stdin") == 0)
		return &zcs_source_file_ops;
#if ZCS_HAVE_IIO
	if (strcmp(kind, "iio") == 0)
		return &zcs_source_iio_ops;
#endif
	return NULL;
}

/* A CPU asked for by --cpus must be one we may run on; the default CPU1 is simply dropped. */
static int check_cpus(struct zcs_send_opts *o, char *err, size_t errlen)
{
	cpu_set_t allowed;
	int *const cpus[2] = { &o->cpu_src, &o->cpu_send };

	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
		CPU_ZERO(&allowed);
	for (int i = 0; i < 2; i++) {
		if (*cpus[i] < 0 || CPU_ISSET((size_t)*cpus[i], &allowed))
			continue;
		if (o->cpus_given)
			return zcs_err(err, errlen, -EINVAL,
				       "--cpus: CPU%d is not available to this process", *cpus[i]);
		*cpus[i] = -1;
	}
	return 0;
}

/* --send-threads 2: a socket like fd (the same options, destination and local address and port),
 * so the second send thread's datagrams come from where the first's do.  Returns it or -errno
 * with err set. */
static int second_socket(const struct zcs_send_opts *o, int fd, char *err, size_t errlen)
{
	struct zcs_addr local = { .len = sizeof(local.ss) };
	struct zcs_net_tx_opts tx = o->tx;

	if (getsockname(fd, (struct sockaddr *)&local.ss, &local.len) < 0)
		return zcs_err_errno(err, errlen, "getsockname");
	tx.bind_to = &local;
	return zcs_net_udp_sender(&o->addr, &tx, err, errlen);
}

static uint32_t random_stream_id(void)
{
	uint32_t id = 0;

	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		id = (uint32_t)(zcs_wall_ns() ^ ((uint64_t)getpid() << 16));
	/* docs/protocol.md: a stream id SHOULD be non-zero (0 reads as "unset" in many tools) */
	return id ? id : 1;
}

/* For zcs_pipeline_locked(): a copy of the source's settings, taken under the tuning lock. */
static int read_info(void *ctx, struct zcs_source *src)
{
	*(struct zcs_radio_info *)ctx = src->info;
	return 0;
}

/* A retune (the control channel) changes rate or frequency, a set format= the wire format:
 * the TXT record follows, once a second from here, never from the data threads. */
static void announce_follow(struct zcs_pipeline *pl, struct zcs_dnssd_announce *ann)
{
	struct zcs_radio_info info;

	if (!ann)
		return;
	zcs_pipeline_locked(pl, read_info, &info);
	zcs_dnssd_announce_update(ann, info.sample_rate, info.center_freq, zcs_pipeline_format(pl));
}

/* Runs until the pipeline ends, printing statistics once a second; SIGINT/SIGTERM (blocked in
 * every thread, taken here by sigtimedwait) ask it to stop. */
static void watch(struct zcs_pipeline *pl, const struct zcs_send_opts *o, const sigset_t *sigs,
		  uint64_t t0, struct zcs_dnssd_announce *ann)
{
	const bool tty = isatty(STDERR_FILENO);
	const struct timespec tick = { .tv_sec = 0, .tv_nsec = 100 * 1000000 };
	struct zcs_pipeline_stats prev = { 0 }, now;
	uint64_t last = t0;
	char line[1024];

	for (;;) {
		const int sig = sigtimedwait(sigs, NULL, &tick);
		uint64_t ns;

		if (sig == SIGINT || sig == SIGTERM)
			zcs_pipeline_stop(pl);
		zcs_pipeline_stats(pl, &now);
		if (now.finished)
			break;
		ns = zcs_mono_ns();
		if (ns - last < ZCS_NS_PER_SEC)
			continue;
		announce_follow(pl, ann);
		if (o->json) {
			zcs_send_stats_json(line, sizeof(line), &now, &prev, (double)(ns - last) / 1e9,
					    (double)(ns - t0) / 1e9, false);
			/* stderr like every other line: stdout is for samples (zcs-recv -o -) */
			fprintf(stderr, "%s\n", line);
		}
		if (!o->quiet && !o->json) {
			zcs_send_stats_line(line, sizeof(line), &now, &prev, (double)(ns - last) / 1e9);
			fprintf(stderr, tty ? "\r%s\033[K" : "%s\n", line);
		}
		prev = now;
		last = ns;
	}
	if (tty && !o->quiet && !o->json && last != t0)
		fputc('\n', stderr);
}

/* The control port of "[ADDR:]PORT" (the option parser checked the server could bind it). */
static uint16_t control_port(const char *spec)
{
	const char *const colon = strrchr(spec, ':');
	const unsigned long p = strtoul(colon ? colon + 1 : spec, NULL, 10);

	return p <= 65535 ? (uint16_t)p : 0;
}

/* --announce: DNS-SD on avahi's own thread (common/dnssd/dnssd.h), never on the send path. */
static int start_announce(struct zcs_dnssd_announce **ann, const struct zcs_send_opts *o,
			  const struct zcs_source *src, uint32_t stream_id, const char *host,
			  char *err, size_t errlen)
{
	const struct zcs_log log = { log_line, NULL };
	struct zcs_dnssd_stream s = {
		.dest = o->addr, .stream_id = stream_id, .format = o->format,
		.rate = src->info.sample_rate, .freq = src->info.center_freq,
		.keyed = o->key_path != NULL,
		.control_port = o->control ? control_port(o->control) : 0,
	};

	if (o->announce_name) {
		snprintf(s.name, sizeof(s.name), "%s", o->announce_name);
	} else {
		/* "zcs on " and the host name, cut at a character so the name stays 63 bytes */
		char h[sizeof(s.name) - 7];

		snprintf(s.name, sizeof(s.name), "zcs on %s", zcs_text_escape(h, sizeof(h), host));
	}
	return zcs_dnssd_announce_start(ann, &s, &log, err, errlen);
}

/* Before the first datagram: what the stream costs on the wire, the link it leaves by, and a
 * warning with what would fit when that link cannot carry it (sender/link_info.h). */
static void say_link(const struct zcs_send_opts *o, const struct zcs_source *src, int fd)
{
	struct zcs_link l;
	const struct zcs_stream_shape s = {
		.format = o->format, .rate = src->info.sample_rate,
		.udp_payload = zcs_proto_udp_payload(o->mtu, zcs_net_is_ipv6(&o->addr)),
		.trailer = o->key_path ? ZCS_AUTH_SAMPLE_TRAILER : 0,
		.fec_k = o->fec_k, .fec_m = o->fec_m, .ipv6 = zcs_net_is_ipv6(&o->addr),
	};
	struct zcs_stream_shape sl = s;
	char line[1024];

	zcs_link_probe(fd, o->link_speed, &l);
	sl.link_mtu = l.mtu;
	zcs_link_line(line, sizeof(line), &l);
	if (!o->quiet)
		fprintf(stderr, "zcs-send: %s\n", line);
	/* unpaced, the stream goes as fast as it can: no rate to check */
	if (!s.rate || (o->unpaced && !src->paced_by_device))
		return;
	zcs_link_stream_line(line, sizeof(line), &sl);
	if (!o->quiet)
		fprintf(stderr, "zcs-send: %s\n", line);
	/* a warning even with -q: the stream will lose what the link cannot carry */
	if (zcs_link_fit_line(line, sizeof(line), &sl, &l))
		fprintf(stderr, "zcs-send: %s\n", line);
}

/* The keyed run's number: the counter kept beside the key (or at --run-counter) advanced and
 * made durable before the run's first datagram, so receivers can tell this run from any earlier
 * one without the board's clock (docs/security.md, "Fresh runs").  Returns 0 with *run set, or
 * the exit status after saying why. */
static int next_run(const struct zcs_send_opts *o, uint64_t *run)
{
	char path[4096], err[ERRLEN], shown[4 * ERRLEN];
	int ret;

	/* the counter's name is the key's path and a suffix: both may hold escape sequences, so
	 * every line here shows them escaped */
	if (o->run_counter)
		snprintf(path, sizeof(path), "%s", o->run_counter);
	else if (zcs_run_state_path(path, sizeof(path), o->state_dir, o->key_path,
				    ZCS_RUN_COUNTER_SUFFIX) < 0) {
		fprintf(stderr, "zcs-send: --key %s: name too long for its run counter\n",
			zcs_text_escape(shown, sizeof(shown), o->key_path));
		return 2;
	}
	ret = zcs_run_counter_next(path, run, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "zcs-send: keyed run counter: %s: not started (receivers tell a "
			"restart from a replay by it; --run-counter FILE puts it elsewhere)\n",
			zcs_text_escape(shown, sizeof(shown), err));
		return ret == -EINVAL || ret == -EPERM || ret == -ELOOP || ret == -ERANGE ? 2 : 1;
	}
	if (ret == 1 && !o->quiet)
		fprintf(stderr, "zcs-send: no run counter in %s yet: this is run 1\n",
			zcs_text_escape(shown, sizeof(shown), path));
	return 0;
}

/* Everything the program owns, set up in this order and released in reverse (tear_down). */
struct send {
	struct zcs_send_opts o;
	sigset_t sigs;            /* SIGINT and SIGTERM, taken by sigtimedwait in watch() only */
	struct zcs_source src;    /* open when src.ops is set */
	struct zcs_key key;       /* loaded when o.key_path is set */
	int fd;                   /* the UDP socket, -1: none */
	int fd2;                  /* --send-threads 2: the second's, -1: none */
	char hostname[64], raw_host[256];
	uint32_t stream_id;
	uint64_t run;             /* keyed: this run's number */
	struct zcs_pipeline *pl;
	struct zcs_ctl_server *ctl;
	struct zcs_dnssd_announce *ann;
};

/* The options (--help, --version and --gen-key answered here).  Returns -1 when the program
 * goes on, else its exit status. */
static int options(struct send *s, int argc, char **argv)
{
	struct zcs_send_opts *o = &s->o;
	char err[ERRLEN] = "";
	int ret;

	/* before any descriptor is opened: `zcs-send -s - <&-` must not read its own UDP socket */
	if (zcs_stdfds_guard(err, sizeof(err)) < 0) {
		fprintf(stderr, "zcs-send: %s\n", err);
		return 1;
	}
	ret = zcs_send_parse_opts(o, argc, argv, err, sizeof(err));
	if (ret == ZCS_SEND_HELP) {
		fputs(zcs_send_usage(), stdout);
		return 0;
	}
	if (ret == ZCS_SEND_VERSION) {
		printf("zcs-send %s (libiio %s, io_uring %s, zstd %s, avahi %s)\n", ZCS_VERSION,
		       ZCS_HAVE_IIO ? "yes" : "no", ZCS_HAVE_URING ? "yes" : "no",
		       ZCS_HAVE_ZSTD ? "yes" : "no", ZCS_HAVE_AVAHI ? "yes" : "no");
		return 0;
	}
	if (ret == ZCS_SEND_GEN_KEY) {
		char shown[1024];

		if (zcs_key_generate(o->gen_key, err, sizeof(err)) < 0) {
			fprintf(stderr, "zcs-send: %s\n", err);
			return 1;
		}
		fprintf(stderr, "zcs-send: wrote a new key to %s (mode 0600): copy it to each "
			"receiver over a channel you trust\n",
			zcs_text_escape(shown, sizeof(shown), o->gen_key));
		return 0;
	}
	if (ret < 0 || check_cpus(o, err, sizeof(err)) < 0) {
		fprintf(stderr, "zcs-send: %s\n", err);
		return 2;
	}
	return -1;
}

/* Signals are taken by sigtimedwait in main's thread only, never by a handler in a data thread;
 * a consumer gone is an EPIPE, not the end of the program. */
static void block_signals(struct send *s)
{
	sigemptyset(&s->sigs);
	sigaddset(&s->sigs, SIGINT);
	sigaddset(&s->sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &s->sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* The source's kind, checked before the key is loaded, then --key's key.  Returns 0, or the exit
 * status 2 with nothing loaded.  From here on every way out passes tear_down, which wipes the
 * key. */
static int load_key(struct send *s)
{
	char err[ERRLEN] = "";

	if (!source_ops(s->o.src.kind)) {
		fprintf(stderr, "zcs-send: --source %s: not in this build\n", s->o.src.kind);
		return 2;
	}
	if (s->o.key_path && zcs_key_load(&s->key, s->o.key_path, err, sizeof(err)) < 0) {
		fprintf(stderr, "zcs-send: --key: %s\n", err);
		return 2;
	}
	return 0;
}

/* The source, and what it says of itself.  Returns 0 or the exit status. */
static int open_source(struct send *s)
{
	const struct zcs_send_opts *o = &s->o;
	struct zcs_source *src = &s->src;
	char err[ERRLEN] = "";

	src->ops = source_ops(o->src.kind);
	if (src->ops->open(src, &o->src, err, sizeof(err)) < 0) {
		fprintf(stderr, "zcs-send: source %s: %s\n", o->src.kind, err);
		src->ops = NULL;
		return 1;
	}
	if (strcmp(o->src.kind, "tone") == 0) {
		/* the tone's frequency is quantised (sender/source/synth.h): say which one is really sent */
		const uint64_t r = src->info.sample_rate;

		fprintf(stderr, "zcs-send: tone %.3f Hz at %llu S/s (--tone %g rounded to a multiple "
			"of rate/%u = %.3f Hz)\n", zcs_synth_tone_hz(o->src.tone_hz, r),
			(unsigned long long)r, o->src.tone_hz, ZCS_SYNTH_PERIOD_MAX,
			(double)r / ZCS_SYNTH_PERIOD_MAX);
	}
	if (src->tune_lag_pairs && src->info.sample_rate)
		fprintf(stderr, "zcs-send: a retune's first new sample lies at most %llu pairs "
			"(%.1f ms) after the index announced for it (the DMA queue)\n",
			(unsigned long long)src->tune_lag_pairs,
			(double)src->tune_lag_pairs * 1000.0 / (double)src->info.sample_rate);
	return 0;
}

/* The UDP socket to the destination, the link it leaves by, and the host name the metadata
 * carries.  Returns 0 or the exit status. */
static int open_socket(struct send *s)
{
	char err[ERRLEN] = "";

	/* --send-threads 2: the second sends from the same address and port */
	s->o.tx.reuse_addr = s->o.send_threads > 1;
	s->fd = zcs_net_udp_sender(&s->o.addr, &s->o.tx, err, sizeof(err));
	if (s->fd < 0) {
		fprintf(stderr, "zcs-send: %s: %s\n", s->o.dest, err);
		return 1;
	}
	if (s->o.send_threads > 1 &&
	    (s->fd2 = second_socket(&s->o, s->fd, err, sizeof(err))) < 0) {
		fprintf(stderr, "zcs-send: %s: second socket: %s\n", s->o.dest, err);
		return 1;
	}
	say_link(&s->o, &s->src, s->fd);
	if (gethostname(s->raw_host, sizeof(s->raw_host) - 1) < 0)
		strcpy(s->raw_host, "unknown");
	/* a host name is whatever root set: receivers refuse metadata with control characters or
	 * broken UTF-8, so send it escaped, cut to the wire's 31 bytes at a character boundary */
	zcs_text_escape(s->hostname, sizeof(((struct zcs_meta *)0)->sender), s->raw_host);
	return 0;
}

/* The two threads between the source and the socket (not started yet).  Keyed, the run's
 * number is taken last before it: a run that fails to start sooner costs no number.  Returns 0
 * or the exit status. */
static int create_pipeline(struct send *s)
{
	const struct zcs_send_opts *o = &s->o;
	char err[ERRLEN] = "";
	int ret;

	if (o->key_path && (ret = next_run(o, &s->run)) != 0)
		return ret;
	const struct zcs_pipeline_config pc = {
		.src = &s->src, .fd = s->fd, .fd2 = s->fd2, .format = o->format,
		.udp_payload = zcs_proto_udp_payload(o->mtu, zcs_net_is_ipv6(&o->addr)),
		.count = o->count,
		.pace_rate = s->src.paced_by_device || o->unpaced ? 0 : s->src.info.sample_rate,
		.zstd_level = o->zstd_level, .path = o->path,
		.fec_k = o->fec_k, .fec_m = o->fec_m,
		.cpu_src = o->cpu_src, .cpu_send = o->cpu_send, .spread_auto = o->send_threads_auto,
		.stream_id = s->stream_id, .sender_name = s->hostname,
		.source_name = o->src.kind, .log = { log_line, NULL },
		.key = o->key_path ? &s->key : NULL, .run_start_ns = zcs_wall_ns(), .run = s->run,
	};

	if (zcs_pipeline_create(&s->pl, &pc, err, sizeof(err)) < 0) {
		fprintf(stderr, "zcs-send: %s\n", err);
		return 1;
	}
	return 0;
}

/* --control: the control channel's listener.  Returns 0 or the exit status. */
static int start_control(struct send *s)
{
	const struct zcs_send_opts *o = &s->o;
	const struct zcs_ctl_server_config cc = {
		.listen = o->control, .key = &s->key, .max_clients = o->control_clients,
		.pl = s->pl, .stream_id = s->stream_id, .format = o->format,
		.source_name = o->src.kind, .run = s->run, .log = { log_line, NULL },
	};
	char err[ERRLEN] = "";

	if (zcs_ctl_server_start(&s->ctl, &cc, err, sizeof(err)) < 0) {
		fprintf(stderr, "zcs-send: %s\n", err);
		return 1;
	}
	fprintf(stderr, "zcs-send: control channel on %s (%zu clients at most)\n",
		o->control, o->control_clients);
	/* the stream does not say where the channel is: applications that pass no device
	 * argument (the SoapySDR module in SDR++) try 5392, or take the port DNS-SD gives */
	if (control_port(o->control) != ZCS_CTL_DEFAULT_PORT && !o->announce)
		fprintf(stderr, "zcs-send: control port %u is not the default %u: SoapySDR "
			"applications with no device arguments find it only with --announce\n",
			(unsigned)control_port(o->control), (unsigned)ZCS_CTL_DEFAULT_PORT);
	return 0;
}

/* Everything the stream needs, in order.  Returns 0 or the exit status. */
static int set_up(struct send *s)
{
	char err[ERRLEN] = "";
	int ret;

	if ((ret = open_source(s)) != 0 || (ret = open_socket(s)) != 0 ||
	    (ret = create_pipeline(s)) != 0)
		return ret;
	if (s->o.control && (ret = start_control(s)) != 0)
		return ret;
	if (s->o.announce && start_announce(&s->ann, &s->o, &s->src, s->stream_id, s->raw_host,
					    err, sizeof(err)) < 0) {
		fprintf(stderr, "zcs-send: %s\n", err);
		return 1;
	}
	if (s->o.key_path) {
		char shown[1024];

		/* the path as typed may hold escape sequences: shown escaped */
		fprintf(stderr, "zcs-send: keyed stream: every datagram is authenticated with %s "
			"(Poly1305 tag, %d bytes more per datagram); run %llu\n",
			zcs_text_escape(shown, sizeof(shown), s->o.key_path), ZCS_AUTH_SAMPLE_TRAILER,
			(unsigned long long)s->run);
	}
	return 0;
}

/* The stream: started, watched until its end or a signal, joined, and summed up.  Returns the
 * exit status. */
static int stream(struct send *s)
{
	const struct zcs_send_opts *o = &s->o;
	struct zcs_pipeline_stats fin;
	char err[ERRLEN] = "", text[2048];
	const uint64_t t0 = zcs_mono_ns();
	int ret, status = 1;

	ret = zcs_pipeline_start(s->pl, err, sizeof(err));
	if (ret < 0)
		fprintf(stderr, "zcs-send: %s\n", err);
	else
		watch(s->pl, o, &s->sigs, t0, s->ann);
	ret = zcs_pipeline_join(s->pl, err, sizeof(err));
	zcs_pipeline_stats(s->pl, &fin);
	if (ret < 0)
		fprintf(stderr, "zcs-send: %s\n", err);
	else
		status = 0;
	zcs_send_stats_summary(text, sizeof(text), &fin, (double)(zcs_mono_ns() - t0) / 1e9);
	fputs(text, stderr);
	if (s->ctl) {
		struct zcs_ctl_server_stats cs;

		zcs_ctl_server_stats(s->ctl, &cs);
		zcs_ctl_server_stop(s->ctl);
		s->ctl = NULL;
		fprintf(stderr, "zcs-send: %s\n", zcs_ctl_server_summary(&cs, text, sizeof(text)));
		if (o->json)
			fprintf(stderr, "%s\n", zcs_ctl_server_json(&cs, text, sizeof(text)));
	}
	if (o->json) {
		zcs_send_stats_json(text, sizeof(text), &fin, &fin, 0, (double)(zcs_mono_ns() - t0) / 1e9,
				    true);
		fprintf(stderr, "%s\n", text);
	}
	return status;
}

/* Releases what set_up made, in reverse, whatever it got to; the key is wiped before the source
 * closes. */
static void tear_down(struct send *s)
{
	/* the announcement goes first: nobody should find a stream that is ending */
	zcs_dnssd_announce_stop(s->ann);
	zcs_ctl_server_stop(s->ctl);
	/* the socket first, then the pool's memory (sendpath.h): zero-copy sends still in flight
	 * after the drain's deadline pin the pool's pages until their socket is gone */
	if (s->fd >= 0)
		close(s->fd);
	if (s->fd2 >= 0)
		close(s->fd2);
	zcs_pipeline_destroy(s->pl);
	if (s->o.key_path)
		zcs_key_wipe(&s->key);
	if (s->src.ops)
		s->src.ops->close(&s->src);
}

int main(int argc, char **argv)
{
	static struct send s = { .fd = -1, .fd2 = -1 };
	int ret;

	s.stream_id = random_stream_id();
	if ((ret = options(&s, argc, argv)) >= 0)
		return ret;
	block_signals(&s);
	if ((ret = load_key(&s)) != 0)
		return ret;
	ret = set_up(&s);
	if (ret == 0)
		ret = stream(&s);
	tear_down(&s);
	return ret;
}
