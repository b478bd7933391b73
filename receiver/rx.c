// SPDX-License-Identifier: MIT
/* The receive socket and its batches (see rx.h): recvmmsg into a pool of buffers, the
 * SO_RXQ_OVFL drop counter from each datagram's control data, and a partial block flushed to the
 * outputs whenever the socket runs dry so latency stays low at low rates. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "codec.h"
#include "compat.h"
#include "rx.h"

/* Batches handled per zcs_rx_step before returning to the caller's loop. */
#define BATCHES_PER_STEP 16

static int fail(char *err, size_t errlen, int ret, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return ret;
}

int zcs_rx_open(struct zcs_rx *rx, const struct zcs_rx_opts *opt, struct zcs_outputs *out,
		const struct zcs_kernels *k, char *err, size_t errlen)
{
	struct zcs_net_rx_opts nopt = { 0 };
	struct zcs_addr addr;
	size_t capacity;
	int ret;

	memset(rx, 0, sizeof(*rx));
	rx->fd = -1;
	rx->opt = *opt;
	rx->out = out;
	rx->k = k;
	if (rx->opt.max_dgram == 0)
		rx->opt.max_dgram = ZCS_RX_DEFAULT_MAX_DGRAM;
	if (rx->opt.batch == 0)
		rx->opt.batch = ZCS_RX_DEFAULT_BATCH;
	if (rx->opt.max_dgram < ZCS_PROTO_META_SIZE || rx->opt.max_dgram > 65536)
		return fail(err, errlen, -EINVAL, "datagram size out of range");

	ret = zcs_net_parse_addr(&addr, opt->listen ? opt->listen : "", ZCS_DEFAULT_PORT, err, errlen);
	if (ret < 0)
		return ret;
	if (opt->source) {
		ret = zcs_net_parse_addr(&rx->source, opt->source, 0, err, errlen);
		if (ret < 0)
			return ret;
		nopt.source = &rx->source;
	}
	nopt.iface = opt->iface;
	nopt.rcvbuf = opt->rcvbuf;
	nopt.rxq_ovfl = true;

	/* the window's capacity is fixed now; the window in use is sized per stream */
	capacity = opt->window > ZCS_RX_MAX_WINDOW ? opt->window : ZCS_RX_MAX_WINDOW;
	ret = zcs_reorder_init(&rx->ro, capacity, 0);
	if (ret < 0)
		return fail(err, errlen, ret, "reorder window: bad size or out of memory");
	capacity = rx->ro.capacity;

	rx->nbufs = capacity + rx->opt.batch;
	rx->ctrl_len = CMSG_SPACE(sizeof(uint32_t));
	rx->mem = malloc(rx->nbufs * rx->opt.max_dgram);
	rx->bufs = calloc(rx->nbufs, sizeof(*rx->bufs));
	rx->free_list = calloc(rx->nbufs, sizeof(*rx->free_list));
	rx->msgs = calloc(rx->opt.batch, sizeof(*rx->msgs));
	rx->iov = calloc(rx->opt.batch, sizeof(*rx->iov));
	rx->names = calloc(rx->opt.batch, sizeof(*rx->names));
	rx->ctrl = calloc(rx->opt.batch, rx->ctrl_len);
	rx->slot_buf = calloc(rx->opt.batch, sizeof(*rx->slot_buf));
	rx->scratch = malloc(rx->opt.max_dgram);
	if (!rx->mem || !rx->bufs || !rx->free_list || !rx->msgs || !rx->iov || !rx->names ||
	    !rx->ctrl || !rx->slot_buf || !rx->scratch) {
		ret = fail(err, errlen, -ENOMEM, "out of memory for receive buffers");
		goto out;
	}
	for (size_t i = 0; i < rx->nbufs; i++)
		rx->bufs[i].data = rx->mem + i * rx->opt.max_dgram;
	/* the first `batch` buffers sit in the batch slots, the rest are free */
	for (size_t i = 0; i < rx->opt.batch; i++)
		rx->slot_buf[i] = (uint32_t)i;
	for (size_t i = rx->opt.batch; i < rx->nbufs; i++)
		rx->free_list[rx->nfree++] = (uint32_t)i;

	/* no zstd in this build: compressed datagrams are then counted as undecodable */
	if (zcs_codec_create(&rx->codec, 1) < 0)
		rx->codec = NULL;

	zcs_gapfill_init(&rx->gf, out, k, opt->type, opt->gap_drop, opt->count);

	ret = zcs_net_udp_receiver(&addr, &nopt, err, errlen);
	if (ret < 0)
		goto out;
	rx->fd = ret;
	return 0;
out:
	zcs_rx_close(rx);
	return ret;
}

