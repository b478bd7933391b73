#!/bin/bash
# SPDX-License-Identifier: MIT
# The board's budget (docs/measurements.md, "The board's budget"): the sender's CPU per sample,
# paced at a radio's rates, reading the emulated board (tests/board/fakeboard.sh: real libiio
# local:, feed_iq pacing the FIFO like the DMA), side by side in one run: the floor (only reading
# the board through libiio), Debian's iiod serving it over TCP to iio_readdev, SoapyRemote's server
# fed by a zero-cost SoapySDR source (bench_soapy_source.cpp), zcs-send -s iio (p12, i16) and
# zcs-send -s tone paced.  A veth pair between two namespaces, MTU 1500, offloads off; every
# sender pinned to CPU1, the receiving side's work on CPU0.  Repetitions interleaved (one pass
# runs every method once); median and spread printed.  Prints tables; never fails on timings.
# usage: bench_board.sh ZCS-SEND BENCH_SEND_TOOL BOARD_BIN BENCH_IIO_FLOOR SOAPY_CLIENT [SOAPY_DIR]
#   (root)  ZCS_BENCH_RATES (default "10 20 30.72 61.44", MS/s), ZCS_BENCH_REPS (default 3),
#   ZCS_BENCH_SECS (seconds of samples per run, default 3), ZCS_BENCH_METHODS (a subset of
#   floor iiod soapy12 soapy16 iio12 iio16 tone12 iio12c01; default all but soapy16, iio12c01),
#   ZCS_BENCH_WRAP (put before each zcs-send, e.g. "perf record -e cpu-clock -o /tmp/p.data --"),
#   ZCS_BENCH_BASE (another zcs-send, e.g. a build of main: methods base12, basetone12 run it),
#   ZCS_BENCH_CHUNK (pairs per write of the emulated DMA; default 5 ms of samples, at most 65536).
#   SOAPY_DIR holds the zero-cost module; without it the SoapyRemote rows are left out.
set -euo pipefail
send=$1 tool=$2 board_bin=$3 floor=$4 sclient=$5 soapy_dir=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
scpu=1
rcpu=0

