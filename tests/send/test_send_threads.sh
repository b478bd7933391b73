#!/bin/bash
# SPDX-License-Identifier: MIT
# --send-threads 2 over loopback (run under netns_run): a seeded noisy tone at 20 MS/s, sent by two
# send threads on every send path, keyed, with --fec 32:4 and both, reaches zcs-recv byte for byte
# as one send thread sends it (an unpaced one-thread run is the reference), with nothing lost, late
# or duplicated and the end of stream last; the second thread sent about half the trains.  At
# 2 MS/s (a receiver's window holds fewer than three trains) the second thread sends nothing and a
# line says so, and the stream is still exact (at 1 MS/s and below, trains of 21 datagrams, it
# sends again: the kernels leg runs that).  A change of wire format mid-stream (zcs-ctl set
# format=i16: another datagram size, so the second thread's socket changes its GSO size too)
# reaches the receiver at exactly the index the sender's reply gave, nothing lost.
# usage: test_send_threads.sh ZCS-SEND ZCS-RECV ZCS-CTL
set -u
SEND=$1 RECV=$2 CTL=$3
PY=/usr/bin/python3
TMP=$(mktemp -d /tmp/zcs-send-threads.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
PORT=20620
FAILED=0

fail() {
	echo "FAIL: $*" >&2
	FAILED=1
}

# the last JSON summary line of a log, one field of it
field() {
	"$PY" - "$1" "$2" <<'EOF'
import json, sys
summary = None
for line in open(sys.argv[1], errors="replace"):
    if line.startswith("{"):
        d = json.loads(line)
        if d.get("type") == "summary":
            summary = d
print(summary.get(sys.argv[2], "missing") if summary else "no-summary")
EOF
}

# run NAME RECV-ARGS -- SEND-ARGS: zcs-recv into $TMP/NAME.cs16, zcs-send to it
run() {
	local name=$1 rargs=() pid rc
	shift
	while [ "$1" != -- ]; do rargs+=("$1"); shift; done
	shift
	PORT=$((PORT + 1))
	timeout 60 "$RECV" "127.0.0.1:$PORT" "${rargs[@]}" -o "file:$TMP/$name.cs16" -F cs16 \
		--exit-on-eos --json --interval 0 >"$TMP/$name.rlog" 2>&1 &
	pid=$!
	for _ in $(seq 200); do
		grep -q "listening on" "$TMP/$name.rlog" 2>/dev/null && break
		sleep 0.05
	done
	timeout 60 "$SEND" --json -q --cpus none "$@" "127.0.0.1:$PORT" >"$TMP/$name.slog" 2>&1 ||
		fail "$name: zcs-send failed: $(grep -v '^{' "$TMP/$name.slog" | tail -3)"
	wait "$pid"
	rc=$?
	[ "$rc" = 0 ] || fail "$name: zcs-recv exited $rc: $(tail -2 "$TMP/$name.rlog")"
}

# expect NAME REF: exact against REF's output, nothing lost, the second thread sent about half
expect() {
	local name=$1 ref=$2 k v trains send2
	cmp -s "$TMP/$name.cs16" "$TMP/$ref.cs16" || fail "$name: output differs from $ref's"
	for kv in lost=0 late=0 duplicate=0 gap_samples=0 invalid=0 socket_drops=0 overruns=0 eos=1 \
		unrecoverable=0 restored=0; do
		k=${kv%%=*} v=${kv#*=}
		[ "$(field "$TMP/$name.rlog" "$k")" = "$v" ] ||
			fail "$name: receiver $k $(field "$TMP/$name.rlog" "$k"), expected $v"
	done
	trains=$(field "$TMP/$name.slog" trains)
	send2=$(field "$TMP/$name.slog" send2_trains)
	echo "$name: $trains trains, $send2 by the second send thread," \
		"$(field "$TMP/$name.rlog" reordered) datagrams reordered"
	# every other train, less those sent while a retune or the rate kept the second one idle
	if [ "$send2" -lt $((trains / 2 - 1)) ] || [ "$send2" -gt $(((trains + 1) / 2)) ]; then
		fail "$name: the second send thread sent $send2 of $trains trains, not about half"
	fi
}

"$SEND" --gen-key "$TMP/key" 2>/dev/null || fail "--gen-key"
TONE=(-s tone --tone 21000 --noise --seed 5 -r 20M -n 2000000 -f p12)
PATHS=(msg-zc gso plain)
"$SEND" --version | grep -q "io_uring yes" && PATHS=(uring-zc "${PATHS[@]}")

run ref -- "${TONE[@]}" --unpaced
for path in "${PATHS[@]}"; do
	run "two-$path" -- "${TONE[@]}" --send-threads 2 --send-path "$path"
	expect "two-$path" ref
	grep -q "second send thread: send path: $path (as the first)" "$TMP/two-$path.slog" ||
		fail "two-$path: no line naming the second thread's path"
done
run keyed --key "$TMP/key" -- "${TONE[@]}" --send-threads 2 --key "$TMP/key"
expect keyed ref
run ref-fec -- "${TONE[@]}" --fec 32:4 --unpaced
run fec -- "${TONE[@]}" --send-threads 2 --fec 32:4
expect fec ref-fec
[ "$(field "$TMP/fec.rlog" parity)" = "$(field "$TMP/fec.slog" parity)" ] ||
	fail "fec: the receiver took $(field "$TMP/fec.rlog" parity) parity datagrams of $(field "$TMP/fec.slog" parity)"
run keyed-fec --key "$TMP/key" -- "${TONE[@]}" --send-threads 2 --key "$TMP/key" --fec 32:4
expect keyed-fec ref-fec

# 2 MS/s: the window (64 datagrams) holds fewer than three paced trains (42 datagrams each): one
# thread sends
SLOW=(-s tone --tone 21000 --noise --seed 5 -r 2M -n 400000 -f p12)
run ref-slow -- "${SLOW[@]}" --unpaced
run slow -- "${SLOW[@]}" --send-threads 2
cmp -s "$TMP/slow.cs16" "$TMP/ref-slow.cs16" || fail "slow: output differs"
[ "$(field "$TMP/slow.slog" send2_trains)" = 0 ] ||
	fail "slow: the second send thread sent $(field "$TMP/slow.slog" send2_trains) trains at 2 MS/s"
grep -q "at 2000000 S/s one send thread sends" "$TMP/slow.slog" || fail "slow: no line saying one thread sends"
[ "$(field "$TMP/slow.rlog" lost)" = 0 ] || fail "slow: lost $(field "$TMP/slow.rlog" lost)"

# a change of wire format while both threads send: the change lands exactly where announced
run_bg() { # NAME RECV-ARGS -- SEND-ARGS, the sender in the background (SENDER_PID)
	local name=$1 rargs=()
	shift
	while [ "$1" != -- ]; do rargs+=("$1"); shift; done
	shift
	PORT=$((PORT + 1))
	timeout 60 "$RECV" "127.0.0.1:$PORT" "${rargs[@]}" -o "file:$TMP/$name.cs16" -F cs16 \
		--exit-on-eos --json --interval 0 >"$TMP/$name.rlog" 2>&1 &
	RECV_PID=$!
	for _ in $(seq 200); do
		grep -q "listening on" "$TMP/$name.rlog" 2>/dev/null && break
		sleep 0.05
	done
	timeout 60 "$SEND" --json -q --cpus none "$@" "127.0.0.1:$PORT" >"$TMP/$name.slog" 2>&1 &
	SENDER_PID=$!
}
CPORT=20640
run_bg retune --key "$TMP/key" -- -s tone --tone 21000 --noise --seed 5 -r 20M -n 30000000 \
	-f p12 --send-threads 2 --key "$TMP/key" --control "127.0.0.1:$CPORT"
reply=
for _ in $(seq 200); do
	reply=$("$CTL" --key "$TMP/key" --json --timeout 20000 "127.0.0.1:$CPORT" set format=i16 \
		2>/dev/null) && break
	reply=
	sleep 0.05
done
wait "$SENDER_PID" || fail "retune: zcs-send failed: $(grep -v '^{' "$TMP/retune.slog" | tail -3)"
wait "$RECV_PID" || fail "retune: zcs-recv failed: $(tail -2 "$TMP/retune.rlog")"
if [ -z "$reply" ]; then
	fail "retune: zcs-ctl never reached the sender"
else
	"$PY" - "$TMP/retune.rlog" "$reply" <<'EOF' || fail "retune: no exact change to i16 at the index given"
import json, sys
since = json.loads(sys.argv[2])["since_sample"]
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{") and '"change"' in l]
ok = [e for e in ev if e["since_sample"] == since and e["exact"] and e["format"] == "i16"]
print("retune: format i16 from sample %d: %s" % (since, "exact" if ok else ev))
sys.exit(0 if ok else 1)
EOF
fi
for kv in lost=0 late=0 duplicate=0 gap_samples=0 invalid=0 eos=1 samples=30000000; do
	k=${kv%%=*} v=${kv#*=}
	[ "$(field "$TMP/retune.rlog" "$k")" = "$v" ] ||
		fail "retune: receiver $k $(field "$TMP/retune.rlog" "$k"), expected $v"
done
[ "$(field "$TMP/retune.slog" send2_trains)" -gt 0 ] || fail "retune: the second thread sent nothing"

[ "$FAILED" = 0 ] || exit 1
echo "ok: two send threads, every path, keyed and --fec: byte-exact, nothing lost"
