/* SPDX-License-Identifier: MIT */
/* zcs-recv's receive thread: one UDP socket read with recvmmsg in batches, every datagram parsed
 * and validated, one stream selected, metadata applied, sample datagrams put through the reorder
 * window and the gap filler into the outputs.  rx.c does the socket, rx_stream.c the datagrams. */
#ifndef ZCS_RX_H
#define ZCS_RX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "formats.h"
#include "gapfill.h"
#include "key.h"
#include "log.h"
#include "net.h"
#include "output.h"
#include "proto.h"
#include "reorder.h"

struct zcs_rx_opts {
	const char *listen;       /* "[GROUP|ADDR][:PORT]"; NULL or "" = every local address */
	const char *iface;        /* --iface or NULL */
	const char *source;       /* --source: source-specific join and sender filter, or NULL */
	bool have_stream;         /* --stream given */
	uint32_t stream_id;
	size_t window;            /* --window datagrams; 0 = sized from the stream's rate */
	uint64_t hold_ms;         /* --hold: silence before held datagrams are released; 0 = auto */
	int rcvbuf;               /* SO_RCVBUF bytes wanted */
	size_t max_dgram;         /* largest datagram accepted (buffer size) */
	size_t batch;             /* datagrams per recvmmsg */
	bool no_gro;              /* do not ask for UDP_GRO trains (plain recvmmsg only) */
	enum zcs_sample_type type;/* -F */
	/* with type native: the reader takes each block's wire format from its pair size (the
	 * SoapySDR module's rx_embed), so a change of wire format flows on; otherwise (zcs-recv
	 * -F native, whose outputs are bytes without a header) it ends the outputs */
	bool native_follows;
	bool gap_drop;            /* --gap drop */
	uint64_t count;           /* -n: 0 = unlimited */
	bool exit_on_eos;
	/* news on the receive thread (stream found, settings, restart, resync, discontinuity, end
	 * of stream); the program decides where it goes */
	struct zcs_log log;
	/* Appended: the stream's settings changed (a retune); m holds the new ones, and since the
	 * first sample index they hold for (m->ref_sample of a CHANGE metadata; without that flag
	 * the index is not known exactly: the first sample not yet delivered).  On the receive
	 * thread; may be NULL. */
	void (*on_change)(void *ctx, const struct zcs_meta *m, uint64_t since, bool exact);
	void *on_change_ctx;
	/* --key; NULL = unkeyed (keyed streams are taken unverified, and said so) */
	const struct zcs_key *key;
};

#define ZCS_RX_DEFAULT_RCVBUF (32 * 1024 * 1024)
#define ZCS_RX_DEFAULT_MAX_DGRAM 9216   /* a jumbo frame's payload */
#define ZCS_RX_DEFAULT_BATCH 64
#define ZCS_RX_MAX_WINDOW 1024          /* default cap of the automatic window, and its capacity */
/* Samples reach the outputs' writers at most this long after they were received: blocks are
 * handed on in bursts (one writer wake-up per burst, not one per block), and a partial block
 * waits this long for more samples when the socket runs dry.  Meanwhile a flowing stream is
 * read in one go when the burst is due rather than datagram by datagram (rx.c, plan_sleep), and
 * the wait then counts from the last look at the socket, so it bounds time since arrival. */
#define ZCS_RX_HANDON_NS (1000ULL * 1000)
#define ZCS_RX_HANDON_BLOCKS 8          /* ... or as soon as this many blocks wait */

/* Reasons a datagram is dropped before the reorder window, besides enum zcs_proto_err (which
 * index the same array below them). */
enum zcs_rx_drop {
	ZCS_RX_OVERSIZE = ZCS_PERR_COUNT,  /* longer than --max-datagram: cut off by the kernel */
	ZCS_RX_INVALID_REASONS
};

/* Receive counters; see docs/receiver.md for the exact meaning of each. */
struct zcs_rx_stats {
	uint64_t datagrams;       /* every datagram read from the socket */
	uint64_t bytes;           /* their UDP payload bytes */
	uint64_t invalid;         /* datagrams rejected by the parser, the decompressor or for size */
	uint64_t invalid_by[ZCS_RX_INVALID_REASONS]; /* ... by reason (index 0 unused) */
	uint64_t filtered;        /* valid datagrams from a sender other than --source */
	uint64_t foreign;         /* valid datagrams of a stream id other than the one followed */
	uint64_t pre_meta;        /* sample datagrams dropped while the stream's metadata was unknown */
	uint64_t meta;            /* metadata datagrams of the stream followed */
	uint64_t sample_dgrams;   /* sample datagrams of the stream followed (before the window) */
	uint64_t compressed;      /* of those, zstd-compressed ones decoded */
	uint64_t socket_drops;    /* datagrams the socket dropped because its buffer was full */
	uint64_t streams;         /* streams followed (the first, then each restart) */
	uint64_t restarts;        /* sender restarts: a new stream id after an end or a silence */
	uint64_t eos;             /* end-of-stream datagrams delivered */
	uint64_t discont;         /* delivered datagrams flagged as a source discontinuity */
	uint64_t idle_flushes;    /* times a silent stream's window was flushed */
	/* datagrams dropped because the stream did not confirm what they claimed: a jump in
	 * sequence or sample index, an end of stream, a change of settings (docs/receiver.md) */
	uint64_t unconfirmed;
	int64_t age_ns;           /* wall clock now minus the newest sample's stamp (needs synced clocks) */
	bool have_age;
	/* authentic datagrams refused for not being newer than what was followed: the
	 * metadata of a run that began before the one followed, or a metadata number already
	 * seen (a replay, or a sender whose clock went back) */
	uint64_t replayed;
	/* samples the pre_meta datagrams held (when the stream's start was among them, they are
	 * also counted lost and zero-filled: see docs/receiver.md) */
	uint64_t pre_meta_samples;
	uint64_t late_joins;      /* streams followed from mid-stream: their first datagram seen was
				   * not their datagram 0 (what came before is not counted lost) */
};

