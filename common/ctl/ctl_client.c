// SPDX-License-Identifier: MIT
/* The control-channel client (ctl_client.h): TCP connect, the key handshake, sealed requests,
 * replies and change events.  One connection, one fixed receive buffer, no allocation after
 * open. */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "ctl_client.h"
#include "err.h"
#include "net.h"

struct zcs_ctl_client {
	int fd;
	int cancel_fd;            /* readable: give up at once (-1: none) */
	struct zcs_ctl_session s;
	struct zcs_ctl_rxbuf rb;
	uint32_t next_id;
	uint8_t frame[ZCS_CTL_MAX_FRAME];
	uint8_t plain[ZCS_CTL_MAX_PLAIN];
};

static int ms_left(uint64_t deadline)
{
	const uint64_t now = zcs_mono_ns();

	return now >= deadline ? 0 : (int)((deadline - now + 999999) / 1000000);
}

/* Waits for ev on fd (fd -1: only the time passes) until deadline, or until cancel_fd (-1:
 * none) becomes readable: another thread stopping the caller, which then returns at once. */
static int wait_fd(int fd, short ev, int cancel_fd, uint64_t deadline, char *err, size_t errlen)
{
	for (;;) {
		struct pollfd p[2] = { { .fd = fd, .events = ev },
				       { .fd = cancel_fd, .events = POLLIN } };
		const int left = ms_left(deadline);
		int n;

		if (left == 0)
			return zcs_err(err, errlen, -ETIMEDOUT, "control: no answer in time");
		n = poll(p, 2, left);
		if (n > 0 && p[1].revents)
			return zcs_err(err, errlen, -ECANCELED, "control: given up (stopping)");
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return zcs_err_errno(err, errlen, "control: poll");
	}
}

/* Writes a whole frame, waiting for room until deadline. */
static int write_all(struct zcs_ctl_client *c, const uint8_t *buf, size_t len, uint64_t deadline,
		     char *err, size_t errlen)
{
	while (len) {
		const ssize_t n = send(c->fd, buf, len, MSG_NOSIGNAL);
		int ret;

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return zcs_err_errno(err, errlen, "control: send");
		if ((ret = wait_fd(c->fd, POLLOUT, c->cancel_fd, deadline, err, errlen)) < 0)
			return ret;
	}
	return 0;
}

/* Reads until a whole frame is at the front of c->rb (or deadline). */
static int read_frame(struct zcs_ctl_client *c, const uint8_t **body, size_t *len,
		      uint64_t deadline, char *err, size_t errlen)
{
	for (;;) {
		int ret = zcs_ctl_rxbuf_frame(&c->rb, body, len);
		ssize_t got;

		if (ret > 0)
			return 0;
		if (ret < 0)
			return zcs_err(err, errlen, -EPROTO, "control: the server sent a bad frame");
		got = zcs_ctl_rxbuf_read(&c->rb, c->fd);
		if (got == 0)
			return zcs_err(err, errlen, -ECONNRESET, "control: the server closed the "
				       "connection (a wrong key, or too many clients)");
		if (got == -EAGAIN) {
			if ((ret = wait_fd(c->fd, POLLIN, c->cancel_fd, deadline, err, errlen)) < 0)
				return ret;
			continue;
		}
		if (got < 0)
			return zcs_err(err, errlen, (int)got, "control: read: %s", strerror((int)-got));
	}
}

static int handshake(struct zcs_ctl_client *c, const struct zcs_key *key, uint64_t deadline,
		     char *err, size_t errlen)
{
	const uint8_t *body;
	size_t len, n;
	int ret;

	if (zcs_ctl_session_init(&c->s, false) < 0)
		return zcs_err(err, errlen, -EIO, "libsodium failed to initialise");
	n = zcs_ctl_hello_write(&c->s, c->frame);
	if ((ret = write_all(c, c->frame, n, deadline, err, errlen)) < 0 ||
	    (ret = read_frame(c, &body, &len, deadline, err, errlen)) < 0)
		return ret;
	ret = zcs_ctl_shello_check(&c->s, key, body, len);
	zcs_ctl_rxbuf_consume(&c->rb);
	if (ret == -ZCS_CTL_E_AUTH)
		return zcs_err(err, errlen, -EACCES, "control: the server does not hold our key "
			       "(wrong --key on one side)");
	if (ret < 0)
		return zcs_err(err, errlen, -EPROTO, "control: not a zcs control server (%s)",
			       zcs_ctl_err_name(ret));
	n = zcs_ctl_auth_write(&c->s, key, c->frame);
	return write_all(c, c->frame, n, deadline, err, errlen);
}

