#!/bin/bash
# SPDX-License-Identifier: MIT
# zcs-send end to end through the real iiod: the emulated board served on 127.0.0.1 (this
# test's own network namespace) and streamed with -u ip:127.0.0.1, p12: 2M pairs exact and in
# order; then the buffer is disabled under iiod mid-stream and the stream goes on, flagged.
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
fakeboard_feed --rate 4000000 --mark 400000
fakeboard_iiod
out=$FB_TMP/check.json

"$BOARD_BIN/check_board" --port 22002 --out "$out" -- "$ZCS_SEND" -u ip:127.0.0.1 --rate 4000000 -f p12 \
	-n 2000000 --json -q --cpus none 127.0.0.1:22002 2> "$FB_TMP/send.json" ||
	{ cat "$out"; fb_die "stream over iiod failed"; }
fakeboard_expect "$(fakeboard_json "$out" pairs)" 2000000 "pairs"
fakeboard_expect "$(fakeboard_json "$out" first_k)" 0 "first pair"
fakeboard_expect "$(fakeboard_json "$out" last_k)" 1999999 "last pair"
fakeboard_expect "$(fakeboard_json "$out" flagged)" 0 "datagrams flagged DISCONT"
fakeboard_expect "$(fakeboard_json "$out" meta.center_freq)" 2400000000 "metadata RX LO over iiod"

"$BOARD_BIN/check_board" --port 22002 --out "$out" -- "$ZCS_SEND" -u ip:127.0.0.1 --rate 4000000 -f i16 \
	-n 8000000 --json -q --cpus none 127.0.0.1:22002 2> "$FB_TMP/send.json" &
check=$!
fakeboard_track $check
fakeboard_wait_feed 2 'reader took'
echo 0 > $FB_LPC/buffer/enable
wait $check || { cat "$out" "$FB_TMP/send.json"; fb_die "stream over iiod with a rebuild failed"; }
fakeboard_expect "$(fakeboard_json "$out" pairs)" 8000000 "pairs with a rebuild"
fakeboard_expect "$(fakeboard_json "$out" flagged)" 1 "datagrams flagged DISCONT"
fakeboard_expect "$(fakeboard_json "$out" jumps)" 1 "forward jumps at the flag"
fakeboard_expect "$(fakeboard_json "$FB_TMP/send.json" discontinuities)" 1 "sender's discontinuities"
echo "PASS"
