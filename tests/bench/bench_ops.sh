#!/bin/bash
# SPDX-License-Identifier: MIT
# Instructions per I/Q pair of the conversion kernels on the board's CPU, counted (not timed)
# under qemu-arm: an armhf bench_ops run once per instruction translated (-singlestep) with every
# executed block logged, at two sizes; the difference, less that of the set-up alone ("none"),
# is the kernel's own count.  docs/board.md projects the board from it.
# usage: bench_ops.sh ARMHF_BENCH_OPS   (an armhf build of tests/bench/bench_ops.c; static, or
#        QEMU_LD_PREFIX set to its sysroot)
set -euo pipefail
ops=$1
n1=16384
n2=49152
command -v qemu-arm > /dev/null || { echo "bench_ops: needs qemu-arm (qemu-user)"; exit 77; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
count() { # MODE FMT PAIRS: instructions executed
	qemu-arm -singlestep -d nochain,exec -D "$log" "$ops" "$1" "$2" "$3" > /dev/null
	grep -c 'Trace' "$log"
}
base=$(($(count none p12 $n2) - $(count none p12 $n1)))
printf '| kernel | instructions per pair | per byte of radio input |\n|---|---|---|\n'
for k in "memcpy i16" "scalar i8" "best i8" "scalar p12" "best p12" "scalar i16" "best i16"; do
	set -- $k
	d=$(($(count "$1" "$2" $n2) - $(count "$1" "$2" $n1) - base))
	awk -v m="$1" -v f="$2" -v d="$d" -v n=$((n2 - n1)) 'BEGIN {
		name = m == "memcpy" ? "memcpy (4 bytes a pair)" : (m == "best" ? "NEON" : "scalar") " pack " f
		printf "| %s | %.2f | %.3f |\n", name, d / n, d / n / 4 }'
done
