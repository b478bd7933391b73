// SPDX-License-Identifier: MIT
/* The receiver benchmark's generator (see bench_recv.h): pre-built p12 datagrams, only their
 * 32-byte headers rewritten, sent in UDP GSO trains (or sendmmsg batches) at a paced rate. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench_recv.h"
#include "clock.h"
#include "compat.h"
#include "wire.h"

#define META_EVERY_NS (250ULL * 1000 * 1000)        /* as often as zcs-send (at most 500 ms) */

static double tv_secs(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

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

		/* ECONNREFUSED: an ICMP error of an earlier datagram (a receiver gone); go on */
		if (r < 0 && (errno == EINTR || errno == ENOBUFS || errno == EAGAIN ||
			      errno == ECONNREFUSED))
			continue;
		if (r < 0)
			return -errno;
		done += (unsigned int)r;
	}
	return 0;
}

/* Pacing: whenever the count is behind rate * elapsed a batch goes out, else it sleeps until the
 * next batch is due; bursts of one batch are what the socket buffer absorbs. */
int bench_recv_generate(int port, double rate, double secs, enum gen_mode mode,
			struct gen_result *r)
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
				if (errno != EINTR && errno != ENOBUFS && errno != EAGAIN &&
				    errno != ECONNREFUSED)
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
	r->secs = (double)(zcs_mono_ns() - t0) / 1e9;
	/* the end of the stream: zcs-recv --exit-on-eos stops on it */
	h.seq = st.seq;
	h.first_sample = h.seq * PAIRS;
	h.flags = ZCS_FLAG_EOS;
	zcs_proto_write_sample_hdr(hdrs[0], &h);
	if (sendmsg(fd, &mm[0].msg_hdr, 0) > 0)
		r->sent++;
	getrusage(RUSAGE_SELF, &ru);
	r->cpu = tv_secs(&ru.ru_utime) + tv_secs(&ru.ru_stime);
	close(fd);
	return 0;
}
