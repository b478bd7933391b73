/* SPDX-License-Identifier: MIT */
/* The boundary between zcs-recv's receive thread and its outputs.  The receive thread converts
 * samples straight into a shared block; full blocks go by reference to every output's bounded
 * queue; each output drains its queue on its own writer thread.  Nothing here ever blocks the
 * receive thread: an output whose queue is full loses whole blocks, counted as its overruns (or
 * as skipped while a consumer that has just come has not yet caught up with the live stream). */
#ifndef ZCS_OUTPUT_H
#define ZCS_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl_msg.h"
#include "formats.h"
#include "log.h"
#include "net.h"
#include "proto.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of samples in one block: big enough to amortise a write(), small enough that a block
 * spans ~1 ms at 20 MS/s cs16 (80 MB/s) so latency stays low. */
#define ZCS_BLOCK_BYTES (64 * 1024)

struct zcs_outputs;

/* Per-output counters, for statistics. */
struct zcs_output_stats {
	char name[64];        /* the spec as given, e.g. "fifo:/tmp/iq" */
	uint64_t bytes;       /* bytes delivered to consumers */
	uint64_t blocks;      /* blocks delivered */
	uint64_t overruns;    /* blocks dropped because this output's queue was full */
	/* blocks a consumer that had just come skipped: its queue was full before it first caught
	 * up with the live stream (it jumps once, at its start; not overruns) */
	uint64_t skipped;
	uint64_t connects;    /* consumers that came (FIFO readers, TCP clients) */
	uint32_t consumers;   /* consumers now attached */
	uint32_t queued;      /* blocks now queued */
	uint64_t unread;      /* blocks discarded because no consumer was attached (not overruns) */
	uint64_t commands;    /* commands consumers sent (rtl_tcp clients) */
	uint64_t forwarded;   /* ... of those, forwarded to the control channel (the tune hook) */
	uint64_t not_allowed; /* ... settings from clients the allow hook refused: not forwarded */
};

/* A TCP or rtl_tcp client that takes no byte for this long while data waits for it is dropped,
 * so clients that never read cannot hold every slot (zcs-recv --client-timeout). */
#define ZCS_OUTPUTS_CLIENT_TIMEOUT_MS 5000

/* Creates an empty set; type is the consumer sample type all outputs receive. Returns 0/-errno. */
int zcs_outputs_create(struct zcs_outputs **out, enum zcs_sample_type type);
/* Adds an output from its spec: "fifo:PATH", "tcp:[ADDR:]PORT", "tcp-connect:HOST:PORT",
 * "udp:HOST:PORT", "file:PATH", "-", "rtl_tcp:[ADDR:]PORT", "sigmf:PATH".  Opens sockets and
 * files now, so a bad spec fails before anything starts.  Returns 0 or -errno with err set. */
int zcs_outputs_add(struct zcs_outputs *o, const char *spec, char *err, size_t errlen);
/* Sets the sink of the writer threads' news (a consumer came or left, an rtl_tcp command), before
 * start; each line begins with the output's name.  It is called on those threads, so it must be
 * thread-safe.  Without one the outputs are silent. */
void zcs_outputs_set_log(struct zcs_outputs *o, struct zcs_log log);
/* Sets where the rtl_tcp: output sends what its clients ask the radio to do (set_freq,
 * set_sample_rate, set_gain_mode, set_gain or set_gain_by_index, set_bandwidth), as settings to
 * merge into the next control-channel set (zcs-recv --control).  fn is called on the writer
 * threads and must not block.  Without it (the default) the commands are ignored and counted.
 * Before start. */
void zcs_outputs_set_tune(struct zcs_outputs *o,
			  void (*fn)(void *ctx, const struct zcs_ctl_settings *want), void *ctx);
/* Appended: which rtl_tcp: clients the tune hook hears.  allow(ctx, peer), ctx the tune hook's,
 * is asked once per client when it comes (on its writer thread, so it must be thread-safe); a
 * client it refuses still gets the samples, and its settings are counted (not_allowed), said once
 * and not handed to the hook.  Without it every client is heard.  Before start. */
void zcs_outputs_set_tune_allow(struct zcs_outputs *o,
				bool (*allow)(void *ctx, const struct zcs_addr *peer));
/* Appended: 1 with the address output i listens on when its clients' commands go to the tune
 * hook (rtl_tcp:), 0 for any other output. */
int zcs_outputs_tune_listen(struct zcs_outputs *o, size_t i, struct zcs_addr *a);
/* The client timeout in ms (0: never drop); before zcs_outputs_start. */
void zcs_outputs_set_client_timeout(struct zcs_outputs *o, uint64_t ms);
/* Outputs whose only consumer failed for good (a file or stdout write error; a recording that
 * cannot grow): 0 when none, else the errno of one (a real error before EPIPE, a reader gone),
 * its index in *index, and in *all whether every output has ended so.  Any thread. */
int zcs_outputs_failed(struct zcs_outputs *o, size_t *index, bool *all);
/* Starts the writer threads.  Returns 0 or -errno. */
int zcs_outputs_start(struct zcs_outputs *o);

/* --- receive thread only, never blocking --- */

