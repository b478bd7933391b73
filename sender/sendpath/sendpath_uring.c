// SPDX-License-Identifier: MIT
/* The io_uring send path: IORING_OP_SEND_ZC from the registered train pool on the connected,
 * GSO-enabled UDP socket.  A send gives two completions: its result (with IORING_CQE_F_MORE when a
 * notification follows) and the notification (IORING_CQE_F_NOTIF) that frees the train. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "zcs_config.h"
#include "sendpath_impl.h"

#if ZCS_HAVE_URING
#include <liburing.h>

/* Kernel 6.2 reports in the notification whether it had to copy; older liburing lacks the names. */
#ifndef IORING_SEND_ZC_REPORT_USAGE
#define IORING_SEND_ZC_REPORT_USAGE (1U << 3)
#endif
#ifndef IORING_NOTIF_USAGE_ZC_COPIED
#define IORING_NOTIF_USAGE_ZC_COPIED (1U << 31)
#endif

/* Submissions: a batch of linked sends plus a doorbell poll; completions: two a train.  128
 * entries (256 CQEs) hold every slot's pair even when nothing was reaped for a while. */
#define URING_ENTRIES 128
/* Sends linked and submitted together: one io_uring_enter for this many trains.  The link keeps
 * them in order even when one has to wait for send buffer space. */
#define URING_BATCH 8
#define UD_DOORBELL UINT64_MAX
/* a queued send taken back before submission (see abort_queued) */
#define UD_NOP (UINT64_MAX - 1)
/* user_data: slot index in the low 32 bits, the slot's send generation above, so a late
 * notification of a failed send cannot free the slot's next send. */
#define UD(slot, gen) ((uint64_t)(gen) << 32 | (slot))

/* The current send of a slot: it ends when its result and (when F_MORE says one follows) its
 * notification have both come, in either order. */
struct uring_slot {
	uint32_t gen;
	bool active;           /* queued or with the kernel, not yet concluded */
	bool res_seen, more, notif_seen, copied;
	int res;
};

struct zcs_uring {
	struct io_uring ring;
	bool registered;
	bool report_usage;     /* kernel accepted IORING_SEND_ZC_REPORT_USAGE */
	bool poll_armed;       /* a POLL_ADD on the doorbell is pending */
	struct uring_slot *slot;
	struct io_uring_sqe *last; /* the batch's last send, linked to the next one queued */
	unsigned queued;       /* sends prepared, not yet submitted */
	unsigned awaiting;     /* sends submitted whose result has not come */
	/* the queued batch in order, so it can be taken back when it must not go out */
	struct zcs_train *qtrain[URING_BATCH];
	struct io_uring_sqe *qsqe[URING_BATCH];
	/* io_uring_enter refused a submission: the SQEs it left in the ring must never be submitted
	 * (their trains were handed on to be sent again), so nothing is submitted any more and the
	 * path must be demoted; broken_err is the refusal */
	bool broken;
	int broken_err;
	size_t active;         /* slots whose send is queued or with the kernel */
};

