#!/bin/bash
# SPDX-License-Identifier: MIT
# gr-network TCP Source (client mode) on zcs-recv's TCP server, cs16 over i16 on the wire:
# (b) interleaved int16 (itemsize 4, interleaved_short_to_complex / 32768).  The tone is at
# -301234 Hz: an I/Q swap anywhere (zcs-send, zcs-recv, the reading) shows it at +301234 and fails.
# Asserts the exact sample count (zcs-recv -n closes the connection: EOF ends the flowgraph), the
# tone's frequency within one FFT bin and its power.  usage: test_tcp_cs16.sh ZCS-SEND ZCS-RECV
source "$(dirname "$0")/apps_lib.sh" "$@"
PORT=23020 TCP=23021 RATE=2000000 TONE=-301234 AMP=0.7 N=1500000

start_recv -F cs16 -o "tcp:127.0.0.1:$TCP" -n "$N" "127.0.0.1:$PORT"
wait_listen "$TCP"
start_app gr "$PY" "$GRTONE" tcp "127.0.0.1:$TCP" --format cs16 --label tcp-cs16 \
	-r "$RATE" --tone "$TONE" --amplitude "$AMP" --count "$N"
GR_PID=$APP_PID
# Connected is not yet accepted: start sending only once zcs-recv has the client.
wait_log "$RECV_LOG" 'client .* came'
start_send -s tone --tone "$TONE" --amplitude "$AMP" -r "$RATE" -n "$N" -f i16 "127.0.0.1:$PORT"
finish "$SEND_PID" zcs-send
finish "$RECV_PID" zcs-recv
finish "$GR_PID" "the GNU Radio flowgraph"
cat "$WORK/gr.out"
recv_expect 's["samples"] == '$N 's["lost"] == 0' 's["gap_samples"] == 0' \
	'o["bytes"] == 4 * '$N 'o["overruns"] == 0' 'o["connects"] == 1'
echo "PASS"
