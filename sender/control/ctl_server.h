/* SPDX-License-Identifier: MIT */
/* zcs-send's control listener (--control): a thread of its own serving a bounded number of TCP
 * clients that prove they hold the stream key, answering get and set, and telling every client
 * when another one changed a setting.  It never touches the sample pipeline but through
 * zcs_pipeline_retune() / zcs_pipeline_locked(), so a client can never stall the stream.
 * Connections still in the handshake have slots of their own, shared out by ctl_admit.h, so a
 * flood of connections that never prove the key cannot keep a key holder out. */
#ifndef ZCS_CTL_SERVER_H
#define ZCS_CTL_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "ctl_proto.h"
#include "key.h"
#include "log.h"
#include "pipeline.h"

/* Sessions (clients that proved the key) served at once when the option does not say: a
 * person, a receiver forwarding its rtl_tcp clients, a SoapySDR application, with room for one
 * more.  Each costs ~9 KB. */
#define ZCS_CTL_SERVER_DEFAULT_CLIENTS 4
#define ZCS_CTL_SERVER_MAX_CLIENTS 64
/* Connections in the handshake at once, besides the sessions: when a flood holds them all, a
 * newcomer from a quieter source takes the slot of the busiest source's oldest (ctl_admit.h).
 * A handshake takes one round trip, so 32 of them ride out a flood of thousands of connections a
 * second; ~300 KB with the admission table. */
#define ZCS_CTL_SERVER_HANDSHAKES 32
/* A connection must finish the handshake within this, or it is closed: one round trip does it
 * (well under a second across any LAN), and a slot held by a peer that never proves the key is
 * given back soon. */
#define ZCS_CTL_HANDSHAKE_MS 2000

struct zcs_ctl_server_config {
	const char *listen;           /* "[ADDR:]PORT" (ADDR default: every address) */
	const struct zcs_key *key;
	size_t max_clients;           /* sessions, 1..ZCS_CTL_SERVER_MAX_CLIENTS */
	struct zcs_pipeline *pl;
	uint32_t stream_id;
	int format;                   /* the stream's wire format */
	const char *source_name;
	uint64_t run;                 /* the keyed run's number, said in get's stream.run */
	struct zcs_log log;           /* news: sessions, sets, refusals */
};

/* Counters, each only ever incremented by the server thread. */
struct zcs_ctl_server_stats {
	uint64_t accepted;            /* connections taken */
	uint64_t refused_full;        /* proved the key, but max_clients sessions were held */
	uint64_t evicted;             /* handshakes closed for a newcomer from a quieter source */
	uint64_t refused_busy;        /* closed at once: every handshake slot held, and the
				       * newcomer's source the busiest */
	uint64_t sessions;            /* handshakes completed (the peer holds the key) */
	uint64_t dropped[ZCS_CTL_E_COUNT]; /* connections closed for a bad frame, by reason */
	uint64_t handshake_timeouts;
	uint64_t abandoned;           /* closed by the peer mid-handshake (a client that found
				       * we do not hold its key leaves at once) */
	uint64_t slow;                /* closed: not reading its replies */
	uint64_t gets, sets;          /* requests answered */
	uint64_t set_refused;         /* sets answered with an error */
	uint64_t events;              /* change notices sent */
};

struct zcs_ctl_server;

/* Binds and starts the thread.  Returns 0 or -errno with err set (a port in use, ...). */
int zcs_ctl_server_start(struct zcs_ctl_server **out, const struct zcs_ctl_server_config *cfg,
			 char *err, size_t errlen);
void zcs_ctl_server_stats(struct zcs_ctl_server *s, struct zcs_ctl_server_stats *out);
/* Closes every connection, stops and frees.  NULL is fine. */
void zcs_ctl_server_stop(struct zcs_ctl_server *s);
/* One summary line ("control: ...") into buf; returns buf. */
const char *zcs_ctl_server_summary(const struct zcs_ctl_server_stats *st, char *buf, size_t len);
/* The same as one JSON object {"control":{...}} (no newline); returns buf. */
const char *zcs_ctl_server_json(const struct zcs_ctl_server_stats *st, char *buf, size_t len);

#endif
