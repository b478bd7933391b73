#!/bin/bash
# SPDX-License-Identifier: MIT
# Lab scenario 3: receivers come and go while the stream runs, on a switch with IGMP snooping and
# a querier (LAB_SNOOPING=1), so joins and leaves really change where the switch forwards.
#   rx1 listens from the start to the end: byte-exact, nothing lost;
#   rx2 joins about 1 s after the sender started: it starts on a datagram boundary after the next
#       metadata, its output is a byte-exact slice of the reference running to the end, and the
#       datagrams sent before it joined are not counted as lost (lost = gap_samples = 0);
#   rx3 listens from the start and is killed (SIGKILL) half-way: what it wrote is a prefix of the
#       reference, and rx1 and rx2 are undisturbed.
# usage: test_mcast_join.sh ZCS-SEND ZCS-RECV
set -u
MCAST_NAME=mcast_join
# shellcheck source=mcast_lib.sh
source "$(dirname "$0")/mcast_lib.sh" "$1" "$2"

GROUP=239.18.6.3:24620
N=3000000   # 6 s at 500k: rx3 must still be streaming when it is killed, ~1.5 s in, on a loaded machine
TONE=(-s tone --tone 13000 --noise --seed 9 -r 500k -n "$N" -f p12)

LAB_SNOOPING=1 lab_up mjoin 3 || { echo "FAIL: lab_up failed" >&2; exit 1; }
mcast_reference tx ref "${TONE[@]}"

mcast_recv rx1 rx1 "$GROUP" || mcast_done
mcast_recv rx3 rx3 "$GROUP" || mcast_done
mcast_send_bg tx tx "${TONE[@]}" --ttl 1 --iface eth0 "$GROUP"
sleep 1
mcast_recv rx2 rx2 "$GROUP" || mcast_done
sleep 0.5
# the switch learnt the members (snooping is really on): p-rx1, p-rx2 and p-rx3 are in its table.
# A host repeats its report once within 1 s (IGMPv3 robustness 2): a first report lost on a busy
# machine is repaired by the second, so the table is read again for up to 3 s.
for p in p-rx1 p-rx2 p-rx3; do
	for ((try = 0; try < 30; try++)); do
		mdb=$(lab_exec br bridge mdb show 2>&1)
		grep -q "port $p grp ${GROUP%:*}" <<<"$mdb" && break
		sleep 0.1
	done
	grep -q "port $p grp ${GROUP%:*}" <<<"$mdb" || fail "switch has no membership of $p: $mdb"
done
pid3=$(mcast_pid_of rx3 zcs-recv) || fail "rx3's zcs-recv is not running"
[ -n "$pid3" ] && kill -KILL "$pid3"
wait "${MCAST_PID[rx3]}" 2>/dev/null
mcast_send_wait tx
mcast_recv_wait rx1 rx2

spd=$(mcast_get tx samples_per_dgram)
total=$(mcast_get rx1 delivered)
echo "sender: $(mcast_get tx datagrams) sample datagrams of $spd pairs; rx1 delivered $total"

# rx1: unaffected by the others joining and leaving
mcast_expect rx1 samples=$N lost=0 duplicate=0 late=0 gap_samples=0 invalid=0 socket_drops=0 \
	overruns=0 eos=1 streams=1 pre_meta=0
mcast_check exact "$TMP/rx1.cs16" "$TMP/ref.cs16"

# rx2: a clean late start
mcast_expect rx2 lost=0 duplicate=0 late=0 gap_samples=0 invalid=0 socket_drops=0 overruns=0 \
	eos=1 streams=1 resyncs=0
if off=$("$PY" "$MCAST_HERE/mcast_check.py" slice "$TMP/rx2.cs16" "$TMP/ref.cs16" "$spd" --to-end); then
	first=$((off / spd))
	echo "rx2: joined late, first output pair $off = datagram $first, $(mcast_get rx2 samples) pairs," \
		"$(mcast_get rx2 pre_meta) datagrams discarded before its metadata"
	# it joined about 1 s (500k pairs) in: not at the start, not after the end
	{ [ "$off" -ge $((N / 10)) ] && [ "$off" -lt $((N * 9 / 10)) ]; } ||
		fail "rx2 started at pair $off, not about a second into the stream"
	mcast_expect rx2 samples=$((N - off)) delivered=$((total - first))
	# its own report of where it started agrees (when it says so)
	said=$(sed -n 's/.*starting at datagram \([0-9]*\).*/\1/p' "$TMP/rx2.log" | head -1)
	[ -z "$said" ] || [ "$said" = "$first" ] || fail "rx2 says it started at datagram $said, its output at $first"
else
	FAILED=1
fi

# rx3: killed half-way; what it wrote before is still right
mcast_check prefix "$TMP/rx3.cs16" "$TMP/ref.cs16"
sz=$(stat -c %s "$TMP/rx3.cs16" 2>/dev/null || echo 0)
{ [ "$sz" -gt 0 ] && [ "$sz" -lt $((N * 4)) ]; } || fail "rx3 wrote $sz bytes: not killed half-way"
mcast_done
