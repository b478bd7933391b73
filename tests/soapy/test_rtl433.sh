#!/bin/sh
# SPDX-License-Identifier: MIT
# rtl_433 22.11 opens the zcs module as a SoapySDR device (`-d driver=zcs,addr=...`) at 250 kS/s,
# reads CS16 for 2 s (-T 2) and records it (-w FILE.cs16): the recording's tone is measured with
# numpy (tests/apps/grtone.py raw): frequency with its sign within one FFT bin, power, no image.
# rtl_433 sets the rate and frequency it was given; without a control channel the module takes
# only what the stream has, so it is told the stream's own (-s 250k, -f 0: the tone source
# announces no frequency).  Usage: test_rtl433.sh MODULE_DIR ZCS_SEND GRTONE (in a namespace)
set -eu
MODULE=$1 SEND=$2 GRTONE=$3
PORT=22150 RATE=250000 TONE=-31234 AMP=0.6
export SOAPY_SDR_PLUGIN_PATH=$MODULE
tmp=$(mktemp -d)
tx=
cleanup() { [ -n "$tx" ] && kill "$tx" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
fail() { echo "FAIL: $*"; tail -n 30 "$tmp/rtl433.log"; exit 1; }

"$SEND" -q -s tone -f p12 -r $RATE --tone $TONE --amplitude $AMP "127.0.0.1:$PORT" \
	>/dev/null 2>&1 &
tx=$!
# a sanitized module in rtl_433, which is not: the runtime preloaded (meson.build)
if [ -n "${ZCS_SOAPY_PRELOAD:-}" ]; then
	export LD_PRELOAD=$ZCS_SOAPY_PRELOAD ASAN_OPTIONS=detect_leaks=0
fi
rtl_433 -d "driver=zcs,addr=127.0.0.1:$PORT,timeout=30000" -f 0 -s $RATE -T 2 -F null \
	-w "$tmp/rec.cs16" >"$tmp/rtl433.log" 2>&1 || fail "rtl_433 failed"
unset LD_PRELOAD
grep -q "Sample rate set to $RATE" "$tmp/rtl433.log" || fail "rtl_433 did not set its rate"
grep -q 'zcs: stream .* rate 0.25 MS/s' "$tmp/rtl433.log" || fail "no stream news in the log"
BYTES=$(stat -c %s "$tmp/rec.cs16")
[ $((BYTES % 4)) -eq 0 ] || fail "rtl_433 recorded $BYTES bytes: not whole CS16 pairs"
[ "$BYTES" -ge $((4 * RATE / 2)) ] || fail "rtl_433 recorded only $BYTES bytes"
/usr/bin/python3 "$GRTONE" raw "$tmp/rec.cs16" --format cs16 -r $RATE --tone $TONE \
	--amplitude $AMP || fail "rtl_433's recording does not hold the tone"
echo "soapy rtl_433: ok ($BYTES bytes)"
