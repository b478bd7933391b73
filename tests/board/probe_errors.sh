#!/bin/bash
# SPDX-License-Identifier: MIT
# The libiio source's error messages: bad URI, no iiod to connect to, missing devices, a bad
# channel, and a radio busy with another program (each must fail, with a message naming it).
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"

# expect_fail WHAT REGEX PROBE-ARGS...: the probe must fail and say REGEX.
expect_fail() {
	local what=$1 re=$2
	shift 2
	if "$BOARD_BIN/iio_probe" -n 4096 "$@" > /dev/null 2> "$FB_TMP/err.txt"; then
		fb_die "$what: iio_probe succeeded"
	fi
	grep -E -q "$re" "$FB_TMP/err.txt" || { cat "$FB_TMP/err.txt" >&2; fb_die "$what: message"; }
	echo "ok: $what: $(grep iio_probe "$FB_TMP/err.txt")"
}

# No tree at all yet: /sys/bus/iio does not exist on this machine.
mount -t tmpfs zcs-empty /sys/bus
expect_fail "no local IIO" "no local IIO devices \(local:\)" -u local:
umount /sys/bus
expect_fail "bad URI" "bad libiio URI 'pluto'" -u pluto
expect_fail "unknown scheme" "bad libiio URI 'foo:bar'" -u foo:bar
# This namespace's loopback has nobody on the iiod port.
expect_fail "no iiod" "cannot connect to iiod at '127.0.0.1'" -u ip:127.0.0.1

fakeboard_up no-lpc one-rx
expect_fail "missing cf-ad9361-lpc" "IIO device cf-ad9361-lpc not found at local: \(devices there: ad9361-phy\)" -u local:
umount /dev /sys/bus
fakeboard_up no-phy one-rx
expect_fail "missing ad9361-phy" "IIO device ad9361-phy not found at local: \(devices there: cf-ad9361-lpc\)" -u local:
umount /dev /sys/bus
fakeboard_up one-rx
expect_fail "rx2 on a one-receiver board" "bad channel rx2: cf-ad9361-lpc has no input channels voltage2/voltage3" -u local: --channel rx2
expect_fail "channel 3" "bad channel 3" -u local: --channel 2

# Another program streams: it holds /dev/iio:device1 (the kernel's one-opener rule).
fakeboard_feed
iio_readdev -u local: -b 4096 cf-ad9361-lpc voltage0 voltage1 > /dev/null 2> "$FB_TMP/readdev.log" &
fakeboard_track $!
for ((i = 0; i < 100; i++)); do
	grep -q 'enabled mask' "$FB_TMP/feed.log" && break
	sleep 0.05
done
expect_fail "busy radio" "Device or resource busy: another program is streaming" -u local:
echo "PASS"
