// SPDX-License-Identifier: MIT
/* Unit tests for sender/sendpath/train.c: how many datagrams one GSO send may carry (the kernel's
 * 64 segments, one UDP datagram's 65507 bytes), and the pool: page-aligned slots of whole pages,
 * none overlapping, each train's buffer, lengths and index its own, refusals, a clean free. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "train.h"

START_TEST(test_max_dgrams)
{
	static const struct {
		size_t seg, want;
	} rows[] = {
		{ 0, 1 },        /* nonsense in, still a train of one */
		{ 1, 64 },       /* the segment limit binds */
		{ 1000, 64 },
		{ 1024, 63 },    /* the byte limit binds: 63 * 1024 <= 65507 < 64 * 1024 */
		{ 1472, 44 },    /* MTU 1500, IPv4 */
		{ 1452, 45 },    /* MTU 1500, IPv6 */
		{ 8972, 7 },     /* MTU 9000 */
		{ 65507, 1 },
		{ 70000, 1 },    /* larger than a send: one per train */
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const size_t n = zcs_train_max_dgrams(rows[i].seg);

		ck_assert_msg(n == rows[i].want, "seg %zu: %zu, want %zu", rows[i].seg, n,
			      rows[i].want);
		ck_assert(n <= ZCS_TRAIN_MAX_SEGS);
		ck_assert(n == 1 || n * rows[i].seg <= ZCS_TRAIN_MAX_BYTES);
	}
}
END_TEST

START_TEST(test_pool_layout)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const size_t seg = 1472, n = zcs_train_max_dgrams(seg), slots = 8;
	struct zcs_train_pool p;

	ck_assert_int_eq(zcs_train_pool_init(&p, slots, seg, n), 0);
	ck_assert_uint_eq(p.nslots, slots);
	ck_assert_uint_eq(p.seg_size, seg);
	ck_assert_uint_eq(p.max_dgrams, n);
	ck_assert_uint_eq(p.slot_bytes % page, 0);
	ck_assert(p.slot_bytes >= seg * n && p.slot_bytes < seg * n + page);
	ck_assert_uint_eq(p.mem_bytes, p.slot_bytes * slots);
	ck_assert_uint_eq((uintptr_t)p.mem % page, 0);
	for (size_t i = 0; i < slots; i++) {
		struct zcs_train *t = &p.trains[i];

		ck_assert_uint_eq(t->index, i);
		ck_assert_ptr_eq(t->buf, p.mem + i * p.slot_bytes);
		ck_assert_ptr_eq(t->lens, p.lens + i * n);
		/* the whole slot is mapped and writable, and nobody else's */
		memset(t->buf, (int)i, seg * n);
		for (size_t k = 0; k < n; k++)
			t->lens[k] = (uint16_t)(i * 100 + k);
	}
	for (size_t i = 0; i < slots; i++) {
		ck_assert_uint_eq(p.trains[i].buf[0], i);
		ck_assert_uint_eq(p.trains[i].buf[seg * n - 1], i);
		ck_assert_uint_eq(p.trains[i].lens[n - 1], i * 100 + n - 1);
	}
	zcs_train_pool_free(&p);
	ck_assert_ptr_null(p.mem);
	ck_assert_ptr_null(p.trains);
	ck_assert_uint_eq(p.nslots, 0);
	zcs_train_pool_free(&p); /* twice is harmless: the failure path relies on it */
}
END_TEST

START_TEST(test_pool_refusals)
{
	struct zcs_train_pool p;

	ck_assert_int_eq(zcs_train_pool_init(&p, 0, 1472, 44), -EINVAL);
	ck_assert_int_eq(zcs_train_pool_init(&p, 4, 0, 44), -EINVAL);
	ck_assert_int_eq(zcs_train_pool_init(&p, 4, 1472, 0), -EINVAL);
	ck_assert_ptr_null(p.mem);
}
END_TEST

static Suite *train_suite(void)
{
	Suite *s = suite_create("train");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_max_dgrams);
	tcase_add_test(tc, test_pool_layout);
	tcase_add_test(tc, test_pool_refusals);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(train_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
