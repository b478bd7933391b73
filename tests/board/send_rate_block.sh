#!/bin/bash
# SPDX-License-Identifier: MIT
# A rate change over the control channel resizes the libiio block when the new rate is far from
# the one it was sized for (sender/source/source_iio_tune.c), on the emulated board (real libiio
# local:, or ip: through the real iiod with "iiod" as argument):
#   2 MS/s -> 10 MS/s: the block of 1/20 s at 2 MS/s would be 10 ms at 10 MS/s: zcs-send rebuilds
#       its buffer (the feeder sees a new enable, buffer/length the new block), the reply's index
#       is the first sample of the new buffer, announced there by CHANGE metadata with the rate,
#       the first datagram flagged DISCONT;
#   10 MS/s -> 8 MS/s: within a factor of 2: no rebuild, the block stays;
#   8 MS/s -> 2 MS/s by another program (iio_attr): the buffer is rebuilt for it too;
# and every pair is the board's pattern in order (check_board), nothing lost.
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
RATE=2000000
fakeboard_feed --rate $RATE --mark 200000
fakeboard_radio "$@"
# the test's own network namespace (fakeboard_enter): its ports are its own
port=22018
cport=22398
out=$FB_TMP/check.json
fakeboard_key
ctl() { fakeboard_ctl $cport "$@"; }
# the buffer libiio asks for at rate $1: 4 kernel blocks (libiio writes buffer/length as their
# sum) of the iio source's block (source_iio.c: 1/20 s, 4096..1 Mi pairs, a multiple of 1024)
block() {
	echo $((4 * (($1 / 20 + 1023) / 1024 * 1024)))
}
enables() { grep -c 'enabled mask' "$FB_TMP/feed.log" || true; }

# The stream ends when the second RX LO (915M, then 868M) shows in the metadata.
"$BOARD_BIN/check_board" --port $port --out "$out" --stop-after-freqs 2 --timeout 60 -- \
	"$ZCS_SEND" -u $FB_URI -f p12 --rate $RATE --freq 915000000 --key "$FB_KEY" \
	--control 127.0.0.1:$cport -q --cpus none 127.0.0.1:$port 2> "$FB_TMP/send.log" &
check=$!
fakeboard_track $check
fakeboard_wait_feed 1 'reader took'
fakeboard_wait_ctl $cport "$FB_TMP/get.json"
fakeboard_expect "$(fakeboard_attr $FB_LPC/buffer/length)" "$(block $RATE)" "block at 2 MS/s"
n=$(enables)

ctl set rate=10M > "$FB_TMP/r1.json" || fb_die "set rate=10M refused: $(cat "$FB_TMP/r1.json")"
fakeboard_wait_feed $((n + 1)) 'enabled mask'
fakeboard_expect "$(fakeboard_attr $FB_LPC/buffer/length)" "$(block 10000000)" "block at 10 MS/s"
n=$(enables)
ctl set rate=8M > "$FB_TMP/r2.json" || fb_die "set rate=8M refused"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage_sampling_frequency)" 8000000 "8 MS/s in the tree"
fakeboard_expect "$(fakeboard_attr $FB_LPC/buffer/length)" "$(block 10000000)" "block kept at 8 MS/s"
# another program's rate (iio_attr, as a user on the board would): seen within a second, and
# the buffer fitted to it at the next refill
iio_attr -q -u $FB_URI -i -c ad9361-phy voltage0 sampling_frequency 2000000 > /dev/null ||
	fb_die "iio_attr could not set the rate"
fakeboard_wait_feed $((n + 1)) 'enabled mask'
fakeboard_expect "$(fakeboard_attr $FB_LPC/buffer/length)" "$(block 2000000)" "block after iio_attr's 2 MS/s"
ctl set freq=868M > "$FB_TMP/r3.json" || fb_die "set freq refused"
wait $check || { cat "$out" "$FB_TMP/send.log"; fb_die "stream failed"; }
# one rebuild since 10 MS/s, iio_attr's: none for 8 MS/s
fakeboard_expect "$(enables)" $((n + 1)) "buffers enabled since 10 MS/s"

/usr/bin/python3 - "$out" "$FB_TMP" <<'EOF' || fb_die "announcements"
import json, sys
out, tmp = sys.argv[1], sys.argv[2]
c = json.load(open(out))
assert c["bad"] == 0 and c["lost"] == 0, c
changes = {ch["ref_sample"]: ch for ch in c["changes"]}
for name, rate in (("r1", 10000000), ("r2", 8000000)):
    r = json.loads(open("%s/%s.json" % (tmp, name)).read())
    since = r["since_sample"]
    ch = changes.get(since)
    assert ch and ch["sample_rate"] == rate, "%s: no CHANGE with rate %d at %d: %s" % (
        name, rate, since, c["changes"])
    print("ok: %s: %d S/s announced at sample %d" % (name, rate, since))
# the rebuilt buffer's first pair is the announced index, exactly: its datagram is flagged;
# 8 MS/s kept the buffer, so nothing is flagged at its index
r1, r2 = (json.loads(open("%s/%s.json" % (tmp, n)).read())["since_sample"] for n in ("r1", "r2"))
assert r1 in c["flagged_at"], ("r1 not where a DISCONT starts", r1, c["flagged_at"])
assert r2 not in c["flagged_at"], ("r2 flagged", r2, c["flagged_at"])
print("ok: the 10 MS/s buffer starts at its index %d (DISCONT there)" % r1)
# each rebuild (10 MS/s, iio_attr's 2 MS/s) dropped what the kernel had queued at the old
# rate: flagged there (iiod may cut a read short around a rebuild, a further flag; that 8 MS/s
# kept the buffer is the feeder's count of enables above)
assert c["flagged"] >= 2, c
print("ok: every pair is the board's pattern (%d pairs, %d DISCONT)" % (c["pairs"], c["flagged"]))
EOF
echo "PASS"
