#!/bin/bash
# SPDX-License-Identifier: MIT
# zcs-send refuses, with a clear message and a non-zero exit, a bad URI, an iiod it cannot
# reach, a board without cf-ad9361-lpc, a channel the board lacks, and a radio another program
# is streaming from.
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"

# expect_fail WHAT REGEX ZCS-SEND-ARGS...
expect_fail() {
	local what=$1 re=$2 rc
	shift 2
	timeout 20 "$ZCS_SEND" -n 4096 -q --cpus none "$@" 127.0.0.1:22005 > /dev/null 2> "$FB_TMP/err.txt"
	rc=$?
	[ $rc -ne 0 ] && [ $rc -ne 124 ] || fb_die "$what: zcs-send exit status $rc"
	grep -E -q "$re" "$FB_TMP/err.txt" || { cat "$FB_TMP/err.txt" >&2; fb_die "$what: message"; }
	echo "ok: $what (exit $rc): $(grep -E "$re" "$FB_TMP/err.txt")"
}

expect_fail "bad URI" "bad libiio URI 'pluto'" -u pluto
# (a libiio without the network backend, as in a board sysroot's, says that instead: cross_send.sh)
expect_fail "no iiod" "cannot connect to iiod at '127.0.0.1'|libiio has no backend for URI 'ip:127.0.0.1'" \
	-u ip:127.0.0.1
fakeboard_up no-lpc one-rx
expect_fail "missing cf-ad9361-lpc" "IIO device cf-ad9361-lpc not found at local:" -u local:
umount /dev /sys/bus
fakeboard_up one-rx
expect_fail "rx2 on a one-receiver board" "bad channel rx2" --channel rx2
fakeboard_feed
iio_readdev -u local: -b 4096 cf-ad9361-lpc voltage0 voltage1 > /dev/null 2> "$FB_TMP/readdev.log" &
fakeboard_track $!
fakeboard_wait_feed 1 'enabled mask'
expect_fail "busy radio" "Device or resource busy: another program is streaming" -u local:
echo "PASS"
