// SPDX-License-Identifier: MIT
/* Receiver capacity (docs/performance.md, "Receiver capacity"): zcs-recv (p12 -> cs16 into
 * file:/dev/null) against a bare recvmmsg loop (bench_recv_bare), fed over loopback by a paced
 * generator pinned to CPU0 while the receiver is pinned to CPU1.  Prints tables; never fails on
 * a figure, only when a run cannot be made at all. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "proto.h"
#include "wire.h"

#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

#define PAIRS 480                                   /* p12 pairs in a 1472-byte datagram */
#define DGRAM (ZCS_PROTO_SAMPLE_HDR_SIZE + 3 * PAIRS) /* 1472: MTU 1500 minus IPv4 and UDP */
#define BATCH 44                                    /* 44 * 1472 fits one 64 KB GSO train */
#define META_EVERY_NS (250ULL * 1000 * 1000)        /* as often as zcs-send (at most 500 ms) */
#define MAX_STEPS 32

enum gen_mode { GEN_MMSG, GEN_GSO };

struct opts {
	const char *zcs_recv, *bare;
	double steps[MAX_STEPS];   /* datagrams/s offered; 0 = as fast as the generator goes */
	size_t nsteps;
	double secs;               /* seconds of traffic per step */
	double fixed_rate;         /* the rate of the CPU-cost comparison */
	double fixed_secs;
	int fixed_reps;
	enum gen_mode gen;
	int port;                  /* first port; each run takes the next one */
	int gen_cpu, rx_cpu;
};

