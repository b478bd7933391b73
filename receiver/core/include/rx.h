/* SPDX-License-Identifier: MIT */
/* zcs-recv's receive engine: one UDP socket read with recvmmsg in batches, every datagram parsed
 * and validated, one stream followed, its metadata applied, its sample datagrams put through the
 * reorder window and the gap filler into the outputs.  The engine's one public header (with
 * rx_counters.h): its parts and insides are private to receiver/core. */
#ifndef ZCS_RX_H
#define ZCS_RX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "formats.h"
#include "key.h"
#include "log.h"
#include "net.h"
#include "output.h"
#include "proto.h"
#include "runstate.h"
#include "rx_counters.h"

struct zcs_rx_opts {
	const char *listen;       /* "[GROUP|ADDR][:PORT]"; NULL or "" = every local address */
	const char *iface;        /* --iface or NULL */
	const char *source;       /* --source: source-specific join and sender filter, or NULL */
	bool have_stream;         /* --stream given */
	uint32_t stream_id;
	size_t window;            /* --window datagrams; 0 = sized from the stream's rate */
	uint64_t hold_ms;         /* --hold: silence before held datagrams are released; 0 = auto */
	int rcvbuf;               /* SO_RCVBUF bytes wanted */
	size_t max_dgram;         /* largest datagram accepted (0: ZCS_RX_DEFAULT_MAX_DGRAM) */
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
	/* the stream's settings changed (a retune), not called for its first settings; m holds
	 * the new ones, and since the first sample index they hold for (m->ref_sample of a CHANGE
	 * metadata; without that flag the index is not known exactly: the first sample not yet
	 * delivered).  On the receive thread; may be NULL. */
	void (*on_change)(void *ctx, const struct zcs_meta *m, uint64_t since, bool exact);
	void *on_change_ctx;
	/* --key; NULL = unkeyed (keyed streams are taken unverified, and said so) */
	const struct zcs_key *key;
	/* keyed: the newest run followed before (the program's run state, --run-state), copied
	 * at open; NULL: none.  zcs_rx_run_newest gives what to keep for next time. */
	const struct zcs_run_seen *run_seen;
	/* keyed: the liveness check (zcs-recv --control, receiver/control/ctl_live.h); judge NULL:
	 * none.  With one, a new keyed run is followed only once it says the board streams it */
	struct zcs_run_check run_check;
	/* with run_check: the bytes kept of a run awaiting the board's answer (rx_hold.h), 0:
	 * ZCS_RX_HOLD_BYTES; unkeyed: of a stream whose start awaits confirmation, 0: 4 MiB */
	size_t hold_bytes;
};

#define ZCS_RX_DEFAULT_RCVBUF (32 * 1024 * 1024)
/* Every datagram the protocol allows is taken (docs/protocol.md, "Datagram size"): what the
 * engine keeps is sized from the stream's metadata instead (receiver/core/rx_pool.h). */
#define ZCS_RX_DEFAULT_MAX_DGRAM ZCS_PROTO_MAX_DGRAM
#define ZCS_RX_DEFAULT_BATCH 64
#define ZCS_RX_MAX_WINDOW 1024          /* default cap of the automatic window, and its capacity */
/* The largest window a caller may ask for: the reorder history must reach twice as far as the
 * window, and then some (ZCS_REORDER_HISTORY / 4). */
#define ZCS_RX_WINDOW_LIMIT 16384
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
	/* longer than --max-datagram, or a sample datagram longer than its stream's metadata
	 * announced while the engine's buffers cannot grow (receiver/core/rx_pool.h) */
	ZCS_RX_OVERSIZE = ZCS_PERR_COUNT,
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
	 * metadata of a run that is not fresh, or a metadata number already seen (a replay);
	 * by reason, enum zcs_replay_reason (runstate.h) */
	uint64_t replayed;
	uint64_t replayed_by[ZCS_REPLAY_REASONS];
	/* samples the pre_meta datagrams held (when the stream's start was among them, they are
	 * also counted lost and zero-filled: see docs/receiver.md) */
	uint64_t pre_meta_samples;
	uint64_t late_joins;      /* streams followed from mid-stream: their first datagram seen was
				   * not their datagram 0 (what came before is not counted lost) */
	/* erasure coding (docs/receiver.md, "Restoring lost datagrams") */
	uint64_t parity;          /* parity datagrams of the stream followed */
	uint64_t restored;        /* sample datagrams rebuilt from parity and put in place */
	uint64_t unrecoverable;   /* blocks left with sample datagrams missing (zero-filled) */
	uint64_t rebuilt_refused; /* rebuilt datagrams not believed (their own tag failed) */
};

