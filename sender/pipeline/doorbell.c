// SPDX-License-Identifier: MIT
/* Doorbells: eventfd wake-ups between the pipeline's two threads, rung only when the other side
 * sleeps (the store-fence-load pairs below are the classic Dekker handshake). */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "doorbell.h"

int zcs_doorbell_init(struct zcs_doorbell *d)
{
	d->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (d->fd < 0)
		return -errno;
	atomic_init(&d->sleeping, false);
	return 0;
}

void zcs_doorbell_close(struct zcs_doorbell *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

void zcs_doorbell_ring(struct zcs_doorbell *d)
{
	const uint64_t one = 1;

	/* the push must be visible before we look at sleeping, or both sides may miss each other */
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&d->sleeping, memory_order_relaxed)) {
		if (write(d->fd, &one, sizeof(one)) < 0) {
			/* EAGAIN: the counter is already non-zero, the consumer will wake anyway */
		}
	}
}

void zcs_doorbell_arm(struct zcs_doorbell *d)
{
	atomic_store_explicit(&d->sleeping, true, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
}

void zcs_doorbell_disarm(struct zcs_doorbell *d)
{
	uint64_t v;

	atomic_store_explicit(&d->sleeping, false, memory_order_relaxed);
	if (read(d->fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nobody rang */
	}
}

void zcs_doorbell_wait(struct zcs_doorbell *d, int timeout_ms)
{
	struct pollfd pfd = { .fd = d->fd, .events = POLLIN };

	if (poll(&pfd, 1, timeout_ms) < 0 && errno != EINTR) {
		/* nothing to do: the caller loops and re-checks its ring */
	}
}
