/* SPDX-License-Identifier: MIT */
/* The two-core pipeline of zcs-send: a source thread converts blocks straight into wire-ready
 * trains and a send thread (pinned, CPU1 by default) sends them; slots travel between them on two
 * SPSC rings and return only after the kernel is done with them. */
#ifndef ZCS_PIPELINE_H
#define ZCS_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "key.h"
#include "log.h"
#include "sendpath.h"
#include "source.h"

struct zcs_pipeline_config {
	struct zcs_source *src;       /* opened; the pipeline reads it from its source thread */
	int fd;                       /* connected UDP socket */
	/* -1, or a second one bound to fd's local address and connected to its destination: a
	 * second send thread sends a share of the trains on it (zcs-send --send-threads 2), as many
	 * as balance the two cores' load, so the kernel's send work spreads over two cores.
	 * Receivers see one stream from one address */
	int fd2;
	int format;                   /* enum zcs_wire_format */
	size_t udp_payload;           /* largest datagram (header included) */
	uint64_t count;               /* samples to send, 0 = until the source ends or a stop */
	uint64_t pace_rate;           /* samples per second to pace at, 0 = as fast as possible */
	int zstd_level;               /* 0 = no compression */
	/* --fec K:M (0:0 off): M parity datagrams after every K sample datagrams; the datagrams
	 * shrink so that parity, 16 bytes and a trailer longer, still fits udp_payload */
	unsigned fec_k, fec_m;
	int path;                     /* enum zcs_path_kind (ZCS_PATH_AUTO to probe) */
	int cpu_src, cpu_send;        /* CPU to pin each thread to, -1 = leave; the second send
				       * thread goes where the source thread does */
	bool spread_auto;             /* with fd2: the second send thread takes trains only while
				       * the send thread's core is busy (zcs-send --send-threads auto) */
	uint32_t stream_id;
	const char *sender_name;      /* host name for the metadata */
	const char *source_name;      /* "tone", "iio", ... for the metadata */
	struct zcs_log log;           /* news: the send path chosen and its changes, pinning trouble */
	/* with a key every datagram carries an authentication trailer (common/wire/auth.h);
	 * run_start_ns is the sender's wall clock at start and run the run's number (its counter
	 * kept across reboots, made durable before this run's first datagram), both announced in
	 * keyed metadata */
	const struct zcs_key *key;
	uint64_t run_start_ns;
	uint64_t run;
};

/* A snapshot of the counters, readable at any time from any thread. */
struct zcs_pipeline_stats {
	uint64_t samples;             /* I/Q pairs sent */
	uint64_t datagrams;           /* sample datagrams sent */
	uint64_t bytes;               /* UDP payload bytes of sample datagrams */
	uint64_t trains;
	uint64_t meta_sent;
	uint64_t parity_sent;         /* parity datagrams (--fec) */
	uint64_t discontinuities;     /* source discontinuities */
	struct zcs_sendpath_stats path;
	int send_path;                /* enum zcs_path_kind now running */
	uint64_t src_cpu_ns;          /* CPU time of each thread so far */
	uint64_t send_cpu_ns;
	uint64_t send2_cpu_ns;        /* the second send thread's, 0 without one */
	uint64_t send2_trains;        /* of trains, those the second send thread sent */
	double send2_share;           /* of trains, the share it gets now (0 to 1) */
	bool two_senders;             /* trains go out from two send threads */
	size_t samples_per_dgram;
	size_t dgrams_per_train;
	bool finished;                /* both threads have ended */
	/* CLOCK_MONOTONIC ns, 0 = not yet.  start: the source began (the pacing clock's
	 * origin, sample 0 due); end: the last sample was handed to the kernel.  The span is the
	 * time the samples took, without start-up, end of stream and zero-copy drain. */
	uint64_t start_ns, end_ns;
};

struct zcs_pipeline;

/* Whether --zstd at `level` (0: not given) goes with --send-path `path`: 0, or -EINVAL with err
 * (this build has no libzstd; a path that sends whole GSO trains, which need equal sizes).  The
 * options ask it (compress.c answers). */
int zcs_compress_check(int level, int path, char *err, size_t errlen);

/* Sets everything up (pool, send path probe, codec) without starting threads, so a failure here
 * leaves nothing half-started.  cfg->log gets the line naming the send path.  Returns 0 or -errno
 * with err set. */
