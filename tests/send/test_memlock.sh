#!/bin/bash
# SPDX-License-Identifier: MIT
# Zero-copy without locked memory: without CAP_IPC_LOCK and with RLIMIT_MEMLOCK at 64 KB, io_uring
# cannot register the 4 MB slot pool, so `--send-path auto` must fall back to msg-zc at start-up,
# saying why; MSG_ZEROCOPY then cannot pin pages either (ENOBUFS), so the first whole train demotes
# msg-zc to gso at run time.  Every sample must still arrive (check_stream checks them all), none
# dropped, one demotion, and a forced `--send-path uring-zc` must be refused at start (exit 1).
# Usage: test_memlock.sh ZCS-SEND CHECK-STREAM PORT
set -u
SEND=$1 CHECK=$2 PORT=$3
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
# full paths: check_stream starts the sender with execv
LIMIT=("$(command -v prlimit)" --memlock=65536 "$(command -v setpriv)" --bounding-set -ipc_lock
	--inh-caps -ipc_lock)
fail() {
	echo "FAIL: $*"
	sed 's/^/  | /' "$LOG"
	exit 1
}

"$CHECK" --port "$PORT" --format p12 --source tone --count 300000 --expect-final-path gso \
	--expect-demotions 1 -- "${LIMIT[@]}" "$SEND" --json -q --cpus none -s tone -r max \
	-n 300000 "127.0.0.1:$PORT" >"$LOG" 2>&1 || fail "check_stream"
cat "$LOG"
# Which io_uring step meets the limit first depends on the build (under ASan the ring set-up
# itself gets ENOMEM); either way the line must name the step and the reason.
grep -Eq "send path: msg-zc \(uring-zc unavailable: io_uring (buffer registration|setup): " "$LOG" ||
	fail "no start-up line saying why io_uring is not used"
grep -q "send path: msg-zc failed (No buffer space available), now gso" "$LOG" ||
	fail "no log line for the demotion of msg-zc"

"${LIMIT[@]}" "$SEND" -q --cpus none -s tone -r max -n 1000 --send-path uring-zc \
	"127.0.0.1:$PORT" >"$LOG" 2>&1
rc=$?
cat "$LOG"
[ $rc = 1 ] || fail "forced uring-zc without locked memory: exit status $rc, expected 1"
grep -q "io_uring buffer registration" "$LOG" || fail "the refusal does not say why"
echo "ok: start-up fallback to msg-zc and run-time demotion to gso without locked memory"
