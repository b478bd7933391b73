#!/bin/bash
# SPDX-License-Identifier: MIT
# zcs-send's radio options land in the emulated ad9361-phy's attribute files and their
# read-back is what the metadata says; a retune by another program (iio_attr) mid-stream is
# noticed and sent as new metadata.
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
fakeboard_feed --rate 2000000 --mark 200000
out=$FB_TMP/check.json

"$BOARD_BIN/check_board" --port 22004 --rx rx2 --out "$out" -- "$ZCS_SEND" -u local: -f i16 \
	--rate 5000000 --freq 915000000 --bw 4000000 --gain 20.5 --channel rx2 -n 100000 \
	--json -q --cpus none 127.0.0.1:22004 2> "$FB_TMP/send.json" || { cat "$out"; fb_die "stream failed"; }
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage_sampling_frequency)" 5000000 "--rate in the tree"
fakeboard_expect "$(fakeboard_attr $FB_PHY/out_altvoltage0_RX_LO_frequency)" 915000000 "--freq in the tree"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage_rf_bandwidth)" 4000000 "--bw in the tree"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage1_gain_control_mode)" manual "--gain: rx2 manual"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage1_hardwaregain)" 20.500000 "--gain: rx2 hardwaregain"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage0_hardwaregain)" "71.000000 dB" "rx1 gain untouched"
fakeboard_expect "$(fakeboard_json "$out" meta.sample_rate)" 5000000 "metadata rate"
fakeboard_expect "$(fakeboard_json "$out" meta.center_freq)" 915000000 "metadata RX LO"
fakeboard_expect "$(fakeboard_json "$out" meta.bandwidth)" 4000000 "metadata bandwidth"
fakeboard_expect "$(fakeboard_json "$out" meta.gain_mdb)" 20500 "metadata gain"
fakeboard_expect "$(fakeboard_json "$out" meta.gain_mode)" 0 "metadata gain mode (manual)"
fakeboard_expect "$(fakeboard_json "$out" meta.channel)" 1 "metadata channel"

# Streams until the retune shows up in the metadata (the sender polls the radio once a second;
# under load that may take longer than any fixed stream): then check_board ends it with SIGTERM.
# The wait is for this run's mark: whether the first run's -n 100000 reached it depends on the
# libiio block (1/20 s: one block of 250 Ki pairs at 5 MS/s did).
took=$(grep -c 'reader took' "$FB_TMP/feed.log" || true)
"$BOARD_BIN/check_board" --port 22004 --out "$out" --stop-after-freqs 2 -- "$ZCS_SEND" -u local: \
	-f p12 --gain hybrid --json -q --cpus none 127.0.0.1:22004 2> "$FB_TMP/send.json" &
check=$!
fakeboard_track $check
fakeboard_wait_feed $((took + 1)) 'reader took'
iio_attr -q -u local: -o -c ad9361-phy altvoltage0 frequency 433920000 > /dev/null ||
	fb_die "iio_attr could not retune"
wait $check || { cat "$out"; fb_die "stream (retune) failed"; }
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage0_gain_control_mode)" hybrid "--gain hybrid in the tree"
fakeboard_expect "$(fakeboard_json "$out" meta.gain_mode)" 3 "metadata gain mode (hybrid)"
fakeboard_expect "$(fakeboard_json "$out" freqs)" "[915000000, 433920000]" "RX LO in metadata before and after the retune"
fakeboard_expect "$(fakeboard_json "$out" bad)" 0 "pairs off the pattern"
echo "PASS"
