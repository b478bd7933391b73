/* SPDX-License-Identifier: MIT */
/* The internal interface between the output framework (out_pool.c, out_feed.c, outputs.c,
 * out_writer.c) and each output kind (out_*.c).  Not for the receive thread: it uses output.h. */
#ifndef ZCS_OUTPUT_KINDS_H
#define ZCS_OUTPUT_KINDS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats.h"
#include "net.h"
#include "output.h"
#include "proto.h"
#include "ring.h"

/* Queue depth of an output with one consumer: 256 blocks = 16 MB, 200 ms of cs16 at 20 MS/s
 * (80 MB/s) and 100 ms of cf32, enough to ride out a consumer's scheduling hiccup.  Pool memory that is never
 * touched costs no RAM: blocks are reused LIFO, so only the working set becomes resident. */
#define ZCS_OUT_QUEUE_BLOCKS 256
/* Server kinds: clients at once, and each one's queue (8 MB: a network client runs at its
 * link's pace anyway; a slow one only loses its own blocks). */
#define ZCS_OUT_MAX_CLIENTS 4
#define ZCS_OUT_CLIENT_QUEUE_BLOCKS 128
/* Queue slots kept free of data so meta/gap/eos events still fit when data fills a queue. */
#define ZCS_OUT_EVENT_SLOTS 16
/* A consumer that has just come has caught up with the live stream (out_queue.c) once it was
 * given this much and the kernel holds little of it: more than the receive buffer of a
 * client that reads nothing takes in (Linux's default 128 KB; 2 x rmem_max, a few MB at most,
 * for one that asks for more), so some of it was read.  What waits in our send queue (SIOCOUTQ)
 * and in a pipe (FIONREAD) the kernel tells; the peer's receive buffer it does not. */
#define ZCS_OUT_CATCHUP_BYTES (4u * 1024 * 1024)
/* ... and not before this long after it came: SDR++ reads a burst when it connects, emptying the
 * queue, then reads slowly for 0.3-1.8 s while it starts (measured: docs/measurements.md, "The
 * first second after connect"); what it cannot take then is its start, skipped, not overruns. */
#define ZCS_OUT_CATCHUP_NS (3ull * 1000000000)
/* Writer threads look at their consumer (reconnect, commands, departures) this often. */
#define ZCS_OUT_TICK_MS 100

enum zcs_block_type {
	ZCS_BLOCK_DATA = 0,
	ZCS_BLOCK_META,
	ZCS_BLOCK_GAP,
	ZCS_BLOCK_EOS,
};

/* One pool block: samples, or one event.  Shared read-only by every queue holding it. */
struct zcs_block {
	atomic_uint refs;
	enum zcs_block_type type;
	bool filled;             /* GAP: zeros were committed in place of the lost samples */
	uint64_t first_sample;   /* DATA: stream index of the first pair; GAP: of the first lost */
	uint64_t pairs;          /* DATA: pairs held; GAP: pairs lost */
	size_t len;              /* DATA: bytes held (whole pairs) */
	struct zcs_meta meta;    /* META */
	uint8_t *data;           /* ZCS_BLOCK_BYTES */
	struct zcs_block *next_free;
};

enum zcs_sink_state {
	ZCS_SINK_FREE = 0,    /* no consumer */
	ZCS_SINK_CLAIMED,     /* a server's accept thread is handing it a client */
	ZCS_SINK_PENDING,     /* a client fd is waiting to be greeted by the sink's thread */
	ZCS_SINK_ATTACHED,    /* the receive thread queues blocks to it */
	ZCS_SINK_DETACHING,   /* the consumer left; its queue is being emptied */
};

