#!/bin/bash
# SPDX-License-Identifier: MIT
# Regression test json_stderr: the two programs put --json on different streams (zcs-send on
# standard output, zcs-recv on standard error).  One rule now: statistics, JSON or text, go to
# standard error; standard output carries nothing from zcs-send and only samples from
# `zcs-recv -o -` (so the two can share a pipeline).
# Usage: test_json_stderr.sh ZCS-SEND ZCS-RECV   (port 20603, loopback)
set -u
SEND=$1
RECV=$2
dir=$(mktemp -d)
rpid=
cleanup() {
	[ -n "$rpid" ] && kill "$rpid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
fail=0
"$RECV" --json --interval 0 --exit-on-eos -F cs16 -o - 127.0.0.1:20603 \
	>"$dir/samples" 2>"$dir/recv.err" &
rpid=$!
# wait for the receiver's start-up line (a condition, not a time)
for _ in $(seq 600); do
	grep -q "listening on" "$dir/recv.err" && break
	kill -0 "$rpid" 2>/dev/null || break
	sleep 0.1
done
grep -q "listening on" "$dir/recv.err" || { cat "$dir/recv.err"; echo "FAIL: zcs-recv did not start"; exit 1; }
"$SEND" --json --cpus none -s tone -r 1M -n 5000 127.0.0.1:20603 >"$dir/send.out" 2>"$dir/send.err"
rc=$?
wait "$rpid"
rrc=$?
rpid=
cat "$dir/send.err" "$dir/recv.err"
[ "$rc" = 0 ] && [ "$rrc" = 0 ] || { echo "FAIL: exit status send $rc, recv $rrc"; fail=1; }
[ -s "$dir/send.out" ] && { echo "FAIL: zcs-send wrote to standard output:"; cat "$dir/send.out"; fail=1; }
grep -q '"type":"summary"' "$dir/send.err" || { echo "FAIL: no zcs-send JSON summary on stderr"; fail=1; }
grep -q '"type":"summary"' "$dir/recv.err" || { echo "FAIL: no zcs-recv JSON summary on stderr"; fail=1; }
size=$(stat -c %s "$dir/samples")
[ "$size" = 20000 ] || { echo "FAIL: standard output of zcs-recv -o - holds $size bytes, not 5000 cs16 pairs"; fail=1; }
grep -q '{' "$dir/samples" && { echo "FAIL: JSON among zcs-recv's samples"; fail=1; }
[ $fail = 0 ] && echo "ok: --json on standard error in both programs; stdout carries samples only"
exit $fail
