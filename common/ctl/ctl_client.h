/* SPDX-License-Identifier: MIT */
/* A control-channel client: connects to zcs-send --control, proves it holds the stream key (and
 * checks that the sender does), then gets and sets radio settings.  Used by zcs-ctl, zcs-recv's
 * rtl_tcp forwarding and the SoapySDR module: the one client implementation.
 *
 * Two ways to use it:
 * - blocking: zcs_ctl_client_get() / zcs_ctl_client_set() send a request and wait (with a
 *   time-out) for its reply; change events that arrive meanwhile are skipped;
 * - non-blocking: zcs_ctl_client_send() queues nothing and never waits for an answer; poll the
 *   fd (zcs_ctl_client_fd) for POLLIN and call zcs_ctl_client_poll() to take replies and events
 *   as they come.
 * A client is not thread-safe: use it from one thread at a time. */
#ifndef ZCS_CTL_CLIENT_H
#define ZCS_CTL_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl_msg.h"
#include "ctl_proto.h"
#include "key.h"

struct sockaddr;

#ifdef __cplusplus
extern "C" {
#endif

struct zcs_ctl_client;

/* A connection the server closes before its handshake ends is tried again on a new one: under
 * a flood zcs-send's listener closes the handshakes of the busiest sources to admit others, and a
 * restarting zcs-send closes everything.  ZCS_CTL_CLIENT_ATTEMPTS in all, pausing
 * zcs_ctl_client_backoff_ms() between them (50, 100, 200, 400 ms, each a random quarter more or
 * less), all within the call's time-out. */
#define ZCS_CTL_CLIENT_ATTEMPTS 5
#define ZCS_CTL_CLIENT_BACKOFF_MS 50

/* Whether an error of these calls is worth another try on a new connection: the server closed
 * or reset it (-ECONNRESET, -EPIPE, -ECONNABORTED).  A wrong key, a refusal, a time-out or
 * nobody listening are not. */
bool zcs_ctl_client_retryable(int err);
/* The pause after failed attempt n (1, 2, ...), in ms. */
unsigned zcs_ctl_client_backoff_ms(unsigned attempt);

/* Connects to addr ("HOST", "HOST:PORT", "[V6]:PORT"; port ZCS_CTL_DEFAULT_PORT when not given)
 * and runs the handshake, all within timeout_ms, trying again as above.  Errors: -ETIMEDOUT,
 * -ECONNREFUSED and other socket errors, -EACCES when the server does not prove the key (a wrong
 * key on either side), -ECONNRESET when the server kept closing (it closes a client without the
 * key; under a flood, handshakes from busy sources), -EPROTO for a reply that is not the
 * protocol.  Returns 0 with *out set, or -errno with err set (with the number of attempts when
 * more than one). */
int zcs_ctl_client_open(struct zcs_ctl_client **out, const char *addr, const struct zcs_key *key,
			int timeout_ms, char *err, size_t errlen);
void zcs_ctl_client_close(struct zcs_ctl_client *c);

/* The connected socket (non-blocking), for poll(). */
int zcs_ctl_client_fd(const struct zcs_ctl_client *c);

/* get: every setting, the radio's capabilities and the stream.  set: applies want (its `have`
 * fields together) and answers what the radio took.  Both wait up to timeout_ms.  Returns 0 with
 * *reply filled (reply->ok false and reply->error when the server refused: that is an answer,
 * not a failure), or -errno with err set (-ETIMEDOUT, a closed or broken connection; -EBUSY
 * when the server closed the session with its reason, as when every session is held). */
int zcs_ctl_client_get(struct zcs_ctl_client *c, struct zcs_ctl_reply *reply, int timeout_ms,
		       char *err, size_t errlen);
int zcs_ctl_client_set(struct zcs_ctl_client *c, const struct zcs_ctl_settings *want,
		       struct zcs_ctl_reply *reply, int timeout_ms, char *err, size_t errlen);

/* Sends one request (op GET, or SET of want) without waiting for the reply; *id (when not NULL)
 * gets the id its reply will carry.  Returns 0 or -errno with err set. */
int zcs_ctl_client_send(struct zcs_ctl_client *c, int op, const struct zcs_ctl_settings *want,
			uint32_t *id, char *err, size_t errlen);
/* Takes what the socket has without blocking: 1 with *msg filled (a reply or an event), 0 when
 * no whole message is there yet, -errno with err set when the connection is closed (-ECONNRESET)
 * or broken (a frame that does not open: -EBADMSG).  Call again until it returns 0. */
int zcs_ctl_client_poll(struct zcs_ctl_client *c, struct zcs_ctl_reply *msg, char *err,
			size_t errlen);

/* "[HOST:]PORT" of a control channel (zcs-recv --control) into host (hostlen bytes; "" when
 * none is given: the stream's sender is meant) and port (portlen >= 6: its digits).  opt names
 * the option in err.  Returns 0 or -EINVAL. */
int zcs_ctl_addr_split(const char *addr, char *host, size_t hostlen, char *port, size_t portlen,
		       const char *opt, char *err, size_t errlen);
/* "HOST:PORT" into buf: the host of sender address sa ("[v6]" bracketed) with port, for a
 * control channel given without a host.  False (buf "") when sa is not IPv4 or IPv6. */
bool zcs_ctl_addr_at(const struct sockaddr *sa, const char *port, char *buf, size_t len);

/* One get (want NULL) or set on a connection of its own, closed after: open, the request, its
 * reply.  A connection the server closes before the answer is tried again as open does, the
 * attempts counted together.  Returns as zcs_ctl_client_get / zcs_ctl_client_set. */
int zcs_ctl_client_request(const char *addr, const struct zcs_key *key,
			   const struct zcs_ctl_settings *want, struct zcs_ctl_reply *reply,
			   int timeout_ms, char *err, size_t errlen);
/* As zcs_ctl_client_request, given up at once (-ECANCELED) when cancel_fd becomes readable (a
 * pipe or an eventfd another thread writes to stop the caller; -1: none): a request that waits
 * on a board that does not answer never holds a program's exit for its time-out.  A host name
 * is still resolved before anything is waited on (getaddrinfo cannot be cancelled). */
int zcs_ctl_client_request_cancel(const char *addr, const struct zcs_key *key,
				  const struct zcs_ctl_settings *want, struct zcs_ctl_reply *reply,
				  int timeout_ms, int cancel_fd, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