int zcs_sendpath_uring_open(struct zcs_sendpath *sp, char *err, size_t errlen)
{
	struct zcs_uring *u;
	struct io_uring_probe *probe = NULL;
	struct iovec iov;
	int ret;

	u = calloc(1, sizeof(*u));
	if (!u || !(u->slot = calloc(sp->pool->nslots, sizeof(*u->slot)))) {
		free(u);
		return zcs_err(err, errlen, -ENOMEM, "io_uring: out of memory");
	}
	/* notifications complete through task work: run it when the send thread enters the
	 * kernel anyway instead of interrupting it for each one (5.19+; older kernels refuse the
	 * flags, then the default is used) */
	ret = io_uring_queue_init(URING_ENTRIES, &u->ring,
				  IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG);
	if (ret == -EINVAL)
		ret = io_uring_queue_init(URING_ENTRIES, &u->ring, 0);
	if (ret < 0) {
		zcs_err(err, errlen, ret, "io_uring setup: %s", strerror(-ret));
		goto free_u;
	}
	probe = io_uring_get_probe_ring(&u->ring);
	if (!probe || !io_uring_opcode_supported(probe, IORING_OP_SEND_ZC)) {
		ret = zcs_err(err, errlen, -EOPNOTSUPP, "io_uring lacks SEND_ZC (Linux 6.0+)");
		goto fail;
	}
	iov.iov_base = sp->pool->mem;
	iov.iov_len = sp->pool->mem_bytes;
	ret = io_uring_register_buffers(&u->ring, &iov, 1);
	if (ret < 0) {
		zcs_err(err, errlen, ret, "io_uring buffer registration: %s", strerror(-ret));
		goto fail;
	}
	u->registered = true;
	u->report_usage = true;
	io_uring_free_probe(probe);
	sp->uring = u;
	return 0;
fail:
	if (probe)
		io_uring_free_probe(probe);
	io_uring_queue_exit(&u->ring);
free_u:
	free(u->slot);
	free(u);
	return ret;
}

static void give_back(struct zcs_given_back *back, struct zcs_train *t, int err)
{
	back->v[back->n++] = (struct zcs_due){ t, err };
}

/* The slot's send is over: free the train, or give it back to be sent again. */
static void conclude(struct zcs_sendpath *sp, struct zcs_uring *u, struct zcs_train *t,
		     size_t *completed, struct zcs_given_back *back)
{
	struct uring_slot *const s = &u->slot[t->index];

	sp->inflight--;
	u->active--;
	s->active = false;
	if (s->res >= 0) {
		if (s->more) {
			sp->st.zc_completions++;
			if (s->copied)
				sp->st.zc_copied++;
		}
		sp->done(sp->ctx, t);
		(*completed)++;
	} else if (s->res == -EINVAL && u->report_usage) {
		/* before Linux 6.2 the usage report is an unknown flag: go on without the count (and
		 * resend without counting an error: nothing was sent) */
		u->report_usage = false;
		give_back(back, t, ECANCELED);
	} else {
		give_back(back, t, -s->res);
	}
}

static void handle_cqe(struct zcs_sendpath *sp, struct zcs_uring *u, const struct io_uring_cqe *cqe,
		       size_t *completed, struct zcs_given_back *back)
{
	const uint64_t index = cqe->user_data & UINT32_MAX;
	struct uring_slot *s;

	if (cqe->user_data == UD_DOORBELL) {
		u->poll_armed = false;
		return;
	}
	if (cqe->user_data == UD_NOP)
		return;
	if (index >= sp->pool->nslots)
		return;
	s = &u->slot[index];
	if ((uint32_t)(cqe->user_data >> 32) != s->gen)
		return; /* the notification of a failed send whose train was sent again since */
	if (cqe->flags & IORING_CQE_F_NOTIF) {
		s->notif_seen = true;
		s->copied = ((uint32_t)cqe->res & IORING_NOTIF_USAGE_ZC_COPIED) != 0;
		/* after a failed result the train was already handed on: nothing to end */
		if (s->active && s->res_seen && s->res >= 0)
			conclude(sp, u, &sp->pool->trains[index], completed, back);
		return;
	}
	s->res_seen = true;
	s->res = cqe->res;
	s->more = (cqe->flags & IORING_CQE_F_MORE) != 0;
	u->awaiting--;
	if (s->res >= 0 && s->more)
		sp->st.zc_sends++;
	/* a failure is handed on at once (its notification, if any, is then ignored); a success
	 * waits for its notification when one follows */
	if (s->active && (s->res < 0 || !s->more || s->notif_seen))
		conclude(sp, u, &sp->pool->trains[index], completed, back);
}

static size_t reap_ready(struct zcs_sendpath *sp, struct zcs_uring *u, struct zcs_given_back *back)
{
	struct io_uring_cqe *cqe;
	size_t completed = 0;

	while (io_uring_peek_cqe(&u->ring, &cqe) == 0) {
		handle_cqe(sp, u, cqe, &completed, back);
		io_uring_cqe_seen(&u->ring, cqe);
	}
	return completed;
}