/* One receive buffer; the reorder window holds them by index. */
struct zcs_rx_buf {
	uint8_t *data;            /* the datagram: `own`, or a segment of a UDP_GRO train */
	uint8_t *own;             /* this buffer's max_dgram bytes */
	struct zcs_sample_hdr hdr;
	const uint8_t *payload;   /* uncompressed samples */
	bool held;                /* in the reorder window */
};

struct zcs_codec;

struct zcs_rx {
	struct zcs_rx_opts opt;
	int fd;
	struct zcs_addr source;   /* valid when opt.source */
	struct zcs_outputs *out;
	const struct zcs_kernels *k;
	struct zcs_codec *codec;  /* NULL without zstd */
	uint8_t *scratch;         /* decompression target */

	/* buffers: window capacity + one batch, so a batch always finds free ones */
	size_t nbufs;
	uint8_t *mem;
	struct zcs_rx_buf *bufs;
	uint32_t *free_list;
	size_t nfree;
	struct mmsghdr *msgs;
	struct iovec *iov;
	struct sockaddr_storage *names;
	uint8_t *ctrl;
	size_t ctrl_len;
	uint32_t *slot_buf;       /* buffer behind each batch slot */
	/* UDP_GRO: each batch slot receives a train of datagrams into its own 64 KB; a segment is
	 * handled in place through buffer gro_buf and copied to that buffer's own memory only when
	 * the reorder window keeps it.  Without GRO (refused, or no_gro) slots use the pool. */
	bool gro;
	uint8_t *gro_mem;
	uint32_t gro_buf;

	/* the stream followed */
	bool locked;
	uint32_t stream_id;
	bool have_meta;
	struct zcs_meta meta;
	bool need_start;          /* reorder window not yet placed for this stream */
	bool have_pre_meta;       /* sample datagrams came before the metadata ... */
	uint64_t pre_meta_high;   /* ... the highest of them */
	uint64_t pre_meta_low;    /* ... and the lowest */
	bool ended;               /* its end-of-stream datagram was delivered */
	uint64_t last_rx_ns;      /* monotonic time of its newest datagram */
	uint64_t last_discont_log_ns;
	uint64_t hold_ns;         /* silence after which held datagrams are released */
	struct zcs_reorder ro;
	struct zcs_gapfill gf;
	bool done;                /* --count reached, or end of stream with --exit-on-eos */

	uint64_t handon_since;    /* monotonic time samples began waiting to be handed on (after a
				   * deferred sleep: the look before it); 0: none */
	uint64_t now_ns;          /* monotonic time of the current batch */
	/* a monotonic time at which the socket was seen empty, taken before the look
	 * that found it so; silence is claimed only up to here, never for time the receiver was
	 * descheduled with datagrams waiting in its socket */
	uint64_t dry_ns;
	uint64_t out_wall_ns;     /* wall-clock time of the newest batch delivered */
	struct zcs_rx_stats st;
	/* the last batch was full, so the next look is a read, not a wait */
	bool more;
	/* batch slots ask for the sender's address (zcs_rx_want_from) */
	bool names_on;
	/* monotonic time of the newest step that read datagrams (hand_on's forecast) */
	uint64_t last_data_ns;
	/* while samples wait to be handed on and the stream flows, the next sleep is
	 * until defer_until without watching the socket (0: a wait for data), so what arrives
	 * meanwhile is read in one go (rx.c, plan_sleep) */
	uint64_t defer_until;
	int rcvbuf;               /* the receive buffer the kernel granted, bytes */
	struct zcs_addr sender;   /* who sends the stream followed (len 0: unknown) */
	bool oversize_warned;     /* said once that the datagrams do not fit --max-datagram */