/* One run's figures. */
struct run {
	uint64_t sent;             /* datagrams the generator sent (metadata included) */
	double gen_secs, gen_cpu;  /* its sending time and CPU time */
	uint64_t got;              /* datagrams the receiver read */
	uint64_t lost, drops;      /* zcs-recv's lost, and socket_drops (SO_RXQ_OVFL) of either */
	double rx_cpu;             /* receiver user + system seconds, all threads */
	bool ok;
};

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static double tv_secs(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* ---- generator (a child process on gen_cpu) ---- */

static void fill_meta(struct zcs_meta *m, double rate)
{
	memset(m, 0, sizeof(*m));
	m->stream_id = 0x5eed0001;
	m->meta_version = 1;
	m->sample_rate = (uint64_t)((rate > 0 ? rate : 2e6) * PAIRS);
	m->gain_mode = ZCS_GAIN_UNKNOWN;
	m->format = ZCS_WIRE_P12;
	m->samples_per_dgram = PAIRS;
	snprintf(m->sender, sizeof(m->sender), "bench");
	snprintf(m->version, sizeof(m->version), "0");
	snprintf(m->source, sizeof(m->source), "bench");
}

static int send_all(int fd, struct mmsghdr *mm, unsigned int n)
{
	unsigned int done = 0;

	while (done < n) {
		const int r = sendmmsg(fd, mm + done, n - done, 0);

		if (r < 0 && (errno == EINTR || errno == ENOBUFS || errno == EAGAIN))
			continue;
		if (r < 0)
			return -errno;
		done += (unsigned int)r;
	}
	return 0;
}

/* Sends metadata, then sample datagrams at `rate` (0: flat out) for secs, the last one with EOS.
 * Pacing: whenever the count is behind rate * elapsed a batch goes out, else it sleeps until the
 * next batch is due; bursts of one batch are what the socket buffer absorbs. */
static int generate(int port, double rate, double secs, enum gen_mode mode, struct run *r)
{
	static uint8_t hdrs[BATCH][ZCS_PROTO_SAMPLE_HDR_SIZE];
	static uint8_t payload[3 * PAIRS];
	static struct iovec iov[2 * BATCH];
	static struct mmsghdr mm[BATCH];
	uint8_t meta_buf[ZCS_PROTO_META_SIZE];
	char cbuf[CMSG_SPACE(sizeof(uint16_t))];
	struct { uint64_t seq; } st = { 0 };
	struct zcs_sample_hdr h = { .stream_id = 0x5eed0001, .samples = PAIRS,
				    .payload_len = 3 * PAIRS, .format = ZCS_WIRE_P12 };
	struct sockaddr_in a;
	struct zcs_meta m;
	struct rusage ru;
	const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	const int sndbuf = 4 * 1024 * 1024;
	uint64_t t0, t_end, next_meta = 0, now;

	if (fd < 0)
		return -errno;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (connect(fd, (const struct sockaddr *)&a, sizeof(a)) < 0)
		return -errno;
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 151 + 7);
	for (size_t i = 0; i < BATCH; i++) {
		iov[2 * i].iov_base = hdrs[i];
		iov[2 * i].iov_len = ZCS_PROTO_SAMPLE_HDR_SIZE;
		iov[2 * i + 1].iov_base = payload;
		iov[2 * i + 1].iov_len = sizeof(payload);
		mm[i].msg_hdr.msg_iov = &iov[2 * i];
		mm[i].msg_hdr.msg_iovlen = 2;
	}
	fill_meta(&m, rate);
	/* fine sleeps: the default 50 us timer slack is a batch at 1 M/s */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

	t0 = zcs_mono_ns();
	t_end = t0 + (uint64_t)(secs * 1e9);
	for (now = t0; now < t_end; now = zcs_mono_ns()) {
		if (now >= next_meta) {
			m.next_seq = st.seq;
			m.ref_sample = st.seq * PAIRS;
			if (send(fd, meta_buf, zcs_proto_write_meta(meta_buf, &m), 0) > 0)
				r->sent++;
			next_meta = now + META_EVERY_NS;
		}
		if (rate > 0) {
			const uint64_t due = (uint64_t)((double)(now - t0) * rate / 1e9);

			if (st.seq + BATCH > due + BATCH / 2) {
				/* ahead: sleep until the batch after this one is due */
				const uint64_t wake = t0 + (uint64_t)((double)(st.seq + BATCH / 2) * 1e9 / rate);

				zcs_sleep_until_ns(wake < t_end ? wake : t_end);
				continue;
			}
		}
		for (size_t i = 0; i < BATCH; i++) {
			h.seq = st.seq + i;
			h.first_sample = h.seq * PAIRS;
			h.flags = 0;
			zcs_proto_write_sample_hdr(hdrs[i], &h);
		}
		if (mode == GEN_GSO) {
			struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 * BATCH,
					     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
			struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
			const uint16_t gs = DGRAM;

			c->cmsg_level = SOL_UDP;
			c->cmsg_type = UDP_SEGMENT;
			c->cmsg_len = CMSG_LEN(sizeof(gs));
			memcpy(CMSG_DATA(c), &gs, sizeof(gs));
			while (sendmsg(fd, &mh, 0) < 0) {
				if (errno != EINTR && errno != ENOBUFS && errno != EAGAIN)
					return -errno;
			}
		} else {
			const int ret = send_all(fd, mm, BATCH);

			if (ret < 0)
				return ret;
		}
		st.seq += BATCH;
		r->sent += BATCH;
	}
	r->gen_secs = (double)(zcs_mono_ns() - t0) / 1e9;
	/* the end of the stream: zcs-recv --exit-on-eos stops on it */
	h.seq = st.seq;
	h.first_sample = h.seq * PAIRS;
	h.flags = ZCS_FLAG_EOS;
	zcs_proto_write_sample_hdr(hdrs[0], &h);
	if (sendmsg(fd, &mm[0].msg_hdr, 0) > 0)
		r->sent++;
	getrusage(RUSAGE_SELF, &ru);
	r->gen_cpu = tv_secs(&ru.ru_utime) + tv_secs(&ru.ru_stime);
	close(fd);
	return 0;
}

/* ---- receivers (child processes on rx_cpu) ---- */

enum rx_kind { RX_BARE, RX_ZCS };

static const char *const rx_names[] = { "bare recvmmsg", "zcs-recv" };

