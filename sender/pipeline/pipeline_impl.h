/* SPDX-License-Identifier: MIT */
/* The pipeline's shared state, for pipeline.c and its two thread files only. */
#ifndef ZCS_PIPELINE_IMPL_H
#define ZCS_PIPELINE_IMPL_H

#include <pthread.h>
#include <stdatomic.h>

#include "auth.h"
#include "compress.h"
#include "doorbell.h"
#include "fec.h"
#include "formats.h"
#include "pipeline.h"
#include "ring.h"
#include "spread.h"
#include "train.h"

/* 64 slots of up to 64 KB: 4 MB, about 45 ms of p12 at 30.72 MS/s, enough to ride out a
 * scheduling hiccup of either thread; both rings hold every slot, so a push never fails. */
#define ZCS_PIPELINE_SLOTS 64
/* Paced trains span at most 10 ms of samples, so pacing stays smooth at low rates. */
#define ZCS_TRAIN_MAX_NS 10000000ULL

/* Store and load one counter with no tearing; a snapshot need not be consistent across fields. */
#define ZCS_PUB(dst, v) __atomic_store_n(&(dst), (v), __ATOMIC_RELAXED)
#define ZCS_GET(src) __atomic_load_n(&(src), __ATOMIC_RELAXED)

/* Every send-path counter, each read and stored whole: the send threads publishing their own,
 * and the snapshot reading them back.  One list, so a counter added to the struct is never left
 * out of one side (reading 0). */
#define ZCS_SENDPATH_STATS_FIELDS(X) \
	X(zc_sends) X(zc_completions) X(zc_copied) X(send_errors) X(retries) X(demotions) \
	X(dropped_trains) X(refused) X(dropped_dgrams) X(dropped_samples) X(dropped_bytes)

static inline void zcs_sendpath_stats_copy(struct zcs_sendpath_stats *dst,
					   const struct zcs_sendpath_stats *src)
{
#define ZCS_STATS_COPY(f) ZCS_PUB(dst->f, ZCS_GET(src->f));
	ZCS_SENDPATH_STATS_FIELDS(ZCS_STATS_COPY)
#undef ZCS_STATS_COPY
}

/* Adds what a second send path published (src, read whole) to a snapshot's own copy. */
static inline void zcs_sendpath_stats_add(struct zcs_sendpath_stats *dst,
					  const struct zcs_sendpath_stats *src)
{
#define ZCS_STATS_ADD(f) dst->f += ZCS_GET(src->f);
	ZCS_SENDPATH_STATS_FIELDS(ZCS_STATS_ADD)
#undef ZCS_STATS_ADD
}

/* What one wire format makes of the datagram size: every format is set up at start, so a change of
 * format while streaming (the control channel) only switches between them. */
struct zcs_pipeline_fmt {
	size_t spd;                   /* samples per full datagram, 0 = the format does not fit */
	size_t pair_bytes;
	size_t seg;                   /* bytes of a full datagram (header, samples, trailer) */
	size_t dgrams;                /* datagrams in a full train */
	size_t seal_src;              /* keyed: of those, the ones the source thread seals */
};

/* What a train announces besides its samples, per slot (by the train's index): kept beside the
 * pool, not in struct zcs_train, whose other user, the send path, knows nothing of sources. */
struct zcs_slot_settings {
	bool changed;                 /* the radio settings changed before this train */
	struct zcs_radio_info info;   /* and are now these */
	size_t sealed;                /* keyed: datagrams [0, sealed) sealed by the source thread,
				       * the rest left to the send thread */
};

