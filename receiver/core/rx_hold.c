// SPDX-License-Identifier: MIT
/* The hold of a run awaiting the board (rx_hold.h): a byte ring of records, each a header and
 * the datagram's bytes, 8-byte aligned.  A record never wraps: when it does not fit before the
 * ring's end, the rest of the ring is skipped (marked so when a header fits there). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rx_hold.h"

#define HDR sizeof(struct zcs_rx_hold_rec)
/* A header whose len says "the ring goes on at offset 0". */
#define WRAP UINT32_MAX

_Static_assert(sizeof(struct zcs_rx_hold_rec) == 16, "records are 8-byte aligned");

static size_t rec_size(size_t len)
{
	return (HDR + len + 7) & ~(size_t)7;
}

int zcs_rx_hold_init(struct zcs_rx_hold *h, size_t cap)
{
	memset(h, 0, sizeof(*h));
	cap &= ~(size_t)7;
	if (cap == 0)
		return 0;
	h->mem = malloc(cap);
	if (!h->mem)
		return -ENOMEM;
	h->cap = cap;
	return 0;
}

void zcs_rx_hold_free(struct zcs_rx_hold *h)
{
	free(h->mem);
	memset(h, 0, sizeof(*h));
}

bool zcs_rx_hold_can(const struct zcs_rx_hold *h, size_t len)
{
	return h->mem && len < WRAP && rec_size(len) <= h->cap;
}

bool zcs_rx_hold_fits(const struct zcs_rx_hold *h, size_t len)
{
	const size_t need = rec_size(len);

	if (!zcs_rx_hold_can(h, len))
		return false;
	if (h->count == 0)
		return true;              /* put starts it again at offset 0 */
	if (h->tail == h->head)
		return false;             /* full to the byte */
	if (h->tail > h->head)            /* free: the end, or else the start before head */
		return h->cap - h->tail >= need || h->head >= need;
	return h->head - h->tail >= need;
}

void zcs_rx_hold_put(struct zcs_rx_hold *h, const struct zcs_rx_hold_rec *rec, const uint8_t *data)
{
	const size_t need = rec_size(rec->len);

	if (h->count == 0)
		h->head = h->tail = h->used = 0;
	if (h->tail >= h->head && h->cap - h->tail < need) {
		/* the end is too short: skipped (counted used until the reader passes it) */
		if (h->cap - h->tail >= HDR) {
			const struct zcs_rx_hold_rec wrap = { .len = WRAP };

			memcpy(h->mem + h->tail, &wrap, HDR);
		}
		h->used += h->cap - h->tail;
		h->tail = 0;
	}
	memcpy(h->mem + h->tail, rec, HDR);
	memcpy(h->mem + h->tail + HDR, data, rec->len);
	h->tail += need;
	if (h->tail == h->cap)
		h->tail = 0;
	h->used += need;
	h->count++;
	if (h->used > h->max_used)
		h->max_used = h->used;
}

/* The record at offset at (a wrap marker or the ring's short end: the one at 0): its header into
 * *rec, its offset returned. */
static size_t record_at(const struct zcs_rx_hold *h, size_t at, struct zcs_rx_hold_rec *rec)
{
	if (h->cap - at >= HDR)
		memcpy(rec, h->mem + at, HDR);
	if (h->cap - at < HDR || rec->len == WRAP) {
		at = 0;
		memcpy(rec, h->mem, HDR);
	}
	return at;
}

void zcs_rx_hold_walk_begin(const struct zcs_rx_hold *h, struct zcs_rx_hold_walk *w)
{
	w->at = h->head;
	w->left = h->count;
}

bool zcs_rx_hold_walk_next(const struct zcs_rx_hold *h, struct zcs_rx_hold_walk *w,
			   struct zcs_rx_hold_rec *rec, const uint8_t **data)
{
	if (!w->left)
		return false;
	w->at = record_at(h, w->at, rec);
	*data = h->mem + w->at + HDR;
	w->at += rec_size(rec->len);
	if (w->at == h->cap)
		w->at = 0;
	w->left--;
	return true;
}

bool zcs_rx_hold_pop(struct zcs_rx_hold *h, struct zcs_rx_hold_rec *rec, const uint8_t **data)
{
	if (h->count == 0)
		return false;
	if (h->cap - h->head >= HDR)
		memcpy(rec, h->mem + h->head, HDR);
	if (h->cap - h->head < HDR || rec->len == WRAP) {
		h->used -= h->cap - h->head;
		h->head = 0;
		memcpy(rec, h->mem, HDR);
	}
	*data = h->mem + h->head + HDR;
	h->head += rec_size(rec->len);
	if (h->head == h->cap)
		h->head = 0;
	h->used -= rec_size(rec->len);
	h->count--;
	if (h->count == 0)
		h->head = h->tail = h->used = 0;
	return true;
}
