#!/bin/bash
# SPDX-License-Identifier: MIT
# The cost of a link without checksum offload (the Pluto's USB gadget Ethernet) by MTU: zcs-send
# -s tone -f p12 paced, over a veth pair between two namespaces with tx checksumming off on both
# ends (so auto picks the plain path, one datagram per kernel pass), at MTU 1500, 4000, 9000 and
# 15000 on both ends with --mtu to match, into zcs-recv.  Sender CPU per GB of samples, its ratio
# to MTU 1500, and the receiver's loss (docs/board.md, "USB-attached and Ethernet-attached
# boards").  Prints a table; never fails on timings.
# usage: bench_mtu.sh ZCS-SEND ZCS-RECV   (root, ethtool; ZCS_BENCH_MTUS (default
# "1500 4000 9000 15000"), ZCS_BENCH_RATE (S/s, default 20M), ZCS_BENCH_SECS (seconds of samples
# per run, default 3), ZCS_BENCH_REPS (passes over every MTU, interleaved, default 3: each row is
# its cheapest pass, since other jobs on the machine only ever add cost))
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
send=$1
recv=$2
# shellcheck disable=SC2206 # the list is words
mtus=(${ZCS_BENCH_MTUS:-1500 4000 9000 15000})
rate=${ZCS_BENCH_RATE:-20000000}
secs=${ZCS_BENCH_SECS:-3}
reps=${ZCS_BENCH_REPS:-3}
n=$(awk -v r="$rate" -v s="$secs" 'BEGIN { printf "%d", r * s }')
port=21000
tx=zcsm-tx-$$
rx=zcsm-rx-$$
dt=zmt$$
dr=zmr$$
# as bench_send.sh: the sender on CPU1, the receiving half's work (RPS) and zcs-recv on CPU0
scpu=1
rcpu=0
# shellcheck source=bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/zcs-bench-mtu.XXXXXX")
recv_pid=""

cleanup() {
	[[ -n $recv_pid ]] && kill "$recv_pid" 2> /dev/null || true
	ip netns del "$tx" 2> /dev/null || true
	ip netns del "$rx" 2> /dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

command -v ethtool > /dev/null || { echo "bench_mtu: needs ethtool"; exit 77; }
command -v ss > /dev/null || { echo "bench_mtu: needs ss"; exit 77; }
[[ $(nproc) -ge 2 ]] || { echo "bench_mtu: needs two CPUs"; exit 77; }
ip netns add "$tx"
ip netns add "$rx"
ip link add "$dt" netns "$tx" type veth peer name "$dr" netns "$rx"
ip -n "$tx" link set lo up
ip -n "$rx" link set lo up
ip -n "$tx" addr add 198.18.3.1/24 dev "$dt"
ip -n "$rx" addr add 198.18.3.2/24 dev "$dr"
for side in "$tx:$dt" "$rx:$dr"; do
	ip -n "${side%%:*}" link set "${side#*:}" up
	# no checksum offload, as the USB gadget's u_ether netdev (as far as we read it): with tx
	# checksumming off the kernel turns segmentation offload off too
	ip netns exec "${side%%:*}" ethtool -K "${side#*:}" tx off gro off > /dev/null
done
ip netns exec "$rx" sh -c "echo $((1 << rcpu)) > /sys/class/net/$dr/queues/rx-0/rps_cpus"
ip netns exec "$tx" sh -c "echo $((1 << scpu)) > /sys/class/net/$dt/queues/rx-0/rps_cpus"

# run MTU: one pass; appends "user sys si payload lost gap samples path" to $tmp/MTU
run() {
	local mtu=$1 s0 s1 t path line
	ip -n "$tx" link set "$dt" mtu "$mtu"
	ip -n "$rx" link set "$dr" mtu "$mtu"
	ip netns exec "$rx" taskset -c "$rcpu" "$recv" --exit-on-eos --json -q \
		--max-datagram "$mtu" "198.18.3.2:$port" 2> "$tmp/recv.err" > /dev/null &
	recv_pid=$!
	for _ in $(seq 100); do
		ip netns exec "$rx" ss -Hnlu "sport = :$port" | grep -q . && break
		sleep 0.1
	done
	s0=$(cpu_stat "$scpu")
	# user and system time of zcs-send, all threads (bash's time of the exec'd chain)
	t=$( { TIMEFORMAT='%3U %3S'; time ip netns exec "$tx" taskset -c "$scpu" "$send" -s tone \
		-f p12 -r "$rate" -n "$n" --mtu "$mtu" --cpus "$scpu,$scpu" --json -q \
		"198.18.3.2:$port" 2> "$tmp/send.err" > /dev/null; } 2>&1) || true
	s1=$(cpu_stat "$scpu")
	wait "$recv_pid" 2> /dev/null || true
	recv_pid=""
	path=$(sed -nE 's/^zcs-send: send path: (.*)$/\1/p' "$tmp/send.err" | head -1)
	[[ $mtu == "${mtus[0]}" && ! -s $tmp/path ]] && echo "$path" > "$tmp/path"
	if ! grep -q '"type":"summary"' "$tmp/send.err" || ! grep -q '"type":"summary"' "$tmp/recv.err"; then
		echo "bench_mtu: MTU $mtu failed:" >&2
		cat "$tmp/send.err" "$tmp/recv.err" >&2
		return
	fi
	line=$(grep '"type":"summary"' "$tmp/send.err" | tail -1)
	awk -v t="$t" -v a="${s0#* }" -v b="${s1#* }" -v hz="$hz" -v mtu="$mtu" \
		-v spd="$(sed -nE 's/.*"samples_per_dgram":([0-9]+).*/\1/p' <<< "$line")" \
		-v p="$(sed -nE 's/.*"send_path":"([^"]*)".*/\1/p' <<< "$line")" \
		-v r="$(grep '"type":"summary"' "$tmp/recv.err" | tail -1)" 'BEGIN {
		split(t, u, " ")
		lost = r; sub(/.*"lost":/, "", lost); sub(/[,}].*/, "", lost)
		gap = r; sub(/.*"gap_samples":/, "", gap); sub(/[,}].*/, "", gap)
		got = r; sub(/.*"samples":/, "", got); sub(/[,}].*/, "", got)
		print u[1], u[2], (b - a) / hz, spd * 3, lost, gap, got, p }' >> "$tmp/$mtu"
}