/* One connection and its handshake, by deadline. */
static int open_once(struct zcs_ctl_client **out, const struct zcs_addr *a,
		     const struct zcs_key *key, int cancel_fd, uint64_t deadline, char *err,
		     size_t errlen)
{
	struct zcs_ctl_client *c = calloc(1, sizeof(*c));
	int ret, soerr = 0;
	socklen_t sl = sizeof(soerr);

	*out = NULL;
	if (!c)
		return zcs_err(err, errlen, -ENOMEM, "out of memory");
	c->fd = -1;
	c->cancel_fd = cancel_fd;
	c->next_id = 1;
	if ((ret = c->fd = zcs_net_tcp_connect(a, err, errlen)) < 0)
		goto out;
	if ((ret = wait_fd(c->fd, POLLOUT, c->cancel_fd, deadline, err, errlen)) < 0)
		goto out;
	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr) {
		char as[64];

		ret = zcs_err(err, errlen, soerr ? -soerr : -EIO, "control: connect to %s: %s",
			      zcs_net_addr_str(a, as, sizeof(as)), strerror(soerr ? soerr : EIO));
		goto out;
	}
	if ((ret = handshake(c, key, deadline, err, errlen)) < 0)
		goto out;
	*out = c;
	ret = 0;
out:
	if (ret < 0)
		zcs_ctl_client_close(c);
	return ret;
}

bool zcs_ctl_client_retryable(int err)
{
	return err == -ECONNRESET || err == -EPIPE || err == -ECONNABORTED;
}

unsigned zcs_ctl_client_backoff_ms(unsigned attempt)
{
	const unsigned base = ZCS_CTL_CLIENT_BACKOFF_MS << (attempt > 8 ? 8 : attempt - 1);

	/* a random quarter either way, so clients the same flood closed do not come back in step */
	if (sodium_init() < 0)
		return base;
	return base - base / 4 + randombytes_uniform(2 * (base / 4) + 1);
}

/* Waits the pause before attempt + 1: false when it would pass deadline, attempt was the last,
 * or cancel_fd became readable meanwhile. */
static bool pause_before_retry(unsigned attempt, uint64_t deadline, int cancel_fd)
{
	char ignored[8];
	uint64_t ns;

	if (attempt >= ZCS_CTL_CLIENT_ATTEMPTS)
		return false;
	ns = (uint64_t)zcs_ctl_client_backoff_ms(attempt) * 1000000ULL;
	if (zcs_mono_ns() + ns >= deadline)
		return false;
	/* the pause is a wait for nothing but the cancel: only a time-out lets the retry go on */
	return wait_fd(-1, 0, cancel_fd, zcs_mono_ns() + ns, ignored, sizeof(ignored)) == -ETIMEDOUT;
}

/* The last attempt's message, with how many there were when more than one. */
static int tried(int ret, unsigned attempts, char *err, size_t errlen)
{
	if (attempts > 1 && errlen) {
		const size_t used = strlen(err);

		snprintf(err + used, errlen - used, " (%u attempts)", attempts);
	}
	return ret;
}

int zcs_ctl_client_open(struct zcs_ctl_client **out, const char *addr, const struct zcs_key *key,
			int timeout_ms, char *err, size_t errlen)
{
	const uint64_t deadline = zcs_mono_ns() + (uint64_t)timeout_ms * 1000000ULL;
	struct zcs_addr a;
	unsigned made = 0;
	int ret;

	*out = NULL;
	if ((ret = zcs_net_parse_addr(&a, addr, ZCS_CTL_DEFAULT_PORT, err, errlen)) < 0)
		return ret;
	for (;;) {
		ret = open_once(out, &a, key, -1, deadline, err, errlen);
		made++;
		if (ret == 0 || !zcs_ctl_client_retryable(ret) || !pause_before_retry(made, deadline, -1))
			break;
	}
	return ret < 0 ? tried(ret, made, err, errlen) : 0;
}

