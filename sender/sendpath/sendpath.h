/* SPDX-License-Identifier: MIT */
/* The send paths of zcs-send, fastest first: io_uring SEND_ZC from registered buffers with UDP GSO,
 * sendmsg with MSG_ZEROCOPY and GSO, sendmsg with GSO, one datagram per send (sendmmsg).  Probed at
 * start-up, demoted at run time when the kernel or the device refuses one. */
#ifndef ZCS_SENDPATH_H
#define ZCS_SENDPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "train.h"

enum zcs_path_kind {
	ZCS_PATH_AUTO = -1,
	ZCS_PATH_URING_ZC = 0,
	ZCS_PATH_MSG_ZC = 1,
	ZCS_PATH_GSO = 2,
	ZCS_PATH_PLAIN = 3,
};
#define ZCS_PATH_KINDS 4

/* Sends of at least this many bytes go zero-copy; below it pinning pages costs more than the
 * copy it saves (the kernel's msg_zerocopy selftest and DESIGN.md: >= ~10 KB pays). */
#define ZCS_ZC_MIN_BYTES 16384

/* "uring-zc", "msg-zc", "gso", "plain" ("auto" for ZCS_PATH_AUTO). */
const char *zcs_path_name(int kind);
/* The kind for a name, or -2 when the name is not one. */
int zcs_path_from_name(const char *name);

/* Counters of the send thread; only it writes them. */
struct zcs_sendpath_stats {
	uint64_t zc_sends;       /* trains handed to the kernel zero-copy */
	uint64_t zc_completions; /* of those, trains the kernel reported done with */
	uint64_t zc_copied;      /* of those, trains the kernel copied anyway (local peer, no SG) */
	uint64_t send_errors;    /* failed sends, each counted once */
	uint64_t retries;        /* sends repeated after a transient error */
	uint64_t demotions;      /* changes to a slower path */
	uint64_t dropped_trains; /* trains given up after an error */
	/* appended: sends the kernel refused with ECONNREFUSED, each sent again.  A connected UDP
	 * socket reports an ICMP port unreachable (nobody listens at the destination, yet) on its
	 * next send: the network's news, not a failure of ours, so not a send error */
	uint64_t refused;
	/* appended: what the dropped trains held, so "sent" figures can leave them out and a
	 * receiver's loss can be matched exactly */
	uint64_t dropped_dgrams, dropped_samples, dropped_bytes;
};

/* Called when the kernel no longer needs a train's memory (at once for copying paths). */
typedef void (*zcs_sendpath_done_fn)(void *ctx, struct zcs_train *t);

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
	/* MSG_ZEROCOPY: the kernel numbers zero-copy sends 0, 1, 2... per socket; a completion names
	 * a range of those numbers, mapped back to trains through this table. */
	struct zcs_train **zc_table; /* indexed by id & zc_mask */
	size_t zc_mask;
	uint32_t zc_next_id;
	size_t inflight;             /* trains the kernel still holds */
	struct zcs_uring *uring;
	/* io_uring sends report failures later: they queue here, sorted by first_seq (failed_head
	 * stays 0), until the next send or flush retries, demotes or drops them (at most one entry
	 * per slot).  Nothing is sent while an earlier train waits here, so the wire stays in order */
	struct zcs_failed_send *failed;
	size_t failed_head, failed_count;
	uint8_t *tries;              /* per slot: failed attempts of its current send */
	/* appended: a train being retried after a failure (not in `failed` meanwhile) */
	bool holding;
	uint64_t hold_seq;
	/* appended: per slot, datagrams of its current train already sent one by one (plain): a
	 * send failing part-way through a train is resumed, never repeated from its start */
	uint16_t *partial;
};

/* Sets up fd for the path `want` (ZCS_PATH_AUTO: the fastest that probes well).  A path asked for
 * by name that this kernel or build lacks is an error.  log gets a line naming the path chosen
 * (and why faster ones were passed over).  Returns 0 or -errno with err set. */
int zcs_sendpath_open(struct zcs_sendpath *sp, int fd, int want, const struct zcs_train_pool *pool,
		      zcs_sendpath_done_fn done, void *ctx, char *log, size_t loglen,
		      char *err, size_t errlen);

/* Sends one train (in order with everything sent before).  Returns 0 when sent (or dropped after
 * a counted error), 1 when sent after a demotion (log says to what and why), -errno when no path
 * is left.  done() is called for the train now or after its zero-copy completion.  On uring-zc the
 * send may only be queued (submitted in batches of linked sends): its failure is then handled by a
 * later zcs_sendpath_send() or zcs_sendpath_flush(). */
int zcs_sendpath_send(struct zcs_sendpath *sp, struct zcs_train *t, char *log, size_t loglen);

/* Hands every queued send to the kernel, waits for their results (not their zero-copy
 * completions) and retries, demotes or drops the failed ones.  Call it before waiting for new
 * trains and at the end.  Returns like zcs_sendpath_send(). */
int zcs_sendpath_flush(struct zcs_sendpath *sp, char *log, size_t loglen);

/* Sends a small datagram (metadata, end of stream) by copy.  Returns 0 or -errno (counted). */
int zcs_sendpath_send_small(struct zcs_sendpath *sp, const void *buf, size_t len);

/* Collects zero-copy completions without blocking (msg-zc: only once enough sends are out to
 * make the error-queue read worth it; zcs_sendpath_wait() and _drain() always read).  Returns
 * trains completed. */
size_t zcs_sendpath_reap(struct zcs_sendpath *sp);

/* Blocks until a completion arrives, doorbell_fd (an eventfd, may be -1) is readable, or
 * timeout_ms passes; then reaps.  Returns trains completed or -errno. */
int zcs_sendpath_wait(struct zcs_sendpath *sp, int doorbell_fd, int timeout_ms);

/* Reaps until nothing is in flight or the CLOCK_MONOTONIC deadline passes.  Returns trains still
 * in flight (whose memory must then not be freed before the socket is closed). */
size_t zcs_sendpath_drain(struct zcs_sendpath *sp, uint64_t deadline_ns);

void zcs_sendpath_close(struct zcs_sendpath *sp);

/* Backends, for sendpath.c only.  Each returns bytes sent or -errno. */
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
