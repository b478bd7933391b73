#!/bin/bash
# Sender cost: CPU seconds per GB of p12 samples sent over a veth pair between two network
# namespaces (MTU 1500; TSO, GSO and GRO off, like the board's macb), zcs-send on each send path
# against a TCP loop (convert, then send(), as zc-stream does) and one sendto per datagram, all
# in one run, measuring the SEND side only (docs/measurements.md, "Sender cost", says how).
# Prints a table; never fails on timings.
# usage: bench_send.sh ZCS-SEND BENCH_SEND_TOOL   (root; ZCS_BENCH_MB sets the volume, default 1000,
# ZCS_BENCH_REPS the passes over every method, default 3: each row is its cheapest pass, since
# other jobs on the machine only ever add cost;
# for profiling, ZCS_BENCH_PATHS picks zcs-send's paths (default all four) and ZCS_BENCH_WRAP is a
# command put before each zcs-send, e.g. "perf record -g -o /tmp/p.data --"; ZCS_BENCH_BASE is
# another zcs-send (a build of the commit before a change): its "before" rows run it on the same
# paths, in the same passes; ZCS_BENCH_ARGS are options for the zcs-send rows only, e.g.
# "--fec 32:4" with ZCS_BENCH_BASE the same binary: an option's cost side by side;
# ZCS_BENCH_RATE paces every zcs-send row, default max)
set -euo pipefail
send=$1
tool=$2
mb=${ZCS_BENCH_MB:-1000}
reps=${ZCS_BENCH_REPS:-3}
rate=${ZCS_BENCH_RATE:-max}
bytes=$((mb * 1000000))
samples=$((bytes / 3))
tx=zcsb-tx-$$
rx=zcsb-rx-$$
sink_pid=""
# The sender runs on CPU1 (as on the board, whose interrupts land on CPU0); the receiving half's
# work runs on CPU0.
scpu=1
rcpu=0

cleanup() {
	[[ -n $sink_pid ]] && kill "$sink_pid" 2>/dev/null || true
	ip netns del "$tx" 2>/dev/null || true
	ip netns del "$rx" 2>/dev/null || true
}
trap cleanup EXIT