void zcs_rx_close(struct zcs_rx *rx)
{
	if (rx->fd >= 0)
		close(rx->fd);
	rx->fd = -1;
	zcs_codec_destroy(rx->codec);
	rx->codec = NULL;
	zcs_reorder_free(&rx->ro);
	free(rx->mem);
	free(rx->bufs);
	free(rx->free_list);
	free(rx->msgs);
	free(rx->iov);
	free(rx->names);
	free(rx->ctrl);
	free(rx->slot_buf);
	free(rx->scratch);
	rx->mem = rx->scratch = rx->ctrl = NULL;
	rx->bufs = NULL;
	rx->free_list = rx->slot_buf = NULL;
	rx->msgs = NULL;
	rx->iov = NULL;
	rx->names = NULL;
}

int zcs_rx_rcvbuf(const struct zcs_rx *rx)
{
	return zcs_net_rcvbuf(rx->fd);
}

/* The kernel's count of datagrams this socket dropped, carried on every datagram read. */
static void read_ovfl(struct zcs_rx *rx, const struct msghdr *mh)
{
	for (const struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR((struct msghdr *)mh, (struct cmsghdr *)c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL &&
		    c->cmsg_len >= CMSG_LEN(sizeof(uint32_t))) {
			uint32_t v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			/* a cumulative 32-bit count: take it as the total so far */
			rx->st.socket_drops = v;
		}
	}
}

static void prepare(struct zcs_rx *rx)
{
	for (size_t i = 0; i < rx->opt.batch; i++) {
		struct msghdr *mh = &rx->msgs[i].msg_hdr;

		rx->iov[i].iov_base = rx->bufs[rx->slot_buf[i]].data;
		rx->iov[i].iov_len = rx->opt.max_dgram;
		mh->msg_iov = &rx->iov[i];
		mh->msg_iovlen = 1;
		mh->msg_name = &rx->names[i];
		mh->msg_namelen = sizeof(rx->names[i]);
		mh->msg_control = rx->ctrl + i * rx->ctrl_len;
		mh->msg_controllen = rx->ctrl_len;
		mh->msg_flags = 0;
	}
}

/* One recvmmsg and its datagrams.  Returns the datagrams read, 0 when none was ready, or -errno. */
static int one_batch(struct zcs_rx *rx)
{
	int n;

	prepare(rx);
	n = recvmmsg(rx->fd, rx->msgs, (unsigned int)rx->opt.batch, MSG_DONTWAIT, NULL);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		return -errno;
	}
	rx->now_ns = zcs_mono_ns();
	rx->out_wall_ns = zcs_wall_ns();
	for (int i = 0; i < n && !rx->done; i++) {
		const struct msghdr *mh = &rx->msgs[i].msg_hdr;
		const uint32_t b = rx->slot_buf[i];
		size_t len = rx->msgs[i].msg_len;

		read_ovfl(rx, mh);
		rx->st.datagrams++;
		rx->st.bytes += len;
		if (mh->msg_flags & MSG_TRUNC) {
			rx->st.invalid++;
			rx->st.invalid_by[ZCS_RX_OVERSIZE]++;
			continue;
		}
		if (zcs_rx_datagram(rx, b, len, (const struct sockaddr *)&rx->names[i])) {
			/* the window keeps this buffer: give the slot a free one */
			rx->slot_buf[i] = rx->free_list[--rx->nfree];
		}
	}
	return n;
}

int zcs_rx_step(struct zcs_rx *rx, int timeout_ms)
{
	struct pollfd pfd = { .fd = rx->fd, .events = POLLIN };
	int ret;

	if (rx->done)
		return 1;
	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	rx->now_ns = zcs_mono_ns();
	if (ret == 0) {
		zcs_rx_idle(rx);
		return rx->done ? 1 : 0;
	}
	for (int i = 0; i < BATCHES_PER_STEP && !rx->done; i++) {
		ret = one_batch(rx);
		if (ret < 0)
			return ret;
		if ((size_t)ret < rx->opt.batch) {
			/* the socket ran dry: hand the partial block on now rather than at the next
			 * datagram, which at a low rate may be far away */
			zcs_outputs_flush(rx->out);
			break;
		}
	}
	zcs_rx_idle(rx);
	zcs_rx_update_age(rx);
	return rx->done ? 1 : 0;
}
