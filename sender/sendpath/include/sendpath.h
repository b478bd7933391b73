/* SPDX-License-Identifier: MIT */
/* The send paths of zcs-send, fastest first: io_uring SEND_ZC from registered buffers with UDP GSO,
 * sendmsg with MSG_ZEROCOPY and GSO, sendmsg with GSO, one datagram per send (sendmmsg).  Probed at
 * start-up, demoted at run time when the kernel or the device refuses one. */
#ifndef ZCS_SENDPATH_H
#define ZCS_SENDPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"
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
 * copy it saves (the kernel's Documentation/networking/msg_zerocopy.rst: "typically only
 * effective at writes over around 10 KB"). */
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
	/* sends the kernel refused with ECONNREFUSED, each sent again.  A connected UDP
	 * socket reports an ICMP port unreachable (nobody listens at the destination, yet) on its
	 * next send: the network's news, not a failure of ours, so not a send error */
	uint64_t refused;
	/* what the dropped trains held, so "sent" figures can leave them out and a
	 * receiver's loss can be matched exactly */
	uint64_t dropped_dgrams, dropped_samples, dropped_bytes;
};

/* Called when the kernel no longer needs a train's memory (at once for copying paths). */
typedef void (*zcs_sendpath_done_fn)(void *ctx, struct zcs_train *t);

struct zcs_sendpath_config {
	int fd;                      /* connected UDP socket (it stays the caller's) */
	int want;                    /* enum zcs_path_kind; ZCS_PATH_AUTO: the fastest that probes well */
	/* why the caller asked for `want` when the user did not name it: the start-up line says
	 * it in place of "as asked" (NULL: the user asked) */
	const char *why;
	const struct zcs_train_pool *pool;
	/* the full datagram size of the trains sent first, the GSO size (0: the pool's largest;
	 * zcs_sendpath_set_seg changes it) */
	size_t seg;
	zcs_sendpath_done_fn done;
	void *ctx;
	/* the path's news, on the thread that calls: the path chosen at open (and why faster ones
	 * were passed over), every demotion and why, a GSO size the socket refused */
	struct zcs_log log;
};

/* A send path on one socket: its state is private to sendpath/ (sendpath_impl.h). */
struct zcs_sendpath;

/* Sets up cfg->fd for the path cfg->want and allocates the path's state into *out; the log gets
 * a line naming the path chosen.  A path asked for by name that this kernel or build lacks is an
 * error.  Returns 0 or -errno with err set (*out is then NULL). */
int zcs_sendpath_open(struct zcs_sendpath **out, const struct zcs_sendpath_config *cfg, char *err,
		      size_t errlen);

/* The trains from now on have full datagrams of seg bytes (a change of wire format): hands every
 * queued send to the kernel first (zcs_sendpath_flush), so none still waiting is cut at the new
 * size, then sets the GSO size on paths that use it.  Returns like zcs_sendpath_flush(), or
 * -errno when the socket refused the new size (logged). */
int zcs_sendpath_set_seg(struct zcs_sendpath *sp, size_t seg);

/* Sends one train, in order with everything sent before: every train handed over is sent once
 * or given up (counted in dropped_*), and done() is called for it exactly once, now or after its
 * zero-copy completion.  Returns 0 when sent (or given up after a counted error), 1 when sent
 * after a demotion (logged), -errno when no path is left: then, and on every call from then on,
 * the trains still due are given up (done() called) and only those the kernel holds come back
 * later (zcs_sendpath_drain).  On uring-zc the send may only be queued (submitted in batches of
 * linked sends): its failure is then handled by a later zcs_sendpath_send() or _flush(). */
int zcs_sendpath_send(struct zcs_sendpath *sp, struct zcs_train *t);

/* Hands every queued send to the kernel, waits for their results (not their zero-copy
 * completions) and retries, demotes or drops the failed ones.  Call it before waiting for new
 * trains and at the end.  Returns like zcs_sendpath_send(). */
int zcs_sendpath_flush(struct zcs_sendpath *sp);

/* Sends a small datagram (metadata, end of stream) by copy, after every train handed over before
 * it (zcs_sendpath_flush first).  A failure that names the path (EIO: no checksum offload, with
 * UDP_SEGMENT set) demotes it, as for a train, and the datagram is sent again on the new path.
 * A refusal for want of room (ENOBUFS, EAGAIN) is tried again after short waits (63 ms in all).
 * Returns 0 when sent, 1 when it or a train before it was sent after a demotion (logged),
 * -errno, the error its last try met, when it could not be sent (counted).  Once no path is
 * left it is still tried once as the socket stands (an end of stream tells receivers the stream
 * is over). */
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

/* Releases what open set up (the socket stays the caller's: close it after this, and unmap the
 * pool only after closing it, when zcs_sendpath_drain() left trains in flight).  Trains still due
 * (no flush since they were handed over) and trains still in flight are not handed back.  NULL
 * is a no-op. */
void zcs_sendpath_close(struct zcs_sendpath *sp);

/* The path running now (enum zcs_path_kind): demotions change it. */
int zcs_sendpath_kind(const struct zcs_sendpath *sp);
/* Trains the kernel still holds (zero-copy sends not yet completed). */
size_t zcs_sendpath_inflight(const struct zcs_sendpath *sp);
/* The counters, written only by the thread that sends. */
const struct zcs_sendpath_stats *zcs_sendpath_stats(const struct zcs_sendpath *sp);


#endif
