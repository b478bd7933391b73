#!/bin/bash
# SPDX-License-Identifier: MIT
# The libiio source over the network: the real iiod serves the emulated board on 127.0.0.1
# (this test's own network namespace); 2M pairs arrive exact and in order through `ip:`,
# settings given land in the tree, and a buffer disabled under iiod is rebuilt and flagged.
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
fakeboard_feed --rate 4000000 --mark 400000
fakeboard_iiod
out=$FB_TMP/probe.json

"$BOARD_BIN/iio_probe" -u ip:127.0.0.1 -r 4000000 -n 2000000 --check --freq 100000000 --bw 2000000 \
	> "$out" || fb_die "iio_probe over iiod failed"
fakeboard_expect "$(fakeboard_json "$out" pairs)" 2000000 "pairs"
fakeboard_expect "$(fakeboard_json "$out" bad)" 0 "pairs out of order or off the pattern"
fakeboard_expect "$(fakeboard_json "$out" first_k)" 0 "first pair"
fakeboard_expect "$(fakeboard_json "$out" discontinuities)" 0 "discontinuities"
fakeboard_expect "$(fakeboard_attr $FB_PHY/out_altvoltage0_RX_LO_frequency)" 100000000 "RX LO in the tree"
fakeboard_expect "$(fakeboard_json "$out" info.center_freq)" 100000000 "RX LO read back over iiod"
fakeboard_expect "$(fakeboard_json "$out" info.bandwidth)" 2000000 "bandwidth read back over iiod"

"$BOARD_BIN/iio_probe" -u ip:127.0.0.1 -r 4000000 -n 8000000 --check > "$out" 2> "$FB_TMP/probe.log" &
probe=$!
fakeboard_track $probe
fakeboard_wait_feed 2 'reader took'
echo 0 > $FB_LPC/buffer/enable
wait $probe || { cat "$FB_TMP/probe.log" >&2; fb_die "iio_probe failed"; }
fakeboard_expect "$(fakeboard_json "$out" pairs)" 8000000 "pairs after a rebuild"
fakeboard_expect "$(fakeboard_json "$out" discontinuities)" 1 "discontinuities counted"
fakeboard_expect "$(fakeboard_json "$out" jumps)" 1 "forward jumps at the flag"
fakeboard_expect "$(fakeboard_json "$out" bad)" 0 "pairs out of order or off the pattern"
echo "PASS"
