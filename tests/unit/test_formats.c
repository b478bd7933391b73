// SPDX-License-Identifier: MIT
/* Unit tests for formats/: every 12-bit value through every pack and unpack kernel of every ISA
 * against the formulas, saturation, every SIMD kernel against scalar at lengths 0..257 and odd
 * alignments (with guard bytes after dst and a guard page after src), import, and names. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats.h"
#include "zcs_config.h"

#define NISA 4 /* ZCS_ISA_SCALAR .. ZCS_ISA_NEON */
#define NVAL 4096

/* ---- the formulas, written independently of formats/ ---- */

static int sat12(int x)
{
	return x < -2048 ? -2048 : x > 2047 ? 2047 : x;
}

/* The 8-bit sample of a 12-bit value: v / 16 to the nearest integer, halves away from zero (which
 * is what lround does), saturated to int8. */
static int s8_of(int v)
{
	const long r = lround(v / 16.0);

	return r < -128 ? -128 : r > 127 ? 127 : (int)r;
}

/* Expected wire bytes for one radio pair. */
static void ref_pack(int wire, uint8_t *d, int i, int q)
{
	const int si = sat12(i), sq = sat12(q);
	uint32_t w;

	switch (wire) {
	case ZCS_WIRE_I8:
		d[0] = (uint8_t)s8_of(si);
		d[1] = (uint8_t)s8_of(sq);
		break;
	case ZCS_WIRE_P12:
		w = ((uint32_t)si & 0xfff) | ((uint32_t)sq & 0xfff) << 12;
		d[0] = (uint8_t)w;
		d[1] = (uint8_t)(w >> 8);
		d[2] = (uint8_t)(w >> 16);
		break;
	default:
		d[0] = (uint8_t)si;
		d[1] = (uint8_t)((unsigned)si >> 8);
		d[2] = (uint8_t)sq;
		d[3] = (uint8_t)((unsigned)sq >> 8);
		break;
	}
}

/* The 12-bit value that wire sample k (0 = I, 1 = Q) of one pair stands for. */
static int ref_value(int wire, const uint8_t *p, int k)
{
	switch (wire) {
	case ZCS_WIRE_I8:
		return (int8_t)p[k] * 16;
	case ZCS_WIRE_P12: {
		const uint32_t w = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
		const int v = (int)((w >> (12 * k)) & 0xfff);

		return v >= 2048 ? v - 4096 : v;
	}
	default:
		return sat12((int16_t)(p[2 * k] | p[2 * k + 1] << 8));
	}
}

/* Expected consumer bytes of one 12-bit value; returns their count. */
static size_t ref_out(int type, uint8_t *d, int v)
{
	const float f = (float)v / 2048.0f;
	uint32_t b;

	switch (type) {
	case ZCS_SAMPLE_CS8:
		d[0] = (uint8_t)s8_of(v);
		return 1;
	case ZCS_SAMPLE_CU8:
		d[0] = (uint8_t)(s8_of(v) + 128);
		return 1;
	case ZCS_SAMPLE_CS16:
		d[0] = (uint8_t)(v * 16);
		d[1] = (uint8_t)((unsigned)(v * 16) >> 8);
		return 2;
	default:
		memcpy(&b, &f, 4);
		for (int j = 0; j < 4; j++)
			d[j] = (uint8_t)(b >> (8 * j));
		return 4;
	}
}

/* Fills k for isa; false when this build or CPU lacks it. */
static int get_kernels(struct zcs_kernels *k, int isa)
{
	return zcs_kernels_init(k, (enum zcs_isa)isa) == 0;
}

