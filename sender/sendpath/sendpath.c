// SPDX-License-Identifier: MIT
/* Choosing, running and demoting the send paths: probe the fastest first, send each train on the
 * path now running, and on a failure that names the path (EIO: no checksum offload for GSO; an
 * io_uring or zero-copy refusal) drain what is in flight and go one path down. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "clock.h"
#include "egress.h"
#include "err.h"
#include "proto.h"
#include "sendpath_impl.h"

static const char *const path_names[ZCS_PATH_KINDS] = { "uring-zc", "msg-zc", "gso", "plain" };

const char *zcs_path_name(int kind)
{
	if (kind == ZCS_PATH_AUTO)
		return "auto";
	return kind >= 0 && kind < ZCS_PATH_KINDS ? path_names[kind] : "unknown";
}

int zcs_path_from_name(const char *name)
{
	if (strcmp(name, "auto") == 0)
		return ZCS_PATH_AUTO;
	for (int k = 0; k < ZCS_PATH_KINDS; k++)
		if (strcmp(name, path_names[k]) == 0)
			return k;
	return -2;
}

/* Makes fd ready for kind.  Returns 0 or -errno with err set. */
static int path_setup(struct zcs_sendpath *sp, int kind, char *err, size_t errlen)
{
	int ret;

	if (kind == ZCS_PATH_PLAIN) {
		/* with UDP_SEGMENT set even a single datagram needs checksum offload: clear it */
		if (sp->gso_size && (ret = zcs_sendpath_set_gso(sp, 0)) < 0)
			return zcs_err(err, errlen, ret, "cannot clear UDP_SEGMENT: %s",
				       strerror(-ret));
		return 0;
	}
	ret = zcs_sendpath_set_gso(sp, sp->seg);
	if (ret < 0)
		return zcs_err(err, errlen, ret, "UDP_SEGMENT (GSO, Linux 4.18+): %s",
			       strerror(-ret));
	if (kind == ZCS_PATH_MSG_ZC && (ret = zcs_sendpath_msgzc_probe(sp)) < 0)
		return zcs_err(err, errlen, ret, "SO_ZEROCOPY (Linux 4.14+): %s", strerror(-ret));
	if (kind == ZCS_PATH_URING_ZC)
		return zcs_sendpath_uring_open(sp, err, errlen);
	return 0;
}

