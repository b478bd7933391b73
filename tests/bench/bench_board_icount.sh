#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The board's budget counted in ARM instructions (docs/measurements.md, "The board's budget,
# counted on the board's kernels"): Debian's armhf 6.1 and 5.10 booted under qemu-system-arm
# -M vexpress-a9 -icount shift=0,sleep=on -smp 1, where the guest's clock advances 1 ns per
# executed instruction while it runs, so the guest's own CPU accounting counts instructions
# whatever the host's speed or load.  In one boot per kernel, on the emulated board inside the
# guest (tests/board/fakeboard.sh's IIO tree, feed_iq as the ADC): a self-check loop of a known
# instruction count; iiod serving iio_readdev on the host (i16); the libiio read alone (the
# supply); zcs-send -s iio p12, i8 and i16, unkeyed and keyed, on every send path the kernel
# offers, and p12 with --fec 32:4 on the Ethernet's zero-copy and gso paths.  Every cell twice, the passes interleaved.  A benchmark: prints tables, never judges.
#
#   tests/bench/bench_board_icount.sh [ARMHF_BUILD]      (root; default build-armhf)
#   ZCS_ICOUNT_MACHINE   vexpress (default): Debian's armmp kernels on -M vexpress-a9 with two virtio
#                        NICs (eth1 without checksum offload); zynq: the board's own machine,
#                        -M xilinx-zynq-a9 with its Cadence GEM (Linux's macb) as eth0, the kernel
#                        built by tests/bench/zynq_kernel.sh (Linux 6.1 only), the cells of eth1
#                        run on the GEM with its TX checksum offload off (ethtool -K eth0 tx off:
#                        the USB gadget's case); its guest clock runs 1.2 ns an instruction (the
#                        A9 global timer's, qemu's 100 MHz against the device tree's 83.3), which
#                        the tables take out by the self-check loop
#   ZCS_ICOUNT_KERNELS   "6.1 5.10" (default) or one of them
#   ZCS_ICOUNT_CELLS     an extended regex: only the zcs-send cells whose name matches (the
#                        self-check, iiod and the supply always run: the table is relative to
#                        iiod), e.g. "keyed" reruns the keyed cells
#   ZCS_ICOUNT_N         pairs of the short run of a cell (default 500000, made the nearest whole
#                        number of libiio blocks: every program reads whole blocks, iiod sends
#                        them); each cell also runs with 3 times as many, and the per-sample
#                        figures are the difference (every program's start-up, ~14 M
#                        instructions for libiio's context alone, cancels)
#   ZCS_ICOUNT_IIOD_N    the same for iiod and the supply (default ZCS_ICOUNT_N)
#   ZCS_ICOUNT_IIOD_REPS runs of iiod and the supply (default ZCS_ICOUNT_REPS; the table takes
#                        the median)
#   ZCS_ICOUNT_IIOD      resident (default): one iiod started before the cells, once its avahi
#                        thread has given up, measured by its CPU clock over each client; spawn:
#                        an iiod started for each run (the first method: its count then holds
#                        avahi's retries over its life, unsteady; docs/measurements.md)
#   ZCS_ICOUNT_RATE      the pace in pairs/s, feeder and zcs-send -r (default 2083334); from
#                        12500000 up the cells NAME-2t also run, with --send-threads 2
#   ZCS_ICOUNT_REPS      runs of every cell (default 2)
#   ZCS_ICOUNT_LOOP      the self-check's iterations (default 1e8: 2e8 instructions, then twice that)
#   ZCS_ICOUNT_OUT       where the guests' reports and the tables go (default ARMHF_BUILD/icount)
#   ZCS_ICOUNT_ANCHORS   1 (default on zynq): also the calibration's TCP anchor, bench_send_tool's
#                        TCP loop (a p12 block packed, then send() of it, as the seed's zc-stream
#                        did) into a sink on the host, and its conversion alone
#   ZCS_ICOUNT_BASE      another armhf build directory: its zcs-send also runs the plain cells (on
#                        the NIC without checksum offload), named NAME-base, for a change counted
#                        like for like in one boot
#   ZCS_ICOUNT_SLEEP     -icount's sleep= on the Zynq (default on); ZCS_ICOUNT_CLOCK=ttc the
#                        TTCs for the global timer (zynq_boot says why not); ZCS_ICOUNT_MONITOR a
#                        qemu -monitor (e.g. unix:/tmp/mon.sock,server,nowait); ZCS_ICOUNT_APPEND
#                        the kernel's extra arguments (default init_on_alloc=0, as ADI's kernels);
#                        ZCS_ICOUNT_STALL the seconds of a silent guest before it is ended
#                        (default 300)
#   ZCS_ICOUNT_QEMU      the qemu-system-arm of the Zynq machine (default the host's, Debian 12's
#                        7.2): another version's, to see that the counts are the guest's
#                        (tests/bench/qemu_newer.sh installs Debian 13's 10.0 beside it)
#   ZCS_ICOUNT_PROFILE   1: also where the instructions go, per thread and function, in the cells
#                        of ZCS_ICOUNT_PROFILE_CELLS (tests/bench/bench_board_icount_profile.sh);
#                        vexpress only so far: on the Zynq machine the sampler's timer fires at
#                        the tick (61 samples of the 4,000 the self-check loop should draw)
#
# Needs .ci/armhf.sh's build (zcs-send, feed_iq, bench_send_tool, bench_iio_floor,
# bench_icount_loop for armhf) and its sysroot (ZCS_ARMHF_CACHE), the kernels' cache of
# .ci/kernels.sh (ZCS_KERNELS_CACHE; filled here when empty), Debian's armhf iiod (downloaded
# into that cache), and on the host qemu-system-arm, iio_readdev and nft.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
build=$(realpath -m "${1:-build-armhf}")
armhf_cache=${ZCS_ARMHF_CACHE:-/var/cache/zcs-armhf}
cache=${ZCS_KERNELS_CACHE:-/var/cache/zcs-kernels}
sysroot=$armhf_cache/sysroot
machine=${ZCS_ICOUNT_MACHINE:-vexpress}
outdir=$(realpath -m "${ZCS_ICOUNT_OUT:-$build/icount$([ "$machine" = zynq ] && echo -zynq)}")
case $machine in
vexpress) kernels=(${ZCS_ICOUNT_KERNELS:-6.1 5.10}) ;;
zynq) kernels=(6.1) ;;
*) echo "bench_board_icount: ZCS_ICOUNT_MACHINE: vexpress or zynq" >&2; exit 1 ;;
esac
ANCHORS=${ZCS_ICOUNT_ANCHORS:-$([ "$machine" = zynq ] && echo 1 || echo 0)}
only=${ZCS_ICOUNT_CELLS:-.}
N=${ZCS_ICOUNT_N:-500000}
IN=${ZCS_ICOUNT_IIOD_N:-$N}
RATE=${ZCS_ICOUNT_RATE:-2083334}
REPS=${ZCS_ICOUNT_REPS:-2}
IREPS=${ZCS_ICOUNT_IIOD_REPS:-$REPS}
case ${ZCS_ICOUNT_IIOD:-resident} in resident) IKIND=iiodr ;; spawn) IKIND=iiod ;; *) IKIND= ;; esac
LOOP=${ZCS_ICOUNT_LOOP:-100000000}
ns=zcsic-$$
work=
pids=()

