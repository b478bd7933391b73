/* SPDX-License-Identifier: MIT */
/* zcs-recv's receive path inside another program (the SoapySDR module): the same socket, reorder
 * window, gap filling and conversion, run on a receive thread of its own, and read back as blocks
 * of converted samples with the stream's events (gaps, settings changes, restarts) in order.
 * Plus discovery: which zcs streams arrive at an address, from their metadata. */
#ifndef ZCS_RX_EMBED_H
#define ZCS_RX_EMBED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* inside the C linkage block: the C++ module calls zcs_net_* too, and these headers have none */
#include "formats.h"
#include "net.h"
#include "proto.h"

/* News from the receive thread: one line without newline.  Must be thread-safe. */
typedef void (*zcs_rx_embed_log_fn)(void *ctx, const char *msg);

/* --- discovery (rx_find.c) --- */

struct zcs_rx_found {
	struct zcs_addr from;     /* the sender's address and port */
	struct zcs_meta meta;     /* its newest metadata */
};

/* Listens on `listen` ("[GROUP|ADDR][:PORT]", NULL: every address, port 5391) for up to
 * timeout_ms and collects the distinct streams (stream id and sender) whose metadata arrives,
 * at most max.  source (NULL: any) keeps one sender's; have_stream keeps one stream id.  With
 * first_only it returns as soon as one is found.  Returns the number found or -errno + err;
 * -EADDRINUSE when a unicast port is bound by another receiver, which is then left alone (a
 * unicast port is never shared: listening there would take datagrams from it).  While it
 * listens, a receiver that starts on the same unicast port fails to bind. */
int zcs_rx_find(const char *listen, const char *iface, const char *source, bool have_stream,
		uint32_t stream_id, int timeout_ms, bool first_only, struct zcs_rx_found *found,
		size_t max, char *err, size_t errlen);

/* --- receiving (rx_embed.c) --- */

/* The largest reorder window an embedder may ask for (zcs-recv --window's limit). */
#define ZCS_RX_EMBED_WINDOW_LIMIT 16384

struct zcs_rx_embed_opts {
	const char *listen;       /* as zcs-recv's positional argument; NULL: every address */
	const char *iface;
	const char *source;       /* --source */
	bool have_stream;         /* --stream */
	uint32_t stream_id;
	size_t window;            /* --window datagrams, 0: sized from the rate; at most
	                           * ZCS_RX_EMBED_WINDOW_LIMIT */
	const char *key_file;     /* --key: datagrams verified with it; NULL: unkeyed */
	/* keyed: zcs-recv's --run-state, the newest keyed run followed kept across opens so a
	 * replay of it or of an earlier run is refused (NULL: nothing kept) */
	const char *run_state;
	/* keyed: zcs-recv's --control "[HOST:]PORT" for its liveness check: a run with no record in
	 * the run state is followed only once the board says it is live (NULL: not asked) */
	const char *control;
	enum zcs_sample_type type;  /* what reads convert to (zcs_rx_embed_set_type changes it) */
	bool attached;            /* activated from the open on, before the first datagram is read */
	zcs_rx_embed_log_fn log;  /* news, called on the receive thread */
	void *log_ctx;
};

/* What the counters say, taken by the receive thread after each step. */
struct zcs_rx_embed_counters {
	uint64_t datagrams, invalid, socket_drops;
	uint64_t lost, late, duplicate, reordered;  /* datagrams, reorder window */
	uint64_t gaps, gap_samples, samples, rx_samples;
	uint64_t restarts, overruns, unread;
	uint64_t auth, unconfirmed;                 /* keyed datagrams refused; claims unconfirmed */
	bool have_meta;
};

enum zcs_rx_embed_event {
	ZCS_RX_EMBED_NONE = 0,
	ZCS_RX_EMBED_GAP,         /* samples were lost (zero-filled in what was read) */
	ZCS_RX_EMBED_JUMP,        /* the reader fell behind and lost blocks, or the index jumped */
	ZCS_RX_EMBED_CHANGE,      /* the rate changed (a new wire format alone is not told) */
	ZCS_RX_EMBED_RESTART,     /* a new stream (sender restart) */
	ZCS_RX_EMBED_EOS,         /* the stream ended */
};

/* What one read returned besides samples. */
struct zcs_rx_embed_read {
	enum zcs_rx_embed_event event;
	uint64_t first_sample;    /* samples: stream index of the first pair; GAP: of the first lost */
	uint64_t pairs;           /* GAP: pairs lost */
	struct zcs_meta meta;     /* the stream's settings for these samples */
	bool have_meta;
};

struct zcs_rx_embed;

/* Opens the socket and starts the receive thread; samples are discarded until activate
 * (or from the open on, with o->attached).
 * Returns 0 or -errno with err set. */
int zcs_rx_embed_open(struct zcs_rx_embed **e, const struct zcs_rx_embed_opts *o, char *err,
		      size_t errlen);
/* Stops the thread, closes everything.  NULL is fine. */
void zcs_rx_embed_close(struct zcs_rx_embed *e);

/* Start / stop handing samples to the reader (the socket stays open and read meanwhile). */
void zcs_rx_embed_activate(struct zcs_rx_embed *e);
void zcs_rx_embed_deactivate(struct zcs_rx_embed *e);

/* The type the next reads convert to.  The receive path keeps the wire's bytes, so the socket,
 * the stream's state and what is queued stay as they are.  The reader's thread only. */
void zcs_rx_embed_set_type(struct zcs_rx_embed *e, enum zcs_sample_type t);

/* Copies up to max_pairs converted pairs to buf, waiting up to timeout_ms for them.  Returns the
 * pairs copied (> 0, all in one contiguous run from r->first_sample), or 0 with r->event set
 * (NONE: nothing came in time), or -errno when the receive thread failed.  One event per gap,
 * reported before the zeros that stand in for it (r->first_sample: the first of them), which the
 * next reads return. */
long zcs_rx_embed_read(struct zcs_rx_embed *e, void *buf, size_t max_pairs, int timeout_ms,
		       struct zcs_rx_embed_read *r);

/* Waits up to timeout_ms for the metadata of the stream followed; true with *m and its sender
 * *from (len 0 when unknown) once it came. */
bool zcs_rx_embed_wait_meta(struct zcs_rx_embed *e, int timeout_ms, struct zcs_meta *m,
			    struct zcs_addr *from);

/* The newest counters, and the stream's newest metadata (false: none yet).  Any thread. */
void zcs_rx_embed_counters(struct zcs_rx_embed *e, struct zcs_rx_embed_counters *c);
bool zcs_rx_embed_meta(struct zcs_rx_embed *e, struct zcs_meta *m);

/* Wall-clock ns of stream index `index` from the metadata's reference (0: unknown). */
uint64_t zcs_rx_embed_time_ns(const struct zcs_meta *m, uint64_t index);

#ifdef __cplusplus
}
#endif

#endif