int zcs_sendpath_open(struct zcs_sendpath **out, int fd, int want, const struct zcs_train_pool *pool,
		      size_t seg, zcs_sendpath_done_fn done, void *ctx, char *log, size_t loglen,
		      char *err, size_t errlen)
{
	char why[ZCS_PATH_KINDS][160];
	struct zcs_sendpath *sp;
	size_t table = 1;
	int ret = -EINVAL;

	*out = NULL;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return zcs_err(err, errlen, -ENOMEM, "out of memory");
	sp->fd = fd;
	sp->pool = pool;
	sp->seg = seg ? seg : pool->seg_size;
	sp->done = done;
	sp->ctx = ctx;
	sp->kind = -1;
	/* ids of zero-copy sends map to trains; twice the slots so a live id is never overwritten */
	while (table < 2 * pool->nslots)
		table <<= 1;
	sp->zc_table = calloc(table, sizeof(*sp->zc_table));
	sp->failed = calloc(pool->nslots, sizeof(*sp->failed));
	sp->tries = calloc(pool->nslots, 1);
	sp->partial = calloc(pool->nslots, sizeof(*sp->partial));
	if (!sp->zc_table || !sp->failed || !sp->tries || !sp->partial) {
		ret = zcs_err(err, errlen, -ENOMEM, "out of memory");
		goto fail;
	}
	sp->zc_mask = table - 1;
	/* the NIC first: without checksum offload every GSO send (even of one datagram, with
	 * UDP_SEGMENT set) fails with EIO before Linux 6.10, so a stream would start with a failure
	 * and a demotion.  Where the kernel cannot tell, that EIO still demotes at run time */
	sp->egress_csum = -ENODEV;
	if (zcs_egress_device(fd, sp->egress, sizeof(sp->egress)) == 0)
		sp->egress_csum = zcs_egress_tx_csum(fd, sp->egress);
	if (want != ZCS_PATH_AUTO) {
		ret = path_setup(sp, want, err, errlen);
		if (ret < 0)
			goto fail;
		sp->kind = want;
		if (sp->egress_csum == 0 && want != ZCS_PATH_PLAIN)
			snprintf(log, loglen, "send path: %s (as asked; no checksum offload on %s: GSO "
				 "may fail with EIO, then plain)", zcs_path_name(want), sp->egress);
		else
			snprintf(log, loglen, "send path: %s (as asked)", zcs_path_name(want));
		*out = sp;
		return 0;
	}
	if (sp->egress_csum == 0) {
		ret = path_setup(sp, ZCS_PATH_PLAIN, err, errlen);
		if (ret < 0)
			goto fail;
		sp->kind = ZCS_PATH_PLAIN;
		snprintf(log, loglen, "send path: plain (no checksum offload on %s: GSO off)",
			 sp->egress);
		*out = sp;
		return 0;
	}
	for (int k = 0; k < ZCS_PATH_KINDS; k++) {
		why[k][0] = '\0';
		ret = path_setup(sp, k, why[k], sizeof(why[k]));
		if (ret < 0)
			continue;
		sp->kind = k;
		if (k == 0)
			snprintf(log, loglen, "send path: %s", zcs_path_name(k));
		else
			snprintf(log, loglen, "send path: %s (%s unavailable: %s)", zcs_path_name(k),
				 zcs_path_name(k - 1), why[k - 1]);
		*out = sp;
		return 0;
	}
	ret = zcs_err(err, errlen, ret, "no send path works: %s", why[ZCS_PATH_PLAIN]);
fail:
	zcs_sendpath_close(sp);
	return ret;
}

/* Where a failure sends us, or -1 when the error is the network's, not the path's (the train is
 * then dropped and counted, the path kept). */
static int demotion_target(int kind, int e)
{
	const bool gso_refused = e == EIO || e == EINVAL || e == EMSGSIZE;

	switch (kind) {
	case ZCS_PATH_URING_ZC:
		if (gso_refused)
			return ZCS_PATH_PLAIN;
		if (e == EOPNOTSUPP || e == ENOSYS || e == EFAULT || e == ENOMEM || e == EBUSY ||
		    e == EBADF || e == ENXIO)
			return ZCS_PATH_MSG_ZC;
		return -1;
	case ZCS_PATH_MSG_ZC:
		if (gso_refused)
			return ZCS_PATH_PLAIN;
		if (e == EFAULT || e == EOPNOTSUPP || e == ENOBUFS)
			return ZCS_PATH_GSO;
		return -1;
	case ZCS_PATH_GSO:
		return gso_refused ? ZCS_PATH_PLAIN : -1;
	default:
		return -1;
	}
}

static int demote(struct zcs_sendpath *sp, int to, int e, char *log, size_t loglen)
{
	const int from = sp->kind;
	char why[160] = "";

	/* io_uring sends queued but not submitted go back to the failed queue: they are sent on
	 * the new path, in order, after the train that failed */
	zcs_sendpath_uring_abort(sp);
	/* the old path's buffers must come back before its machinery goes away */
	zcs_sendpath_drain(sp, zcs_mono_ns() + ZCS_NS_PER_SEC);
	zcs_sendpath_uring_close(sp);
	while (to <= ZCS_PATH_PLAIN && path_setup(sp, to, why, sizeof(why)) < 0)
		to++;
	if (to > ZCS_PATH_PLAIN)
		return -ENOTSUP;
	sp->kind = to;
	sp->st.demotions++;
	snprintf(log, loglen, "send path: %s failed (%s), now %s", zcs_path_name(from), strerror(e),
		 zcs_path_name(to));
	return 0;
}

/* Tries a train gets (sends and resends after errors) before it is dropped. */
#define MAX_TRIES 16