cleanup() {
	local p
	[ "$machine" = zynq ] && [ -n "${kernels_qemu:-}" ] && zynq_stop
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	ip netns del "$ns" 2>/dev/null
	[ -n "$work" ] && rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
die() {
	echo "bench_board_icount: $*" >&2
	exit 1
}

[ -n "$IKIND" ] || die "ZCS_ICOUNT_IIOD: resident or spawn"
for c in qemu-system-arm iio_readdev nft cpio arm-linux-gnueabihf-readelf python3; do
	command -v $c >/dev/null || die "needs $c (qemu-system-arm, libiio-utils, nftables, cpio, binutils-arm-linux-gnueabihf)"
done
progs=("$build/sender/zcs-send" "$build/tests/board/feed_iq" "$build/tests/bench/bench_send_tool"
	"$build/tests/bench/bench_iio_floor" "$build/tests/bench/bench_icount_loop")
for f in "${progs[@]}" "$sysroot/lib/ld-linux-armhf.so.3"; do
	[ -e "$f" ] || die "$f is missing (.ci/armhf.sh builds it)"
done

# shellcheck source=../../.ci/kernels/lib.sh
. .ci/kernels/lib.sh
# an entropy source (qemu's virtio-rng): zcs-send's start (getrandom) waits for the kernel's
# CRNG, which under -icount never gathers jitter from the guest's deterministic clock
kernels_modules+=(drivers/char/hw_random/rng-core.ko drivers/char/hw_random/virtio-rng.ko)
kernels_fetch_suite bookworm
[[ " ${kernels[*]} " == *" 5.10 "* ]] && kernels_fetch_suite bullseye
# Debian's own iiod for armhf (bookworm's, 0.24, on both kernels as the other programs), its
# libraries not in the sysroot from the same index; on the Zynq also ethtool (the GEM's offload
# switched off for the cells of a NIC without it)
kernels_unpack bookworm iiod iiod libaio1 libavahi-client3 libavahi-common3 libdbus-1-3 \
	libsystemd0 libcap2 libgcrypt20 libgpg-error0 liblz4-1 liblzma5 ethtool libmnl0
kernels_libdirs=("$cache/bookworm/iiod/lib/arm-linux-gnueabihf" "$cache/bookworm/iiod/usr/lib/arm-linux-gnueabihf")
progs+=("$cache/bookworm/iiod/usr/sbin/iiod")
if [ "$machine" = zynq ]; then
	progs+=("$cache/bookworm/iiod/sbin/ethtool")
	[ -e "${progs[-1]}" ] || progs[-1]=$cache/bookworm/iiod/usr/sbin/ethtool
	# the kernel, built once per machine (its last line: the directory of zImage and the dtb)
	zynq_dir=$(tests/bench/zynq_kernel.sh | tail -n 1)
	[ -f "$zynq_dir/zImage" ] || die "tests/bench/zynq_kernel.sh gave no kernel"
	command -v fdtput >/dev/null || die "needs fdtput (device-tree-compiler)"
	# everything the guest needs is built in: no module of Debian's kernel is loaded
	kernels_modules=()
fi
# the per-function profile (ZCS_ICOUNT_PROFILE=1): tests/bench/bench_board_icount_profile.sh
profile_files=()
[ "${ZCS_ICOUNT_PROFILE:-0}" = 1 ] && . tests/bench/bench_board_icount_profile.sh
if [ -n "${ZCS_ICOUNT_BASE:-}" ]; then
	[ -x "$ZCS_ICOUNT_BASE/sender/zcs-send" ] || die "$ZCS_ICOUNT_BASE/sender/zcs-send is missing"
	mkdir -p "$outdir"
	cp "$ZCS_ICOUNT_BASE/sender/zcs-send" "$outdir/zcs-send-base"
	progs+=("$outdir/zcs-send-base")
fi
kernels_add_libs "${progs[@]}"

mkdir -p "$outdir"
work=$(mktemp -d /tmp/zcs-icount.XXXXXX)
# the libiio block of zcs-send's iio source (sender/source/source_iio.c): 1/20 s, a multiple of
# 1024 pairs, 4096..1M; the feeder writes 5 ms of samples at a time (bench_board.sh's DMA)
BLOCK=$(awk -v r="$RATE" 'BEGIN { b = int(r / 20); if (b < 4096) b = 4096; if (b > 1048576) b = 1048576;
	printf "%d", int((b + 1023) / 1024) * 1024 }')
CHUNK=$(awk -v r="$RATE" 'BEGIN { c = int(r / 200); print (c > 65536 ? 65536 : c) }')
# whole blocks: a run of N pairs reads ceil(N / BLOCK) blocks (iiod sends them all to iio_readdev),
# so N off a multiple of BLOCK would charge the difference of two runs more samples than it counts
blocks() { awk -v n="$1" -v b="$BLOCK" 'BEGIN { k = int(n / b + 0.5); printf "%d", (k < 1 ? 1 : k) * b }'; }
N=$(blocks "$N")
N2=$((3 * N))
IN=$(blocks "$IN")
IN2=$((3 * IN))
printf 'RATE=%s\nBLOCK=%s\nCHUNK=%s\nMACHINE=%s\n' "$RATE" "$BLOCK" "$CHUNK" "$machine" >"$work/icount.conf"
# the TCP anchor's sample counts: whole blocks of bench_send_tool's 65536 pairs
TN=$(awk -v n="$N" 'BEGIN { k = int(n / 65536 + 0.5); printf "%d", (k < 1 ? 1 : k) * 65536 }')
(umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$work/key" && echo >>"$work/key")

# The cells of kernel KV, every one REPS times, the passes interleaved.
cells() { # KV
	local rep fmt path key
	echo "selfcheck 1 loop - $LOOP"
	echo "selfcheck 2 loop - $((2 * LOOP))"
	for ((rep = 1; rep <= (REPS > IREPS ? REPS : IREPS); rep++)); do
		for n in $IN $IN2; do
			((rep <= IREPS)) || break
			echo "iiod $rep:$n $IKIND -"
			echo "supply $rep:$n floor -"
			# iiod on the NIC without checksum offload: zcs-send's plain cells' like for like
			[ "$machine" = zynq ] && echo "iiod-nocsum $rep:$n $IKIND $nocsum"
		done
		if [ "$ANCHORS" = 1 ] && ((rep <= REPS)); then
			# the calibration's second anchor: the seed's zc-stream send loop (convert a block,
			# send() it over TCP), and the conversion alone to take out of it
			for n in $TN $((3 * TN)); do
				echo "tcp-send $rep:$n tcp eth0 $((3 * n))"
				echo "tcp-convert $rep:$n convert - $((3 * n))"
			done
		fi
		for n in $N $N2; do
			((rep <= REPS)) || break
			for path in uring-zc msg-zc gso plain; do
				# io_uring's SEND_ZC is Linux 6.0's: 5.10 offers msg-zc, gso and plain
				[ "$path" = uring-zc ] && [ "$1" = 5.10 ] && continue
				for fmt in p12 i8 i16; do
					for key in "" keyed; do
						local name=$fmt-$path${key:+-$key} net=eth0 a="-f $fmt --send-path $path"
						[[ $name =~ $only ]] || continue
						# plain on the NIC without checksum offload (csum=off): the case it is
						# for, the kernel checksumming each datagram in software
						[ "$path" = plain ] && net=$nocsum
						[ -n "$key" ] && a="$a --key /zcs/key"
						echo "$name $rep:$n zcs $net $a"
						[ "$path" = plain ] && [ -n "${ZCS_ICOUNT_BASE:-}" ] &&
							echo "$name-base $rep:$n zcsbase $net $a"
					done
				done
				# the erasure code's cost (issue 21): p12 with --fec 32:4, on the paths the
				# board's Ethernet takes
				local name=p12-$path-fec
				[ "$path" != plain ] && [[ $name =~ $only ]] &&
					echo "$name $rep:$n zcs eth0 -f p12 --send-path $path --fec 32:4"
				# the kernel's send work on two threads (--send-threads 2), on the paths the
				# board's Ethernet takes: p12, keyed, --fec; only at rates where the second
				# thread takes trains (a receiver's window of three trains: p12 from 12.3 MS/s,
				# so ZCS_ICOUNT_RATE=12500000)
				[ "$path" = plain ] || [ "$RATE" -lt 12500000 ] && continue
				for a in "" "--key /zcs/key" "--fec 32:4"; do
					name=p12-$path${a:+-}$(sed 's/--key.*/keyed/; s/--fec.*/fec/' <<<"$a")-2t
					[[ $name =~ $only ]] &&
						echo "$name $rep:$n zcs eth0 -f p12 --send-path $path $a --send-threads 2"
				done
			done
		done
	done
	# again after every zero-copy run: the system-wide figure must still read a known count
	echo "selfcheck-end 1 loop - $LOOP"
	echo "selfcheck-end 2 loop - $((2 * LOOP))"
}

kernels_netns
# zcs's UDP counted and dropped at the host's end of each tap, before any socket work
ip netns exec "$ns" nft -f - <<EOF || die "nft"
table netdev zcsic {
	counter got0 { }
	counter got1 { }
	chain in0 {
		type filter hook ingress device "tap0" priority 0; policy accept;
		udp dport 21000 counter name "got0" drop
	}
	chain in1 {
		type filter hook ingress device "tap1" priority 0; policy accept;
		udp dport 21000 counter name "got1" drop
	}
}
EOF
got() { # packets counted on both taps so far
	local a b
	a=$(ip netns exec "$ns" nft list counter netdev zcsic got0 | sed -nE 's/.*packets ([0-9]+).*/\1/p')
	b=$(ip netns exec "$ns" nft list counter netdev zcsic got1 | sed -nE 's/.*packets ([0-9]+).*/\1/p')
	echo $((a + b))
}

# The NIC without checksum offload: virtio's second NIC (csum=off) on vexpress, the GEM itself
# with its TX checksum offload switched off in the guest on the Zynq
nocsum=eth1
[ "$machine" = zynq ] && nocsum=eth0-nocsum

# The board's own machine: the Zynq-7000 (one A9: -icount counts one CPU), its GEM on tap0, the
# kernel of tests/bench/zynq_kernel.sh.  Its device tree as the ZC702's, with uart0 (qemu's first
# serial) switched on as ttyPS1 for the guest's report beside the console on uart1 (ttyPS0), and
# a seed for the CRNG in /chosen (the kernel trusts it: RANDOM_TRUST_BOOTLOADER): zcs-send's
# start (getrandom) waits for the CRNG, which under -icount gathers no jitter, and the machine
# has no virtio bus for a virtio-rng.  No power-off there: the guest's end is its @done line.
zynq_boot() { # DIR INITRD
	local dir=$1 dtb=$work/zynq.dtb uart0
	cp "$zynq_dir/zynq-zc702.dtb" "$dtb"
	uart0=$(fdtget "$dtb" /aliases serial0 | sed 's/e0001000/e0000000/')
	fdtput -t s "$dtb" "$uart0" status okay && fdtput -t s "$dtb" /aliases serial1 "$uart0" &&
		fdtput -t bx "$dtb" /chosen rng-seed $(od -An -tx1 -N64 /dev/urandom) || die "fdtput on $dtb"
	# the guest's clocks from the A9's own timers (the global timer the clock, the TWD the
	# ticks), the Cadence TTCs taken out: qemu's TTC model livelocks under -icount (the vCPU
	# thread, holding the big lock, re-arms the TTC's timer without end, by perf on 10.0; 7.2
	# hangs the same way with the TTCs and not without; most likely a next event rounded to 0 ns
	# ahead, which a clock that stands still between instructions never passes; the process then
	# answers nothing, not even SIGTERM).  The TWD is said always-on (qemu's keeps counting in
	# idle): without the TTCs there is no broadcast timer, and a TWD that may stop leaves the
	# kernel at the periodic tick, where hrtimers (the profile's sampler among them) fire only at
	# the tick; a board's kernel, with its TTCs as the broadcast timer, can run tickless.
	# ZCS_ICOUNT_CLOCK=ttc: the TTCs kept, the global timer taken out (the first set-up, which
	# ran one zcs-send a boot at most)
	local mpcore=${uart0%/serial@*} node
	if [ "${ZCS_ICOUNT_CLOCK:-gtimer}" = ttc ]; then
		fdtput -r "$dtb" "$mpcore/timer@f8f00200" || die "fdtput -r of the global timer"
	else
		for node in timer@f8001000 timer@f8002000; do
			fdtput -r "$dtb" "$mpcore/$node" || die "fdtput -r of $node"
		done
		fdtput -t s "$dtb" "$mpcore/timer@f8f00600" always-on "" || die "fdtput of the TWD's always-on"
	fi
	QEMU_AUDIO_DRV=none timeout 14400 ip netns exec "$ns" "${ZCS_ICOUNT_QEMU:-qemu-system-arm}" \
		-M xilinx-zynq-a9 -m 1024 -icount "shift=0,sleep=${ZCS_ICOUNT_SLEEP:-on}" -smp 1 \
		-kernel "$zynq_dir/zImage" -dtb "$dtb" -initrd "$2" \
		-append "console=ttyPS0,115200 quiet panic=-1 cryptomgr.notests=1 ${ZCS_ICOUNT_APPEND-init_on_alloc=0}" \
		-display none -monitor "${ZCS_ICOUNT_MONITOR:-none}" -no-reboot \
		-serial "file:$dir/report.txt" -serial "file:$dir/console.log" \
		-nic "tap,ifname=tap0,script=no,downscript=no,model=cadence_gem,mac=52:54:00:00:90:02" &
	kernels_qemu=$!
	pids+=("$kernels_qemu")
}

# Ends the Zynq guest: qemu (timeout's child) by SIGKILL, as a qemu stuck in a livelock (its TTC
# model, zynq_boot) answers no SIGTERM
zynq_stop() {
	local q
	for q in $(ps -o pid= --ppid "$kernels_qemu" 2>/dev/null); do kill -KILL "$q" 2>/dev/null; done
}

# The host's end of the TCP anchor: a sink on 198.18.90.1:5201 for the whole boot
tcp_sink() {
	ip netns exec "$ns" python3 -c '
import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("198.18.90.1", 5201))
s.listen(4)
while True:
    c, _ = s.accept()
    while c.recv(1 << 20):
        pass
    c.close()
' &
	pids+=("$!")
}

# Boots kernel KV and serves its guest: iio_readdev for the iiod cells, the packet counts of the
# others; the guest's report in DIR/report.txt, the host's facts in DIR/host.txt.
run_kernel() { # KV SUITE DIR
	local kv=$1 suite=$2 dir=$3 seen=0 line n0 n1 bytes
	rm -rf "$dir"
	mkdir -p "$dir"
	cells "$kv" >"$work/cells.txt"
	[ "${ZCS_ICOUNT_PROFILE:-0}" = 1 ] && profile_cells "$work/cells.txt" && profile_files
	kernels_make_initramfs "$suite" "$work/$suite.gz" tests/bench/bench_board_icount_guest.sh \
		.ci/kernels/guest_lib.sh tests/board/fakeboard.sh "$work/cells.txt" "$work/icount.conf" \
		"$work/key" "${profile_files[@]}"
	: >"$dir/report.txt"
	: >"$dir/host.txt"
	echo "bench_board_icount: $kv: $(grep -c ' [0-9]*:[0-9]* \(zcs\|iiod\|floor\)' "$work/cells.txt") runs of $N and $N2 pairs" \
		"(iiod and the supply $IN and $IN2) at $RATE pairs/s, blocks of $BLOCK"
	if [ "$machine" = zynq ]; then
		zynq_boot "$dir" "$work/$suite.gz"
	else
		# eth0 without TSO (the board's macb has scatter-gather and checksum offload, no TSO):
		# iiod's TCP then leaves in MSS segments that the guest's kernel cuts, as the board's does
		kernels_nic0=,gso=off,host_tso4=off,host_tso6=off,host_ecn=off,host_ufo=off \
			kernels_boot_wait=0 KERNELS_TIMEOUT=14400 kernels_boot "$suite" "$dir" "$work/$suite.gz" \
			-icount shift=0,sleep=on -smp 1 -object rng-random,id=rng0,filename=/dev/urandom \
			-device virtio-rng-device,rng=rng0
	fi
	n0=$(got)
	last=$(date +%s)
	while kill -0 "$kernels_qemu" 2>/dev/null; do
		mapfile -t lines < <(tail -n +$((seen + 1)) "$dir/report.txt" | tr -d '\r')
		# qemu on the Zynq machine may livelock (zynq_boot): a guest silent for
		# ZCS_ICOUNT_STALL s (default 300; no cell takes a minute) is ended, its cells so far kept
		if [ "$machine" = zynq ] && [ $(($(date +%s) - last)) -gt "${ZCS_ICOUNT_STALL:-300}" ]; then
			echo "bench_board_icount: $kv: the guest said nothing for ${ZCS_ICOUNT_STALL:-300} s" \
				"(qemu livelocked?): ended after $seen lines"
			zynq_stop
		fi
		for line in "${lines[@]}"; do
			# a line still being written waits for the next round
			[[ $line == @* ]] || break
			seen=$((seen + 1))
			last=$(date +%s)
			case $line in
			@iiod\ *)
				# until iiod listens: a refused connection reads nothing
				# (the host's load and the client's own wall time beside it: the host runs in real
				# time against the guest's instruction clock)
				load=$(cut -d' ' -f1 /proc/loadavg)
				rt0=$(date +%s%N)
				# (@iiod NAME RUN:PAIRS [ADDRESS]: iiod on the NIC without offload, vexpress's eth1)
				set -- $line
				for _ in $(seq 300); do
					bytes=$(ip netns exec "$ns" iio_readdev -u "ip:${4:-198.18.90.2}" -b "$BLOCK" -s "${3#*:}" \
						cf-ad9361-lpc voltage0 voltage1 2>"$dir/readdev.log" | wc -c)
					[ "$bytes" -gt 0 ] && break
					sleep 1
				done
				echo "$2 $3 readdev_pairs=$((bytes / 4)) host_load=$load" \
					"host_s=$(awk -v a="$rt0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')" >>"$dir/host.txt"
				for _ in $(seq 100); do
					ip netns exec "$ns" bash -c "exec 3<>/dev/tcp/${4:-198.18.90.2}/5100" 2>/dev/null && break
					sleep 0.2
				done
				;;
			@cell\ *)
				n1=$(got)
				set -- ${line#@cell }
				echo "$1 $2 got=$((n1 - n0))" >>"$dir/host.txt"
				n0=$n1
				echo "  $kv: $(cut -c1-150 <<<"${line#@cell }")"
				;;
			@done)
				echo "bench_board_icount: $kv: done"
				# the Zynq machine cannot power off: its guest ends here
				[ "$machine" = zynq ] && zynq_stop
				;;
			@error*) echo "bench_board_icount: $kv: $line" ;;
			esac
		done
		sleep 0.2
	done
	wait "$kernels_qemu" 2>/dev/null
	grep -q '^@done' "$dir/report.txt" || {
		echo "bench_board_icount: the $kv guest did not finish; its console:"
		tail -n 30 "$dir/console.log"
	}
}

[ "$ANCHORS" = 1 ] && tcp_sink
for kv in "${kernels[@]}"; do
	case $kv in 6.1) suite=bookworm ;; 5.10) suite=bullseye ;; *) die "kernel $kv: 6.1 or 5.10" ;; esac
	run_kernel "$kv" "$suite" "$outdir/$kv"
done
/usr/bin/python3 tests/bench/bench_board_icount_table.py "${kernels[@]/#/$outdir/}" |
	tee "$outdir/tables.md"
if [ "${ZCS_ICOUNT_PROFILE:-0}" = 1 ]; then
	for kv in "${kernels[@]}"; do profile_tables "$outdir/$kv"; done
fi