# ---- outside: the two namespaces, then this script again inside the sender's, with its own
# mount namespace for the emulated board ----
if [[ -z ${ZCSB_INNER:-} ]]; then
	for c in ethtool nft iiod iio_readdev taskset unshare pgrep; do
		command -v $c > /dev/null || { echo "bench_board: needs $c"; exit 77; }
	done
	[[ $(nproc) -ge 2 ]] || { echo "bench_board: needs two CPUs"; exit 77; }
	tx=zcsbb-tx-$$
	rx=zcsbb-rx-$$
	cleanup() {
		ip netns del "$tx" 2> /dev/null || true
		ip netns del "$rx" 2> /dev/null || true
	}
	trap cleanup EXIT
	ip netns add "$tx"
	ip netns add "$rx"
	ip link add "zbbt$$" netns "$tx" type veth peer name "zbbr$$" netns "$rx"
	ip -n "$tx" link set lo up
	ip -n "$rx" link set lo up
	ip -n "$tx" addr add 198.18.2.1/24 dev "zbbt$$"
	ip -n "$rx" addr add 198.18.2.2/24 dev "zbbr$$"
	for side in "$tx:zbbt$$" "$rx:zbbr$$"; do
		ns=${side%%:*}
		dev=${side#*:}
		ip -n "$ns" link set "$dev" mtu 1500 up
		ip netns exec "$ns" ethtool -K "$dev" tso off gso off gro off tx-udp-segmentation off > /dev/null
	done
	# A veth transmit runs the peer's receive in the sender's syscall; RPS moves the receiving
	# half's work to rcpu, as if the receiver were another machine.  What comes back (TCP's ACKs,
	# SoapyRemote's flow control) is the board's work: steered to scpu.
	ip netns exec "$rx" sh -c "echo $((1 << rcpu)) > /sys/class/net/zbbr$$/queues/rx-0/rps_cpus"
	ip netns exec "$tx" sh -c "echo $((1 << scpu)) > /sys/class/net/zbbt$$/queues/rx-0/rps_cpus"
	# zcs's UDP: counted and dropped at the receiving device's ingress, before any socket work.
	ip netns exec "$rx" nft -f - << EOF
table netdev zcsbb {
	chain in {
		type filter hook ingress device "zbbr$$" priority 0; policy accept;
		udp dport 21000 counter name "got" drop
	}
	counter got { }
}
EOF
	ZCSB_INNER=1 ZCSB_TX=$tx ZCSB_RX=$rx ip netns exec "$tx" unshare -m -- "$BASH" "$0" "$@"
	exit $?
fi

# ---- inside: the sender's network namespace, a private mount namespace ----
tx=$ZCSB_TX
rx=$ZCSB_RX
BOARD_BIN=$board_bin
# shellcheck source=../board/fakeboard.sh
. "$here/../board/fakeboard.sh"
mount --make-rprivate /
FB_TMP=$(mktemp -d "${TMPDIR:-/tmp}/zcs-bench-board.XXXXXX")
server_pid=""
stop_server() {
	local child
	[[ -n $server_pid ]] || return 0
	# the wrapper reports its child's rusage once the child is gone; iiod ignores SIGTERM
	child=$(pgrep -P "$server_pid" || true)
	[[ -n $child ]] && kill -KILL $child 2> /dev/null
	wait "$server_pid" 2> /dev/null || true
	server_pid=""
}
# fakeboard_down is written for scripts without set -e (a kill of a process gone fails)
trap 'set +e; stop_server; fakeboard_down' EXIT
fakeboard_up one-rx
ip link set lo up
# SoapySDRServer ends at once without a DNS-SD daemon: a private system bus and avahi-daemon in
# here (the mounts keep them from the host's).
start_avahi() {
	command -v avahi-daemon > /dev/null && command -v dbus-daemon > /dev/null || return 1
	mkdir -p /run/dbus /run/avahi-daemon
	mount -t tmpfs zcs-dbus /run/dbus && mount -t tmpfs zcs-avahi /run/avahi-daemon || return 1
	dbus-daemon --system --nopidfile --nofork > "$FB_TMP/dbus.log" 2>&1 &
	fakeboard_track $!
	for ((i = 0; i < 100; i++)); do [[ -S /run/dbus/system_bus_socket ]] && break; sleep 0.05; done
	avahi-daemon --no-drop-root --no-chroot --no-rlimits > "$FB_TMP/avahi.log" 2>&1 &
	fakeboard_track $!
	for ((i = 0; i < 100; i++)); do avahi-daemon -c 2> /dev/null && return 0; sleep 0.05; done
	return 1
}

rates=(${ZCS_BENCH_RATES:-10 20 30.72 61.44})
reps=${ZCS_BENCH_REPS:-3}
secs=${ZCS_BENCH_SECS:-3}
methods=(${ZCS_BENCH_METHODS:-floor iiod soapy12 iio12 iio16 tone12})
if [[ -z $soapy_dir ]] || ! command -v SoapySDRServer > /dev/null || ! start_avahi; then
	echo "bench_board: no SoapySDR module, SoapySDRServer or avahi-daemon: SoapyRemote rows left out"
	methods=($(printf '%s\n' "${methods[@]}" | grep -v '^soapy' || true))
fi
declare -A label=([floor]="floor: libiio read only" [iiod]="iiod i16 (TCP)"
	[soapy12]="SoapyRemote CS12" [soapy16]="SoapyRemote CS16" [iio12]="zcs-send -s iio p12"
	[iio16]="zcs-send -s iio i16" [tone12]="zcs-send -s tone p12"
	[iio12c01]="-s iio p12 --cpus 0,1 (2 CPUs)" [base12]="before: -s iio p12"
	[basetone12]="before: -s tone p12")
hz=$(getconf CLK_TCK)
si_cpu() { awk -v c="cpu$scpu" '$1 == c { print $8 }' /proc/stat; }
udp_got() {
	ip netns exec "$rx" nft list counter netdev zcsbb got | sed -nE 's/.*packets ([0-9]+).*/\1/p'
}
wait_port() { # HOST PORT: until a TCP connect from the receiving side succeeds
	local i
	for ((i = 0; i < 200; i++)); do
		ip netns exec "$rx" bash -c "exec 3<> /dev/tcp/$1/$2" 2> /dev/null && return 0
		sleep 0.05
	done
	return 1
}
feed_lines=0
overruns() { # pairs the "DMA" dropped since the last call
	local n
	n=$(wc -l < "$FB_TMP/feed.log")
	tail -n +$((feed_lines + 1)) "$FB_TMP/feed.log" | head -n $((n - feed_lines)) |
		awk '/overrun, dropped/ { s += $5 } END { print s + 0 }'
	feed_lines=$n
}
cpu_of() { sed -nE 's/^cpu_s=([0-9.]+).*status=([-0-9]+).*/\1 \2/p' "$1"; }

# run METHOD RATE_SPS N BLOCK: one measurement; appends "cpu si overrun net" to $FB_TMP/METHOD.RATE
run() {
	local m=$1 r=$2 n=$3 b=$4 out=$FB_TMP/run.out c st si0 si1 g0 g1 net=0 js d
	: > "$out"
	overruns > /dev/null
	si0=$(si_cpu)
	g0=$(udp_got)
	case $m in
	floor)
		taskset -c $scpu "$tool" cpu "$floor" local: "$b" "$n" > "$out" 2> "$FB_TMP/m.err" || true
		;;
	iiod | soapy12 | soapy16)
		if [[ $m == iiod ]]; then
			taskset -c $scpu "$tool" cpu iiod > "$out" 2> "$FB_TMP/server.err" &
			server_pid=$!
			wait_port 198.18.2.1 30431 || { echo "bench_board: iiod did not start" >&2; }
			ip netns exec "$rx" taskset -c $rcpu iio_readdev -u ip:198.18.2.1 -b "$b" -s "$n" \
				cf-ad9361-lpc voltage0 voltage1 2> "$FB_TMP/m.err" | wc -c > "$FB_TMP/got"
			d=$(($(cat "$FB_TMP/got") / 4))
		else
			SOAPY_SDR_ROOT=/nonexistent SOAPY_SDR_PLUGIN_PATH=$soapy_dir \
				taskset -c $scpu "$tool" cpu SoapySDRServer --bind > "$out" \
				2> "$FB_TMP/server.err" &
			server_pid=$!
			wait_port 198.18.2.1 55132 || { echo "bench_board: SoapySDRServer did not start" >&2; }
			ip netns exec "$rx" taskset -c $rcpu "$sclient" 198.18.2.1 "$r" "$n" \
				"$([[ $m == soapy12 ]] && echo CS12 || echo CS16)" > "$FB_TMP/got" \
				2> "$FB_TMP/m.err" || true
			d=$(sed -nE 's/.*got=([0-9]+) overflows=([0-9]+).*/\2/p' "$FB_TMP/got")
			d=$(( ${d:-1} ))
		fi
		stop_server
		[[ $m == iiod ]] && net=$((n - d)) || net=$d
		;;
	iio12 | iio16 | tone12 | iio12c01 | base12 | basetone12)
		local a=(-s iio -u local:) f=p12 prog=$send cpus=$scpu
		[[ $m == *tone12 ]] && a=(-s tone)
		[[ $m == base* ]] && prog=${ZCS_BENCH_BASE:?ZCS_BENCH_BASE: the other zcs-send}
		[[ $m == iio16 ]] && f=i16
		# the source thread beside the receiving side's work, the send thread on scpu
		[[ $m == iio12c01 ]] && a+=(--cpus $rcpu,$scpu) && cpus=$rcpu,$scpu
		# shellcheck disable=SC2086 # the wrapper is words
		taskset -c $cpus "$tool" cpu ${ZCS_BENCH_WRAP:-} "$prog" "${a[@]}" -r "$r" -n "$n" -f $f -q \
			--json 198.18.2.2:21000 > "$out" 2> "$FB_TMP/m.err" || true
		g1=$(udp_got)
		js=$(cat "$out" "$FB_TMP/m.err" | grep '"type":"summary"' | tail -n 1)
		d=$(sed -nE 's/.*"datagrams":([0-9]+).*"meta_sent":([0-9]+).*/\1 \2/p' <<< "$js")
		# sample datagrams and metadata sent, and the end of stream, against those counted
		[[ -n $d ]] && net=$(( ${d% *} + ${d#* } + 1 - (g1 - g0) )) || net=-1
		;;
	esac
	si1=$(si_cpu)
	read -r c st < <(cpu_of "$out") || true
	if [[ -z ${c:-} || ${st:-1} != 0 && $m != iiod && $m != soapy* ]]; then
		echo "bench_board: $m at $r failed: $(tail -n 3 "$FB_TMP/m.err" | tr '\n' ' ')" >&2
		return
	fi
	echo "$c $(((si1 - si0))) $(overruns) $net" >> "$FB_TMP/$m.$r"
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
for rms in "${rates[@]}"; do
	r=$(awk -v x="$rms" 'BEGIN { printf "%d", x * 1e6 + 0.5 }')
	n=$(awk -v r="$r" -v s="$secs" 'BEGIN { printf "%d", r * s }')
	# the iio source's block (sender/source/source_iio.c): 1/20 s, 4096..1M pairs, 1024 multiple
	b=$(awk -v r="$r" 'BEGIN { b = int(r / 20); if (b < 4096) b = 4096; if (b > 1048576) b = 1048576;
		printf "%d", int((b + 1023) / 1024) * 1024 }')
	fb_attr "$FB_PHY/in_voltage_sampling_frequency" "$r"
	fb_attr "$FB_LPC/in_voltage_sampling_frequency" "$r"
	# The DMA hands over whole blocks, waking the reader once each; a FIFO fed in small writes
	# wakes a waiting reader for every write, a cost that is the emulation's, not the board's
	# (docs/measurements.md, "The board's budget").
	chunk=${ZCS_BENCH_CHUNK:-$(awk -v r="$r" 'BEGIN { c = int(r / 200); print (c > 65536 ? 65536 : c) }')}
	fakeboard_feed --rate "$r" --overrun-ms 200 --chunk "$chunk"
	feeder=${FB_PIDS[-1]}
	# the DMA is not the sender's work: it runs beside the receiving side
	taskset -pc $rcpu "$feeder" > /dev/null
	feed_lines=0
	for ((pass = 0; pass < reps; pass++)); do
		for m in "${methods[@]}"; do
			run "$m" "$r" "$n" "$b"
		done
	done
	kill "$feeder" 2> /dev/null || true
	wait "$feeder" 2> /dev/null || true
	echo "samples=$n block=$b chunk=$chunk" > "$FB_TMP/size.$r"
	rm -f "$FB_TMP/feed.log"
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

# median and spread of CPU-s per 1e8 samples; column 1 cpu, 2 softirq ticks, 3 overrun, 4 net
stat_of() { # FILE N COL: "median min max" of COL per 1e8 samples
	[[ -s $1 ]] || { echo "nan nan nan"; return; }
	awk -v n="$2" -v col="$3" -v hz="$hz" '{ v = $col; if (col == 2) v /= hz; print v * 1e8 / n }' "$1" |
		sort -g | awk '{ a[NR] = $1 } END { m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
			printf "%.3f %.3f %.3f\n", m, a[1], a[NR] }'
}
sum_of() { [[ -s $1 ]] && awk -v col="$2" '{ s += $col } END { print s }' "$1" || echo "-"; }

printf '\nThe board'"'"'s budget: sender CPU-seconds per 1e8 samples, paced, kernel %s\n' "$(uname -r)"
printf 'veth between two namespaces (MTU 1500, TSO/GSO/GRO off); senders on CPU%d, receiving work on\n' $scpu
printf 'CPU%d; %d interleaved passes of %s s of samples per rate; load average %s before, %s after.\n' \
	$rcpu "$reps" "$secs" "$load0" "$load1"
printf 'Emulated DMA writes (pairs): %s.\n\n' "$(for r in "${rates[@]}"; do
	r=$(awk -v x="$r" 'BEGIN { printf "%d", x * 1e6 + 0.5 }'); sed -nE "s/.*chunk=([0-9]+).*/\1/p" "$FB_TMP/size.$r"; done | tr '\n' ' ')"
printf '| %-5s | %-30s | %-21s | %-13s | %-7s | %-7s | %-7s |\n' MS/s method \
	"CPU s/1e8: median (min-max)" "softirq CPU1" "vs iiod" overrun "net lost"
printf '|-------|--------------------------------|-----------------------------|---------------|---------|---------|----------|\n'
for rms in "${rates[@]}"; do
	r=$(awk -v x="$rms" 'BEGIN { printf "%d", x * 1e6 + 0.5 }')
	n=$(sed -nE 's/samples=([0-9]+).*/\1/p' "$FB_TMP/size.$r")
	read -r im _ _ < <(stat_of "$FB_TMP/iiod.$r" "$n" 1)
	for m in "${methods[@]}"; do
		read -r md lo hi < <(stat_of "$FB_TMP/$m.$r" "$n" 1)
		read -r sm _ _ < <(stat_of "$FB_TMP/$m.$r" "$n" 2)
		printf '| %-5s | %-30s | %5s (%5s-%5s)         | %13s | %7s | %7s | %8s |\n' "$rms" \
			"${label[$m]}" "$md" "$lo" "$hi" "$sm" \
			"$(awk -v a="$md" -v b="$im" 'BEGIN { if (b > 0 && a == a) printf "%.2f", a / b; else print "-" }')" \
			"$(sum_of "$FB_TMP/$m.$r" 3)" "$(sum_of "$FB_TMP/$m.$r" 4)"
	done
done
printf '\nCPU: user+system time of the sending process, all threads (the wrapper'"'"'s rusage; for iiod and\n'
printf 'SoapySDRServer the server process from start to kill, one per run).  softirq CPU1: softirq\n'
printf 'time on the sender CPU in any context (/proc/stat, tick-sampled, other jobs included), per 1e8.\n'
printf 'overrun: samples the emulated DMA dropped, the reader being over 200 ms behind (feed_iq\n'
printf -- '--overrun-ms; for SoapyRemote its source'"'"'s own); net lost: datagrams sent but not counted at\n'
printf 'the receiving ingress (zcs), samples short at iio_readdev (iiod), overflows reported to the\n'
printf 'SoapySDR client (SoapyRemote); both summed over the passes.\n'
