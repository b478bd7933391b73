#!/bin/bash
# SPDX-License-Identifier: MIT
# A NIC without checksum offload (the Pluto's USB gadget Ethernet), modelled by a veth pair with
# `ethtool -K tx off` between two network namespaces: zcs-send must know it before its first send
# (auto says "no checksum offload on veth0: GSO off" and takes plain); each forced GSO path either
# works (Linux >= 6.10 checksums GSO in software) or fails with EIO and demotes to plain without
# losing a datagram (older kernels; the ARM-kernel leg .ci/kernels.sh meets that case).  Either
# way zcs-recv's output is byte-exact from sample 0, and every demotion's cost is counted on both
# sides: the receiver's lost datagrams equal the sender's dropped ones, nothing is discarded for
# want of metadata (pre_meta 0), nobody joined late.  On plain (auto's choice) the IPv4 datagrams
# leave with UDP checksum 0 (SO_NO_CHECK: the kernel would sum every byte in software), counted
# on arrival by nftables; with the offload switched on again, none does (there the NIC checksums
# for free, and the Zynq GEM's driver would compute each frame's FCS in software instead).
# Usage: test_nocsum.sh ZCS-SEND ZCS-RECV ZCS-TONE-EXPECT PORT
set -u
SEND=$1 RECV=$2 EXPECT=$3 PORT=$4
NS=zcs-nocsum-$$
TX=$NS-tx RX=$NS-rx
DIR=$(mktemp -d)
RPID=
# gone PID: PID ended by SIGKILL if need be, waited for at most 5 s (a process stuck in the
# kernel does not die until its call returns: it is left behind, and the test goes on)
gone() {
	kill -9 "$1" 2>/dev/null
	for _ in $(seq 100); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	kill -0 "$1" 2>/dev/null && { echo "  | pid $1 survives SIGKILL: left behind"; return; }
	wait "$1" 2>/dev/null
}
cleanup() {
	[ -n "$RPID" ] && gone "$RPID"
	ip netns del "$TX" 2>/dev/null
	ip netns del "$RX" 2>/dev/null
	rm -rf "$DIR"
}
trap cleanup EXIT
FAILS=0
fail() {
	echo "FAIL: $*"
	FAILS=$((FAILS + 1))
}
die() {
	echo "FAIL: $*"
	exit 1
}

ip netns add "$TX" && ip netns add "$RX" &&
	ip link add veth0 netns "$TX" type veth peer name veth0 netns "$RX" &&
	ip -n "$TX" addr add 198.18.78.1/24 dev veth0 && ip -n "$RX" addr add 198.18.78.2/24 dev veth0 &&
	ip -n "$TX" link set veth0 up && ip -n "$RX" link set veth0 up || die "namespace set-up"
ip netns exec "$TX" ethtool -K veth0 tx off >/dev/null || die "ethtool -K veth0 tx off"
ip netns exec "$TX" ethtool -k veth0 | grep -q '^tx-checksumming: off' ||
	die "tx checksumming still on: $(ip netns exec "$TX" ethtool -k veth0 | grep tx-check)"
# every datagram to the receiver's port, and those with UDP checksum 0, as they arrive
ip netns exec "$RX" nft -f - <<EOF || die "nft"
table inet zcsnocsum {
	counter zero { }
	counter every { }
	chain in {
		type filter hook input priority 0; policy accept;
		udp dport $PORT udp checksum 0 counter name "zero"
		udp dport $PORT counter name "every"
	}
}
EOF
# counted PACKETS of counter zero or every so far
counted() {
	ip netns exec "$RX" nft list counter inet zcsnocsum "$1" | sed -nE 's/.*packets ([0-9]+).*/\1/p'
}

RATE=2000000 TONE=123456 AMP=0.7 SEED=5 N=400000

# json FILE KEY: KEY of the JSON summary line in FILE (both programs write it with their news)
json() {
	/usr/bin/python3 -c '
import json, sys
s = None
for line in open(sys.argv[1], errors="replace"):
    if line.startswith("{") and "\"summary\"" in line:
        s = json.loads(line)
print(s.get(sys.argv[2], "missing") if s else "no-summary")' "$1" "$2"
}

# where PID: what a process that should have moved is doing, from /proc (a log's evidence)
where() {
	local t
	echo "  | pid $1: $(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)"
	for t in /proc/"$1"/task/*; do
		echo "  | task ${t##*/} ($(cat "$t/comm" 2>/dev/null)):" \
			"$(grep '^State' "$t/status" 2>/dev/null | tr -s '\t ' ' '), in $(cat "$t/wchan" 2>/dev/null)"
		sed 's/^/  |   /' "$t/stack" 2>/dev/null
	done
}

# start_recv OUT LOG: zcs-recv in the receiver's namespace, its pid in RPID once its start-up line
# is out.  nsenter joins the network namespace alone: the receiver needs no sysfs of its own, so
# none of `ip netns exec`'s mounts stands between the shell and zcs-recv.  Its stdout goes nowhere
# (it writes the file): a receiver left behind must not hold the test's output open.  Up to 30 s
# on a loaded machine; if it never started, where it stands is printed and it is ended.
start_recv() {
	nsenter --net="/run/netns/$RX" -- "$RECV" --json -F cs16 -o "file:$1" --exit-on-eos \
		"198.18.78.2:$PORT" >/dev/null 2>"$2" &
	RPID=$!
	for _ in $(seq 600); do
		grep -q 'listening on' "$2" && return 0
		kill -0 "$RPID" 2>/dev/null || break
		sleep 0.05
	done
	grep -q 'listening on' "$2" && return 0
	sed 's/^/  | /' "$2"
	if kill -0 "$RPID" 2>/dev/null; then
		where "$RPID"
		gone "$RPID"
	else
		wait "$RPID"
		echo "  | it exited $?"
	fi
	RPID=
	return 1
}

