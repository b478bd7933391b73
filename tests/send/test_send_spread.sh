#!/bin/bash
# SPDX-License-Identifier: MIT
# --send-threads 2 follows the cores' load (run under netns_run, as root): in a mount namespace of
# its own the test puts a file of its making over /proc/stat, whose counters say CPU0 (the second
# send thread's, beside the source, --cpus 0,1) is busier than CPU1 (the send thread's), then the
# other way round.  The second thread's share of the trains falls to nothing in the first case
# and rises to all of them in the second; the stream reaches zcs-recv byte for byte as the
# paced one-thread reference, nothing lost.  With --send-threads auto a send core under 60% busy keeps
# every train and one at 100% hands some over.  A /proc/stat without the cores' lines leaves
# the share at half.
# The reference is paced too: unpaced, the stream outruns the hash behind zcs-recv's pipe, which
# then drops what it cannot take (counted as overruns).
# usage: test_send_spread.sh ZCS-SEND ZCS-RECV
set -u
SEND=$1 RECV=$2
PY=/usr/bin/python3
[ "$(nproc)" -ge 2 ] || { echo "SKIP: needs two CPUs"; exit 77; }
if [ -z "${ZCS_SPREAD_NS:-}" ]; then
	exec unshare -m env ZCS_SPREAD_NS=1 "$0" "$@"
fi
mount --make-rprivate / || { echo "SKIP: no private mounts"; exit 77; }
TMP=$(mktemp -d /tmp/zcs-spread.XXXXXX)
FAKER=
trap '[ -n "$FAKER" ] && kill "$FAKER" 2>/dev/null; umount /proc/stat 2>/dev/null; [ -n "${ZCS_KEEP:-}" ] || rm -rf "$TMP"' EXIT
PORT=20680
FAILED=0

fail() {
	echo "FAIL: $*" >&2
	FAILED=1
}

field() { # LOG KEY: a field of the JSON summary
	"$PY" - "$1" "$2" <<'PYEOF'
import json, sys
s = None
for line in open(sys.argv[1], errors="replace"):
    if line.startswith("{"):
        d = json.loads(line)
        if d.get("type") == "summary":
            s = d
print(s.get(sys.argv[2], "missing") if s else "no-summary")
PYEOF
}

# fake BUSY0 BUSY1: rewrites $TMP/stat in place every 0.2 s, each core BUSYn ticks busy of every
# 100 (/proc/stat's layout: cpu, cpu0, cpu1, then the rest)
fake() {
	"$PY" - "$TMP/stat" "$1" "$2" <<'PYEOF' &
import sys, time
path, b0, b1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t = 0
with open(path, "r+") as f:
    while True:
        t += 20
        u0, u1 = t * b0 // 100, t * b1 // 100
        f.seek(0)
        f.write(f"cpu  {u0 + u1} 0 0 {2 * t - u0 - u1} 0 0 0 0 0 0\n"
                f"cpu0 {u0} 0 0 {t - u0} 0 0 0 0 0 0\n"
                f"cpu1 {u1} 0 0 {t - u1} 0 0 0 0 0 0\n"
                "intr 0\nctxt 0\n".ljust(64))
        f.flush()
        time.sleep(0.2)
PYEOF
	FAKER=$!
}

