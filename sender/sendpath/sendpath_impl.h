/* SPDX-License-Identifier: MIT */
/* Inside the send paths: the state behind struct zcs_sendpath and the back-ends' functions, for
 * sendpath/'s own files (and tests that drive a back-end's failures).  Callers use sendpath.h.
 * sendpath.c calls the back-ends; they never call it back: what they have to say comes back as
 * results (bytes sent or -errno, and trains given back). */
#ifndef ZCS_SENDPATH_IMPL_H
#define ZCS_SENDPATH_IMPL_H

#include <sys/types.h>

#include "sendpath.h"

struct zcs_uring; /* sendpath_uring.c */

/* A train to be sent in its turn: one just handed over, or one a back-end gave back unsent. */
struct zcs_due {
	struct zcs_train *t;
	int err;                     /* positive errno: its asynchronous send failed with it;
				      * ECANCELED: a linked send before it failed;
				      * 0: new, or taken back before it was submitted (not tried) */
};

/* The trains a back-end call gives back unsent, in the order it gave them: io_uring reports a
 * send's failure after the call that queued it, and takes queued sends back when they must not go
 * out.  sendpath.c takes them into its queue after every call.  Room for every slot: a slot is
 * out at most once. */
struct zcs_given_back {
	struct zcs_due *v;
	size_t n;
};

struct zcs_sendpath {
	int fd;                      /* connected UDP socket */
	int kind;                    /* enum zcs_path_kind now running */
	const struct zcs_train_pool *pool;
	zcs_sendpath_done_fn done;
	void *ctx;
	struct zcs_log log;
	struct zcs_sendpath_stats st;
	size_t gso_size;             /* UDP_SEGMENT now set on fd, 0 = none */
	size_t seg;                  /* the trains' datagram size now: the GSO size of paths with GSO */
	/* MSG_ZEROCOPY: the kernel numbers zero-copy sends 0, 1, 2... per socket; a completion names
	 * a range of those numbers, mapped back to trains through this table. */
	struct zcs_train **zc_table; /* indexed by id & zc_mask */
	size_t zc_mask;
	uint32_t zc_next_id;
	size_t inflight;             /* trains the kernel still holds */
	struct zcs_uring *uring;     /* while the path is uring-zc */
	/* the ring of a uring-zc path demoted away from while the kernel still held sends of it:
	 * kept, and reaped, until their last notification (every slot comes back only after its
	 * own), then ended */
	struct zcs_uring *uring_old;
	/* The trains due, in stream order (by first_seq; at most one entry per slot): each new
	 * train, and those a back-end gave back, wait here until they are sent (or queued on
	 * io_uring) or given up.  The one being tried stays at the head until then: nothing after it
	 * goes out meanwhile, so the wire stays in order (sendpath.c alone touches it) */
	struct zcs_due *due;
	size_t ndue;
	struct zcs_given_back back;  /* filled by the back-ends, emptied into `due` by sendpath.c */
	uint8_t *tries;              /* per slot: failed attempts of its current send */
	/* per slot, datagrams of its current train already sent one by one (plain): a send failing
	 * part-way through a train is resumed, never repeated from its start */
	uint16_t *partial;
	/* no path is left (positive errno): every train from then on is given up */
	int dead;
	/* the device the socket sends through ("" when unknown), and whether it checksums (1), does
	 * not (0: auto takes plain) or the kernel cannot tell (-errno) */
	char egress[16];             /* IFNAMSIZ */
	int egress_csum;
	/* plain on a device without checksum offload sends IPv4 with UDP checksum 0 (1), or not
	 * (0: IPv6, the device checksums, another path; -errno: the kernel refused) */
	int no_check;
};

/* The sendmsg back-end (sendpath_msg.c).  The train senders return bytes sent or -errno. */
int zcs_sendpath_set_gso(struct zcs_sendpath *sp, size_t gso_size);
ssize_t zcs_sendpath_msg_train(struct zcs_sendpath *sp, struct zcs_train *t, bool zerocopy);
/* One datagram per send from datagram *sent on; *sent is left at the datagrams sent so far
 * (0 again once the whole train went out). */
ssize_t zcs_sendpath_plain_train(struct zcs_sendpath *sp, const struct zcs_train *t,
				 uint16_t *sent);
int zcs_sendpath_msgzc_probe(struct zcs_sendpath *sp);
/* Reads the zero-copy notifications queued, calls done() for the trains they free.  Returns
 * trains completed. */
size_t zcs_sendpath_msgzc_reap(struct zcs_sendpath *sp);

/* The io_uring back-end (sendpath_uring.c).  Every call that may give trains back appends them
 * to `back`. */
int zcs_sendpath_uring_open(struct zcs_sendpath *sp, char *err, size_t errlen);
/* Whether the batch being queued is full: submit it before queuing another. */
bool zcs_sendpath_uring_batch_full(const struct zcs_sendpath *sp);
/* Queues the train in the batch (never submits: a full batch is the caller's to submit first).
 * Returns its bytes, or -EBUSY when the batch or the ring has no room for it. */
ssize_t zcs_sendpath_uring_train(struct zcs_sendpath *sp, struct zcs_train *t);
/* Submits the queued batch after the previous batch's results (so sends stay in order), unless a
 * train before the batch is still due: due_seq, the first sequence number the caller still has
 * to send (UINT64_MAX: none), or one given back on the way; the batch is then given back, to go
 * out after it.  With await, also waits for the batch's results.  A ring that fails here is
 * broken from then on (zcs_sendpath_uring_broken). */
void zcs_sendpath_uring_submit(struct zcs_sendpath *sp, bool await, uint64_t due_seq,
			       struct zcs_given_back *back);
/* Gives the queued, unsubmitted sends back (not tried). */
void zcs_sendpath_uring_abort(struct zcs_sendpath *sp, struct zcs_given_back *back);
/* Once io_uring refused a submission or a wait, that refusal (positive errno): the path must be
 * left (for msg-zc).  0 while the ring works. */
int zcs_sendpath_uring_broken(const struct zcs_sendpath *sp);
/* Reaps CQEs (done() for the trains completed, failed ones given back); waits up to wait_ms
 * (0: not at all) for one, arming a poll on doorbell_fd.  Submits nothing of the batch: the
 * caller submits it first.  Returns trains completed or -errno. */
int zcs_sendpath_uring_reap(struct zcs_sendpath *sp, int doorbell_fd, int wait_ms,
			    struct zcs_given_back *back);
/* Leaves the ring (a demotion): gives the queued sends back, waits for the results of the
 * submitted ones (failed ones given back), and ends the ring, or, while the kernel still holds
 * sends of it, keeps it as sp->uring_old until their notifications have come. */
void zcs_sendpath_uring_retire(struct zcs_sendpath *sp, struct zcs_given_back *back);
/* Reaps the retired ring without waiting (done() for each send it completes) and ends it once
 * it holds none.  Returns trains completed. */
int zcs_sendpath_uring_retired_reap(struct zcs_sendpath *sp, struct zcs_given_back *back);
/* The retired ring's fd (readable when completions wait), or -1 when there is none. */
int zcs_sendpath_uring_retired_fd(const struct zcs_sendpath *sp);
/* Gives the queued sends back and ends both rings.  Sends the kernel never reported on stay in
 * flight: their slots are not handed back (the caller closes the socket before it frees the
 * pool). */
void zcs_sendpath_uring_close(struct zcs_sendpath *sp, struct zcs_given_back *back);

#endif
