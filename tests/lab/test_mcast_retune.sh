#!/bin/bash
# SPDX-License-Identifier: MIT
# A retune on a multicast stream: zcs-send (keyed, --control) multicasts to two receivers in their
# own namespaces; zcs-ctl on one receiver's host retunes the sender; both receivers report the
# change (--json "change" line) at the same sample index, the one the sender's reply gave, and
# neither loses a sample.
# usage: test_mcast_retune.sh ZCS-SEND ZCS-RECV ZCS-CTL
set -u
MCAST_NAME=mcast_retune
ZCS_CTL=$3
# shellcheck source=mcast_lib.sh
source "$(dirname "$0")/mcast_lib.sh" "$1" "$2"

GROUP="239.18.6.9:24620"
N=4000000
lab_up "mret" 2 || { echo "FAIL: lab_up failed" >&2; exit 1; }
KEY=$TMP/key
"$PY" -c 'import os; print(os.urandom(32).hex())' > "$KEY"
chmod 600 "$KEY"
CTL="$(lab_addr tx):24621"

for i in 1 2; do
	mcast_recv "rx$i" "rx$i" "$GROUP" --key "$KEY" || mcast_done
done
mcast_send_bg tx tx -s tone -r 1M -n "$N" -f p12 --key "$KEY" --control "$CTL" --ttl 1 \
	--iface eth0 "$GROUP"
reply=
for ((i = 0; i < 400; i++)); do
	reply=$(lab_exec rx1 "$ZCS_CTL" --key "$KEY" --json --timeout 20000 "$CTL" set freq=433.92M \
		2> /dev/null) && break
	reply=
	sleep 0.05
done
[ -n "$reply" ] || fail "zcs-ctl on rx1 never reached the sender at $CTL"
since=$("$PY" -c 'import json, sys; r = json.loads(sys.argv[1]); assert r["ok"], r; print(r["since_sample"])' "$reply") ||
	fail "no index in the reply: $reply"
echo "the sender took freq=433.92M from sample $since"
mcast_send_wait tx
mcast_recv_wait rx1 rx2
for i in 1 2; do
	"$PY" - "$TMP/rx$i.log" "$since" <<'EOF' || fail "rx$i: no change event at $since"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{') and '"change"' in l]
ok = [e for e in ev if e["since_sample"] == int(sys.argv[2]) and e["exact"] and
      e["center_freq"] == 433920000]
print("%s: %s" % (sys.argv[1].rsplit("/", 1)[-1], ok[0] if ok else ev))
sys.exit(0 if ok else 1)
EOF
	mcast_expect "rx$i" samples=$N lost=0 gap_samples=0 eos=1 streams=1
done
mcast_done
