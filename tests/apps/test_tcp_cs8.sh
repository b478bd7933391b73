#!/bin/bash
# SPDX-License-Identifier: MIT
# gr-network TCP Source (client mode) on zcs-recv's TCP server, cs8 over i8 on the wire:
# (c) interleaved int8 (itemsize 2, interleaved_char_to_complex / 128).
# Asserts the exact sample count (zcs-recv -n closes the connection: EOF ends the flowgraph), the
# tone's frequency within one FFT bin and its power.  usage: test_tcp_cs8.sh ZCS-SEND ZCS-RECV
source "$(dirname "$0")/apps_lib.sh" "$@"
PORT=23030 TCP=23031 RATE=2000000 TONE=251234 AMP=0.7 N=1500000

start_recv -F cs8 -o "tcp:127.0.0.1:$TCP" -n "$N" "127.0.0.1:$PORT"
wait_listen "$TCP"
start_app gr "$PY" "$GRTONE" tcp "127.0.0.1:$TCP" --format cs8 --label tcp-cs8 \
	-r "$RATE" --tone "$TONE" --amplitude "$AMP" --count "$N"
GR_PID=$APP_PID
# Connected is not yet accepted: start sending only once zcs-recv has the client.
wait_log "$RECV_LOG" 'client .* came'
start_send -s tone --tone "$TONE" --amplitude "$AMP" -r "$RATE" -n "$N" -f i8 "127.0.0.1:$PORT"
finish "$SEND_PID" zcs-send
finish "$RECV_PID" zcs-recv
finish "$GR_PID" "the GNU Radio flowgraph"
cat "$WORK/gr.out"
recv_expect 's["samples"] == '$N 's["lost"] == 0' 's["gap_samples"] == 0' \
	'o["bytes"] == 2 * '$N 'o["overruns"] == 0' 'o["connects"] == 1'
echo "PASS"
