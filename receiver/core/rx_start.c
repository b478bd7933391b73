// SPDX-License-Identifier: MIT
/* The datagrams kept before an unkeyed stream's start is confirmed (see rx_start.h): the hold's
 * store (rx_hold.c) filled and emptied for the stream-following unit's verdicts. */

#include "rx_start.h"


void zcs_rx_start_discard(struct zcs_rx *rx)
{
	const bool own = rx->hold.gen == rx->fs.start_gen;
	struct zcs_rx_hold_rec rec;
	const uint8_t *data;

	while (zcs_rx_hold_pop(&rx->hold, &rec, &data))
		zcs_follow_start_give_up(&rx->fs, rec.seq, rec.samples, own);
}

void zcs_rx_start_keep(struct zcs_rx *rx, const uint8_t *data, size_t len,
		       const struct zcs_sample_hdr *h)
{
	const struct zcs_rx_hold_rec rec = { .seq = h->seq, .samples = h->samples,
					     .len = (uint32_t)len };
	struct zcs_rx_hold_rec old;
	const uint8_t *od;

	/* what was kept for a stream no longer followed is dropped first */
	if (rx->hold.count && rx->hold.gen != rx->fs.start_gen)
		zcs_rx_start_discard(rx);
	rx->hold.gen = rx->fs.start_gen;
	if (!zcs_rx_hold_can(&rx->hold, len)) {
		zcs_follow_start_give_up(&rx->fs, rec.seq, rec.samples, true);
		return;
	}
	while (!zcs_rx_hold_fits(&rx->hold, len) && zcs_rx_hold_pop(&rx->hold, &old, &od))
		zcs_follow_start_give_up(&rx->fs, old.seq, old.samples, true);
	zcs_rx_hold_put(&rx->hold, &rec, data);
}

/* Passes over what is kept at most: each takes in a chain of datagrams that came in order, so
 * only datagrams reordered against a chain need another. */
#define EXTEND_PASSES 8

void zcs_rx_start_extend(struct zcs_rx *rx, struct zcs_start_run *run)
{
	bool more = true;

	for (int pass = 0; more && pass < EXTEND_PASSES; pass++) {
		struct zcs_rx_hold_walk w;
		struct zcs_rx_hold_rec rec;
		const uint8_t *data;
		struct zcs_dgram dg;

		more = false;
		zcs_rx_hold_walk_begin(&rx->hold, &w);
		while (zcs_rx_hold_walk_next(&rx->hold, &w, &rec, &data))
			if (rec.seq - run->lo > run->hi - run->lo &&
			    zcs_proto_parse(data, rec.len, &dg) == 0 && dg.type == ZCS_DGRAM_SAMPLES &&
			    zcs_follow_start_extend(run, &dg.hdr))
				more = true;
	}
}

bool zcs_rx_start_next(struct zcs_rx *rx, uint64_t lo, uint64_t hi, uint32_t *bi, size_t *len,
		       struct zcs_dgram *dg)
{
	struct zcs_rx_hold_rec rec;
	const uint8_t *data;

	if (rx->hold.gen != rx->fs.start_gen) {
		zcs_rx_start_discard(rx);
		return false;
	}
	while (zcs_rx_hold_pop(&rx->hold, &rec, &data)) {
		int got;

		if (rec.seq - lo > hi - lo) {
			/* not the stream's: a claim its start did not confirm */
			rx->fs.st.unconfirmed++;
			continue;
		}
		/* never short of a buffer: the window holds at most its capacity, the pool more */
		got = zcs_rx_unhold(rx, data, rec.len, dg, bi);
		if (got == 0)
			zcs_follow_start_give_up(&rx->fs, rec.seq, rec.samples, true);
		if (got <= 0)
			continue;
		*len = rec.len;
		return true;
	}
	return false;
}
