#!/bin/bash
# SPDX-License-Identifier: MIT
# Recording and replay, as docs/howto-recording.md tells users to do it: zcs-recv records a tone
# (-o file:rec.FMT with the suffix convention, or -o sigmf:rec), zcs-send replays the recording
# (-s file:PATH, type from the suffix; for .sigmf-data type and rate from the .sigmf-meta), a
# second zcs-recv takes it as cf32.  Every recording is named after its -F type, as the docs
# name them (receiver.md, zcs-recv(1), howto-recording.md): rec.cs16 is full scale (v << 4), the
# regression test of the cs16 replay mismatch (a -6 dBFS tone recorded to rec.cs16 replayed at
# +2.8 dBFS, 92% clipped, when zcs-send read .cs16 as the radio's 12-bit layout).  Asserts the
# replay's exact count, the tone's frequency (sign included) and power (a recording must come
# back as loud as it went in), and that it equals the recording value for value.  usage: test_replay.sh ZCS-SEND ZCS-RECV FMT
# (FMT: cf32, cs16, cs8, cu8 or sigmf)
source "$(dirname "$0")/apps_lib.sh" "$@"
FMT=${3:?usage: $0 ZCS-SEND ZCS-RECV cf32|cs16|cs8|cu8|sigmf}
case $FMT in
cf32) PORT=23100 ;; cs16) PORT=23110 ;; cs8) PORT=23120 ;; cu8) PORT=23130 ;; sigmf) PORT=23140 ;;
*) fail "unknown format $FMT" ;;
esac
RATE=1000000 TONE=-87654 AMP=0.5 N=600000

# 1. record
if [ "$FMT" = sigmf ]; then
	start_recv -F cf32 -o "sigmf:$WORK/rec" -n "$N" "127.0.0.1:$PORT"
	# no --file-type and no -r: both come from rec.sigmf-meta
	REC=$WORK/rec.sigmf-data RATE_ARG=()
else
	start_recv -F "$FMT" -o "file:$WORK/rec.$FMT" -n "$N" "127.0.0.1:$PORT"
	REC=$WORK/rec.$FMT RATE_ARG=(-r "$RATE")
fi
wait_log "$RECV_LOG" 'listening on'
start_send -s tone --tone "$TONE" --amplitude "$AMP" -r "$RATE" -n "$N" -f p12 "127.0.0.1:$PORT"
finish "$SEND_PID" "zcs-send (recording)"
finish "$RECV_PID" "zcs-recv (recording)"
recv_expect 's["samples"] == '$N 's["lost"] == 0'
ls -l "$WORK"/rec.* | sed 's/^/  /'
if [ "$FMT" = sigmf ]; then
	"$PY" - "$WORK/rec.sigmf-meta" "$RATE" <<'PYEOF' || fail "the SigMF metadata is not what was recorded"
import json, sys
m = json.load(open(sys.argv[1]))
g = m["global"]
print("  sigmf: datatype %s, sample_rate %s, %d capture(s)" % (
    g["core:datatype"], g["core:sample_rate"], len(m["captures"])))
sys.exit(0 if g["core:datatype"] == "cf32_le" and g["core:sample_rate"] == float(sys.argv[2])
         and m["captures"][0]["core:sample_start"] == 0 else 1)
PYEOF
else
	"$PY" "$GRTONE" raw "$REC" --format "$FMT" --label "recorded-$FMT" -r "$RATE" --tone "$TONE" \
		--amplitude "$AMP" --count "$N" || fail "the recording itself is wrong"
fi

# 2. replay it, and take it as cf32
start_recv -F cf32 -o "file:$WORK/replay.cf32" -n "$N" "127.0.0.1:$((PORT + 1))"
wait_log "$RECV_LOG" 'listening on'
start_send -s "file:$REC" "${RATE_ARG[@]}" -f p12 "127.0.0.1:$((PORT + 1))"
finish "$SEND_PID" "zcs-send (replay)"
finish "$RECV_PID" "zcs-recv (replay)"
recv_expect 's["samples"] == '$N 's["lost"] == 0' 'o["bytes"] == 8 * '$N
"$PY" "$GRTONE" raw "$WORK/replay.cf32" --format cf32 --label "replayed-$FMT" -r "$RATE" \
	--tone "$TONE" --amplitude "$AMP" --count "$N" || fail "the replay differs from what was sent"
# Every type here holds 12 bits or fewer, so the replay must equal the recording value for value.
RAWFMT=$FMT
[ "$FMT" = sigmf ] && RAWFMT=cf32
"$PY" - "$APPS_DIR" "$REC" "$RAWFMT" "$WORK/replay.cf32" <<'PYEOF' || fail "replay != recording"
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import grtone
rec = grtone.read_raw(sys.argv[2], sys.argv[3])
rep = np.fromfile(sys.argv[4], dtype=np.complex64)
same = len(rec) == len(rep) and np.array_equal(rec, rep)
diff = int(np.count_nonzero(rec != rep)) if len(rec) == len(rep) else -1
print("replay vs recording: %d and %d samples, %s" % (
    len(rec), len(rep), "identical" if same else "%d differ" % diff))
sys.exit(0 if same else 1)
PYEOF
echo "PASS"
