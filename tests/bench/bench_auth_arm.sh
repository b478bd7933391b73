#!/bin/bash
# SPDX-License-Identifier: MIT
# Instructions per keyed datagram on the board's CPU, counted (not timed) under qemu-arm, as
# bench_ops.sh counts the kernels: an armhf bench_auth run with one instruction per translated
# block (-singlestep) and every executed block logged, each operation at two repeat counts; the
# difference divided by the extra repeats is one operation's count (the set-up cancels out).
# Then where the tag's instructions go: the same two logs of an operation (the train by default),
# each executed PC mapped to its function by the binary's symbol table (bench_auth_arm_funcs.py),
# differenced the same way.
# The operation "train" is a whole train of 44 datagrams sealed as zcs-send seals them (each
# thread's half of the one-time keys made in one keystream call): its counts are divided by 44,
# so every row is per datagram.
# docs/measurements.md ("Keyed streams") projects the board from it.
# usage: bench_auth_arm.sh ARMHF_BENCH_AUTH [OP...]   (an armhf build of tests/bench/bench_auth.c;
#        static, or QEMU_LD_PREFIX set to its sysroot; OPs of memcpy pack seal train verify, all
#        by default; BENCH_AUTH_FUNCS: the OPs given a per-function table, default train, "" none)
set -euo pipefail
exe=$1
shift
ops=${*:-memcpy pack seal train verify}
funcs=${BENCH_AUTH_FUNCS-train}
n1=10
n2=40
here=$(cd "$(dirname "$0")" && pwd)
command -v qemu-arm > /dev/null || { echo "bench_auth_arm: needs qemu-arm (qemu-user)"; exit 77; }
readelf=$(command -v arm-linux-gnueabihf-readelf || command -v readelf) ||
	{ echo "bench_auth_arm: needs binutils' readelf"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log=$tmp/exec.log
count() { # OP N [PCS]: instructions executed; with PCS, how often each PC ran (with qemu's name)
	qemu-arm -cpu cortex-a9 -singlestep -d nochain,exec -D "$log" "$exe" "$1" "$2" > /dev/null
	# a line: "Trace 0: HOST [CS_BASE/PC/FLAGS/CFLAGS] SYMBOL", the symbol absent where none
	[ -z "${3:-}" ] || awk '/^Trace/ { split($4, f, "/"); n[f[2] " " $5]++ }
		END { for (k in n) print n[k], k }' "$log" > "$3"
	grep -c 'Trace' "$log"
}
profiled() { case " $funcs " in *" $1 "*) return 0 ;; esac; return 1; }
per_op() { [ "$1" = train ] && echo 44 || echo 1; } # datagrams an operation handles
# a keyed p12 datagram at MTU 1500 carries 472 pairs: 30.72 MS/s is 65085 datagrams a second;
# the last column is that rate's share of one 667 MHz Cortex-A9 at one instruction a cycle
printf '| per keyed p12 datagram (1472 bytes, 472 pairs) | instructions | per pair | at 30.72 MS/s | of a 667 MHz core |\n|---|---|---|---|---|\n'
for op in $ops; do
	case $op in
	memcpy) name="memcpy of the payload (1416 B)" ;;
	pack) name="NEON pack of 472 pairs to p12" ;;
	seal) name="tag alone (zcs_auth_seal: metadata, end of stream)" ;;
	train) name="tag in a train of 44 (two zcs_auth_prepare, 44 seals), a datagram" ;;
	verify) name="check (zcs_auth_verify)" ;;
	esac
	if profiled "$op"; then
		d=$(($(count "$op" $n2 "$tmp/$op.$n2") - $(count "$op" $n1 "$tmp/$op.$n1")))
	else
		d=$(($(count "$op" $n2) - $(count "$op" $n1)))
	fi
	awk -v name="$name" -v d="$d" -v n=$(((n2 - n1) * $(per_op "$op"))) 'BEGIN {
		per = d / n
		printf "| %s | %.0f | %.1f | %.0f M/s | %.0f%% |\n", name, per, per / 472,
			per * 30.72e6 / 472 / 1e6, 100 * per * 30.72e6 / 472 / 667e6 }'
done
for op in $ops; do
	profiled "$op" || continue
	printf '\nWhere one %s goes (instructions a datagram, %s less %s runs, over %s):\n\n' \
		"$op" $n2 $n1 $(((n2 - n1) * $(per_op "$op")))
	python3 "$here/bench_auth_arm_funcs.py" "$exe" "$readelf" $(((n2 - n1) * $(per_op "$op"))) \
		"$tmp/$op.$n1" "$tmp/$op.$n2"
done
