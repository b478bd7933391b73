/* SPDX-License-Identifier: MIT */
/* The synthetic tone and noise of zcs-send, defined sample by sample so that a test can predict
 * every sample exactly: sample n depends only on the parameters and n (docs/sender.md, "Tone"). */
#ifndef ZCS_SYNTH_H
#define ZCS_SYNTH_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZCS_SYNTH_TABLE_BITS 12
#define ZCS_SYNTH_TABLE_LEN (1u << ZCS_SYNTH_TABLE_BITS)
#define ZCS_SYNTH_GOLDEN 0x9E3779B97F4A7C15ULL
/* The tone's phase step is a whole number of 2^-16 turns (frequency resolution rate / 65536), so
 * the tone repeats exactly every 65536 samples or fewer: a source computes one period once and
 * hands it out by pointer, at no cost per sample, as the radio's DMA does. */
#define ZCS_SYNTH_STEP_BITS 16
#define ZCS_SYNTH_PERIOD_MAX (1u << ZCS_SYNTH_STEP_BITS)

struct zcs_synth {
	int16_t cos_tab[ZCS_SYNTH_TABLE_LEN]; /* round(amp * cos(2 pi k / 4096)) */
	uint32_t phase0;   /* phase of sample 0, from the seed */
	uint32_t step;     /* phase increment per sample: zcs_synth_step() */
	int32_t amp;       /* tone amplitude in 12-bit units, 0 = no tone */
	int32_t noise_amp; /* noise amplitude in 12-bit units, 0 = no noise */
	uint64_t seed;
};

/* splitmix64's output function: a good 64-bit mix, so noise is counter based (sample n can be
 * computed without the n - 1 before it). */
static inline uint64_t zcs_synth_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* tone_hz / rate turns per sample, rounded to a whole number of 2^-16 turns. */
static inline int64_t zcs_synth_step_units(double tone_hz, uint64_t rate)
{
	return llround(tone_hz / (double)rate * (double)ZCS_SYNTH_PERIOD_MAX);
}

/* The phase increment per sample: step_units * 2^16 mod 2^32 (two's complement when negative). */
static inline uint32_t zcs_synth_step(double tone_hz, uint64_t rate)
{
	const uint64_t units = (uint64_t)zcs_synth_step_units(tone_hz, rate);

	return (uint32_t)(units << (32 - ZCS_SYNTH_STEP_BITS));
}

/* The frequency of the tone actually generated for tone_hz: a multiple of rate / 65536, within
 * rate / 131072 of tone_hz. */
static inline double zcs_synth_tone_hz(double tone_hz, uint64_t rate)
{
	return (double)zcs_synth_step_units(tone_hz, rate) * (double)rate /
	       (double)ZCS_SYNTH_PERIOD_MAX;
}

/* tone: a tone of tone_hz at rate; noise: add noise.  With both, the noise is amplitude / 8 so
 * the tone stays clear; noise alone uses the full amplitude. */
static inline void zcs_synth_init(struct zcs_synth *s, bool tone, bool noise, double tone_hz,
				  uint64_t rate, double amplitude, uint64_t seed)
{
	const int32_t a = (int32_t)lround(amplitude * 2047.0);

	s->seed = seed;
	s->amp = tone ? a : 0;
	s->noise_amp = noise ? (tone ? a / 8 : a) : 0;
	s->phase0 = (uint32_t)(zcs_synth_mix(seed) >> 32);
	s->step = zcs_synth_step(tone_hz, rate);
	for (uint32_t k = 0; k < ZCS_SYNTH_TABLE_LEN; k++)
		s->cos_tab[k] = (int16_t)lround(s->amp * cos(2.0 * M_PI * k / ZCS_SYNTH_TABLE_LEN));
}

/* Gaussian-ish noise in [-amp, amp]: the sum of the four 16-bit fields of a 64-bit mix. */
static inline int32_t zcs_synth_noise(const struct zcs_synth *s, uint64_t counter)
{
	const uint64_t r = zcs_synth_mix(s->seed + counter * ZCS_SYNTH_GOLDEN);
	const int64_t g = (int64_t)(r & 0xffff) + (int64_t)(r >> 16 & 0xffff) +
			  (int64_t)(r >> 32 & 0xffff) + (int64_t)(r >> 48) - 131070;

	return (int32_t)(g * s->noise_amp / 131072);
}

static inline int16_t zcs_synth_sat12(int32_t v)
{
	return (int16_t)(v < -2048 ? -2048 : v > 2047 ? 2047 : v);
}

/* The period of the tone part: sample n + period has the same tone as sample n.  A power of two
 * up to 65536 (1 without a tone or at 0 Hz); the noise, when there is any, never repeats. */
static inline uint32_t zcs_synth_period(const struct zcs_synth *s)
{
	return s->step ? (uint32_t)(4294967296ULL / (s->step & (0u - s->step))) : 1;
}

/* Sample n: I = A cos(2 pi F t), Q = A sin(2 pi F t) from a 4096-entry table indexed by the top
 * 12 bits of a 32-bit phase, plus noise; saturated to 12 bits. */
static inline void zcs_synth_sample(const struct zcs_synth *s, uint64_t n, int16_t *i, int16_t *q)
{
	const uint32_t phase = s->phase0 + (uint32_t)n * s->step;
	const uint32_t k = phase >> (32 - ZCS_SYNTH_TABLE_BITS);
	int32_t vi = s->cos_tab[k];
	int32_t vq = s->cos_tab[(k - ZCS_SYNTH_TABLE_LEN / 4) & (ZCS_SYNTH_TABLE_LEN - 1)];

	if (s->noise_amp) {
		vi += zcs_synth_noise(s, 2 * n + 1);
		vq += zcs_synth_noise(s, 2 * n + 2);
	}
	*i = zcs_synth_sat12(vi);
	*q = zcs_synth_sat12(vq);
}

/* Samples first .. first + count - 1 as zcs_synth_sample() defines them, I and Q interleaved into
 * out; the tone from a phase accumulator (two table loads a pair). */
static inline void zcs_synth_fill(const struct zcs_synth *s, uint64_t first, size_t count,
				  int16_t *out)
{
	const uint32_t quarter = ZCS_SYNTH_TABLE_LEN / 4, mask = ZCS_SYNTH_TABLE_LEN - 1;
	uint32_t phase = s->phase0 + (uint32_t)first * s->step;

	for (size_t j = 0; j < count; j++, phase += s->step) {
		const uint32_t k = phase >> (32 - ZCS_SYNTH_TABLE_BITS);
		int32_t vi = s->cos_tab[k];
		int32_t vq = s->cos_tab[(k - quarter) & mask];

		if (s->noise_amp) {
			vi += zcs_synth_noise(s, 2 * (first + j) + 1);
			vq += zcs_synth_noise(s, 2 * (first + j) + 2);
		}
		out[2 * j] = zcs_synth_sat12(vi);
		out[2 * j + 1] = zcs_synth_sat12(vq);
	}
}

#endif
