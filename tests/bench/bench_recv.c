// SPDX-License-Identifier: MIT
/* Receiver capacity (docs/measurements.md, "Receiver capacity"): zcs-recv (p12 -> cs16 into
 * file:/dev/null) against a bare recvmmsg loop (bench_recv_bare), fed over loopback by a paced
 * generator pinned to CPU0 while the receiver is pinned to CPU1.  Prints tables; never fails on
 * a figure, only when a run cannot be made at all. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_recv.h"
#include "clock.h"


#define MAX_STEPS 32

/* A receiver under test: the bare loop (perhaps with UDP_GRO) or a zcs-recv binary. */
struct rxspec {
	const char *name;
	bool zcs;
	const char *path;
	const char *extra;         /* bare loop's third argument ("gro"), or zcs-recv's extra option */
};
#define MAX_RX 5

struct opts {
	struct rxspec rx[MAX_RX];
	size_t nrx;
	int nice;                  /* niceness of receiver and generator (other jobs share the CPUs) */
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

/* ---- receivers (child processes on rx_cpu) ---- */

/* Starts the receiver with its report (bare: stdout, zcs-recv: stderr) on *rfd. */
static pid_t start_rx(const struct opts *o, const struct rxspec *x, int port, int *rfd)
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
		if (o->nice)
			setpriority(PRIO_PROCESS, 0, o->nice);
		close(p[0]);
		if (!x->zcs) {
			dup2(p[1], STDOUT_FILENO);
			execl(x->path, x->path, ps, "64", x->extra, (char *)NULL);
		} else {
			dup2(p[1], STDERR_FILENO);
			dup2(null, STDOUT_FILENO);
			const char *argv[16] = { x->path, "-F", "cs16", "-o", "file:/dev/null",
						 "--exit-on-eos", "--json", "--interval", "0" };
			size_t n = 9;

			if (x->extra)
				argv[n++] = x->extra;
			argv[n++] = listen;
			execv(x->path, (char *const *)argv);
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
static void run_one(const struct opts *o, const struct rxspec *x, double rate, double secs,
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

	rx = start_rx(o, x, port, &rfd);
	if (rx < 0)
		return;
	if (!read_until(rfd, out, sizeof(out), x->zcs ? "listening on" : "ready", 5000)) {
		fprintf(stderr, "bench_recv: %s did not start: %s\n", x->name, out);
		kill(rx, SIGKILL);
		waitpid(rx, NULL, 0);
		close(rfd);
		return;
	}
	if (pipe(gp) < 0)
		return;
	gen = fork();
	if (gen == 0) {
		struct gen_result g = { 0 };

		close(gp[0]);
		pin(o->gen_cpu);
		if (o->nice)
			setpriority(PRIO_PROCESS, 0, o->nice);
		if (bench_recv_generate(port, rate, secs, o->gen, &g) < 0)
			_exit(1);
		if (write(gp[1], &g, sizeof(g)) != (ssize_t)sizeof(g))
			_exit(1);
		_exit(0);
	}
	close(gp[1]);
	if (gen > 0) {
		struct gen_result g;

		if (read(gp[0], &g, sizeof(g)) == (ssize_t)sizeof(g)) {
			r->sent = g.sent;
			r->gen_secs = g.secs;
			r->gen_cpu = g.cpu;
		}
		waitpid(gen, NULL, 0);
	}
	close(gp[0]);

	/* zcs-recv ends by itself at the end of stream (a lost EOS datagram is what the SIGTERM
	 * after 3 s is for); the bare loop on SIGTERM, once it has emptied its socket.  The
	 * generator's datagrams all reached the socket when its last send returned (loopback
	 * delivers in the sender's softirq) unless ksoftirqd took over: 50 ms for that. */
	if (!x->zcs) {
		const struct timespec grace = { 0, 50 * 1000 * 1000 };

		nanosleep(&grace, NULL);
		kill(rx, SIGTERM);
	}
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
		fprintf(stderr, "bench_recv: %s run failed (status 0x%x): %s\n", x->name,
			status, out);
		return;
	}
	r->rx_cpu = tv_secs(&ru.ru_utime) + tv_secs(&ru.ru_stime);
	if (!x->zcs) {
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
		{ "nice", required_argument, NULL, 'n' },
		{ "also", required_argument, NULL, 'a' },
		{ "gro", required_argument, NULL, 'G' },
		{ NULL, 0, NULL, 0 },
	};
	const char *steps = "100k,250k,500k,750k,1M,1.25M,1.5M,2M,0";
	const char *also = NULL;
	bool gro_rows = true;
	int c;

	memset(o, 0, sizeof(*o));
	o->secs = 2;
	o->fixed_rate = 300e3;
	o->fixed_secs = 3;
	o->fixed_reps = 2;
	o->gen = GEN_GSO;
	o->port = 26000;
	o->nice = -10;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's': steps = optarg; break;
		case 't': o->secs = atof(optarg); break;
		case 'f': if (parse_rate(optarg, &o->fixed_rate) < 0) return -1; break;
		case 'T': o->fixed_secs = atof(optarg); break;
		case 'r': o->fixed_reps = atoi(optarg); break;
		case 'g': o->gen = strcmp(optarg, "mmsg") == 0 ? GEN_MMSG : GEN_GSO; break;
		case 'p': o->port = atoi(optarg); break;
		case 'n': o->nice = atoi(optarg); break;
		case 'a': also = optarg; break;
		case 'G': gro_rows = strcmp(optarg, "no") != 0; break;
		default: return -1;
		}
	}
	if (argc - optind != 2 || o->secs <= 0 || o->fixed_secs <= 0 || o->fixed_reps < 1 ||
	    o->port < 1024 || o->port > 65000 || o->fixed_rate <= 0)
		return -1;
	/* like with like: the plain receive path of both, then both with UDP_GRO */
	o->rx[o->nrx++] = (struct rxspec){ "bare recvmmsg", false, argv[optind + 1], NULL };
	o->rx[o->nrx++] = (struct rxspec){ "zcs-recv no-gro", true, argv[optind], "--no-gro" };
	if (gro_rows) {
		o->rx[o->nrx++] = (struct rxspec){ "bare+UDP_GRO", false, argv[optind + 1], "gro" };
		o->rx[o->nrx++] = (struct rxspec){ "zcs-recv (GRO)", true, argv[optind], NULL };
	}
	if (also)
		o->rx[o->nrx++] = (struct rxspec){ "zcs-recv (also)", true, also, NULL };
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

