/* SPDX-License-Identifier: MIT */
/* Sealing for tests and fuzz targets: each call seals through a tagger of its own, as a thread
 * of the sender would with its own, so a test needs no tagger to keep beside its zcs_auth.
 * Header-only: the unit tests and the fuzz targets link different sets of objects. */
#ifndef ZCS_TEST_SEALING_H
#define ZCS_TEST_SEALING_H

#include <stdint.h>
#include <stdlib.h>

#include "auth.h"
#include "proto.h"

static inline size_t seal_samples(const struct zcs_auth *a, uint8_t *buf, size_t len)
{
	struct zcs_auth_tagger t;
	size_t n;

	if (zcs_auth_tagger_init(&t, a->key, NULL, 0) != 0)
		abort();
	n = zcs_auth_seal_samples(a, &t, buf, len);
	zcs_auth_tagger_wipe(&t);
	return n;
}

static inline size_t seal_meta(struct zcs_auth *a, uint8_t *buf)
{
	struct zcs_auth_tagger t;
	size_t n;

	if (zcs_auth_tagger_init(&t, a->key, NULL, 0) != 0)
		abort();
	n = zcs_auth_seal_meta(a, &t, buf);
	zcs_auth_tagger_wipe(&t);
	return n;
}

#endif