/* Everything the counters say at one moment (zcs_rx_snapshot), for statistics and embedders. */
struct zcs_rx_snapshot {
	struct zcs_rx_stats rx;
	struct zcs_reorder_stats ro;
	struct zcs_gapfill_stats gf;
	size_t depth, window;     /* datagrams held now; the window in use */
	/* erasure coding: the stream's K:M as its metadata announces it, else as its parity says
	 * (0: none); the bytes of the store for parity and the datagrams it may rebuild (0 until a
	 * stream with parity is followed); the sample datagrams copied into it */
	uint8_t fec_k, fec_m;
	size_t fec_store_bytes;
	uint64_t fec_kept;
	bool locked;              /* a stream is followed: */
	uint32_t stream_id;
	bool have_meta;           /* ... and its settings, as believed: */
	struct zcs_meta meta;
	bool ended;               /* ... its end of stream was believed */
	/* claims awaiting confirmation (docs/receiver.md, "What is believed when"): a jump, an end
	 * of stream, a change of settings (unkeyed) */
	bool jump_pending, eos_pending, meta_pending;
};

/* The engine: opaque, reached through the functions below. */
struct zcs_rx;

/* Opens the socket (binding, joining, SO_RCVBUF, SO_RXQ_OVFL) and allocates the engine with every
 * buffer into *rxp.  Samples, metadata and ends of stream go to out; k converts.  Returns 0, or
 * -errno with err set (-EINVAL for a bad option). */
int zcs_rx_open(struct zcs_rx **rxp, const struct zcs_rx_opts *opt, struct zcs_outputs *out,
		const struct zcs_kernels *k, char *err, size_t errlen);
/* Closes the socket and frees everything (NULL is fine).  The outputs are the caller's. */
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
/* The newest keyed run followed, for the program to keep (zcs_rx_opts.run_seen next time); its
 * meta_seq grows as the run goes on.  False while there is none. */
bool zcs_rx_run_newest(const struct zcs_rx *rx, struct zcs_run_seen *out);
/* Whether a stream is followed whose end-of-stream datagram has not been delivered; its id then
 * goes to *id (may be NULL).  Such a stream is ended by the program on exit or long silence. */
bool zcs_rx_stream_open(const struct zcs_rx *rx, uint32_t *id);

/* Every counter and the stream's state now (on the receive thread, or under the caller's lock). */
void zcs_rx_snapshot(const struct zcs_rx *rx, struct zcs_rx_snapshot *s);
/* "every address, port 5391" for an empty listen, else listen itself: how start-up lines name
 * where the receiver listens. */
const char *zcs_rx_listen_name(const char *listen, char *buf, size_t len);
/* The decompressor the engine holds (NULL in a build without zstd): it decodes only. */
const struct zcs_codec *zcs_rx_codec(const struct zcs_rx *rx);

/* Hands the len bytes at d to the engine as if read from the socket at monotonic time now_ns,
 * from `from`, with the socket seen empty right after it (a replay of captured traffic, and the
 * tests' way to drive the engine datagram by datagram with the clock in their hands). */
void zcs_rx_feed(struct zcs_rx *rx, const void *d, size_t len, const struct sockaddr *from,
		 uint64_t now_ns);
/* Time passes to now_ns with the socket empty: what zcs_rx_step does when nothing comes. */
void zcs_rx_tick(struct zcs_rx *rx, uint64_t now_ns);

/* How long the stream followed has certainly been silent: from its newest datagram to dry_ns,
 * the last time its socket was seen empty (0 when a datagram came since).  The hold and
 * --eos-timeout measure this, so a receiver run late still reads what waits before deciding. */
uint64_t zcs_rx_silence_ns(const struct zcs_rx *rx);

#endif