/* Waits until every submitted send has its result.  A wait the ring refuses breaks it: the
 * results still owed then never come, and their slots come back at zcs_sendpath_uring_close(). */
static void await_results(struct zcs_sendpath *sp, struct zcs_given_back *back)
{
	struct zcs_uring *const u = sp->uring;

	reap_ready(sp, u, back);
	while (u->awaiting && !u->broken) {
		struct io_uring_cqe *cqe;
		size_t completed = 0;
		const int ret = io_uring_wait_cqe(&u->ring, &cqe);

		if (ret == -EINTR)
			continue;
		if (ret < 0) {
			u->broken = true;
			u->broken_err = -ret;
			return;
		}
		handle_cqe(sp, u, cqe, &completed, back);
		io_uring_cqe_seen(&u->ring, cqe);
	}
}

/* Takes the queued (unsubmitted) sends back: their SQEs become no-ops and their trains are given
 * back as not tried, to be sent in order by sendpath.c (on a broken ring, after it demoted the
 * path: see zcs_sendpath_uring_broken). */
static void abort_queued(struct zcs_sendpath *sp, unsigned from, struct zcs_given_back *back)
{
	struct zcs_uring *const u = sp->uring;

	for (unsigned k = from; k < u->queued; k++) {
		struct zcs_train *const t = u->qtrain[k];

		io_uring_prep_nop(u->qsqe[k]);
		u->qsqe[k]->user_data = UD_NOP;
		u->slot[t->index].active = false;
		sp->inflight--;
		u->active--;
		give_back(back, t, 0);
	}
	u->queued = from;
	if (!from)
		u->last = NULL;
}

void zcs_sendpath_uring_abort(struct zcs_sendpath *sp, struct zcs_given_back *back)
{
	if (sp->uring)
		abort_queued(sp, 0, back);
}

int zcs_sendpath_uring_broken(const struct zcs_sendpath *sp)
{
	return sp->uring && sp->uring->broken ? sp->uring->broken_err : 0;
}

/* Hands the queued batch to the kernel.  Sends the kernel did not take stay in the SQ ring; a few
 * more tries (after reaping, which frees completion space) may take them, else the ring is
 * broken: their trains are given back unsent, nothing is submitted again, and sendpath.c demotes
 * the path before it sends them. */
static void submit_queued(struct zcs_sendpath *sp, struct zcs_given_back *back)
{
	struct zcs_uring *const u = sp->uring;
	const unsigned queued = u->queued;
	int ret = 0;

	for (int attempt = 0; attempt < 4; attempt++) {
		ret = io_uring_submit(&u->ring);
		if (io_uring_sq_ready(&u->ring) == 0)
			break;
		if (ret < 0 && ret != -EAGAIN && ret != -EBUSY && ret != -EINTR)
			break;
		reap_ready(sp, u, back);
	}
	{
		/* SQEs are taken in order: what is left is the batch's tail (no-ops of an aborted
		 * batch, submitted with it, come before) */
		const unsigned left = io_uring_sq_ready(&u->ring);
		const unsigned taken = left >= queued ? 0 : queued - left;

		u->awaiting += taken;
		if (left) {
			u->broken = true;
			u->broken_err = ret < 0 ? -ret : EBUSY;
			abort_queued(sp, taken, back);
		}
	}
	u->queued = 0;
	u->last = NULL;
}

/* Whether a train before the batch is still due: the caller's first, or one given back since. */
static bool due_before(const struct zcs_given_back *back, uint64_t due_seq, uint64_t seq)
{
	if (due_seq < seq)
		return true;
	for (size_t k = 0; k < back->n; k++)
		if (back->v[k].t->first_seq < seq)
			return true;
	return false;
}

void zcs_sendpath_uring_submit(struct zcs_sendpath *sp, bool await, uint64_t due_seq,
			       struct zcs_given_back *back)
{
	struct zcs_uring *const u = sp->uring;

