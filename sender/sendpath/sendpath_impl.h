/* SPDX-License-Identifier: MIT */
/* Inside the send paths: the state behind struct zcs_sendpath and the back-ends' functions, for
 * sendpath/'s own files (and tests that drive a back-end's failures).  Callers use sendpath.h. */
#ifndef ZCS_SENDPATH_IMPL_H
#define ZCS_SENDPATH_IMPL_H

#include <sys/types.h>

#include "sendpath.h"

struct zcs_uring; /* sendpath_uring.c */

/* A train whose asynchronous send (io_uring) failed, waiting to be sent again or dropped. */
struct zcs_failed_send {
	struct zcs_train *t;
	int err;                     /* positive errno; ECANCELED: a linked send before it failed;
				      * 0: taken back before it was submitted, not tried */
};

struct zcs_sendpath {
	int fd;                      /* connected UDP socket */
	int kind;                    /* enum zcs_path_kind now running */
	const struct zcs_train_pool *pool;
	zcs_sendpath_done_fn done;
	void *ctx;
	struct zcs_sendpath_stats st;
	size_t gso_size;             /* UDP_SEGMENT now set on fd, 0 = none */
	size_t seg;                  /* the trains' datagram size now: the GSO size of paths with GSO */
	/* MSG_ZEROCOPY: the kernel numbers zero-copy sends 0, 1, 2... per socket; a completion names
	 * a range of those numbers, mapped back to trains through this table. */
	struct zcs_train **zc_table; /* indexed by id & zc_mask */
	size_t zc_mask;
	uint32_t zc_next_id;
	size_t inflight;             /* trains the kernel still holds */
	struct zcs_uring *uring;
	/* The trains due, sorted by first_seq (failed_head stays 0; at most one entry per slot): a
	 * new train passes through on its way out, io_uring sends that failed (reported later) or
	 * were taken back wait here until the next send or flush retries, demotes or drops them.
	 * Nothing is sent while an earlier train waits here, so the wire stays in order */
	struct zcs_failed_send *failed;
	size_t failed_head, failed_count;
	uint8_t *tries;              /* per slot: failed attempts of its current send */
	/* a train being retried after a failure (not in `failed` meanwhile) */
	bool holding;
	uint64_t hold_seq;
	/* per slot, datagrams of its current train already sent one by one (plain): a
	 * send failing part-way through a train is resumed, never repeated from its start */
	uint16_t *partial;
	/* the device the socket sends through ("" when unknown), and whether it checksums (1), does
	 * not (0: auto takes plain) or the kernel cannot tell (-errno) */
	char egress[16];             /* IFNAMSIZ */
	int egress_csum;
};

/* The back-ends, called by sendpath.c.  Each returns bytes sent or -errno. */
int zcs_sendpath_set_gso(struct zcs_sendpath *sp, size_t gso_size);
ssize_t zcs_sendpath_msg_train(struct zcs_sendpath *sp, struct zcs_train *t, bool zerocopy);
ssize_t zcs_sendpath_plain_train(struct zcs_sendpath *sp, const struct zcs_train *t);
int zcs_sendpath_msgzc_probe(struct zcs_sendpath *sp);
size_t zcs_sendpath_msgzc_reap(struct zcs_sendpath *sp);
int zcs_sendpath_uring_open(struct zcs_sendpath *sp, char *err, size_t errlen);
/* Queues the train (a linked batch is submitted when full); returns its bytes or -errno. */
ssize_t zcs_sendpath_uring_train(struct zcs_sendpath *sp, struct zcs_train *t);
/* Submits the queued batch (after the previous batch's results, so sends stay in order); with
 * await, also waits for its results.  Returns 0 or -errno. */
int zcs_sendpath_uring_submit(struct zcs_sendpath *sp, bool await);
/* For the backends: a train whose send failed (err > 0) or was taken back unsent (err 0), to be
 * handled in order. */
void zcs_sendpath_failed(struct zcs_sendpath *sp, struct zcs_train *t, int err);
/* True when a train before seq still has to be (re)sent: nothing after it may go out yet. */
bool zcs_sendpath_pending_before(const struct zcs_sendpath *sp, uint64_t seq);
/* Takes the queued, unsubmitted io_uring sends back into the failed queue (not tried). */
void zcs_sendpath_uring_abort(struct zcs_sendpath *sp);
/* Once io_uring refused a submission, that refusal (positive errno): the path must be left
 * (for msg-zc).  0 while the ring works. */
int zcs_sendpath_uring_broken(const struct zcs_sendpath *sp);
/* Reaps CQEs; waits up to wait_ms (0: not at all) for one, arming a poll on doorbell_fd. */
int zcs_sendpath_uring_reap(struct zcs_sendpath *sp, int doorbell_fd, int wait_ms);
void zcs_sendpath_uring_close(struct zcs_sendpath *sp);

#endif
