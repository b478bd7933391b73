// SPDX-License-Identifier: MIT
/* The second send thread (zcs-send --send-threads 2): sends the trains the send thread hands it
 * (a share that balances the two cores' load, spread.h), one at a time, on a socket of its own,
 * so the kernel's per-datagram work (most of a sending core's time on the board) spreads over
 * two cores.  Everything that orders the stream stays with the send thread: the sealing, the
 * parity, the metadata and the end of stream; this thread only hands each train to the kernel,
 * says so, and gives its slot back to the source once the kernel is done with it. */
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "pipeline_impl.h"

/* Zero-copy completions still owed at exit are waited for this long (as the send thread). */
#define ASIDE_DRAIN_NS (2 * ZCS_NS_PER_SEC)

static void publish(struct zcs_pipeline *p)
{
	zcs_sendpath_stats_copy(&p->aside_pub, zcs_sendpath_stats(p->sp2));
}

/* Waits for the send thread's next train; NULL once it hands no more. */
static struct zcs_train *next_train(struct zcs_pipeline *p)
{
	struct zcs_train *t;

	for (;;) {
		zcs_sendpath_reap(p->sp2);
		t = zcs_ring_pop(&p->aside);
		if (t || atomic_load(&p->aside_end))
			return t ? t : zcs_ring_pop(&p->aside);
		zcs_doorbell_arm(&p->aside_db);
		t = zcs_ring_pop(&p->aside);
		if (!t && !atomic_load(&p->aside_end)) {
			/* zero-copy completions wake it too: the source waits for their slots */
			if (zcs_sendpath_inflight(p->sp2))
				zcs_sendpath_wait(p->sp2, p->aside_db.fd, 100);
			else
				zcs_doorbell_wait(&p->aside_db, 100);
		}
		zcs_doorbell_disarm(&p->aside_db);
		if (t)
			return t;
	}
}

void *zcs_pipeline_aside_main(void *arg)
{
	struct zcs_pipeline *const p = arg;
	struct zcs_train *t;
	size_t seg = p->fmt[p->cfg.format].seg;

	/* beside the source thread when that is pinned; else free: with the send thread busy on
	 * CPU1 it runs on CPU0 mostly, but may go where there is room when CPU0's interrupts (or
	 * other work) take that core (pinned off CPU1 it fell behind a paced 30.72 MS/s more often
	 * on a loaded machine, docs/measurements.md) */
	zcs_pipeline_pin(p, p->cfg.cpu_src, "second send");
	while ((t = next_train(p))) {
		int ret = 0;

		if (p->aside_err) {
			/* its path failed and the stream stops: the slot goes back unsent */
			zcs_ring_push(&p->free2, t);
			zcs_doorbell_ring(&p->free_db);
		} else {
			/* a new wire format: the send thread announced it and waited for this
			 * thread's last train of the old one, so nothing queued here is cut at
			 * the new size */
			if (t->seg != seg) {
				seg = t->seg;
				ret = zcs_sendpath_set_seg(p->sp2, seg);
			}
			if (ret >= 0) {
				ret = zcs_sendpath_send(p->sp2, t);
			} else { /* not handed over: the slot goes back */
				zcs_ring_push(&p->free2, t);
				zcs_doorbell_ring(&p->free_db);
			}
			/* out now, not batched: the send thread's next metadata or parity waits
			 * for it */
			if (ret >= 0)
				ret = zcs_sendpath_flush(p->sp2);
			if (ret < 0) {
				snprintf(p->aside_msg, sizeof(p->aside_msg),
					 "second send thread: %s", strerror(-ret));
				ZCS_PUB(p->aside_err, ret); /* the send thread hands no more */
				zcs_pipeline_stop(p);
			}
		}
		publish(p);
		/* where it ran, for the share of trains it gets (spread.h) */
		atomic_store(&p->aside_cpu, sched_getcpu());
		atomic_fetch_add(&p->aside_sent, 1);
		zcs_doorbell_ring(&p->aside_done_db);
	}
	if (zcs_sendpath_drain(p->sp2, zcs_mono_ns() + ASIDE_DRAIN_NS))
		zcs_log(&p->cfg.log, "%zu zero-copy completions of the second send thread still "
			"missing at exit", zcs_sendpath_inflight(p->sp2));
	publish(p);
	ZCS_PUB(p->aside_cpu_ns, zcs_clock_ns(CLOCK_THREAD_CPUTIME_ID));
	atomic_store(&p->aside_done, true);
	return NULL;
}