/* Unpacks wire bytes with every consumer type and checks each against the formulas. */
static void check_unpack(const struct zcs_kernels *k, int wire, const uint8_t *w, size_t pairs)
{
	const size_t wb = zcs_wire_pair_bytes(wire);
	uint8_t *out = malloc(pairs * 8), *exp = malloc(pairs * 8);

	for (int t = 0; t < ZCS_SAMPLE_TYPES; t++) {
		size_t e = 0;

		k->unpack[wire][t](out, w, pairs);
		if (t == ZCS_SAMPLE_NATIVE) {
			ck_assert_mem_eq(out, w, pairs * wb);
			continue;
		}
		for (size_t n = 0; n < pairs; n++)
			for (int c = 0; c < 2; c++)
				e += ref_out(t, exp + e, ref_value(wire, w + n * wb, c));
		ck_assert_uint_eq(e, pairs * zcs_sample_pair_bytes(t, wire));
		/* plain ifs in loops: each Check assertion costs a write to its pipe */
		for (size_t j = 0; j < e; j++)
			if (out[j] != exp[j])
				ck_abort_msg("%s %s->%s byte %zu: %02x != %02x",
					     zcs_isa_name(k->isa), zcs_wire_name(wire),
					     zcs_sample_name(t), j, out[j], exp[j]);
	}
	free(out);
	free(exp);
}

/* Every 12-bit value as I and (in another order) as Q, through pack and back. */
START_TEST(test_all_values)
{
	struct zcs_kernels k;
	int16_t src[2 * NVAL];
	uint8_t w[4 * NVAL], exp[4 * NVAL];

	if (!get_kernels(&k, _i))
		return;
	for (int n = 0; n < NVAL; n++) {
		src[2 * n] = (int16_t)(n - 2048);
		src[2 * n + 1] = (int16_t)((n * 1237 + 17) % NVAL - 2048); /* a permutation */
	}
	for (int wire = 1; wire <= ZCS_WIRE_MAX; wire++) {
		const size_t wb = zcs_wire_pair_bytes(wire);

		k.pack[wire](w, src, NVAL);
		for (int n = 0; n < NVAL; n++)
			ref_pack(wire, exp + n * wb, src[2 * n], src[2 * n + 1]);
		ck_assert_mem_eq(w, exp, NVAL * wb);
		check_unpack(&k, wire, w, NVAL);
	}
}
END_TEST

/* Out-of-range radio input saturates in every pack format; hostile i16 wire input saturates. */
START_TEST(test_saturation)
{
	static const int16_t edge[] = { -32768, -32767, -4097, -4096, -2049, -2048, -2047, -1, 0, 1,
					2046, 2047, 2048, 2049, 4095, 4096, 32766, 32767 };
	const size_t ne = sizeof(edge) / sizeof(edge[0]);
	enum { PAIRS = 96 };
	struct zcs_kernels k;
	int16_t src[2 * PAIRS];
	uint8_t w[4 * PAIRS], exp[4 * PAIRS];

	if (!get_kernels(&k, _i))
		return;
	/* every edge value as I and as Q, beside every other edge value */
	for (size_t j = 0; j < 2 * PAIRS; j++)
		src[j] = edge[(j + j / (2 * ne)) % ne];
	for (int wire = 1; wire <= ZCS_WIRE_MAX; wire++) {
		const size_t wb = zcs_wire_pair_bytes(wire);

		k.pack[wire](w, src, PAIRS);
		for (size_t n = 0; n < PAIRS; n++)
			ref_pack(wire, exp + n * wb, src[2 * n], src[2 * n + 1]);
		ck_assert_mem_eq(w, exp, PAIRS * wb);
	}
	/* i16 wire bytes straight from edge (not saturated): a sender that sends 16 bits */
	for (size_t j = 0; j < 2 * PAIRS; j++) {
		w[2 * j] = (uint8_t)src[j];
		w[2 * j + 1] = (uint8_t)((uint16_t)src[j] >> 8);
	}
	check_unpack(&k, ZCS_WIRE_I16, w, PAIRS);
	/* cs16 of the largest hostile value is 2047 << 4, never a wrapped negative */
	{
		int16_t out[2];

		k.unpack[ZCS_WIRE_I16][ZCS_SAMPLE_CS16](out, "\xff\x7f\x00\x80", 1);
		ck_assert_int_eq(out[0], 2047 * 16);
		ck_assert_int_eq(out[1], -2048 * 16);
	}
}
END_TEST

