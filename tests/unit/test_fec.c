// SPDX-License-Identifier: MIT
/* Unit tests for common/wire/fec.c and the parity datagram of proto.c: the coefficients against a
 * bitwise GF(2^8) written here from docs/protocol.md, the spec's parity example byte for byte,
 * every way a block can lose up to m of its k + m (rebuilt exactly) and more (refused), parity
 * headers' round trip and every rejection; the GF(2^8) region kernels (gf256.c), each one this
 * CPU runs (under qemu-arm: NEON), against the bitwise product for every coefficient, their rows
 * kernels (one region into several) against it too, and the encoder's parity against a
 * reference made a row and a datagram at a time. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "fec.h"
#include "gf256.h"
#include "proto.h"

#define HDR ZCS_PROTO_SAMPLE_HDR_SIZE
#define PHDR ZCS_PROTO_PARITY_HDR_SIZE

/* a * b in GF(2^8) modulo x^8 + x^4 + x^3 + x^2 + 1, shift and add: no tables, as the spec says */
static uint8_t ref_mul(uint8_t a, uint8_t b)
{
	unsigned r = 0, x = a;

	for (int i = 0; i < 8; i++)
		if (b & (1u << i))
			r ^= x << i;
	for (int i = 15; i >= 8; i--)
		if (r & (1u << i))
			r ^= 0x11du << (i - 8);
	return (uint8_t)r;
}

static uint8_t ref_inv(uint8_t a)
{
	for (unsigned b = 1; b < 256; b++)
		if (ref_mul(a, (uint8_t)b) == 1)
			return (uint8_t)b;
	return 0;
}

START_TEST(test_coefficients)
{
	for (unsigned i = 0; i < ZCS_FEC_MAX_M; i++)
		for (unsigned j = 0; j < ZCS_FEC_MAX_K; j++)
			ck_assert_uint_eq(zcs_fec_coef(i, j), ref_inv((uint8_t)(i ^ (32 + j))));
}
END_TEST

/* The spec's example (docs/protocol.md, "Parity datagrams"): the worked example's datagram
 * (seq 5) and the end of stream after it (seq 6, no samples), a block of k = 2, m = 1. */
