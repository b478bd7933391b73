#!/bin/bash
# SPDX-License-Identifier: MIT
# zcs-send on `local:` while the buffer is disabled under it twice: by a write of 0 to
# buffer/enable, then by iio_readdev trying to grab the radio (disables, then EBUSY).  The
# stream goes on: exactly two datagrams flagged DISCONT, each where the samples jump forward,
# all else in order, and the sender counts two discontinuities.  Each disturbance waits until
# the reader took two blocks since the last enable (feed_iq --mark): a disable that came before
# any block of the rebuilt buffer went out would make one gap of two losses, one flag (README.md).
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
fakeboard_feed --rate 2500000 --mark 300000
out=$FB_TMP/check.json

"$BOARD_BIN/check_board" --port 22003 --out "$out" -- "$ZCS_SEND" -u local: --rate 2500000 -f i16 \
	-n 8000000 --json -q --cpus none 127.0.0.1:22003 2> "$FB_TMP/send.json" &
check=$!
fakeboard_track $check
fakeboard_wait_feed 1 'reader took'
echo 0 > $FB_LPC/buffer/enable
fakeboard_wait_feed 2 'reader took'
if iio_readdev -u local: -s 4096 cf-ad9361-lpc voltage0 voltage1 > /dev/null 2> "$FB_TMP/readdev.log"; then
	fb_die "iio_readdev got the radio while zcs-send streamed"
fi
fakeboard_wait_feed 3 'enabled mask 0x3'
wait $check || { cat "$out" "$FB_TMP/send.json"; fb_die "stream with rebuilds failed"; }
fakeboard_expect "$(fakeboard_json "$out" pairs)" 8000000 "pairs"
fakeboard_expect "$(fakeboard_json "$out" first_k)" 0 "first pair"
fakeboard_expect "$(fakeboard_json "$out" flagged)" 2 "datagrams flagged DISCONT"
fakeboard_expect "$(fakeboard_json "$out" jumps)" 2 "forward jumps at the flags"
fakeboard_expect "$(fakeboard_json "$FB_TMP/send.json" discontinuities)" 2 "sender's discontinuities"
echo "PASS"
