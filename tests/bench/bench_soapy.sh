#!/bin/bash
# SPDX-License-Identifier: MIT
# CPU per sample of the SoapySDR module feeding a GNU Radio flowgraph (gr-soapy source) against
# zcs-recv -F cf32 -o fifo: into the same flowgraph (File Source), side by side and interleaved,
# zcs-send's p12 tone paced at RATE over loopback in a private network namespace.  The figure is
# CPU seconds per 1e8 samples of the receiving side: the flowgraph process (its threads, the
# module's receive thread among them) plus, for the FIFO, zcs-recv.  Usage:
#   bench_soapy.sh MODULE_DIR ZCS_SEND ZCS_RECV [RATE] [SECONDS] [ROUNDS]
set -euo pipefail
MODULE=$1 SEND=$2 RECV=$3 RATE=${4:-10000000} SECS=${5:-10} ROUNDS=${6:-3}
if [ "${ZCS_BENCH_NETNS:-}" != 1 ]; then
	exec unshare -rn env ZCS_BENCH_NETNS=1 /bin/sh -c 'ip link set lo up && exec "$@"' sh \
		bash "$0" "$@"
fi
HERE=$(cd "$(dirname "$0")" && pwd)
N=$((RATE * SECS))
PORT=22190
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
export SOAPY_SDR_PLUGIN_PATH=$MODULE

"$SEND" -q -s tone -f p12 -r "$RATE" --tone 1000000 "127.0.0.1:$PORT" >/dev/null 2>&1 &
pids+=($!)

proc_cpu() { # PID: utime+stime in seconds from /proc
	awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$1/stat"
}

echo "rate $RATE S/s, $N samples per run, $ROUNDS rounds; CPU-s per 1e8 samples"
for r in $(seq "$ROUNDS"); do
	out=$(/usr/bin/python3 "$HERE/bench_soapy_gr.py" soapy \
		"driver=zcs,addr=127.0.0.1:$PORT,timeout=30000" "$RATE" "$N" 2>/dev/null | tail -1)
	m=$(echo "$out" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["cpu_s"], d["wall_s"])')
	set -- $m
	module=$(awk -v c="$1" -v n="$N" 'BEGIN { printf "%.3f", c * 1e8 / n }')

	rm -f "$tmp/iq"
	"$RECV" -q -F cf32 -o "fifo:$tmp/iq" "127.0.0.1:$PORT" 2>/dev/null &
	rp=$!
	pids+=($rp)
	while [ ! -p "$tmp/iq" ]; do sleep 0.05; done
	c0=$(proc_cpu "$rp")
	out=$(/usr/bin/python3 "$HERE/bench_soapy_gr.py" fifo "$tmp/iq" "$N" 2>/dev/null | tail -1)
	c1=$(proc_cpu "$rp")
	kill "$rp"; wait "$rp" 2>/dev/null || true
	m=$(echo "$out" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["cpu_s"], d["wall_s"])')
	set -- $m
	fifo=$(awk -v g="$1" -v a="$c0" -v b="$c1" -v n="$N" 'BEGIN { printf "%.3f %.3f", (g + b - a) * 1e8 / n, (b - a) * 1e8 / n }')
	set -- $fifo
	echo "round $r: module+flowgraph $module   zcs-recv+fifo+flowgraph $1 (zcs-recv alone $2)   ratio $(awk -v a="$module" -v b="$1" 'BEGIN { printf "%.2f", a / b }')"
done