static const uint8_t ex_a[38] = {
	0x5a, 0x53, 0x01, 0x00, 0x78, 0x56, 0x34, 0x12, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xe0, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x04, 0x02, 0x00, 0x06, 0x00, 0x00, 0x00,
	0xff, 0x07, 0x80, 0x01, 0x30, 0x00,
};
static const uint8_t ex_b[32] = {
	0x5a, 0x53, 0x01, 0x00, 0x78, 0x56, 0x34, 0x12, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xe2, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
static const uint8_t ex_parity[PHDR + 22] = {
	0x5a, 0x53, 0x01, 0x02, 0x78, 0x56, 0x34, 0x12, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x01, 0x00, 0x00, 0x16, 0x00, 0x00, 0x00,
	0x7e, 0xe2, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1f, 0x40, 0xd8, 0x00, 0x75, 0x00, 0x00, 0x00,
	0xd7, 0x19, 0x04, 0x6c, 0x8f, 0x00,
};

START_TEST(test_spec_example)
{
	struct zcs_fec_enc e;
	uint8_t buf[PHDR + 22], ref[22] = { 0 };
	struct zcs_dgram d;

	if (!zcs_fec_available())
		return;
	/* the payload by the spec's formula, with the bitwise arithmetic above */
	for (size_t n = 0; n < 22; n++) {
		ref[n] = ref_mul(ref_inv(0 ^ 32), ex_a[16 + n]);
		if (n < 16)
			ref[n] ^= ref_mul(ref_inv(0 ^ 33), ex_b[16 + n]);
	}
	ck_assert_int_eq(memcmp(ref, ex_parity + PHDR, 22), 0);
	/* and by the encoder */
	ck_assert_int_eq(zcs_fec_enc_init(&e, 2, 1, 1472), 0);
	ck_assert_uint_eq(zcs_fec_enc_add(&e, ex_a, sizeof(ex_a)), 1);
	ck_assert_uint_eq(zcs_fec_enc_add(&e, ex_b, sizeof(ex_b)), 2);
	ck_assert_uint_eq(zcs_fec_enc_parity_len(&e), sizeof(buf));
	ck_assert_uint_eq(zcs_fec_enc_parity(&e, 0, 0x12345678, buf), sizeof(buf));
	ck_assert_int_eq(memcmp(buf, ex_parity, sizeof(buf)), 0);
	zcs_fec_enc_close(&e);
	zcs_fec_enc_free(&e);
	ck_assert_int_eq(zcs_proto_parse(ex_parity, sizeof(ex_parity), &d), 0);
	ck_assert_int_eq(d.type, ZCS_DGRAM_PARITY);
	ck_assert_uint_eq(d.parity.stream_id, 0x12345678);
	ck_assert_uint_eq(d.parity.block_seq, 5);
	ck_assert_uint_eq(d.parity.number, 0);
	ck_assert_uint_eq(d.parity.k, 2);
	ck_assert_uint_eq(d.parity.m, 1);
	ck_assert_uint_eq(d.parity.index, 0);
	ck_assert_uint_eq(d.parity.shard_len, 22);
	ck_assert_ptr_eq(d.payload, ex_parity + PHDR);
}
END_TEST

/* A block of k datagrams of varied lengths, its m parity, then every loss pattern tried (all of
 * them for small blocks, random ones for large): up to m lost is rebuilt byte for byte (the
 * padding zero), more is refused. */
static void round_trip(unsigned k, unsigned m, unsigned trials, uint32_t seed)
{
	enum { MAXD = 1472 };
	struct zcs_fec_enc e;
	uint8_t *dg = malloc((size_t)k * MAXD), *par = malloc((size_t)m * (PHDR + MAXD));
	size_t len[ZCS_FEC_MAX_K], plen = 0;
	const size_t cap = zcs_fec_padded(MAXD);
	uint8_t *shard = aligned_alloc(ZCS_FEC_ALIGN, cap * (k + m));
	uint8_t *data[ZCS_FEC_MAX_K], *parity[ZCS_FEC_MAX_M], pidx[ZCS_FEC_MAX_M];
	bool have[ZCS_FEC_MAX_K];
	uint32_t x = seed;

	ck_assert_ptr_nonnull(dg);
	ck_assert_ptr_nonnull(par);
	ck_assert_ptr_nonnull(shard);
	ck_assert_int_eq(zcs_fec_enc_init(&e, k, m, MAXD), 0);
	for (unsigned j = 0; j < k; j++) {
		x = x * 1103515245u + 12345u;
		len[j] = j == k - 1 ? HDR : MAXD - (x >> 8) % 200;  /* the last a bare end of stream */
		for (size_t n = 0; n < len[j]; n++) {
			x = x * 1103515245u + 12345u;
			dg[j * MAXD + n] = (uint8_t)(x >> 24);
		}
		zcs_put_le64(dg + j * MAXD + 8, 1000 + j);
		ck_assert_uint_eq(zcs_fec_enc_add(&e, dg + j * MAXD, len[j]), j + 1);
	}
	for (unsigned i = 0; i < m; i++)
		plen = zcs_fec_enc_parity(&e, i, 7, par + i * (PHDR + MAXD));
	ck_assert_uint_eq(e.block_seq, 1000);
	for (unsigned t = 0; t < trials; t++) {
		unsigned lost = 0, np = 0, rebuilt;
		int ret;

		for (unsigned j = 0; j < k; j++) {
			x = x * 1103515245u + 12345u;
			have[j] = (x >> 16) % (k + m) >= m + t % 3;
			lost += !have[j];
			data[j] = shard + cap * j;
			memset(data[j], 0xee, cap);
			if (have[j]) {
				memset(data[j], 0, cap);
				memcpy(data[j], dg + j * MAXD + ZCS_FEC_SKIP, len[j] - ZCS_FEC_SKIP);
			}
		}
		for (unsigned i = 0; i < m; i++) {
			x = x * 1103515245u + 12345u;
			if ((x >> 16) % 4 == 0 && t % 2)
				continue;   /* this parity lost too */
			parity[np] = shard + cap * (k + np);
			memset(parity[np], 0, cap);
			memcpy(parity[np], par + i * (PHDR + MAXD) + PHDR, plen - PHDR);
			pidx[np++] = (uint8_t)i;
		}
		ret = zcs_fec_decode(k, data, have, parity, pidx, np, plen - PHDR);
		if (lost > np) {
			ck_assert_int_eq(ret, -EAGAIN);
			continue;
		}
		ck_assert_int_eq(ret, (int)lost);
		rebuilt = 0;
		for (unsigned j = 0; j < k; j++) {
			if (have[j])
				continue;
			rebuilt++;
			ck_assert_int_eq(memcmp(data[j], dg + j * MAXD + ZCS_FEC_SKIP,
						len[j] - ZCS_FEC_SKIP), 0);
			for (size_t n = len[j] - ZCS_FEC_SKIP; n < plen - PHDR; n++)
				ck_assert_uint_eq(data[j][n], 0);
		}
		ck_assert_uint_eq(rebuilt, lost);
	}
	zcs_fec_enc_free(&e);
	free(shard);
	free(par);
	free(dg);
}

START_TEST(test_round_trips)
{
	if (!zcs_fec_available())
		return;
	round_trip(1, 1, 20, 1);
	round_trip(2, 1, 20, 2);
	round_trip(4, 2, 100, 3);
	round_trip(32, 4, 300, 4);
	round_trip(64, 8, 200, 5);
	round_trip(128, 32, 50, 6);
	round_trip(5, 32, 50, 7);
}
END_TEST

START_TEST(test_encoder_limits)
{
	struct zcs_fec_enc e;
	const int want = zcs_fec_available() ? 0 : -ENOTSUP;

	ck_assert_int_eq(zcs_fec_enc_init(&e, 0, 4, 1472), -EINVAL);
	ck_assert_int_eq(zcs_fec_enc_init(&e, 129, 4, 1472), -EINVAL);
	ck_assert_int_eq(zcs_fec_enc_init(&e, 32, 0, 1472), -EINVAL);
	ck_assert_int_eq(zcs_fec_enc_init(&e, 32, 33, 1472), -EINVAL);
	ck_assert_int_eq(zcs_fec_enc_init(&e, 128, 32, 1472), want);
	zcs_fec_enc_free(&e);
}
END_TEST

static size_t make_parity(uint8_t *buf, uint8_t k, uint8_t m, uint8_t index, uint16_t shard_len)
{
	const struct zcs_parity_hdr h = {
		.stream_id = 0xa1b2c3d4, .block_seq = 0x1122334455667788ull, .number = 99,
		.k = k, .m = m, .index = index, .shard_len = shard_len,
	};

	zcs_proto_write_parity_hdr(buf, &h);
	memset(buf + PHDR, 0x5c, shard_len);
	return PHDR + shard_len;
}

START_TEST(test_parity_parse)
{
	uint8_t buf[PHDR + 1500];
	struct zcs_dgram d;
	size_t n = make_parity(buf, 128, 32, 31, 1456);

	ck_assert_int_eq(zcs_proto_parse(buf, n, &d), 0);
	ck_assert_int_eq(d.type, ZCS_DGRAM_PARITY);
	ck_assert_uint_eq(d.parity.block_seq, 0x1122334455667788ull);
	ck_assert_uint_eq(d.parity.number, 99);
	ck_assert_uint_eq(d.parity.k, 128);
	ck_assert_uint_eq(d.parity.m, 32);
	ck_assert_uint_eq(d.parity.index, 31);
	ck_assert_uint_eq(d.parity.shard_len, 1456);
	ck_assert(!d.keyed);
	/* every rejection */
	ck_assert_int_eq(zcs_proto_parse(buf, PHDR - 1, &d), -ZCS_PERR_TRUNCATED);
	ck_assert_int_eq(zcs_proto_parse(buf, n - 1, &d), -ZCS_PERR_BAD_LENGTH);
	n = make_parity(buf, 0, 4, 0, 100);
	ck_assert_int_eq(zcs_proto_parse(buf, n, &d), -ZCS_PERR_BAD_COUNT);
	n = make_parity(buf, 129, 4, 0, 100);
	ck_assert_int_eq(zcs_proto_parse(buf, n, &d), -ZCS_PERR_BAD_COUNT);
	n = make_parity(buf, 32, 0, 0, 100);
	ck_assert_int_eq(zcs_proto_parse(buf, n, &d), -ZCS_PERR_BAD_COUNT);
	n = make_parity(buf, 32, 33, 0, 100);
	ck_assert_int_eq(zcs_proto_parse(buf, n, &d), -ZCS_PERR_BAD_COUNT);
	n = make_parity(buf, 32, 4, 4, 100);
	ck_assert_int_eq(zcs_proto_parse(buf, n, &d), -ZCS_PERR_BAD_COUNT);
	n = make_parity(buf, 32, 4, 3, 15);
	ck_assert_int_eq(zcs_proto_parse(buf, n, &d), -ZCS_PERR_BAD_COUNT);
	n = make_parity(buf, 32, 4, 3, 16);
	ck_assert_int_eq(zcs_proto_parse(buf, n, &d), 0);
	buf[27] = 1;
	ck_assert_int_eq(zcs_proto_parse(buf, n, &d), -ZCS_PERR_RESERVED);
	buf[27] = 0;
	buf[31] = 0x80;
	ck_assert_int_eq(zcs_proto_parse(buf, n, &d), -ZCS_PERR_RESERVED);
	buf[31] = 0;
	/* no read past len: every prefix in a buffer of exactly its size */
	for (size_t len = 0; len < n; len++) {
		uint8_t *copy = malloc(len ? len : 1);

		ck_assert_ptr_nonnull(copy);
		memcpy(copy, buf, len);
		ck_assert_int_lt(zcs_proto_parse(copy, len, &d), 0);
		free(copy);
	}
}
END_TEST

/* Keyed parity: sealed with the run's salt under its own number, verified, and refused when a
 * byte of it changes; a receiver without the key sets the trailer aside. */
START_TEST(test_parity_keyed)
{
	struct zcs_key key;
	struct zcs_auth a;
	struct zcs_auth_tagger t;
	uint8_t buf[PHDR + 100 + ZCS_AUTH_SAMPLE_TRAILER];
	struct zcs_dgram d;
	size_t n;
	char err[128];

	for (size_t i = 0; i < sizeof(key.bytes); i++)
		key.bytes[i] = (uint8_t)i;
	ck_assert_int_eq(zcs_auth_init(&a, &key, 0, err, sizeof(err)), 0);
	ck_assert_int_eq(zcs_auth_tagger_init(&t, key.bytes, err, sizeof(err)), 0);
	n = zcs_auth_seal_parity(&a, &t, buf, make_parity(buf, 32, 4, 1, 100));
	ck_assert_uint_eq(n, sizeof(buf));
	ck_assert_uint_eq(buf[3], ZCS_AUTH_TYPE_BIT | ZCS_DGRAM_PARITY);
	ck_assert_int_eq(zcs_auth_verify(&key, buf, n), ZCS_AUTH_OK);
	ck_assert_int_eq(zcs_proto_parse(buf, n, &d), 0);
	ck_assert(d.keyed);
	ck_assert_int_eq(d.type, ZCS_DGRAM_PARITY);
	ck_assert_uint_eq(d.parity.shard_len, 100);
	ck_assert_int_eq(memcmp(d.salt, a.salt, sizeof(d.salt)), 0);
	for (size_t i = 0; i < n; i++) {
		buf[i] ^= 0x10;
		ck_assert_int_ne(zcs_auth_verify(&key, buf, n), ZCS_AUTH_OK);
		buf[i] ^= 0x10;
	}
	zcs_auth_tagger_wipe(&t);
	zcs_auth_wipe(&a);
}
END_TEST

START_TEST(test_gf256_field)
{
	for (unsigned a = 0; a < 256; a++) {
		for (unsigned b = 0; b < 256; b++)
			ck_assert_uint_eq(zcs_gf256_mul((uint8_t)a, (uint8_t)b),
					  ref_mul((uint8_t)a, (uint8_t)b));
		if (a)
			ck_assert_uint_eq(zcs_gf256_inv((uint8_t)a), ref_inv((uint8_t)a));
	}
}
END_TEST

/* Every kernel, every coefficient, lengths of 1 to 47 steps, buffers at odd offsets (datagrams
 * lie anywhere in a train): dst ^= c * src byte for byte as the bitwise product says. */
START_TEST(test_gf256_kernels)
{
	enum { MAX = 47 * ZCS_GF256_STEP };
	static uint8_t src[MAX + 1], dst[MAX + 3], want[MAX];
	uint32_t x = 2463534242u;
	unsigned tested = 0;

	for (unsigned i = 0; zcs_gf256_kernel_name(i); i++) {
		if (!zcs_gf256_kernel_usable(i))
			continue;
		tested++;
		for (unsigned c = 0; c < 256; c++) {
			const size_t len = (size_t)(1 + c % 47) * ZCS_GF256_STEP;
			uint8_t *const s = src + (c & 1), *const d = dst + (c % 3);

			for (size_t n = 0; n < len; n++) {
				x ^= x << 13, x ^= x >> 17, x ^= x << 5;
				s[n] = (uint8_t)x;
				d[n] = (uint8_t)(x >> 8);
				want[n] = d[n] ^ ref_mul((uint8_t)c, s[n]);
			}
			zcs_gf256_muladd_with(i, d, s, (uint8_t)c, len);
			if (memcmp(d, want, len) != 0)
				ck_abort_msg("kernel %s, c %u, %zu bytes: wrong product",
					     zcs_gf256_kernel_name(i), c, len);
		}
		printf("gf256: kernel %s checked\n", zcs_gf256_kernel_name(i));
	}
	ck_assert_uint_ge(tested, 1);
	printf("gf256: zcs_gf256_muladd uses %s\n", zcs_gf256_kernel());
}
END_TEST

static uint32_t xorshift(uint32_t *x)
{
	*x ^= *x << 13, *x ^= *x >> 17, *x ^= *x << 5;
	return *x;
}

/* One try of kernel i's rows kernel: `rows` rows of len bytes, trial t choosing which rows' c is
 * 0 and 1 and the offsets; fails the test when a row is wrong or a byte around one changed. */
static void rows_trial(unsigned i, unsigned rows, size_t len, unsigned t, uint32_t *x)
{
	enum { ROWS = 5, MAX = 46 * ZCS_GF256_STEP, GUARD = 16, SPAN = MAX + 2 * GUARD + 3 };
	static uint8_t src[MAX + 3], dst[ROWS][SPAN], want[ROWS][SPAN];
	const uint8_t *const s = src + t % 3;
	/* the rows whose c is 0 and 1, in turn (or past the last: none) */
	const unsigned zero = t % (rows + 2), one = (t + 1) % (rows + 2);
	struct zcs_gf256_tab tab[ROWS];
	uint8_t *d[ROWS], c[ROWS];

	ck_assert_uint_le(rows, ROWS);
	ck_assert_uint_le(len, MAX);
	for (size_t n = 0; n < sizeof(src); n++)
		src[n] = (uint8_t)xorshift(x);
	for (unsigned r = 0; r < rows; r++) {
		c[r] = r == zero ? 0 : r == one ? 1 : (uint8_t)xorshift(x);
		zcs_gf256_tab_init(&tab[r], c[r]);
		for (size_t n = 0; n < SPAN; n++)
			dst[r][n] = want[r][n] = (uint8_t)xorshift(x);
		d[r] = dst[r] + GUARD + (r + t) % 4;
		for (size_t n = 0; n < len; n++)
			want[r][GUARD + (r + t) % 4 + n] ^= ref_mul(c[r], s[n]);
	}
	zcs_gf256_muladd_rows_with(i, d, s, tab, rows, len);
	for (unsigned r = 0; r < rows; r++)
		if (memcmp(dst[r], want[r], SPAN) != 0)
			ck_abort_msg("kernel %s's rows, %u rows, %zu bytes: row %u (c %u) wrong",
				     zcs_gf256_kernel_name(i), rows, len, r, c[r]);
}

/* Every kernel's rows kernel, 1 to 5 rows (NEON's passes: 1, 2, 2 + 1, 4, 4 + 1), random
 * coefficients with 0 and 1 among them, lengths of 1 to 46 steps, src and every row at odd
 * offsets: each row's dst ^= c_r * src byte for byte as the bitwise product says, and not a byte
 * around any row touched. */
START_TEST(test_gf256_rows)
{
	static const size_t steps[] = { 1, 2, 3, 7, 46 };
	const unsigned nsteps = sizeof(steps) / sizeof(steps[0]);
	uint32_t x = 88172645u;
	unsigned tested = 0;

	for (unsigned i = 0; zcs_gf256_kernel_name(i); i++) {
		if (!zcs_gf256_kernel_usable(i))
			continue;
		tested++;
		for (unsigned rows = 1; rows <= 5; rows++)
			for (unsigned t = 0; t < 4 * nsteps; t++)
				rows_trial(i, rows, steps[t % nsteps] * ZCS_GF256_STEP, t, &x);
		printf("gf256: kernel %s's rows checked\n", zcs_gf256_kernel_name(i));
	}
	ck_assert_uint_ge(tested, 1);
}
END_TEST

/* The encoder's parity of k datagrams (lengths of every remainder modulo 32: under one step,
 * whole steps, and between; in a buffer at odd offsets, as in a train) against a reference
 * made with zcs_gf256_muladd, a parity row and a datagram at a time from zero-padded,
 * aligned copies: the whole steps read in place and the last one through scratch change no byte
 * of it. */
static void encoder_parity(unsigned k, unsigned m, uint32_t seed)
{
	enum { MAXD = 1472 };
	const size_t cap = zcs_fec_padded(MAXD);
	uint8_t *const dg = malloc((size_t)k * (MAXD + 3));
	uint8_t *const ref = aligned_alloc(ZCS_FEC_ALIGN, cap * m);
	uint8_t *const copy = aligned_alloc(ZCS_FEC_ALIGN, cap);
	uint8_t *const buf = malloc(PHDR + MAXD);
	size_t len[ZCS_FEC_MAX_K], longest = 0;
	struct zcs_fec_enc e;
	uint32_t x = seed;

	ck_assert_ptr_nonnull(dg);
	ck_assert_ptr_nonnull(ref);
	ck_assert_ptr_nonnull(copy);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(zcs_fec_enc_init(&e, k, m, MAXD), 0);
	memset(ref, 0, cap * m);
	for (unsigned j = 0; j < k; j++) {
		uint8_t *const p = dg + (size_t)j * (MAXD + 3) + j % 4;

		x = x * 1103515245u + 12345u;
		/* the bench's datagram (1438 bytes of shard), a header only, the largest, others */
		len[j] = j == 0 ? HDR + 474 * 3 : j == 1 ? HDR : j == 2 ? MAXD :
			 HDR + (x >> 8) % (MAXD - HDR + 1);
		for (size_t n = 0; n < len[j]; n++) {
			x = x * 1103515245u + 12345u;
			p[n] = (uint8_t)(x >> 24);
		}
		zcs_put_le64(p + 8, 500 + j);
		ck_assert_uint_eq(zcs_fec_enc_add(&e, p, len[j]), j + 1);
		memset(copy, 0, cap);
		memcpy(copy, p + ZCS_FEC_SKIP, len[j] - ZCS_FEC_SKIP);
		for (unsigned i = 0; i < m; i++)
			zcs_gf256_muladd(ref + cap * i, copy, zcs_fec_coef(i, j), cap);
		if (len[j] - ZCS_FEC_SKIP > longest)
			longest = len[j] - ZCS_FEC_SKIP;
	}
	ck_assert_uint_eq(e.shard_len, longest);
	for (unsigned i = 0; i < m; i++) {
		ck_assert_uint_eq(zcs_fec_enc_parity(&e, i, 3, buf), PHDR + longest);
		if (memcmp(buf + PHDR, ref + cap * i, longest) != 0)
			ck_abort_msg("encoder %u:%u, parity %u: not the reference's", k, m, i);
	}
	zcs_fec_enc_close(&e);
	zcs_fec_enc_free(&e);
	free(buf);
	free(copy);
	free(ref);
	free(dg);
}

START_TEST(test_encoder_parity)
{
	if (!zcs_fec_available())
		return;
	for (unsigned m = 1; m <= 8; m++)
		encoder_parity(32, m, 11 + m);
	encoder_parity(3, 32, 21);
	encoder_parity(128, 5, 22);
	printf("fec: encoder's parity checked, kernel %s\n", zcs_gf256_kernel());
}
END_TEST

static Suite *fec_suite(void)
{
	Suite *s = suite_create("fec");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_coefficients);
	tcase_add_test(tc, test_gf256_field);
	tcase_add_test(tc, test_gf256_kernels);
	tcase_add_test(tc, test_gf256_rows);
	tcase_add_test(tc, test_encoder_parity);
	tcase_add_test(tc, test_spec_example);
	tcase_add_test(tc, test_round_trips);
	tcase_add_test(tc, test_encoder_limits);
	tcase_add_test(tc, test_parity_parse);
	tcase_add_test(tc, test_parity_keyed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fec_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
