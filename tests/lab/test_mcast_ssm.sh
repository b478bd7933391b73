#!/bin/bash
# SPDX-License-Identifier: MIT
# Lab scenario 4: source-specific joins.  Two senders, tx and tx2 (a second sender host added with
# lab_add_host), send different seeded tones at the same time to one SSM group (232.18.6.4, or
# ff3e::18:6 with argument 6).  rx1 joins with --source tx, rx2 with --source tx2: each output is
# byte-identical to its own sender's loopback reference, and the other sender's datagrams never
# reach the program (streams = 1, foreign = filtered = 0: the kernel's source filter did the work).
# rx3 joins the group without a source: it must see both streams (foreign > 0), which proves both
# senders really reached every host and that --source is what kept rx1 and rx2 clean; it follows
# one of the two streams (the first it saw) and its output is that sender's reference, exactly.
# usage: test_mcast_ssm.sh ZCS-SEND ZCS-RECV 4|6
set -u
FAM=${3:-4}
MCAST_NAME=mcast_ssm_v$FAM
# shellcheck source=mcast_lib.sh
source "$(dirname "$0")/mcast_lib.sh" "$1" "$2"

if [ "$FAM" = 6 ]; then
	GROUP="[ff3e::18:6]:24642"
else
	GROUP="232.18.6.4:24640"
fi
N=1000000
TONE_A=(-s tone --tone 11000 --noise --seed 11 -r 1M -n "$N" -f p12)
TONE_B=(-s tone --tone -29000 --noise --seed 12 -r 1M -n "$N" -f p12)

lab_up "mssm$FAM" 3 || { echo "FAIL: lab_up failed" >&2; exit 1; }
lab_add_host tx2 || { echo "FAIL: lab_add_host tx2 failed" >&2; exit 1; }
mcast_reference tx refA "${TONE_A[@]}"
mcast_reference tx2 refB "${TONE_B[@]}"
cmp -s "$TMP/refA.cs16" "$TMP/refB.cs16" && fail "the two references are the same: the test could not tell"

mcast_recv rx1 rx1 "$GROUP" --source "$(lab_addr tx "$FAM")" || mcast_done
mcast_recv rx2 rx2 "$GROUP" --source "$(lab_addr tx2 "$FAM")" || mcast_done
mcast_recv rx3 rx3 "$GROUP" || mcast_done
mcast_send_bg tx txA "${TONE_A[@]}" --ttl 1 --iface eth0 "$GROUP"
# rx3 follows the first stream whose metadata it sees: tx2 starts once rx3 follows tx's, so rx3
# has it from its first datagram.  Started at the same instant, the two metadata raced, and a
# receiver short of CPU joined the one it took late (its first datagrams before that metadata
# are discarded, as for any late join): 2 runs in 3 failed on a loaded machine.
for _ in $(seq 200); do
	grep -q "starting at datagram" "$TMP/rx3.log" 2>/dev/null && break
	sleep 0.05
done
mcast_send_bg tx2 txB "${TONE_B[@]}" --ttl 1 --iface eth0 "$GROUP"
mcast_send_wait txA txB
mcast_recv_wait rx1 rx2 rx3

for i in 1 2 3; do
	echo "rx$i: streams=$(mcast_get "rx$i" streams) foreign=$(mcast_get "rx$i" foreign)" \
		"filtered=$(mcast_get "rx$i" filtered) samples=$(mcast_get "rx$i" samples) lost=$(mcast_get "rx$i" lost)"
done
for i in 1 2; do
	mcast_expect "rx$i" samples=$N lost=0 duplicate=0 late=0 gap_samples=0 invalid=0 \
		socket_drops=0 overruns=0 eos=1 streams=1 foreign=0 filtered=0
done
mcast_check exact "$TMP/rx1.cs16" "$TMP/refA.cs16"
mcast_check exact "$TMP/rx2.cs16" "$TMP/refB.cs16"
# without a source, both streams arrive; it follows one of them, and that one intact
mcast_expect rx3 foreign\>0 samples=$N lost=0 duplicate=0 invalid=0 socket_drops=0 eos=1
if cmp -s "$TMP/rx3.cs16" "$TMP/refA.cs16"; then
	echo "rx3 (no source): followed tx's stream, byte-exact"
elif cmp -s "$TMP/rx3.cs16" "$TMP/refB.cs16"; then
	echo "rx3 (no source): followed tx2's stream, byte-exact"
else
	fail "rx3 (no source): its output is neither sender's stream"
fi
mcast_done
