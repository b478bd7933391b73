// SPDX-License-Identifier: MIT
/* The datagrams of a run awaiting the board (see rx_pending.h): the hold's store (rx_hold.c)
 * filled and emptied for the stream-following unit's verdicts. */

#include "rx_pending.h"

void zcs_rx_pending_discard(struct zcs_rx *rx)
{
	struct zcs_rx_hold_rec rec;
	const uint8_t *data;

	while (zcs_rx_hold_pop(&rx->hold, &rec, &data))
		zcs_follow_pend_drop(&rx->fs, rx->hold.gen, rec.seq, rec.samples);
}

void zcs_rx_pending_keep(struct zcs_rx *rx, const uint8_t *data, size_t len,
			 const struct zcs_dgram *dg)
{
	const uint64_t gen = zcs_follow_pend_gen(&rx->fs);
	const struct zcs_rx_hold_rec rec = { .seq = dg->hdr.seq, .samples = dg->hdr.samples,
					     .len = (uint32_t)len };
	struct zcs_rx_hold_rec old;
	const uint8_t *od;

	if (rx->hold.count && rx->hold.gen != gen)
		zcs_rx_pending_discard(rx);
	rx->hold.gen = gen;
	if (!zcs_rx_hold_can(&rx->hold, len)) {
		zcs_follow_pend_drop(&rx->fs, gen, rec.seq, rec.samples);
		return;
	}
	while (!zcs_rx_hold_fits(&rx->hold, len) && zcs_rx_hold_pop(&rx->hold, &old, &od))
		zcs_follow_pend_drop(&rx->fs, gen, old.seq, old.samples);
	zcs_rx_hold_put(&rx->hold, &rec, data);
}

bool zcs_rx_pending_next(struct zcs_rx *rx, uint64_t gen, uint32_t *bi, size_t *len,
			 struct zcs_dgram *dg)
{
	struct zcs_rx_hold_rec rec;
	const uint8_t *data;

	if (rx->hold.gen != gen) {
		zcs_rx_pending_discard(rx);
		return false;
	}
	while (zcs_rx_hold_pop(&rx->hold, &rec, &data)) {
		/* verified and parsed when it came; never short of a buffer: the window holds at
		 * most its capacity, and the pool has more */
		const int got = zcs_rx_unhold(rx, data, rec.len, dg, bi);

		if (got == 0)
			zcs_follow_pend_drop(&rx->fs, gen, rec.seq, rec.samples);
		if (got <= 0)
			continue;
		*len = rec.len;
		return true;
	}
	return false;
}
