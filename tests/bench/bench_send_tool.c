// SPDX-License-Identifier: MIT
/* Helpers for bench_send.sh: the baselines zcs-send is measured against (a TCP loop that converts
 * a block and send()s it, as the seed's zc-stream does; one sendto per datagram; the conversion
 * alone), a TCP sink, a wrapper that reports a command's CPU time, and a reading of a running
 * process's CPU time. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "formats.h"
#include "proto.h"
#include "synth.h"

/* 64 Ki pairs a block: 192 KB of p12, one send() each. */
#define BLOCK_PAIRS 65536

/* zcs-send's default tone: rate/10 at 1 MS/s, amplitude 0.5, seed 1. */
#define TONE_HZ 100000
#define TONE_RATE 1000000

/* One period of the tone and a block of wrap-around, so any block is contiguous. */
static int16_t radio[2 * (ZCS_SYNTH_PERIOD_MAX + BLOCK_PAIRS)];
static uint8_t wire[3 * BLOCK_PAIRS + 65536];

static int addr4(struct sockaddr_in *a, const char *host, const char *port)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)atoi(port));
	return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -1;
}

/* The samples, supplied as zcs-send's tone source supplies them (so the source's cost is the
 * same on both sides of the comparison): one period computed once, then pointers into it, at no
 * cost per sample, as the radio's DMA delivers them on the board. */
struct supply {
	uint32_t period;
	uint64_t n; /* next sample */
};

static void supply_init(struct supply *u)
{
	struct zcs_synth s;

	zcs_synth_init(&s, true, false, TONE_HZ, TONE_RATE, 0.5, 1);
	u->period = zcs_synth_period(&s);
	u->n = 0;
	zcs_synth_fill(&s, 0, u->period + BLOCK_PAIRS, radio);
}

/* The radio's next BLOCK_PAIRS pairs. */
static const int16_t *next_block(struct supply *u)
{
	const int16_t *const b = radio + 2 * (size_t)(u->n % u->period);

	u->n += BLOCK_PAIRS;
	return b;
}

static int tcp_loop(const char *host, const char *port, uint64_t bytes)
{
	struct zcs_kernels k;
	struct supply u;
	struct sockaddr_in a;
	uint64_t sent = 0;
	const int fd = socket(AF_INET, SOCK_STREAM, 0);

	zcs_kernels_init(&k, ZCS_ISA_BEST);
	supply_init(&u);
	if (fd < 0 || addr4(&a, host, port) < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("tcp connect");
		return 1;
	}
	while (sent < bytes) {
		size_t off = 0;

		k.pack[ZCS_WIRE_P12](wire, next_block(&u), BLOCK_PAIRS);
		while (off < 3 * BLOCK_PAIRS) {
			const ssize_t n = send(fd, wire + off, 3 * BLOCK_PAIRS - off, 0);

			if (n < 0) {
				perror("send");
				return 1;
			}
			off += (size_t)n;
		}
		sent += 3 * BLOCK_PAIRS;
	}
	close(fd);
	return 0;
}

/* One sendto per datagram: header and 480 p12 pairs (1472 bytes, MTU 1500). */
static int sendto_loop(const char *host, const char *port, uint64_t bytes)
{
	const size_t spd = zcs_proto_max_samples(ZCS_WIRE_P12, zcs_proto_udp_payload(1500, false));
	struct zcs_kernels k;
	struct supply u;
	struct sockaddr_in a;
	uint64_t sent = 0, seq = 0, sample = 0;
	const int fd = socket(AF_INET, SOCK_DGRAM, 0);

	zcs_kernels_init(&k, ZCS_ISA_BEST);
	supply_init(&u);
	if (fd < 0 || addr4(&a, host, port) < 0) {
		perror("udp socket");
		return 1;
	}
	while (sent < bytes) {
		const int16_t *const blk = next_block(&u);

		for (size_t off = 0; off + spd <= BLOCK_PAIRS; off += spd) {
			const struct zcs_sample_hdr h = { .stream_id = 1, .seq = seq++,
				.first_sample = sample, .samples = (uint16_t)spd,
				.payload_len = (uint16_t)(3 * spd), .format = ZCS_WIRE_P12 };

			zcs_proto_write_sample_hdr(wire, &h);
			k.pack[ZCS_WIRE_P12](wire + ZCS_PROTO_SAMPLE_HDR_SIZE, blk + 2 * off, spd);
			if (sendto(fd, wire, ZCS_PROTO_SAMPLE_HDR_SIZE + 3 * spd, 0,
				   (struct sockaddr *)&a, sizeof(a)) < 0 && errno != ECONNREFUSED) {
				perror("sendto");
				return 1;
			}
			sample += spd;
			sent += 3 * spd;
		}
	}
	close(fd);
	return 0;
}