/* Starts the receiver with its report (bare: stdout, zcs-recv: stderr) on *rfd. */
static pid_t start_rx(const struct opts *o, enum rx_kind kind, int port, int *rfd)
{
	char ps[32], listen[64];
	int p[2];
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	snprintf(ps, sizeof(ps), "%d", port);
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	pid = fork();
	if (pid == 0) {
		const int null = open("/dev/null", O_WRONLY);

		pin(o->rx_cpu);
		close(p[0]);
		if (kind == RX_BARE) {
			dup2(p[1], STDOUT_FILENO);
			execl(o->bare, o->bare, ps, "64", (char *)NULL);
		} else {
			dup2(p[1], STDERR_FILENO);
			dup2(null, STDOUT_FILENO);
			execl(o->zcs_recv, o->zcs_recv, "-F", "cs16", "-o", "file:/dev/null",
			      "--exit-on-eos", "--json", "--interval", "0", listen, (char *)NULL);
		}
		_exit(127);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	*rfd = p[0];
	return pid;
}

/* Reads what fd has into buf (appending) until `until` appears, EOF, or timeout_ms passes. */
static bool read_until(int fd, char *buf, size_t len, const char *until, int timeout_ms)
{
	const uint64_t end = zcs_mono_ns() + (uint64_t)timeout_ms * 1000000ULL;
	size_t used = strlen(buf);

	while (!until || !strstr(buf, until)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		const uint64_t now = zcs_mono_ns();
		ssize_t n;

		if (now >= end || used + 1 >= len)
			return false;
		if (poll(&pfd, 1, (int)((end - now) / 1000000) + 1) <= 0)
			continue;
		n = read(fd, buf + used, len - used - 1);
		if (n <= 0)
			return until == NULL;
		used += (size_t)n;
		buf[used] = 0;
	}
	return true;
}

static uint64_t json_u64(const char *s, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(s, k);
	return p ? strtoull(p + strlen(k), NULL, 10) : 0;
}

static uint64_t text_u64(const char *s, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "%s ", key);
	p = strstr(s, k);
	return p ? strtoull(p + strlen(k), NULL, 10) : 0;
}

/* One receiver fed at one rate: everything measured, nothing judged. */
static void run_one(const struct opts *o, enum rx_kind kind, double rate, double secs,
		    struct run *r)
{
	static int port_next;
	char out[16384] = "";
	struct rusage ru;
	int rfd = -1, status, gp[2];
	pid_t rx, gen, w;
	uint64_t deadline;
	int port;

	memset(r, 0, sizeof(*r));
	if (port_next == 0)
		port_next = o->port;
	port = port_next++;

	rx = start_rx(o, kind, port, &rfd);
	if (rx < 0)
		return;
	if (!read_until(rfd, out, sizeof(out), kind == RX_BARE ? "ready" : "listening on", 5000)) {
		fprintf(stderr, "bench_recv: %s did not start: %s\n", rx_names[kind], out);
		kill(rx, SIGKILL);
		waitpid(rx, NULL, 0);
		close(rfd);
		return;
	}
	if (pipe(gp) < 0)
		return;
	gen = fork();
	if (gen == 0) {
		struct run g = { 0 };

		close(gp[0]);
		pin(o->gen_cpu);
		if (generate(port, rate, secs, o->gen, &g) < 0)
			_exit(1);
		if (write(gp[1], &g, sizeof(g)) != (ssize_t)sizeof(g))
			_exit(1);
		_exit(0);
	}
	close(gp[1]);
	if (gen > 0) {
		struct run g;

		if (read(gp[0], &g, sizeof(g)) == (ssize_t)sizeof(g)) {
			r->sent = g.sent;
			r->gen_secs = g.gen_secs;
			r->gen_cpu = g.gen_cpu;
		}
		waitpid(gen, NULL, 0);
	}
	close(gp[0]);

	/* the receiver ends by itself (end of stream, or the bare loop's silence); a lost EOS
	 * datagram is what the SIGTERM after 3 s is for */
	deadline = zcs_mono_ns() + 3000000000ULL;
	while ((w = wait4(rx, &status, WNOHANG, &ru)) == 0) {
		char tmp[4096] = "";

		if (zcs_mono_ns() > deadline) {
			kill(rx, SIGTERM);
			deadline = UINT64_MAX;
		}
		read_until(rfd, tmp, sizeof(tmp), NULL, 20);
		if (strlen(out) + strlen(tmp) < sizeof(out))
			strcat(out, tmp);
	}
	read_until(rfd, out, sizeof(out), NULL, 200);
	close(rfd);
	if (w != rx || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || r->sent == 0) {
		fprintf(stderr, "bench_recv: %s run failed (status 0x%x): %s\n", rx_names[kind],
			status, out);
		return;
	}
	r->rx_cpu = tv_secs(&ru.ru_utime) + tv_secs(&ru.ru_stime);
	if (kind == RX_BARE) {
		r->got = text_u64(out, "datagrams");
		r->drops = text_u64(out, "drops");
	} else {
		const char *sum = strstr(out, "\"type\":\"summary\"");

		if (!sum) {
			fprintf(stderr, "bench_recv: no zcs-recv summary: %s\n", out);
			return;
		}
		r->got = json_u64(sum, "datagrams");
		r->lost = json_u64(sum, "lost");
		r->drops = json_u64(sum, "socket_drops");
	}
	r->ok = true;
}

