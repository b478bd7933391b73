// SPDX-License-Identifier: MIT
/* GF(2^8) regions (gf256.h): the tables, the scalar and x86 kernels, the choice at run time.
 * NEON's kernels are gf256_neon.c, compiled with NEON's flags. */
#include <pthread.h>
#include <string.h>

#include "gf256.h"
#include "zcs_config.h"

#if ZCS_SIMD_X86
#include <immintrin.h>
#endif
#if ZCS_SIMD_NEON
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

/* log and antilog (doubled, so a sum of two logs needs no reduction) */
static uint8_t gf_exp[512];
static uint8_t gf_log[256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;
static zcs_gf256_kernel_fn chosen;
static zcs_gf256_rows_fn chosen_rows;
static unsigned chosen_index;

/* The rows kernel of a kernel without a fused one: a row at a time (the fused pass is NEON's,
 * for the board, where the encoder's cost is the send thread's budget). */
#define ROWS_BY_ROW(name, kernel)                                                             \
	static void name(uint8_t *const dst[], const uint8_t *src,                            \
			 const struct zcs_gf256_tab *tab, unsigned rows, size_t len)          \
	{                                                                                     \
		for (unsigned r = 0; r < rows; r++)                                           \
			kernel(dst[r], src, tab[r].lo, tab[r].hi, len);                       \
	}

static void scalar(uint8_t *dst, const uint8_t *src, const uint8_t lo[16], const uint8_t hi[16],
		   size_t len)
{
	for (size_t n = 0; n < len; n++)
		dst[n] ^= lo[src[n] & 15] ^ hi[src[n] >> 4];
}
ROWS_BY_ROW(scalar_rows, scalar)

#if ZCS_SIMD_X86
/* through void *: the loads and stores are unaligned ones, whatever the pointer's type says */
static inline __m128i ld16(const void *p)
{
	return _mm_loadu_si128((const __m128i *)p);
}

static inline void st16(void *p, __m128i v)
{
	_mm_storeu_si128((__m128i *)p, v);
}

__attribute__((target("avx2"))) static inline __m256i ld32(const void *p)
{
	return _mm256_loadu_si256((const __m256i *)p);
}

__attribute__((target("avx2"))) static inline void st32(void *p, __m256i v)
{
	_mm256_storeu_si256((__m256i *)p, v);
}

/* pshufb looks each byte of the index up in a 16-byte table: one nibble of 16 bytes at once */
__attribute__((target("ssse3"))) static void ssse3(uint8_t *dst, const uint8_t *src,
						  const uint8_t lo[16], const uint8_t hi[16], size_t len)
{
	const __m128i tlo = ld16(lo);
	const __m128i thi = ld16(hi);
	const __m128i mask = _mm_set1_epi8(15);

	for (size_t n = 0; n < len; n += 16) {
		const __m128i x = ld16(src + n);
		const __m128i l = _mm_shuffle_epi8(tlo, _mm_and_si128(x, mask));
		const __m128i h = _mm_shuffle_epi8(thi, _mm_and_si128(_mm_srli_epi64(x, 4), mask));
		const __m128i d = ld16(dst + n);

		st16(dst + n, _mm_xor_si128(d, _mm_xor_si128(l, h)));
	}
}

/* the same on 32 bytes: vpshufb looks up within each 16-byte lane, so the table is in both */
__attribute__((target("avx2"))) static void avx2(uint8_t *dst, const uint8_t *src,
						const uint8_t lo[16], const uint8_t hi[16], size_t len)
{
	const __m256i tlo = _mm256_broadcastsi128_si256(ld16(lo));
	const __m256i thi = _mm256_broadcastsi128_si256(ld16(hi));
	const __m256i mask = _mm256_set1_epi8(15);

	for (size_t n = 0; n < len; n += 32) {
		const __m256i x = ld32(src + n);
		const __m256i l = _mm256_shuffle_epi8(tlo, _mm256_and_si256(x, mask));
		const __m256i h = _mm256_shuffle_epi8(thi,
						      _mm256_and_si256(_mm256_srli_epi64(x, 4), mask));
		const __m256i d = ld32(dst + n);

		st32(dst + n, _mm256_xor_si256(d, _mm256_xor_si256(l, h)));
	}
}
ROWS_BY_ROW(ssse3_rows, ssse3)
ROWS_BY_ROW(avx2_rows, avx2)
#endif

struct kernel {
	const char *name;
	zcs_gf256_kernel_fn fn;
	zcs_gf256_rows_fn rows;
};

/* widest first: the first usable one is chosen */
static const struct kernel kernels[] = {
#if ZCS_SIMD_X86
	{ "avx2", avx2, avx2_rows },
	{ "ssse3", ssse3, ssse3_rows },
#endif
#if ZCS_SIMD_NEON
	{ "neon", zcs_gf256_neon, zcs_gf256_neon_rows },
#endif
	{ "scalar", scalar, scalar_rows },
};
#define N_KERNELS (sizeof(kernels) / sizeof(kernels[0]))

int zcs_gf256_kernel_usable(unsigned i)
{
	if (i >= N_KERNELS)
		return 0;
#if ZCS_SIMD_X86
	if (kernels[i].fn == avx2)
		return __builtin_cpu_supports("avx2");
	if (kernels[i].fn == ssse3)
		return __builtin_cpu_supports("ssse3");
#endif
#if ZCS_SIMD_NEON
	if (kernels[i].fn == zcs_gf256_neon)
		return (getauxval(AT_HWCAP) & HWCAP_NEON) != 0;
#endif
	return 1;
}

static void setup(void)
{
	unsigned x = 1;

	for (unsigned i = 0; i < 255; i++) {
		gf_exp[i] = (uint8_t)x;
		gf_exp[i + 255] = (uint8_t)x;
		gf_log[x] = (uint8_t)i;
		x <<= 1;
		if (x & 0x100)
			x ^= 0x11d;
	}
	for (unsigned i = 0; i < N_KERNELS; i++)
		if (zcs_gf256_kernel_usable(i)) {
			chosen = kernels[i].fn;
			chosen_rows = kernels[i].rows;
			chosen_index = i;
			break;
		}
}

uint8_t zcs_gf256_mul(uint8_t a, uint8_t b)
{
	pthread_once(&tables_once, setup);
	if (a == 0 || b == 0)
		return 0;
	return gf_exp[gf_log[a] + gf_log[b]];
}

uint8_t zcs_gf256_inv(uint8_t a)
{
	pthread_once(&tables_once, setup);
	return gf_exp[255 - gf_log[a]];
}

const char *zcs_gf256_kernel_name(unsigned i)
{
	return i < N_KERNELS ? kernels[i].name : NULL;
}

const char *zcs_gf256_kernel(void)
{
	pthread_once(&tables_once, setup);
	return kernels[chosen_index].name;
}

void zcs_gf256_tab_init(struct zcs_gf256_tab *t, uint8_t c)
{
	for (unsigned n = 0; n < 16; n++) {
		t->lo[n] = zcs_gf256_mul(c, (uint8_t)n);
		t->hi[n] = zcs_gf256_mul(c, (uint8_t)(n << 4));
	}
}

void zcs_gf256_muladd_with(unsigned i, uint8_t *dst, const uint8_t *src, uint8_t c, size_t len)
{
	struct zcs_gf256_tab t;

	zcs_gf256_tab_init(&t, c);
	kernels[i].fn(dst, src, t.lo, t.hi, len);
}

void zcs_gf256_muladd_rows_with(unsigned i, uint8_t *const dst[], const uint8_t *src,
				const struct zcs_gf256_tab *tab, unsigned rows, size_t len)
{
	kernels[i].rows(dst, src, tab, rows, len);
}

void zcs_gf256_muladd_rows(uint8_t *const dst[], const uint8_t *src,
			   const struct zcs_gf256_tab *tab, unsigned rows, size_t len)
{
	/* tab came from zcs_gf256_tab_init, whose products ran setup: the kernel is chosen (no
	 * pthread_once here, which the send thread would pay every datagram) */
	chosen_rows(dst, src, tab, rows, len);
}

void zcs_gf256_muladd(uint8_t *dst, const uint8_t *src, uint8_t c, size_t len)
{
	struct zcs_gf256_tab t;

	if (c == 0)
		return;
	zcs_gf256_tab_init(&t, c);
	chosen(dst, src, t.lo, t.hi, len);
}