void zcs_sendpath_failed(struct zcs_sendpath *sp, struct zcs_train *t, int err)
{
	size_t k = sp->failed_count;

	/* a slot is in flight at most once, so the queue (one entry a slot) cannot overflow; it
	 * stays sorted by stream order, however late each failure was reported */
	while (k > 0 && sp->failed[k - 1].t->first_seq > t->first_seq) {
		sp->failed[k] = sp->failed[k - 1];
		k--;
	}
	sp->failed[k] = (struct zcs_failed_send){ t, err };
	sp->failed_count++;
}

bool zcs_sendpath_pending_before(const struct zcs_sendpath *sp, uint64_t seq)
{
	return (sp->failed_count && sp->failed[0].t->first_seq < seq) ||
	       (sp->holding && sp->hold_seq < seq);
}

/* Gives a train up: counted with what it held but had not sent (the receiver sees exactly that
 * as lost). */
static void drop(struct zcs_sendpath *sp, struct zcs_train *t)
{
	const size_t from = sp->partial[t->index];
	uint64_t samples = 0, bytes = 0;

	for (size_t k = from; k < t->count; k++) {
		struct zcs_dgram d;

		bytes += t->lens[k];
		/* each datagram says how many samples it holds (sent part-way: only the rest count) */
		if (from && zcs_proto_parse(t->buf + k * t->seg, t->lens[k], &d) >= 0 &&
		    d.type != ZCS_DGRAM_META)
			samples += d.hdr.samples;
	}
	sp->st.dropped_trains++;
	sp->st.dropped_dgrams += t->count - from;
	sp->st.dropped_samples += from ? samples : t->samples;
	sp->st.dropped_bytes += bytes;
	sp->done(sp->ctx, t);
}

/* try_send() could not send t yet: an earlier train is due first, and t went back in the queue */
#define WAIT_TURN 2

/* One train's tries on the path running: sent (or queued on io_uring), or dropped after MAX_TRIES,
 * demoting the path on a failure that names it.  e > 0: t's last try failed with e (io_uring
 * reports failures late).  Calls only the back-ends, never the queue's pump: returns 0 when sent,
 * queued or dropped, 1 when sent after a demotion, WAIT_TURN, or -errno when no path is left. */
static int try_send(struct zcs_sendpath *sp, struct zcs_train *t, int e, char *log, size_t loglen)
{
	uint8_t *const tries = &sp->tries[t->index];
	/* zero-copy only on whole trains: short ones are not worth pinning */
	const bool zc = !t->variable && t->count == t->max_dgrams &&
			t->bytes >= ZCS_ZC_MIN_BYTES;
	int demoted = 0;

	/* until t is sent, no io_uring send queued after it may go out (the waits below submit) */
	sp->holding = true;
	sp->hold_seq = t->first_seq;
	while (*tries < MAX_TRIES) {
		const bool uring = sp->kind == ZCS_PATH_URING_ZC && zc;
		int to = -1;
		ssize_t r;

		if (!e && sp->kind == ZCS_PATH_URING_ZC && (e = zcs_sendpath_uring_broken(sp)) != 0) {
			/* io_uring refused a submission: leave it before anything is sent */
			to = ZCS_PATH_MSG_ZC;
			sp->st.send_errors++;
			goto demote;
		}
		if (!e) {
			/* a copied send must not overtake the io_uring sends queued before it, nor
			 * the repeats of those that failed: their results come first */
			if (sp->uring && !uring && (r = zcs_sendpath_uring_submit(sp, true)) < 0) {
				sp->holding = false;
				return (int)r;
			}
			if (zcs_sendpath_pending_before(sp, t->first_seq)) {
				sp->holding = false;
				zcs_sendpath_failed(sp, t, 0);
				return WAIT_TURN;
			}
			if (t->variable || sp->kind == ZCS_PATH_PLAIN)
				r = zcs_sendpath_plain_train(sp, t);
			else if (uring)
				r = zcs_sendpath_uring_train(sp, t);
			else
				r = zcs_sendpath_msg_train(sp, t, zc && sp->kind == ZCS_PATH_MSG_ZC);
			if (r >= 0) {
				sp->holding = false;
				if (!uring && !(zc && sp->kind == ZCS_PATH_MSG_ZC))
					sp->done(sp->ctx, t); /* copied: its memory is free again */
				return demoted;
			}
			e = (int)-r;
		}
		if (e == EINTR || e == ECANCELED) {
			/* interrupted, or a linked io_uring send before this one failed: not tried */
			sp->st.retries += e == ECANCELED;
			e = 0;
			continue;
		}
		(*tries)++;
		if (e == ECONNREFUSED) {
			/* a stale ICMP error reported instead of this send: send again (no receiver
			 * listens yet; not an error, and never a reason to demote) */
			sp->st.refused++;
			e = 0;
			continue;
		}
		sp->st.send_errors++;
		if (e == ENOBUFS || e == EAGAIN) {
			/* zero-copy notifications or the send buffer are full: let them drain */
			sp->st.retries++;
			zcs_sendpath_wait(sp, -1, 1);
			if (*tries < MAX_TRIES / 2) {
				e = 0;
				continue;
			}
		}
		to = demotion_target(sp->kind, e);
demote:
		if (to < 0)
			break; /* the network's error, not the path's: t is dropped */
		if (demote(sp, to, e, log, loglen) < 0) {
			sp->holding = false;
			return -e;
		}
		demoted = 1;
		e = 0;
	}
	sp->holding = false;
	drop(sp, t);
	return demoted;
}