/* ---- driver ---- */

static int parse_rate(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	if (end == s || *v < 0)
		return -1;
	if (*end == 'k' || *end == 'K')
		*v *= 1e3, end++;
	else if (*end == 'M')
		*v *= 1e6, end++;
	return *end == 0 || *end == ',' ? 0 : -1;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "steps", required_argument, NULL, 's' },
		{ "secs", required_argument, NULL, 't' },
		{ "fixed", required_argument, NULL, 'f' },
		{ "fixed-secs", required_argument, NULL, 'T' },
		{ "reps", required_argument, NULL, 'r' },
		{ "gen", required_argument, NULL, 'g' },
		{ "port", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	const char *steps = "100k,250k,500k,750k,1M,1.25M,1.5M,2M,0";
	int c;

	memset(o, 0, sizeof(*o));
	o->secs = 2;
	o->fixed_rate = 300e3;
	o->fixed_secs = 3;
	o->fixed_reps = 2;
	o->gen = GEN_GSO;
	o->port = 26000;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's': steps = optarg; break;
		case 't': o->secs = atof(optarg); break;
		case 'f': if (parse_rate(optarg, &o->fixed_rate) < 0) return -1; break;
		case 'T': o->fixed_secs = atof(optarg); break;
		case 'r': o->fixed_reps = atoi(optarg); break;
		case 'g': o->gen = strcmp(optarg, "mmsg") == 0 ? GEN_MMSG : GEN_GSO; break;
		case 'p': o->port = atoi(optarg); break;
		default: return -1;
		}
	}
	if (argc - optind != 2 || o->secs <= 0 || o->fixed_secs <= 0 || o->fixed_reps < 1 ||
	    o->port < 1024 || o->port > 65000)
		return -1;
	o->zcs_recv = argv[optind];
	o->bare = argv[optind + 1];
	for (const char *p = steps; *p && o->nsteps < MAX_STEPS; ) {
		if (parse_rate(p, &o->steps[o->nsteps++]) < 0)
			return -1;
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	/* the generator and the receiver each on a core of their own, where there are two */
	o->gen_cpu = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 0 : -1;
	o->rx_cpu = o->gen_cpu < 0 ? -1 : 1;
	return 0;
}

static double per_s(uint64_t n, double secs)
{
	return secs > 0 ? (double)n / secs : 0;
}

