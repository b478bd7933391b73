#!/bin/bash
# SPDX-License-Identifier: MIT
# Regression test for "--loop on a FIFO fails only after one pass": a FIFO (or a character device)
# cannot be rewound, so `-s file:FIFO --loop` used to stream the FIFO's data once and then exit 1
# with "cannot rewind for --loop: Illegal seek".  It is now refused when the source is opened,
# before anything is sent: exit 1, a message naming the file, and no summary.
# Usage: test_loop_fifo.sh ZCS-SEND   (port 20601; nothing needs to listen)
set -u
SEND=$1
dir=$(mktemp -d)
writer=
trap '[ -n "$writer" ] && kill "$writer" 2>/dev/null; rm -rf "$dir"' EXIT
mkfifo "$dir/fifo"
head -c 400000 /dev/zero >"$dir/fifo" 2>/dev/null &
writer=$!
"$SEND" --json -q --cpus none -s "file:$dir/fifo" --file-type cs16 --loop -r max \
	127.0.0.1:20601 >"$dir/out" 2>"$dir/err"   # --json would be on stderr too
rc=$?
cat "$dir/err"
fail=0
[ "$rc" = 1 ] || { echo "FAIL: exit status $rc, expected 1"; fail=1; }
grep -q -- "--loop: $dir/fifo cannot be rewound" "$dir/err" ||
	{ echo "FAIL: the refusal does not name --loop and the file"; fail=1; }
if grep -q '"type":"summary"' "$dir/err" "$dir/out"; then
	echo "FAIL: a stream was started (summary printed) before the refusal"
	fail=1
fi
[ $fail = 0 ] && echo "ok: --loop on a FIFO refused before anything is sent"
exit $fail