/* One consumer slot of an output: its own queue and writer thread. */
struct zcs_sink {
	struct zcs_out *out;
	size_t index;
	struct zcs_ring q;
	int efd;                 /* eventfd: wakes the writer thread */
	int fd;                  /* the consumer's fd while attached (closed by the framework) */
	bool is_socket;          /* write with send(MSG_NOSIGNAL) */
	atomic_int state;        /* enum zcs_sink_state */
	atomic_bool sleeping;    /* the writer waits on efd: the receive thread must wake it */
	atomic_bool busy;        /* the writer holds a block (drain check at destroy) */
	bool wake_pending;       /* receive thread only: queued while wake-ups were deferred */
	pthread_t thread;
	bool thread_started;
	char peer[64];           /* who the consumer is, for news */
	bool rd_closed;          /* a client half-closed (shutdown SHUT_WR): it still receives */
	void *kpriv;             /* per-consumer state of the kind (freed by the framework) */
	/* Catching up (out_queue.c): from attach until the consumer first took the live stream,
	 * blocks it cannot take are skipped at its start rather than lost in its middle.  Set at
	 * attach and cleared by the sink's own thread, both under out->mu, which the receive
	 * thread holds when it reads it. */
	bool catching_up;
	uint64_t pushed;         /* receive thread, under out->mu: data blocks queued since attach */
	/* data blocks queued (pushed) when the queue was last found full while catching up: the
	 * writer discards every data block up to this one */
	_Atomic uint64_t mark;
	uint64_t popped;         /* sink's thread: data blocks taken from the queue since attach */
	uint64_t given;          /* sink's thread: bytes written to the consumer since attach */
	uint64_t attached_ns;    /* sink's thread: monotonic time of the attach */
	_Atomic uint64_t skipped; /* this consumer's skipped blocks, for its news */
};

struct zcs_out_ops;

/* One -o output. */
struct zcs_out {
	struct zcs_outputs *set;
	const struct zcs_out_ops *ops;
	char name[64];           /* the spec, cut to fit news lines and statistics */
	char *spec;              /* the whole spec: two outputs with the same one are refused */
	enum zcs_sample_type type;
	void *priv;              /* the kind's state (freed by the framework) */
	pthread_mutex_t mu;      /* sink attach/detach against the receive thread's queueing */
	struct zcs_sink *sinks;
	size_t nsinks;
	int listen_fd;           /* server kinds: set by open, accepted on by the framework */
	pthread_t accept_thread;
	bool accept_started;
	bool have_meta;          /* under mu: the latest metadata */
	struct zcs_meta meta;
	_Atomic uint64_t bytes, blocks, overruns, unread, connects, commands;
	_Atomic uint64_t skipped;    /* blocks consumers skipped while catching up (out_queue.c) */
	_Atomic uint64_t forwarded;  /* rtl_tcp commands handed to the tune hook */
	_Atomic uint64_t not_allowed; /* rtl_tcp settings of clients the allow hook refused */
	atomic_uint consumers;
	atomic_int failed;       /* errno of the failure that ended a ->once output for good */
	/* server kinds: a client was turned away because every slot was held, and no slot has
	 * been freed since; only then is a client that reads nothing dropped */
	atomic_bool slot_wanted;
};

/* What a kind provides.  All hooks but open and close run on the sink's own writer thread. */
struct zcs_out_ops {
	const char *prefix;      /* "fifo:" ... ("-" is the file kind) */
	bool server;             /* ZCS_OUT_MAX_CLIENTS sinks fed from listen_fd's clients */
	/* The consumer is opened once, at start (file, stdout, sigmf): when its write fails, the
	 * output has ended for good, and the program is told (zcs_outputs_failed). */
	bool once;
	/* A consumer comes and may take a while to start reading (a FIFO reader, a TCP client,
	 * tcp-connect's peer): until it has caught up with the live stream once, the blocks it
	 * cannot take are skipped at its start (out_queue.c), not overruns. */
	bool catch_up;
	/* Bytes of zeroed state the framework allocates before open: out->priv, each sink's
	 * kpriv (0: none). */
	size_t priv_size, sink_priv_size;
	/* Parses arg (the spec after the prefix), opens files and sockets.  0 or -errno + err. */
	int (*open)(struct zcs_out *out, const char *arg, char *err, size_t errlen);
	/* Nothing to write: attach a consumer (fifo, tcp-connect) or look after one.  May be NULL. */
	void (*idle)(struct zcs_sink *s);
	/* A server handed s the client s->fd: greet it before any data (rtl_tcp).  <0 drops it. */
	int (*greet)(struct zcs_sink *s);
	/* Writes a data block; returns bytes delivered, or -errno: the consumer is gone (detached by
	 * the framework) or -ECANCELED (stopping). */
	long (*write)(struct zcs_sink *s, const struct zcs_block *b);
	/* A META, GAP or EOS block, in order with the data.  May be NULL. */
	void (*event)(struct zcs_sink *s, const struct zcs_block *b);
	/* At destroy after the threads stopped, or after a failed open (priv and kpriv may then be
	 * NULL or half set up): finish, and free what priv and kpriv point to.  The framework
	 * frees priv and kpriv themselves and closes the sinks' fds afterwards.  May be NULL. */
	void (*close)(struct zcs_out *out);
	/* appended: no writer thread; a consumer in this process pops the queue (out_reader.c) */
	bool in_process;
};

