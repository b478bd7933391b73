// SPDX-License-Identifier: MIT
/* Helpers for bench_send.sh: the baselines zcs-send is measured against (a TCP loop that converts
 * a block and send()s it, as the seed's zc-stream does; one sendto per datagram), sinks for UDP
 * and TCP, and a wrapper that reports a command's CPU time. */
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

static int16_t radio[2 * BLOCK_PAIRS];
static uint8_t wire[3 * BLOCK_PAIRS + 65536];

static int addr4(struct sockaddr_in *a, const char *host, const char *port)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)atoi(port));
	return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -1;
}

/* The radio's next block, generated as zcs-send's tone source does (the source's cost is then
 * the same on both sides of the comparison). */
static void next_block(const struct zcs_synth *s, uint32_t *phase)
{
	for (size_t j = 0; j < BLOCK_PAIRS; j++, *phase += s->step) {
		const uint32_t k = *phase >> 20;

		radio[2 * j] = s->cos_tab[k];
		radio[2 * j + 1] = s->cos_tab[(k - 1024) & 4095];
	}
}

static int tcp_loop(const char *host, const char *port, uint64_t bytes)
{
	struct zcs_kernels k;
	struct zcs_synth s;
	struct sockaddr_in a;
	uint32_t phase = 0;
	uint64_t sent = 0;
	const int fd = socket(AF_INET, SOCK_STREAM, 0);

	zcs_kernels_init(&k, ZCS_ISA_BEST);
	zcs_synth_init(&s, true, false, 100000, 1000000, 0.5, 1);
	if (fd < 0 || addr4(&a, host, port) < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("tcp connect");
		return 1;
	}
	while (sent < bytes) {
		size_t off = 0;

		next_block(&s, &phase);
		k.pack[ZCS_WIRE_P12](wire, radio, BLOCK_PAIRS);
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
	struct zcs_synth s;
	struct sockaddr_in a;
	uint32_t phase = 0;
	uint64_t sent = 0, seq = 0, sample = 0;
	const int fd = socket(AF_INET, SOCK_DGRAM, 0);

	zcs_kernels_init(&k, ZCS_ISA_BEST);
	zcs_synth_init(&s, true, false, 100000, 1000000, 0.5, 1);
	if (fd < 0 || addr4(&a, host, port) < 0) {
		perror("udp socket");
		return 1;
	}
	while (sent < bytes) {
		next_block(&s, &phase);
		for (size_t off = 0; off + spd <= BLOCK_PAIRS; off += spd) {
			const struct zcs_sample_hdr h = { .stream_id = 1, .seq = seq++,
				.first_sample = sample, .samples = (uint16_t)spd,
				.payload_len = (uint16_t)(3 * spd), .format = ZCS_WIRE_P12 };

			zcs_proto_write_sample_hdr(wire, &h);
			k.pack[ZCS_WIRE_P12](wire + ZCS_PROTO_SAMPLE_HDR_SIZE, radio + 2 * off, spd);
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

/* The conversion alone (generate, pack), to tell the send paths' own cost from the source's. */
static int convert_only(uint64_t bytes)
{
	struct zcs_kernels k;
	struct zcs_synth s;
	uint32_t phase = 0;
	uint64_t done = 0, sum = 0;

	zcs_kernels_init(&k, ZCS_ISA_BEST);
	zcs_synth_init(&s, true, false, 100000, 1000000, 0.5, 1);
	for (; done < bytes; done += 3 * BLOCK_PAIRS) {
		next_block(&s, &phase);
		k.pack[ZCS_WIRE_P12](wire, radio, BLOCK_PAIRS);
		sum += wire[done % (3 * BLOCK_PAIRS)];
	}
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

/* Runs argv, prints its CPU seconds (user + system, all threads) and wall seconds. */
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
	printf("cpu_s=%.4f wall_s=%.4f status=%d\n",
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6,
	       (double)(zcs_mono_ns() - t0) / 1e9, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
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
	if (argc >= 5 && strcmp(argv[1], "sink") == 0)
		return sink(argv[2], argv[3], argv[4]);
	if (argc >= 3 && strcmp(argv[1], "cpu") == 0)
		return cpu(argv + 2);
	fputs("usage: bench_send_tool tcp|sendto HOST PORT BYTES | sink udp|tcp HOST PORT | convert BYTES | cpu CMD...\n",
	      stderr);
	return 2;
}
