#!/bin/bash
# SPDX-License-Identifier: MIT
# Radio settings through the libiio source: rate, RX LO, bandwidth, manual gain of rx2 land in
# the emulated ad9361-phy's attribute files and are read back; an AGC mode likewise; then a
# retune by another libiio program (iio_attr) is noticed by poll_info.
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
fakeboard_feed --rate 2000000
out=$FB_TMP/probe.json

"$BOARD_BIN/iio_probe" -u local: -n 20000 --check --channel rx2 --rate 5000000 \
	--freq 915000000 --bw 4000000 --gain 20.5 > "$out" || fb_die "iio_probe failed"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage_sampling_frequency)" 5000000 "rate in the tree"
fakeboard_expect "$(fakeboard_attr $FB_PHY/out_altvoltage0_RX_LO_frequency)" 915000000 "RX LO in the tree"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage_rf_bandwidth)" 4000000 "bandwidth in the tree"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage1_gain_control_mode)" manual "rx2 gain mode in the tree"
gain=$(fakeboard_attr $FB_PHY/in_voltage1_hardwaregain)
/usr/bin/python3 -c "import sys; sys.exit(abs(float('$gain'.split()[0]) - 20.5) > 1e-6)" ||
	fb_die "rx2 hardwaregain in the tree: '$gain'"
echo "ok: rx2 hardwaregain in the tree = $gain"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage0_gain_control_mode)" slow_attack "rx1 gain mode untouched"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage0_hardwaregain)" "71.000000 dB" "rx1 gain untouched"
fakeboard_expect "$(fakeboard_json "$out" info.sample_rate)" 5000000 "rate read back"
fakeboard_expect "$(fakeboard_json "$out" info.center_freq)" 915000000 "RX LO read back"
fakeboard_expect "$(fakeboard_json "$out" info.bandwidth)" 4000000 "bandwidth read back"
fakeboard_expect "$(fakeboard_json "$out" info.gain_mdb)" 20500 "gain read back"
fakeboard_expect "$(fakeboard_json "$out" info.gain_mode)" 0 "gain mode read back (manual)"
fakeboard_expect "$(fakeboard_json "$out" info.channel)" 1 "channel"
fakeboard_expect "$(fakeboard_json "$out" bad)" 0 "pairs off rx2's pattern"

# What the radio does is what is reported: the read-back wins over what was asked.  A rounding
# driver, by hand: the AD9361's rate and the capture core's (which delivers it) both show it.
printf '4999998\n' > $FB_PHY/in_voltage_sampling_frequency
printf '4999998\n' > $FB_LPC/in_voltage_sampling_frequency
"$BOARD_BIN/iio_probe" -u local: -n 4096 --gain fast > "$out" || fb_die "iio_probe fast failed"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage0_gain_control_mode)" fast_attack "AGC mode in the tree"
fakeboard_expect "$(fakeboard_json "$out" info.gain_mode)" 2 "AGC mode read back (fast)"
fakeboard_expect "$(fakeboard_json "$out" info.sample_rate)" 4999998 "rate as the radio has it"

# Someone else retunes while we stream: poll_info reports it.
"$BOARD_BIN/iio_probe" -u local: -n 4000000 --check --poll 0.2 > "$out" &
probe=$!
fakeboard_track $probe
sleep 0.7
iio_attr -q -u local: -o -c ad9361-phy altvoltage0 frequency 433920000 > /dev/null ||
	fb_die "iio_attr could not retune"
wait $probe || fb_die "iio_probe (retune) failed"
grep -q '"retuned": 1.*"center_freq": 433920000' "$out" || { cat "$out"; fb_die "retune not noticed"; }
echo "ok: retune to 433920000 noticed"
fakeboard_expect "$(fakeboard_json "$out" bad)" 0 "pairs off the pattern while retuned"
echo "PASS"