extern const struct zcs_out_ops zcs_out_fifo_ops, zcs_out_tcp_ops, zcs_out_tcpc_ops,
	zcs_out_udp_ops, zcs_out_file_ops, zcs_out_rtltcp_ops, zcs_out_sigmf_ops;

/* Adds an output of an in-process kind (ops->in_process) named name, returned in *added.
 * 0 or -errno with err set. */
int zcs_outputs_add_in_process(struct zcs_outputs *o, const struct zcs_out_ops *ops,
			       const char *name, struct zcs_out **added, char *err, size_t errlen);

/* --- the block pool (out_pool.c) --- */

struct zcs_out_pool {
	/* Sized at start so a block is always free (zcs_outputs_start); the free list is a LIFO
	 * so the hot blocks stay resident and the untouched rest never costs RAM. */
	struct zcs_block *blocks;
	uint8_t *mem;
	size_t nblocks;
	pthread_mutex_t mu;          /* the free list, against writers returning blocks */
	struct zcs_block *free_list;
	struct zcs_block spare;      /* handed out only when the list is empty: filled, never queued */
};

/* Allocates the spare block (the pool is empty until filled).  0 or -ENOMEM. */
int zcs_out_pool_init(struct zcs_out_pool *p);
/* Allocates nblocks blocks, all free.  0 or -ENOMEM (zcs_out_pool_free still cleans up). */
int zcs_out_pool_fill(struct zcs_out_pool *p, size_t nblocks);
/* Receive thread: a block with one reference, reset to type; the spare if none is free. */
struct zcs_block *zcs_out_pool_get(struct zcs_out_pool *p, enum zcs_block_type type);
/* True for the spare, which must never be queued. */
bool zcs_out_pool_is_spare(const struct zcs_out_pool *p, const struct zcs_block *b);
/* Any thread: drops one reference; the last returns the block to the free list. */
void zcs_out_pool_put(struct zcs_out_pool *p, struct zcs_block *b);
/* Frees everything: no block may be in use any more. */
void zcs_out_pool_free(struct zcs_out_pool *p);

/* --- one consumer's queue (out_queue.c) ---
 *
 * The receive thread pushes, the sink's thread pops (the ring is single-producer single-
 * consumer).  A consumer that has just come is often slow to start reading (an application
 * building its DSP chain after it connected): while it is catching up, the receive thread that
 * finds its queue full marks how many data blocks it has pushed so far and skips the block; the
 * sink's thread then discards every data block up to that mark (events are still delivered).
 * So the consumer's stream jumps once, to the live stream, where it starts, and what follows is
 * whole.  Catching up ends when the sink's thread finds its queue empty, has given the consumer
 * ZCS_OUT_CATCHUP_BYTES, the kernel holds less than half what it may hold for it (a block at
 * least), and ZCS_OUT_CATCHUP_NS have passed since it came: from then on a full queue is an overrun, a hole the consumer's slowness made. */

enum zcs_out_push {
	ZCS_OUT_PUSHED = 0,
	ZCS_OUT_SKIPPED,         /* a catching-up consumer's queue was full: skipped, marked */
	ZCS_OUT_OVERRUN,         /* the queue was full: the block is lost for this consumer */
};

