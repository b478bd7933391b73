// SPDX-License-Identifier: MIT
/* The receive socket and its batches (see rx.h): recvmmsg into a pool of buffers, or of UDP_GRO
 * trains split by their segment size; the SO_RXQ_OVFL drop counter from each datagram's control
 * data; and samples handed on to the outputs' writers in bursts with a bounded delay. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "codec.h"
#include "compat.h"
#include "err.h"
#include "rx_dgram.h"
#include "rx_pool.h"
#include "rx_start.h"

/* Batches handled per zcs_rx_step before returning to the caller's loop. */
#define BATCHES_PER_STEP 16
/* A GRO train is at most one 64 KB UDP datagram's worth (the kernel's limit). */
#define GRO_TRAIN_BYTES 65536

static void prepare(struct zcs_rx *rx, size_t i);

int zcs_rx_open(struct zcs_rx **rxp, const struct zcs_rx_opts *opt, struct zcs_outputs *out,
		const struct zcs_kernels *k, char *err, size_t errlen)
{
	struct zcs_net_rx_opts nopt = { 0 };
	struct zcs_addr addr;
	struct zcs_rx *rx;
	size_t capacity;
	int ret;

	*rxp = NULL;
	rx = calloc(1, sizeof(*rx));
	if (!rx)
		return zcs_err(err, errlen, -ENOMEM, "out of memory for the receiver");
	rx->fd = -1;
	rx->opt = *opt;
	rx->out = out;
	rx->k = k;
	if (rx->opt.max_dgram == 0)
		rx->opt.max_dgram = ZCS_RX_DEFAULT_MAX_DGRAM;
	if (rx->opt.batch == 0)
		rx->opt.batch = ZCS_RX_DEFAULT_BATCH;
	if (rx->opt.max_dgram < ZCS_PROTO_META_SIZE || rx->opt.max_dgram > 65536) {
		ret = zcs_err(err, errlen, -EINVAL, "datagram size out of range");
		goto out;
	}

	ret = zcs_net_parse_addr(&addr, opt->listen ? opt->listen : "", ZCS_DEFAULT_PORT, err, errlen);
	if (ret < 0)
		goto out;
	if (opt->source) {
		ret = zcs_net_parse_addr(&rx->source, opt->source, 0, err, errlen);
		if (ret < 0)
			goto out;
		nopt.source = &rx->source;
	}
	nopt.iface = opt->iface;
	nopt.rcvbuf = opt->rcvbuf;
	nopt.rxq_ovfl = true;

	_Static_assert(ZCS_RX_WINDOW_LIMIT <= ZCS_REORDER_HISTORY / 4, "window beyond the history");
	if (opt->window > ZCS_RX_WINDOW_LIMIT) {
		ret = zcs_err(err, errlen, -EINVAL, "reorder window %zu datagrams: at most %d",
			      opt->window, ZCS_RX_WINDOW_LIMIT);
		goto out;
	}
	/* the window's capacity is fixed now; the window in use is sized per stream */
	capacity = opt->window > ZCS_RX_MAX_WINDOW ? opt->window : ZCS_RX_MAX_WINDOW;
	ret = zcs_reorder_init(&rx->ro, capacity, 0);
	if (ret < 0) {
		ret = zcs_err(err, errlen, ret, "reorder window: bad size or out of memory");
		goto out;
	}
	capacity = rx->ro.capacity;

	/* + 1: a jump awaiting confirmation holds its first datagram outside the window */
	/* + ZCS_FEC_MAX_M: the datagrams one parity datagram may rebuild, placed from its batch */
	rx->nbufs = capacity + rx->opt.batch + 1 + ZCS_FEC_MAX_M;
	/* SO_RXQ_OVFL's uint32_t, and UDP_GRO's int segment size */
	rx->ctrl_len = CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(int));
	ret = zcs_rx_pool_init(rx);
	rx->slot_mem = malloc(rx->opt.batch * GRO_TRAIN_BYTES);
	rx->msgs = calloc(rx->opt.batch, sizeof(*rx->msgs));
	rx->iov = calloc(rx->opt.batch, sizeof(*rx->iov));
	rx->names = calloc(rx->opt.batch, sizeof(*rx->names));
	rx->ctrl = calloc(rx->opt.batch, rx->ctrl_len);
	/* a decompressed payload is at most the largest datagram's */
	rx->scratch = malloc(GRO_TRAIN_BYTES);
	if (ret < 0 || !rx->slot_mem || !rx->msgs || !rx->iov || !rx->names || !rx->ctrl ||
	    !rx->scratch) {
		ret = zcs_err(err, errlen, -ENOMEM, "out of memory for receive buffers");
		goto out;
	}

	/* no zstd in this build: compressed datagrams are then counted as undecodable */
	if (zcs_codec_create(&rx->codec, 1, ZCS_CODEC_DECODE) < 0)
		rx->codec = NULL;

	zcs_gapfill_init(&rx->gf, out, k, opt->type, opt->gap_drop, opt->count);
	zcs_gapfill_set_native_strict(&rx->gf, opt->type == ZCS_SAMPLE_NATIVE && !opt->native_follows);
	zcs_rx_dgram_init(rx);
	zcs_fec_rx_init(&rx->fec, rx->buf_size);
	/* a run awaiting the board's word is kept meanwhile, so it is delivered from its start;
	 * unkeyed, what comes before the stream's start is confirmed (rx_start.h) */
	if (opt->key && opt->run_check.judge &&
	    zcs_rx_hold_init(&rx->hold, opt->hold_bytes ? opt->hold_bytes : ZCS_RX_HOLD_BYTES) < 0) {
		ret = zcs_err(err, errlen, -ENOMEM, "out of memory for the liveness check's hold");
		goto out;
	}
	if (!opt->key &&
	    zcs_rx_hold_init(&rx->hold, opt->hold_bytes ? opt->hold_bytes : ZCS_RX_START_BYTES) < 0) {
		ret = zcs_err(err, errlen, -ENOMEM, "out of memory for the stream's start");
		goto out;
	}
	/* blocks go to the writers in bursts (hand_on), not one wake-up each */
	zcs_outputs_defer_wakes(out, true);

	ret = zcs_net_udp_receiver(&addr, &nopt, err, errlen);
	if (ret < 0)
		goto out;
	rx->fd = ret;
	rx->rcvbuf = zcs_net_rcvbuf(rx->fd);

	/* UDP_GRO (Linux 5.0): the kernel hands over runs of a flow's datagrams as one train, so
	 * the per-datagram cost of the receive path is paid once per train.  Refused: plain. */
	if (!opt->no_gro) {
		const int one = 1;

		rx->gro = setsockopt(rx->fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) == 0;
	}
	for (size_t i = 0; i < rx->opt.batch; i++)
		prepare(rx, i);
	*rxp = rx;
	return 0;
