// SPDX-License-Identifier: MIT
/* The public C headers of common/, formats/ and the receiver's outputs and embedding API, included
 * by C++ as they are (no extern "C" around them, as soapy/ includes them): each header's functions
 * link, which they do only when the header gives them C linkage, and answer as in C.  A header
 * that lost its guards fails this test's link.  Not here: ring.h (C11 atomics) and clock.h (C
 * designated initializers), which only the C threads use; formats/convert*.h, internal to formats/. */
#include <check.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "auth.h"
#include "bytes.h"
#include "cli.h"
#include "codec.h"
#include "compat.h"
#include "ctl_client.h"
#include "ctl_msg.h"
#include "ctl_proto.h"
#include "dnssd.h"
#include "err.h"
#include "formats.h"
#include "jsonout.h"
#include "key.h"
#include "log.h"
#include "net.h"
#include "net_sock.h"
#include "output.h"
#include "proto.h"
#include "rx_embed.h"
#include "seq.h"
#include "stdfds.h"
#include "text.h"
#include "wire.h"

/* True: f's address, read back through a volatile, so no compiler can call the comparison
 * tautological (clang -Werror does for a bare function); what matters is that f links. */
template <typename F> static bool linked(F *f)
{
	F *volatile p = f;
	return p != nullptr;
}

START_TEST(test_wire)
{
	static const char hex[] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
	uint8_t nonce[ZCS_AUTH_NONCE_BYTES] = {0}, tag[ZCS_AUTH_TAG_BYTES];
	const uint8_t bytes[3] = {1, 2, 3};
	struct zcs_key k;

	ck_assert_str_eq(zcs_proto_err_name(-ZCS_PERR_AUTH), "auth");
	ck_assert_int_eq(zcs_key_parse(&k, hex, sizeof(hex) - 1), 0);
	zcs_auth_tag(k.bytes, nonce, bytes, sizeof(bytes), tag);
	ck_assert(zcs_auth_tag_ok(k.bytes, nonce, bytes, sizeof(bytes), tag));
	ck_assert(linked(zcs_codec_can) && linked(zcs_codec_create));
	ck_assert_str_eq(zcs_wire_name(ZCS_WIRE_P12), "p12");
	ck_assert(zcs_seq_after(2, 1));
}
END_TEST

START_TEST(test_util)
{
	char err[64];
	uint64_t v = 0;

	ck_assert_int_eq(zcs_err(err, sizeof(err), -EINVAL, "bad %d", 7), -EINVAL);
	ck_assert_str_eq(err, "bad 7");
	ck_assert_int_eq(zcs_cli_parse_u64("42", 0, 100, &v), 0);
	ck_assert_uint_eq(v, 42);
	ck_assert(zcs_text_valid("abc", 3));
	json_t *j = zcs_json_u64(5);
	ck_assert(j != nullptr);
	json_decref(j);
	ck_assert(linked(zcs_log) && linked(zcs_stdfds_guard));
}
END_TEST

START_TEST(test_net_ctl_dnssd)
{
	struct zcs_dnssd_stream s;
	struct zcs_addr a;
	char err[128];

	ck_assert_int_eq(zcs_net_parse_addr(&a, "127.0.0.1:5391", 1, err, sizeof(err)), 0);
	ck_assert_uint_eq(zcs_net_port(&a), 5391);
	ck_assert_int_lt(zcs_net_set_int(-1, SOL_SOCKET, SO_RCVBUF, 1, "x", err, sizeof(err)), 0);
	ck_assert_str_eq(zcs_ctl_field_name(ZCS_CTL_RATE), "rate");
	ck_assert(zcs_ctl_err_name(0) != nullptr);
	ck_assert(linked(zcs_ctl_client_close));
	zcs_dnssd_txt_init(&s);
	ck_assert_int_eq(s.format, -1);
}
END_TEST

START_TEST(test_formats_receiver)
{
	struct zcs_outputs *o = nullptr;
	struct zcs_meta m;

	ck_assert_str_eq(zcs_isa_name(ZCS_ISA_SCALAR), "scalar");
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	zcs_outputs_destroy(o, 0);
	memset(&m, 0, sizeof(m));
	ck_assert_uint_eq(zcs_rx_embed_time_ns(&m, 10), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cxx_linkage");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_wire);
	tcase_add_test(tc, test_util);
	tcase_add_test(tc, test_net_ctl_dnssd);
	tcase_add_test(tc, test_formats_receiver);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
