/* SPDX-License-Identifier: MIT */
/* The liveness check of zcs-recv --control and of the SoapySDR module's control=: a keyed run a
 * receiver has no record of is followed only once the board, asked over its control channel,
 * says it streams that run (get's stream.run and stream.id: the answer comes over a session
 * whose nonces are fresh, so no recording can give it).  The receive thread never waits: it
 * reads the last answer (struct zcs_run_check), and a thread of its own asks.  Bounded: one
 * request out at a time, at most ZCS_CTL_LIVE_BURST in a row and one a second after, whatever
 * the datagrams claim (docs/security.md, "Liveness"). */
#ifndef ZCS_CTL_LIVE_H
#define ZCS_CTL_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "key.h"
#include "log.h"
#include "runstate.h"

/* The rate limit: a burst of 4 requests (a board restarted twice in a row, say), then one a
 * second.  A request is a handshake and a get: small for the board, but a flood of datagrams
 * claiming runs must not turn into a flood of connections to it. */
#define ZCS_CTL_LIVE_BURST 4
#define ZCS_CTL_LIVE_INTERVAL_NS (1000ULL * 1000 * 1000)
/* One request (connection, handshake, get), tries on a new connection included. */
#define ZCS_CTL_LIVE_TIMEOUT_MS 3000

/* The rule alone, without the thread: what an answer decides, and when to ask. */
struct zcs_live_rule {
	bool have_answer;         /* the board's live run, as last answered: */
	uint64_t run;
	uint32_t stream_id;
	uint64_t answer_asked_ns; /* ... asked for at this monotonic time */
	bool busy;                /* a request is out */
	uint64_t busy_ns;         /* ... since */
	uint64_t tat_ns;          /* the rate limit's next theoretical arrival (GCRA) */
	uint64_t limited;         /* claims that found the rate limit reached */
};

/* The verdict on claim c at now (monotonic ns).  A run below the board's answer is not live
 * (its counter only grows), the answer's own run is live when its stream id is the answer's;
 * a run above it is not live when the answer was asked for after the claim came, and otherwise
 * wants a new answer: then, with ask not NULL, no request out and the rate limit allowing, *ask
 * is set and the rule counts the request as out (zcs_live_rule_answer ends it).  UNKNOWN
 * meanwhile. */
enum zcs_run_verdict zcs_live_rule_judge(struct zcs_live_rule *r, const struct zcs_run_claim *c,
					 uint64_t now, bool *ask);
/* The request out ended: answered (ok) with the board's live run (run, stream_id), or not. */
void zcs_live_rule_answer(struct zcs_live_rule *r, bool ok, uint64_t run, uint32_t stream_id);

struct zcs_ctl_live_stats {
	uint64_t requests;        /* gets sent to the board (a connection each) */
	uint64_t answers;         /* ... it answered, naming its live run */
	uint64_t failed;          /* ... not: unreachable, no key, a time-out, no run said */
	uint64_t limited;         /* claims that waited for the rate limit */
};

struct zcs_ctl_live;

/* addr: "[HOST:]PORT" of the board's control channel, as zcs-recv --control; with no HOST a
 * claim's sender (the address its metadata came from) is asked.  key: the stream key (copied).
 * Starts the thread.  Returns 0 or -errno with err set. */
int zcs_ctl_live_start(struct zcs_ctl_live **out, const char *addr, const struct zcs_key *key,
		       struct zcs_log log, char *err, size_t errlen);
/* The check for zcs_rx_opts.run_check / zcs_follow_opts.check (ctx: the checker). */
enum zcs_run_verdict zcs_ctl_live_judge(void *ctx, const struct zcs_run_claim *c, uint64_t now);
void zcs_ctl_live_stats(struct zcs_ctl_live *l, struct zcs_ctl_live_stats *out);
/* Stops and frees; NULL is fine.  A request out is given up at once (a board that does not
 * answer never holds the caller for ZCS_CTL_LIVE_TIMEOUT_MS); only resolving a host name given
 * to --control cannot be cut short. */
void zcs_ctl_live_stop(struct zcs_ctl_live *l);

#endif