run() { # NAME SEND-ARGS...: zcs-recv, its output's hash in $TMP/NAME.sum, zcs-send to it
	local name=$1 pid rc
	shift
	PORT=$((PORT + 1))
	# the stream's hash, not the stream
	{ timeout 60 "$RECV" "127.0.0.1:$PORT" -o - -F cs16 --exit-on-eos --json --interval 0 \
		2>"$TMP/$name.rlog"; echo $? >"$TMP/$name.rc"; } | sha256sum >"$TMP/$name.sum" &
	pid=$!
	for _ in $(seq 200); do
		grep -q "listening on" "$TMP/$name.rlog" 2>/dev/null && break
		sleep 0.05
	done
	timeout 60 "$SEND" --json -q "$@" "127.0.0.1:$PORT" >"$TMP/$name.slog" 2>&1 ||
		fail "$name: zcs-send failed: $(grep -v '^{' "$TMP/$name.slog" | tail -3)"
	wait "$pid"
	rc=$(cat "$TMP/$name.rc")
	[ "$rc" = 0 ] || fail "$name: zcs-recv exited $rc: $(tail -2 "$TMP/$name.rlog")"
	cmp -s "$TMP/$name.sum" "$TMP/ref.sum" || fail "$name: output differs from the reference"
	for k in lost overruns gap_samples; do
		[ "$(field "$TMP/$name.rlog" $k)" = 0 ] || fail "$name: $k $(field "$TMP/$name.rlog" $k)"
	done
	[ "$name" = ref ] || echo "$name: share $(field "$TMP/$name.slog" send2_share)," \
		"$(field "$TMP/$name.slog" send2_trains) of $(field "$TMP/$name.slog" trains) trains aside"
}

# 1 MS/s, where the second thread takes trains (a paced train of 21 datagrams: a receiver's window
# of 64 holds three), light enough for the sanitizer builds' zcs-recv to keep up with its pipe
TONE=(-s tone --tone 21000 --noise --seed 5 -r 1M -n 5000000 -f p12)
run ref "${TONE[@]}" --cpus none
printf '%-64s' "" > "$TMP/stat"
mount --bind "$TMP/stat" /proc/stat || { echo "SKIP: cannot bind a file over /proc/stat"; exit 77; }

# run_faked BUSY0 BUSY1 NAME SEND-ARGS...: run NAME with /proc/stat saying CPU0 and CPU1 that busy
run_faked() {
	fake "$1" "$2"
	shift 2
	run "$@"
	kill "$FAKER"
	wait "$FAKER" 2>/dev/null
	FAKER=
}

# CPU0 all busy, CPU1 idle: the second thread's share falls to nothing within the 5 s (the
# first reading, a second in, sets the origin; each one after moves the share by a quarter)
run_faked 100 0 cpu0-busy "${TONE[@]}" --send-threads 2 --cpus 0,1
share=$(field "$TMP/cpu0-busy.slog" send2_share)
"$PY" -c "import sys; sys.exit(0 if float('$share') == 0 else 1)" ||
	fail "cpu0-busy: the second thread's share is $share, not 0"

run_faked 0 100 cpu1-busy "${TONE[@]}" --send-threads 2 --cpus 0,1
share=$(field "$TMP/cpu1-busy.slog" send2_share)
"$PY" -c "import sys; sys.exit(0 if float('$share') == 1 else 1)" ||
	fail "cpu1-busy: the second thread's share is $share, not 1"

# --send-threads auto: a send core under 60% busy keeps every train (CPU1 40%, CPU0 10%); one at
# 100% hands trains to the second (the source thread's core at 0%)
run_faked 10 40 auto-idle "${TONE[@]}" --send-threads auto --cpus 0,1
[ "$(field "$TMP/auto-idle.slog" send2_trains)" = 0 ] ||
	fail "auto-idle: the second thread sent $(field "$TMP/auto-idle.slog" send2_trains) trains"
run_faked 0 100 auto-busy "${TONE[@]}" --send-threads auto --cpus 0,1
[ "$(field "$TMP/auto-busy.slog" send2_trains)" -gt 0 ] ||
	fail "auto-busy: the second thread sent no train"

# a /proc/stat without the cores' lines: every other train
umount /proc/stat
mount --bind /dev/null /proc/stat
run no-stat "${TONE[@]}" --send-threads 2 --cpus 0,1
umount /proc/stat
[ "$(field "$TMP/no-stat.slog" send2_share)" = 0.5 ] ||
	fail "no-stat: the second thread's share is $(field "$TMP/no-stat.slog" send2_share), not 0.5"

exit $FAILED