command -v ethtool >/dev/null || { echo "bench_send: needs ethtool"; exit 77; }
command -v nft >/dev/null || { echo "bench_send: needs nft"; exit 77; }
[[ $(nproc) -ge 2 ]] || { echo "bench_send: needs two CPUs"; exit 77; }
ip netns add "$tx"
ip netns add "$rx"
ip link add "zbt$$" netns "$tx" type veth peer name "zbr$$" netns "$rx"
ip -n "$tx" link set lo up
ip -n "$rx" link set lo up
ip -n "$tx" addr add 198.18.1.1/24 dev "zbt$$"
ip -n "$rx" addr add 198.18.1.2/24 dev "zbr$$"
for side in "$tx:zbt$$" "$rx:zbr$$"; do
	ns=${side%%:*}
	dev=${side#*:}
	ip -n "$ns" link set "$dev" mtu 1500 up
	ip netns exec "$ns" ethtool -K "$dev" tso off gso off gro off >/dev/null
done
# A veth transmit hands the packet to the peer's receive path on the SENDING CPU, inside the
# sender's syscall.  RPS moves the receiving half's work (IP, UDP or TCP receive, the sink) to
# rcpu, as if the receiver were another machine.  The other direction (TCP's ACKs) is steered
# to the sender's CPU: on the board the ACKs are the board's work.
ip netns exec "$rx" sh -c "echo $((1 << rcpu)) > /sys/class/net/zbr$$/queues/rx-0/rps_cpus"
ip netns exec "$tx" sh -c "echo $((1 << scpu)) > /sys/class/net/zbt$$/queues/rx-0/rps_cpus"
# The UDP sink: counted and dropped at the receiving device's ingress hook, before IP, so no
# socket work is done (and no ICMP comes back); the counter tells how much arrived.
ip netns exec "$rx" nft -f - <<EOF
table netdev zcsb {
	chain in {
		type filter hook ingress device "zbr$$" priority 0; policy accept;
		udp dport 21000 counter name "got" drop
	}
	counter got { }
}
EOF
udp_got() {
	ip netns exec "$rx" nft list counter netdev zcsb got | sed -nE 's/.*packets ([0-9]+) bytes ([0-9]+).*/\2/p'
}

# The TCP sink: reads into a big buffer on rcpu.
start_tcp_sink() {
	local log
	log=$(mktemp)
	ip netns exec "$rx" taskset -c "$rcpu" "$tool" sink tcp 198.18.1.2 "$1" >"$log" &
	sink_pid=$!
	for _ in $(seq 50); do grep -q ready "$log" && break; sleep 0.1; done
	rm -f "$log"
}

stop_sink() {
	kill "$sink_pid" 2>/dev/null || true
	wait "$sink_pid" 2>/dev/null || true
	sink_pid=""
}

# shellcheck source=bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"

# measure NAME CMD...: runs CMD in the sender's namespace pinned to scpu; records its rusage,
# wall time, and both CPUs' busy and softirq time from /proc/stat.
declare -A proc wall busy0 busy1 si1 src snd got
measure() {
	local name=$1 out s0 s1 e0 e1 g0 g1 c
	shift
	g0=$(udp_got)
	s0=$(cpu_stat "$rcpu"); s1=$(cpu_stat "$scpu")
	# zcs-send's JSON summary (the src/send split) is on its stderr
	out=$(ip netns exec "$tx" taskset -c "$scpu" "$tool" cpu "$@" 2>&1 || true)
	e0=$(cpu_stat "$rcpu"); e1=$(cpu_stat "$scpu")
	g1=$(udp_got)
	c=$(sed -nE 's/^cpu_s=([0-9.]+).*/\1/p' <<<"$out")
	if [[ -z $c || $out != *status=0* ]]; then
		echo "bench_send: $name failed ($out)" >&2
		return
	fi
	# keep the cheapest pass of this method: other jobs only ever add cost
	if [[ -n ${proc[$name]:-} ]] && awk -v a="$c" -v b="${proc[$name]}" 'BEGIN { exit !(a >= b) }'; then
		return
	fi
	proc[$name]=$c
	wall[$name]=$(sed -nE 's/^cpu_s=.* wall_s=([0-9.]+).*/\1/p' <<<"$out")
	src[$name]=$(sed -nE 's/.*"src_cpu_s":([0-9.]+).*/\1/p' <<<"$out")
	snd[$name]=$(sed -nE 's/.*"send_cpu_s":([0-9.]+).*/\1/p' <<<"$out")
	got[$name]=$((g1 - g0))
	read -r b0a _ <<<"$s0"; read -r b0b _ <<<"$e0"
	read -r b1a si1a <<<"$s1"; read -r b1b si1b <<<"$e1"
	busy0[$name]=$(awk -v a="$b0a" -v b="$b0b" -v hz="$hz" 'BEGIN { print (b - a) / hz }')
	busy1[$name]=$(awk -v a="$b1a" -v b="$b1b" -v hz="$hz" 'BEGIN { print (b - a) / hz }')
	si1[$name]=$(awk -v a="$si1a" -v b="$si1b" -v hz="$hz" 'BEGIN { print (b - a) / hz }')
}

bg_before=$(background)
order=("generate only (no pack)" "convert only (no send)")
for path in ${ZCS_BENCH_PATHS:-uring-zc msg-zc gso plain}; do
	order+=("zcs-send $path")
	if [[ -n ${ZCS_BENCH_BASE:-} ]]; then order+=("before: $path"); fi
done
order+=("sendto per datagram" "TCP loop (zc-stream)")
start_tcp_sink 21001
for ((pass = 0; pass < reps; pass++)); do
	measure "generate only (no pack)" "$tool" generate "$bytes"
	measure "convert only (no send)" "$tool" convert "$bytes"
	for path in ${ZCS_BENCH_PATHS:-uring-zc msg-zc gso plain}; do
		# shellcheck disable=SC2086 # the wrapper is words
		measure "zcs-send $path" ${ZCS_BENCH_WRAP:-} "$send" -s tone -f p12 -r "$rate" \
			-n "$samples" --send-path "$path" -q --json --cpus "$scpu,$scpu" \
			${ZCS_BENCH_ARGS:-} 198.18.1.2:21000
		if [[ -n ${ZCS_BENCH_BASE:-} ]]; then
			measure "before: $path" "$ZCS_BENCH_BASE" -s tone -f p12 -r "$rate" -n "$samples" \
				--send-path "$path" -q --json --cpus "$scpu,$scpu" 198.18.1.2:21000
		fi
	done
	measure "sendto per datagram" "$tool" sendto 198.18.1.2 21000 "$bytes"
	measure "TCP loop (zc-stream)" "$tool" tcp 198.18.1.2 21001 "$bytes"
done
stop_sink
bg_after=$(background)
read -r bg0 bg1 < <(awk -v a="$bg_before" -v b="$bg_after" \
	'BEGIN { split(a, x, " "); split(b, y, " "); print (x[1] + y[1]) / 2, (x[2] + y[2]) / 2 }')

gb=$(awk -v b="$bytes" 'BEGIN { print b / 1e9 }')
tname="TCP loop (zc-stream)"
tcp=${proc[$tname]:-nan}
tcpx=$(awk -v a="$tcp" -v b="${si1[$tname]:-0}" 'BEGIN { print a + b }')
conv=${proc[convert only (no send)]:-nan}
pct() { awk -v v="$1" 'BEGIN { printf "%.0f%%", v * 100 }'; }
printf '\nSender cost, %d MB of p12 samples over veth (MTU 1500, TSO/GSO/GRO off), kernel %s\n' \
	"$mb" "$(uname -r)"
printf 'Sender pinned to CPU%d, receiving work on CPU%d (RPS); UDP counted and dropped at ingress.\n' \
	"$scpu" "$rcpu"
[[ -z ${ZCS_BENCH_ARGS:-} ]] || printf 'zcs-send rows with %s; "before" rows without.\n' "$ZCS_BENCH_ARGS"
printf 'zcs-send paced at %s.  ' "$rate"
printf 'Each row: the cheapest of %d passes.  Background load (other jobs) when idle: CPU%d %s, CPU%d %s.\n\n' \
	"$reps" "$rcpu" "$(pct "$bg0")" "$scpu" "$(pct "$bg1")"
printf '| %-23s | %6s | %7s | %5s | %9s | %11s | %6s | %8s | %6s | %9s | %9s |\n' method \
	"wall s" "MB/s" "got %" "proc s/GB" "src/send" "vs TCP" "si1 s/GB" "+si1 vs TCP" "CPU1 s/GB" \
	"both s/GB"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' ------------------------- -------- --------- \
	------- ----------- ------------- -------- ---------- ------------- ----------- -----------
for m in "${order[@]}"; do
	[[ -n ${proc[$m]:-} ]] || { printf '| %-23s | failed |\n' "$m"; continue; }
	awk -v m="$m" -v c="${proc[$m]}" -v w="${wall[$m]}" -v g="$gb" -v t="$tcp" -v tx="$tcpx" \
		-v b0="${busy0[$m]}" -v b1="${busy1[$m]}" -v s1="${si1[$m]}" \
		-v src="${src[$m]:-}" -v snd="${snd[$m]:-}" -v got="${got[$m]}" -v bytes="$bytes" \
		-v udp="$([[ $m == zcs-send* || $m == before* || $m == sendto* ]] && echo 1 || echo 0)" 'BEGIN {
		split_ = src != "" ? sprintf("%.3f/%.3f", src / g, snd / g) : "-"
		gotp = udp ? sprintf("%.1f", 100 * got / (bytes * 1500 / 1440)) : "-"
		base = m ~ /^(convert|generate)/
		printf "| %-23s | %6.2f | %7s | %5s | %9.3f | %11s | %6s | %8.3f | %11s | %9.3f | %9.3f |\n",
			m, w, base ? "-" : sprintf("%.1f", bytes / 1e6 / w), gotp, c / g, split_,
			base ? "-" : sprintf("%.2f", c / t), s1 / g,
			base ? "-" : sprintf("%.2f", (c + s1) / tx), b1 / g, (b0 + b1) / g }'