/* The whole fast path: the queue holds, in stream order, the trains due (the new one, and those
 * whose io_uring send failed or was taken back); each is tried in turn, and one whose turn has not
 * come (an earlier failure surfaced meanwhile) goes back behind that one.  Returns 0, 1 after a
 * demotion, or -errno when no path is left. */
static int pump(struct zcs_sendpath *sp, char *log, size_t loglen)
{
	int ret = 0;

	while (sp->failed_count) {
		const struct zcs_failed_send f = sp->failed[0];
		int r;

		memmove(sp->failed, sp->failed + 1, --sp->failed_count * sizeof(*sp->failed));
		r = try_send(sp, f.t, f.err, log, loglen);
		if (r < 0)
			return r;
		if (r != WAIT_TURN)
			ret |= r;
	}
	return ret;
}

int zcs_sendpath_send(struct zcs_sendpath *sp, struct zcs_train *t, char *log, size_t loglen)
{
	sp->tries[t->index] = 0;
	sp->partial[t->index] = 0;
	zcs_sendpath_failed(sp, t, 0); /* queued last: it goes after every train due before it */
	return pump(sp, log, loglen);
}

int zcs_sendpath_flush(struct zcs_sendpath *sp, char *log, size_t loglen)
{
	/* each round resends what failed in the last; every round uses up a try of some train or
	 * demotes, so this bounds the rounds */
	const size_t rounds = sp->pool->nslots * MAX_TRIES + ZCS_PATH_KINDS;
	int ret = 0;

	for (size_t round = 0; round <= rounds; round++) {
		int r;

		if (sp->uring && (r = zcs_sendpath_uring_submit(sp, true)) < 0)
			return r;
		if (!sp->failed_count)
			break;
		r = pump(sp, log, loglen);
		if (r < 0)
			return r;
		ret |= r;
	}
	return ret;
}

int zcs_sendpath_set_seg(struct zcs_sendpath *sp, size_t seg, char *log, size_t loglen)
{
	/* sends still queued (io_uring) or to be repeated take the socket's GSO size when they
	 * run: every one goes out first, at the size it was packed for */
	const int ret = zcs_sendpath_flush(sp, log, loglen);
	int r;

	if (ret < 0)
		return ret;
	sp->seg = seg;
	if (sp->kind == ZCS_PATH_PLAIN || sp->gso_size == seg)
		return ret;
	if ((r = zcs_sendpath_set_gso(sp, seg)) < 0) {
		snprintf(log, loglen, "UDP_SEGMENT %zu (a new wire format): %s", seg,
			 strerror(-r));
		return r;
	}
	return ret;
}

