#!/bin/bash
# SPDX-License-Identifier: MIT
# The control channel on the emulated board (real libiio local:, or ip: through the real iiod
# with "iiod" as argument): each setting zcs-ctl sets lands in ad9361-phy's attribute files, the
# reply carries the read-back value and the sample index it holds from, the stream announces it
# (metadata flag CHANGE at that index), and the board's "ADC" (feed_iq --lo-log) changes its
# signal at or after that index, within the bound docs/protocol.md states (4 blocks).  Refusals
# (out of range) change nothing.
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
RATE=2000000
fakeboard_feed --rate $RATE --mark 200000 --lo-log
fakeboard_radio "$@"
out=$FB_TMP/check.json
fakeboard_key
ctl() { fakeboard_ctl 22392 "$@"; }

# The stream ends when the third RX LO (915M, 433.92M, 868M) shows in the metadata.
"$BOARD_BIN/check_board" --port 22011 --out "$out" --stop-after-freqs 3 --timeout 60 -- \
	"$ZCS_SEND" -u $FB_URI -f p12 --rate $RATE --freq 915000000 --gain 10 --key "$FB_KEY" \
	--control 127.0.0.1:22392 -q --cpus none 127.0.0.1:22011 2> "$FB_TMP/send.log" &
check=$!
fakeboard_track $check
fakeboard_wait_feed 1 'reader took'
fakeboard_wait_ctl 22392 "$FB_TMP/get.json"
fakeboard_expect "$(fakeboard_json "$FB_TMP/get.json" settings.freq)" 915000000 "get: freq"
fakeboard_expect "$(fakeboard_json "$FB_TMP/get.json" caps.freq.1)" 6000000000 "get: LO range from the board"
# the Pluto's whole range: the AD9361's FIR (libad9361) and the FPGA's /8 decimator
fakeboard_expect "$(fakeboard_json "$FB_TMP/get.json" caps.rate.0)" 65105 "get: lowest rate the board makes"
fakeboard_expect "$(fakeboard_json "$FB_TMP/get.json" caps.rate.1)" 61440000 "get: highest rate"
fakeboard_expect "$(fakeboard_json "$FB_TMP/get.json" stream.source)" iio "get: stream source"

# One setting at a time: the tree, the reply, the index.
ctl set freq=433.92M > "$FB_TMP/r1.json" || fb_die "set freq refused"
fakeboard_expect "$(fakeboard_attr $FB_PHY/out_altvoltage0_RX_LO_frequency)" 433920000 "freq in the tree"
fakeboard_expect "$(fakeboard_json "$FB_TMP/r1.json" settings.freq)" 433920000 "freq read back in the reply"
ctl set gain=30.5 > "$FB_TMP/r2.json" || fb_die "set gain refused"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage0_hardwaregain)" 30.500000 "gain in the tree"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage0_gain_control_mode)" manual "gain: manual mode"
fakeboard_expect "$(fakeboard_json "$FB_TMP/r2.json" settings.gain)" 30.5 "gain read back"
ctl set bw=1.5M > "$FB_TMP/r3.json" || fb_die "set bw refused"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage_rf_bandwidth)" 1500000 "bw in the tree"
fakeboard_expect "$(fakeboard_json "$FB_TMP/r3.json" settings.bw)" 1500000 "bw read back"
ctl set gain_mode=fast > "$FB_TMP/r4.json" || fb_die "set gain_mode refused"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage0_gain_control_mode)" fast_attack "gain mode in the tree"

# Refusals change nothing and say why.  (format= and channel= are taken while streaming:
# tests/recv's recv_format_switch and board-send-channel switch them.)
for bad in freq=10M rate=65104; do
	if ctl set $bad > "$FB_TMP/bad.json"; then fb_die "set $bad was taken"; fi
	grep -q '"ok":false' "$FB_TMP/bad.json" || fb_die "set $bad: no refusal in $(cat "$FB_TMP/bad.json")"
	echo "ok: set $bad refused: $(fakeboard_json "$FB_TMP/bad.json" error)"
done
fakeboard_expect "$(fakeboard_attr $FB_PHY/out_altvoltage0_RX_LO_frequency)" 433920000 "freq after refusals"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage_sampling_frequency)" $RATE "rate after refusals"

# Two settings in one set, applied together: the stream's third LO ends it.
ctl set freq=868M gain=20 > "$FB_TMP/r5.json" || fb_die "set freq+gain refused"
fakeboard_expect "$(fakeboard_attr $FB_PHY/out_altvoltage0_RX_LO_frequency)" 868000000 "freq (pair) in the tree"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage0_hardwaregain)" 20.000000 "gain (pair) in the tree"
wait $check || { cat "$out" "$FB_TMP/send.log"; fb_die "stream failed"; }
fakeboard_expect "$(fakeboard_json "$out" bad)" 0 "pairs off the pattern"
grep -q 'control: 8 connections, 8 with the key' "$FB_TMP/send.log" || { cat "$FB_TMP/send.log"; fb_die "control summary"; }

# Every reply's index is a CHANGE metadata's ref_sample with the same settings, and the board's
# signal changed at or after it by at most 4 blocks (docs/protocol.md, "Retunes").
/usr/bin/python3 - "$out" "$FB_TMP" $RATE <<'EOF' || fb_die "announcements"
import json, re, sys
out, tmp, rate = sys.argv[1], sys.argv[2], int(sys.argv[3])
c = json.load(open(out))
changes = {ch["ref_sample"]: ch for ch in c["changes"]}
# the bound zcs-send states (libiio's 4 kernel blocks of 1/20 s)
said = re.search(r"lies at most (\d+) pairs", open(tmp + "/send.log").read())
assert said, "zcs-send did not state its retune bound"
bound = int(said.group(1))
los = [(int(m.group(1)), int(m.group(2))) for m in
       re.finditer(r"lo (\d+) at k=(\d+)", open(tmp + "/feed.log").read())]
for name in ("r1", "r2", "r3", "r4", "r5"):
    r = json.loads(open("%s/%s.json" % (tmp, name)).read())
    since = r["since_sample"]
    ch = changes.get(since)
    assert ch, "%s: no CHANGE metadata at %d (have %s)" % (name, since, sorted(changes))
    assert ch["center_freq"] == r["settings"]["freq"], (name, ch, r)
    assert ch["gain_mdb"] == round(r["settings"]["gain"] * 1000), (name, ch, r)
    assert ch["bandwidth"] == r["settings"]["bw"], (name, ch, r)
    print("ok: %s announced at sample %d: %s" % (name, since, r["settings"]))
    freq = r["settings"]["freq"]
    if name in ("r1", "r5"):
        k = [k for f, k in los if f == freq]
        assert k, "%s: the feeder never saw LO %d" % (name, freq)
        k_since = (c["first_k"] + since - c["first_sample"]) & 0xffffff
        delta = (k[0] - k_since) & 0xffffff
        assert delta <= bound, "%s: signal changed %d pairs after the index (bound %d)" % (
            name, delta, bound)
        print("ok: %s: the board's signal changed %d pairs after the announced index "
              "(bound %d)" % (name, delta, bound))
EOF
echo "PASS"
