#!/bin/bash
# SPDX-License-Identifier: MIT
# A retune through setFrequency lands on the emulated board (tests/board/fakeboard.sh: real
# libiio local: on a hand-made IIO tree): zcs-send -u local: --key --control streams the "radio",
# a python3-soapysdr client opens driver=zcs with key=, sees the board's LO range (from its get),
# sets 433.92 MHz; the RX LO attribute file then holds it and the stream's metadata announces it;
# then rtl_433's 250 kS/s by setSampleRate: the capture core delivers it (the AD9361 at 2 MS/s
# with libad9361's FIR, the FPGA's /8) and the stream announces it.
# Usage: board_retune.sh MODULE_DIR  (env BOARD_BIN, ZCS_SEND as tests/board)
MODULE=$1
. "$(dirname "$0")/../board/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
RATE=2000000
fakeboard_feed --follow-rate --rate $RATE --mark 200000
key=$FB_TMP/key
/usr/bin/python3 -c 'import os; print(os.urandom(32).hex())' > "$key"
chmod 600 "$key"
"$ZCS_SEND" -u local: -f p12 --rate $RATE --freq 915000000 --key "$key" \
	--control 127.0.0.1:5392 -q --cpus none 127.0.0.1:22180 2> "$FB_TMP/send.log" &
fakeboard_track $!
fakeboard_wait_feed 1 'reader took'
env=(SOAPY_SDR_PLUGIN_PATH="$MODULE")
# a sanitized module in python3, which is not: its runtime preloaded (tests/soapy/meson.build)
[ -n "${ZCS_SOAPY_PRELOAD:-}" ] && env+=(LD_PRELOAD="$ZCS_SOAPY_PRELOAD" ASAN_OPTIONS=detect_leaks=0)
env "${env[@]}" /usr/bin/python3 "$(dirname "$0")/soapy_retune.py" \
	"driver=zcs,addr=127.0.0.1:22180,key=$key,strict=1,timeout=30000" 433920000 250000 \
	> "$FB_TMP/client.json" 2> "$FB_TMP/client.log" || { tail -20 "$FB_TMP/client.log"; fb_die "client failed"; }
j() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$FB_TMP/client.json" "$1"; }
fakeboard_expect "$(j before)" 915000000.0 "getFrequency: the board's LO"
fakeboard_expect "$(j range)" "[[70000000.0, 6000000000.0]]" "frequency range from the board"
fakeboard_expect "$(fakeboard_attr $FB_PHY/out_altvoltage0_RX_LO_frequency)" 433920000 "LO in the tree"
fakeboard_expect "$(j after)" 433920000.0 "getFrequency after"
fakeboard_expect "$(j stream_frequency)" 433920000 "announced in the stream"
fakeboard_expect "$(j rates)" "[[65105.0, 61440000.0]]" "rate range from the board"
fakeboard_expect "$(fakeboard_attr $FB_LPC/in_voltage_sampling_frequency)" 250000 "setSampleRate 250 kS/s delivered"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage_sampling_frequency)" 2000000 "... the AD9361 at 2 MS/s"
fakeboard_expect "$(j rate_after)" 250000.0 "getSampleRate after"
fakeboard_expect "$(j stream_rate)" 250000 "rate announced in the stream"
echo "soapy board retune: ok"
