# SPDX-License-Identifier: MIT
# mcast_lib.sh: what the multicast lab tests (test_mcast_*.sh) share: the programs, a scratch
# directory, failure bookkeeping, a loopback reference run, and zcs-recv/zcs-send started in lab hosts.
#
# Usage (sourced, after setting MCAST_NAME):  source mcast_lib.sh ZCS-SEND ZCS-RECV
#   mcast_reference HOST NAME SEND-ARGS...   zcs-send SEND-ARGS --unpaced to zcs-recv over HOST's
#                                    own loopback: $TMP/NAME.cs16 is what every receiver must get
#   mcast_recv HOST NAME ADDR[:PORT] [ARGS...]  zcs-recv in HOST's namespace in the background,
#                                    joined on eth0, cs16 into $TMP/NAME.cs16, log $TMP/NAME.log;
#                                    returns once it has joined (the group is on eth0's list)
#   mcast_recv_wait NAME...          wait for those receivers to exit (status 0 expected)
#   mcast_send HOST NAME SEND-ARGS... zcs-send in HOST (foreground), output in $TMP/NAME.log
#   mcast_send_bg HOST NAME SEND-ARGS...  the same in the background; mcast_send_wait NAME...
#   mcast_pid_of HOST PROGRAM        pid of PROGRAM in HOST's namespace (to kill one receiver)
#   mcast_expect NAME KEY=VAL...     check fields of NAME's final JSON summary (mcast_check.py)
#   mcast_get NAME KEY               print one field of it (zcs-send's summary too)
#   mcast_check CMD ARGS...          run another mcast_check.py check; a failure is recorded
#   mcast_done                       print the verdict and exit 0 or 1
# Every zcs-recv runs under `timeout`, so a lost end of stream fails the test instead of hanging it.

ZCS_SEND=$1
ZCS_RECV=$2
MCAST_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=/usr/bin/python3
# shellcheck source=lab.sh
source "$MCAST_HERE/lab.sh"

if ! [ -x "$ZCS_SEND" ] || ! [ -x "$ZCS_RECV" ]; then
	echo "usage: $0 ZCS-SEND ZCS-RECV" >&2
	exit 2
fi

TMP=$(mktemp -d "/tmp/zcs-lab-$MCAST_NAME.XXXXXX")
[ "${MCAST_KEEP:-0}" = 1 ] || lab_on_exit rm -rf "$TMP"
FAILED=0
declare -A MCAST_PID=()
MCAST_REF_PORT=24690
MCAST_RECV_TIMEOUT=${MCAST_RECV_TIMEOUT:-40}

fail() {
	echo "FAIL: $*" >&2
	FAILED=1
}

# wait until ADDR is on HOST's eth0 multicast list (the receiver's join took effect)
_mcast_joined() {
	local host=$1 addr=$2
	for _ in $(seq 200); do
		ip -n "$(lab_ns "$host")" maddr show dev eth0 2>/dev/null | grep -qw -- "$addr" && return 0
		sleep 0.05
	done
	return 1
}

_mcast_listening() {
	local log=$1
	for _ in $(seq 200); do
		grep -q "listening on" "$log" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

mcast_recv() {
	local host=$1 name=$2 dest=$3 addr
	shift 3
	lab_bg "$host" "$TMP/$name.log" timeout "$MCAST_RECV_TIMEOUT" "$ZCS_RECV" "$dest" --iface eth0 \
		-o "file:$TMP/$name.cs16" -F cs16 --exit-on-eos --json --interval 0 "$@"
	MCAST_PID[$name]=$LAB_BG_PID
	_mcast_listening "$TMP/$name.log" || { fail "$name: zcs-recv did not start: $(cat "$TMP/$name.log")"; return 1; }
	# the group: "[ff15::1]:P" -> ff15::1, "239.1.2.3:P" -> 239.1.2.3
	addr=$dest
	if [[ $addr == \[* ]]; then addr=${addr#[}; addr=${addr%%]*}; else addr=${addr%%:*}; fi
	_mcast_joined "$host" "$addr" || { fail "$name: $addr never joined on $host's eth0"; return 1; }
}

mcast_recv_wait() {
	local name rc
	for name in "$@"; do
		wait "${MCAST_PID[$name]}"
		rc=$?
		[ "$rc" = 0 ] || fail "$name: zcs-recv exited with status $rc (124: no end of stream in ${MCAST_RECV_TIMEOUT} s): $(tail -3 "$TMP/$name.log")"
	done
}

mcast_send() {
	local host=$1 name=$2
	shift 2
	lab_exec "$host" "$ZCS_SEND" --json -q --cpus none "$@" >"$TMP/$name.log" 2>&1 ||
		fail "$name: zcs-send failed: $(tail -3 "$TMP/$name.log")"
}

mcast_send_bg() {
	local host=$1 name=$2
	shift 2
	lab_bg "$host" "$TMP/$name.log" timeout "$MCAST_RECV_TIMEOUT" "$ZCS_SEND" --json -q --cpus none "$@"
	MCAST_PID[$name]=$LAB_BG_PID
}

mcast_send_wait() {
	local name rc
	for name in "$@"; do
		wait "${MCAST_PID[$name]}"
		rc=$?
		[ "$rc" = 0 ] || fail "$name: zcs-send exited with status $rc: $(tail -3 "$TMP/$name.log")"
	done
}

# the pid of PROGRAM (a command name) running in HOST's namespace, for a targeted kill
mcast_pid_of() {
	local host=$1 prog=$2 p
	for p in $(ip netns pids "$(lab_ns "$host")" 2>/dev/null); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$prog" ] && { echo "$p"; return 0; }
	done
	return 1
}

mcast_reference() {
	local host=$1 name=$2 pid rc
	shift 2
	lab_bg "$host" "$TMP/$name.log" timeout 30 "$ZCS_RECV" "127.0.0.1:$MCAST_REF_PORT" \
		-o "file:$TMP/$name.cs16" -F cs16 --exit-on-eos --json --interval 0
	pid=$LAB_BG_PID
	_mcast_listening "$TMP/$name.log" || { fail "reference $name: zcs-recv did not start"; return 1; }
	mcast_send "$host" "$name-tx" "$@" --unpaced "127.0.0.1:$MCAST_REF_PORT"
	wait "$pid"
	rc=$?
	[ "$rc" = 0 ] || { fail "reference $name: zcs-recv exited with $rc: $(tail -3 "$TMP/$name.log")"; return 1; }
	# a reference with a hole would make every comparison meaningless
	mcast_expect "$name" lost=0 duplicate=0 late=0 gap_samples=0 socket_drops=0 invalid=0 eos=1
	MCAST_REF_PORT=$((MCAST_REF_PORT + 1))
}

mcast_expect() {
	local name=$1
	shift
	"$PY" "$MCAST_HERE/mcast_check.py" expect "$TMP/$name.log" "$@" || FAILED=1
}

mcast_get() {
	"$PY" "$MCAST_HERE/mcast_check.py" get "$TMP/$1.log" "$2"
}

mcast_check() {
	"$PY" "$MCAST_HERE/mcast_check.py" "$@" || FAILED=1
}

mcast_done() {
	if [ "$FAILED" != 0 ]; then
		echo "$MCAST_NAME: FAILED (logs in $TMP, kept only with MCAST_KEEP=1)" >&2
		exit 1
	fi
	echo "$MCAST_NAME: all checks passed"
	exit 0
}