/* Receive thread, under s->out->mu, s attached: queues b (taking a reference) or says why not.
 * Data blocks leave ZCS_OUT_EVENT_SLOTS free for events. */
enum zcs_out_push zcs_out_queue_push(struct zcs_sink *s, struct zcs_block *b);
/* Sink's thread: the next block to deliver, or NULL when the queue is empty.  Data blocks up to
 * the mark of a catching-up consumer are returned to pool and counted in *skipped. */
struct zcs_block *zcs_out_queue_pop(struct zcs_sink *s, struct zcs_out_pool *pool,
				    uint64_t *skipped);
/* Sink's thread, at attach (under s->out->mu, the queue empty) at monotonic time now_ns: counts
 * start again, and the consumer catches up if catch_up. */
void zcs_out_queue_reset(struct zcs_sink *s, bool catch_up, uint64_t now_ns);
/* Sink's thread, its queue found empty: true when a catching-up consumer has now caught up,
 * held being the bytes the kernel still holds for it, of room it may hold (a socket's send
 * buffer, a pipe's size): less than half of it, or less than a block, must be held, and
 * ZCS_OUT_CATCHUP_NS must have passed since the attach at now_ns.  The caller ends catching up
 * (zcs_out_queue_caught_up_end). */
bool zcs_out_queue_caught_up(struct zcs_sink *s, size_t held, size_t room, uint64_t now_ns);
/* Sink's thread: catching up is over; full queues are overruns from now on. */
void zcs_out_queue_caught_up_end(struct zcs_sink *s);

/* --- the set, shared by the framework's files --- */

#define ZCS_OUT_MAX 32           /* outputs in one set (zcs-recv allows 16) */

struct zcs_outputs {
	enum zcs_sample_type type;
	struct zcs_out *outs[ZCS_OUT_MAX];
	size_t n;
	struct zcs_log log;
	void (*tune)(void *ctx, const struct zcs_ctl_settings *want); /* zcs_outputs_set_tune */
	void *tune_ctx;
	bool (*tune_allow)(void *ctx, const struct zcs_addr *peer); /* ..._set_tune_allow */
	atomic_bool stop;            /* destroy gave up waiting: writers and acceptors end */
	uint64_t client_timeout_ns;  /* a server's client that takes no byte this long while
				      * another was turned away for want of a slot is dropped */
	bool started;
	struct zcs_out_pool pool;
	/* receive thread only (out_feed.c) */
	struct zcs_block *cur;       /* the data block being filled */
	bool defer_wakes;            /* see zcs_outputs_defer_wakes */
	size_t unwoken;              /* blocks queued whose writer was not woken yet */
};

/* --- between the framework's files --- */

/* Wakes the sink's writer thread. */
void zcs_out_wake(struct zcs_sink *s);
/* Thread bodies: a consumer's writer (arg: struct zcs_sink *), a server's accept loop (arg:
 * struct zcs_out *). */
void *zcs_out_sink_main(void *arg);
void *zcs_out_accept_main(void *arg);

/* --- framework services for the kinds (outputs.c, out_writer.c) ---
 *
 * Why outputs.c, out_feed.c and out_writer.c call each other (a circle of files, on purpose):
 * they are one object, the output set, split by thread.  outputs.c (the set's life: create, add,
 * start, destroy) starts the writer and accept threads of out_writer.c and flushes through
 * out_feed.c (the receive thread's side: queue a block, wake its writer); a writer thread, in
 * turn, must report its consumer's failure to the set (zcs_out_fail) and ask whether the set is
 * being destroyed (zcs_out_stopping).  Cutting the circle would mean a callback table for two
 * calls that can only ever go to the one set. */

/* A consumer came: the receive thread queues to s from now on. */
void zcs_out_attach(struct zcs_sink *s, int fd, bool is_socket);
/* The consumer left: stop queueing, discard what was queued (counted unread), close s->fd. */
void zcs_out_detach(struct zcs_sink *s);
/* Writes len bytes to fd, waiting (in ZCS_OUT_TICK_MS steps, so stopping is noticed) when the
 * consumer is behind.  0, -ECANCELED when stopping, or the consumer's -errno (EPIPE...); a
 * server's client that takes no byte for the set's client timeout gives -ETIMEDOUT. */
