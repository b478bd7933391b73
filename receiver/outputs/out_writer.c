// SPDX-License-Identifier: MIT
/* The writer side of the outputs: each consumer's thread (wait, pop, write, detect departures),
 * the servers' accept threads, and the helpers the kinds use to attach, detach and write. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "net.h"
#include "output_kinds.h"

void zcs_out_wake(struct zcs_sink *s)
{
	const uint64_t one = 1;

	if (write(s->efd, &one, sizeof(one)) < 0) {
		/* the counter cannot overflow at our rates; nothing to do */
	}
}

void zcs_out_attach(struct zcs_sink *s, int fd, bool is_socket)
{
	struct zcs_out *out = s->out;

	pthread_mutex_lock(&out->mu);
	s->fd = fd;
	s->is_socket = is_socket;
	s->rd_closed = false;
	zcs_out_queue_reset(s, out->ops->catch_up, zcs_mono_ns());
	atomic_store(&s->state, ZCS_SINK_ATTACHED);
	pthread_mutex_unlock(&out->mu);
	atomic_fetch_add(&out->connects, 1);
	atomic_fetch_add(&out->consumers, 1);
}

void zcs_out_detach(struct zcs_sink *s)
{
	struct zcs_out *out = s->out;
	struct zcs_block *b;

	pthread_mutex_lock(&out->mu);
	/* after this the receive thread no longer touches s->q */
	atomic_store(&s->state, ZCS_SINK_DETACHING);
	pthread_mutex_unlock(&out->mu);
	while ((b = zcs_ring_pop(&s->q))) {
		if (b->type == ZCS_BLOCK_DATA)
			atomic_fetch_add(&out->unread, 1);
		zcs_out_pool_put(&out->set->pool, b);
	}
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	atomic_fetch_sub(&out->consumers, 1);
	/* the slot is free for the next client: no stalled one need go for it now */
	atomic_store(&out->slot_wanted, false);
	atomic_store(&s->state, ZCS_SINK_FREE);
}

/* A client that has taken nothing for the timeout is dropped only if its slot is wanted: a
 * client has been turned away since a slot was last freed.  An application that connects at
 * start and reads only once its user presses start (GQRX's power button) keeps its slot while
 * nobody else needs it, and clients that never read cannot lock every later one out: each one
 * turned away frees one stalled slot for its retry (the exchange: of several stalled writers
 * looking at once, one takes the want). */
static bool stalled_and_wanted(struct zcs_out *out, uint64_t last_progress, uint64_t timeout)
{
	return zcs_mono_ns() - last_progress >= timeout && atomic_exchange(&out->slot_wanted, false);
}

int zcs_out_write_all(struct zcs_sink *s, int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	/* only a server's clients time out: one that reads nothing would hold its slot for ever
	 * (and with every slot held, lock every later client out); see slot_wanted */
	const uint64_t timeout = s->out->ops->server ? s->out->set->client_timeout_ns : 0;
	uint64_t last_progress = timeout ? zcs_mono_ns() : 0;

	while (len) {
		ssize_t n;

		if (s->is_socket)
			n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		else
			n = write(fd, p, len);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			if (timeout)
				last_progress = zcs_mono_ns();
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };

			if (zcs_out_stopping(s->out))
				return -ECANCELED;
			if (timeout && stalled_and_wanted(s->out, last_progress, timeout))
				return -ETIMEDOUT;
			poll(&pfd, 1, ZCS_OUT_TICK_MS);
			continue;
		}
		if (n < 0 && errno == EPIPE && !s->is_socket) {
			/* Writer threads block every signal, so the SIGPIPE of a pipe write is left
			 * pending on this thread: take it, the process never sees it. */
			sigset_t pipe_set;
			const struct timespec zero = { 0, 0 };

			sigemptyset(&pipe_set);
			sigaddset(&pipe_set, SIGPIPE);
			sigtimedwait(&pipe_set, NULL, &zero);
			return -EPIPE;
		}
		return n < 0 ? -errno : -EIO;
	}
	return 0;
}