int zcs_sendpath_send_small(struct zcs_sendpath *sp, const void *buf, size_t len, char *log,
			    size_t loglen)
{
	int demoted = 0;

	/* after the trains queued before it (metadata names the next sequence number) */
	if (sp->uring)
		zcs_sendpath_uring_submit(sp, true);
	for (int attempt = 0; attempt < 4 + ZCS_PATH_KINDS; attempt++) {
		int e, to;

		if (send(sp->fd, buf, len, 0) >= 0)
			return demoted;
		e = errno;
		if (e == EINTR)
			continue;
		if (e == ECONNREFUSED) {
			sp->st.refused++; /* see try_send */
			continue;
		}
		sp->st.send_errors++;
		if (e == ENOBUFS) {
			sp->st.retries++;
			continue;
		}
		/* with UDP_SEGMENT set even this one datagram goes the GSO way: EIO (no checksum
		 * offload) names the path, not the datagram.  Demote and send it again on the new
		 * path: a metadata datagram lost here costs a receiver the stream's first 400 ms */
		to = demotion_target(sp->kind, e);
		if (to < 0 || demote(sp, to, e, log, loglen) < 0)
			return -e;
		demoted = 1;
	}
	return -EIO;
}

/* MSG_ZEROCOPY completions are read from the error queue only once this many sends are out:
 * consecutive ones merge into one notification, so one read then covers many sends, and an empty
 * queue is not asked after every send.  The source keeps the other slots meanwhile. */
#define MSGZC_REAP_AT 16

static size_t reap_all(struct zcs_sendpath *sp)
{
	if (sp->uring) {
		const int n = zcs_sendpath_uring_reap(sp, -1, 0);

		return n > 0 ? (size_t)n : 0;
	}
	if (sp->inflight)
		return zcs_sendpath_msgzc_reap(sp);
	return 0;
}

size_t zcs_sendpath_reap(struct zcs_sendpath *sp)
{
	/* io_uring completions are in memory: looking costs nothing */
	if (!sp->uring && sp->inflight < MSGZC_REAP_AT)
		return 0;
	return reap_all(sp);
}

int zcs_sendpath_wait(struct zcs_sendpath *sp, int doorbell_fd, int timeout_ms)
{
	struct pollfd pfd[2];
	nfds_t n = 0;

	if (sp->uring)
		return zcs_sendpath_uring_reap(sp, doorbell_fd, timeout_ms);
	if (doorbell_fd >= 0)
		pfd[n++] = (struct pollfd){ .fd = doorbell_fd, .events = POLLIN };
	/* error-queue notifications show as POLLERR, which poll reports without asking */
	if (sp->inflight)
		pfd[n++] = (struct pollfd){ .fd = sp->fd, .events = 0 };
	if (poll(pfd, n, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	return (int)reap_all(sp);
}

size_t zcs_sendpath_drain(struct zcs_sendpath *sp, uint64_t deadline_ns)
{
	while (sp->inflight) {
		const uint64_t now = zcs_mono_ns();
		uint64_t left_ms;

		if (now >= deadline_ns)
			break;
		left_ms = (deadline_ns - now) / 1000000 + 1;
		if (zcs_sendpath_wait(sp, -1, left_ms > 50 ? 50 : (int)left_ms) < 0)
			break;
	}
	return sp->inflight;
}

/* Also the failure path of zcs_sendpath_open(): each step is safe on what was never set up.
 * Released in reverse order of zcs_sendpath_open(). */
void zcs_sendpath_close(struct zcs_sendpath *sp)
{
	if (!sp)
		return;
	zcs_sendpath_uring_close(sp);
	free(sp->partial);
	free(sp->tries);
	free(sp->failed);
	free(sp->zc_table);
	free(sp);
}

int zcs_sendpath_kind(const struct zcs_sendpath *sp)
{
	return sp->kind;
}

size_t zcs_sendpath_inflight(const struct zcs_sendpath *sp)
{
	return sp->inflight;
}

const struct zcs_sendpath_stats *zcs_sendpath_stats(const struct zcs_sendpath *sp)
{
	return &sp->st;
}
