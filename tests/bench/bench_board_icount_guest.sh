#!/bin/bash
# SPDX-License-Identifier: MIT
# Inside the ARM guest that bench_board_icount.sh boots under qemu-system-arm -icount shift=0:
# there the guest's clock advances 1 ns per executed instruction while it runs, so CPU time is an
# instruction count.  Runs each cell of /zcs/cells.txt on the emulated board and reports it on
# the second serial port, one line per cell, for the host to tabulate:
#   @kernel RELEASE | @iiod NAME REP (the host reads from iiod now, then connects to port 5100) |
#   @cell NAME REP key=value... | @log NAME LINE | @done
# Per cell: the program's own CPU (user + system, all threads: the rusage of bench_send_tool cpu),
# the whole system's busy time over the cell (every task's run time, /proc/schedstat), the
# feeder's CPU (the emulated ADC, never charged to anyone), the ticks /proc/stat gave to irq and
# softirq, the idle time as the nohz code keeps it, and the network's and the scheduler's event
# counts (net_snap; for iiod its context switches and read/write calls too).
set -u
export PATH=/zcs:/bin:/sbin
# RATE (pairs/s, the feeder's pace and zcs-send's -r), BLOCK (pairs a libiio block: zcs-send's
# 1/20 s), CHUNK (pairs a feeder write: 5 ms of samples), MACHINE (vexpress or zynq); a cell's
# REP is RUN:PAIRS
. /zcs/icount.conf
# the report's serial port: vexpress's second PL011, the Zynq's uart0 (ttyPS1 by the device tree)
out=/dev/ttyAMA1
[ "${MACHINE:-vexpress}" = zynq ] && out=/dev/ttyPS1
say() { printf '%s\n' "$*" >"$out"; }

say "@kernel $(uname -r)"
say "@log schedstat $(head -n 3 /proc/schedstat 2>&1 | tr '\n' '|')"
# shellcheck source=../../.ci/kernels/guest_lib.sh
. /zcs/guest_lib.sh
# The Zynq's one NIC, its GEM (macb): eth0 with checksum offload; the cells of a NIC without it
# (eth0-nocsum) switch the offload off around them (offload_off/offload_on)
zynq_nics() {
	ip link set lo up
	ip addr add 198.18.90.2/24 dev eth0 && ip link set eth0 up || say "@error eth0 set-up"
	local i
	# the PHY's link comes up after autonegotiation: wait for the first answer
	for i in 1 2 3 4 5 6 7 8 9 10; do
		ping -c 1 -W 2 198.18.90.1 >/dev/null 2>&1 && break
	done
	ping -c 1 -W 10 198.18.90.1 >/dev/null 2>&1 || say "@error no answer from 198.18.90.1"
	say "@log eth0: $(ethtool -i eth0 2>&1 | tr '\n' ' ')"
	say "@log eth0 offloads: $(ethtool -k eth0 2>&1 | grep -E '^(tx-checksumming|scatter-gather|generic-segmentation|tcp-segmentation)' | tr '\n\t' '  ')"
}
offload_off() {
	ethtool -K eth0 tx off >/dev/null 2>&1 || say "@error ethtool -K eth0 tx off"
	say "@log $1: eth0 $(ethtool -k eth0 | grep '^tx-checksumming')"
}
# the offload back, checked: a cell after it without the offload would count another path (UDP
# GSO needs it: zcs-send leaves gso for plain on EIO)
offload_on() {
	local k
	ethtool -K eth0 tx on >/dev/null 2>&1 || say "@error ethtool -K eth0 tx on"
	k=$(ethtool -k eth0 2>&1 | grep -E '^(tx-checksumming|scatter-gather):')
	[ "$(grep -c ': on' <<<"$k")" = 2 ] ||
		say "@error eth0's offloads not back: $(tr '\n\t' '  ' <<<"$k")"
}
if [ "${MACHINE:-vexpress}" = zynq ]; then
	zynq_nics
else
	guest_nics
fi
guest_board
fb_attr "$FB_PHY/in_voltage_sampling_frequency" "$RATE"
fb_attr "$FB_LPC/in_voltage_sampling_frequency" "$RATE"