void zcs_ctl_client_close(struct zcs_ctl_client *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	zcs_ctl_session_wipe(&c->s);
	free(c);
}

int zcs_ctl_client_fd(const struct zcs_ctl_client *c)
{
	return c->fd;
}

int zcs_ctl_client_send(struct zcs_ctl_client *c, int op, const struct zcs_ctl_settings *want,
			uint32_t *id, char *err, size_t errlen)
{
	struct zcs_ctl_request r = { .id = c->next_id++, .op = op };
	char text[ZCS_CTL_MAX_PLAIN];
	ssize_t n, f;

	if (op == ZCS_CTL_OP_SET) {
		if (!want || !want->have)
			return zcs_err(err, errlen, -EINVAL, "control: set of nothing");
		r.set = *want;
	}
	if ((n = zcs_ctl_msg_write_request(&r, text, sizeof(text))) < 0)
		return zcs_err(err, errlen, (int)n, "control: request too large");
	if ((f = zcs_ctl_seal(&c->s, (const uint8_t *)text, (size_t)n, c->frame)) < 0)
		return zcs_err(err, errlen, (int)f, "control: cannot seal the request");
	if (id)
		*id = r.id;
	/* a request is a few hundred bytes against a socket buffer of tens of KB: the wait for
	 * room is a formality, bounded anyway */
	return write_all(c, c->frame, (size_t)f, zcs_mono_ns() + 2000000000ULL, err, errlen);
}

/* Opens and parses the frame at the front of c->rb. */
static int take_frame(struct zcs_ctl_client *c, const uint8_t *body, size_t len,
		      struct zcs_ctl_reply *msg, char *err, size_t errlen)
{
	const ssize_t n = zcs_ctl_open(&c->s, body, len, c->plain);
	int ret;

	zcs_ctl_rxbuf_consume(&c->rb);
	if (n < 0)
		return zcs_err(err, errlen, -EBADMSG, "control: a frame from the server does not "
			       "open (%s)", zcs_ctl_err_name((int)n));
	if ((ret = zcs_ctl_msg_parse_reply(c->plain, (size_t)n, msg, err, errlen)) < 0)
		return -EBADMSG;
	return 1;
}

int zcs_ctl_client_poll(struct zcs_ctl_client *c, struct zcs_ctl_reply *msg, char *err,
			size_t errlen)
{
	for (;;) {
		const uint8_t *body;
		size_t len;
		int ret = zcs_ctl_rxbuf_frame(&c->rb, &body, &len);
		ssize_t got;

		if (ret > 0)
			return take_frame(c, body, len, msg, err, errlen);
		if (ret < 0)
			return zcs_err(err, errlen, -EBADMSG, "control: the server sent a bad frame");
		got = zcs_ctl_rxbuf_read(&c->rb, c->fd);
		if (got == -EAGAIN)
			return 0;
		if (got == 0)
			return zcs_err(err, errlen, -ECONNRESET, "control: the server closed the "
				       "connection");
		if (got < 0)
			return zcs_err(err, errlen, (int)got, "control: read: %s", strerror((int)-got));
	}
}

static int await(struct zcs_ctl_client *c, uint32_t id, struct zcs_ctl_reply *reply,
		 uint64_t deadline, char *err, size_t errlen)
{
	for (;;) {
		int ret = zcs_ctl_client_poll(c, reply, err, errlen);

		if (ret < 0)
			return ret;
		if (ret == 0) {
			if ((ret = wait_fd(c->fd, POLLIN, c->cancel_fd, deadline, err, errlen)) < 0)
				return ret;
			continue;
		}
		if (!reply->event && reply->id == id)
			return 0;
		/* id 0 answers no request: the server's reason for closing (every session held) */
		if (!reply->event && reply->id == 0 && !reply->ok)
			return zcs_err(err, errlen, -EBUSY, "control: the server refused: %s",
				       reply->error);
		/* a change event, or a reply to an earlier non-blocking request: not ours, skipped
		 * (a client that wants events polls: zcs_ctl_client_poll) */
	}
}