struct zcs_pipeline {
	struct zcs_pipeline_config cfg;
	struct zcs_pipeline_fmt fmt[ZCS_WIRE_MAX + 1];
	int format;                   /* the wire format asked for last (under tune_mu) */
	struct zcs_kernels k;
	struct zcs_train_pool pool;
	struct zcs_slot_settings *slot_settings; /* one per slot of the pool */
	struct zcs_sendpath *sp;
	struct zcs_compress z;        /* --zstd: the source thread compresses */
	struct zcs_ring full, free;   /* source -> send, send -> source */
	struct zcs_doorbell full_db, free_db;
	pthread_t src_thread, send_thread;
	bool src_started, send_started;
	atomic_bool stop;
	atomic_bool source_done;      /* the source pushed its last train */
	atomic_bool send_done;
	int src_err, send_err;        /* -errno when a thread failed */
	char src_msg[256], send_msg[256];
	struct zcs_pipeline_stats pub; /* published counters (ZCS_PUB / ZCS_GET) */
	/* Retunes (pipeline_tune.c).  tune_mu keeps the source thread's poll_info out while the
	 * control thread writes settings, and carries the request to the source thread, which
	 * fixes the index and answers through tune_cv. */
	pthread_mutex_t tune_mu;
	pthread_cond_t tune_cv;
	bool tune_init;
	atomic_bool tune_posted;      /* a request waits for the source thread */
	struct zcs_radio_info tune_info; /* the settings it announces */
	int tune_format;              /* and the wire format they hold in */
	/* the source holds them only from a block it has yet to read (ZCS_SRC_REBUILT: a channel
	 * switch), so the index waits for that block: its first pair (zcs_pipeline_tune_rebuilt) */
	bool tune_deferred;
	uint64_t tune_min;            /* read_end when they were written: the earliest index */
	uint64_t tune_at;             /* the index the source thread chose */
	uint64_t tune_asked, tune_answered; /* requests posted and given an index */
	_Atomic uint64_t read_end;    /* index past the last pair the source has read */
	/* Settings changed by another program (poll_info noticed them), for the control server:
	 * the source thread writes the newest under tune_mu and rings ext_db; one slot, so a
	 * burst of changes costs nothing and the reader sees the latest (with every change
	 * counted in ext_gen). */
	struct zcs_doorbell ext_db;
	uint64_t ext_gen;             /* under tune_mu: changes published */
	uint64_t ext_at;              /* under tune_mu: the index the newest holds from */
	struct zcs_radio_info ext_info; /* under tune_mu: the newest settings */
	/* keyed: the source thread seals the first seal_src datagrams of each train, the send
	 * thread the rest of them (both read auth's salt only), and metadata and the end of stream
	 * (it alone writes meta_seq).  One thread alone cannot tag a fast stream on the board
	 * (docs/measurements.md, "Keyed streams"), and the send thread mostly waits.  Each thread
	 * tags with a tagger of its own (its cache and MAC context are not shared). */
	bool keyed;
	size_t trailer;               /* bytes of a sample datagram's trailer, 0 unkeyed */
	struct zcs_auth auth;
	struct zcs_auth_tagger tag_source; /* the source thread's */
	struct zcs_auth_tagger tag_send;   /* the send thread's */
	/* --fec: the send thread folds every sample datagram into its block's parity before the
	 * train goes out, and sends the parity of the blocks it completed after it */
	bool fec;
	size_t fec_reserve;           /* bytes a datagram gives up so its parity fits */
	struct zcs_fec_enc fec_enc;
	/* parity datagrams of the blocks a train completed, sent after it: a train of n
	 * datagrams completes at most n / K + 1 blocks */
	uint8_t *fec_pend;
	size_t fec_pend_stride, fec_pend_max, fec_npend;
	size_t *fec_pend_len;
	/* --send-threads 2 (pipeline_aside.c): the send thread hands trains to a second send
	 * thread (as many as balance the two cores' load, spread.h), which sends them on a socket
	 * of its own (cfg.fd2, the same local address and destination).  No datagram goes out a
	 * receiver's window (less a train) past the oldest train the second has not yet handed to
	 * the kernel, so the window takes the trains in any order they meet (pipeline_send.c,
	 * hand_aside).  Metadata, parity and the end of stream wait until it has handed every
	 * train it got to the kernel. */
	bool spread;
	struct zcs_sendpath *sp2;
	struct zcs_ring aside;        /* send thread -> second send thread */
	struct zcs_ring free2;        /* second send thread -> source: slots it is done with */
	struct zcs_doorbell aside_db; /* the second send thread waits on it */
	struct zcs_doorbell aside_done_db; /* the send thread waits on it */
	pthread_t aside_thread;
	bool aside_started;
	atomic_bool aside_end;        /* the send thread hands no more trains */
	atomic_bool aside_done;       /* the second send thread has ended */
	_Atomic uint64_t aside_sent;  /* trains the second send thread handed to the kernel (or
				       * gave up), in the order it got them */
	int aside_err;                /* -errno when its path failed (ZCS_PUB / ZCS_GET) */
	char aside_msg[256];
	/* what it published: its path's counters and its thread's CPU time at the end */
	struct zcs_sendpath_stats aside_pub;
	uint64_t aside_cpu_ns;
	/* the share of trains it gets follows the two cores' load (spread.h): the CPU it ran its
	 * last train on (-1: none yet), /proc/stat (-1: unreadable, the share stays where it
	 * started), and the share now (where the send thread starts it, and for the statistics) */
	atomic_int aside_cpu;
	atomic_int src_cpu;           /* the CPU the source thread read its last block on */
	int stat_fd;
	atomic_uint spread_share;
};

/* Source-thread side of a retune: called before each pair is packed, at stream index pos.
 * Fixes the index of a posted request (pos at the earliest) and answers it; returns true with
 * *info when the stream has reached the index of the request taken, so the next train starts
 * there with new metadata.  Never blocks but for the short tuning lock. */
struct zcs_tune_pending {
	bool active;
	uint64_t at;
	struct zcs_radio_info info;
	int format;
};
bool zcs_pipeline_tune_take(struct zcs_pipeline *p, struct zcs_tune_pending *t, uint64_t pos,
			    struct zcs_radio_info *info, int *format);
/* A copy of the source's settings, taken under the tuning lock: the control thread may be
 * writing them (docs/protocol.md, "Retunes"). */
void zcs_pipeline_info_now(struct zcs_pipeline *p, struct zcs_radio_info *info);
/* Source-thread side of a deferred change: the source just read the first block of its rebuilt
 * buffer, which begins at stream index `start` (nothing of it packed yet).  The request posted
 * (the control thread posted it before it let go of the tuning lock, which this takes) may
 * now be given that index. */
void zcs_pipeline_tune_rebuilt(struct zcs_pipeline *p, uint64_t start);
/* Source thread: settings another program changed hold from index at (their metadata goes
 * out there); publishes them for zcs_pipeline_ext_take and rings the doorbell. */
void zcs_pipeline_ext_post(struct zcs_pipeline *p, const struct zcs_radio_info *info,
			   uint64_t at);
int zcs_pipeline_tune_init(struct zcs_pipeline *p);
void zcs_pipeline_tune_fini(struct zcs_pipeline *p);

void *zcs_pipeline_source_main(void *arg);
void *zcs_pipeline_send_main(void *arg);
void *zcs_pipeline_aside_main(void *arg);
/* Pins the calling thread; logs (does not fail) when it cannot. */
void zcs_pipeline_pin(struct zcs_pipeline *p, int cpu, const char *who);

#endif