long zcs_out_write_block(struct zcs_sink *s, const struct zcs_block *b)
{
	const int ret = zcs_out_write_all(s, s->fd, b->data, b->len);

	return ret < 0 ? ret : (long)b->len;
}

/* ---- writer threads ---- */

static void sink_wait(struct zcs_sink *s)
{
	const int st = atomic_load(&s->state);
	/* an empty server slot has nothing to look after until a client or the end wakes it */
	const int timeout = (s->out->ops->server && st == ZCS_SINK_FREE) ? -1 : ZCS_OUT_TICK_MS;
	struct pollfd pfd = { .fd = s->efd, .events = POLLIN };
	uint64_t v;

	atomic_store(&s->sleeping, true);
	atomic_thread_fence(memory_order_seq_cst);
	if (zcs_ring_count(&s->q) == 0 && atomic_load(&s->state) != ZCS_SINK_PENDING &&
	    !zcs_out_stopping(s->out))
		poll(&pfd, 1, timeout);
	atomic_store(&s->sleeping, false);
	if (read(s->efd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nobody woke us, the tick did */
	}
}

static void deliver(struct zcs_sink *s, const struct zcs_block *b)
{
	struct zcs_out *out = s->out;
	long n;

	if (atomic_load(&s->state) != ZCS_SINK_ATTACHED)
		return;
	if (b->type != ZCS_BLOCK_DATA) {
		if (out->ops->event)
			out->ops->event(s, b);
		return;
	}
	n = out->ops->write(s, b);
	if (n >= 0) {
		s->given += (uint64_t)n;
		atomic_fetch_add_explicit(&out->bytes, (uint64_t)n, memory_order_relaxed);
		atomic_fetch_add_explicit(&out->blocks, 1, memory_order_relaxed);
	} else if (n != -ECANCELED && atomic_load(&s->state) == ZCS_SINK_ATTACHED) {
		atomic_fetch_add_explicit(&out->unread, 1, memory_order_relaxed);
		if (n == -ETIMEDOUT && out->ops->server)
			zcs_log_as(&out->set->log, out->name, "client %s read nothing for %.1f s "
				   "while data waited and a client was turned away: dropped "
				   "(--client-timeout)", s->peer,
				   (double)out->set->client_timeout_ns / 1e9);
		else if (!out->ops->once)
			zcs_log_as(&out->set->log, out->name, "%s%sconsumer left (%s)", s->peer,
				   s->peer[0] ? ": " : "", strerror((int)-n));
		zcs_out_detach(s);
		if (out->ops->once)
			zcs_out_fail(out, (int)-n);
	}
}

/* Bytes the kernel holds of what the consumer was given and has not taken: a pipe's content,
 * or a socket's send queue (sent but not acknowledged, or not sent yet).  0 when it cannot say. */
static size_t kernel_held(const struct zcs_sink *s)
{
	int n = 0;

	if (ioctl(s->fd, s->is_socket ? SIOCOUTQ : FIONREAD, &n) < 0 || n < 0)
		return 0;
	return (size_t)n;
}

/* What the kernel may hold for the consumer: the socket's send buffer, or the pipe's size. */
static size_t kernel_room(const struct zcs_sink *s)
{
	int n = 0;
	socklen_t len = sizeof(n);

	if (s->is_socket)
		return getsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &n, &len) < 0 || n < 0 ? 0 : (size_t)n;
	n = fcntl(s->fd, F_GETPIPE_SZ);
	return n < 0 ? 0 : (size_t)n;
}

/* The queue is empty: a consumer still catching up may have caught up now (out_queue.c). */
static void check_caught_up(struct zcs_sink *s)
{
	struct zcs_out *out = s->out;
	uint64_t skipped;

	if (!s->catching_up || atomic_load(&s->state) != ZCS_SINK_ATTACHED ||
	    !zcs_out_queue_caught_up(s, kernel_held(s), kernel_room(s), zcs_mono_ns()))
		return;
	zcs_out_queue_caught_up_end(s);
	skipped = atomic_load(&s->skipped);
	zcs_log_as(&out->set->log, out->name, "%s%s caught up with the live stream (%" PRIu64
		   " blocks skipped while it started)", out->ops->server ? "client " : "",
		   s->peer[0] ? s->peer : "reader", skipped);
}

