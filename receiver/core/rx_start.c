// SPDX-License-Identifier: MIT
/* The datagrams kept before an unkeyed stream's start is confirmed (see rx_start.h): the hold's
 * store (rx_hold.c) filled and emptied for the stream-following unit's verdicts. */
#include <string.h>

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
		uint32_t hb;

		if (rec.seq - lo > hi - lo) {
			/* not the stream's: a claim its start did not confirm */
			rx->fs.st.unconfirmed++;
			continue;
		}
		/* never short: the window holds at most its capacity, and the pool has more */
		if (rx->nfree == 0 || rec.len > rx->buf_size) {
			zcs_follow_start_give_up(&rx->fs, rec.seq, rec.samples, true);
			continue;
		}
		hb = rx->free_list[--rx->nfree];
		rx->bufs[hb].data = rx->bufs[hb].own;
		memcpy(rx->bufs[hb].own, data, rec.len);
		/* parsed when it came: parsed again only to point into this buffer */
		if (zcs_proto_parse(rx->bufs[hb].own, rec.len, dg) < 0) {
			rx->free_list[rx->nfree++] = hb;
			continue;
		}
		*bi = hb;
		*len = rec.len;
		return true;
	}
	return false;
}
