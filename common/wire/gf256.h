/* SPDX-License-Identifier: MIT */
/* GF(2^8) modulo x^8 + x^4 + x^3 + x^2 + 1 (0x11d) on regions, for the erasure code (fec.c):
 * dst ^= c * src, the one operation an encoder and a decoder repeat over whole datagrams.  Each
 * byte is split in two nibbles and each nibble looked up in a 16-entry table of c's products, so
 * a SIMD byte shuffle (NEON's vtbl, SSSE3's pshufb) does 8 to 32 bytes an instruction; the
 * scalar kernel uses the same two tables.  The kernel is chosen once, at run time, by what the
 * CPU has (docs/measurements.md, "Erasure coding"). */
#ifndef ZCS_GF256_H
#define ZCS_GF256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Regions are a multiple of this many bytes (the widest kernel's step). */
#define ZCS_GF256_STEP 32

uint8_t zcs_gf256_mul(uint8_t a, uint8_t b);
/* 1 / a, a != 0. */
uint8_t zcs_gf256_inv(uint8_t a);

/* dst ^= c * src over len bytes, len a multiple of ZCS_GF256_STEP; dst and src do not overlap. */
void zcs_gf256_muladd(uint8_t *dst, const uint8_t *src, uint8_t c, size_t len);

/* c's products with every low nibble (lo[n] = c * n) and every high one (hi[n] = c * (n << 4)):
 * c * x = lo[x & 15] ^ hi[x >> 4].  What a kernel looks up; made once for a coefficient used on
 * many regions (the encoder's, per block position). */
struct zcs_gf256_tab {
	uint8_t lo[16], hi[16];
};
void zcs_gf256_tab_init(struct zcs_gf256_tab *t, uint8_t c);
/* dst[r] ^= c_r * src for r < rows, over len bytes (a multiple of ZCS_GF256_STEP), tab[r] made
 * for c_r by zcs_gf256_tab_init (c_r != 0 or not: a zero table adds nothing).  One region into
 * several (the encoder's datagram into its m parity shards): NEON reads src and splits its
 * nibbles once for up to 4 rows.  src may lie at any address; no dst[r] overlaps src. */
void zcs_gf256_muladd_rows(uint8_t *const dst[], const uint8_t *src,
			   const struct zcs_gf256_tab *tab, unsigned rows, size_t len);

/* The kernels this build has, for tests and benchmarks: kernel i's name (NULL past the last),
 * and whether this CPU runs it. */
const char *zcs_gf256_kernel_name(unsigned i);
int zcs_gf256_kernel_usable(unsigned i);
/* zcs_gf256_muladd and zcs_gf256_muladd_rows through kernel i (usable). */
void zcs_gf256_muladd_with(unsigned i, uint8_t *dst, const uint8_t *src, uint8_t c, size_t len);
void zcs_gf256_muladd_rows_with(unsigned i, uint8_t *const dst[], const uint8_t *src,
				const struct zcs_gf256_tab *tab, unsigned rows, size_t len);
/* The kernel zcs_gf256_muladd uses. */
const char *zcs_gf256_kernel(void);

/* What a kernel gets: c's nibble tables (struct zcs_gf256_tab). */
typedef void (*zcs_gf256_kernel_fn)(uint8_t *dst, const uint8_t *src, const uint8_t lo[16],
				    const uint8_t hi[16], size_t len);
/* And its rows kernel (zcs_gf256_muladd_rows). */
typedef void (*zcs_gf256_rows_fn)(uint8_t *const dst[], const uint8_t *src,
				  const struct zcs_gf256_tab *tab, unsigned rows, size_t len);
void zcs_gf256_neon(uint8_t *dst, const uint8_t *src, const uint8_t lo[16], const uint8_t hi[16],
		    size_t len);
void zcs_gf256_neon_rows(uint8_t *const dst[], const uint8_t *src, const struct zcs_gf256_tab *tab,
			 unsigned rows, size_t len);

#ifdef __cplusplus
}
#endif

#endif