out:
	zcs_rx_close(rx);
	return ret;
}

void zcs_rx_close(struct zcs_rx *rx)
{
	if (!rx)
		return;
	if (rx->fd >= 0)
		close(rx->fd);
	rx->fd = -1;
	zcs_codec_destroy(rx->codec);
	rx->codec = NULL;
	zcs_reorder_free(&rx->ro);
	zcs_fec_rx_free(&rx->fec);
	zcs_rx_hold_free(&rx->hold);
	zcs_rx_pool_free(rx);
	free(rx->msgs);
	free(rx->iov);
	free(rx->names);
	free(rx->ctrl);
	free(rx->scratch);
	free(rx->slot_mem);
	free(rx);
}

int zcs_rx_rcvbuf(const struct zcs_rx *rx)
{
	return rx->rcvbuf; /* read once at open: nothing changes it afterwards */
}

bool zcs_rx_gro(const struct zcs_rx *rx)
{
	return rx->gro;
}

bool zcs_rx_count_reached(const struct zcs_rx *rx)
{
	return rx->gf.done && !rx->gf.fmt_ended;
}

bool zcs_rx_format_ended(const struct zcs_rx *rx)
{
	return rx->gf.fmt_ended;
}

bool zcs_rx_stream_open(const struct zcs_rx *rx, uint32_t *id)
{
	if (!rx->fs.locked || rx->fs.ended)
		return false;
	if (id)
		*id = rx->fs.stream_id;
	return true;
}

