#!/bin/sh
# SPDX-License-Identifier: MIT
# SoapySDRUtil finds a zcs stream and probes driver=zcs through the module in the build tree:
# the label names the sender and its address and no setting (an application finds the device
# again by it after a retune), the serial the sender and the port, and the frequency, the rate and
# the wire format are keys of their own; the probe shows one RX channel,
# the stream formats, the rate from the metadata and the receiver's counters as sensors; a
# reorder window beyond the core's limit is refused by name.
# Usage: test_util.sh MODULE_DIR ZCS_SEND  (runs in a network namespace: netns-run.sh)
set -eu
MODULE=$1 SEND=$2
export SOAPY_SDR_PLUGIN_PATH=$MODULE
# a sanitized module in SoapySDRUtil, which is not: its runtime preloaded (meson.build)
SoapySDRUtil() {
	if [ -n "${ZCS_SOAPY_PRELOAD:-}" ]; then
		LD_PRELOAD=$ZCS_SOAPY_PRELOAD ASAN_OPTIONS=detect_leaks=0 command SoapySDRUtil "$@"
	else
		command SoapySDRUtil "$@"
	fi
}
tmp=$(mktemp -d)
tx=
cleanup() { [ -n "$tx" ] && kill "$tx" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
fail() { echo "FAIL: $*"; sed 's/^/  | /' "$tmp/out"; exit 1; }

"$SEND" -q -s tone -f p12 -r 1250000 --tone 100000 127.0.0.1 >/dev/null 2>&1 &
tx=$!

# the module is listed, from the build tree
SoapySDRUtil --info >"$tmp/out" 2>&1 || true
grep -q "$MODULE" "$tmp/out" || fail "--info does not list the module in $MODULE"
grep -q 'zcs' "$tmp/out" || fail "--info: no zcs factory"

# find: until the stream is heard (the sender may start late on a loaded machine)
i=0
until SoapySDRUtil --find="driver=zcs" >"$tmp/out" 2>&1 && grep -q 'driver = zcs' "$tmp/out"; do
	i=$((i + 1))
	[ $i -lt 20 ] || fail "--find did not list the stream"
done
grep -q 'label = zcs .*(127.0.0.1)$' "$tmp/out" || fail "--find: label (sender and address, no setting)"
grep -q 'serial = 127.0.0.1/5391$' "$tmp/out" || fail "--find: serial"
for want in 'stream_frequency = 0' 'stream_rate = 1250000' 'wire_format = p12'; do
	grep -q "$want\$" "$tmp/out" || fail "--find: no '$want'"
done
grep -q 'source = 127.0.0.1' "$tmp/out" || fail "--find: source"
# and with no driver given at all, as applications enumerate
SoapySDRUtil --find >"$tmp/out" 2>&1 || true
grep -q 'driver = zcs' "$tmp/out" || fail "--find without arguments"

SoapySDRUtil --probe="driver=zcs" >"$tmp/out" 2>&1 || fail "--probe failed"
for want in 'driver=zcs' 'source=tone' 'wire_format=p12' 'Channels: 1 Rx, 0 Tx' \
	'Stream formats: CS16, CF32, CS8' 'Native format: CS16 \[full-scale=32768\]' \
	'Sample rates: 1.25 MSps' 'socket_drops' 'gap_samples' 'lost'; do
	grep -q "$want" "$tmp/out" || fail "--probe: no '$want'"
done
# a device that is not there fails with a message, not a hang
SoapySDRUtil --probe="driver=zcs,addr=127.0.0.1:22199,timeout=500" >"$tmp/out" 2>&1 &&
	fail "--probe of a silent port succeeded"
grep -q 'no stream arriving on 127.0.0.1:22199' "$tmp/out" || fail "silent port: message"
# a window beyond the receive core's limit is refused by name, with the limit (it was accepted up
# to 65536 and then failed inside the core with no word of the window)
SoapySDRUtil --probe="driver=zcs,window=16385" >"$tmp/out" 2>&1 &&
	fail "--probe with window=16385 succeeded"
grep -q 'bad window=16385 (a number, at most 16384)' "$tmp/out" || fail "window=16385: message"
SoapySDRUtil --probe="driver=zcs,window=16384" >"$tmp/out" 2>&1 || fail "--probe with window=16384 failed"
echo "soapy util: ok"