static void print_head(void)
{
	printf("| offered | receiver        |  sent/s  |  recv/s  | missing  | zcs lost | sockdrop | rx CPU%% | gen CPU%% | rx CPU s/M |\n");
	printf("|---------|-----------------|----------|----------|----------|----------|----------|---------|----------|------------|\n");
}

static void print_row(const char *step, const struct rxspec *x, const struct run *r)
{
	const int64_t missing = (int64_t)r->sent - (int64_t)r->got;
	char lost[32] = "-";

	if (!r->ok) {
		printf("| %7s | %-15s | run failed |\n", step, x->name);
		return;
	}
	if (x->zcs)
		snprintf(lost, sizeof(lost), "%llu", (unsigned long long)r->lost);
	printf("| %7s | %-15s | %8.0f | %8.0f | %8lld | %8s | %8llu | %7.1f | %8.1f | %10.3f |\n",
	       step, x->name, per_s(r->sent, r->gen_secs), per_s(r->got, r->gen_secs),
	       (long long)missing, lost, (unsigned long long)r->drops,
	       100 * r->rx_cpu / r->gen_secs, 100 * r->gen_cpu / r->gen_secs,
	       r->got ? r->rx_cpu / ((double)r->got / 1e6) : 0);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static struct run res[MAX_STEPS][MAX_RX];
	double cap[MAX_RX] = { 0 }, cpu[MAX_RX] = { 0 };
	uint64_t got[MAX_RX] = { 0 };
	struct opts o;
	double load[3] = { 0 };

	/* "bench_recv gen PORT RATE SECS [mmsg]": the generator alone, e.g. to profile a receiver */
	if (argc >= 5 && strcmp(argv[1], "gen") == 0) {
		struct gen_result g = { 0 };
		double rate;

		if (parse_rate(argv[3], &rate) < 0 ||
		    bench_recv_generate(atoi(argv[2]), rate, atof(argv[4]),
			     argc > 5 && strcmp(argv[5], "mmsg") == 0 ? GEN_MMSG : GEN_GSO, &g) < 0) {
			perror("bench_recv gen");
			return 1;
		}
		printf("sent %llu in %.3f s (%.0f/s), CPU %.3f s\n", (unsigned long long)g.sent,
		       g.secs, per_s(g.sent, g.secs), g.cpu);
		return 0;
	}
	if (parse_opts(argc, argv, &o) < 0) {
		fprintf(stderr, "usage: bench_recv [--steps R,R,..] [--secs S] [--fixed R] "
			"[--fixed-secs S] [--reps N] [--gen gso|mmsg] [--port P] [--nice N] "
			"[--also ZCS_RECV2] [--gro yes|no] ZCS_RECV BARE\n"
			"       bench_recv gen PORT RATE SECS [mmsg]\n"
			"rates in datagrams/s (k, M suffixes); 0 = as fast as the generator goes\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	pin(o.gen_cpu);
	getloadavg(load, 3);
	printf("Receiver capacity: p12 datagrams of %d bytes (%d pairs) over loopback; generator "
	       "(%s) on CPU%d,\nreceiver on CPU%d, both at nice %d; %.1f s a step; "
	       "zcs-recv -F cs16 -o file:/dev/null; load average before: %.2f\n\n", DGRAM, PAIRS,
	       o.gen == GEN_GSO ? "UDP GSO trains of 44" : "sendmmsg of 44", o.gen_cpu, o.rx_cpu,
	       o.nice, o.secs, load[0]);
	print_head();
	for (size_t i = 0; i < o.nsteps; i++) {
		char step[32];

		if (o.steps[i] > 0)
			snprintf(step, sizeof(step), "%.0fk", o.steps[i] / 1e3);
		else
			snprintf(step, sizeof(step), "max");
		for (size_t k = 0; k < o.nrx; k++) {
			struct run *r = &res[i][k];

			run_one(&o, &o.rx[k], o.steps[i], o.secs, r);
			print_row(step, &o.rx[k], r);
			/* capacity: the highest rate received whole (a step's real offered rate) */
			if (r->ok && r->got == r->sent && per_s(r->got, r->gen_secs) > cap[k])
				cap[k] = per_s(r->got, r->gen_secs);
		}
	}
	printf("\nCapacity: the highest rate received with no datagram missing (x: that rate over "
	       "the bare loop's):\n");
	for (size_t k = 0; k < o.nrx; k++) {
		printf("  %-15s %8.0f/s  %.2fx bare recvmmsg", o.rx[k].name, cap[k],
		       cap[0] > 0 ? cap[k] / cap[0] : 0);
		if (o.nrx > 2 && cap[2] > 0)
			printf("  %.2fx bare+UDP_GRO", cap[k] / cap[2]);
		printf("\n");
	}
	printf("\nCPU cost at a fixed %.0f datagrams/s, %.1f s x %d runs each, alternating:\n\n",
	       o.fixed_rate, o.fixed_secs, o.fixed_reps);
	print_head();
	for (int rep = 0; rep < o.fixed_reps; rep++) {
		for (size_t k = 0; k < o.nrx; k++) {
			struct run r;
			char step[32];

			snprintf(step, sizeof(step), "%.0fk", o.fixed_rate / 1e3);
			run_one(&o, &o.rx[k], o.fixed_rate, o.fixed_secs, &r);
			print_row(step, &o.rx[k], &r);
			if (r.ok) {
				cpu[k] += r.rx_cpu;
				got[k] += r.got;
			}
		}
	}
	printf("\nReceiver CPU seconds per million datagrams (all runs above), what one core "
	       "would handle at that cost,\nand that against the bare loop (plain, and with "
	       "UDP_GRO where run):\n");
	for (size_t k = 0; k < o.nrx; k++) {
		const double a = got[k] ? cpu[k] / ((double)got[k] / 1e6) : 0;
		const double b0 = got[0] ? cpu[0] / ((double)got[0] / 1e6) : 0;
		const double b2 = o.nrx > 2 && got[2] ? cpu[2] / ((double)got[2] / 1e6) : 0;

		printf("  %-15s %.3f s/M  %.2f M/s a core  %.2fx bare recvmmsg", o.rx[k].name, a,
		       a > 0 ? 1 / a : 0, a > 0 ? b0 / a : 0);
		if (b2 > 0)
			printf("  %.2fx bare+UDP_GRO", a > 0 ? b2 / a : 0);
		printf("\n");
	}
	getloadavg(load, 3);
	printf("load average after: %.2f\n", load[0]);
	return 0;
}
