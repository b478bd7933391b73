#!/bin/bash
# SPDX-License-Identifier: MIT
# Lab scenario 8: two send threads (--send-threads 2) multicast a seeded noisy tone at 20 MS/s
# through the switch to two receivers; each thread sends on a socket of its own, from the same
# address and port.
#   1. default send path, offloads on (GSO trains cross the switch): each output byte-identical to
#      a loopback reference from one send thread; one stream from one sender, nothing lost, late,
#      duplicated or foreign; the second thread sent about half the trains.
#   2. keyed, --fec 32:4, offloads off (so every skb the switch sees is one datagram): the switch
#      drops places 20-23 of every block on rx2's port; rx1 gets all, rx2 restores exactly what
#      was dropped (parity still follows every block's datagrams), both outputs exact.
# usage: test_mcast_two_senders.sh ZCS-SEND ZCS-RECV
set -u
MCAST_NAME=mcast_two_senders
# shellcheck source=mcast_lib.sh
source "$(dirname "$0")/mcast_lib.sh" "$1" "$2"

N=2000000
TONE=(-s tone --tone 17000 --noise --seed 13 -r 20M -n "$N" -f p12)
# as test_mcast_fec.sh: a sample datagram's place in its block is the low 5 bits of seq
PORT2=24642
SAMPLE="ether type ip udp dport $PORT2 @th,64,16 0x5a53 @th,88,8 0x80 @th,264,8 0"
PLACE="@th,128,8 & 0x1f"

# half the trains from the second thread, give or take the one a rate or retune kept
half() {
	local name=$1 trains send2
	trains=$(mcast_get "$name" trains)
	send2=$(mcast_get "$name" send2_trains)
	echo "$name: $trains trains, $send2 sent by the second send thread"
	if [ "$send2" -lt $((trains / 2 - 1)) ] || [ "$send2" -gt $(((trains + 1) / 2)) ]; then
		fail "$name: the second send thread sent $send2 of $trains trains"
	fi
}

LAB_SNOOPING=1 lab_up mtwo 2 || { echo "FAIL: lab_up failed" >&2; exit 1; }
"$ZCS_SEND" --gen-key "$TMP/key" 2>/dev/null || fail "--gen-key"

# 1. unkeyed, default path, offloads on
GROUP=239.18.6.8:24640
mcast_reference tx ref "${TONE[@]}"
for i in 1 2; do
	mcast_recv "rx$i" "rx$i" "$GROUP" || mcast_done
done
mcast_send tx tx "${TONE[@]}" --send-threads 2 --ttl 1 --iface eth0 "$GROUP"
mcast_recv_wait rx1 rx2
half tx
for i in 1 2; do
	mcast_expect "rx$i" samples=$N lost=0 duplicate=0 late=0 gap_samples=0 invalid=0 \
		socket_drops=0 overruns=0 eos=1 streams=1 foreign=0 filtered=0 pre_meta=0
	mcast_check exact "$TMP/rx$i.cs16" "$TMP/ref.cs16"
done

# 2. keyed, --fec 32:4, places 20-23 of every block dropped towards rx2 (keyed sample
# datagrams are type 0x80)
lab_offload off || fail "lab_offload off failed"
lab_exec br nft -f - <<EOF || fail "nft rules (switch) not accepted"
table bridge zcstwo {
	chain forw {
		type filter hook forward priority filter; policy accept;
		oifname "p-rx2" $SAMPLE $PLACE 20-23 counter drop comment "rx2"
	}
}
EOF
GROUP=239.18.6.9:$PORT2
mcast_reference tx ref-kf "${TONE[@]}" --fec 32:4
for i in 1 2; do
	mcast_recv "rx$i" "kf$i" "$GROUP" --key "$TMP/key" --run-state none || mcast_done
done
mcast_send tx kf "${TONE[@]}" --send-threads 2 --key "$TMP/key" --run-counter "$TMP/run" \
	--fec 32:4 --ttl 1 --iface eth0 "$GROUP"
mcast_recv_wait kf1 kf2
half kf
dropped=$(lab_exec br nft -j list ruleset | "$PY" -c '
import json, sys
for item in json.load(sys.stdin)["nftables"]:
    r = item.get("rule")
    if r and r.get("comment") == "rx2":
        print(next(e["counter"]["packets"] for e in r["expr"] if "counter" in e))')
echo "switch dropped ${dropped:-?} sample datagrams towards rx2"
[ "${dropped:-0}" -gt 0 ] || fail "the switch dropped nothing towards rx2: the rule did not match"
mcast_expect kf1 samples=$N lost=0 restored=0 duplicate=0 late=0 invalid=0 eos=1 streams=1 \
	unrecoverable=0 fec=32:4
mcast_expect kf2 samples=$N lost=0 restored="${dropped:-0}" duplicate=0 late=0 invalid=0 eos=1 \
	streams=1 unrecoverable=0 rebuilt_refused=0 fec=32:4
for i in 1 2; do
	mcast_check exact "$TMP/kf$i.cs16" "$TMP/ref-kf.cs16"
done
mcast_done