done
awk -v c="$conv" -v t="$tcp" -v u="${proc[zcs-send uring-zc]:-nan}" -v g="$gb" \
	-v gen="${proc[generate only (no pack)]:-nan}" 'BEGIN {
	printf "\nLess the conversion common to all (\"convert only\"): uring-zc sends for %.3f s/GB, the TCP\n",
		(u - c) / g
	printf "loop for %.3f s/GB (ratio %.2f).  Of uring-zc'"'"'s %.3f s/GB, the sample supply is %.3f\n",
		(t - c) / g, (u - c) / (t - c), u / g, gen / g
	printf "(%.0f%%) and packing p12 %.3f (%.0f%%, \"convert\" - \"generate\").\n",
		100 * gen / u, (c - gen) / g, 100 * (c - gen) / u }'
printf '\nproc: user+system time of the sending process (all threads; softirq that interrupted it is\n'
printf 'included: this kernel has no IRQ time accounting).  src/send: its source and send threads.\n'
printf 'si1: softirq time on the sender CPU, any context (TCP: ACK processing; all: RPS IPIs); +si1\n'
printf 'vs TCP compares proc + si1.  CPU1, both: busy time of the sender CPU and of both CPUs during\n'
printf 'the run from /proc/stat, raw (they include other jobs: see the background load).  got: bytes\n'
printf 'counted at the receiving ingress against those sent (UDP; < 100 when the receiving CPU fell\n'
printf 'behind and the backlog dropped).\n'
