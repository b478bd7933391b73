// SPDX-License-Identifier: MIT
/* Synthetic sources: a tone (optionally with noise) and noise alone, generated block by block
 * exactly as sender/synth.h defines each sample, so tests can predict every sample. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "source.h"
#include "synth.h"

/* 8192 pairs = 32 KB: a few trains' worth, small enough to stay in L2 while it is packed. */
#define TONE_BLOCK_PAIRS 8192

struct tone_priv {
	struct zcs_synth synth;
	uint64_t n;      /* index of the next sample */
	uint32_t phase;  /* phase of sample n */
	size_t block;
	int16_t *buf;
};

static int tone_open(struct zcs_source *s, const struct zcs_source_config *cfg, char *err,
		     size_t errlen)
{
	const bool noise_only = strcmp(cfg->kind, "noise") == 0;
	struct tone_priv *p;

	if (cfg->rate == 0) {
		snprintf(err, errlen, "%s source needs a sample rate", cfg->kind);
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		goto nomem;
	p->block = cfg->block_pairs ? cfg->block_pairs : TONE_BLOCK_PAIRS;
	p->buf = malloc(p->block * 2 * sizeof(int16_t));
	if (!p->buf)
		goto nomem;
	zcs_synth_init(&p->synth, !noise_only, noise_only || cfg->noise, cfg->tone_hz, cfg->rate,
		       cfg->amplitude, cfg->seed);
	p->phase = p->synth.phase0;
	s->priv = p;
	memset(&s->info, 0, sizeof(s->info));
	s->info.sample_rate = cfg->rate;
	s->info.gain_mode = ZCS_GAIN_UNKNOWN;
	s->paced_by_device = false;
	return 0;
nomem:
	if (p)
		free(p->buf);
	free(p);
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

/* The tone part runs from a phase accumulator (two table loads a pair), which is what makes
 * 30 MS/s cheap on one core; the noise part is counter based, as zcs_synth_sample() says. */
static ssize_t tone_read(struct zcs_source *s, const int16_t **pairs, size_t max_pairs,
			 uint32_t *events, char *err, size_t errlen)
{
	struct tone_priv *const p = s->priv;
	const struct zcs_synth *const y = &p->synth;
	const size_t n = max_pairs < p->block ? max_pairs : p->block;
	const uint32_t quarter = ZCS_SYNTH_TABLE_LEN / 4, mask = ZCS_SYNTH_TABLE_LEN - 1;
	const int shift = 32 - ZCS_SYNTH_TABLE_BITS;
	uint32_t phase = p->phase;
	int16_t *const b = p->buf;

	(void)err;
	(void)errlen;
	*events = 0;
	if (!y->noise_amp) {
		for (size_t j = 0; j < n; j++, phase += y->step) {
			const uint32_t k = phase >> shift;

			b[2 * j] = y->cos_tab[k];
			b[2 * j + 1] = y->cos_tab[(k - quarter) & mask];
		}
	} else {
		for (size_t j = 0; j < n; j++, phase += y->step) {
			const uint32_t k = phase >> shift;
			const uint64_t c = 2 * (p->n + j);

			b[2 * j] = zcs_synth_sat12(y->cos_tab[k] + zcs_synth_noise(y, c + 1));
			b[2 * j + 1] = zcs_synth_sat12(y->cos_tab[(k - quarter) & mask] +
						       zcs_synth_noise(y, c + 2));
		}
	}
	p->phase = phase;
	p->n += n;
	*pairs = b;
	return (ssize_t)n;
}

static int tone_poll_info(struct zcs_source *s, struct zcs_radio_info *info)
{
	*info = s->info;
	return 0;
}

static void tone_close(struct zcs_source *s)
{
	struct tone_priv *const p = s->priv;

	if (p)
		free(p->buf);
	free(p);
	s->priv = NULL;
}

const struct zcs_source_ops zcs_source_tone_ops = {
	.name = "tone",
	.open = tone_open,
	.read = tone_read,
	.poll_info = tone_poll_info,
	.close = tone_close,
};
