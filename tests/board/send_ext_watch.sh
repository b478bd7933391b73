#!/bin/bash
# SPDX-License-Identifier: MIT
# A change made to the radio by another program (iio_attr writing the RX LO, through libiio
# local: or, with "iiod" as argument, through the real iiod as a second client of the board) is
# noticed by zcs-send's iio source, announced in the stream (metadata flag CHANGE), and pushed
# to the control channel's clients: `zcs-ctl watch` prints an event with the new frequency and
# the same sample index the stream announced.
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
RATE=2000000
fakeboard_feed --rate $RATE --mark 200000
fakeboard_radio "$@"
port=22013
if [ "$FB_URI" != local: ]; then
	port=22014
fi
out=$FB_TMP/check.json
fakeboard_key

# The stream ends when the second RX LO (915M, then iio_attr's 433.92M) shows in the metadata.
"$BOARD_BIN/check_board" --port $port --out "$out" --stop-after-freqs 2 --timeout 90 -- \
	"$ZCS_SEND" -u $FB_URI -f p12 --rate $RATE --freq 915000000 --key "$FB_KEY" \
	--control 127.0.0.1:22393 --cpus none 127.0.0.1:$port 2> "$FB_TMP/send.log" &
check=$!
fakeboard_track $check
fakeboard_wait_feed 1 'reader took'
# watch, and wait until zcs-send says it holds the key (the control port opens once zcs-send
# has started: retried until then)
for ((i = 0; i < 400; i++)); do
	fakeboard_ctl 22393 watch \
		> "$FB_TMP/watch.json" 2> "$FB_TMP/watch.log" &
	watch=$!
	fakeboard_track $watch
	for ((j = 0; j < 100; j++)); do
		grep -q 'holds the key' "$FB_TMP/send.log" && break 2
		kill -0 $watch 2> /dev/null || break
		sleep 0.05
	done
	kill $watch 2> /dev/null
	wait $watch 2> /dev/null
	sleep 0.1
done
grep -q 'holds the key' "$FB_TMP/send.log" || { cat "$FB_TMP/watch.log"; fb_die "zcs-ctl watch never connected"; }
echo "ok: zcs-ctl watch connected"

iio_attr -q -u $FB_URI -o -c ad9361-phy altvoltage0 frequency 433920000 > /dev/null ||
	fb_die "iio_attr could not retune"
wait $check || { cat "$out" "$FB_TMP/send.log"; fb_die "stream (retune) failed"; }
fakeboard_expect "$(fakeboard_json "$out" freqs)" "[915000000, 433920000]" "RX LO in metadata before and after iio_attr"
# the event was sent before the stream's metadata was (the same source-thread step posts both),
# but zcs-ctl may print it a little later: wait for it
for ((i = 0; i < 400; i++)); do
	grep -q '"event"' "$FB_TMP/watch.json" && break
	sleep 0.05
done
kill $watch 2> /dev/null
wait $watch 2> /dev/null
/usr/bin/python3 - "$out" "$FB_TMP/watch.json" <<'PY' || { cat "$FB_TMP/watch.json" "$FB_TMP/send.log"; fb_die "watch event"; }
import json, sys
c = json.load(open(sys.argv[1]))
evs = [json.loads(l) for l in open(sys.argv[2]) if l.startswith("{")]
evs = [e for e in evs if e.get("event")]
assert len(evs) == 1, evs
e = evs[0]
assert e["settings"]["freq"] == 433920000, e
assert "freq" in e["changed"], e
chg = [ch for ch in c["changes"] if ch["center_freq"] == 433920000]
assert chg, c["changes"]
assert e["since_sample"] == chg[0]["ref_sample"], (e, chg)
print("ok: zcs-ctl watch printed the change: freq %d from sample %d, the stream's CHANGE index"
      % (e["settings"]["freq"], e["since_sample"]))
PY
grep -q 'changed by another program' "$FB_TMP/send.log" || fb_die "zcs-send's news"
fakeboard_expect "$(fakeboard_json "$out" bad)" 0 "pairs off the pattern"
echo "PASS"