/* ---- SIMD against scalar ---- */

#define MAXLEN 257
#define GUARD 64

static uint32_t rng_state = 12345;

static uint32_t rnd(void)
{
	/* xorshift32: fixed seed, the same inputs on every run and every host */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

/* src buffers: an ordinary one for misaligned starts, and one that ends at a PROT_NONE page so
 * that reading even one byte past src faults. */
struct bufs {
	uint8_t *src;    /* (4 * MAXLEN + 64) bytes */
	uint8_t *edge;   /* end of an accessible page followed by a guard page */
	uint8_t *dst;    /* 2 * GUARD + 8 * MAXLEN + 64 bytes */
	uint8_t *ref;
	void *map;
	size_t maplen;
};

static void bufs_init(struct bufs *b)
{
	const size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	b->maplen = 2 * pg;
	b->map = mmap(NULL, b->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(b->map, MAP_FAILED);
	ck_assert_int_eq(mprotect((uint8_t *)b->map + pg, pg, PROT_NONE), 0);
	b->edge = (uint8_t *)b->map + pg;
	b->src = malloc(4 * MAXLEN + 64);
	b->dst = malloc(2 * GUARD + 8 * MAXLEN + 64);
	b->ref = malloc(8 * MAXLEN);
	ck_assert(b->src && b->dst && b->ref);
}

static void bufs_free(struct bufs *b)
{
	munmap(b->map, b->maplen);
	free(b->src);
	free(b->dst);
	free(b->ref);
}

/* Random input: mostly 12-bit radio samples, some full-range int16 to exercise saturation. */
static void fill_random(uint8_t *p, size_t bytes, int radio)
{
	for (size_t j = 0; j < bytes; j += 2) {
		uint32_t r = rnd();
		uint16_t v = (uint16_t)r;

		if (radio && (r >> 16) % 4 != 0)
			v = (uint16_t)(int16_t)((int)(r % 4096) - 2048);
		p[j] = (uint8_t)v;
		if (j + 1 < bytes)
			p[j + 1] = (uint8_t)(v >> 8);
	}
}

typedef void (*run_fn)(const void *kern, void *dst, const void *src, size_t pairs);

static void run_pack(const void *kern, void *dst, const void *src, size_t pairs)
{
	zcs_pack_fn f;

	memcpy(&f, kern, sizeof(f));
	f(dst, src, pairs);
}

static void run_unpack(const void *kern, void *dst, const void *src, size_t pairs)
{
	zcs_unpack_fn f;

	memcpy(&f, kern, sizeof(f));
	f(dst, src, pairs);
}

/* One kernel against its scalar twin at every length, src offset and dst offset. */
static void cross_check(struct bufs *b, run_fn run, const void *simd, const void *scalar,
			size_t in_b, size_t out_b, int radio, const char *what)
{
	for (size_t len = 0; len <= MAXLEN; len++) {
		const size_t ib = len * in_b, ob = len * out_b;

		for (int so = 0; so < 4; so++) {
			for (int dof = 0; dof < 4; dof++) {
				uint8_t *const s = dof == 3 && so == 0 ? b->edge - ib : b->src + so;
				uint8_t *const d = b->dst + GUARD + dof;

				fill_random(s, ib, radio);
				run(scalar, b->ref, s, len);
				memset(b->dst, 0xa5, 2 * GUARD + ob + 4);
				run(simd, d, s, len);
				if (memcmp(d, b->ref, ob) != 0)
					ck_abort_msg("%s len %zu src+%d dst+%d", what, len, so, dof);
				for (size_t j = 0; j < GUARD + (size_t)dof; j++)
					if (b->dst[j] != 0xa5)
						ck_abort_msg("%s wrote before dst", what);
				for (size_t j = GUARD + dof + ob; j < 2 * GUARD + ob + 4; j++)
					if (b->dst[j] != 0xa5)
						ck_abort_msg("%s len %zu wrote past end", what, len);
			}
		}
	}
}

START_TEST(test_simd_vs_scalar)
{
	struct zcs_kernels k, sc;
	struct bufs b;
	char what[64];

	if (_i == ZCS_ISA_SCALAR || !get_kernels(&k, _i))
		return;
	ck_assert_int_eq(zcs_kernels_init(&sc, ZCS_ISA_SCALAR), 0);
	bufs_init(&b);
	for (int wire = 1; wire <= ZCS_WIRE_MAX; wire++) {
		const size_t wb = zcs_wire_pair_bytes(wire);

		snprintf(what, sizeof(what), "%s pack %s", zcs_isa_name(k.isa), zcs_wire_name(wire));
		cross_check(&b, run_pack, &k.pack[wire], &sc.pack[wire], 4, wb, 1, what);
		for (int t = 0; t < ZCS_SAMPLE_TYPES; t++) {
			snprintf(what, sizeof(what), "%s unpack %s->%s", zcs_isa_name(k.isa),
				 zcs_wire_name(wire), zcs_sample_name(t));
			cross_check(&b, run_unpack, &k.unpack[wire][t], &sc.unpack[wire][t], wb,
				    zcs_sample_pair_bytes(t, wire), 0, what);
		}
	}
	bufs_free(&b);
}
END_TEST

/* ---- DC and SNR of a tone in 8 bits ---- */

#define TONE_PAIRS 65536

/* 8-bit samples d (cu8 when offset is 128) against the 12-bit values v they stand for, in 8-bit
 * LSBs (v / 16): the DC of the difference on I and on Q, and the SNR of the whole pair. */
static void measure8(const uint8_t *d, int offset, const int16_t *v, size_t pairs, double dc[2],
		     double *snr_db)
{
	double sum[2] = { 0, 0 }, sig = 0, err = 0;

	for (size_t j = 0; j < 2 * pairs; j++) {
		const double ref = v[j] / 16.0;
		const double e = (offset ? (double)d[j] - offset : (double)(int8_t)d[j]) - ref;

		sum[j & 1] += e;
		sig += ref * ref;
		err += e * e;
	}
	dc[0] = sum[0] / (double)pairs;
	dc[1] = sum[1] / (double)pairs;
	*snr_db = 10 * log10(sig / err);
}

/* A tone at -3 dBFS through i8 packing and through cs8/cu8 from p12 and i16 wire: no DC beyond
 * +-0.05 LSB (the floor of v >> 4 gave -0.47) and an SNR within 0.2 dB of the bound of rounding
 * 12-bit values to 8 bits, whose error e/16 (e = -7..8 on the positive side, mirrored on the
 * negative) has a mean square of 344/4096 LSB^2 on each of I and Q. */
START_TEST(test_tone_dc_snr_8bit)
{
	static int16_t v[2 * TONE_PAIRS];
	static uint8_t wire[4 * TONE_PAIRS], out[2 * TONE_PAIRS];
	const double amp = 2047 * M_SQRT1_2, w = 2 * M_PI * 0.0617283;
	const int wires[] = { ZCS_WIRE_P12, ZCS_WIRE_I16 };
	struct zcs_kernels k;
	double sig = 0, bound, dc[2], snr;

	if (!get_kernels(&k, _i))
		return;
	for (size_t n = 0; n < TONE_PAIRS; n++) {
		v[2 * n] = (int16_t)lround(amp * cos(w * (double)n));
		v[2 * n + 1] = (int16_t)lround(amp * sin(w * (double)n));
	}
	for (size_t j = 0; j < 2 * TONE_PAIRS; j++)
		sig += (v[j] / 16.0) * (v[j] / 16.0);
	bound = 10 * log10(sig / (2 * TONE_PAIRS * 344.0 / 4096));

	k.pack[ZCS_WIRE_I8](wire, v, TONE_PAIRS);
	measure8(wire, 0, v, TONE_PAIRS, dc, &snr);
	if (fabs(dc[0]) > 0.05 || fabs(dc[1]) > 0.05 || snr < bound - 0.2)
		ck_abort_msg("%s i8: DC %.3f %.3f LSB, SNR %.2f dB (bound %.2f)",
			     zcs_isa_name(k.isa), dc[0], dc[1], snr, bound);
	for (size_t f = 0; f < sizeof(wires) / sizeof(wires[0]); f++) {
		k.pack[wires[f]](wire, v, TONE_PAIRS);
		for (int t = ZCS_SAMPLE_CS8; t <= ZCS_SAMPLE_CU8; t++) {
			k.unpack[wires[f]][t](out, wire, TONE_PAIRS);
			measure8(out, t == ZCS_SAMPLE_CU8 ? 128 : 0, v, TONE_PAIRS, dc, &snr);
			if (fabs(dc[0]) > 0.05 || fabs(dc[1]) > 0.05 || snr < bound - 0.2)
				ck_abort_msg("%s %s->%s: DC %.3f %.3f LSB, SNR %.2f dB (bound %.2f)",
					     zcs_isa_name(k.isa), zcs_wire_name(wires[f]),
					     zcs_sample_name(t), dc[0], dc[1], snr, bound);
		}
	}
}
END_TEST

/* ---- ISA selection ---- */

START_TEST(test_isa_select)
{
	struct zcs_kernels k;

	ck_assert_int_eq(zcs_kernels_init(&k, ZCS_ISA_SCALAR), 0);
	ck_assert_int_eq(k.isa, ZCS_ISA_SCALAR);
	ck_assert_int_eq(zcs_kernels_init(&k, ZCS_ISA_BEST), 0);
	ck_assert_int_ne(k.isa, ZCS_ISA_BEST);
	for (int w = 1; w <= ZCS_WIRE_MAX; w++) {
		ck_assert_ptr_nonnull(k.pack[w]);
		for (int t = 0; t < ZCS_SAMPLE_TYPES; t++)
			ck_assert_ptr_nonnull(k.unpack[w][t]);
	}
#if ZCS_SIMD_X86
	/* x86-64 always has SSE2; AVX2 must be chosen wherever the CPU has it */
	ck_assert_int_eq(zcs_kernels_init(&k, ZCS_ISA_SSE2), 0);
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2")) {
		ck_assert_int_eq(zcs_kernels_init(&k, ZCS_ISA_BEST), 0);
		ck_assert_int_eq(k.isa, ZCS_ISA_AVX2);
	}
#endif
#if ZCS_SIMD_NEON
	/* the board's Cortex-A9 has NEON, and so does qemu-arm's emulation of it */
	ck_assert_int_eq(zcs_kernels_init(&k, ZCS_ISA_BEST), 0);
	ck_assert_int_eq(k.isa, ZCS_ISA_NEON);
#else
	/* an ISA this build lacks: -ENOTSUP and k untouched */
	{
		struct zcs_kernels before;

		memset(&k, 0x5a, sizeof(k));
		memcpy(&before, &k, sizeof(k));
		ck_assert_int_eq(zcs_kernels_init(&k, ZCS_ISA_NEON), -ENOTSUP);
		ck_assert_mem_eq(&k, &before, sizeof(k));
	}
#endif
#if !ZCS_SIMD_X86
	ck_assert_int_eq(zcs_kernels_init(&k, ZCS_ISA_AVX2), -ENOTSUP);
#endif
	ck_assert_int_eq(zcs_kernels_init(&k, (enum zcs_isa)77), -ENOTSUP);
}
END_TEST

START_TEST(test_names)
{
	static const char *const names[] = { "cs8", "cu8", "cs16", "cf32", "native" };
	static const size_t bytes[] = { 2, 2, 4, 8 };

	for (int t = 0; t < ZCS_SAMPLE_TYPES; t++) {
		ck_assert_str_eq(zcs_sample_name(t), names[t]);
		ck_assert_int_eq(zcs_sample_from_name(names[t]), t);
		for (int w = 1; w <= ZCS_WIRE_MAX; w++)
			ck_assert_uint_eq(zcs_sample_pair_bytes(t, w),
					  t == ZCS_SAMPLE_NATIVE ? zcs_wire_pair_bytes(w) : bytes[t]);
	}
	ck_assert_int_eq(zcs_sample_from_name("cs12"), -1);
	ck_assert_int_eq(zcs_sample_from_name(""), -1);
	ck_assert_str_eq(zcs_sample_name((enum zcs_sample_type)9), "unknown");
	ck_assert_str_eq(zcs_isa_name(ZCS_ISA_SCALAR), "scalar");
	ck_assert_str_eq(zcs_isa_name(ZCS_ISA_SSE2), "sse2");
	ck_assert_str_eq(zcs_isa_name(ZCS_ISA_AVX2), "avx2");
	ck_assert_str_eq(zcs_isa_name(ZCS_ISA_NEON), "neon");
}
END_TEST

/* ---- import ---- */

START_TEST(test_import_8bit)
{
	uint8_t in[512];
	int16_t out[512];

	for (int j = 0; j < 512; j++)
		in[j] = (uint8_t)j;
	zcs_import(ZCS_SAMPLE_CS8, out, in, 256);
	for (int j = 0; j < 512; j++)
		ck_assert_int_eq(out[j], (int8_t)in[j] * 16);
	zcs_import(ZCS_SAMPLE_CU8, out, in, 256);
	for (int j = 0; j < 512; j++)
		ck_assert_int_eq(out[j], (in[j] - 128) * 16);
	/* cs8 -> import -> pack i8 -> unpack cs8 is the identity */
	{
		struct zcs_kernels k;
		uint8_t w[512], back[512];

		ck_assert_int_eq(zcs_kernels_init(&k, ZCS_ISA_BEST), 0);
		zcs_import(ZCS_SAMPLE_CS8, out, in, 256);
		k.pack[ZCS_WIRE_I8](w, out, 256);
		k.unpack[ZCS_WIRE_I8][ZCS_SAMPLE_CS8](back, w, 256);
		ck_assert_mem_eq(back, in, 512);
	}
}
END_TEST

START_TEST(test_import_cs16)
{
	static const int16_t in[] = { 0, 1, -1, 2047, -2048, 2048, -2049, 32767, -32768, 1234 };
	static const int16_t exp[] = { 0, 1, -1, 2047, -2048, 2047, -2048, 2047, -2048, 1234 };
	uint8_t raw[20];
	int16_t out[10];

	for (int j = 0; j < 10; j++) {
		raw[2 * j] = (uint8_t)in[j];
		raw[2 * j + 1] = (uint8_t)((uint16_t)in[j] >> 8);
	}
	zcs_import(ZCS_SAMPLE_CS16, out, raw, 5);
	ck_assert_mem_eq(out, exp, sizeof(exp));
}
END_TEST

START_TEST(test_import_cf32)
{
	const float in[] = { 0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 1.0f / 2048, 0.49f / 2048,
			     0.51f / 2048, -0.51f / 2048, 1.5f / 2048, 2046.6f / 2048, 2.0f, -2.0f,
			     NAN, -NAN, INFINITY, -INFINITY, 1e30f, -1e30f, 1e-30f };
	const int16_t exp[] = { 0, 2047, -2048, 1024, -1024, 1, 0,
				1, -1, 2, 2047, 2047, -2048,
				0, 0, 2047, -2048, 2047, -2048, 0 };
	const size_t n = sizeof(in) / sizeof(in[0]);
	uint8_t raw[sizeof(in)];
	int16_t out[sizeof(in) / sizeof(in[0])];

	for (size_t j = 0; j < n; j++) {
		uint32_t b;

		memcpy(&b, &in[j], 4);
		for (int c = 0; c < 4; c++)
			raw[4 * j + c] = (uint8_t)(b >> (8 * c));
	}
	zcs_import(ZCS_SAMPLE_CF32, out, raw, n / 2);
	for (size_t j = 0; j < n; j++)
		if (out[j] != exp[j])
			ck_abort_msg("cf32 %g -> %d, want %d", (double)in[j], out[j], exp[j]);
	/* every 12-bit value survives cf32 out and back in */
	{
		float f[2 * NVAL / 2];
		int16_t v[NVAL], back[NVAL];
		struct zcs_kernels k;
		uint8_t w[2 * NVAL];

		for (int j = 0; j < NVAL; j++)
			v[j] = (int16_t)(j - 2048);
		ck_assert_int_eq(zcs_kernels_init(&k, ZCS_ISA_BEST), 0);
		k.pack[ZCS_WIRE_I16](w, v, NVAL / 2);
		k.unpack[ZCS_WIRE_I16][ZCS_SAMPLE_CF32](f, w, NVAL / 2);
		zcs_import(ZCS_SAMPLE_CF32, back, f, NVAL / 2);
		ck_assert_mem_eq(back, v, sizeof(v));
	}
}
END_TEST

/* Regression (cs16 replay mismatch): zcs-recv -F cs16 writes v << 4, which the cs16 import (the
 * radio's raw 12-bit layout) saturated, so a recording replayed ~24 dB hot and clipped; ci16 is
 * the full-scale type: every 12-bit value written by zcs-recv's cs16 kernel comes back exactly. */
START_TEST(test_import_ci16_full_scale_roundtrip)
{
	int16_t v[NVAL], back[NVAL], cs16_back[NVAL];
	uint8_t cs16[2 * NVAL];
	struct zcs_kernels k;
	uint8_t w[2 * NVAL];

	for (int j = 0; j < NVAL; j++)
		v[j] = (int16_t)(j - 2048);
	ck_assert_int_eq(zcs_kernels_init(&k, ZCS_ISA_BEST), 0);
	k.pack[ZCS_WIRE_I16](w, v, NVAL / 2);
	k.unpack[ZCS_WIRE_I16][ZCS_SAMPLE_CS16](cs16, w, NVAL / 2);
	zcs_import_convert(ZCS_IMPORT_CI16, back, cs16, NVAL / 2);
	ck_assert_mem_eq(back, v, sizeof(v));
	/* the bug: the same bytes read as the radio's raw 12-bit layout saturate everything beyond
	 * +-2047/16 */
	zcs_import_convert(ZCS_IMPORT_RAW12, cs16_back, cs16, NVAL / 2);
	ck_assert_int_eq(cs16_back[0], -2048);
	ck_assert_int_eq(cs16_back[NVAL - 1], 2047);
	ck_assert_int_eq(cs16_back[2048 + 200], 2047); /* 200 << 4 = 3200: clipped */
}
END_TEST

START_TEST(test_import_ci16_rounding)
{
	/* any 16-bit input: nearest 12-bit value, halves up, saturated at the top */
	static const int16_t in[] = { 0, 7, 8, 15, 16, -7, -8, -9, -24, -25,
				      32767, 32760, 32759, -32768, -32767, 16, 32, -16, 1000, -1000 };
	static const int16_t exp[] = { 0, 0, 1, 1, 1, 0, 0, -1, -1, -2,
				       2047, 2047, 2047, -2048, -2048, 1, 2, -1, 63, -62 };
	const size_t n = sizeof(in) / sizeof(in[0]);
	uint8_t raw[sizeof(in)];
	int16_t out[sizeof(in) / sizeof(in[0])];

	for (size_t j = 0; j < n; j++) {
		raw[2 * j] = (uint8_t)in[j];
		raw[2 * j + 1] = (uint8_t)((uint16_t)in[j] >> 8);
	}
	zcs_import_convert(ZCS_IMPORT_CI16, out, raw, n / 2);
	for (size_t j = 0; j < n; j++)
		if (out[j] != exp[j])
			ck_abort_msg("ci16 %d -> %d, want %d", in[j], out[j], exp[j]);
	/* the other import types go through zcs_import unchanged */
	{
		static const uint8_t b8[4] = { 0x01, 0xff, 0x80, 0x7f };
		int16_t a[4], c[4];

		zcs_import_convert(ZCS_IMPORT_CS8, a, b8, 2);
		zcs_import(ZCS_SAMPLE_CS8, c, b8, 2);
		ck_assert_mem_eq(a, c, sizeof(a));
	}
}
END_TEST

START_TEST(test_import_names)
{
	/* cs16 is what zcs-recv -F cs16 writes, full scale (ci16 another name for it) */
	ck_assert_int_eq(zcs_import_from_name("ci16"), ZCS_IMPORT_CI16);
	ck_assert_int_eq(zcs_import_from_name("cs16"), ZCS_IMPORT_CI16);
	ck_assert_int_eq(zcs_import_from_name("raw12"), ZCS_IMPORT_RAW12);
	ck_assert_int_eq(zcs_import_from_name("cf32"), ZCS_IMPORT_CF32);
	ck_assert_int_eq(zcs_import_from_name("cs8"), ZCS_IMPORT_CS8);
	ck_assert_int_eq(zcs_import_from_name("cu8"), ZCS_IMPORT_CU8);
	ck_assert_int_eq(zcs_import_from_name("native"), -1);
	ck_assert_int_eq(zcs_import_from_name(NULL), -1);
	ck_assert_str_eq(zcs_import_name(ZCS_IMPORT_CI16), "cs16");
	ck_assert_str_eq(zcs_import_name(ZCS_IMPORT_RAW12), "raw12");
	ck_assert_str_eq(zcs_import_name(ZCS_SAMPLE_NATIVE), "unknown");
	ck_assert_uint_eq(zcs_import_pair_bytes(ZCS_IMPORT_CI16), 4);
	ck_assert_uint_eq(zcs_import_pair_bytes(ZCS_IMPORT_RAW12), 4);
	ck_assert_uint_eq(zcs_import_pair_bytes(ZCS_IMPORT_CF32), 8);
	ck_assert_uint_eq(zcs_import_pair_bytes(ZCS_IMPORT_CU8), 2);
	ck_assert_uint_eq(zcs_import_pair_bytes(ZCS_SAMPLE_NATIVE), 0);
	ck_assert_int_eq(zcs_import_from_sigmf("ci16_le"), ZCS_IMPORT_CI16);
	ck_assert_int_eq(zcs_import_from_sigmf("cf32_le"), ZCS_IMPORT_CF32);
	ck_assert_int_eq(zcs_import_from_sigmf("ci8"), ZCS_IMPORT_CS8);
	ck_assert_int_eq(zcs_import_from_sigmf("cu8"), ZCS_IMPORT_CU8);
	ck_assert_int_eq(zcs_import_from_sigmf("ci16_be"), -1);
	ck_assert_int_eq(zcs_import_from_sigmf("ri16_le"), -1);
	ck_assert_int_eq(zcs_import_from_sigmf(NULL), -1);
}
END_TEST

static Suite *formats_suite(void)
{
	Suite *s = suite_create("formats");
	TCase *tc = tcase_create("kernels");

	tcase_add_loop_test(tc, test_all_values, 0, NISA);
	tcase_add_loop_test(tc, test_saturation, 0, NISA);
	tcase_add_loop_test(tc, test_simd_vs_scalar, 0, NISA);
	tcase_add_loop_test(tc, test_tone_dc_snr_8bit, 0, NISA);
	tcase_add_test(tc, test_isa_select);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	tc = tcase_create("import");
	tcase_add_test(tc, test_import_8bit);
	tcase_add_test(tc, test_import_cs16);
	tcase_add_test(tc, test_import_cf32);
	tcase_add_test(tc, test_import_ci16_full_scale_roundtrip);
	tcase_add_test(tc, test_import_ci16_rounding);
	tcase_add_test(tc, test_import_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(formats_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
