#!/bin/bash
# SPDX-License-Identifier: MIT
# Lab scenario 7: erasure coding over multicast (issue 21).  One zcs-send --fec 32:4 multicasts to
# three receivers behind the snooping switch; nftables on the switch gives each receiver's port a
# loss of its own, by a datagram's place in its block (the low 5 bits of seq; blocks are 32 from
# seq 0):
#   rx1: places 0 and 13 of every block (seq 0 too: the stream's first datagram, lost before any
#        came, restored because the metadata announced the parity),
#   rx2: a burst of 4 (places 20-23: as many as a block can lose),
#   rx3: places 7 and 30, and parity 0 and 1 of every block (2 lost, 2 parity left).
# Each output must be byte-identical to the lossless reference, with lost = gap_samples = 0, and
# each receiver's counters its own: restored = what the switch dropped on its port, parity = what
# the sender sent less what the switch dropped of it, unrecoverable = 0.  The end-of-stream datagram
# is not touched (the last block is shorter; it is protected all the same).  Offloads are off and
# the sender uses --send-path plain, so every skb is one datagram and the counters count datagrams.
# usage: test_mcast_fec.sh ZCS-SEND ZCS-RECV
set -u
MCAST_NAME=mcast_fec
# shellcheck source=mcast_lib.sh
source "$(dirname "$0")/mcast_lib.sh" "$1" "$2"

PORT=24630
GROUP=239.18.6.7:$PORT
N=1000000
TONE=(-s tone --tone 33000 --noise --seed 11 -r 2M -n "$N" -f p12)
# zcs datagrams to our port; @th,64 is the first byte after the UDP header
ZCS="ether type ip udp dport $PORT @th,64,16 0x5a53"
# sample datagrams (type 0) that are not the end of stream (flags, byte 25, 0); @th,128,8 is
# the low byte of seq (LE u64 at byte 8), its low 5 bits the place in the block
SAMPLE="$ZCS @th,88,8 0 @th,264,8 0"
PLACE="@th,128,8 & 0x1f"
# parity datagrams (type 2); byte 26 is the parity's index
PARITY="$ZCS @th,88,8 2"

LAB_SNOOPING=1 lab_up mfec 3 || { echo "FAIL: lab_up failed" >&2; exit 1; }
lab_offload off || fail "lab_offload off failed"

lab_exec br nft -f - <<EOF || fail "nft rules (switch) not accepted"
table bridge zcsfec {
	chain forw {
		type filter hook forward priority filter; policy accept;
		oifname "p-rx1" $SAMPLE $PLACE { 0, 13 } counter drop comment "rx1"
		oifname "p-rx2" $SAMPLE $PLACE 20-23 counter drop comment "rx2"
		oifname "p-rx3" $SAMPLE $PLACE { 7, 30 } counter drop comment "rx3"
		oifname "p-rx3" $PARITY @th,272,8 { 0, 1 } counter drop comment "rx3_parity"
		oifname "p-rx1" $PARITY counter comment "parity_rx1"
	}
}
EOF

counters() {
	lab_exec br nft -j list ruleset | "$PY" -c '
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
mcast_send tx tx --send-path plain --fec 32:4 "${TONE[@]}" --ttl 1 --iface eth0 "$GROUP"
mcast_recv_wait rx1 rx2 rx3

declare -A C=()
while IFS='=' read -r k v; do C[$k]=$v; done < <(counters)
sent=$(mcast_get tx datagrams)
parity=$(mcast_get tx parity)
blocks=$(((sent + 31) / 32))
echo "sender: $sent sample datagrams, $parity parity ($blocks blocks of 32:4)"
echo "switch dropped: rx1=${C[rx1]:-?} rx2=${C[rx2]:-?} rx3=${C[rx3]:-?} rx3 parity=${C[rx3_parity]:-?}; parity towards rx1: ${C[parity_rx1]:-?}"
for i in 1 2 3; do
	echo "rx$i: restored=$(mcast_get "rx$i" restored) unrecoverable=$(mcast_get "rx$i" unrecoverable)" \
		"parity=$(mcast_get "rx$i" parity) lost=$(mcast_get "rx$i" lost) fec=$(mcast_get "rx$i" fec)"
done

[ "$parity" = "$((blocks * 4))" ] || fail "the sender sent $parity parity datagrams for $blocks blocks"
[ "${C[parity_rx1]:-0}" = "$parity" ] || fail "rx1's port passed ${C[parity_rx1]:-0} parity datagrams, the sender sent $parity"
# the patterns really cut: about 2, 4, 2 per block (the last, shorter block may have fewer)
for i in 1 2 3; do
	per=$((i == 2 ? 4 : 2))
	{ [ "${C[rx$i]:-0}" -ge $(((blocks - 1) * per)) ] && [ "${C[rx$i]:-0}" -le $((blocks * per)) ]; } ||
		fail "rx$i's port dropped ${C[rx$i]:-0} sample datagrams, expected about $per per block"
done
[ "${C[rx3_parity]:-0}" = "$((blocks * 2))" ] || fail "rx3's port dropped ${C[rx3_parity]:-0} parity datagrams, expected $((blocks * 2))"

for i in 1 2 3; do
	want_parity=$parity
	[ "$i" = 3 ] && want_parity=$((parity - ${C[rx3_parity]:-0}))
	mcast_expect "rx$i" samples=$N lost=0 gap_samples=0 duplicate=0 late=0 invalid=0 \
		socket_drops=0 overruns=0 eos=1 streams=1 unrecoverable=0 rebuilt_refused=0 \
		restored="${C[rx$i]:-0}" parity="$want_parity" fec=32:4
	mcast_check exact "$TMP/rx$i.cs16" "$TMP/ref.cs16"
done
mcast_done