	/* appended: what the stream followed has shown, so one datagram cannot steer the receiver
	 * (docs/receiver.md, "What is believed when") */
	uint64_t quiet_ns;        /* silence of the current position after which a jump or an end
				   * is believed whatever it claims */
	uint64_t live_ns;         /* monotonic time of the newest datagram taken at the current
				   * position (the reorder window took it) */
	bool have_anchor;         /* the highest number taken so far: */
	uint64_t anchor_seq;
	uint64_t anchor_first;    /* ... its first sample */
	uint64_t anchor_end;      /* ... and the sample index after it */
	bool cand;                /* a jump awaits confirmation: */
	uint32_t cand_buf;        /* ... its first datagram, held in this buffer */
	uint64_t cand_last;       /* ... the newest number that continued it */
	uint64_t cand_end;        /* ... and the sample index after that one */
	bool eos_pending;         /* an end-of-stream datagram was delivered, not yet believed */
	uint64_t eos_seq;
	bool meta_pending;        /* unkeyed: a change of settings announced, not yet believed: */
	struct zcs_meta meta_new;
	uint64_t meta_new_ns;     /* ... monotonic time it was first announced */
	/* the socket was last seen empty at this time before the batch being handled, whose
	 * datagrams all arrived after it: silence proven, however late the receiver ran */
	uint64_t look_ns;
	/* keyed: the run followed is (stream id, salt); run_start_ns is the newest start
	 * of any run followed, and no run that began at or before it is followed again */
	uint8_t salt[8];
	bool have_run;
	uint64_t run_start_ns;
	uint64_t meta_seq;        /* newest metadata number of the run followed */
	/* the once-only news about keys */
	bool said_unkeyed, said_bad_key, said_unverified, said_replay;
};

/* Opens the socket (binding, joining, SO_RCVBUF, SO_RXQ_OVFL) and allocates every buffer. */
int zcs_rx_open(struct zcs_rx *rx, const struct zcs_rx_opts *opt, struct zcs_outputs *out,
		const struct zcs_kernels *k, char *err, size_t errlen);
void zcs_rx_close(struct zcs_rx *rx);

/* Waits up to timeout_ms for datagrams and handles what is ready (a bounded number of batches,
 * so the caller's statistics and signals are served).  Returns 1 when done (--count reached or
 * end of stream with --exit-on-eos), 0 otherwise, or -errno on a socket error. */
int zcs_rx_step(struct zcs_rx *rx, int timeout_ms);

/* Ends the stream followed as the program exits: releases what the window holds. */
void zcs_rx_finish(struct zcs_rx *rx);

/* The kernel-granted receive buffer, for the start-up line. */
int zcs_rx_rcvbuf(const struct zcs_rx *rx);
/* The sender of the stream followed (its address and port), for a control channel's default.
 * False while no stream is followed or its sender's address was not read. */
bool zcs_rx_sender(const struct zcs_rx *rx, struct zcs_addr *a);
/* Whether datagrams arrive as UDP_GRO trains (the kernel accepted UDP_GRO), for the same line. */
bool zcs_rx_gro(const struct zcs_rx *rx);
/* Whether -n's count of samples has been put out (zcs_rx_step then returned 1 for it). */
bool zcs_rx_count_reached(const struct zcs_rx *rx);
/* Whether -F native ended at a change of wire format (zcs_rx_step then returned 1 for it; the
 * news said from which format to which, at which sample). */
bool zcs_rx_format_ended(const struct zcs_rx *rx);
/* Whether a stream is followed whose end-of-stream datagram has not been delivered; its id then
 * goes to *id (may be NULL).  Such a stream is ended by the program on exit or long silence. */
bool zcs_rx_stream_open(const struct zcs_rx *rx, uint32_t *id);

/* --- rx_stream.c: per-datagram logic, called by rx.c --- */

/* Handles one datagram of len bytes in buffer b from sender `from`.  Returns true when the
 * reorder window kept the buffer (it must not be reused until released). */
bool zcs_rx_datagram(struct zcs_rx *rx, uint32_t b, size_t len, const struct sockaddr *from);
/* Time passed without datagrams: release held ones of a silent stream. */
void zcs_rx_idle(struct zcs_rx *rx);
/* How long the stream followed has certainly been silent: from its newest datagram to dry_ns,
 * the last time its socket was seen empty (0 when a datagram came since).  The hold and
 * --eos-timeout measure this, so a receiver run late still reads what waits before deciding. */
uint64_t zcs_rx_silence_ns(const struct zcs_rx *rx);
/* Whether the next batch must carry each sender's address, judged at `now`, taken before the
 * read: with --source, and while a new stream may be followed (none yet, the last one ended, or
 * it has been silent for a third of the restart silence, far ahead of it).  A followed live
 * stream needs no addresses, and copying one out per datagram costs the kernel a user copy. */
bool zcs_rx_want_from(const struct zcs_rx *rx, uint64_t now);
/* Recomputes st.age_ns from the metadata's time stamp (once per step, not per datagram). */
void zcs_rx_update_age(struct zcs_rx *rx);

#endif