bool zcs_rx_run_newest(const struct zcs_rx *rx, struct zcs_run_seen *out)
{
	return zcs_follow_newest(&rx->fs, out);
}

bool zcs_rx_sender(const struct zcs_rx *rx, struct zcs_addr *a)
{
	if (!rx->fs.locked || rx->fs.sender.len == 0)
		return false;
	*a = rx->fs.sender;
	return true;
}

uint64_t zcs_rx_silence_ns(const struct zcs_rx *rx)
{
	return zcs_rx_silence(rx);
}

const struct zcs_codec *zcs_rx_codec(const struct zcs_rx *rx)
{
	return rx->codec;
}

const char *zcs_rx_listen_name(const char *listen, char *buf, size_t len)
{
	if (listen && *listen)
		return listen;
	snprintf(buf, len, "every address, port %d", ZCS_DEFAULT_PORT);
	return buf;
}

void zcs_rx_snapshot(const struct zcs_rx *rx, struct zcs_rx_snapshot *s)
{
	const struct zcs_follow *f = &rx->fs;

	memset(s, 0, sizeof(*s));
	s->rx.datagrams = rx->st.datagrams;
	s->rx.bytes = rx->st.bytes;
	s->rx.invalid = rx->st.invalid;
	memcpy(s->rx.invalid_by, rx->st.invalid_by, sizeof(s->rx.invalid_by));
	s->rx.filtered = rx->st.filtered;
	s->rx.sample_dgrams = rx->st.sample_dgrams;
	s->rx.compressed = rx->st.compressed;
	s->rx.socket_drops = rx->st.socket_drops;
	s->rx.discont = rx->st.discont;
	s->rx.idle_flushes = rx->st.idle_flushes;
	s->rx.parity = rx->fec.st.parity;
	s->rx.restored = rx->fec.st.restored;
	s->rx.unrecoverable = rx->fec.st.unrecoverable;
	s->rx.rebuilt_refused = rx->fec.st.refused;
	s->rx.age_ns = rx->st.age_ns;
	s->rx.have_age = rx->st.have_age;
	s->rx.foreign = f->st.foreign;
	s->rx.pre_meta = f->st.pre_meta;
	s->rx.pre_meta_samples = f->st.pre_meta_samples;
	s->rx.meta = f->st.meta;
	s->rx.streams = f->st.streams;
	s->rx.restarts = f->st.restarts;
	s->rx.eos = f->st.eos;
	s->rx.unconfirmed = f->st.unconfirmed;
	s->rx.replayed = f->st.replayed;
	memcpy(s->rx.replayed_by, f->st.replayed_by, sizeof(s->rx.replayed_by));
	s->rx.late_joins = f->st.late_joins;
	s->ro = rx->ro.st;
	s->gf = rx->gf.st;
	s->depth = zcs_reorder_depth(&rx->ro);
	s->window = rx->ro.window;
	s->fec_k = f->meta.fec_k ? f->meta.fec_k : rx->fec.k;
	s->fec_m = f->meta.fec_k ? f->meta.fec_m : rx->fec.m;
	s->fec_store_bytes = rx->fec.bytes;
	s->fec_kept = rx->fec.st.kept;
	s->locked = f->locked;
	s->stream_id = f->stream_id;
	s->have_meta = f->have_meta;
	s->meta = f->meta;
	s->ended = f->ended;
	s->jump_pending = f->cand;
	s->eos_pending = f->eos_pending;
	s->meta_pending = f->meta_pending;
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

/* The sender of the datagram in slot i, or an AF_UNSPEC address when the batch did not ask. */
static const struct sockaddr *sender(const struct zcs_rx *rx, size_t i)
{
	static const struct sockaddr unknown = { .sa_family = AF_UNSPEC };

	return rx->names_on ? (const struct sockaddr *)&rx->names[i] : &unknown;
}

/* Datagrams this many, all too long and none of a stream fitting, are one stream that does not
 * fit: worth a warning naming the option (a few: a stray jumbo frame is not). */
#define OVERSIZE_WARN_AFTER 8

/* A datagram longer than --max-datagram: counted, and once, when no sample datagram has fitted
 * yet, the warning that tells the user which option to raise.  len is what was read: with GRO
 * the datagram's real length, without it the cut one (the kernel says only that it cut). */
static void oversize(struct zcs_rx *rx, size_t len)
{
	rx->st.invalid++;
	rx->st.invalid_by[ZCS_RX_OVERSIZE]++;
	if (rx->oversize_warned || rx->st.sample_dgrams ||
	    rx->st.invalid_by[ZCS_RX_OVERSIZE] < OVERSIZE_WARN_AFTER)
		return;
	rx->oversize_warned = true;
	if (len > rx->opt.max_dgram)
		zcs_log(&rx->opt.log, "%" PRIu64 " datagrams dropped, none fits: they are larger "
			"than --max-datagram %zu (the last had %zu bytes: raise it, e.g. "
			"--max-datagram %zu)", rx->st.invalid_by[ZCS_RX_OVERSIZE], rx->opt.max_dgram,
			len, len);
	else
		zcs_log(&rx->opt.log, "%" PRIu64 " datagrams dropped, none fits: they are larger "
			"than --max-datagram %zu (raise it; a sender's datagrams are at most its MTU)",
			rx->st.invalid_by[ZCS_RX_OVERSIZE], rx->opt.max_dgram);
}

/* The datagrams of one GRO train (or one datagram, gso 0) read into slot i from `from`. */
static void slot_datagrams(struct zcs_rx *rx, size_t i, size_t len, size_t gso,
			   const struct sockaddr *from)
{
	uint8_t *const train = rx->slot_mem + i * GRO_TRAIN_BYTES;
	const size_t seg = gso ? gso : len;

	if (len == 0) {
		/* a zero-length datagram holds no train to split, but is a datagram: counted, and
		 * judged (truncated) as the plain path does */
		rx->st.datagrams++;
		rx->bufs[rx->gro_buf].data = train;
		zcs_rx_datagram(rx, rx->gro_buf, 0, from);
		return;
	}
	for (size_t off = 0; off < len && !rx->done; off += seg) {
		const size_t n = len - off < seg ? len - off : seg;
		struct zcs_rx_buf *b = &rx->bufs[rx->gro_buf];

		rx->st.datagrams++;
		rx->st.bytes += n;
		if (n > rx->opt.max_dgram) {
			oversize(rx, n);
			continue;
		}
		b->data = train + off;
		if (!zcs_rx_datagram(rx, rx->gro_buf, n, from))
			continue;
		/* the window keeps it: into the buffer's own memory (the slot is reused next
		 * batch), unless decompression already put the samples there; they fit, the
		 * engine made sure (rx_pool.h) */
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

	rx->iov[i].iov_base = rx->slot_mem + i * GRO_TRAIN_BYTES;
	rx->iov[i].iov_len = GRO_TRAIN_BYTES;
	mh->msg_iov = &rx->iov[i];
	mh->msg_iovlen = 1;
	mh->msg_name = rx->names_on ? &rx->names[i] : NULL;
	mh->msg_namelen = rx->names_on ? sizeof(rx->names[i]) : 0;
	mh->msg_control = rx->ctrl + i * rx->ctrl_len;
	mh->msg_controllen = rx->ctrl_len;
	mh->msg_flags = 0;
}

/* Turns the senders' addresses on or off in every batch slot (see zcs_rx_want_from). */
static void want_names(struct zcs_rx *rx, bool on)
{
	if (on == rx->names_on)
		return;
	rx->names_on = on;
	for (size_t i = 0; i < rx->opt.batch; i++) {
		rx->msgs[i].msg_hdr.msg_name = on ? &rx->names[i] : NULL;
		rx->msgs[i].msg_hdr.msg_namelen = on ? sizeof(rx->names[i]) : 0;
	}
}

/* One recvmmsg and its datagrams.  Returns the datagrams read, 0 when none was ready, or -errno. */
static int one_batch(struct zcs_rx *rx)
{
	/* before the call: a short batch means the socket ran dry after this time */
	const uint64_t before = zcs_mono_ns();
	int n;

	rx->look_ns = rx->dry_ns;
	want_names(rx, zcs_rx_want_from(rx, before));
	n = recvmmsg(rx->fd, rx->msgs, (unsigned int)rx->opt.batch, MSG_DONTWAIT, NULL);
	rx->more = n > 0 && (size_t)n == rx->opt.batch;
	if (n < 0) {
		rx->now_ns = before;
		if (errno == EINTR)
			return 0;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			rx->dry_ns = before;
			return 0;
		}
		return -errno;
	}
	if (!rx->more)
		rx->dry_ns = before;
	rx->now_ns = zcs_mono_ns();
	rx->out_wall_ns = zcs_wall_ns();
	for (int i = 0; i < n && !rx->done; i++) {
		const struct msghdr *mh = &rx->msgs[i].msg_hdr;
		const size_t len = rx->msgs[i].msg_len;
		const size_t gso = read_cmsgs(rx, mh);

		/* (no UDP datagram is longer than a slot: this is for the record) */
		if (mh->msg_flags & MSG_TRUNC) {
			rx->st.datagrams++;
			rx->st.bytes += len;
			oversize(rx, len);
			continue;
		}
		slot_datagrams(rx, (size_t)i, len, gso, sender(rx, (size_t)i));
	}
	/* only the slots the kernel filled need setting up again */
	for (int i = 0; i < n; i++)
		prepare(rx, (size_t)i);
	return n;
}

void zcs_rx_feed(struct zcs_rx *rx, const void *d, size_t len, const struct sockaddr *from,
		 uint64_t now_ns)
{
	if (rx->done)
		return;
	/* read alone, the socket found empty right after it */
	rx->look_ns = rx->dry_ns;
	rx->dry_ns = now_ns;
	rx->now_ns = now_ns;
	if (len > GRO_TRAIN_BYTES) {
		rx->st.datagrams++;
		rx->st.bytes += len;
		oversize(rx, len);
		return;
	}
	/* into batch slot 0, as a datagram read now would land */
	memcpy(rx->slot_mem, d, len);
	slot_datagrams(rx, 0, len, 0, from);
}

void zcs_rx_tick(struct zcs_rx *rx, uint64_t now_ns)
{
	rx->now_ns = now_ns;
	rx->dry_ns = now_ns;
	zcs_rx_idle(rx);
}

/* What one step read: datagrams, their bytes and the samples they became, since `since`, the
 * look at the socket before (everything read arrived after it; 0: unknown); `gap`: since the
 * step before that read datagrams (0 when none did); `deferred`: after a planned sleep. */
struct step_read {
	uint64_t dgrams, bytes, samples;
	uint64_t since, gap;
	bool deferred;
};

/* Plans the next sleep while samples wait to be handed on (or were just handed on) and the
 * stream flows: rather than waking for every datagram or train, sleep until the hand-on is due
 * (or until the stream has brought ZCS_RX_HANDON_BLOCKS blocks' worth, at the rate just seen)
 * and read what came meanwhile in one go.  Samples still reach the writers at most
 * ZCS_RX_HANDON_NS after they arrived (hand_on counts from the look before the sleep), and a
 * sleep with its wake-up costs more than the handling of a whole datagram.  Not when fewer
 * than two datagrams are expected by then, nor when what is expected could fill an eighth of
 * the receive buffer (at four times its payload in kernel memory). */
static void plan_sleep(struct zcs_rx *rx, const struct step_read *r, size_t pending)
{
	const uint64_t span = rx->now_ns - r->since;
	const size_t pb = zcs_sample_pair_bytes(rx->opt.type, rx->fs.meta.format);
	uint64_t until = rx->handon_since ? rx->handon_since + ZCS_RX_HANDON_NS
					  : rx->now_ns + ZCS_RX_HANDON_NS;
	uint64_t ahead;

	rx->defer_until = 0;
	if (rx->more || !r->since || span == 0 || r->dgrams == 0 || rx->rcvbuf <= 0 ||
	    until <= rx->now_ns)
		return;
	if (r->samples && pb && pending < ZCS_RX_HANDON_BLOCKS) {
		/* when the blocks would be full at this rate */
		const double bytes = (double)(ZCS_RX_HANDON_BLOCKS - pending) * ZCS_BLOCK_BYTES;
		const double t = bytes * (double)span / ((double)r->samples * (double)pb);

		if (t < (double)(until - rx->now_ns))
			until = rx->now_ns + (uint64_t)t;
	}
	ahead = until - rx->now_ns;
	if ((double)r->dgrams * (double)ahead < 2.0 * (double)span ||
	    (double)r->bytes * (double)ahead * 8 * 4 > (double)rx->rcvbuf * (double)span)
		return;
	rx->defer_until = until;
}

/* Hands samples on to the writers once they have waited ZCS_RX_HANDON_NS or fill enough blocks
 * to be worth a wake-up (see ZCS_RX_HANDON_NS).  The next datagrams are expected about r->gap
 * after these, so when the deadline falls before them the samples go now, a little early,
 * instead of after a timer wake-up of their own. */
static void hand_on(struct zcs_rx *rx, const struct step_read *r)
{
	size_t pending = zcs_gapfill_pending(&rx->gf);

	if (pending) {
		/* read after a deferred sleep: they may have waited in the socket since it began */
		if (!rx->handon_since)
			rx->handon_since = r->deferred ? r->since : rx->now_ns;
		if (pending >= ZCS_RX_HANDON_BLOCKS ||
		    rx->now_ns + r->gap - rx->handon_since >= ZCS_RX_HANDON_NS) {
			zcs_gapfill_flush(&rx->gf);
			pending = 0;
		}
	}
	if (!pending)
		rx->handon_since = 0;
	if (r->dgrams)
		plan_sleep(rx, r, pending);
	else
		rx->defer_until = 0;
}

int zcs_rx_step(struct zcs_rx *rx, int timeout_ms)
{
	const uint64_t dg0 = rx->st.datagrams, by0 = rx->st.bytes, sa0 = rx->gf.st.samples;
	struct step_read r = { 0 };
	int ret;

	if (rx->done)
		return 1;
	/* after a full batch the socket holds more: read on without a wait (one syscall a batch) */
	if (!rx->more) {
		struct pollfd pfd = { .fd = rx->fd, .events = POLLIN };
		struct timespec ts;
		uint64_t due = 0;

		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
		if (rx->defer_until)
			due = rx->defer_until;
		else if (rx->handon_since)
			/* samples are waiting to be handed on: wake up for them at the latest */
			due = rx->handon_since + ZCS_RX_HANDON_NS;
		if (due) {
			const uint64_t now = zcs_mono_ns(), left = due > now ? due - now : 0;

			if (timeout_ms < 0 || left < (uint64_t)timeout_ms * 1000000ULL) {
				ts.tv_sec = (time_t)(left / ZCS_NS_PER_SEC);
				ts.tv_nsec = (long)(left % ZCS_NS_PER_SEC);
			}
		}
		r.deferred = rx->defer_until != 0;
		rx->defer_until = 0;
		/* deferred: a plain sleep (no descriptor), whatever arrives waits in the socket */
		ret = ppoll(&pfd, r.deferred ? 0 : 1, timeout_ms < 0 && !due ? NULL : &ts, NULL);
		/* a signal ends a deferred sleep with its datagrams read, as a wait would have */
		if (ret < 0 && !(errno == EINTR && r.deferred))
			return errno == EINTR ? 0 : -errno;
		/* ready or not, the read below is the look: even when nothing came in time, the
		 * process may have been descheduled since, and one_batch takes the time before it,
		 * so the silence measured is one the socket really had */
	}
	/* everything read now arrived after the last look that found the socket empty */
	r.since = rx->dry_ns;
	for (int i = 0; i < BATCHES_PER_STEP && !rx->done; i++) {
		ret = one_batch(rx);
		if (ret < 0)
			return ret;
		/* the socket ran dry: what was received waits at most ZCS_RX_HANDON_NS (hand_on) */
		if (!rx->more)
			break;
	}
	zcs_rx_idle(rx);
	r.dgrams = rx->st.datagrams - dg0;
	if (r.dgrams) {
		zcs_rx_update_age(rx);
		zcs_gapfill_observe(&rx->gf);
		r.bytes = rx->st.bytes - by0;
		r.samples = rx->gf.st.samples - sa0;
		if (rx->last_data_ns)
			r.gap = rx->now_ns - rx->last_data_ns;
		rx->last_data_ns = rx->now_ns;
	}
	hand_on(rx, &r);
	return rx->done ? 1 : 0;
}
