#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job on an embedded default: zcs-send's built-in tone at 20 MS/s, packed 12-bit, over
# loopback into zcs-recv (converted to cs16), with the receiver's live statistics, for 5 seconds.
# Usage: tests/demo.sh BUILD_DIR [SECONDS]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [SECONDS]}
secs=${2:-5}
rate=20000000
port=${ZCS_DEMO_PORT:-5391}

"$build/receiver/zcs-recv" "127.0.0.1:$port" -F cs16 -o file:/dev/null --exit-on-eos &
recv=$!
trap 'kill $recv 2>/dev/null || true' EXIT
sleep 0.5
echo "zcs demo: zcs-send -s tone -r $rate -f p12 -n $((rate * secs)) 127.0.0.1:$port"
"$build/sender/zcs-send" -s tone --tone 1M -r "$rate" -f p12 -n $((rate * secs)) -q "127.0.0.1:$port"
wait $recv
trap - EXIT