	if (!u)
		return;
	if (u->queued) {
		/* a batch only starts after the last one's results: a send of it that waited for
		 * buffer space could otherwise be overtaken (sends complete inline, so the results
		 * are normally there already and this costs no system call) */
		await_results(sp, back);
		/* nor may it overtake an earlier train whose send failed and is still to be repeated:
		 * it is then given back and sent after that one */
		if (u->broken || due_before(back, due_seq, u->qtrain[0]->first_seq))
			abort_queued(sp, 0, back);
		else
			submit_queued(sp, back);
	}
	if (await)
		await_results(sp, back);
}

bool zcs_sendpath_uring_batch_full(const struct zcs_sendpath *sp)
{
	return sp->uring && sp->uring->queued >= URING_BATCH;
}

ssize_t zcs_sendpath_uring_train(struct zcs_sendpath *sp, struct zcs_train *t)
{
	struct zcs_uring *const u = sp->uring;
	struct uring_slot *const s = &u->slot[t->index];
	/* the SQ ring holds far more than a batch, and a submitted batch leaves it: full only when
	 * the batch could not be submitted (and the ring is then broken) */
	struct io_uring_sqe *const sqe =
		u->broken || u->queued >= URING_BATCH ? NULL : io_uring_get_sqe(&u->ring);

	if (!sqe)
		return -EBUSY;
	io_uring_prep_send_zc_fixed(sqe, sp->fd, t->buf, t->bytes, 0,
				    u->report_usage ? IORING_SEND_ZC_REPORT_USAGE : 0, 0);
	s->gen++;
	s->res_seen = s->more = s->notif_seen = s->copied = false;
	s->active = true;
	u->active++;
	s->res = 0;
	sqe->user_data = UD(t->index, s->gen);
	/* linked: the next one starts only when this one is done; a failure cancels the rest of
	 * the batch (ECANCELED), which is then sent again in order */
	if (u->last)
		u->last->flags |= IOSQE_IO_LINK;
	u->last = sqe;
	u->qtrain[u->queued] = t;
	u->qsqe[u->queued] = sqe;
	u->queued++;
	sp->inflight++;
	return (ssize_t)t->bytes;
}

int zcs_sendpath_uring_reap(struct zcs_sendpath *sp, int doorbell_fd, int wait_ms,
			    struct zcs_given_back *back)
{
	struct zcs_uring *const u = sp->uring;
	struct io_uring_cqe *cqe;
	size_t completed;
	int ret;

	completed = reap_ready(sp, u, back);
	if (completed || wait_ms <= 0)
		return (int)completed;
	if (u->broken) {
		/* no submission (no doorbell poll either): SQEs left in the ring must stay there */
		struct __kernel_timespec ts = { .tv_sec = wait_ms / 1000,
						.tv_nsec = (long long)(wait_ms % 1000) * 1000000 };

		ret = io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts);
		if (ret < 0 && ret != -ETIME && ret != -EINTR)
			return ret;
		return (int)reap_ready(sp, u, back);
	}
	if (doorbell_fd >= 0 && !u->poll_armed) {
		struct io_uring_sqe *const sqe = io_uring_get_sqe(&u->ring);

		if (sqe) {
			io_uring_prep_poll_add(sqe, doorbell_fd, POLLIN);
			sqe->user_data = UD_DOORBELL;
			u->poll_armed = true;
		}
	}
	{
		struct __kernel_timespec ts = { .tv_sec = wait_ms / 1000,
						.tv_nsec = (long long)(wait_ms % 1000) * 1000000 };

		ret = io_uring_submit_and_wait_timeout(&u->ring, &cqe, 1, &ts, NULL);
	}
	if (ret < 0 && ret != -ETIME && ret != -EINTR)
		return ret;
	return (int)reap_ready(sp, u, back);
}

/* Ends a ring.  Its sends still active stay counted in flight: the kernel may still be sending
 * from their slots, so they are never handed back from here (see zcs_sendpath_close). */