bg_before=$(background)
for ((pass = 0; pass < reps; pass++)); do
	for mtu in "${mtus[@]}"; do
		run "$mtu"
	done
done
bg_after=$(background)
read -r bg0 bg1 < <(awk -v a="$bg_before" -v b="$bg_after" \
	'BEGIN { split(a, x, " "); split(b, y, " "); print (x[1] + y[1]) / 2, (x[2] + y[2]) / 2 }')

gb=$(awk -v n="$n" 'BEGIN { print n * 3 / 1e9 }')
printf '\nSender cost by MTU without checksum offload: zcs-send -s tone -f p12 at %s S/s, %s s a run,\n' \
	"$rate" "$secs"
printf 'over veth (tx checksumming off on both ends), kernel %s.  Sender pinned to CPU%d,\n' \
	"$(uname -r)" "$scpu"
printf 'zcs-recv and the receiving work (RPS) on CPU%d.  %d interleaved passes; each row: the cheapest\n' \
	"$rcpu" "$reps"
printf 'pass (user+sys+si).  Background load (other jobs) when idle: CPU%d %.0f%%, CPU%d %.0f%%.\n' \
	"$rcpu" "$(awk -v v="$bg0" 'BEGIN { print v * 100 }')" "$scpu" "$(awk -v v="$bg1" 'BEGIN { print v * 100 }')"
printf 'Start-up line at MTU %s: send path: %s\n\n' "${mtus[0]}" "$(cat "$tmp/path" 2> /dev/null || echo '?')"
printf '| %5s | %7s | %7s | %5s | %5s | %5s | %5s | %5s | %7s | %14s | %21s |\n' MTU "UDP B" \
	"samp. B" path user sys si1 total "vs 1500" "all passes" "lost dgrams (samples)"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' ------- --------- --------- ------- ------- ------- \
	------- ------- --------- ---------------- -----------------------
base=""
for mtu in "${mtus[@]}"; do
	[[ -s $tmp/$mtu ]] || { printf '| %5s | failed |\n' "$mtu"; continue; }
	row=$(awk -v g="$gb" -v n="$n" '{
		t = $1 + $2 + $3
		all = all (NR > 1 ? " " : "") sprintf("%.2f", t / g)
		lost += $5; short += $6
		if (NR == 1 || t < best) { best = t; u = $1; s = $2; si = $3; pl = $4; p = $8 }
	} END { printf "%.2f %.2f %.2f %.2f %d %s %s %d %d", u / g, s / g, si / g, best / g, pl, p, all, lost, short }' \
		"$tmp/$mtu")
	read -r u s si tot pl p rest <<< "$row"
	[[ -z $base ]] && base=$tot
	all=$(awk '{ for (i = 1; i < NF - 1; i++) printf "%s%s", (i > 1 ? "/" : ""), $i }' <<< "$rest")
	lost=$(awk '{ print $(NF - 1) }' <<< "$rest")
	short=$(awk '{ print $NF }' <<< "$rest")
	printf '| %5s | %7s | %7s | %5s | %5s | %5s | %5s | %5s | %7s | %14s | %21s |\n' "$mtu" \
		"$((mtu - 28))" "$pl" "$p" \
		"$u" "$s" "$si" "$tot" "$(awk -v a="$tot" -v b="$base" 'BEGIN { printf "%.2f", a / b }')" \
		"$all" "$lost ($short)"
done
printf '\nCPU-s per GB of p12 samples sent (3 bytes a sample).  user, sys: zcs-send'"'"'s own (all\n'
printf 'threads; softirq that interrupted it is in sys: this kernel has no IRQ time accounting).\n'
printf 'si1: softirq time on the sender CPU, any context.  UDP B: UDP payload at that MTU (IPv4);\n'
printf 'samp. B: sample bytes in each datagram (the rest is the zcs header).  all\n'
printf 'passes: total per pass.  lost: datagrams zcs-recv counted lost over all passes (and the\n'
printf 'samples it filled with zeros for them: gap_samples).\n'
