#!/bin/bash
# SPDX-License-Identifier: MIT
# zcs-recv --control forwards its rtl_tcp: clients' tuning to the emulated board: a client's
# start-up burst (set_sample_rate, set_freq, set_gain_mode, set_gain, set_bandwidth, and one it
# does not forward) is merged into one set whose values land in ad9361-phy's files; an rtl
# dongle's 250 kS/s is made with the AD9361's FIR at 2 MS/s and the FPGA's /8; a rate the board
# cannot make is refused and the rest still goes; 0x56 carries a frequency above 4.29 GHz.
# With "apps": rtl_433 -d rtl_tcp: -f 868M and GNU Radio's osmosdr rtl_tcp= source retune it.
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
fakeboard_feed --follow-rate --rate 2000000 --mark 200000
fakeboard_key
fakeboard_tuned_pair 2000000 915000000
recv=$FB_RECV_PID
# waits until an attribute file holds a value (the forwarder merges, then the board applies)
wait_attr() {
	local i
	for ((i = 0; i < 400; i++)); do
		[ "$(fakeboard_attr "$1")" = "$2" ] && { echo "ok: $3 = $2"; return 0; }
		sleep 0.05
	done
	cat "$FB_TMP/recv.log" "$FB_TMP/send.log" >&2
	fb_die "$3: $(fakeboard_attr "$1"), expected $2"
}
rtltcp() { /usr/bin/python3 - "$@" <<'EOF'
import socket, struct, sys, time
s = socket.create_connection(("127.0.0.1", 22412), timeout=20)
g = b""
while len(g) < 12:
    g += s.recv(12 - len(g))
assert g[:4] == b"RTL0", g
cmds = [tuple(int(x, 0) for x in a.split("=")) for a in sys.argv[1:]]
s.sendall(b"".join(struct.pack(">BI", c, v) for c, v in cmds))
time.sleep(0.5)   # stays connected while the burst is forwarded; the test waits on the board
s.close()
EOF
}
# a start-up burst: rate, freq, manual gain mode, 30 dB, 2 MHz bandwidth, and a correction
rtltcp 0x02=2400000 0x01=868000000 0x03=1 0x04=300 0x40=2000000 0x05=0
wait_attr $FB_PHY/out_altvoltage0_RX_LO_frequency 868000000 "set_freq in the tree"
wait_attr $FB_PHY/in_voltage_sampling_frequency 2400000 "set_sample_rate in the tree"
wait_attr $FB_PHY/in_voltage0_hardwaregain 30.000000 "set_gain in the tree"
wait_attr $FB_PHY/in_voltage0_gain_control_mode manual "set_gain_mode in the tree"
wait_attr $FB_PHY/in_voltage_rf_bandwidth 2000000 "set_bandwidth in the tree"
# an rtl dongle's 250 kS/s: the AD9361 at 2 MS/s with its FIR, the capture core's /8
rtltcp 0x02=250000 0x01=433920000
wait_attr $FB_LPC/in_voltage_sampling_frequency 250000 "set_sample_rate 250000 delivered"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage_sampling_frequency)" 2000000 "the AD9361 at 8 x 250 kS/s"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_out_voltage_filter_fir_en)" 1 "the AD9361's FIR on"
# below the board's 65105 S/s: refused; the frequency of the same burst still lands
rtltcp 0x02=50000 0x01=868000000 0x03=0
wait_attr $FB_PHY/out_altvoltage0_RX_LO_frequency 868000000 "set_freq beside a refused rate"
wait_attr $FB_PHY/in_voltage0_gain_control_mode slow_attack "set_gain_mode 0: AGC"
fakeboard_expect "$(fakeboard_attr $FB_LPC/in_voltage_sampling_frequency)" 250000 "refused rate left alone"
# above 4.29 GHz: 0x56 gives the high 32 bits (5.8 GHz = 1 << 32 | 1505032704); and 2.4 MS/s
rtltcp 0x02=2400000 0x56=1 0x01=1505032704
wait_attr $FB_LPC/in_voltage_sampling_frequency 2400000 "set_sample_rate 2400000 delivered"
wait_attr $FB_PHY/out_altvoltage0_RX_LO_frequency 5800000000 "set_freq with 0x56 above 4.29 GHz"
if [ "${1:-}" = apps ]; then
	# rtl_433 sets its frequency and its own rate at start, both made by the board: 1 MS/s
	# (rtl_433 22.11's choice above 800 MHz: the AD9361's FIR) and its default 250 kS/s
	# (the FIR at 2 MS/s and the FPGA's /8)
	timeout 20 rtl_433 -d rtl_tcp:127.0.0.1:22412 -f 868M -T 3 > "$FB_TMP/rtl433.log" 2>&1
	wait_attr $FB_PHY/out_altvoltage0_RX_LO_frequency 868000000 "rtl_433 -f 868M in the tree"
	wait_attr $FB_LPC/in_voltage_sampling_frequency 1000000 "rtl_433's 1 MS/s at 868 MHz delivered"
	timeout 20 rtl_433 -d rtl_tcp:127.0.0.1:22412 -f 433.92M -T 3 > "$FB_TMP/rtl433.log" 2>&1
	grep -q 'Sample rate set to 250000 S/s' "$FB_TMP/rtl433.log" ||
		{ cat "$FB_TMP/rtl433.log"; fb_die "rtl_433 did not ask for 250 kS/s"; }
	wait_attr $FB_LPC/in_voltage_sampling_frequency 250000 "rtl_433's default 250 kS/s delivered"
	grep -q 'set freq=433920000 rate=250000.*: the board took' "$FB_TMP/recv.log" ||
		{ cat "$FB_TMP/recv.log"; fb_die "rtl_433's set was not taken whole"; }
	# back to 2.4 MS/s, the rate the osmosdr flowgraph asks for
	rtltcp 0x02=2400000
	wait_attr $FB_LPC/in_voltage_sampling_frequency 2400000 "2.4 MS/s again"
	# GNU Radio's osmosdr rtl_tcp= source: set_center_freq and set_gain
	timeout 60 /usr/bin/python3 - <<'EOF' > "$FB_TMP/gr.log" 2>&1 || { cat "$FB_TMP/gr.log"; fb_die "osmosdr flowgraph"; }
import time
from gnuradio import gr, blocks
import osmosdr
tb = gr.top_block()
src = osmosdr.source("rtl_tcp=127.0.0.1:22412")
src.set_sample_rate(2.4e6)
src.set_center_freq(433.92e6)
src.set_gain_mode(False)
src.set_gain(20)
tb.connect(src, blocks.head(8, 200000), blocks.null_sink(8))
tb.run()
src.set_center_freq(915e6)
time.sleep(1)
EOF
	wait_attr $FB_PHY/out_altvoltage0_RX_LO_frequency 915000000 "osmosdr set_center_freq in the tree"
fi
kill $recv
wait $recv
grep -E 'control: [0-9]+ requests forwarded as [0-9]+ sets' "$FB_TMP/recv.log" || fb_die "no forwarder summary"
# the first burst's five settings went as one set (a set per burst, however split by reads)
grep -q 'set freq=868000000 rate=2400000 gain_mode=manual gain=30.0 bw=2000000: the board took' \
	"$FB_TMP/recv.log" || { cat "$FB_TMP/recv.log"; fb_die "the burst was not one set"; }
grep -q 'set_freq_correction 0 ignored' "$FB_TMP/recv.log" || fb_die "unforwarded command not logged"
echo "PASS"