int zcs_pipeline_create(struct zcs_pipeline **out, const struct zcs_pipeline_config *cfg,
			char *err, size_t errlen);
/* Starts the threads.  Returns 0 or -errno with err set. */
int zcs_pipeline_start(struct zcs_pipeline *p, char *err, size_t errlen);
/* Asks for a stop: the source finishes its current train, the send thread sends what is queued,
 * then the end-of-stream datagram.  Safe from any thread. */
void zcs_pipeline_stop(struct zcs_pipeline *p);
void zcs_pipeline_stats(struct zcs_pipeline *p, struct zcs_pipeline_stats *out);
/* Waits for the threads.  Returns 0, or -errno with err set when the source or the send path
 * failed (the end of stream was still sent). */
int zcs_pipeline_join(struct zcs_pipeline *p, char *err, size_t errlen);
/* Frees everything, the train pool last.  Close cfg.fd before: zero-copy sends the drain left in
 * flight still use the pool's pages until their socket is closed (sendpath.h). */
void zcs_pipeline_destroy(struct zcs_pipeline *p);

/* Changes the source's settings mid-stream (the control channel).  apply(ctx, src) runs under
 * the tuning lock, so the source thread's poll_info never sees half a change; it writes the
 * settings and leaves what the radio took in src->info (and a new wire format through
 * zcs_pipeline_set_format).  When src->info or the format then differs from before (even if
 * apply failed half-way), the source thread announces it: it picks an index
 * at or after the first pair not yet read from the source when apply returned (never before a
 * pair it already sent), starts a train there, and the send thread sends the new metadata
 * (flag CHANGE, ref_sample = that index) before it.  Waits up to timeout_ms for the index.
 * Returns apply's result; *since gets the index, or UINT64_MAX when nothing changed, the
 * stream has ended or the source thread did not answer in time. */
int zcs_pipeline_retune(struct zcs_pipeline *p, int (*apply)(void *ctx, struct zcs_source *src),
			void *ctx, int timeout_ms, uint64_t *since);
/* The wire format asked for last (the stream's own from the announced index on); from any
 * thread, with or without the tuning lock. */
int zcs_pipeline_format(struct zcs_pipeline *p);
/* Asks for another wire format, from within zcs_pipeline_retune()'s apply only (it holds the
 * tuning lock): the retune then announces it with the settings, and the source thread packs the
 * new format from that index on (datagram size, GSO segment and trailer follow; see
 * docs/protocol.md, "Changes of wire format").  Returns 0, or -EINVAL with err set when the
 * format is none or holds no sample in the datagram size. */
int zcs_pipeline_set_format(struct zcs_pipeline *p, int format, char *err, size_t errlen);
/* The checks of zcs_pipeline_set_format() alone, from anywhere: 0 or -EINVAL with err set. */
int zcs_pipeline_check_format(const struct zcs_pipeline *p, int format, char *err, size_t errlen);
/* Runs fn(ctx, src) under the tuning lock: for reading src->info or the radio's capabilities
 * from another thread without meeting the source thread's poll_info.  Returns fn's result. */
int zcs_pipeline_locked(struct zcs_pipeline *p, int (*fn)(void *ctx, struct zcs_source *src),
			void *ctx);

/* Settings changed on the radio by another program (iio_attr, another libiio client through
 * iiod): the source thread notices them (poll_info, about once a second) and announces them in
 * the stream; these let a thread that serves control clients hear of it too.  The doorbell is
 * an eventfd: arm, then look once with zcs_pipeline_ext_take (a change posted just before
 * arming is not missed), then poll zcs_pipeline_ext_fd, then disarm. */
int zcs_pipeline_ext_fd(const struct zcs_pipeline *p);
void zcs_pipeline_ext_arm(struct zcs_pipeline *p);
void zcs_pipeline_ext_disarm(struct zcs_pipeline *p);
/* True when changes were posted since *gen (which it advances): *info gets the newest settings
 * and *since the sample index they hold from.  Several changes between two looks come as one,
 * the newest.  Any thread; takes the tuning lock briefly. */
bool zcs_pipeline_ext_take(struct zcs_pipeline *p, uint64_t *gen, struct zcs_radio_info *info,
			   uint64_t *since);

#endif
