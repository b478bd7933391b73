/* SPDX-License-Identifier: MIT */
/* The counters of the engine's parts that its snapshot reports (rx.h, struct zcs_rx_snapshot):
 * the reorder window's (reorder.h) and the gap filler's (gapfill.h).  Public because users read
 * them there; the parts themselves are private to receiver/core. */
#ifndef ZCS_RX_COUNTERS_H
#define ZCS_RX_COUNTERS_H

#include <stdint.h>

/* The gap filler's counters. */
struct zcs_gapfill_stats {
	uint64_t samples;         /* I/Q pairs handed to the outputs: received + zero-filled */
	uint64_t rx_samples;      /* of those, pairs that came from the network */
	uint64_t gap_samples;     /* pairs lost on the way (zero-filled, or skipped with --gap drop) */
	uint64_t discont_samples; /* pairs the sender lost at its source (ZCS_FLAG_DISCONT), likewise */
	uint64_t gaps;            /* stretches filled or skipped */
	uint64_t jumps;           /* sample index went backwards or leapt: position taken as is */
};

/* The reorder window's counters; each is defined by exactly one of the cases in
 * zcs_reorder_push() (reorder.h). */
struct zcs_reorder_stats {
	uint64_t accepted;   /* arrivals held (verdict ACCEPTED) */
	uint64_t delivered;  /* numbers released as data, in order */
	uint64_t lost;       /* numbers released as lost: never delivered (late arrivals stay lost) */
	uint64_t late;       /* arrivals whose number was already declared lost (or too old to tell) */
	uint64_t duplicate;  /* arrivals whose number was already held or delivered */
	uint64_t reordered;  /* accepted arrivals that came after a higher number had arrived */
	uint64_t stale;      /* arrivals from before the stream's start */
	uint64_t resyncs;    /* jumps beyond the resync distance (each reported once, losses not counted) */
	uint64_t max_depth;  /* most datagrams ever held at once */
};

#endif
