#!/bin/bash
# SPDX-License-Identifier: MIT
# The libiio source on real libiio `local:` against the emulated board, read directly (no
# zcs-send): 2M pairs of rx1 arrive exact and in order from pair 0, then rx2 gives rx2's data.
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
fakeboard_feed
out=$FB_TMP/probe.json

"$BOARD_BIN/iio_probe" -u local: -n 2000000 --check > "$out" || fb_die "iio_probe rx1 failed"
fakeboard_expect "$(fakeboard_json "$out" pairs)" 2000000 "rx1 pairs"
fakeboard_expect "$(fakeboard_json "$out" bad)" 0 "rx1 pairs off the pattern"
fakeboard_expect "$(fakeboard_json "$out" first_k)" 0 "rx1 first pair"
fakeboard_expect "$(fakeboard_json "$out" last_k)" 1999999 "rx1 last pair"
fakeboard_expect "$(fakeboard_json "$out" discontinuities)" 0 "rx1 discontinuities"
fakeboard_expect "$(fakeboard_json "$out" info.sample_rate)" 30720000 "rate read back"
fakeboard_expect "$(fakeboard_json "$out" info.center_freq)" 2400000000 "RX LO read back"
fakeboard_expect "$(fakeboard_json "$out" info.gain_mdb)" 71000 "gain read back"
fakeboard_expect "$(fakeboard_json "$out" info.gain_mode)" 1 "gain mode (slow_attack) read back"
# Nothing was given, so nothing was written: the radio keeps what it had.
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage_sampling_frequency)" 30720000 "rate untouched"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage0_gain_control_mode)" slow_attack "gain mode untouched"

"$BOARD_BIN/iio_probe" -u local: -n 300000 --channel rx2 --check > "$out" || fb_die "iio_probe rx2 failed"
fakeboard_expect "$(fakeboard_json "$out" bad)" 0 "rx2 pairs off rx2's pattern"
fakeboard_expect "$(fakeboard_json "$out" info.channel)" 1 "rx2 channel"
# The buffer is given back: disabled, channels off (as the kernel would see it).
fakeboard_expect "$(fakeboard_attr $FB_LPC/buffer/enable)" 0 "buffer disabled after close"
grep -q 'enabled mask 0xc' "$FB_TMP/feed.log" || fb_die "rx2 did not enable voltage2/3 only"
echo "PASS"