int zcs_ctl_client_get(struct zcs_ctl_client *c, struct zcs_ctl_reply *reply, int timeout_ms,
		       char *err, size_t errlen)
{
	const uint64_t deadline = zcs_mono_ns() + (uint64_t)timeout_ms * 1000000ULL;
	uint32_t id;
	int ret;

	if ((ret = zcs_ctl_client_send(c, ZCS_CTL_OP_GET, NULL, &id, err, errlen)) < 0)
		return ret;
	return await(c, id, reply, deadline, err, errlen);
}

int zcs_ctl_client_set(struct zcs_ctl_client *c, const struct zcs_ctl_settings *want,
		       struct zcs_ctl_reply *reply, int timeout_ms, char *err, size_t errlen)
{
	const uint64_t deadline = zcs_mono_ns() + (uint64_t)timeout_ms * 1000000ULL;
	uint32_t id;
	int ret;

	if ((ret = zcs_ctl_client_send(c, ZCS_CTL_OP_SET, want, &id, err, errlen)) < 0)
		return ret;
	return await(c, id, reply, deadline, err, errlen);
}

int zcs_ctl_client_request(const char *addr, const struct zcs_key *key,
			   const struct zcs_ctl_settings *want, struct zcs_ctl_reply *reply,
			   int timeout_ms, char *err, size_t errlen)
{
	return zcs_ctl_client_request_cancel(addr, key, want, reply, timeout_ms, -1, err, errlen);
}

int zcs_ctl_client_request_cancel(const char *addr, const struct zcs_key *key,
				  const struct zcs_ctl_settings *want, struct zcs_ctl_reply *reply,
				  int timeout_ms, int cancel_fd, char *err, size_t errlen)
{
	const uint64_t deadline = zcs_mono_ns() + (uint64_t)timeout_ms * 1000000ULL;
	struct zcs_addr a;
	unsigned made = 0;
	int ret;

	if ((ret = zcs_net_parse_addr(&a, addr, ZCS_CTL_DEFAULT_PORT, err, errlen)) < 0)
		return ret;
	for (;;) {
		struct zcs_ctl_client *c;

		ret = open_once(&c, &a, key, cancel_fd, deadline, err, errlen);
		if (ret == 0) {
			const int left = ms_left(deadline);

			ret = want ? zcs_ctl_client_set(c, want, reply, left, err, errlen)
				   : zcs_ctl_client_get(c, reply, left, err, errlen);
			zcs_ctl_client_close(c);
		}
		made++;
		if (ret == 0 || !zcs_ctl_client_retryable(ret) ||
		    !pause_before_retry(made, deadline, cancel_fd))
			break;
	}
	return ret < 0 ? tried(ret, made, err, errlen) : 0;
}

int zcs_ctl_addr_split(const char *addr, char *host, size_t hostlen, char *port, size_t portlen,
		       const char *opt, char *err, size_t errlen)
{
	const char *colon = strrchr(addr, ':');
	const char *p = colon ? colon + 1 : addr;
	const size_t hlen = colon ? (size_t)(colon - addr) : 0;
	char *end;
	unsigned long n;

	n = strtoul(p, &end, 10);
	if (!p[0] || *end || n < 1 || n > 65535 || hlen >= hostlen || portlen < 6 ||
	    (addr[0] == '[' && (hlen < 2 || addr[hlen - 1] != ']')))
		return zcs_err(err, errlen, -EINVAL, "%s '%s': expected [HOST:]PORT (the docs use "
			       "%d)", opt, addr, ZCS_CTL_DEFAULT_PORT);
	memcpy(host, addr, hlen);
	host[hlen] = '\0';
	snprintf(port, portlen, "%lu", n);
	return 0;
}

bool zcs_ctl_addr_at(const struct sockaddr *sa, const char *port, char *buf, size_t len)
{
	struct zcs_addr a;
	char s[128];
	char *colon;

	buf[0] = '\0';
	memset(&a, 0, sizeof(a));
	if (sa->sa_family == AF_INET)
		a.len = sizeof(struct sockaddr_in);
	else if (sa->sa_family == AF_INET6)
		a.len = sizeof(struct sockaddr_in6);
	else
		return false;
	memcpy(&a.ss, sa, a.len);
	/* "198.18.0.1:5391" or "[v6]:5391": keep the host, take the control channel's port */
	zcs_net_addr_str(&a, s, sizeof(s));
	colon = strrchr(s, ':');
	if (colon)
		*colon = '\0';
	snprintf(buf, len, "%s:%s", s, port);
	return true;
}
