#!/bin/bash
# SPDX-License-Identifier: MIT
# Instructions per block of the erasure-code libraries on the board's CPU, counted (not timed)
# under qemu-arm as bench_auth_arm.sh counts the tags: an armhf bench_fec run with one instruction
# per translated block (-singlestep) and every executed block logged, each operation at two repeat
# counts; the difference divided by the extra repeats is one block's count (start-up and the
# tables' set-up cancel out).  The log goes through a FIFO to the counter, never to a file: one
# run of start-up and a jerasure 32:4 block logs about 15 M lines (over a GB).
# usage: bench_fec_arm.sh ARMHF_BENCH_FEC [OP...]   (QEMU_LD_PREFIX and LD_LIBRARY_PATH as its
#        libraries need; docs/measurements.md, "Erasure coding")
set -euo pipefail
exe=$1
shift
ops=${*:-memcpy zcs_enc jer_enc jer_dec isal_enc isal_upd isal_dec cm_enc cm_dec}
n1=${ZCS_FEC_N1:-1}
n2=${ZCS_FEC_N2:-3}
command -v qemu-arm > /dev/null || { echo "bench_fec_arm: needs qemu-arm (qemu-user)"; exit 77; }
count() { # OP K M N: instructions executed
	grep -c 'Trace' "$fifo" > "$dir/n" &
	qemu-arm -cpu cortex-a9 -singlestep -d nochain,exec -D "$fifo" "$exe" "$1" "$2" "$3" "$4" \
		> /dev/null
	wait $!
	cat "$dir/n"
}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fifo=$dir/log
mkfifo "$fifo"
# a p12 datagram at MTU 1500 carries 480 pairs (472 keyed), 474 with --fec (zcs_enc's datagrams):
# per pair below is per 480, or 474 for zcs_enc
printf '| K:M | operation | instructions per block | per datagram | per pair (480 a datagram; zcs_enc 474) |\n|---|---|---|---|---|\n'
for km in ${ZCS_FEC_KM:-32:4 32:2 64:8 16:4}; do
	k=${km%:*} m=${km#*:}
	for op in $ops; do
		a=$(count "$op" "$k" "$m" $n1)
		b=$(count "$op" "$k" "$m" $n2)
		awk -v km="$km" -v op="$op" -v d=$((b - a)) -v n=$((n2 - n1)) -v k="$k" 'BEGIN {
			per = d / n
			pairs = op == "zcs_enc" ? 474 : 480
			printf "| %s | %s | %.0f | %.0f | %.2f |\n", km, op, per, per / k, per / k / pairs }'
	done
done