void *zcs_out_sink_main(void *arg)
{
	struct zcs_sink *s = arg;
	struct zcs_out *out = s->out;
	struct zcs_block *b;
	uint64_t skipped;

	while (!zcs_out_stopping(out)) {
		if (atomic_load(&s->state) == ZCS_SINK_PENDING) {
			const int fd = s->fd;

			if (out->ops->greet && out->ops->greet(s) < 0) {
				close(fd);
				s->fd = -1;
				atomic_store(&s->state, ZCS_SINK_FREE);
				continue;
			}
			zcs_out_attach(s, fd, true);
			zcs_log_as(&out->set->log, out->name, "client %s came", s->peer);
			continue;
		}
		atomic_store(&s->busy, true);
		skipped = 0;
		b = zcs_out_queue_pop(s, &out->set->pool, &skipped);
		if (skipped) {
			atomic_fetch_add_explicit(&out->skipped, skipped, memory_order_relaxed);
			atomic_fetch_add_explicit(&s->skipped, skipped, memory_order_relaxed);
		}
		if (!b) {
			atomic_store(&s->busy, false);
			check_caught_up(s);
			if (out->ops->idle)
				out->ops->idle(s);
			sink_wait(s);
			continue;
		}
		deliver(s, b);
		zcs_out_pool_put(&out->set->pool, b);
		atomic_store(&s->busy, false);
	}
	return NULL;
}

/* A free sink claimed for a new client, or NULL when every one has a client. */
static struct zcs_sink *claim_sink(struct zcs_out *out)
{
	for (size_t i = 0; i < out->nsinks; i++) {
		int expect = ZCS_SINK_FREE;

		if (atomic_compare_exchange_strong(&out->sinks[i].state, &expect, ZCS_SINK_CLAIMED))
			return &out->sinks[i];
	}
	return NULL;
}

void *zcs_out_accept_main(void *arg)
{
	struct zcs_out *out = arg;
	bool accept_failing = false;
	uint64_t refused = 0;

	while (!zcs_out_stopping(out)) {
		struct pollfd pfd = { .fd = out->listen_fd, .events = POLLIN };
		struct zcs_addr a = { .len = sizeof(a.ss) };
		struct zcs_sink *s;
		int fd;

		if (poll(&pfd, 1, ZCS_OUT_TICK_MS) <= 0)
			continue;
		fd = accept4(out->listen_fd, (struct sockaddr *)&a.ss, &a.len,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			/* Out of descriptors or memory, the client stays queued and the socket stays
			 * readable: wait a tick instead of spinning on it, and say so once. */
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED) {
				if (!accept_failing)
					zcs_log_as(&out->set->log, out->name,
						   "cannot take a client: %s (retrying)",
						   strerror(errno));
				accept_failing = true;
				poll(NULL, 0, ZCS_OUT_TICK_MS);
			}
			continue;
		}
		accept_failing = false;
		s = claim_sink(out);
		if (!s) {
			char peer[64];

			atomic_store(&out->slot_wanted, true);
			/* the 1st, 2nd, 4th, 8th... refusal: a connection storm logs a few lines */
			refused++;
			if ((refused & (refused - 1)) == 0) {
				zcs_net_addr_str(&a, peer, sizeof(peer));
				zcs_log_as(&out->set->log, out->name,
					   "client %s refused: already %d clients (%" PRIu64
					   " refused so far; one that has read nothing for "
					   "--client-timeout goes for the next)", peer,
					   ZCS_OUT_MAX_CLIENTS, refused);
			}
			close(fd);
			continue;
		}
		s->fd = fd;
		zcs_net_addr_str(&a, s->peer, sizeof(s->peer));
		/* publishes fd and peer to the sink's thread */
		atomic_store(&s->state, ZCS_SINK_PENDING);
		zcs_out_wake(s);
	}
	return NULL;
}
