// SPDX-License-Identifier: MIT
/* The receive socket and its batches (see rx.h): recvmmsg into a pool of buffers, or of UDP_GRO
 * trains split by their segment size; the SO_RXQ_OVFL drop counter from each datagram's control
 * data; and samples handed on to the outputs' writers in bursts with a bounded delay. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "codec.h"
#include "compat.h"
#include "rx.h"

/* Batches handled per zcs_rx_step before returning to the caller's loop. */
#define BATCHES_PER_STEP 16
/* A GRO train is at most one 64 KB UDP datagram's worth (the kernel's limit). */
#define GRO_TRAIN_BYTES 65536

static void prepare(struct zcs_rx *rx, size_t i);

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
	/* SO_RXQ_OVFL's uint32_t, and UDP_GRO's int segment size */
	rx->ctrl_len = CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(int));
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
		rx->bufs[i].data = rx->bufs[i].own = rx->mem + i * rx->opt.max_dgram;

	/* no zstd in this build: compressed datagrams are then counted as undecodable */
	if (zcs_codec_create(&rx->codec, 1) < 0)
		rx->codec = NULL;

	zcs_gapfill_init(&rx->gf, out, k, opt->type, opt->gap_drop, opt->count);
	/* blocks go to the writers in bursts (hand_on), not one wake-up each */
	zcs_outputs_defer_wakes(out, true);

	ret = zcs_net_udp_receiver(&addr, &nopt, err, errlen);
	if (ret < 0)
		goto out;
	rx->fd = ret;

	/* UDP_GRO (Linux 5.0): the kernel hands over runs of a flow's datagrams as one train, so
	 * the per-datagram cost of the receive path is paid once per train.  Refused: plain. */
	if (!opt->no_gro) {
		const int one = 1;

		rx->gro_mem = malloc(rx->opt.batch * GRO_TRAIN_BYTES);
		rx->gro = rx->gro_mem && setsockopt(rx->fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) == 0;
	}
	/* plain: the first `batch` buffers sit in the batch slots, the rest are free; GRO: all are
	 * free but one, gro_buf, through which segments are handled */
	for (size_t i = 0; i < rx->nbufs; i++) {
		if (i < rx->opt.batch && !rx->gro)
			rx->slot_buf[i] = (uint32_t)i;
		else
			rx->free_list[rx->nfree++] = (uint32_t)i;
	}
	if (rx->gro)
		rx->gro_buf = rx->free_list[--rx->nfree];
	for (size_t i = 0; i < rx->opt.batch; i++)
		prepare(rx, i);
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
	free(rx->gro_mem);
	rx->mem = rx->scratch = rx->ctrl = rx->gro_mem = NULL;
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

bool zcs_rx_gro(const struct zcs_rx *rx)
{
	return rx->gro;
}

/* The kernel's count of datagrams this socket dropped, carried on every datagram read, and a
 * GRO train's segment size (0: a single datagram). */
static size_t read_cmsgs(struct zcs_rx *rx, const struct msghdr *mh)
{
	size_t gso = 0;

	for (const struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR((struct msghdr *)mh, (struct cmsghdr *)c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL &&
		    c->cmsg_len >= CMSG_LEN(sizeof(uint32_t))) {
			uint32_t v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			/* a cumulative 32-bit count: take it as the total so far */
			rx->st.socket_drops = v;
		} else if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO &&
			   c->cmsg_len >= CMSG_LEN(sizeof(int))) {
			int v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			gso = v > 0 ? (size_t)v : 0;
		}
	}
	return gso;
}

/* The datagrams of one GRO train (or one datagram, gso 0) read into slot i. */
static void gro_train(struct zcs_rx *rx, size_t i, size_t len, size_t gso)
{
	const struct sockaddr *from = (const struct sockaddr *)&rx->names[i];
	uint8_t *const train = rx->gro_mem + i * GRO_TRAIN_BYTES;
	const size_t seg = gso ? gso : len;

	for (size_t off = 0; off < len && !rx->done; off += seg) {
		const size_t n = len - off < seg ? len - off : seg;
		struct zcs_rx_buf *b = &rx->bufs[rx->gro_buf];

		rx->st.datagrams++;
		/* as the plain path counts: what a max_dgram buffer would have held */
		rx->st.bytes += n < rx->opt.max_dgram ? n : rx->opt.max_dgram;
		if (n > rx->opt.max_dgram) {
			rx->st.invalid++;
			rx->st.invalid_by[ZCS_RX_OVERSIZE]++;
			continue;
		}
		b->data = train + off;
		if (!zcs_rx_datagram(rx, rx->gro_buf, n, from))
			continue;
		/* the window keeps it: into the buffer's own memory (the train is reused next
		 * batch), unless decompression already put the samples there */
		if (b->payload != b->own + ZCS_PROTO_SAMPLE_HDR_SIZE) {
			memcpy(b->own + ZCS_PROTO_SAMPLE_HDR_SIZE, b->payload, zcs_proto_sample_bytes(&b->hdr));
			b->payload = b->own + ZCS_PROTO_SAMPLE_HDR_SIZE;
		}
		b->data = b->own;
		rx->gro_buf = rx->free_list[--rx->nfree];
	}
}

