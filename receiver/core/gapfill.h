/* SPDX-License-Identifier: MIT */
/* From datagrams released in order to consumer samples: keeps the stream's sample position,
 * turns every lost stretch into exactly as many zero samples (or skips it with --gap drop), and
 * converts payloads straight into the outputs' blocks.  Stops exactly at --count samples. */
#ifndef ZCS_GAPFILL_H
#define ZCS_GAPFILL_H

#include <stdbool.h>
#include <stdint.h>

#include "formats.h"
#include "output.h"
#include "proto.h"

struct zcs_gapfill_stats {
	uint64_t samples;         /* I/Q pairs handed to the outputs: received + zero-filled */
	uint64_t rx_samples;      /* of those, pairs that came from the network */
	uint64_t gap_samples;     /* pairs lost on the way (zero-filled, or skipped with --gap drop) */
	uint64_t discont_samples; /* pairs the sender lost at its source (ZCS_FLAG_DISCONT), likewise */
	uint64_t gaps;            /* stretches filled or skipped */
	uint64_t jumps;           /* sample index went backwards or leapt: position taken as is */
};

struct zcs_gapfill {
	struct zcs_outputs *out;
	const struct zcs_kernels *k;
	enum zcs_sample_type type;
	bool drop;                /* --gap drop */
	uint64_t limit;           /* --count: 0 = none */
	bool done;                /* limit reached */
	bool have_pos;
	uint64_t pos;             /* stream index of the next sample expected */
	uint64_t lost_dgrams;     /* datagrams declared lost since the last one delivered */
	uint64_t spd;             /* pairs in a full datagram, from the metadata (0: unknown) */
	struct zcs_gapfill_stats st;
};

void zcs_gapfill_init(struct zcs_gapfill *g, struct zcs_outputs *out, const struct zcs_kernels *k,
		      enum zcs_sample_type type, bool drop, uint64_t limit);

/* A new stream (or a resync): forget the position; spd is the metadata's samples per datagram. */
void zcs_gapfill_restart(struct zcs_gapfill *g, uint64_t spd);

/* count datagrams were declared lost before the next one delivered. */
void zcs_gapfill_lost(struct zcs_gapfill *g, uint64_t count);

/* Delivers one datagram in order; payload holds hdr->samples uncompressed pairs of hdr->format.
 * Returns the pairs put out for it (fill included); g->done tells when --count was reached. */
uint64_t zcs_gapfill_data(struct zcs_gapfill *g, const struct zcs_sample_hdr *hdr,
			  const uint8_t *payload);

#endif
