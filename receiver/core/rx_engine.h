/* SPDX-License-Identifier: MIT */
/* The receive engine's state, shared by its files: rx.c (the socket, the buffers, the batches),
 * rx_dgram.c (each datagram, from the buffer to the window and the gap filler), rx_parity.c
 * (the erasure code's part) and rx_pending.c (a run awaiting the board).  Private to
 * receiver/core: users see include/rx.h only. */
#ifndef ZCS_RX_ENGINE_H
#define ZCS_RX_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "fec_rx.h"
#include "gapfill.h"
#include "reorder.h"
#include "rx.h"
#include "rx_follow.h"
#include "rx_hold.h"

/* One receive buffer; the reorder window holds them by index. */
struct zcs_rx_buf {
	uint8_t *data;            /* the datagram: `own`, or a segment of a UDP_GRO train */
	uint8_t *own;             /* this buffer's buf_size bytes */
	struct zcs_sample_hdr hdr;
	const uint8_t *payload;   /* uncompressed samples */
	bool held;                /* in the reorder window, or the jump awaiting confirmation */
};

struct zcs_codec;

/* The counters the engine itself keeps (the rest: the stream-following unit's, the window's and
 * the gap filler's), each as defined in rx.h's struct zcs_rx_stats. */
struct zcs_rx_engine_stats {
	uint64_t datagrams, bytes, invalid, filtered, sample_dgrams, compressed, socket_drops;
	uint64_t discont, idle_flushes;
	uint64_t invalid_by[ZCS_RX_INVALID_REASONS];
	int64_t age_ns;
	bool have_age;
};

struct zcs_rx {
	struct zcs_rx_opts opt;
	int fd;
	struct zcs_addr source;   /* valid when opt.source */
	struct zcs_outputs *out;  /* reached through gf only, but for the set-up at open */
	const struct zcs_kernels *k;
	struct zcs_codec *codec;  /* NULL without zstd */
	uint8_t *scratch;         /* decompression target */

	/* buffers (rx_pool.h): window capacity + one batch + the jump's + what a parity datagram
	 * rebuilds, so a batch always finds free ones; buf_size bytes each */
	size_t nbufs;
	size_t buf_size;
	uint8_t *mem;
	struct zcs_rx_buf *bufs;
	uint32_t *free_list;
	size_t nfree;
	struct mmsghdr *msgs;
	struct iovec *iov;
	struct sockaddr_storage *names;
	uint8_t *ctrl;
	size_t ctrl_len;
	/* each batch slot receives into its own 64 KB (so every datagram the protocol allows fits),
	 * with UDP_GRO a train of datagrams; each datagram is handled in place through buffer
	 * gro_buf and copied to a buffer's own memory only when the engine keeps it */
	bool gro;
	uint8_t *slot_mem;
	uint32_t gro_buf;

	struct zcs_follow fs;     /* which stream, and what of it is believed */
	struct zcs_reorder ro;
	struct zcs_gapfill gf;    /* the one door to the outputs */
	struct zcs_fec_rx fec;    /* parity, and the datagrams it may rebuild */
	/* keyed with a liveness check: the datagrams of a run awaiting the board (else empty) */
	struct zcs_rx_hold hold;
	/* the engine's entrance for a datagram (zcs_rx_datagram, set by zcs_rx_dgram_init), for
	 * what its parts hand back in: a datagram the parity rebuilt (rx_parity.c) goes through
	 * everything a received one does, and this part, below rx_dgram.c, never calls up into it */
	bool (*datagram)(struct zcs_rx *rx, uint32_t b, size_t len, const struct sockaddr *from);
	bool fec_placing;         /* a rebuilt datagram is being placed (no rebuild within) */
	bool said_fec, said_fec_window;
	bool done;                /* --count reached, or end of stream with --exit-on-eos */
	uint64_t last_discont_log_ns;

	uint64_t handon_since;    /* monotonic time samples began waiting to be handed on (after a
				   * deferred sleep: the look before it); 0: none */
	uint64_t now_ns;          /* monotonic time of the current batch */
	/* a monotonic time at which the socket was seen empty, taken before the look that found
	 * it so; silence is claimed only up to here, never for time the receiver was descheduled
	 * with datagrams waiting in its socket */
	uint64_t dry_ns;
	/* the socket was last seen empty at this time before the batch being handled, whose
	 * datagrams all arrived after it: silence proven, however late the receiver ran */
	uint64_t look_ns;
	uint64_t out_wall_ns;     /* wall-clock time of the newest batch delivered */
	struct zcs_rx_engine_stats st;
	/* the last batch was full, so the next look is a read, not a wait */
	bool more;
	/* batch slots ask for the sender's address (zcs_rx_want_from) */
	bool names_on;
	/* monotonic time of the newest step that read datagrams (hand_on's forecast) */
	uint64_t last_data_ns;
	/* while samples wait to be handed on and the stream flows, the next sleep is until
	 * defer_until without watching the socket (0: a wait for data), so what arrives meanwhile
	 * is read in one go (rx.c, plan_sleep) */
	uint64_t defer_until;
	int rcvbuf;               /* the receive buffer the kernel granted, bytes */
	bool oversize_warned;     /* said once that the datagrams do not fit --max-datagram */
	/* the once-only news about keys */
	bool said_unkeyed, said_bad_key, said_unverified;
};

/* A held datagram (rx_hold.h) into a free buffer of the pool, parsed again to point into it:
 * 1 with *bi, 0 when no buffer takes it (none free, or it is longer than a buffer: the caller
 * counts it as it must), -1 when it no longer parses (the buffer goes back).  Here, not in
 * rx.c: the start's and the liveness hold's files use it, and rx.c calls them. */
static inline int zcs_rx_unhold(struct zcs_rx *rx, const uint8_t *data, uint32_t len,
				struct zcs_dgram *dg, uint32_t *bi)
{
	uint32_t hb;

	if (rx->nfree == 0 || len > rx->buf_size)
		return 0;
	hb = rx->free_list[--rx->nfree];
	rx->bufs[hb].data = rx->bufs[hb].own;
	memcpy(rx->bufs[hb].own, data, len);
	if (zcs_proto_parse(rx->bufs[hb].own, len, dg) < 0) {
		rx->free_list[rx->nfree++] = hb;
		return -1;
	}
	*bi = hb;
	return 1;
}

/* How long the stream followed has certainly been silent (rx.h, zcs_rx_silence_ns). */
static inline uint64_t zcs_rx_silence(const struct zcs_rx *rx)
{
	return rx->dry_ns > rx->fs.last_rx_ns ? rx->dry_ns - rx->fs.last_rx_ns : 0;
}

#endif
