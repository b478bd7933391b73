#!/bin/bash
# SPDX-License-Identifier: MIT
# Regression test count_mid_datagram: `-n` ending inside a datagram made the source read once more
# (and throw the read away): `-n 100` from a pipe its writer holds open waited for that writer.
# The samples are now counted as they are packed: zcs-send ends while the writer still holds the
# pipe open, having sent exactly 100 samples.  No clock is read: the writer holds the pipe until
# zcs-send has ended (or for 120 s, far longer than any run, when the bug is back).
# Usage: test_count_mid_datagram.sh ZCS-SEND   (port 20602; nothing needs to listen)
set -u
SEND=$1
dir=$(mktemp -d)
writer=
cleanup() {
	[ -n "$writer" ] && kill "$writer" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
mkfifo "$dir/in"
# exactly the 100 cs16 pairs -n wants (a datagram holds more), then the pipe stays open: the read
# that got them leaves nothing over, so only a read past -n could wait
( head -c 400 /dev/zero; exec sleep 120 ) >"$dir/in" &
writer=$!
"$SEND" --json -q --cpus none -s - --file-type cs16 -r 1M -n 100 127.0.0.1:20602 \
	<"$dir/in" >"$dir/out" 2>"$dir/err"
rc=$?
cat "$dir/err"
fail=0
[ "$rc" = 0 ] || { echo "FAIL: exit status $rc, expected 0"; fail=1; }
kill -0 "$writer" 2>/dev/null ||
	{ echo "FAIL: zcs-send ended only when the writer closed the pipe (it read past -n)"; fail=1; }
grep -q '"type":"summary".*"samples":100,' "$dir/err" ||
	{ echo "FAIL: the summary does not say 100 samples were sent"; fail=1; }
[ $fail = 0 ] && echo "ok: -n 100 from a held-open pipe ends at once, 100 samples sent"
exit $fail