# The whole system's busy time in ns: /proc/schedstat's rq_cpu_time of every CPU, the scheduler's
# sum of the run time of every task but the idle task (the 7th number of a cpu line).  Exact, in
# the guest's clock: every task's instructions, the irq and softirq work that ran on top of a
# task; not the irq work that ran on top of idle.  A task's current stretch enters it when the
# task is switched out: the script reading it is the one running, on both sides of a cell.
# Sums are printed with %.0f: busybox awk's %d stops at 2^31 - 1 (2.1 s of ns), which is what
# made the idle time below look as if it stopped growing in earlier runs.
busy_ns() {
	awk '$1 ~ /^cpu[0-9]/ { s += $8 } END { printf "%.0f", s }' /proc/schedstat 2>/dev/null
}
# The run time of every task alive now, summed (each thread's /proc/PID/task/TID/schedstat, the
# scheduler's exact figure, in ns): kernel threads (ksoftirqd, kworkers), the feeder, this
# script.  Over a cell, its difference plus the rusage of the cell's program (which exits inside
# the window) is the system's busy time but for the irq work on top of idle and the script's
# short-lived helpers (the same in every cell, so cancelled by the two sample counts): a second
# reading of busy_ns, by other bookkeeping.
tasks_ns() {
	local t a s=0
	for t in /proc/[0-9]*/task/*/schedstat; do
		read -r a _ 2>/dev/null <"$t" && s=$((s + a))
	done
	echo "$s"
}
# /proc/stat's idle of the cpu line in USER_HZ ticks (too coarse for a cell's figure: shown beside it)
stat_idle() { awk '$1 == "cpu" { print $5 + $6 }' /proc/stat; }
# The idle task's time in ns: /proc/timer_list's idle_sleeptime + iowait_sleeptime (the nohz
# idle code's, in ns; the kernel files an idle stretch under iowait while a task of the CPU sleeps
# in io_schedule()), else /proc/uptime's idle (10 ms steps); an idle stretch still open at the
# reading is not in it (the reader runs, so there is none on one CPU).  Beside busy_ns, as a check.
idle_ns() {
	local v
	v=$(awk '/idle_sleeptime|iowait_sleeptime/ { s += $(NF - 1); n++ } END { if (n) printf "%.0f", s }' \
		/proc/timer_list 2>/dev/null)
	[ -n "$v" ] || v=$(awk '{ printf "%.0f", $2 * 1e9 }' /proc/uptime)
	echo "$v"
}
# the iowait part alone, to show where the idle time was filed
iowait_ns() {
	awk '/iowait_sleeptime/ { sub(/.*: */, ""); s += $1 } END { printf "%.0f", s }' /proc/timer_list 2>/dev/null
}
# tasks in uninterruptible sleep now (procs_blocked) and their names
blocked() {
	local p st c list=
	for p in /proc/[0-9]*; do
		read -r _ _ st _ <"$p/stat" 2>/dev/null || continue
		[ "$st" = D ] || continue
		read -r c <"$p/comm" 2>/dev/null
		list=$list${list:+,}$c
	done
	echo "$(awk '/^procs_blocked/ { print $2 }' /proc/stat):${list:--}"
}
now_ns() { local t=$EPOCHREALTIME; echo "$((${t%.*} * 1000000000 + 10#${t#*.} * 1000))"; }
# irq and softirq of /proc/stat's cpu line (USER_HZ ticks; tick-sampled on these kernels)
irq_ticks() { awk '$1 == "cpu" { print $7, $8 }' /proc/stat; }
# the CPU ns of a live process, all its threads (schedstat: the scheduler's exact run time)
proc_ns() {
	local s=0 f a
	for f in /proc/"$1"/task/*/schedstat; do
		read -r a _ <"$f" 2>/dev/null && s=$((s + a))
	done
	echo "$s"
}
pid_of() { # COMM: the first process of that name
	local p c
	for p in /proc/[0-9]*; do
		read -r c <"$p/comm" 2>/dev/null || continue
		[ "$c" = "$1" ] && { echo "${p#/proc/}"; return 0; }
	done
	return 1
}
feeder=
feed_start() {
	# a feeder afresh for each cell (pair 0 is k 0); paced like the DMA, and a reader more than
	# 2 s behind loses samples: the "overrun" the host reports, which must stay 0
	feed_iq --rate "$RATE" --chunk "$CHUNK" --overrun-ms 2000 "$FB_LPC" /dev/iio:device1 \
		2>/tmp/feed.log &
	feeder=$!
}
feed_stop() { # -> overrun (pairs)
	kill "$feeder" 2>/dev/null
	wait "$feeder" 2>/dev/null
	feeder=
	overrun=$(awk '/overrun, dropped/ { s += $5 } END { print s + 0 }' /tmp/feed.log)
}
# The network's and the scheduler's event counts, "KEY VALUE" lines: IP datagrams and TCP segments
# in and out (/proc/net/snmp), TCP's delayed and pure ACKs (/proc/net/netstat), eth0's packets
# (/proc/net/dev), the NICs' interrupts (the virtio lines of /proc/interrupts: no sysfs here to
# tell which is which; only eth0 carries a cell's traffic, eth1 only the plain cells'), the
# NET_RX/NET_TX softirqs and the system's context switches.  What a server's cost per sample
# follows when it is not a constant of its own work (iiod's TCP: docs/measurements.md).
net_snap() {
	awk '
	FILENAME == "/proc/net/snmp" || FILENAME == "/proc/net/netstat" {
		if (!($1 in hdr)) { for (i = 2; i <= NF; i++) hdr[$1, i] = $i; hdr[$1] = 1; next }
		for (i = 2; i <= NF; i++) {
			k = hdr[$1, i]
			if (($1 == "Ip:" && (k == "InReceives" || k == "OutRequests")) ||
			    ($1 == "Tcp:" && (k == "InSegs" || k == "OutSegs" || k == "RetransSegs")) ||
			    ($1 == "TcpExt:" && (k == "DelayedACKs" || k == "TCPPureAcks" || k == "TCPHPAcks" ||
			     k == "TCPBacklogCoalesce" || k == "TCPAutoCorking")))
				print substr($1, 1, length($1) - 1) "_" k, $i
		}
		next
	}
	FILENAME == "/proc/net/dev" {
		# "eth0:" and a large first count may run together
		l = $0; sub(/:/, " ", l); split(l, f, " ")
		if (f[1] == "eth0") { print "eth0_rx_packets", f[3]; print "eth0_tx_packets", f[11] }
		next
	}
	FILENAME == "/proc/interrupts" && $NF ~ /^virtio[0-9]/ { irq += $2; next }
	FILENAME == "/proc/softirqs" && ($1 == "NET_RX:" || $1 == "NET_TX:") { print ($1 == "NET_RX:" ? "net_rx" : "net_tx"), $2; next }
	FILENAME == "/proc/stat" && $1 == "ctxt" { print "ctxt", $2 }
	END { print "virtio_irqs", irq + 0 }
	' /proc/net/snmp /proc/net/netstat /proc/net/dev /proc/interrupts /proc/softirqs /proc/stat 2>/dev/null
}
# KEY=delta of two net_snap files
net_delta() { awk 'NR == FNR { a[$1] = $2; next } ($1 in a) { printf "%s%s=%.0f", s, $1, $2 - a[$1]; s = " " }' "$1" "$2"; }

# The cell's window: the feeder's CPU within it is taken out of the system's busy time.
window_open() {
	net_snap >/tmp/net0
	fns0=0
	[ -z "$feeder" ] || fns0=$(proc_ns "$feeder")
	read -r irq0 si0 <<<"$(irq_ticks)"
	idle0=$(idle_ns)
	iow0=$(iowait_ns)
	sidle0=$(stat_idle)
	busy0=$(busy_ns)
	tasks0=$(tasks_ns)
	t0=$(now_ns)
}
window_close() {
	t1=$(now_ns)
	tasks1=$(tasks_ns)
	busy1=$(busy_ns)
	sidle1=$(stat_idle)
	idle1=$(idle_ns)
	iow1=$(iowait_ns)
	feeder_ns=0
	[ -z "$feeder" ] || feeder_ns=$(($(proc_ns "$feeder") - fns0))
	read -r irq1 si1 <<<"$(irq_ticks)"
	net_snap >/tmp/net1
	net=$(net_delta /tmp/net0 /tmp/net1)
}
# Every task's CPU ns (schedstat) as "NS PID COMM" lines, threads summed per task
task_ns() {
	local p t a c s
	for p in /proc/[0-9]*; do
		s=0
		for t in "$p"/task/*/schedstat; do
			read -r a _ 2>/dev/null <"$t" && s=$((s + a))
		done
		read -r c <"$p/comm" 2>/dev/null
		echo "$s ${p#/proc/} $c"
	done
}
# The guest after a cell, over a pause of 1 s: how much of it was idle (quiet_ns of 1e9 wall),
# and, when some task ran, the busiest one.  Between cells nothing should run; a task that did
# would be charged to the next cell's system figure.
pause() {
	local i0 w0 b
	task_ns >/tmp/tasks0
	cat /proc/interrupts >/tmp/irq0
	cat /proc/softirqs >/tmp/si0
	i0=$(idle_ns)
	b0=$(busy_ns)
	w0=$(now_ns)
	sleep 1
	quiet=$(($(idle_ns) - i0))
	pause_busy=$(($(busy_ns) - b0))
	pause_wall=$(($(now_ns) - w0))
	task_ns >/tmp/tasks1
	cat /proc/interrupts >/tmp/irq1
	cat /proc/softirqs >/tmp/si1
	# the interrupt line and the softirq that fired most in the pause
	irqs=$(awk 'NR == FNR { a[$1] = $2; next } ($1 in a) && $2 - a[$1] > m { m = $2 - a[$1]; n = $1 $NF }
		END { printf "%s%d", n ? n "=" : "-", m }' /tmp/irq0 /tmp/irq1)
	softirqs=$(awk 'NR == FNR { a[$1] = $2; next } ($1 in a) && $2 - a[$1] > m { m = $2 - a[$1]; n = $1 }
		END { printf "%s%d", n ? n "=" : "-", m }' /tmp/si0 /tmp/si1)
	busiest=$(awk 'NR == FNR { a[$2] = $1; next }
		($2 in a) && $1 - a[$2] > 0 { print $1 - a[$2], $3 "/" $2 }' /tmp/tasks0 /tmp/tasks1 |
		sort -rn | head -n 3 | awk '{ printf "%s%s:%s", (NR > 1 ? "," : ""), $2, $1 }')
	# the nohz idle code's counters, and /proc/stat's user/system/idle/iowait ticks: its idle
	# adds the stretch still open, which the sleeptimes alone miss
	tl=$(awk '/idle_calls|idle_sleeps|tick_stopped/ { gsub(/ /, ""); printf "%s,", $0 }' /proc/timer_list)
	st=$(awk '$1 == "cpu" { print $2 "/" $4 "/" $5 "/" $6 }' /proc/stat)
}
# A resident iiod (cells of kind iiodr): started once, before every cell, and measured by its own
# CPU clock over each client's transfer.  Debian's iiod (0.24) keeps a thread retrying to register
# with avahi (no D-Bus here; the board has one), 1, 2, ... 10 s apart for 55 s of the guest's
# clock, each attempt some hundreds of thousands of instructions: an iiod started per cell pays
# as many attempts as its life spans, which the host's real-time latencies decide.  The cells
# wait until that thread has given up (iiod down to its one listening thread).
iiod_pid=
iiod_resident() {
	local t=0 c=0 c1 steps= n quiet=0
	iiod >/tmp/iiod.log 2>&1 &
	iiod_pid=$!
	# done when one thread is left, or after 12 s without a step of 10 000 instructions (the
	# attempts are at most 10 s apart)
	while [ $t -lt 90 ] && [ $quiet -lt 12 ]; do
		sleep 1
		t=$((t + 1))
		n=$(ls "/proc/$iiod_pid/task" 2>/dev/null | wc -l)
		c1=$(bench_send_tool pcpu "$iiod_pid" 2>/dev/null || echo 0)
		steps="$steps $((c1 - c))"
		[ $((c1 - c)) -lt 10000 ] && quiet=$((quiet + 1)) || quiet=0
		c=$c1
		[ "$n" -le 1 ] && break
	done
	say "@log iiod resident (pid $iiod_pid): $n thread(s) after $t s; its CPU ns in each second:$steps"
	kill -0 "$iiod_pid" 2>/dev/null || say "@error the resident iiod died: $(tail -n 3 /tmp/iiod.log | tr '\n' ' ')"
}
# whole-process read and write calls of PID (/proc/PID/io: threads that exited are in it)
io_calls() { awk '/^sysc[rw]:/ { printf "%s ", $2 }' "/proc/$1/io" 2>/dev/null; }
cpu_of() { sed -n 's/^cpu_s=\([0-9.]*\).*status=\([-0-9]*\).*/\1 \2/p' "$1"; }
# the program's user time and context switches (bench_send_tool's user_s=... vcsw=... ivcsw=...)
csw_of() { sed -n 's/.* \(user_s=[0-9.]*\) \(vcsw=[0-9]* ivcsw=[0-9]*\).*/\1 \2/p' "$1"; }

grep -q ' iiodr ' /zcs/cells.txt && iiod_resident

# the profile mode (ZCS_ICOUNT_PROFILE=1) brackets the cells' windows with its sampler
# shellcheck source=bench_board_icount_profile_guest.sh
[ -f /zcs/bench_board_icount_profile_guest.sh ] && . /zcs/bench_board_icount_profile_guest.sh
while read -r name rep kind nic args; do
	case $name in '#'* | '') continue ;; esac
	case $nic in eth1) dest=198.18.91.1 ;; *) dest=198.18.90.1 ;; esac
	N=${rep#*:}
	[ "$nic" = eth0-nocsum ] && offload_off "$name"
	# shellcheck disable=SC2206  # the cell's arguments are words
	argv=($args)
	json= feeder_ns=0 overrun=0 rc=0 io=
	: >/tmp/cpu.out
	: >/tmp/prog.log
	case $kind in
	loop)
		window_open
		bench_icount_loop "${argv[@]}" >/tmp/cpu.out 2>/tmp/prog.log
		rc=$?
		window_close
		read -r _ instr cpu_ns <<<"$(sed -n 's/iterations=\([0-9]*\) instructions=\([0-9]*\) cpu_ns=\([0-9]*\)/\1 \2 \3/p' /tmp/cpu.out)"
		say "@cell $name $rep rc=$rc instructions=${instr:-0} cpu_ns=${cpu_ns:-0} wall_ns=$((t1 - t0))" \
			"busy_ns=$((busy1 - busy0)) tasks_ns=$((tasks1 - tasks0)) stat_idle_ticks=$((sidle1 - sidle0)) idle_ns=$((idle1 - idle0)) iowait_ns=$((iow1 - iow0)) feeder_ns=0 irq_ticks=$((irq1 - irq0)) softirq_ticks=$((si1 - si0))"
		continue
		;;
	tcp)
		# the calibration's TCP anchor: argv is the byte count (3 a pair)
		window_open
		bench_send_tool cpu bench_send_tool tcp 198.18.90.1 5201 "${argv[0]}" >/tmp/cpu.out 2>/tmp/prog.log
		# what the socket still holds at close goes out after the program (timers, ACKs): inside
		# the window, so the whole system's figure (not idle) holds every byte's sending
		sleep 1
		window_close
		;;
	convert)
		window_open
		bench_send_tool cpu bench_send_tool convert "${argv[0]}" >/tmp/cpu.out 2>/tmp/prog.log
		window_close
		;;
	floor)
		feed_start
		window_open
		bench_send_tool cpu bench_iio_floor local: "$BLOCK" "$N" >/tmp/cpu.out 2>/tmp/prog.log
		window_close
		feed_stop
		;;
	iiod)
		feed_start
		window_open
		bench_send_tool cpu iiod >/tmp/cpu.out 2>/tmp/prog.log &
		w=$!
		# the host's iio_readdev connects as soon as iiod listens and reads N pairs, then
		# connects here: the cell's end (nc runs true on the connection and exits; waiting in
		# accept costs nothing)
		say "@iiod $name $rep"
		nc -l -p 5100 -e /bin/true </dev/null >/dev/null 2>&1
		# iiod is stopped by SIGKILL as in bench_board.sh; the wrapper then reports its rusage
		# its read and write system calls (all threads, the ones gone too), the moment before
		if p=$(pid_of iiod); then
			read -r r1 w1 <<<"$(io_calls "$p")"
			io="syscr=$r1 syscw=$w1 threads=$(ls "/proc/$p/task" | wc -l)"
			kill -KILL "$p"
		fi
		wait "$w"
		window_close
		feed_stop
		;;
	iiodr)
		feed_start
		window_open
		live0=$(proc_ns "$iiod_pid")
		c0=$(bench_send_tool pcpu "$iiod_pid")
		read -r r0 w0 <<<"$(io_calls "$iiod_pid")"
		say "@iiod $name $rep"
		nc -l -p 5100 -e /bin/true </dev/null >/dev/null 2>&1
		# the client has gone: iiod's end of it (its thread's exit) done before the reading
		sleep 0.2
		c1=$(bench_send_tool pcpu "$iiod_pid")
		read -r r1 w1 <<<"$(io_calls "$iiod_pid")"
		live=$(($(proc_ns "$iiod_pid") - live0))
		window_close
		feed_stop
		# the threads alive across the cell are in tasks_ns already: live_ns takes them out of
		# the system figure's sum (tasks plus the program)
		kill -0 "$iiod_pid" 2>/dev/null && st=0 || st=1
		printf 'cpu_s=%s wall_s=0 status=%s\n' "$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.9f", (b - a) / 1e9 }')" \
			"$st" >/tmp/cpu.out
		io="syscr=$((r1 - r0)) syscw=$((w1 - w0)) live_ns=$live threads=$(ls "/proc/$iiod_pid/task" | wc -l)"
		;;
	zcs | zcsbase)
		# zcsbase: the other build's zcs-send (ZCS_ICOUNT_BASE), the same cell
		prog=zcs-send
		[ "$kind" = zcsbase ] && prog=zcs-send-base
		feed_start
		window_open
		# a hung cell ends (SIGINT: zcs-send still writes its summary) after 4 times its span
		bench_send_tool cpu timeout -s INT $((N * 4 / RATE + 60)) \
			"$prog" -s iio -u local: -r "$RATE" -n "$N" --json -q --cpus none \
			"${argv[@]}" "$dest:21000" >/tmp/cpu.out 2>/tmp/prog.log
		window_close
		feed_stop
		json=$(grep -h '^{"type":"summary"' /tmp/cpu.out /tmp/prog.log | tail -n 1)
		;;
	esac
	[ "$nic" = eth0-nocsum ] && offload_on
	read -r cpu_s rc <<<"$(cpu_of /tmp/cpu.out)"
	# what the program said on a failure, or on a send path it left (a cell then counts another)
	if { [ "${rc:-1}" != 0 ] && [ "$kind" != iiod ]; } || [[ $json == *'"demotions":'[1-9]* ]]; then
		while IFS= read -r line; do say "@log $name $line"; done </tmp/prog.log
	fi
	say "@cell $name $rep rc=${rc:-none} cpu_s=${cpu_s:-0} wall_ns=$((t1 - t0)) busy_ns=$((busy1 - busy0))" \
		"tasks_ns=$((tasks1 - tasks0)) stat_idle_ticks=$((sidle1 - sidle0)) idle_ns=$((idle1 - idle0))" \
		"iowait_ns=$((iow1 - iow0)) blocked_after=$(blocked)" \
		"feeder_ns=$feeder_ns overrun=$overrun irq_ticks=$((irq1 - irq0)) softirq_ticks=$((si1 - si0))" \
		"$(csw_of /tmp/cpu.out) $io $net json=$json"
	# a pause the host reads its packet counters in: nothing of this cell is in flight after it
	pause
	say "@pause $name $rep quiet_ns=$quiet busy_ns=$pause_busy wall_ns=$pause_wall busiest=$busiest irqs=$irqs softirqs=$softirqs tl=$tl stat=$st"
done </zcs/cells.txt
say "@done"
