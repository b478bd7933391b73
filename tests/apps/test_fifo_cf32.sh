#!/bin/bash
# SPDX-License-Identifier: MIT
# (a) GNU Radio File Source on zcs-recv's FIFO: zcs-send sends a p12 tone of +123456 Hz, zcs-recv
# writes cf32 into a FIFO, a flowgraph (file_source -> file_sink) reads it until EOF.  Asserts the
# exact sample count, the tone's frequency (within one FFT bin, sign included) and its power.
# usage: test_fifo_cf32.sh ZCS-SEND ZCS-RECV
source "$(dirname "$0")/apps_lib.sh" "$@"
PORT=23010 RATE=2000000 TONE=123456 AMP=0.5 N=1000000

FIFO=$WORK/iq.fifo
start_recv -F cf32 -o "fifo:$FIFO" -n "$N" "127.0.0.1:$PORT"
wait_for "the FIFO" test -p "$FIFO"
start_app gr "$PY" "$GRTONE" fifo "$FIFO" --ready "$WORK/gr.ready" --label fifo-cf32 \
	-r "$RATE" --tone "$TONE" --amplitude "$AMP" --count "$N"
GR_PID=$APP_PID
wait_log "$RECV_LOG" 'reader came'
start_send -s tone --tone "$TONE" --amplitude "$AMP" -r "$RATE" -n "$N" -f p12 "127.0.0.1:$PORT"
finish "$SEND_PID" zcs-send
finish "$RECV_PID" zcs-recv
finish "$GR_PID" "the GNU Radio flowgraph"
cat "$WORK/gr.out"
recv_expect 's["samples"] == '$N 's["lost"] == 0' 's["gap_samples"] == 0' \
	'o["bytes"] == 8 * '$N 'o["overruns"] == 0' 'o["connects"] == 1'
echo "PASS"
