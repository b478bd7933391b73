#!/bin/bash
# SPDX-License-Identifier: MIT
# Keyed against unkeyed sending, side by side in one run: zcs-send's CPU (both threads, from its
# --json summary) per GB of p12 samples, unpaced tone over loopback to a socket that never reads
# (the kernel drops what overflows it, so no receiver's work is counted), keyed and unkeyed runs
# interleaved, the cheapest of ZCS_BENCH_REPS (default 3) kept for each.  Prints a table; never
# fails on timings (docs/measurements.md, "Keyed streams").
# usage: bench_auth_send.sh ZCS-SEND   (ZCS_BENCH_SAMPLES, default 30M)
set -euo pipefail
send=$1
samples=${ZCS_BENCH_SAMPLES:-30000000}
reps=${ZCS_BENCH_REPS:-3}
work=$(mktemp -d)
sink_pid=""
cleanup() {
	[[ -n $sink_pid ]] && kill "$sink_pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
port=$((26900 + $$ % 90))
# a bound socket that is never read: datagrams to it cost the sender a full send, nothing more
python3 -c "import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('127.0.0.1', $port))
open('$work/ready', 'w').close()
time.sleep(3600)" &
sink_pid=$!
for _ in $(seq 100); do [[ -e $work/ready ]] && break; sleep 0.05; done
"$send" --gen-key "$work/key" 2>/dev/null

run() { # $1 = label, rest = extra options; prints "label cpu_s samples datagrams"
	local label=$1
	shift
	# --json lines go to standard error; the summary is the last one
	"$send" -q --json -s tone -f p12 --unpaced -n "$samples" "$@" "127.0.0.1:$port" 2>&1 \
		>/dev/null | grep '^{.*"summary"' | tail -1 | python3 -c "import json, sys
j = json.load(sys.stdin)
print('$label', j['src_cpu_s'] + j['send_cpu_s'], j['src_cpu_s'], j['samples'], j['datagrams'],
      j['samples_per_dgram'])"
}
: >"$work/rows"
for _ in $(seq "$reps"); do
	run unkeyed >>"$work/rows"
	run keyed --key "$work/key" >>"$work/rows"
done
python3 - "$work/rows" <<'PY'
import sys
best = {}
for line in open(sys.argv[1]):
    label, cpu, src, n, dg, spd = line.split()
    cpu, src, n = float(cpu), float(src), int(n)
    if label not in best or cpu < best[label][0]:
        best[label] = (cpu, src, n, int(dg), int(spd))
print('zcs-send -s tone -f p12 --unpaced, loopback to a socket that never reads; cheapest pass')
print(f"{'':10} {'CPU s/GB':>10} {'source thread':>14} {'datagrams/GB':>13} {'pairs/dgram':>12} {'x unkeyed':>10}")
base = best['unkeyed'][0] / (best['unkeyed'][2] * 3 / 1e9)
for label in ('unkeyed', 'keyed'):
    cpu, src, n, dg, spd = best[label]
    gb = n * 3 / 1e9
    print(f'{label:10} {cpu / gb:10.3f} {src / gb:14.3f} {dg / gb:13.0f} {spd:12d} {cpu / gb / base:10.2f}')
PY
