// SPDX-License-Identifier: MIT
/* Unit tests for sender/link_info.c: the stream's bytes on the wire (p12 at 20 MS/s, keyed, with
 * parity, fragmented), the highest rate a link carries, and the lines zcs-send prints, for a USB
 * gadget too (which no test machine has: the struct is filled here as zcs_link_probe would). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "link_info.h"
#include "proto.h"
#include "wire.h"

static struct zcs_stream_shape p12_20M(void)
{
	return (struct zcs_stream_shape){
		.format = ZCS_WIRE_P12, .rate = 20000000,
		.udp_payload = zcs_proto_udp_payload(1500, false),
	};
}

START_TEST(test_wire_rate_p12)
{
	const struct zcs_stream_shape s = p12_20M();
	struct zcs_wire_rate w;

	zcs_link_wire_rate(&s, &w);
	/* 480 pairs of 3 bytes after the 32-byte header: 1472 bytes, 41667 a second */
	ck_assert_uint_eq(w.pairs_per_dgram, 480);
	ck_assert_uint_eq(w.dgram_bytes, 1472);
	ck_assert_uint_eq(w.frames, 1);
	ck_assert(fabs(w.dgrams - 20e6 / 480) < 1e-6);
	ck_assert(fabs(w.payload_Bps - 20e6 / 480 * 1472) < 1e-3);
	/* + UDP 8, IP 20, Ethernet 14 + FCS 4 + preamble 8 + gap 12 = 1538 bytes a frame */
	ck_assert(fabs(w.wire_bps - 20e6 / 480 * 1538 * 8) < 1e-3);
}
END_TEST

START_TEST(test_wire_rate_keyed_parity_fragments)
{
	struct zcs_stream_shape s = p12_20M();
	struct zcs_wire_rate w;

	/* keyed with --fec 32:4: the pipeline's 458 pairs (room for the tag and parity's header) */
	s.trailer = ZCS_AUTH_SAMPLE_TRAILER;
	s.fec_k = 32;
	s.fec_m = 4;
	zcs_link_wire_rate(&s, &w);
	ck_assert_uint_eq(w.pairs_per_dgram, 458);
	ck_assert_uint_eq(w.dgram_bytes, 32 + 458 * 3 + ZCS_AUTH_SAMPLE_TRAILER);
	ck_assert(fabs(w.dgrams - 20e6 / 458 * (1 + 4.0 / 32)) < 1e-6);
	/* a 1472-byte datagram through a 1000-byte MTU: two fragments */
	s = p12_20M();
	s.link_mtu = 1000;
	zcs_link_wire_rate(&s, &w);
	ck_assert_uint_eq(w.frames, 2);
}
END_TEST

START_TEST(test_max_rate)
{
	const struct zcs_stream_shape s = p12_20M();

	/* the USB 2.0 high-speed bulk ceiling: p12 up to 16.61 MS/s (said 16.62 to 4 digits), i8 beyond 20 */
	ck_assert_uint_eq(zcs_link_max_rate(&s, ZCS_WIRE_P12, 425984000) / 10000, 1661);
	ck_assert_uint_gt(zcs_link_max_rate(&s, ZCS_WIRE_I8, 425984000), 20000000);
	ck_assert_uint_eq(zcs_link_max_rate(&s, 0, 425984000), 0);
}
END_TEST

START_TEST(test_gadget_lines)
{
	const struct zcs_stream_shape s = p12_20M();
	struct zcs_link l = { .ifname = "usb0", .driver = "g_ether",
			      .kind = ZCS_LINK_USB_GADGET, .speed_bps = 425984000,
			      .speed_from = "USB 2.0 high-speed bulk ceiling", .mtu = 1500,
			      .tx_csum = 0 };
	char line[1024];

	zcs_link_line(line, sizeof(line), &l);
	ck_assert_str_eq(line, "link: usb0, USB gadget Ethernet (this board's side of a USB cable) "
			 "(driver g_ether), 425.984 Mb/s (USB 2.0 high-speed bulk ceiling), "
			 "MTU 1500, no checksum offload");
	ck_assert_int_eq(zcs_link_fit_line(line, sizeof(line), &s, &l), 1);
	ck_assert_str_eq(line, "warning: usb0 cannot carry this stream (512.7 Mb/s on the wire, "
			 "the link 425.984 Mb/s): expect loss.  What fits: i8 at this rate, p12 up "
			 "to 16.62 MS/s, i16 up to 12.46 MS/s; a larger MTU on both ends spends "
			 "less on headers: ip link set dev usb0 mtu 9000 here and on the PC, and "
			 "--mtu 9000");
	/* an unknown speed: nothing to warn of */
	l.speed_bps = 0;
	ck_assert_int_eq(zcs_link_fit_line(line, sizeof(line), &s, &l), 0);
	ck_assert_str_eq(line, "");
}
END_TEST

static Suite *link_info_suite(void)
{
	Suite *s = suite_create("link_info");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_wire_rate_p12);
	tcase_add_test(tc, test_wire_rate_keyed_parity_fragments);
	tcase_add_test(tc, test_max_rate);
	tcase_add_test(tc, test_gadget_lines);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(link_info_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
