# SPDX-License-Identifier: MIT
# Sourced by the tests/apps drivers: starts zcs-recv, a real application (grtone.py's GNU Radio
# flowgraphs, rtl_433) and zcs-send over loopback, waits for each step, and always cleans up.
# usage in a driver: source apps_lib.sh "$@"   (arguments: ZCS-SEND ZCS-RECV)
set -u
ZCS_SEND=${1:?usage: $0 ZCS-SEND ZCS-RECV}
ZCS_RECV=${2:?usage: $0 ZCS-SEND ZCS-RECV}
APPS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Debian's interpreter: GNU Radio's modules load only there (another python3 may come first).
PY=/usr/bin/python3
GRTONE=$APPS_DIR/grtone.py
export QT_QPA_PLATFORM=offscreen
export PYTHONDONTWRITEBYTECODE=1
WORK=$(mktemp -d /tmp/zcs-apps.XXXXXX)
PIDS=()

cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$WORK"
}
trap cleanup EXIT

show_logs() {
	local f
	for f in "$WORK"/*.out "$WORK"/*.log; do
		[ -e "$f" ] || continue
		echo "--- ${f##*/} (last lines, stats lines left out)"
		grep -v '"type":"stats"' "$f" | tail -n 25
	done
}

fail() {
	echo "FAIL: $*"
	show_logs
	exit 1
}

# start_recv ARGS...: zcs-recv with JSON statistics into a log of its own (recv-K.log, the Kth
# zcs-recv of the test); sets RECV_PID and RECV_LOG.
RECV_K=0
start_recv() {
	RECV_K=$((RECV_K + 1))
	RECV_LOG=$WORK/recv-$RECV_K.log
	: >"$RECV_LOG"
	"$ZCS_RECV" --json "$@" 2>>"$RECV_LOG" &
	RECV_PID=$!
	PIDS+=("$RECV_PID")
}

# start_app NAME ARGS...: runs ARGS (an application, under a deadline) into NAME.out/NAME.log.
start_app() {
	local name=$1
	shift
	timeout 120 "$@" >"$WORK/$name.out" 2>"$WORK/$name.log" &
	APP_PID=$!
	PIDS+=("$APP_PID")
}

# start_send ARGS...: zcs-send in the background into send.log; sets SEND_PID.  Waits first until
# the last zcs-recv started says it listens: it opens its outputs (a TCP port the test may have
# waited for) before it binds its UDP port, and a loaded machine stretches the time between, so
# the stream's first metadata was refused and 0.4 s of pre-metadata datagrams zero-filled (CI saw
# it as rtl_433's recording 0.9 dB short in RMS).
start_send() {
	[ -z "${RECV_LOG:-}" ] || wait_log "$RECV_LOG" 'listening on'
	"$ZCS_SEND" -q "$@" 2>"$WORK/send.log" &
	SEND_PID=$!
	PIDS+=("$SEND_PID")
}

# wait_for WHAT CMD...: polls CMD for up to 30 s (GNU Radio takes a second or two to start).
wait_for() {
	local what=$1 i
	shift
	for i in $(seq 600); do
		"$@" && return 0
		sleep 0.05
	done
	fail "gave up waiting for $what"
}

# wait_log FILE PATTERN: until FILE has a line matching the (grep -E) PATTERN.
wait_log() {
	wait_for "'$2' in ${1##*/}" grep -qsE -- "$2" "$1"
}

listening() {
	ss -Hltn "sport = :$1" | grep -q LISTEN
}

# wait_listen PORT: until a TCP server listens on PORT (clients such as rtl_433 do not retry).
wait_listen() {
	wait_for "a listener on port $1" listening "$1"
}

# finish PID NAME: waits for PID and fails unless it exited with 0.
finish() {
	local rc=0
	wait "$1" || rc=$?
	[ "$rc" -eq 0 ] || fail "$2 exited with status $rc"
}

# recv_summary: the last zcs-recv's final JSON object (its last "summary" line).
recv_summary() {
	grep '"type":"summary"' "$RECV_LOG" | tail -n 1
}

# recv_expect EXPR...: python expressions over the summary `s` (and `o` = s["outputs"][0]) that
# must all hold, e.g. 's["lost"] == 0' 'o["bytes"] == 8000000'.
recv_expect() {
	local sum
	sum=$(recv_summary)
	[ -n "$sum" ] || fail "zcs-recv printed no JSON summary"
	"$PY" - "$sum" "$@" <<'EOF' || fail "zcs-recv's summary does not match"
import json, sys
s = json.loads(sys.argv[1])
o = s["outputs"][0] if s.get("outputs") else {}
bad = [e for e in sys.argv[2:] if not eval(e, {}, {"s": s, "o": o})]
keys = ("samples", "datagrams", "lost", "late", "duplicate", "gap_samples", "socket_drops",
        "overruns", "skipped")
print("zcs-recv: " + " ".join("%s=%s" % (k, s.get(k)) for k in keys) +
      " output: " + " ".join("%s=%s" % (k, v) for k, v in o.items() if k != "name"))
for e in bad:
    print("FAIL: zcs-recv summary: " + e)
sys.exit(1 if bad else 0)
EOF
}
