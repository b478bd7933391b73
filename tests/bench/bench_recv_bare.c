// SPDX-License-Identifier: MIT
/* The baseline of the receiver benchmark (bench_recv.c): a bare recvmmsg loop that only receives
 * and counts, with zcs-recv's socket settings (32 MB buffer, SO_RXQ_OVFL, batches of 64).
 * Usage: bench_recv_bare PORT [BATCH [gro]].  Prints "ready", then at the end one line
 * "datagrams N bytes N drops N calls N" on stdout.  Ends on SIGTERM once the socket is empty,
 * or after 10 s without traffic. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "compat.h"

#define MAX_BATCH 1024
#define BUF_BYTES 65536   /* room for a GRO train; 1500 would do without gro */
#define CTRL_BYTES 64

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int open_socket(int port, int gro)
{
	const int rcvbuf = 32 * 1024 * 1024, one = 1;
	const struct timeval tmo = { 0, 100 * 1000 };
	struct sockaddr_in a;
	const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo)) < 0 ||
	    (gro && setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) < 0) ||
	    bind(fd, (const struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	static struct mmsghdr msgs[MAX_BATCH];
	static struct iovec iov[MAX_BATCH];
	static uint8_t ctrl[MAX_BATCH][CTRL_BYTES];
	struct sigaction sa;
	uint64_t datagrams = 0, bytes = 0, drops = 0, calls = 0;
	const int port = argc > 1 ? atoi(argv[1]) : 0;
	const long batch = argc > 2 ? atol(argv[2]) : 64;
	const int gro = argc > 3 && strcmp(argv[3], "gro") == 0;
	uint8_t *mem;
	int fd;

	if (port <= 0 || port > 65535 || batch < 1 || batch > MAX_BATCH) {
		fprintf(stderr, "usage: bench_recv_bare PORT [BATCH(1..%d) [gro]]\n", MAX_BATCH);
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fd = open_socket(port, gro);
	mem = malloc((size_t)batch * BUF_BYTES);
	if (fd < 0 || !mem) {
		perror("bench_recv_bare");
		return 1;
	}
	for (long i = 0; i < batch; i++) {
		iov[i].iov_base = mem + (size_t)i * BUF_BYTES;
		iov[i].iov_len = BUF_BYTES;
	}
	printf("ready\n");
	fflush(stdout);

	for (int idle = 0; idle < 100;) {
		/* after SIGTERM: only what the socket already holds */
		const int flags = stop ? MSG_DONTWAIT : MSG_WAITFORONE;
		int n;

		for (long i = 0; i < batch; i++) {
			struct msghdr *mh = &msgs[i].msg_hdr;

			mh->msg_iov = &iov[i];
			mh->msg_iovlen = 1;
			mh->msg_control = ctrl[i];
			mh->msg_controllen = CTRL_BYTES;
		}
		n = recvmmsg(fd, msgs, (unsigned int)batch, flags, NULL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				if (stop)
					break;
				idle++;   /* 100 ms each */
				continue;
			}
			perror("recvmmsg");
			return 1;
		}
		idle = 0;
		calls++;
		for (int i = 0; i < n; i++) {
			struct msghdr *mh = &msgs[i].msg_hdr;
			const size_t len = msgs[i].msg_len;
			uint64_t segs = 1;

			for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
				if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
					uint32_t v;

					memcpy(&v, CMSG_DATA(c), sizeof(v));
					drops = v;
				} else if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
					int gs;

					memcpy(&gs, CMSG_DATA(c), sizeof(gs));
					if (gs > 0)
						segs = (len + (size_t)gs - 1) / (size_t)gs;
				}
			}
			datagrams += segs;
			bytes += len;
		}
	}
	printf("datagrams %llu bytes %llu drops %llu calls %llu\n", (unsigned long long)datagrams,
	       (unsigned long long)bytes, (unsigned long long)drops, (unsigned long long)calls);
	free(mem);
	close(fd);
	return 0;
}
