// SPDX-License-Identifier: MIT
/* GF(2^8) regions with NEON (gf256.h), compiled with NEON's flags: vtbl looks 8 bytes up in a
 * 16-byte table (two D registers) at once, so 16 bytes take four lookups, a mask, a shift and
 * two XORs.  ARMv7 (the Pluto's Cortex-A9); used only where the CPU reports NEON. */
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
