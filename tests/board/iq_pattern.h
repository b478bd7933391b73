/* SPDX-License-Identifier: MIT */
/* The emulated board's sample pattern: pair k of a receiver carries k (mod 2^24) in its 12-bit
 * I (low bits) and Q (high bits), scrambled per receiver so rx1 and rx2 can be told apart. */
#ifndef ZCS_IQ_PATTERN_H
#define ZCS_IQ_PATTERN_H

#include <stdbool.h>
#include <stdint.h>

#define IQ_PATTERN_MASK 0xffffffu   /* k wraps at 2^24 */

/* The scramble of receiver rx (0 = rx1, 1 = rx2) on component comp (0 = I, 1 = Q). */
static inline uint16_t iq_pattern_xor(unsigned int rx, unsigned int comp)
{
	static const uint16_t x[2][2] = { { 0x000, 0x000 }, { 0xa5a, 0x5a5 } };

	return x[rx & 1][comp & 1];
}

/* 12-bit two's complement value, sign-extended into an int16 as the AD9361 core delivers it. */
static inline int16_t iq_pattern_sext12(uint16_t v)
{
	return (int16_t)((int16_t)(uint16_t)(v << 4) >> 4);
}

/* Word of IIO channel voltage<chan> (0..3) for pair k. */
static inline int16_t iq_pattern_word(uint32_t k, unsigned int chan)
{
	const unsigned int comp = chan & 1;
	const uint16_t bits = (uint16_t)((comp ? k >> 12 : k) & 0xfff);

	return iq_pattern_sext12((uint16_t)((bits ^ iq_pattern_xor(chan >> 1, comp)) & 0xfff));
}

/* Recovers k from a pair of receiver rx; false when the words are not 12-bit sign-extended. */
static inline bool iq_pattern_decode(int16_t i, int16_t q, unsigned int rx, uint32_t *k)
{
	const uint16_t bi = (uint16_t)i & 0xfff, bq = (uint16_t)q & 0xfff;

	if (iq_pattern_sext12(bi) != i || iq_pattern_sext12(bq) != q)
		return false;
	*k = (uint32_t)(bi ^ iq_pattern_xor(rx, 0)) | (uint32_t)(bq ^ iq_pattern_xor(rx, 1)) << 12;
	return true;
}

#endif