static void print_row(const char *step, enum rx_kind kind, const struct run *r)
{
	const int64_t missing = (int64_t)r->sent - (int64_t)r->got;

	if (!r->ok) {
		printf("| %9s | %-13s | %s |\n", step, rx_names[kind], "run failed");
		return;
	}
	printf("| %9s | %-13s | %10.0f | %10.0f | %8lld | %8llu | %8llu | %6.1f | %6.1f | %9.3f |\n",
	       step, rx_names[kind], per_s(r->sent, r->gen_secs), per_s(r->got, r->gen_secs),
	       (long long)missing, (unsigned long long)r->lost, (unsigned long long)r->drops,
	       100 * r->rx_cpu / r->gen_secs, 100 * r->gen_cpu / r->gen_secs,
	       r->got ? r->rx_cpu / ((double)r->got / 1e6) : 0);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static struct run res[MAX_STEPS][2];
	double cap[2] = { 0, 0 }, cpu[2] = { 0, 0 };
	uint64_t got[2] = { 0, 0 };
	struct opts o;
	double load[3] = { 0 };

	/* "bench_recv gen PORT RATE SECS [mmsg]": the generator alone, e.g. to profile a receiver */
	if (argc >= 5 && strcmp(argv[1], "gen") == 0) {
		struct run g = { 0 };
		double rate;

		if (parse_rate(argv[3], &rate) < 0 ||
		    generate(atoi(argv[2]), rate, atof(argv[4]),
			     argc > 5 && strcmp(argv[5], "mmsg") == 0 ? GEN_MMSG : GEN_GSO, &g) < 0) {
			perror("bench_recv gen");
			return 1;
		}
		printf("sent %llu in %.3f s (%.0f/s), CPU %.3f s\n", (unsigned long long)g.sent,
		       g.gen_secs, per_s(g.sent, g.gen_secs), g.gen_cpu);
		return 0;
	}
	if (parse_opts(argc, argv, &o) < 0) {
		fprintf(stderr, "usage: bench_recv [--steps R,R,..] [--secs S] [--fixed R] "
			"[--fixed-secs S] [--reps N] [--gen gso|mmsg] [--port P] ZCS_RECV BARE\n"
			"rates in datagrams/s (k, M suffixes); 0 = as fast as the generator goes\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	pin(o.gen_cpu);
	getloadavg(load, 3);
	printf("Receiver capacity: p12 datagrams of %d bytes (%d pairs) over loopback, generator "
	       "(%s) on CPU%d, receiver on CPU%d,\n%.1f s a step; zcs-recv -F cs16 -o file:/dev/null; "
	       "load average before: %.2f\n\n", DGRAM, PAIRS,
	       o.gen == GEN_GSO ? "UDP GSO trains of 44" : "sendmmsg of 44", o.gen_cpu, o.rx_cpu,
	       o.secs, load[0]);
	printf("| offered   | receiver      |   sent/s   |   recv/s   | missing  | zcs lost | sockdrop | rx CPU%% | genCPU%% | rx CPU s/M |\n");
	printf("|-----------|---------------|------------|------------|----------|----------|----------|--------|--------|------------|\n");
	for (size_t i = 0; i < o.nsteps; i++) {
		char step[32];

		if (o.steps[i] > 0)
			snprintf(step, sizeof(step), "%.0fk", o.steps[i] / 1e3);
		else
			snprintf(step, sizeof(step), "max");
		for (int k = 0; k < 2; k++) {
			struct run *r = &res[i][k];

			run_one(&o, (enum rx_kind)k, o.steps[i], o.secs, r);
			print_row(step, (enum rx_kind)k, r);
			/* capacity: the highest rate received whole (a step's real offered rate) */
			if (r->ok && r->got == r->sent && per_s(r->got, r->gen_secs) > cap[k])
				cap[k] = per_s(r->got, r->gen_secs);
		}
	}
	printf("\nCapacity (highest rate with no datagram missing): bare %.0f/s, zcs-recv %.0f/s, "
	       "ratio %.2f\n", cap[0], cap[1], cap[0] > 0 ? cap[1] / cap[0] : 0);

	printf("\nCPU cost at a fixed %.0f datagrams/s, %.1f s x %d runs each, alternating:\n\n",
	       o.fixed_rate, o.fixed_secs, o.fixed_reps);
	printf("| offered   | receiver      |   sent/s   |   recv/s   | missing  | zcs lost | sockdrop | rx CPU%% | genCPU%% | rx CPU s/M |\n");
	printf("|-----------|---------------|------------|------------|----------|----------|----------|--------|--------|------------|\n");
	for (int rep = 0; rep < o.fixed_reps; rep++) {
		for (int k = 0; k < 2; k++) {
			struct run r;
			char step[32];

			snprintf(step, sizeof(step), "%.0fk", o.fixed_rate / 1e3);
			run_one(&o, (enum rx_kind)k, o.fixed_rate, o.fixed_secs, &r);
			print_row(step, (enum rx_kind)k, &r);
			if (r.ok) {
				cpu[k] += r.rx_cpu;
				got[k] += r.got;
			}
		}
	}
	if (got[0] && got[1]) {
		const double a = cpu[0] / ((double)got[0] / 1e6), b = cpu[1] / ((double)got[1] / 1e6);

		printf("\nReceiver CPU seconds per million datagrams: bare %.3f, zcs-recv %.3f; "
		       "zcs-recv costs %.2fx the bare loop (a single core: bare %.2f M/s, zcs-recv %.2f M/s)\n",
		       a, b, b / a, 1 / a, 1 / b);
	}
	getloadavg(load, 3);
	printf("load average after: %.2f\n", load[0]);
	return 0;
}
