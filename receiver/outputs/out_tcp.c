// SPDX-License-Identifier: MIT
/* Output kinds "tcp:[ADDR:]PORT" (a server: SDR++'s Network Source and GNU Radio's TCP Source in
 * client mode connect to us; several clients, each with its own queue) and
 * "tcp-connect:HOST:PORT" (we connect, and reconnect with back-off: TCP Source in server mode). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "err.h"
#include "net.h"
#include "output_kinds.h"

#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 2000

int zcs_out_tcp_listen(struct zcs_out *out, const char *arg, char *err, size_t errlen)
{
	char spec[300];
	struct zcs_addr a;
	int fd;

	if (!*arg)
		return zcs_err(err, errlen, -EINVAL, "%s: no port", out->name);
	/* a bare port listens on loopback only: exposing the radio to the network is a choice */
	if (!strchr(arg, ':'))
		snprintf(spec, sizeof(spec), "127.0.0.1:%s", arg);
	else
		snprintf(spec, sizeof(spec), "%s", arg);
	fd = zcs_net_parse_addr(&a, spec, 0, err, errlen);
	if (fd < 0)
		return fd;
	if (zcs_net_port(&a) == 0)
		return zcs_err(err, errlen, -EINVAL, "%s: no port", out->name);
	fd = zcs_net_tcp_listen(&a, 8, err, errlen);
	if (fd < 0)
		return fd;
	out->listen_fd = fd;
	return 0;
}

bool zcs_out_tcp_check(struct zcs_sink *s, zcs_out_take_fn take)
{
	uint8_t buf[512];

	if (atomic_load(&s->state) != ZCS_SINK_ATTACHED)
		return false;
	if (s->rd_closed) {
		/* after its FIN there is nothing to read; a reset or our own error shows here */
		struct pollfd pfd = { .fd = s->fd, .events = 0 };

		if (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLERR | POLLHUP))) {
			zcs_log_as(&s->out->set->log, s->out->name, "client %s left", s->peer);
			zcs_out_detach(s);
			return false;
		}
		return true;
	}
	for (size_t got = 0; got < ZCS_OUT_TCP_READ_MAX;) {
		const ssize_t n = recv(s->fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			break;
		if (n == 0 && s->out->ops->server) {
			/* a server's client that half-closes (nc -N, shutdown(SHUT_WR)) has nothing
			 * more to say but still reads; only a failed send tells that it has gone.
			 * (tcp-connect's peer is a server: its FIN is its going away.) */
			s->rd_closed = true;
			zcs_log_as(&s->out->set->log, s->out->name,
				   "client %s closed its sending side: still sending to it", s->peer);
			break;
		}
		if (n <= 0) {
			zcs_log_as(&s->out->set->log, s->out->name, "client %s left", s->peer);
			zcs_out_detach(s);
			return false;
		}
		if (take)
			take(s, buf, (size_t)n);
		got += (size_t)n;
	}
	return true;
}

static void tcp_idle(struct zcs_sink *s)
{
	zcs_out_tcp_check(s, NULL);
}

const struct zcs_out_ops zcs_out_tcp_ops = {
	.prefix = "tcp:",
	.catch_up = true,
	.server = true,
	.open = zcs_out_tcp_listen,
	.idle = tcp_idle,
	.write = zcs_out_write_block,
};

/* ---- tcp-connect ---- */

struct tcpc_priv {
	struct zcs_addr addr;
	int pending;             /* a connect in progress, or -1 */
	uint64_t pending_since;
	uint64_t next_try;       /* CLOCK_MONOTONIC ns */
	unsigned backoff_ms;
};

static int tcpc_open(struct zcs_out *out, const char *arg, char *err, size_t errlen)
{
	struct tcpc_priv *const p = out->priv;
	int ret;

	p->pending = -1;     /* first: close runs after a failed open too */
	ret = zcs_out_parse_hostport(out, arg, &p->addr, err, errlen);
	if (ret < 0)
		return ret;
	p->backoff_ms = BACKOFF_MIN_MS;
	return 0;
}

static void tcpc_retry_later(struct tcpc_priv *p)
{
	p->next_try = zcs_mono_ns() + (uint64_t)p->backoff_ms * 1000000u;
	p->backoff_ms = p->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : p->backoff_ms * 2;
}

static void tcpc_idle(struct zcs_sink *s)
{
	struct tcpc_priv *p = s->out->priv;
	char err[ZCS_NET_ERR_LEN];
	struct pollfd pfd;
	int soerr = 0;
	socklen_t sl = sizeof(soerr);

	if (atomic_load(&s->state) == ZCS_SINK_ATTACHED) {
		if (!zcs_out_tcp_check(s, NULL))
			tcpc_retry_later(p);
		return;
	}
	if (p->pending < 0) {
		if (zcs_mono_ns() < p->next_try)
			return;
		p->pending = zcs_net_tcp_connect(&p->addr, err, sizeof(err));
		p->pending_since = zcs_mono_ns();
		if (p->pending < 0) {
			tcpc_retry_later(p);
			return;
		}
	}
	pfd.fd = p->pending;
	pfd.events = POLLOUT;
	if (poll(&pfd, 1, 0) == 0) {
		/* still connecting: give up after a few seconds (a silent firewall) */
		if (zcs_mono_ns() - p->pending_since > 5 * ZCS_NS_PER_SEC) {
			close(p->pending);
			p->pending = -1;
			tcpc_retry_later(p);
		}
		return;
	}
	if (getsockopt(p->pending, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr != 0) {
		close(p->pending);
		p->pending = -1;
		tcpc_retry_later(p);
		return;
	}
	zcs_net_addr_str(&p->addr, s->peer, sizeof(s->peer));
	zcs_out_attach(s, p->pending, true);
	p->pending = -1;
	p->backoff_ms = BACKOFF_MIN_MS;
	p->next_try = 0;
	zcs_log_as(&s->out->set->log, s->out->name, "connected to %s", s->peer);
}

static long tcpc_write(struct zcs_sink *s, const struct zcs_block *b)
{
	const long n = zcs_out_write_block(s, b);

	if (n < 0 && n != -ECANCELED)
		tcpc_retry_later(s->out->priv);
	return n;
}

static void tcpc_close(struct zcs_out *out)
{
	const struct tcpc_priv *p = out->priv;

	if (p && p->pending >= 0)
		close(p->pending);
}

const struct zcs_out_ops zcs_out_tcpc_ops = {
	.prefix = "tcp-connect:",
	.catch_up = true,
	.priv_size = sizeof(struct tcpc_priv),
	.open = tcpc_open,
	.idle = tcpc_idle,
	.write = tcpc_write,
	.close = tcpc_close,
};
