/* SPDX-License-Identifier: MIT */
/* zcs-recv --control: forwards what applications ask of the radio (the rtl_tcp: output's
 * set_freq, set_gain, ...) to the sender's control channel.  A thread of its own holds the one
 * connection; requests posted meanwhile are merged, so a burst becomes one set. */
#ifndef ZCS_CTL_FWD_H
#define ZCS_CTL_FWD_H

#include <stdint.h>

#include "ctl_msg.h"
#include "key.h"
#include "log.h"
#include "net.h"

/* A burst is taken as over when nothing new came for this long, or this long after its start:
 * an rtl_tcp client's start-up sends its ten commands within a few ms, a person turning a dial
 * sends a command per step.  Small against the 100 ms a retune may take. */
#define ZCS_CTL_FWD_QUIET_MS 20
#define ZCS_CTL_FWD_MAX_MS 100

struct zcs_ctl_fwd_stats {
	uint64_t posted;        /* settings requests handed in */
	uint64_t sets;          /* sets sent (each one or more requests merged) */
	uint64_t taken;         /* ... the board took */
	uint64_t refused;       /* ... the board refused (its reason is logged) */
	uint64_t failed;        /* ... not sent or not answered: no connection, time-out */
	uint64_t connects;      /* connections made (the handshake done) */
};

struct zcs_ctl_fwd;

/* Prefixes of --control-allow at most. */
#define ZCS_CTL_FWD_MAX_ALLOW 16

/* addr: "[HOST:]PORT" of the sender's control channel; with no HOST (or NULL addr... never:
 * the option gives at least a port) the stream's source address is used, learnt with
 * zcs_ctl_fwd_set_sender.  allow (nallow <= ZCS_CTL_FWD_MAX_ALLOW, copied): the applications
 * besides loopback whose requests may be forwarded (zcs_ctl_fwd_allows).  Starts the thread;
 * connects only when there is something to send.  Returns 0 or -errno with err set. */
int zcs_ctl_fwd_start(struct zcs_ctl_fwd **out, const char *addr, const struct zcs_key *key,
		      const struct zcs_net_prefix *allow, size_t nallow, struct zcs_log log,
		      char *err, size_t errlen);
/* Whether an application at peer may have its requests forwarded: rtl_tcp has no
 * authentication, so forwarding hands the key's power to whoever reaches the port.  True on
 * loopback (this host's programs) and in an allowed prefix.  Shaped for
 * zcs_outputs_set_tune_allow (ctx: the forwarder); any thread. */
bool zcs_ctl_fwd_allows(void *ctx, const struct zcs_addr *peer);
/* The stream's sender (for an addr without HOST); any thread, cheap. */
void zcs_ctl_fwd_set_sender(struct zcs_ctl_fwd *f, const struct zcs_addr *sender);
/* Merges want into the next set (later fields win); any thread, never blocks for long. */
void zcs_ctl_fwd_post(struct zcs_ctl_fwd *f, const struct zcs_ctl_settings *want);
/* The same, shaped for zcs_outputs_set_tune. */
void zcs_ctl_fwd_tune_hook(void *ctx, const struct zcs_ctl_settings *want);
void zcs_ctl_fwd_stats(struct zcs_ctl_fwd *f, struct zcs_ctl_fwd_stats *out);
/* Sends nothing more, stops and frees; NULL is fine. */
void zcs_ctl_fwd_stop(struct zcs_ctl_fwd *f);

#endif
