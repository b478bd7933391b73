// SPDX-License-Identifier: MIT
/* GF(2^8) regions with NEON (gf256.h), compiled with NEON's flags: vtbl looks 8 bytes up in a
 * 16-byte table (two D registers) at once, so 16 bytes take four lookups, a mask, a shift and
 * two XORs; the rows kernel splits a region's nibbles once for up to 4 products of it.  ARMv7
 * (the Pluto's Cortex-A9); used only where the CPU reports NEON. */
#include <arm_neon.h>

#include "gf256.h"

/* c * x for the 16 bytes of x */
static inline uint8x16_t product(uint8x8x2_t tlo, uint8x8x2_t thi, uint8x16_t x)
{
	const uint8x16_t l = vandq_u8(x, vdupq_n_u8(15));
	const uint8x16_t h = vshrq_n_u8(x, 4);

	return vcombine_u8(veor_u8(vtbl2_u8(tlo, vget_low_u8(l)), vtbl2_u8(thi, vget_low_u8(h))),
			   veor_u8(vtbl2_u8(tlo, vget_high_u8(l)), vtbl2_u8(thi, vget_high_u8(h))));
}

void zcs_gf256_neon(uint8_t *dst, const uint8_t *src, const uint8_t lo[16], const uint8_t hi[16],
		    size_t len)
{
	/* loaded as Q registers, whose two halves are the consecutive pair vtbl wants */
	const uint8x16_t qlo = vld1q_u8(lo), qhi = vld1q_u8(hi);
	const uint8x8x2_t tlo = { { vget_low_u8(qlo), vget_high_u8(qlo) } };
	const uint8x8x2_t thi = { { vget_low_u8(qhi), vget_high_u8(qhi) } };

	for (size_t n = 0; n < len; n += 32) {
		const uint8x16_t p0 = product(tlo, thi, vld1q_u8(src + n));
		const uint8x16_t p1 = product(tlo, thi, vld1q_u8(src + n + 16));

		vst1q_u8(dst + n, veorq_u8(vld1q_u8(dst + n), p0));
		vst1q_u8(dst + n + 16, veorq_u8(vld1q_u8(dst + n + 16), p1));
	}
}

/* The rows kernel's lookup: table t (a Q register) at the 8 indices of i.  The pair vtbl wants
 * is t itself, taken through a union: built from vget_low and vget_high as above, gcc 12 copies
 * the halves into a pair every turn, and with 8 tables spills them to the stack. */
static inline uint8x8_t look(uint8x16_t t, uint8x8_t i)
{
	const union {
		uint8x16_t q;
		uint8x8x2_t d;
	} u = { t };

	return vtbl2_u8(u.d, i);
}

/* c * x for the 16 bytes whose low nibbles are l and high nibbles h, c's tables tlo and thi */
static inline uint8x16_t product_split(uint8x16_t tlo, uint8x16_t thi, uint8x16_t l, uint8x16_t h)
{
	return vcombine_u8(veor_u8(look(tlo, vget_low_u8(l)), look(thi, vget_low_u8(h))),
			   veor_u8(look(tlo, vget_high_u8(l)), look(thi, vget_high_u8(h))));
}

/* One pass over src for `rows` (a constant: 4 or 2) rows: each 32 bytes loaded and split in
 * nibbles once, then looked up in every row's tables, which stay in registers (4 rows: 8 Q of
 * tables, 4 of nibbles, 2 for a row's product and parity and the mask, which gcc makes again
 * each turn).  Inlined into a function per row count, so the loops over rows unroll and the
 * arrays become registers. */
static inline __attribute__((always_inline)) void pass(uint8_t *const dst[], const uint8_t *src,
						       const struct zcs_gf256_tab *tab,
						       unsigned rows, size_t len)
{
	uint8x16_t tlo[4], thi[4];
	uint8_t *d[4];

	/* the pointers copied out first: stores through uint8_t * may alias dst[], which the
	 * loop would otherwise read again every turn */
#pragma GCC unroll 4
	for (unsigned r = 0; r < rows; r++) {
		tlo[r] = vld1q_u8(tab[r].lo);
		thi[r] = vld1q_u8(tab[r].hi);
		d[r] = dst[r];
	}
	for (size_t n = 0; n < len; n += 32) {
		const uint8x16_t x0 = vld1q_u8(src + n), x1 = vld1q_u8(src + n + 16);
		const uint8x16_t mask = vdupq_n_u8(15);
		const uint8x16_t l0 = vandq_u8(x0, mask), h0 = vshrq_n_u8(x0, 4);
		const uint8x16_t l1 = vandq_u8(x1, mask), h1 = vshrq_n_u8(x1, 4);

#pragma GCC unroll 4
		for (unsigned r = 0; r < rows; r++) {
			uint8_t *const p = d[r] + n;

			vst1q_u8(p, veorq_u8(vld1q_u8(p), product_split(tlo[r], thi[r], l0, h0)));
			vst1q_u8(p + 16, veorq_u8(vld1q_u8(p + 16),
						  product_split(tlo[r], thi[r], l1, h1)));
		}
	}
}

__attribute__((noinline)) static void pass4(uint8_t *const dst[], const uint8_t *src,
					    const struct zcs_gf256_tab *tab, size_t len)
{
	pass(dst, src, tab, 4, len);
}

__attribute__((noinline)) static void pass2(uint8_t *const dst[], const uint8_t *src,
					    const struct zcs_gf256_tab *tab, size_t len)
{
	pass(dst, src, tab, 2, len);
}

void zcs_gf256_neon_rows(uint8_t *const dst[], const uint8_t *src, const struct zcs_gf256_tab *tab,
			 unsigned rows, size_t len)
{
	/* 4 rows a pass (16 Q registers hold no more), then 2, then 1 */
	for (; rows >= 4; rows -= 4, dst += 4, tab += 4)
		pass4(dst, src, tab, len);
	if (rows >= 2) {
		pass2(dst, src, tab, len);
		rows -= 2, dst += 2, tab += 2;
	}
	if (rows)
		zcs_gf256_neon(dst[0], src, tab->lo, tab->hi, len);
}
