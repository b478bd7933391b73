#!/bin/bash
# SPDX-License-Identifier: MIT
# Lab scenario 1 (IPv4, 239.18.6.1) and 5 (IPv6, ff15::18:6): one zcs-send multicasts a seeded noisy
# tone (TTL 1, default send path, offloads on: GSO trains cross the switch) to three receivers in
# their own namespaces; each output is byte-identical to a loopback reference run, and each
# receiver reports every datagram delivered: lost = duplicate = late = gap_samples = 0.
# usage: test_mcast_fanout.sh ZCS-SEND ZCS-RECV 4|6
set -u
FAM=${3:-4}
MCAST_NAME=mcast_fanout_v$FAM
# shellcheck source=mcast_lib.sh
source "$(dirname "$0")/mcast_lib.sh" "$1" "$2"

if [ "$FAM" = 6 ]; then
	GROUP="[ff15::18:6]:24606"
else
	GROUP="239.18.6.1:24604"
fi
N=1000000
TONE=(-s tone --tone 21000 --noise --seed 5 -r 2M -n "$N" -f p12)

lab_up "mfan$FAM" 3 || { echo "FAIL: lab_up failed" >&2; exit 1; }
mcast_reference tx ref "${TONE[@]}"

for i in 1 2 3; do
	mcast_recv "rx$i" "rx$i" "$GROUP" || mcast_done
done
mcast_send tx tx "${TONE[@]}" --ttl 1 --iface eth0 "$GROUP"
mcast_recv_wait rx1 rx2 rx3

sent=$(mcast_get tx datagrams)
echo "sender: $sent sample datagrams (${TONE[*]})"
for i in 1 2 3; do
	mcast_expect "rx$i" samples=$N lost=0 duplicate=0 late=0 gap_samples=0 invalid=0 \
		socket_drops=0 overruns=0 eos=1 streams=1 pre_meta=0
	# every datagram the sender sent, plus the end-of-stream datagram if it carried no samples
	got=$(mcast_get "rx$i" delivered)
	{ [ "$got" = "$sent" ] || [ "$got" = "$((sent + 1))" ]; } ||
		fail "rx$i delivered $got datagrams, the sender sent $sent"
	mcast_check exact "$TMP/rx$i.cs16" "$TMP/ref.cs16"
done
mcast_done