int zcs_out_write_all(struct zcs_sink *s, int fd, const void *buf, size_t len);
/* The output has ended for good with -err (a ->once kind whose consumer failed): news, and
 * zcs_outputs_failed reports it.  The first failure is kept. */
void zcs_out_fail(struct zcs_out *out, int err);
/* The generic data write: the block's bytes to s->fd. */
long zcs_out_write_block(struct zcs_sink *s, const struct zcs_block *b);
/* True once destroy gave up waiting and the writers must stop. */
bool zcs_out_stopping(const struct zcs_out *out);
/* The latest metadata the output saw (any thread).  False when none yet. */
bool zcs_out_last_meta(struct zcs_out *out, struct zcs_meta *m);
/* "HOST:PORT" (both required) for the client kinds.  0 or -errno + err. */
int zcs_out_parse_hostport(const struct zcs_out *out, const char *arg, struct zcs_addr *a,
			   char *err, size_t errlen);
/* --- shared by the TCP-server kinds (out_tcp.c) --- */

/* "[ADDR:]PORT" -> out->listen_fd (127.0.0.1 when no address).  0 or -errno + err. */
int zcs_out_tcp_listen(struct zcs_out *out, const char *arg, char *err, size_t errlen);
/* Bytes of a client's input taken per check: a client that sends without pause cannot hold
 * its writer away from the data (it is read at the writer's pace, and its sends block). */
#define ZCS_OUT_TCP_READ_MAX (16 * 1024)
/* What a client sent, for a kind that reads it (rtl_tcp's commands). */
typedef void (*zcs_out_take_fn)(struct zcs_sink *s, const uint8_t *buf, size_t len);
/* Reads what the client sent without waiting, up to ZCS_OUT_TCP_READ_MAX bytes, handing it to
 * take (NULL: discarded); detaches s when the client closed.  True while s is attached. */
bool zcs_out_tcp_check(struct zcs_sink *s, zcs_out_take_fn take);

/* --- rtl_tcp pieces, exposed for the unit test (out_rtltcp.c) --- */

#define ZCS_RTLTCP_GREETING_LEN 12
#define ZCS_RTLTCP_TUNER_R820T 5
#define ZCS_RTLTCP_R820T_GAINS 29
/* Writes the 12-byte "RTL0" greeting. */
void zcs_rtltcp_greeting(uint8_t out[ZCS_RTLTCP_GREETING_LEN]);
/* Name of a 5-byte command's code ("set_freq"...), "unknown" otherwise. */
const char *zcs_rtltcp_cmd_name(uint8_t cmd);
/* set_gain's bound, in tenths of dB either way: no radio's gain is beyond 100 dB, and the board
 * refuses what its own range lacks. */
#define ZCS_RTLTCP_GAIN_MAX_TENTHS 1000
/* The control-channel setting a command asks for, merged into *want: 1 for set_freq (with
 * freq_high, the last 0x56's high 32 bits), set_sample_rate, set_gain_mode (0 = automatic:
 * slow attack AGC, 1 = manual), set_gain (tenths of dB as a signed 32-bit number, manual mode),
 * set_gain_by_index (0x0d: the R820T's gain of that index, as set_gain), set_bandwidth (0x40);
 * -ERANGE, *want unchanged, for a set_gain beyond ZCS_RTLTCP_GAIN_MAX_TENTHS or an index past
 * the table's 29; 0 for every other command (not a setting: not forwarded). */
int zcs_rtltcp_cmd_setting(uint8_t cmd, uint32_t param, uint32_t freq_high,
			   struct zcs_ctl_settings *want);
/* Converts pairs pairs of type t (pair_bytes each, which tells a native stream's wire format)
 * to cu8 at dst (2 * pairs bytes).  dst may equal src only for t == cu8. */
void zcs_rtltcp_to_cu8(uint8_t *dst, const uint8_t *src, size_t pairs, enum zcs_sample_type t,
		       size_t pair_bytes);

#endif
