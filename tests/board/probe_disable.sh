#!/bin/bash
# SPDX-License-Identifier: MIT
# The buffer is disabled under the libiio source, twice: by a plain write of 0 to buffer/enable
# (libiio reserves that file: iio_attr cannot), then by another libiio program, iio_readdev,
# trying to grab the radio (it disables the buffer, then gets EBUSY, as on the board).  The
# source rebuilds its buffer each time, flags exactly those two discontinuities, counts them,
# and every other pair arrives in order.  Each disturbance waits until the reader took two blocks
# since the last enable (feed_iq --mark), so the two losses are two gaps (README.md).
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
fakeboard_feed --rate 2500000 --jump 1000000 --mark 300000
out=$FB_TMP/probe.json

"$BOARD_BIN/iio_probe" -u local: -r 2500000 -n 8000000 --check > "$out" 2> "$FB_TMP/probe.log" &
probe=$!
fakeboard_track $probe
fakeboard_wait_feed 1 'reader took'
echo 0 > $FB_LPC/buffer/enable
fakeboard_wait_feed 2 'reader took'
if iio_readdev -u local: -s 4096 cf-ad9361-lpc voltage0 voltage1 > /dev/null 2> "$FB_TMP/readdev.log"; then
	fb_die "iio_readdev got the radio while the source streamed"
fi
fakeboard_wait_feed 3 'enabled mask 0x3'
wait $probe || { cat "$FB_TMP/probe.log" >&2; fb_die "iio_probe failed"; }
fakeboard_expect "$(fakeboard_json "$out" pairs)" 8000000 "pairs"
fakeboard_expect "$(fakeboard_json "$out" discontinuities)" 2 "discontinuities counted"
fakeboard_expect "$(fakeboard_json "$out" flagged)" 2 "reads flagged DISCONT"
fakeboard_expect "$(fakeboard_json "$out" jumps)" 2 "forward jumps at the flags"
fakeboard_expect "$(fakeboard_json "$out" bad)" 0 "pairs out of order or off the pattern"
fakeboard_expect "$(fakeboard_json "$out" first_k)" 0 "first pair"
echo "PASS"
