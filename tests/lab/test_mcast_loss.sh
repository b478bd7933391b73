#!/bin/bash
# SPDX-License-Identifier: MIT
# Lab scenario 2: random loss and duplication on one receiver's link only, counted by nftables,
# must show up exactly in that receiver's statistics and output, and nowhere else.
#
# The switch namespace decides, once per sample datagram coming in from the sender (netdev ingress
# on the sender's port p-tx, `numgen random`): about 4% are marked for dropping on the way to rx1
# (a bridge forward rule drops marked datagrams leaving on p-rx1 only) and another 4% are copied
# with `dup to "p-rx1"` (the copy goes straight out of rx1's port, the original is switched as
# usual).  One decision per datagram keeps the two sets disjoint, so rx1 must report
# lost = the drop counter and duplicate = the dup counter, exactly.  Metadata, the first sample
# datagram (seq 0, where a receiver starts) and the end-of-stream datagram are never touched.
# Offloads are off on every link and the sender uses --send-path plain, so every skb is one
# datagram: proven by the counters (switch total = what rx2 got = what the sender sent; what
# arrived in rx1's namespace = total - dropped + duplicated).
# usage: test_mcast_loss.sh ZCS-SEND ZCS-RECV
set -u
MCAST_NAME=mcast_loss
# shellcheck source=mcast_lib.sh
source "$(dirname "$0")/mcast_lib.sh" "$1" "$2"

PORT=24610
GROUP=239.18.6.2:$PORT
N=1000000
TONE=(-s tone --tone -37000 --noise --seed 7 -r 2M -n "$N" -f p12)
# a zcs sample datagram (magic "ZS", type 0) to our port; @th,64 is the first byte after the UDP header
ZCS_SAMPLE="udp dport $PORT @th,64,16 0x5a53 @th,88,8 0"
# ... with flags 0 (not end of stream) and seq (LE u64 at byte 8) not 0
IMPAIRABLE="$ZCS_SAMPLE @th,264,8 0 @th,128,64 != 0"

lab_up mloss 3 || { echo "FAIL: lab_up failed" >&2; exit 1; }
lab_offload off || fail "lab_offload off failed"

lab_exec br nft -f - <<EOF || fail "nft rules (switch) not accepted"
table netdev zcsloss {
	chain from_tx {
		type filter hook ingress device "p-tx" priority filter; policy accept;
		$ZCS_SAMPLE counter comment "total"
		$ZCS_SAMPLE @th,272,16 0 counter comment "empty"
		$IMPAIRABLE numgen random mod 100 vmap { 0-3 : jump drop_rx1, 4-7 : jump dup_rx1 }
	}
	chain drop_rx1 {
		meta mark set 0x5a counter comment "drop"
	}
	chain dup_rx1 {
		counter dup to "p-rx1" comment "dup"
	}
}
table bridge zcsloss {
	chain forw {
		type filter hook forward priority filter; policy accept;
		oifname "p-rx1" meta mark 0x5a counter drop comment "dropped"
	}
}
EOF
# what reaches each receiver host's IP layer
for i in 1 2; do
	lab_exec "rx$i" nft -f - <<EOF || fail "nft rules (rx$i) not accepted"
table inet zcsloss {
	chain in {
		type filter hook prerouting priority filter; policy accept;
		$ZCS_SAMPLE counter comment "arrived"
	}
}
EOF
done

# "HOST TABLE" -> "comment=packets ..." for every counted rule
counters() {
	lab_exec "$1" nft -j list ruleset | "$PY" -c '
import json, sys
for item in json.load(sys.stdin)["nftables"]:
    r = item.get("rule")
    if r and "comment" in r:
        for e in r["expr"]:
            if "counter" in e:
                print("%s=%d" % (r["comment"], e["counter"]["packets"]))'
}

mcast_reference tx ref "${TONE[@]}"
for i in 1 2 3; do
	mcast_recv "rx$i" "rx$i" "$GROUP" || mcast_done
done
mcast_send tx tx --send-path plain "${TONE[@]}" --ttl 1 --iface eth0 "$GROUP"
mcast_recv_wait rx1 rx2 rx3

declare -A C=()
for h in br rx1 rx2; do
	while IFS='=' read -r k v; do C[$h.$k]=$v; done < <(counters "$h")
done
total=${C[br.total]:--1} empty=${C[br.empty]:--1} drop=${C[br.drop]:--1} dup=${C[br.dup]:--1}
dropped=${C[br.dropped]:--1} arr1=${C[rx1.arrived]:--1} arr2=${C[rx2.arrived]:--1}
sent=$(mcast_get tx datagrams)
spd=$(mcast_get tx samples_per_dgram)
echo "sender: $sent sample datagrams of $spd pairs"
echo "switch: total=$total (empty $empty) marked-drop=$drop dropped-on-p-rx1=$dropped dup=$dup"
echo "arrived: rx1=$arr1 rx2=$arr2"
for i in 1 2 3; do
	echo "rx$i: lost=$(mcast_get "rx$i" lost) duplicate=$(mcast_get "rx$i" duplicate)" \
		"sample_datagrams=$(mcast_get "rx$i" sample_datagrams) socket_drops=$(mcast_get "rx$i" socket_drops)"
done

# the counters count datagrams, not GSO trains or anything else
{ [ "$total" -gt 0 ] && [ "$((total - empty))" = "$sent" ]; } ||
	fail "switch counted $total sample datagrams ($empty empty), the sender sent $sent"
[ "$dropped" = "$drop" ] || fail "marked $drop for dropping, but $dropped were dropped on p-rx1"
[ "$arr2" = "$total" ] || fail "rx2's host saw $arr2 sample datagrams, the switch $total"
[ "$arr1" = "$((total - drop + dup))" ] ||
	fail "rx1's host saw $arr1 sample datagrams, expected $total - $drop + $dup"
# 4% each of ~2000: none (or all) would mean a rule does nothing (odds below 1e-30)
{ [ "$drop" -gt 0 ] && [ "$dup" -gt 0 ] && [ "$drop" -lt "$total" ]; } ||
	fail "impairment did not happen: drop=$drop dup=$dup of $total"

# rx1: exactly what nftables did, in the statistics and in the output
mcast_expect rx1 samples=$N lost="$drop" duplicate="$dup" late=0 invalid=0 socket_drops=0 \
	overruns=0 eos=1 sample_datagrams="$arr1"
mcast_check gaps "$TMP/rx1.cs16" "$TMP/ref.cs16" "$spd" "$drop" "$(mcast_get rx1 gap_samples)"
# gap_samples: each lost datagram is a full one, unless the short last one was among them
last=$((N % spd))
gs=$(mcast_get rx1 gap_samples)
[ "$gs" = "$((drop * spd))" ] || { [ "$last" != 0 ] && [ "$gs" = "$(((drop - 1) * spd + last))" ]; } ||
	fail "rx1: gap_samples $gs for $drop lost datagrams of $spd pairs"
# the others: nothing lost, nothing doubled, byte-exact
for i in 2 3; do
	mcast_expect "rx$i" samples=$N lost=0 duplicate=0 late=0 gap_samples=0 invalid=0 \
		socket_drops=0 overruns=0 eos=1 sample_datagrams="$total"
	mcast_check exact "$TMP/rx$i.cs16" "$TMP/ref.cs16"
done
mcast_done
