#!/bin/bash
# SPDX-License-Identifier: MIT
# The measuring side checked on its own, with fakesrc.py standing in for zcs-recv: a correct
# tone through a real GNU Radio FIFO flowgraph and a real TCP Source flowgraph passes, and each
# fault grtone.py must catch makes it fail (exit 1): I/Q swapped, amplitude off by 1 dB, one
# sample missing, tone off by two bins.  usage: test_selfcheck.sh (no arguments needed)
source "$(dirname "$0")/apps_lib.sh" "${1:-none}" "${2:-none}"
FAKE=$APPS_DIR/fakesrc.py
PORT=23080 RATE=2000000 TONE=123456 AMP=0.5 N=300000
TONE_ARGS=(-r "$RATE" --tone "$TONE" --amplitude "$AMP")

# expect RC LABEL KIND: fakesrc (with FAKE_ARGS) into grtone (with GR_ARGS); grtone's status must
# be RC.
expect() {
	local want=$1 label=$2 kind=$3 rc=0 fifo=$WORK/$2.fifo
	if [ "$kind" = fifo ]; then
		"$PY" "$FAKE" fifo "$fifo" "${TONE_ARGS[@]}" -n "$N" "${FAKE_ARGS[@]}" &
		PIDS+=($!)
		wait_for "$fifo" test -p "$fifo"
		timeout 60 "$PY" "$GRTONE" fifo "$fifo" --label "$label" "${GR_ARGS[@]}" \
			>"$WORK/$label.out" 2>"$WORK/$label.log" || rc=$?
	else
		PORT=$((PORT + 1))
		"$PY" "$FAKE" tcp "$PORT" --format cs16 "${TONE_ARGS[@]}" -n "$N" "${FAKE_ARGS[@]}" &
		PIDS+=($!)
		timeout 60 "$PY" "$GRTONE" tcp "127.0.0.1:$PORT" --format cs16 --label "$label" \
			"${GR_ARGS[@]}" >"$WORK/$label.out" 2>"$WORK/$label.log" || rc=$?
	fi
	sed 's/^/  /' "$WORK/$label.out"
	[ "$rc" -eq "$want" ] || fail "$label: grtone.py exited with $rc, want $want"
	echo "ok: $label (exit $rc)"
}

FAKE_ARGS=() GR_ARGS=("${TONE_ARGS[@]}" --count "$N")
expect 0 good-fifo fifo
expect 0 good-tcp tcp
FAKE_ARGS=(--swap-iq)
expect 1 swapped-iq fifo
FAKE_ARGS=() GR_ARGS=(-r "$RATE" --tone "$TONE" --amplitude 0.562 --count "$N")
expect 1 amplitude-1dB tcp
GR_ARGS=("${TONE_ARGS[@]}" --count $((N + 1)))
expect 1 one-sample-short fifo
GR_ARGS=(-r "$RATE" --tone $((TONE + 2 * RATE / 65536)) --amplitude "$AMP" --count "$N")
expect 1 two-bins-off tcp
echo "PASS"