# one PATH FORMAT: one stream, every check
one() {
	local path=$1 fmt=$2 out=$DIR/out.$1.$2 rlog=$DIR/recv.$1.$2 slog=$DIR/send.$1.$2
	local fails0=$FAILS zero0 all0 zero all
	zero0=$(counted zero) all0=$(counted every)
	start_recv "$out" "$rlog" || { fail "$path $fmt: zcs-recv did not start"; return; }
	ip netns exec "$TX" "$SEND" --json -q --cpus none -s tone -f "$fmt" -r "$RATE" \
		--tone "$TONE" --amplitude "$AMP" --seed "$SEED" -n "$N" --send-path "$path" \
		"198.18.78.2:$PORT" >"$slog" 2>&1 || fail "$path $fmt: zcs-send exited $?"
	# the end-of-stream datagram ends the receiver; generous, as a loaded machine is slow
	for _ in $(seq 600); do
		kill -0 "$RPID" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$RPID" 2>/dev/null; then
		fail "$path $fmt: zcs-recv did not end at the end of stream"
		where "$RPID"
		gone "$RPID"
	else
		wait "$RPID" || fail "$path $fmt: zcs-recv exited $?"
	fi
	RPID=
	local want
	case $OFFLOAD:$path in
	off:auto) want="send path: plain (no checksum offload on veth0: GSO off)" ;;
	off:plain) want="send path: plain (" ;;
	off:*) want="send path: $path (as asked; no checksum offload on veth0" ;;
	on:auto) want="send path: " ;;
	on:*) want="send path: $path (as asked)" ;;
	esac
	grep -qF "$want" "$slog" || fail "$path $fmt: no start-up line \"$want...\""
	local dem err drop lost pre late samples
	dem=$(json "$slog" demotions) err=$(json "$slog" send_errors)
	drop=$(json "$slog" dropped_datagrams)
	lost=$(json "$rlog" lost) pre=$(json "$rlog" pre_meta) late=$(json "$rlog" late_joins)
	samples=$(json "$rlog" samples)
	if [ "$dem" != 0 ]; then
		# only a GSO path demotes here, to plain, for want of checksum offload
		grep -q "send path: $path failed (Input/output error), now plain" "$slog" ||
			fail "$path $fmt: demoted $dem times, but not from $path to plain on EIO"
	fi
	case $path in auto | plain) [ "$dem" = 0 ] || fail "$path $fmt: $dem demotions on plain" ;; esac
	[ "$drop" = 0 ] || fail "$path $fmt: the sender dropped $drop datagrams"
	[ "$lost" = "$drop" ] || fail "$path $fmt: receiver lost $lost datagrams, sender dropped $drop"
	[ "$pre" = 0 ] || fail "$path $fmt: $pre datagrams discarded before the metadata"
	[ "$late" = 0 ] || fail "$path $fmt: the receiver joined late ($late)"
	[ "$samples" = "$N" ] || fail "$path $fmt: $samples samples out, want $N"
	zero=$(($(counted zero) - zero0)) all=$(($(counted every) - all0))
	[ "$all" -gt 0 ] || fail "$path $fmt: nftables counted no datagram"
	case $OFFLOAD:$path in
	off:auto | off:plain)
		[ "$zero" = "$all" ] || fail "$path $fmt: $zero of $all datagrams with UDP checksum 0, want all"
		grep -qF "UDP checksum 0 (IPv4, no checksum offload on veth0)" "$slog" ||
			fail "$path $fmt: no line \"UDP checksum 0 ...\""
		;;
	on:*) [ "$zero" = 0 ] || fail "$path $fmt: $zero of $all datagrams with UDP checksum 0 on a NIC that checksums" ;;
	esac
	if ! cmp -s "$out" <("$EXPECT" "$RATE" "$TONE" "$AMP" "$SEED" 0 "$fmt" cs16 0 "$N"); then
		fail "$path $fmt: output differs from the tone from sample 0 ($(stat -c %s "$out") bytes)"
	fi
	if [ "$FAILS" -ne "$fails0" ]; then
		sed 's/^/  | /' "$slog" "$rlog"
		return
	fi
	echo "ok: offload $OFFLOAD, $path $fmt: $(grep -m1 'send path:' "$slog"); demotions $dem," \
		"send errors $err, dropped $drop; receiver: $samples samples exact from sample 0, lost $lost," \
		"pre_meta $pre; UDP checksum 0 in $zero of $all datagrams"
	rm -f "$out"
}

OFFLOAD=off
for fmt in p12 i8 i16; do
	one auto "$fmt"
done
for path in plain gso msg-zc uring-zc; do
	one "$path" p12
done
# the same link with the offload on: checksums as usual, on plain too
ip netns exec "$TX" ethtool -K veth0 tx on >/dev/null || die "ethtool -K veth0 tx on"
OFFLOAD=on
one auto p12
one plain p12
[ "$FAILS" -eq 0 ] || { echo "$FAILS failures"; exit 1; }
echo "all streams exact from the first sample"
