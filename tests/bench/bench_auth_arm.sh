#!/bin/bash
# SPDX-License-Identifier: MIT
# Instructions per keyed datagram on the board's CPU, counted (not timed) under qemu-arm, as
# bench_ops.sh counts the kernels: an armhf bench_auth run with one instruction per translated
# block (-singlestep) and every executed block logged, each operation at two repeat counts; the
# difference divided by the extra repeats is one operation's count (the set-up cancels out).
# docs/performance.md ("Keyed streams") projects the board from it.
# usage: bench_auth_arm.sh ARMHF_BENCH_AUTH   (an armhf build of tests/bench/bench_auth.c; static,
#        or QEMU_LD_PREFIX set to its sysroot)
set -euo pipefail
exe=$1
n1=10
n2=40
command -v qemu-arm > /dev/null || { echo "bench_auth_arm: needs qemu-arm (qemu-user)"; exit 77; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
count() { # OP N: instructions executed
	qemu-arm -cpu cortex-a9 -singlestep -d nochain,exec -D "$log" "$exe" "$1" "$2" > /dev/null
	grep -c 'Trace' "$log"
}
# a keyed p12 datagram at MTU 1500 carries 472 pairs: 30.72 MS/s is 65085 datagrams a second
printf '| per keyed p12 datagram (1472 bytes, 472 pairs) | instructions | per pair | at 30.72 MS/s |\n|---|---|---|---|\n'
for op in memcpy pack seal verify; do
	case $op in
	memcpy) name="memcpy of the payload (1416 B)" ;;
	pack) name="NEON pack of 472 pairs to p12" ;;
	seal) name="tag (zcs_auth_seal)" ;;
	verify) name="check (zcs_auth_verify)" ;;
	esac
	d=$(($(count "$op" $n2) - $(count "$op" $n1)))
	awk -v name="$name" -v d="$d" -v n=$((n2 - n1)) 'BEGIN {
		per = d / n
		printf "| %s | %.0f | %.1f | %.0f M/s |\n", name, per, per / 472, per * 30.72e6 / 472 / 1e6 }'
done