/* The conversion alone (supply, pack), to tell the send paths' own cost from the source's. */
static int convert_only(uint64_t bytes)
{
	struct zcs_kernels k;
	struct supply u;
	uint64_t done = 0, sum = 0;

	zcs_kernels_init(&k, ZCS_ISA_BEST);
	supply_init(&u);
	for (; done < bytes; done += 3 * BLOCK_PAIRS) {
		k.pack[ZCS_WIRE_P12](wire, next_block(&u), BLOCK_PAIRS);
		sum += wire[done % (3 * BLOCK_PAIRS)];
	}
	return sum == 1 ? 3 : 0; /* keeps the work from being optimised away */
}

/* The sample supply alone, not packed (one period computed at start, then pointers): the radio's
 * DMA gives the board its samples for free, and so does the supply every row shares, so this row
 * is ~0 and "convert" less this is the p12 packing's own cost. */
static int generate_only(uint64_t bytes)
{
	struct supply u;
	uint64_t done = 0, sum = 0;

	supply_init(&u);
	for (; done < bytes; done += 3 * BLOCK_PAIRS)
		sum += (uint16_t)next_block(&u)[done % (2 * BLOCK_PAIRS)];
	return sum == 1 ? 3 : 0; /* keeps the work from being optimised away */
}

/* Receives until SIGTERM or idle_s seconds without data; prints the bytes. */
static int sink(const char *proto, const char *host, const char *port)
{
	const bool tcp = strcmp(proto, "tcp") == 0;
	const int big = 32 << 20, one = 1;
	struct sockaddr_in a;
	uint64_t total = 0;
	int fd = socket(AF_INET, tcp ? SOCK_STREAM : SOCK_DGRAM, 0), c = -1;
	sigset_t term;

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
	if (fd < 0 || addr4(&a, host, port) < 0)
		return 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || (tcp && listen(fd, 4) < 0)) {
		perror("sink bind");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		struct pollfd p = { .fd = c >= 0 ? c : fd, .events = POLLIN };
		struct timespec zero = { 0, 0 };
		ssize_t n;

		if (sigtimedwait(&term, NULL, &zero) == SIGTERM)
			break;
		if (poll(&p, 1, 200) <= 0)
			continue;
		if (tcp && c < 0) {
			c = accept(fd, NULL, NULL);
			continue;
		}
		n = recv(p.fd, wire, sizeof(wire), 0);
		if (n == 0 && tcp) {
			close(c);
			c = -1;
			continue;
		}
		if (n > 0)
			total += (uint64_t)n;
	}
	printf("received %llu\n", (unsigned long long)total);
	return 0;
}

/* Runs argv, prints its CPU seconds (user + system, all threads; to the microsecond the rusage
 * keeps) and wall seconds, then the user part alone and its voluntary and involuntary context
 * switches (all threads:
 * how often it slept and woke, which a server's per-sample cost follows). */
static int cpu(char **argv)
{
	const uint64_t t0 = zcs_mono_ns();
	struct rusage ru;
	int status;
	const pid_t pid = fork();

	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0)
		return 1;
	printf("cpu_s=%.6f wall_s=%.4f status=%d user_s=%.6f vcsw=%ld ivcsw=%ld\n",
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6,
	       (double)(zcs_mono_ns() - t0) / 1e9, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6, ru.ru_nvcsw, ru.ru_nivcsw);
	return 0;
}

/* Prints the CPU time of a running process PID, every thread it ever had (the kernel's CPU clock
 * of the process: threads that exited are in it, unlike /proc/PID/task/(*)/schedstat), in ns. */
static int process_cpu(const char *pid)
{
	struct timespec ts;
	clockid_t id;
	const int e = clock_getcpuclockid((pid_t)atoi(pid), &id);

	if (e != 0) {
		fprintf(stderr, "bench_send_tool pcpu %s: %s\n", pid, strerror(e));
		return 1;
	}
	if (clock_gettime(id, &ts) < 0) {
		fprintf(stderr, "bench_send_tool pcpu %s: %s\n", pid, strerror(errno));
		return 1;
	}
	printf("%llu\n", (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && strcmp(argv[1], "tcp") == 0)
		return tcp_loop(argv[2], argv[3], strtoull(argv[4], NULL, 10));
	if (argc >= 5 && strcmp(argv[1], "sendto") == 0)
		return sendto_loop(argv[2], argv[3], strtoull(argv[4], NULL, 10));
	if (argc >= 3 && strcmp(argv[1], "convert") == 0)
		return convert_only(strtoull(argv[2], NULL, 10));
	if (argc >= 3 && strcmp(argv[1], "generate") == 0)
		return generate_only(strtoull(argv[2], NULL, 10));
	if (argc >= 5 && strcmp(argv[1], "sink") == 0)
		return sink(argv[2], argv[3], argv[4]);
	if (argc >= 3 && strcmp(argv[1], "cpu") == 0)
		return cpu(argv + 2);
	if (argc == 3 && strcmp(argv[1], "pcpu") == 0)
		return process_cpu(argv[2]);
	fputs("usage: bench_send_tool tcp|sendto HOST PORT BYTES | sink udp|tcp HOST PORT | convert|generate BYTES | cpu CMD... | pcpu PID\n",
	      stderr);
	return 2;
}
