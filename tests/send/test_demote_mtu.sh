#!/bin/bash
# SPDX-License-Identifier: MIT
# Run-time demotion for real: zcs-send in one network namespace streams a paced tone over a veth
# pair to check_stream in another; after STEP samples arrived, the sending device's MTU drops to
# 1000.  A GSO send whose segments exceed the MTU is then refused (EMSGSIZE or EINVAL, by kernel
# version), while one datagram per send still goes out (fragmented).  zcs-send must say so in a
# log line, go on with `plain` (demotions 1) and deliver a stream continuous but for the trains it
# counted as dropped (check_stream checks every datagram and matches the gaps to the summary).
# Usage: test_demote_mtu.sh ZCS-SEND CHECK-STREAM PATH PORT   (PATH: auto, msg-zc or gso)
set -u
SEND=$1 CHECK=$2 PATH_ASKED=$3 PORT=$4
IP=$(command -v ip)
NS=zcs-mtu-$$
TX=$NS-tx RX=$NS-rx
LOG=$(mktemp)
cleanup() {
	ip netns del "$TX" 2>/dev/null
	ip netns del "$RX" 2>/dev/null
	rm -f "$LOG"
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*"
	sed 's/^/  | /' "$LOG"
	exit 1
}

ip netns add "$TX" && ip netns add "$RX" &&
	ip link add veth0 netns "$TX" type veth peer name veth0 netns "$RX" &&
	ip -n "$TX" addr add 198.18.77.1/24 dev veth0 && ip -n "$RX" addr add 198.18.77.2/24 dev veth0 &&
	ip -n "$TX" link set veth0 up && ip -n "$RX" link set veth0 up || fail "namespace set-up"

# 4 MS/s for 0.75 s: the MTU drops a quarter in, mid-stream whichever path runs
RATE=4000000 COUNT=3000000 STEP=700000
case $PATH_ASKED in
auto) FIRST=uring-zc ;;
*) FIRST=$PATH_ASKED ;;
esac
ip netns exec "$RX" "$CHECK" --bind 198.18.77.2 --port "$PORT" --format p12 --source tone \
	--rate "$RATE" --count "$COUNT" --allow-loss --exec-after "$STEP" \
	--exec "$IP -n $TX link set dev veth0 mtu 1000" \
	--expect-final-path plain --expect-demotions 1 -- \
	"$IP" netns exec "$TX" "$SEND" --json -q --cpus none -s tone -r 4M -n "$COUNT" \
	--send-path "$PATH_ASKED" "198.18.77.2:$PORT" >"$LOG" 2>&1 || fail "check_stream"
cat "$LOG"
grep -q "send path: $FIRST" "$LOG" || fail "the start-up line does not name $FIRST"
grep -Eq "send path: $FIRST failed \((Message too long|Invalid argument)\), now plain" "$LOG" ||
	fail "no log line naming the demotion from $FIRST to plain"
echo "ok: $FIRST demoted to plain when the MTU dropped, the stream went on"
