#!/bin/bash
# SPDX-License-Identifier: MIT
# (d) gr-osmosdr's file source, GQRX's "file=PATH,rate=R,freq=F,repeat=false,throttle=false", on a
# cf32 recording zcs-recv wrote (-o file:PATH.cf32, -n N), and then the same device string on a
# live FIFO (how GQRX follows zcs-recv).  Asserts the exact count, the tone's frequency within one
# FFT bin (sign included) and its power, both times.  usage: test_osmo_file.sh ZCS-SEND ZCS-RECV
source "$(dirname "$0")/apps_lib.sh" "$@"
PORT=23040 RATE=2400000 TONE=-412345 AMP=0.5 N=1200000

# 1. a recording, read after the fact
REC=$WORK/rec.cf32
start_recv -F cf32 -o "file:$REC" -n "$N" "127.0.0.1:$PORT"
wait_log "$RECV_LOG" 'listening on'
start_send -s tone --tone "$TONE" --amplitude "$AMP" -r "$RATE" -n "$N" -f p12 "127.0.0.1:$PORT"
finish "$SEND_PID" zcs-send
finish "$RECV_PID" zcs-recv
recv_expect 's["samples"] == '$N 's["lost"] == 0' 'o["bytes"] == 8 * '$N
[ "$(stat -c %s "$REC")" -eq $((8 * N)) ] || fail "the recording has $(stat -c %s "$REC") bytes"
start_app osmo "$PY" "$GRTONE" osmo-file "$REC" --label osmo-file \
	-r "$RATE" --freq 433920000 --tone "$TONE" --amplitude "$AMP" --count "$N"
finish "$APP_PID" "the gr-osmosdr file= flowgraph"
cat "$WORK/osmo.out"

# 2. live, through a FIFO: osmosdr's file= opens it in its constructor (blocking until zcs-recv
# opens the other end), and zcs-recv's -n ends the stream, which is EOF for the flowgraph.
FIFO=$WORK/live.fifo
start_recv -F cf32 -o "fifo:$FIFO" -n "$N" "127.0.0.1:$((PORT + 1))"
wait_for "the FIFO" test -p "$FIFO"
start_app osmofifo "$PY" "$GRTONE" osmo-file "$FIFO" --label osmo-file-fifo \
	-r "$RATE" --freq 433920000 --tone "$TONE" --amplitude "$AMP" --count "$N"
GR_PID=$APP_PID
wait_log "$RECV_LOG" 'reader came'
start_send -s tone --tone "$TONE" --amplitude "$AMP" -r "$RATE" -n "$N" -f i16 \
	"127.0.0.1:$((PORT + 1))"
finish "$SEND_PID" zcs-send
finish "$RECV_PID" zcs-recv
finish "$GR_PID" "the gr-osmosdr file= flowgraph on the FIFO"
cat "$WORK/osmofifo.out"
recv_expect 's["samples"] == '$N 's["lost"] == 0' 'o["bytes"] == 8 * '$N 'o["overruns"] == 0'
echo "PASS"
