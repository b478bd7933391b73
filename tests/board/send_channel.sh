#!/bin/bash
# SPDX-License-Identifier: MIT
# A channel switch over the control channel on the emulated board (real libiio local:, or ip:
# through the real iiod with "iiod" as argument): zcs-ctl set channel=rx2 makes zcs-send rebuild
# its buffer on cf-ad9361-lpc's voltage2/3 (the tree's scan_elements and the feeder's mask show
# it), the reply's index is the first sample of the new buffer, the stream announces the switch
# there (CHANGE metadata with the channel) and every pair from it on is rx2's pattern (check_board
# follows the announced index: a pair of the other receiver after it, or of rx2 before it, is
# counted bad), the first datagram flagged DISCONT (what the kernel had queued of rx1 went with
# the old buffer).  A gain in the same set lands on rx2's attributes.  Then back to rx1.
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
RATE=2000000
fakeboard_feed --rate $RATE --mark 200000
fakeboard_radio "$@"
port=22013
cport=22394
if [ "$FB_URI" != local: ]; then
	port=22015
	cport=22395
fi
out=$FB_TMP/check.json
fakeboard_key
ctl() { fakeboard_ctl $cport "$@"; }

# The stream ends when the second RX LO (915M, then 868M) shows in the metadata.
"$BOARD_BIN/check_board" --port $port --out "$out" --stop-after-freqs 2 --timeout 60 -- \
	"$ZCS_SEND" -u $FB_URI -f p12 --rate $RATE --freq 915000000 --gain 10 --key "$FB_KEY" \
	--control 127.0.0.1:$cport -q --cpus none 127.0.0.1:$port 2> "$FB_TMP/send.log" &
check=$!
fakeboard_track $check
fakeboard_wait_feed 1 'reader took'
fakeboard_wait_ctl $cport "$FB_TMP/get.json"
fakeboard_expect "$(fakeboard_json "$FB_TMP/get.json" settings.channel)" rx1 "get: channel"
grep -q "'channel'" <<< "$(fakeboard_json "$FB_TMP/get.json" caps.settable)" ||
	fb_die "channel not settable: $(cat "$FB_TMP/get.json")"

ctl set channel=rx2 gain=12 > "$FB_TMP/r1.json" || fb_die "set channel=rx2 refused: $(cat "$FB_TMP/r1.json")"
fakeboard_expect "$(fakeboard_json "$FB_TMP/r1.json" settings.channel)" rx2 "channel in the reply"
fakeboard_expect "$(fakeboard_attr $FB_LPC/scan_elements/in_voltage2_en)" 1 "voltage2 enabled"
fakeboard_expect "$(fakeboard_attr $FB_LPC/scan_elements/in_voltage0_en)" 0 "voltage0 disabled"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage1_hardwaregain)" 12.000000 "gain on rx2"
fakeboard_wait_feed 1 'enabled mask 0xc'
ctl set channel=rx1 > "$FB_TMP/r2.json" || fb_die "set channel=rx1 refused"
fakeboard_expect "$(fakeboard_json "$FB_TMP/r2.json" settings.channel)" rx1 "back to rx1 in the reply"
fakeboard_wait_feed 2 'enabled mask 0x3'
ctl set freq=868M > "$FB_TMP/r3.json" || fb_die "set freq refused"
wait $check || { cat "$out" "$FB_TMP/send.log"; fb_die "stream failed"; }

/usr/bin/python3 - "$out" "$FB_TMP" <<'EOF' || fb_die "announcements"
import json, sys
out, tmp = sys.argv[1], sys.argv[2]
c = json.load(open(out))
assert c["bad"] == 0 and c["lost"] == 0, c
assert c["switches"] == 2 and c["rx"] == 0, c
changes = {ch["ref_sample"]: ch for ch in c["changes"]}
for name, want in (("r1", 1), ("r2", 0)):
    r = json.loads(open("%s/%s.json" % (tmp, name)).read())
    since = r["since_sample"]
    ch = changes.get(since)
    assert ch and ch["channel"] == want, "%s: no CHANGE with channel %d at %d: %s" % (
        name, want, since, c["changes"])
    print("ok: %s: the switch to rx%d announced at sample %d, where the buffer of rx%d begins"
          % (name, want + 1, since, want + 1))
# each switch dropped what the kernel had queued: flagged, and k moved forward there
assert c["flagged"] >= 2 and c["jumps"] >= 2, c
print("ok: every pair is its receiver's pattern (%d pairs, %d switches, %d DISCONT)" % (
    c["pairs"], c["switches"], c["flagged"]))
EOF
echo "PASS"
