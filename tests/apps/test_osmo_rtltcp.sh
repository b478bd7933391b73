#!/bin/bash
# SPDX-License-Identifier: MIT
# (e) gr-osmosdr's "rtl_tcp=HOST:PORT" source (GQRX's rtl_tcp path) on zcs-recv's rtl_tcp output:
# the "RTL0" greeting, then cu8 at 2.4 MS/s (i8 on the wire).  The flowgraph sets rate and
# frequency as GQRX does; zcs-recv must log those 5-byte commands with their values (and obey
# none).  Asserts the tone's frequency within one FFT bin (sign included) and its power on 1.2 M
# samples.  osmosdr's rtl_tcp source waits forever at EOF, so the count here is the head block's
# and zcs-send streams until the flowgraph is done.  The source connects in its constructor and
# the flowgraph starts only later (here 2 s later, as GQRX's does when its user presses start):
# whatever the client could not take meanwhile is skipped at its start (reported, not asserted:
# it depends on what gr-osmosdr and the kernel buffer), never an overrun (#24).
# usage: test_osmo_rtltcp.sh ZCS-SEND ZCS-RECV
source "$(dirname "$0")/apps_lib.sh" "$@"
PORT=23060 RTL=23061 RATE=2400000 TONE=301234 AMP=0.5 LIMIT=1200000 FREQ=433920000

start_recv -o "rtl_tcp:127.0.0.1:$RTL" --exit-on-eos "127.0.0.1:$PORT"
wait_listen "$RTL"
# sent for 12.5 s at most; the flowgraph needs 0.5 s of it
start_send -s tone --tone "$TONE" --amplitude "$AMP" -r "$RATE" -n 30M -f i8 "127.0.0.1:$PORT"
# The stream runs before the application opens it, as a user's does.  Connected while the first
# datagrams still waited for their metadata, gr-osmosdr 0.2's rtl_tcp source once in ~30 runs
# measured 2^18 samples of the tone and then near-zeros, in 0.8 s instead of 1.3 s; not
# root-caused (docs/outputs.md, rtl_tcp:)
wait_log "$RECV_LOG" 'starting at datagram'
start_app gr "$PY" "$GRTONE" osmo-rtltcp "127.0.0.1:$RTL" --label osmo-rtltcp \
	-r "$RATE" --freq "$FREQ" --tone "$TONE" --amplitude "$AMP" --limit "$LIMIT" --count "$LIMIT" \
	--start-delay 2
finish "$APP_PID" "the gr-osmosdr rtl_tcp= flowgraph"
kill -TERM "$SEND_PID"   # SIGTERM ends the stream cleanly; zcs-recv then exits on its end
finish "$SEND_PID" zcs-send
finish "$RECV_PID" zcs-recv
cat "$WORK/gr.out"
grep -E 'set_[a-z_]+ .*ignored' "$RECV_LOG" | sed 's/^.*client [^ ]*: /zcs-recv: command /'
grep -q "set_sample_rate $RATE ignored" "$RECV_LOG" || fail "no set_sample_rate $RATE logged"
grep -q "set_freq $FREQ ignored" "$RECV_LOG" || fail "no set_freq $FREQ logged"
# every command the client sent is one "NAME VALUE ignored" line; the JSON must count the same
NCMD=$(grep -cE 'client [^ ]+: [a-z_]+ [0-9]+ ignored' "$RECV_LOG")
recv_expect 's["lost"] == 0' 'o["connects"] == 1' 'o["overruns"] == 0' \
	'o["bytes"] >= 2 * '$LIMIT 'o["commands"] == '$NCMD
echo "PASS ($NCMD commands logged)"