static void ring_free(struct zcs_uring *u)
{
	if (u->registered)
		io_uring_unregister_buffers(&u->ring);
	io_uring_queue_exit(&u->ring);
	free(u->slot);
	free(u);
}

void zcs_sendpath_uring_retire(struct zcs_sendpath *sp, struct zcs_given_back *back)
{
	struct zcs_uring *const u = sp->uring;

	if (!u)
		return;
	/* queued sends never went out: given back to be sent on the next path, in order; so are
	 * the submitted ones that failed, once their results are in */
	abort_queued(sp, 0, back);
	await_results(sp, back);
	sp->uring = NULL;
	/* a send with its result but not its notification is still the kernel's: its pages may
	 * sit in a queue, waiting for the device.  Ending the ring would not stop that, and a slot
	 * handed back now would be refilled under it (wrong bytes on the wire): the ring stays
	 * until the last notification, and each slot comes back with its own */
	if (u->active)
		sp->uring_old = u;
	else
		ring_free(u);
}

int zcs_sendpath_uring_retired_reap(struct zcs_sendpath *sp, struct zcs_given_back *back)
{
	struct zcs_uring *const u = sp->uring_old;
	size_t completed;

	if (!u)
		return 0;
	completed = reap_ready(sp, u, back);
	if (!u->active) {
		ring_free(u);
		sp->uring_old = NULL;
	}
	return (int)completed;
}

int zcs_sendpath_uring_retired_fd(const struct zcs_sendpath *sp)
{
	return sp->uring_old ? sp->uring_old->ring.ring_fd : -1;
}

void zcs_sendpath_uring_close(struct zcs_sendpath *sp, struct zcs_given_back *back)
{
	if (sp->uring) {
		abort_queued(sp, 0, back);
		ring_free(sp->uring);
		sp->uring = NULL;
	}
	if (sp->uring_old) {
		ring_free(sp->uring_old);
		sp->uring_old = NULL;
	}
}

#else /* !ZCS_HAVE_URING */

int zcs_sendpath_uring_open(struct zcs_sendpath *sp, char *err, size_t errlen)
{
	(void)sp;
	return zcs_err(err, errlen, -EOPNOTSUPP, "this build has no liburing");
}

bool zcs_sendpath_uring_batch_full(const struct zcs_sendpath *sp)
{
	(void)sp;
	return false;
}

ssize_t zcs_sendpath_uring_train(struct zcs_sendpath *sp, struct zcs_train *t)
{
	(void)sp;
	(void)t;
	return -EOPNOTSUPP;
}

void zcs_sendpath_uring_submit(struct zcs_sendpath *sp, bool await, uint64_t due_seq,
			       struct zcs_given_back *back)
{
	(void)sp;
	(void)await;
	(void)due_seq;
	(void)back;
}

int zcs_sendpath_uring_reap(struct zcs_sendpath *sp, int doorbell_fd, int wait_ms,
			    struct zcs_given_back *back)
{
	(void)sp;
	(void)doorbell_fd;
	(void)wait_ms;
	(void)back;
	return 0;
}

void zcs_sendpath_uring_close(struct zcs_sendpath *sp, struct zcs_given_back *back)
{
	(void)sp;
	(void)back;
}

void zcs_sendpath_uring_retire(struct zcs_sendpath *sp, struct zcs_given_back *back)
{
	(void)sp;
	(void)back;
}

int zcs_sendpath_uring_retired_reap(struct zcs_sendpath *sp, struct zcs_given_back *back)
{
	(void)sp;
	(void)back;
	return 0;
}

int zcs_sendpath_uring_retired_fd(const struct zcs_sendpath *sp)
{
	(void)sp;
	return -1;
}

void zcs_sendpath_uring_abort(struct zcs_sendpath *sp, struct zcs_given_back *back)
{
	(void)sp;
	(void)back;
}

int zcs_sendpath_uring_broken(const struct zcs_sendpath *sp)
{
	(void)sp;
	return 0;
}

#endif
