#!/bin/bash
# SPDX-License-Identifier: MIT
# Regression test for "--zstd says 'send path: plain (as asked)'": with --zstd and no --send-path
# the pipeline picks plain itself (compressed datagrams differ in size, GSO cannot carry them), and
# the start-up line claimed the user had asked for it.  It now says why plain runs; a path asked
# for by name still says "(as asked)".
# Usage: test_zstd_auto_line.sh ZCS-SEND   (port 20602; nothing needs to listen)
set -u
SEND=$1
fail=0
out=$("$SEND" -q --cpus none -s tone -n 1000 -r max --zstd 127.0.0.1:20602 2>&1) ||
	{ echo "FAIL: zcs-send --zstd exited $?"; fail=1; }
echo "$out"
grep -q "send path: plain (--zstd: " <<<"$out" || { echo "FAIL: no line saying why plain"; fail=1; }
grep -q "as asked" <<<"$out" && { echo "FAIL: auto reported as asked"; fail=1; }
out=$("$SEND" -q --cpus none -s tone -n 1000 -r max --zstd --send-path plain \
	127.0.0.1:20602 2>&1) || { echo "FAIL: zcs-send --zstd --send-path plain exited $?"; fail=1; }
grep -q "send path: plain (as asked)" <<<"$out" ||
	{ echo "FAIL: --send-path plain not reported as asked: $out"; fail=1; }
[ $fail = 0 ] && echo "ok: --zstd's send path line says why plain runs"
exit $fail