/* Sets batch slot i up for the next recvmmsg (the kernel rewrote its lengths and flags). */
static void prepare(struct zcs_rx *rx, size_t i)
{
	struct msghdr *mh = &rx->msgs[i].msg_hdr;

	if (rx->gro) {
		rx->iov[i].iov_base = rx->gro_mem + i * GRO_TRAIN_BYTES;
		rx->iov[i].iov_len = GRO_TRAIN_BYTES;
	} else {
		rx->iov[i].iov_base = rx->bufs[rx->slot_buf[i]].data;
		rx->iov[i].iov_len = rx->opt.max_dgram;
	}
	mh->msg_iov = &rx->iov[i];
	mh->msg_iovlen = 1;
	mh->msg_name = &rx->names[i];
	mh->msg_namelen = sizeof(rx->names[i]);
	mh->msg_control = rx->ctrl + i * rx->ctrl_len;
	mh->msg_controllen = rx->ctrl_len;
	mh->msg_flags = 0;
}

/* One recvmmsg and its datagrams.  Returns the datagrams read, 0 when none was ready, or -errno. */
static int one_batch(struct zcs_rx *rx)
{
	/* before the call: a short batch means the socket ran dry after this time */
	const uint64_t before = zcs_mono_ns();
	int n;

	n = recvmmsg(rx->fd, rx->msgs, (unsigned int)rx->opt.batch, MSG_DONTWAIT, NULL);
	if (n < 0) {
		if (errno == EINTR)
			return 0;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			rx->dry_ns = before;
			return 0;
		}
		return -errno;
	}
	if ((size_t)n < rx->opt.batch)
		rx->dry_ns = before;
	rx->now_ns = zcs_mono_ns();
	rx->out_wall_ns = zcs_wall_ns();
	for (int i = 0; i < n && !rx->done; i++) {
		const struct msghdr *mh = &rx->msgs[i].msg_hdr;
		const uint32_t b = rx->slot_buf[i];
		const size_t len = rx->msgs[i].msg_len;
		const size_t gso = read_cmsgs(rx, mh);

		if (rx->gro) {
			gro_train(rx, (size_t)i, len, gso);
			continue;
		}
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
	/* only the slots the kernel filled need setting up again */
	for (int i = 0; i < n; i++)
		prepare(rx, (size_t)i);
	return n;
}

/* Hands samples on to the writers once they have waited ZCS_RX_HANDON_NS or fill enough blocks
 * to be worth a wake-up (see ZCS_RX_HANDON_NS). */
static void hand_on(struct zcs_rx *rx)
{
	const size_t pending = zcs_outputs_pending(rx->out);

	if (!pending) {
		rx->handon_since = 0;
		return;
	}
	if (!rx->handon_since)
		rx->handon_since = rx->now_ns;
	if (pending >= ZCS_RX_HANDON_BLOCKS || rx->now_ns - rx->handon_since >= ZCS_RX_HANDON_NS) {
		zcs_outputs_flush(rx->out);
		rx->handon_since = 0;
	}
}

int zcs_rx_step(struct zcs_rx *rx, int timeout_ms)
{
	struct pollfd pfd = { .fd = rx->fd, .events = POLLIN };
	struct timespec ts;
	int ret;

	if (rx->done)
		return 1;
	ts.tv_sec = timeout_ms / 1000;
	ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
	if (rx->handon_since) {
		/* samples are waiting to be handed on: wake up for them at the latest */
		const uint64_t due = rx->handon_since + ZCS_RX_HANDON_NS, now = zcs_mono_ns();
		const uint64_t left = due > now ? due - now : 0;

		if (timeout_ms < 0 || left < (uint64_t)timeout_ms * 1000000ULL) {
			ts.tv_sec = (time_t)(left / ZCS_NS_PER_SEC);
			ts.tv_nsec = (long)(left % ZCS_NS_PER_SEC);
		}
	}
	ret = ppoll(&pfd, 1, timeout_ms < 0 && !rx->handon_since ? NULL : &ts, NULL);
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	rx->now_ns = zcs_mono_ns();
	if (ret == 0) {
		/* nothing came in time, but the process may have been descheduled since: look again
		 * after taking the time, so the silence measured is one the socket really had */
		ret = poll(&pfd, 1, 0);
		if (ret < 0)
			return errno == EINTR ? 0 : -errno;
	}
	if (ret == 0) {
		rx->dry_ns = rx->now_ns;
		zcs_rx_idle(rx);
		hand_on(rx);
		return rx->done ? 1 : 0;
	}
	for (int i = 0; i < BATCHES_PER_STEP && !rx->done; i++) {
		ret = one_batch(rx);
		if (ret < 0)
			return ret;
		/* the socket ran dry: what was received waits at most ZCS_RX_HANDON_NS (hand_on) */
		if ((size_t)ret < rx->opt.batch)
			break;
	}
	zcs_rx_idle(rx);
	zcs_rx_update_age(rx);
	hand_on(rx);
	return rx->done ? 1 : 0;
}
