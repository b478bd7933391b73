// SPDX-License-Identifier: MIT
/* Synthetic sources: a tone (optionally with noise) and noise alone, exactly as sender/synth.h
 * defines each sample, so tests can predict every sample.  A pure tone is periodic: one period is
 * computed at open and handed out by pointer, costing nothing per sample, like the radio's DMA. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "proto.h"
#include "source.h"
#include "synth.h"

/* Pairs a read hands out: 8192 pairs = 32 KB, a few trains' worth; with noise, small enough to stay
 * in L2 between generating and packing.  A pure tone keeps one period and this much more (up to
 * 288 KB), read-only. */
#define TONE_BLOCK_PAIRS 8192

struct tone_priv {
	struct zcs_synth synth;
	uint64_t n;      /* index of the next sample */
	size_t block;    /* most pairs a read hands out */
	uint32_t period; /* pure tone: the samples' period (zcs_synth_period), 0 with noise */
	int16_t *buf;    /* pure tone: samples 0 .. period + block - 1, so any block starting in the
			  * first period is contiguous; with noise: the block being handed out */
};

/* Also tone_open()'s failure path (p or its buffer may be missing). */
static void tone_close(struct zcs_source *s)
{
	struct tone_priv *const p = s->priv;

	if (p)
		free(p->buf);
	free(p);
	s->priv = NULL;
}

static int tone_open(struct zcs_source *s, const struct zcs_source_config *cfg, char *err,
		     size_t errlen)
{
	const bool noise_only = strcmp(cfg->kind, "noise") == 0;
	struct tone_priv *p;

	if (cfg->rate == 0)
		return zcs_err(err, errlen, -EINVAL, "%s source needs a sample rate", cfg->kind);
	p = calloc(1, sizeof(*p));
	if (!p)
		goto nomem;
	p->block = cfg->block_pairs ? cfg->block_pairs : TONE_BLOCK_PAIRS;
	zcs_synth_init(&p->synth, !noise_only, noise_only || cfg->noise, cfg->tone_hz, cfg->rate,
		       cfg->amplitude, cfg->seed);
	p->period = p->synth.noise_amp ? 0 : zcs_synth_period(&p->synth);
	p->buf = malloc((p->period + p->block) * 2 * sizeof(int16_t));
	if (!p->buf)
		goto nomem;
	if (p->period)
		zcs_synth_fill(&p->synth, 0, p->period + p->block, p->buf);
	s->priv = p;
	zcs_source_set_unpaced_info(s, cfg->rate);
	return 0;
nomem:
	s->priv = p;
	tone_close(s);
	return zcs_err(err, errlen, -ENOMEM, "out of memory");
}

/* A pure tone: a pointer into the precomputed period.  With noise, which never repeats, the block
 * is generated (the noise is counter based, as zcs_synth_sample() says). */
static ssize_t tone_read(struct zcs_source *s, const int16_t **pairs, size_t max_pairs,
			 uint32_t *events, char *err, size_t errlen)
{
	struct tone_priv *const p = s->priv;
	const size_t n = max_pairs < p->block ? max_pairs : p->block;

	(void)err;
	(void)errlen;
	*events = 0;
	if (p->period) {
		*pairs = p->buf + 2 * (size_t)(p->n % p->period);
	} else {
		zcs_synth_fill(&p->synth, p->n, n, p->buf);
		*pairs = p->buf;
	}
	p->n += n;
	return (ssize_t)n;
}

/* No poll_info: the settings given at open never change. */
const struct zcs_source_ops zcs_source_tone_ops = {
	.name = "tone",
	.open = tone_open,
	.read = tone_read,
	.close = tone_close,
};
