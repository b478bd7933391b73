// SPDX-License-Identifier: MIT
/* Choosing, running and demoting the send paths: probe the fastest first, send each train on the
 * path now running, and on a failure that names the path (EIO: no checksum offload for GSO; an
 * io_uring or zero-copy refusal) take back what was not sent and go one path down (what the
 * kernel holds zero-copy comes back only with its completion).  The queue of trains due is kept
 * here alone: the back-ends return what happened (bytes or -errno, trains given back), and this
 * file decides what is sent next. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "clock.h"
#include "compat.h"
#include "egress.h"
#include "err.h"
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
		/* no checksum offload: UDP checksum 0 spares the kernel's sum of every byte (only
		 * there: egress.h says why).  Refused, the kernel sums as before */
		if (sp->egress_csum == 0 && sp->no_check == 0) {
			sp->no_check = zcs_egress_no_check(sp->fd);
			if (sp->no_check > 0)
				zcs_log(&sp->log, "UDP checksum 0 (IPv4, no checksum offload on %s)",
					sp->egress);
			else if (sp->no_check < 0)
				zcs_log(&sp->log, "SO_NO_CHECK refused (%s): the kernel checksums",
					strerror(-sp->no_check));
		}
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

int zcs_sendpath_open(struct zcs_sendpath **out, const struct zcs_sendpath_config *cfg, char *err,
		      size_t errlen)
{
	const struct zcs_train_pool *const pool = cfg->pool;
	const int want = cfg->want;
	char why[ZCS_PATH_KINDS][160], driver[32] = "";
	int order[ZCS_PATH_KINDS];
	size_t norder;
	struct zcs_sendpath *sp;
	size_t table = 1;
	int ret = -EINVAL;

	*out = NULL;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return zcs_err(err, errlen, -ENOMEM, "out of memory");
	sp->fd = cfg->fd;
	sp->pool = pool;
	sp->seg = cfg->seg ? cfg->seg : pool->seg_size;
	sp->done = cfg->done;
	sp->ctx = cfg->ctx;
	sp->log = cfg->log;
	sp->kind = -1;
	/* ids of zero-copy sends map to trains; twice the slots so a live id is never overwritten */
	while (table < 2 * pool->nslots)
		table <<= 1;
	sp->zc_table = calloc(table, sizeof(*sp->zc_table));
	sp->due = calloc(pool->nslots, sizeof(*sp->due));
	sp->back.v = calloc(pool->nslots, sizeof(*sp->back.v));
	sp->tries = calloc(pool->nslots, 1);
	sp->partial = calloc(pool->nslots, sizeof(*sp->partial));
	if (!sp->zc_table || !sp->due || !sp->back.v || !sp->tries || !sp->partial) {
		ret = zcs_err(err, errlen, -ENOMEM, "out of memory");
		goto fail;
	}
	sp->zc_mask = table - 1;
	/* the NIC first: without checksum offload every GSO send (even of one datagram, with
	 * UDP_SEGMENT set) fails with EIO before Linux 6.10, so a stream would start with a failure
	 * and a demotion.  Where the kernel cannot tell, that EIO still demotes at run time */
	sp->egress_csum = -ENODEV;
	if (zcs_egress_device(sp->fd, sp->egress, sizeof(sp->egress)) == 0)
		sp->egress_csum = zcs_egress_tx_csum(sp->fd, sp->egress);
	if (want != ZCS_PATH_AUTO) {
		const char *const asked = cfg->why ? cfg->why : "as asked";

		ret = path_setup(sp, want, err, errlen);
		if (ret < 0)
			goto fail;
		sp->kind = want;
		if (sp->egress_csum == 0 && want != ZCS_PATH_PLAIN)
			zcs_log(&sp->log, "send path: %s (%s; no checksum offload on %s: GSO may fail "
				"with EIO, then plain)", zcs_path_name(want), asked, sp->egress);
		else
			zcs_log(&sp->log, "send path: %s (%s)", zcs_path_name(want), asked);
		*out = sp;
		return 0;
	}
	if (sp->egress_csum == 0) {
		ret = path_setup(sp, ZCS_PATH_PLAIN, err, errlen);
		if (ret < 0)
			goto fail;
		sp->kind = ZCS_PATH_PLAIN;
		zcs_log(&sp->log, "send path: plain (no checksum offload on %s: GSO off)", sp->egress);
		*out = sp;
		return 0;
	}
	/* the order by the driver: where copying is counted cheaper than zero-copy, gso first */
	if (sp->egress[0] && zcs_egress_driver(sp->fd, sp->egress, driver, sizeof(driver)) < 0)
		driver[0] = '\0';
	norder = zcs_egress_path_order(driver, order);
	for (size_t i = 0; i < norder; i++) {
		const int k = order[i];

		why[k][0] = '\0';
		ret = path_setup(sp, k, why[k], sizeof(why[k]));
		if (ret < 0)
			continue;
		sp->kind = k;
		if (i > 0)
			zcs_log(&sp->log, "send path: %s (%s unavailable: %s)", zcs_path_name(k),
				zcs_path_name(order[i - 1]), why[order[i - 1]]);
		else if (k != ZCS_PATH_URING_ZC)
			zcs_log(&sp->log, "send path: %s (cheaper than zero-copy on %s's %s)",
				zcs_path_name(k), sp->egress, driver);
		else
			zcs_log(&sp->log, "send path: %s", zcs_path_name(k));
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

/* The queue of due trains.  Kept sorted by stream order however late a back-end gave a train
 * back; a slot is out at most once, so it never holds more than the pool's slots. */
static void queue_due(struct zcs_sendpath *sp, struct zcs_train *t, int err)
{
	size_t k = sp->ndue;

	while (k > 0 && sp->due[k - 1].t->first_seq > t->first_seq) {
		sp->due[k] = sp->due[k - 1];
		k--;
	}
	sp->due[k] = (struct zcs_due){ t, err };
	sp->ndue++;
}

/* Takes what the back-ends gave back since the last time into the queue. */
static void take_back(struct zcs_sendpath *sp)
{
	for (size_t k = 0; k < sp->back.n; k++)
		queue_due(sp, sp->back.v[k].t, sp->back.v[k].err);
	sp->back.n = 0;
}

/* t leaves the queue: sent, queued on io_uring, or given up. */
static void unqueue(struct zcs_sendpath *sp, const struct zcs_train *t)
{
	for (size_t k = 0; k < sp->ndue; k++) {
		if (sp->due[k].t == t) {
			memmove(sp->due + k, sp->due + k + 1, (--sp->ndue - k) * sizeof(*sp->due));
			return;
		}
	}
}

/* The first sequence number still due (UINT64_MAX: none): nothing after it may go out yet. */
static uint64_t first_due(const struct zcs_sendpath *sp)
{
	return sp->ndue ? sp->due[0].t->first_seq : UINT64_MAX;
}

/* io_uring's queued batch to the kernel in its turn, and with await its results; what the ring
 * gives back (failed, or the batch itself when its turn has not come) joins the queue. */
static void uring_submit(struct zcs_sendpath *sp, bool await)
{
	if (!sp->uring)
		return;
	zcs_sendpath_uring_submit(sp, await, first_due(sp), &sp->back);
	take_back(sp);
}

static int demote(struct zcs_sendpath *sp, int to, int e)
{
	const int from = sp->kind;
	char why[160] = "";

	/* io_uring sends queued but not submitted, and submitted ones that failed, come back to the
	 * queue: they are sent on the new path, in order, after the train that failed.  Trains the
	 * kernel still holds zero-copy (the ring's, or MSG_ZEROCOPY's) stay in flight, however long
	 * their completions take: a slot refilled before its completion could put wrong bytes on
	 * the wire.  They come back through zcs_sendpath_reap, _wait and _drain, as before */
	zcs_sendpath_uring_retire(sp, &sp->back);
	take_back(sp);
	while (to <= ZCS_PATH_PLAIN && path_setup(sp, to, why, sizeof(why)) < 0)
		to++;
	if (to > ZCS_PATH_PLAIN) {
		zcs_log(&sp->log, "send path: %s failed (%s), and no slower path works: %s",
			zcs_path_name(from), strerror(e), why);
		return -ENOTSUP;
	}
	sp->kind = to;
	sp->st.demotions++;
	zcs_log(&sp->log, "send path: %s failed (%s), now %s", zcs_path_name(from), strerror(e),
		zcs_path_name(to));
	return 0;
}

/* Tries a train gets (sends and resends after errors) before it is dropped. */
#define MAX_TRIES 16

/* Gives a train up: counted with what it held but had not sent (the receiver sees exactly that
 * as lost), and handed back.  Every datagram of a train but its last holds spd samples, so a
 * train sent part-way (plain) still owes samples - sent * spd. */
static void drop(struct zcs_sendpath *sp, struct zcs_train *t)
{
	const size_t sent = sp->partial[t->index];
	const uint64_t sent_samples = (uint64_t)sent * t->spd;
	uint64_t bytes = 0;

	for (size_t k = sent; k < t->count; k++)
		bytes += t->lens[k];
	sp->st.dropped_trains++;
	sp->st.dropped_dgrams += t->count - sent;
	sp->st.dropped_samples += t->samples > sent_samples ? t->samples - sent_samples : 0;
	sp->st.dropped_bytes += bytes;
	sp->partial[t->index] = 0;
	sp->done(sp->ctx, t);
}

/* No path is left (e): every train still due is given up, and from now on every one handed
 * over.  Returns -e. */
static int give_up(struct zcs_sendpath *sp, int e)
{
	zcs_sendpath_uring_abort(sp, &sp->back);
	take_back(sp);
	sp->dead = e;
	while (sp->ndue) {
		struct zcs_train *const t = sp->due[0].t;

		unqueue(sp, t);
		drop(sp, t);
	}
	return -e;
}

/* try_send() did not send t: an earlier train came back meanwhile, and t waits behind it (with
 * the demotion bit, 1, when the path was demoted on the way) */
#define WAIT_TURN 2

/* One train's tries on the path running: sent (or queued on io_uring), or dropped after MAX_TRIES,
 * demoting the path on a failure that names it.  t is at the head of the queue and stays there
 * until then.  e > 0: t's last try failed with e (io_uring reports failures late).  Returns 0 when
 * sent, queued or dropped, 1 when sent after a demotion, WAIT_TURN (| 1), or -errno when no path
 * is left (everything due given up). */
static int try_send(struct zcs_sendpath *sp, struct zcs_train *t, int e)
{
	uint8_t *const tries = &sp->tries[t->index];
	/* zero-copy only on whole trains: short ones are not worth pinning */
	const bool zc = !t->variable && t->count == t->max_dgrams &&
			t->bytes >= ZCS_ZC_MIN_BYTES;
	int demoted = 0;

	while (*tries < MAX_TRIES) {
		const bool uring = sp->kind == ZCS_PATH_URING_ZC && zc;
		int to = -1;
		ssize_t r;

		if (!e) {
			/* a copied send must not overtake the io_uring sends queued before it, nor
			 * the repeats of those that failed: their results come first.  A full batch
			 * goes out before another train joins it */
			if (sp->uring && (!uring || zcs_sendpath_uring_batch_full(sp)))
				uring_submit(sp, !uring);
			if (sp->kind == ZCS_PATH_URING_ZC && (e = zcs_sendpath_uring_broken(sp)) != 0) {
				/* io_uring refused a submission: leave it before anything is sent */
				to = ZCS_PATH_MSG_ZC;
				sp->st.send_errors++;
				goto demote;
			}
			if (sp->due[0].t != t)
				return WAIT_TURN | demoted;
			if (t->variable || sp->kind == ZCS_PATH_PLAIN)
				r = zcs_sendpath_plain_train(sp, t, &sp->partial[t->index]);
			else if (uring)
				r = zcs_sendpath_uring_train(sp, t);
			else
				r = zcs_sendpath_msg_train(sp, t, zc && sp->kind == ZCS_PATH_MSG_ZC);
			if (r >= 0) {
				unqueue(sp, t);
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
		if (demote(sp, to, e) < 0)
			return give_up(sp, e);
		demoted = 1;
		e = 0;
	}
	unqueue(sp, t);
	drop(sp, t);
	return demoted;
}

/* The whole fast path: the queue holds, in stream order, the trains due (the new one, and those
 * an io_uring send gave back); each is tried in turn at the head of the queue, and one whose turn
 * has not come (an earlier train came back meanwhile) waits behind that one.  Returns 0, 1 after
 * a demotion, or -errno when no path is left. */
static int pump(struct zcs_sendpath *sp)
{
	int ret = 0;

	while (sp->ndue) {
		struct zcs_due *const head = &sp->due[0];
		const int e = head->err;
		int r;

		head->err = 0; /* taken: a try that has to wait its turn starts afresh */
		r = try_send(sp, head->t, e);
		if (r < 0)
			return r;
		ret |= r & 1;
	}
	return ret;
}

int zcs_sendpath_send(struct zcs_sendpath *sp, struct zcs_train *t)
{
	sp->tries[t->index] = 0;
	sp->partial[t->index] = 0;
	if (sp->dead) {
		drop(sp, t);
		return -sp->dead;
	}
	queue_due(sp, t, 0); /* queued last: it goes after every train due before it */
	return pump(sp);
}

int zcs_sendpath_flush(struct zcs_sendpath *sp)
{
	/* each round resends what failed in the last; every round uses up a try of some train or
	 * demotes, so this bounds the rounds */
	const size_t rounds = sp->pool->nslots * MAX_TRIES + ZCS_PATH_KINDS;
	int ret = 0;

	if (sp->dead)
		return -sp->dead;
	for (size_t round = 0; round <= rounds; round++) {
		int r;

		uring_submit(sp, true);
		if (!sp->ndue)
			break;
		r = pump(sp);
		if (r < 0)
			return r;
		ret |= r;
	}
	return ret;
}

int zcs_sendpath_set_seg(struct zcs_sendpath *sp, size_t seg)
{
	/* sends still queued (io_uring) or to be repeated take the socket's GSO size when they
	 * run: every one goes out first, at the size it was packed for */
	const int ret = zcs_sendpath_flush(sp);
	int r;

	if (ret < 0)
		return ret;
	sp->seg = seg;
	if (sp->kind == ZCS_PATH_PLAIN || sp->gso_size == seg)
		return ret;
	if ((r = zcs_sendpath_set_gso(sp, seg)) < 0) {
		zcs_log(&sp->log, "UDP_SEGMENT %zu (a new wire format): %s", seg, strerror(-r));
		return r;
	}
	return ret;
}

/* One datagram as it is.  A datagram longer than the GSO segment set on the socket (a parity
 * datagram, 16 bytes and a trailer longer than a sample datagram) would be cut at it: a
 * UDP_SEGMENT of 0 for this send alone keeps it whole. */
static ssize_t send_one(const struct zcs_sendpath *sp, const void *buf, size_t len)
{
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} ctrl;
	struct iovec iov = { (void *)(uintptr_t)buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	const uint16_t none = 0;

	if (sp->gso_size == 0 || len <= sp->gso_size)
		return send(sp->fd, buf, len, 0);
	memset(&ctrl, 0, sizeof(ctrl));
	mh.msg_control = ctrl.buf;
	mh.msg_controllen = sizeof(ctrl.buf);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = UDP_SEGMENT;
	cm->cmsg_len = CMSG_LEN(sizeof(none));
	memcpy(CMSG_DATA(cm), &none, sizeof(none));
	return sendmsg(sp->fd, &mh, 0);
}

/* A small datagram refused for want of room (ENOBUFS: the device's queue or the kernel's memory
 * is full; EAGAIN: the send buffer) is tried again this many times, after waits of 1, 2, 4... ms
 * (63 ms in all): long enough for a queue to drain, short enough that a stuck one is reported. */
#define SMALL_ROOM_TRIES 6

int zcs_sendpath_send_small(struct zcs_sendpath *sp, const void *buf, size_t len)
{
	/* after the trains handed over before it (metadata names the next sequence number, an end
	 * of stream the last): queued ones submitted, failed ones sent again or given up */
	int demoted = sp->dead ? 0 : zcs_sendpath_flush(sp);
	int e = EIO, room_waits = 0;

	if (sp->dead) {
		/* every train was given up, but the socket may still carry one datagram as it is
		 * (an end of stream tells receivers the stream is over): one try */
		return send_one(sp, buf, len) >= 0 ? 0 : -errno;
	}
	for (int attempt = 0; attempt < 4 + ZCS_PATH_KINDS + SMALL_ROOM_TRIES; attempt++) {
		int to;

		if (send_one(sp, buf, len) >= 0)
			return demoted;
		e = errno;
		if (e == EINTR)
			continue;
		if (e == ECONNREFUSED) {
			sp->st.refused++; /* see try_send */
			continue;
		}
		sp->st.send_errors++;
		if (e == ENOBUFS || e == EAGAIN) {
			if (room_waits == SMALL_ROOM_TRIES)
				return -e;
			/* a completion may free memory, a queue drains on its own: wait for either
			 * (a send again at once would meet the same full queue) */
			sp->st.retries++;
			zcs_sendpath_wait(sp, -1, 1 << room_waits++);
			continue;
		}
		/* with UDP_SEGMENT set even this one datagram goes the GSO way: EIO (no checksum
		 * offload) names the path, not the datagram.  Demote and send it again on the new
		 * path: a metadata datagram lost here costs a receiver the stream's first 400 ms */
		to = demotion_target(sp->kind, e);
		if (to < 0)
			return -e;
		if (demote(sp, to, e) < 0)
			return give_up(sp, e);
		demoted = 1;
	}
	return -e; /* the last error seen, every try used up */
}

/* MSG_ZEROCOPY completions are read from the error queue only once this many sends are out:
 * consecutive ones merge into one notification, so one read then covers many sends, and an empty
 * queue is not asked after every send.  The source keeps the other slots meanwhile. */
#define MSGZC_REAP_AT 16

/* Reaps without waiting; wait_ms > 0: waits that long at most for a completion (or the
 * doorbell). */
static int reap_wait(struct zcs_sendpath *sp, int doorbell_fd, int wait_ms)
{
	int n;

	if (!sp->uring) {
		/* a ring demoted away from may still hold sends: their slots come back here */
		n = zcs_sendpath_uring_retired_reap(sp, &sp->back);
		take_back(sp);
		if (sp->inflight)
			n += (int)zcs_sendpath_msgzc_reap(sp);
		return n;
	}
	/* what is queued goes out first: a wait must not hold sends back */
	if (wait_ms > 0)
		uring_submit(sp, false);
	n = zcs_sendpath_uring_reap(sp, doorbell_fd, wait_ms, &sp->back);
	take_back(sp);
	return n;
}

size_t zcs_sendpath_reap(struct zcs_sendpath *sp)
{
	int n;

	/* io_uring completions are in memory: looking costs nothing */
	if (!sp->uring && !sp->uring_old && sp->inflight < MSGZC_REAP_AT)
		return 0;
	n = reap_wait(sp, -1, 0);
	return n > 0 ? (size_t)n : 0;
}

int zcs_sendpath_wait(struct zcs_sendpath *sp, int doorbell_fd, int timeout_ms)
{
	const int old_ring = zcs_sendpath_uring_retired_fd(sp);
	struct pollfd pfd[3];
	nfds_t n = 0;

	if (sp->uring)
		return reap_wait(sp, doorbell_fd, timeout_ms);
	if (doorbell_fd >= 0)
		pfd[n++] = (struct pollfd){ .fd = doorbell_fd, .events = POLLIN };
	/* error-queue notifications show as POLLERR, which poll reports without asking */
	if (sp->inflight)
		pfd[n++] = (struct pollfd){ .fd = sp->fd, .events = 0 };
	if (old_ring >= 0) {
		/* a retired ring's notifications may wait as task work, which only a system call
		 * runs, not as completions that wake poll: look again every 10 ms (only while it
		 * holds sends, after a demotion) */
		pfd[n++] = (struct pollfd){ .fd = old_ring, .events = POLLIN };
		if (timeout_ms < 0 || timeout_ms > 10)
			timeout_ms = 10;
	}
	if (poll(pfd, n, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	return reap_wait(sp, -1, 0);
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
 * Released in reverse order of zcs_sendpath_open().  Trains still due or given back by the ring
 * are not the caller's business any more: the pool is freed as a whole. */
void zcs_sendpath_close(struct zcs_sendpath *sp)
{
	if (!sp)
		return;
	if (sp->back.v)
		zcs_sendpath_uring_close(sp, &sp->back);
	free(sp->partial);
	free(sp->tries);
	free(sp->back.v);
	free(sp->due);
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
