/* SPDX-License-Identifier: MIT */
/* A doorbell beside each SPSC ring: the consumer sleeps on an eventfd only after saying so, and
 * the producer writes the eventfd only when the consumer sleeps, so a busy pipeline makes no
 * wake-up syscalls at all. */
#ifndef ZCS_DOORBELL_H
#define ZCS_DOORBELL_H

#include <stdatomic.h>
#include <stdbool.h>

struct zcs_doorbell {
	int fd;                 /* eventfd, non-blocking */
	atomic_bool sleeping;   /* the consumer is about to wait or waits */
};

/* Returns 0 or -errno. */
int zcs_doorbell_init(struct zcs_doorbell *d);
void zcs_doorbell_close(struct zcs_doorbell *d);

/* Producer, after a push: wakes the consumer if it sleeps. */
void zcs_doorbell_ring(struct zcs_doorbell *d);

/* Consumer: arm, check the ring once more (a push may have come just before), then wait on
 * d->fd (directly or through another poller) and disarm, which also empties the eventfd. */
void zcs_doorbell_arm(struct zcs_doorbell *d);
void zcs_doorbell_disarm(struct zcs_doorbell *d);
/* poll()s d->fd up to timeout_ms. */
void zcs_doorbell_wait(struct zcs_doorbell *d, int timeout_ms);

#endif