/* A stream started, or its settings changed: every output sees this before the samples after it. */
void zcs_outputs_meta(struct zcs_outputs *o, const struct zcs_meta *meta);
/* Space for at least len bytes at the end of the current block (len <= ZCS_BLOCK_BYTES); the
 * caller writes converted samples there and then calls commit. */
void *zcs_outputs_reserve(struct zcs_outputs *o, size_t len);
/* Commits len bytes (pairs I/Q pairs, the first at stream index first_sample) written at the
 * pointer reserve returned. */
void zcs_outputs_commit(struct zcs_outputs *o, uint64_t first_sample, size_t pairs, size_t len);
/* pairs samples from stream index first_sample were lost; filled says whether the caller already
 * committed that many zero samples in their place (--gap zero) or skipped them (--gap drop). */
void zcs_outputs_gap(struct zcs_outputs *o, uint64_t first_sample, uint64_t pairs, bool filled);
/* Queues the current partial block now (call when the socket has nothing more ready). */
void zcs_outputs_flush(struct zcs_outputs *o);
/* The stream ended (end-of-stream flag, or the program is exiting). */
void zcs_outputs_eos(struct zcs_outputs *o);
/* Defers writer wake-ups: a block queued from now on wakes
 * its writer only at the next zcs_outputs_flush() (or when a queue is half full), so a burst of
 * blocks costs one wake-up instead of one each.  Off by default; a caller that turns it on must
 * flush within its latency budget (zcs-recv: at most ZCS_RX_HANDON_NS after the data). */
void zcs_outputs_defer_wakes(struct zcs_outputs *o, bool on);
/* Blocks not yet handed to a writer: queued with the wake-up deferred, plus the partial block
 * being filled (counted as one when it holds data). */
size_t zcs_outputs_pending(const struct zcs_outputs *o);

/* --- any thread --- */

size_t zcs_outputs_count(const struct zcs_outputs *o);
/* Copies output i's counters into *st. */
void zcs_outputs_stats(struct zcs_outputs *o, size_t i, struct zcs_output_stats *st);
/* Queues the partial block and waits up to timeout_ms until every attached consumer has written
 * everything queued, without stopping anything: call it before reading the final statistics.
 * Returns 0, or -ETIMEDOUT when a consumer still had blocks. */
int zcs_outputs_drain(struct zcs_outputs *o, int timeout_ms);
/* Waits up to timeout_ms for every queue to drain (for --count / end of stream), stops the writer
 * threads, closes everything and frees o. */
void zcs_outputs_destroy(struct zcs_outputs *o, int timeout_ms);

/* --- an output read inside this process (the SoapySDR module, rx_embed.h): the receive thread
 * queues to it as to any output, the consumer's own thread takes the items --- */

struct zcs_reader;

/* What an item of a reader carries, in the order the receive thread queued it.  Every consumer
 * switches on the kind: a new kind is a new event of the stream (never a new way to say one of
 * these), added at the end, and every consumer (rx_embed.c) taught it in the same change. */
enum zcs_reader_kind {
	ZCS_READER_DATA = 0,      /* pairs converted samples from stream index first_sample */
	ZCS_READER_META,          /* the stream started or its settings changed: meta */
	ZCS_READER_GAP,           /* pairs samples from first_sample were lost; filled: the zeros
				   * standing in for them came in the data before this item */
	ZCS_READER_EOS,           /* the stream ended */
};

/* One item in stream order.  data stays valid until the next zcs_reader_next or release. */
struct zcs_reader_item {
	enum zcs_reader_kind kind;
	uint64_t first_sample;
	uint64_t pairs;
	const uint8_t *data;      /* DATA: len bytes, whole pairs of the set's sample type */
	size_t len;
	bool filled;              /* GAP */
	struct zcs_meta meta;     /* META */
};

/* Adds an output that has no writer thread and no descriptor: one consumer in this process
 * takes its blocks with zcs_reader_next.  It starts detached (blocks for it are counted as
 * unread); attach and detach may be called at any time from the consumer's thread.  Its queue
 * is ZCS_BLOCK_BYTES x 256 deep; a consumer that falls behind loses whole blocks, counted as the
 * output's overruns, and sees them as a jump of first_sample.  Returns 0 or -errno with err set. */
int zcs_outputs_add_reader(struct zcs_outputs *o, const char *name, struct zcs_reader **r,
			   char *err, size_t errlen);
/* Start or stop queueing to the reader.  Detach discards what is queued (and what it holds). */
void zcs_reader_attach(struct zcs_reader *r);
void zcs_reader_detach(struct zcs_reader *r);
/* Releases the item the reader holds (if any) and waits up to timeout_ms (-1: for ever) for
 * the next one.  Returns 1 with *it set, 0 when nothing came in time (or detached). */
int zcs_reader_next(struct zcs_reader *r, int timeout_ms, struct zcs_reader_item *it);
/* Releases the item held, so the block goes back to the pool (before destroy, too). */
void zcs_reader_release(struct zcs_reader *r);
/* The newest metadata the receive thread handed the outputs, whether attached or not (any
 * thread).  False when none yet. */
bool zcs_reader_last_meta(struct zcs_reader *r, struct zcs_meta *m);

#ifdef __cplusplus
}
#endif

#endif
