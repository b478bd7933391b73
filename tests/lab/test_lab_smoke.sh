#!/bin/bash
# SPDX-License-Identifier: MIT
# Lab smoke test: a namespace lab with 3 receivers; one multicast datagram (TTL 1) from the sender
# reaches all three over IPv4 (239.18.0.1) and IPv6 (ff15::18); a source-specific join works; an
# nftables "numgen random mod 100 < 20" drop rule in one receiver counts what it drops, and the
# receiver gets exactly the rest.  usage: test_lab_smoke.sh ZCS-UDPTOOL
set -u
UDPTOOL=$1
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
# shellcheck source=lab.sh
source "$HERE/lab.sh"

TMP=$(mktemp -d /tmp/zcs-lab-smoke.XXXXXX)
lab_on_exit rm -rf "$TMP"
FAILED=0

fail() {
	echo "FAIL: $*" >&2
	FAILED=1
}

wait_ready() {
	local f
	for f in "$@"; do
		for _ in $(seq 200); do
			[ -e "$f" ] && break
			sleep 0.05
		done
		[ -e "$f" ] || { fail "receiver never became ready ($f)"; return 1; }
	done
}

lab_up smoke 3 v6 || { echo "FAIL: lab_up failed" >&2; exit 1; }
echo "lab $LAB up: $(ip netns list | grep -c "^$LAB-") namespaces"

# one multicast datagram to all three receivers
mcast_one() {
	local fam=$1 group=$2 text=$3 i pids=()
	rm -f "$TMP"/*.ready
	for i in 1 2 3; do
		lab_bg "rx$i" "$TMP/rx$i-$fam.out" "$UDPTOOL" recv "$group" --count 1 \
			--timeout-ms 10000 --ready "$TMP/rx$i.ready"
		pids+=("$LAB_BG_PID")
	done
	wait_ready "$TMP/rx1.ready" "$TMP/rx2.ready" "$TMP/rx3.ready" || return
	lab_exec tx "$UDPTOOL" send "$group" --ttl 1 --text "$text" ||
		fail "IPv$fam: send to $group failed"
	for i in 1 2 3; do
		wait "${pids[i - 1]}" || fail "IPv$fam: rx$i got nothing from $group: $(cat "$TMP/rx$i-$fam.out")"
		grep -qx "text $text" "$TMP/rx$i-$fam.out" ||
			fail "IPv$fam: rx$i did not get \"$text\": $(cat "$TMP/rx$i-$fam.out")"
	done
}

mcast_one 4 239.18.0.1:24500 "hello-v4"
mcast_one 6 "[ff15::18]:24501" "hello-v6"

# source-specific join: rx1 asks for the sender as source
rm -f "$TMP"/*.ready
lab_bg rx1 "$TMP/ssm.out" "$UDPTOOL" recv 232.18.0.1:24502 --source "$(lab_addr tx)" \
	--count 1 --timeout-ms 10000 --ready "$TMP/rx1.ready"
pid=$LAB_BG_PID
wait_ready "$TMP/rx1.ready"
lab_exec tx "$UDPTOOL" send 232.18.0.1:24502 --text hello-ssm || fail "SSM send failed"
wait "$pid" && grep -qx "text hello-ssm" "$TMP/ssm.out" || fail "SSM: rx1 got: $(cat "$TMP/ssm.out")"

# nftables random drop in rx1: counters say how many it dropped, the socket gets the rest
N=300
lab_exec rx1 nft -f - <<EOF || fail "nft rules not accepted"
table inet zcslab {
	chain in {
		type filter hook input priority 0; policy accept;
		udp dport 24503 udp length 23 counter comment "total"
		udp dport 24503 udp length 23 numgen random mod 100 < 20 counter drop comment "dropped"
		udp dport 24503 udp length 23 counter comment "passed"
	}
}
EOF
counters() {
	lab_exec rx1 nft -j list table inet zcslab | "$PY" -c '
import json, sys
c = {}
for item in json.load(sys.stdin)["nftables"]:
    r = item.get("rule")
    if r:
        for e in r["expr"]:
            if "counter" in e:
                c[r.get("comment", "?")] = e["counter"]["packets"]
print(c.get("total", -1), c.get("dropped", -1), c.get("passed", -1))'
}
rm -f "$TMP"/*.ready
lab_bg rx1 "$TMP/nft.out" "$UDPTOOL" recv 239.18.0.2:24503 --until END --timeout-ms 10000 \
	--ready "$TMP/rx1.ready"
pid=$LAB_BG_PID
wait_ready "$TMP/rx1.ready"
# 15 bytes of text: UDP length 23, the length the rules match
lab_exec tx "$UDPTOOL" send 239.18.0.2:24503 --text "zcs-nft-payload" --repeat $N ||
	fail "nft: send failed"
# the marker goes only after all N passed rx1's input hook, so it is queued behind them
for _ in $(seq 200); do
	read -r total dropped passed < <(counters)
	[ "$total" = "$N" ] && break
	sleep 0.05
done
lab_exec tx "$UDPTOOL" send 239.18.0.2:24503 --text END || fail "nft: marker send failed"
wait "$pid" || fail "nft: receiver did not see the marker: $(tail -3 "$TMP/nft.out")"
got=$(grep -cx "text zcs-nft-payload" "$TMP/nft.out")
echo "nft: total=$total dropped=$dropped passed=$passed received=$got"
[ "$total" = "$N" ] || fail "nft: the total counter saw $total of $N datagrams"
[ "$((dropped + passed))" = "$total" ] || fail "nft: dropped $dropped + passed $passed != $total"
# 20% of 300: 0 or all would mean the rule does not work (odds below 1e-28)
{ [ "$dropped" -gt 0 ] && [ "$dropped" -lt "$N" ]; } || fail "nft: dropped $dropped of $N"
[ "$got" = "$passed" ] || fail "nft: receiver got $got datagrams, the counters passed $passed"

if [ "$FAILED" != 0 ]; then
	echo "lab_smoke: FAILED (lab $LAB is torn down on exit)" >&2
	exit 1
fi
echo "lab_smoke: all checks passed"
exit 0
