#!/bin/bash
# SPDX-License-Identifier: MIT
# A sample-rate change through the control channel (`zcs-ctl set rate=`) while zcs-recv records
# the emulated board's stream into sigmf:REC: REC ends at the last sample before the index the
# reply gave, REC-1 starts there (its sample 0) at the new rate, both validate against the SigMF
# schema (where ../shared/data has it; without it the test is a skip, exit 77, once every other
# check passed), and together they hold exactly the stream's samples, the same bytes as a raw
# file: output of the same run.
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
RATE=2500000
NEW=4000000
fakeboard_feed --rate 2000000 --mark 200000
fakeboard_key
ctl() { fakeboard_ctl 22394 "$@"; }

"$ZCS_RECV" --key "$FB_KEY" --json --exit-on-eos -F cs16 -o sigmf:$FB_TMP/rec \
	-o file:$FB_TMP/raw.cs16 127.0.0.1:22016 2> "$FB_TMP/recv.log" &
recv=$!
fakeboard_track $recv
# the stream from its first sample: zcs-send starts once zcs-recv listens
for ((i = 0; i < 1200; i++)); do
	grep -q 'listening on' "$FB_TMP/recv.log" && break
	kill -0 $recv 2> /dev/null || { cat "$FB_TMP/recv.log"; fb_die "zcs-recv ended"; }
	sleep 0.05
done
grep -q 'listening on' "$FB_TMP/recv.log" || fb_die "zcs-recv never listened"
"$ZCS_SEND" -u local: -f p12 --rate $RATE --freq 915000000 --key "$FB_KEY" \
	--control 127.0.0.1:22394 -q --cpus none 127.0.0.1:22016 2> "$FB_TMP/send.log" &
send=$!
fakeboard_track $send
fakeboard_wait_feed 1 'reader took'
for ((i = 0; i < 400; i++)); do
	ctl set rate=$NEW > "$FB_TMP/set.json" 2> /dev/null && break
	kill -0 $send 2> /dev/null || { cat "$FB_TMP/send.log"; fb_die "zcs-send ended"; }
	sleep 0.05
done
grep -q '"ok":true' "$FB_TMP/set.json" || { cat "$FB_TMP/set.json"; fb_die "set rate refused"; }
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage_sampling_frequency)" $NEW "rate in the tree"
since=$(fakeboard_json "$FB_TMP/set.json" since_sample)
echo "ok: rate $NEW holds from sample $since"
# samples well past the change recorded, then the end of the stream ends zcs-recv
for ((i = 0; i < 1200; i++)); do
	[ -f "$FB_TMP/raw.cs16" ] && [ $(($(stat -c %s "$FB_TMP/raw.cs16") / 4)) -gt $((since + 200000)) ] && break
	sleep 0.05
done
kill -INT $send
wait $send || { cat "$FB_TMP/send.log"; fb_die "zcs-send failed"; }
for ((i = 0; i < 1200; i++)); do
	kill -0 $recv 2> /dev/null || break
	sleep 0.05
done
wait $recv || { cat "$FB_TMP/recv.log"; fb_die "zcs-recv failed"; }
/usr/bin/python3 - "$FB_TMP" $since $RATE $NEW "${SIGMF_SCHEMA:-}" <<'PY'
import json, os, sys
tmp, since, rate, new, schema = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
summary = [json.loads(l) for l in open(tmp + "/recv.log") if l.startswith("{")]
summary = [s for s in summary if s.get("type") == "summary"][-1]
assert summary["lost"] == 0 and summary["gap_samples"] == 0, summary
total = summary["samples"]
raw = open(tmp + "/raw.cs16", "rb").read()
assert len(raw) == total * 4, (len(raw), total)
metas = [json.load(open(tmp + n + ".sigmf-meta")) for n in ("/rec", "/rec-1")]
datas = [open(tmp + n + ".sigmf-data", "rb").read() for n in ("/rec", "/rec-1")]
assert not os.path.exists(tmp + "/rec-2.sigmf-meta"), "a third recording"
have_schema = bool(schema) and os.path.exists(schema)
if have_schema:
    import jsonschema
    for m in metas:
        jsonschema.validate(m, json.load(open(schema)))
    print("ok: both .sigmf-meta valid against the SigMF schema")
first = metas[0]["captures"][0]["core:global_index"]
assert metas[0]["global"]["core:sample_rate"] == rate, metas[0]["global"]
assert metas[1]["global"]["core:sample_rate"] == new, metas[1]["global"]
assert metas[0]["global"]["core:datatype"] == metas[1]["global"]["core:datatype"] == "ci16_le"
assert len(datas[0]) == (since - first) * 4, (len(datas[0]) // 4, since, first)
c = metas[1]["captures"][0]
assert c["core:sample_start"] == 0 and c["core:global_index"] == since, c
assert c["core:frequency"] == 915000000, c
assert c["core:datetime"] > metas[0]["captures"][0]["core:datetime"], (c, metas[0]["captures"])
assert all(a["core:sample_start"] + a["core:sample_count"] <= len(datas[0]) // 4
           for a in metas[0]["annotations"]), metas[0]["annotations"]
assert len(datas[0]) + len(datas[1]) == len(raw), (len(datas[0]), len(datas[1]), len(raw))
assert datas[0] + datas[1] == raw, "the recordings differ from the raw file"
print("ok: rec holds %d samples at %d S/s (up to sample %d), rec-1 %d at %d S/s from %d: "
      "%d together, the stream's, byte for byte" % (len(datas[0]) // 4, rate, since - 1,
      len(datas[1]) // 4, new, since, total))
if not have_schema:
    print("SKIP: no SigMF schema at %r: the recordings passed the checks above, not the "
          "schema's" % schema)
    sys.exit(77)
PY
rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || { cat "$FB_TMP/recv.log"; fb_die "recordings"; }
echo "PASS"
