#!/bin/bash
# SPDX-License-Identifier: MIT
# Inside the ARM guest (.ci/kernels.sh boots it; /init runs this with bash-static): brings up the
# two NICs and the emulated board (fakeboard.sh's IIO tree, the armhf feed_iq on a FIFO), runs
# every case of cases.txt for this kernel with the armhf zcs-send, and reports each on the second
# serial port (ttyAMA1), one line per fact, for the host to judge:
#   @kernel RELEASE | @case NAME rc=N | @log NAME LINE | @json NAME {...} |
#   @recvjson NAME {...} | @sha NAME HEX | @done
# Nothing is judged here: the host knows what each kernel must show.
set -u
export PATH=/zcs:/bin:/sbin
out=/dev/ttyAMA1
say() { printf '%s\n' "$*" >"$out"; }
N=200000
TONE=(-r 1000000 --tone 123456 --amplitude 0.7 --seed 5)
COMMON=(--json -q --cpus none -n "$N")

kver=$(uname -r)
say "@kernel $kver"
# shellcheck source=guest_lib.sh
. /zcs/guest_lib.sh
guest_nics
guest_board

i=0
while read -r name kernels check net args; do
	case $name in '#'* | '') continue ;; esac
	i=$((i + 1))
	port=$((25000 + i))
	case $kernels in
	all) ;;
	6.1) case $kver in 6.1.*) ;; *) continue ;; esac ;;
	*) say "@error $name: kernels '$kernels'"; continue ;;
	esac
	case $net in
	eth0) dest=198.18.90.1 ;;
	eth1) dest=198.18.91.1 ;;
	mcast) dest=239.18.90.1 ;;
	lo) dest=127.0.0.1 ;;
	esac
	# shellcheck disable=SC2206  # the case's arguments are words
	argv=($args)
	extra=()
	feeder=
	case $check in
	board:*)
		# a feeder started afresh for each stream: pair 0 is k 0 (check_board's i8 check).
		# Unpaced (no --rate) and so never dropping (no --overrun-ms): it only waits for the
		# reader, which under TCG is far slower than a radio; nothing here times the sender.
		feed_iq "$FB_LPC" /dev/iio:device1 2>/tmp/feed.log &
		feeder=$!
		;;
	*) extra=("${TONE[@]}") ;;
	esac
	rpid=
	if [ "$net" = lo ]; then
		rm -f /tmp/lo.out
		zcs-recv --json -F cs16 -o file:/tmp/lo.out --exit-on-eos "127.0.0.1:$port" \
			2>/tmp/lo.log &
		rpid=$!
		for _ in $(seq 400); do
			grep -q 'listening on' /tmp/lo.log && break
			sleep 0.05
		done
	fi
	zcs-send "${COMMON[@]}" "${extra[@]}" "${argv[@]}" "$dest:$port" >/tmp/send.json \
		2>/tmp/send.log
	rc=$?
	say "@case $name rc=$rc"
	while IFS= read -r line; do say "@log $name $line"; done </tmp/send.log
	say "@json $name $(grep '^{' /tmp/send.json | tail -n 1)"
	if [ -n "$rpid" ]; then
		for _ in $(seq 600); do
			kill -0 "$rpid" 2>/dev/null || break
			sleep 0.05
		done
		kill "$rpid" 2>/dev/null
		wait "$rpid"
		say "@recvjson $name $(grep '^{"type":"summary"' /tmp/lo.log | tail -n 1)"
		say "@sha $name $(sha256sum </tmp/lo.out | cut -d' ' -f1)"
	fi
	if [ -n "$feeder" ]; then
		kill "$feeder" 2>/dev/null
		wait "$feeder" 2>/dev/null
		# the feeder's own account (enables, drains, stalls): what a failed case is read by
		while IFS= read -r line; do say "@log $name $line"; done </tmp/feed.log
	fi
done </zcs/cases.txt
say "@done"
