#!/bin/bash
# SPDX-License-Identifier: MIT
# Regression test for "zcs-send -s iio dies of SIGSEGV on a board without the FIR's controls":
# libad9361 reads ad9361-phy's in_out_voltage_filter_fir_en, or else its input channel "out",
# without checking that the channel exists, and zcs-send asked it whether the FIR was on before
# every rate it set.  On an ad9361-phy without the attribute (fakeboard variant no-fir):
# a rate that needs the FIR (250 kS/s) is refused with a message naming what the board lacks,
# exit status 1, no signal; a rate the AD9361 makes alone (2.5 MS/s) streams, every pair exact,
# exit 0.  Own namespaces; port 22030.
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up no-fir
[ ! -e "$FB_PHY/in_out_voltage_filter_fir_en" ] || fb_die "the variant kept the FIR enable"

timeout 60 "$ZCS_SEND" -s iio -u local: -r 250k -n 4096 -q --cpus none 127.0.0.1:22030 \
	> /dev/null 2> "$FB_TMP/err.txt"
rc=$?
cat "$FB_TMP/err.txt"
[ $rc = 1 ] || fb_die "250 kS/s without the FIR's controls: exit status $rc, expected 1"
grep -q "rate 250000 S/s: this board makes 260417..61440000 S/s; lower rates need the AD9361's FIR (ad9361-phy has no in_out_voltage_filter_fir_en for libad9361 to set)" \
	"$FB_TMP/err.txt" || fb_die "250 kS/s: the refusal does not say what the board lacks"
echo "ok: 250 kS/s refused (exit 1): $(grep 'lower rates' "$FB_TMP/err.txt")"

fakeboard_feed --rate 4000000
out=$FB_TMP/check.json
"$BOARD_BIN/check_board" --port 22030 --out "$out" -- "$ZCS_SEND" -s iio -u local: -r 2.5M \
	-f p12 -n 300000 --json -q --cpus none 127.0.0.1:22030 2> "$FB_TMP/send.json" ||
	{ cat "$out" "$FB_TMP/send.json"; fb_die "2.5 MS/s without the FIR's controls failed"; }
fakeboard_expect "$(fakeboard_json "$out" pairs)" 300000 "pairs at 2.5 MS/s"
fakeboard_expect "$(fakeboard_json "$out" meta.sample_rate)" 2500000 "metadata rate"
fakeboard_expect "$(fakeboard_json "$FB_TMP/send.json" samples)" 300000 "sender's samples"
echo "PASS"
