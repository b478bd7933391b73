// SPDX-License-Identifier: MIT
/* Output kind "udp:HOST:PORT": headerless datagrams of whole I/Q pairs, for SDR++'s Network
 * Source in UDP mode.  Each datagram fits an Ethernet frame unfragmented (1472 bytes over IPv4,
 * 1452 over IPv6, rounded down to whole pairs), so no reader ever sees half a pair. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "net.h"
#include "output_kinds.h"

#define UDP_MAX_V4 1472   /* 1500 - 20 (IPv4) - 8 (UDP) */
#define UDP_MAX_V6 1452   /* 1500 - 40 (IPv6) - 8 (UDP) */
#define UDP_BATCH 64      /* a 64 KB block is at most 45 datagrams of 1472: one sendmmsg */

struct udp_priv {
	size_t max_payload;
	struct mmsghdr msgs[UDP_BATCH];
	struct iovec iov[UDP_BATCH];
};

static int udp_open(struct zcs_out *out, const char *arg, char *err, size_t errlen)
{
	const struct zcs_net_tx_opts opt = { .ttl = 1 };
	struct udp_priv *const p = out->priv;
	struct zcs_addr a;
	int fd;

	fd = zcs_out_parse_hostport(out, arg, &a, err, errlen);
	if (fd < 0)
		return fd;
	fd = zcs_net_udp_sender(&a, &opt, err, errlen);
	if (fd < 0)
		return fd;
	p->max_payload = zcs_net_is_ipv6(&a) ? UDP_MAX_V6 : UDP_MAX_V4;
	zcs_out_attach(&out->sinks[0], fd, true);
	return 0;
}

/* Datagram size for pairs of pair_bytes: the largest multiple that fits. */
static size_t udp_dgram_bytes(size_t max_payload, size_t pair_bytes)
{
	return pair_bytes ? max_payload / pair_bytes * pair_bytes : max_payload;
}

static long udp_write(struct zcs_sink *s, const struct zcs_block *b)
{
	struct udp_priv *p = s->out->priv;
	const size_t pair = b->pairs ? b->len / b->pairs : 0;
	const size_t dgram = udp_dgram_bytes(p->max_payload, pair);
	size_t off = 0;
	int refused = 0;

	while (off < b->len) {
		unsigned n = 0;
		int sent;

		for (size_t o = off; o < b->len && n < UDP_BATCH; o += dgram, n++) {
			p->iov[n].iov_base = b->data + o;
			p->iov[n].iov_len = b->len - o < dgram ? b->len - o : dgram;
			memset(&p->msgs[n].msg_hdr, 0, sizeof(p->msgs[n].msg_hdr));
			p->msgs[n].msg_hdr.msg_iov = &p->iov[n];
			p->msgs[n].msg_hdr.msg_iovlen = 1;
		}
		sent = sendmmsg(s->fd, p->msgs, n, MSG_NOSIGNAL);
		if (sent > 0) {
			for (int i = 0; i < sent; i++)
				off += p->iov[i].iov_len;
			continue;
		}
		if (errno == EINTR)
			continue;
		/* Nobody listening yet (an ICMP port unreachable came back): UDP has no consumer to
		 * wait for, the datagrams are simply sent into the void. Retry once, then skip. */
		if (errno == ECONNREFUSED && refused++ < 2)
			continue;
		if (errno == EAGAIN || errno == ENOBUFS) {
			struct pollfd pfd = { .fd = s->fd, .events = POLLOUT };

			if (zcs_out_stopping(s->out))
				return -ECANCELED;
			poll(&pfd, 1, ZCS_OUT_TICK_MS);
			continue;
		}
		/* A UDP output never gives up: a refused or unreachable destination loses this
		 * block's rest, and the next block tries again. */
		return (long)off;
	}
	return (long)off;
}

const struct zcs_out_ops zcs_out_udp_ops = {
	.prefix = "udp:",
	.priv_size = sizeof(struct udp_priv),
	.open = udp_open,
	.write = udp_write,
};
