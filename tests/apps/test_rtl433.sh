#!/bin/bash
# SPDX-License-Identifier: MIT
# rtl_433 as an rtl_tcp client of zcs-recv (`rtl_433 -d rtl_tcp:HOST:PORT`) at its default
# 250 kS/s: it connects, sends its 5-byte commands (rate, frequency, gain), which zcs-recv must log
# with their values, and records what it received (-w FILE.cu8) for 2 s (-T 2).  The recording's
# tone is measured with numpy: frequency within one FFT bin (sign included) and power, and its
# byte count must be whole I/Q pairs that zcs-recv sent.  usage: test_rtl433.sh ZCS-SEND ZCS-RECV
source "$(dirname "$0")/apps_lib.sh" "$@"
PORT=23070 RTL=23071 RATE=250000 TONE=-31234 AMP=0.6

start_recv -o "rtl_tcp:127.0.0.1:$RTL" --exit-on-eos "127.0.0.1:$PORT"
wait_listen "$RTL"      # rtl_433 connects once and does not retry
start_send -s tone --tone "$TONE" --amplitude "$AMP" -r "$RATE" -n 5M -f p12 "127.0.0.1:$PORT"
REC=$WORK/rtl433.cu8
start_app rtl433 rtl_433 -d "rtl_tcp:127.0.0.1:$RTL" -T 2 -F null -w "$REC"
finish "$APP_PID" rtl_433
kill -TERM "$SEND_PID"
finish "$SEND_PID" zcs-send
finish "$RECV_PID" zcs-recv
grep -E 'rtl_tcp|Sample rate|Tuned' "$WORK/rtl433.log"
grep -E 'set_[a-z_]+ .*ignored' "$RECV_LOG" | sed 's/^.*client [^ ]*: /zcs-recv: command /'
grep -q "set_sample_rate $RATE ignored" "$RECV_LOG" || fail "no set_sample_rate $RATE logged"
grep -q "set_freq 433920000 ignored" "$RECV_LOG" || fail "no set_freq 433920000 logged"
# every command the client sent is one "NAME VALUE ignored" line; the JSON must count the same
NCMD=$(grep -cE 'client [^ ]+: [a-z_]+ [0-9]+ ignored' "$RECV_LOG")
BYTES=$(stat -c %s "$REC")
[ $((BYTES % 2)) -eq 0 ] || fail "rtl_433 recorded $BYTES bytes: not whole I/Q pairs"
[ "$BYTES" -ge $((2 * RATE)) ] || fail "rtl_433 recorded only $BYTES bytes in 2 s"
"$PY" "$GRTONE" raw "$REC" --format cu8 --label rtl_433 -r "$RATE" --tone "$TONE" \
	--amplitude "$AMP" --count $((BYTES / 2)) || fail "rtl_433's recording does not match"
recv_expect 's["lost"] == 0' 'o["connects"] == 1' 'o["overruns"] == 0' \
	'o["bytes"] >= '$BYTES 'o["commands"] == '$NCMD
echo "PASS ($NCMD commands logged, $BYTES bytes recorded by rtl_433)"
