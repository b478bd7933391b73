#!/bin/bash
# SPDX-License-Identifier: MIT
# zcs-send end to end on the emulated board through real libiio `local:`: 2M pairs of rx1 as
# i16, then rx2 as p12, reach a checking receiver exact and in order, with EOS and metadata
# carrying what the radio reads back.  Own network namespace; port 22001.
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
fakeboard_feed --rate 4000000
out=$FB_TMP/check.json

"$BOARD_BIN/check_board" --port 22001 --out "$out" -- "$ZCS_SEND" -s iio -u local: -f i16 \
	-n 2000000 --json -q --cpus none 127.0.0.1:22001 2> "$FB_TMP/send.json" ||
	{ cat "$out" "$FB_TMP/send.json"; fb_die "rx1 i16 stream failed"; }
fakeboard_expect "$(fakeboard_json "$out" pairs)" 2000000 "rx1 pairs"
fakeboard_expect "$(fakeboard_json "$out" first_k)" 0 "rx1 first pair"
fakeboard_expect "$(fakeboard_json "$out" last_k)" 1999999 "rx1 last pair"
fakeboard_expect "$(fakeboard_json "$out" flagged)" 0 "datagrams flagged DISCONT"
fakeboard_expect "$(fakeboard_json "$out" meta.sample_rate)" 30720000 "metadata rate"
fakeboard_expect "$(fakeboard_json "$out" meta.center_freq)" 2400000000 "metadata RX LO"
fakeboard_expect "$(fakeboard_json "$out" meta.bandwidth)" 18000000 "metadata bandwidth"
fakeboard_expect "$(fakeboard_json "$out" meta.gain_mdb)" 71000 "metadata gain"
fakeboard_expect "$(fakeboard_json "$out" meta.gain_mode)" 1 "metadata gain mode (slow)"
fakeboard_expect "$(fakeboard_json "$out" meta.source)" iio "metadata source"
fakeboard_expect "$(fakeboard_json "$FB_TMP/send.json" samples)" 2000000 "sender's samples"

"$BOARD_BIN/check_board" --port 22001 --rx rx2 --out "$out" -- "$ZCS_SEND" -u local: -f p12 \
	--channel rx2 -n 500000 --json -q --cpus none 127.0.0.1:22001 2> "$FB_TMP/send.json" ||
	{ cat "$out"; fb_die "rx2 p12 stream failed"; }
fakeboard_expect "$(fakeboard_json "$out" pairs)" 500000 "rx2 pairs"
fakeboard_expect "$(fakeboard_json "$out" meta.channel)" 1 "metadata channel"
echo "PASS"
