#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every libFuzzer target of a -Dfuzz=true clang build for a fixed number of iterations,
# from the committed seeds, with a fixed seed so a CI failure reproduces.  New inputs go to a
# scratch corpus inside the build directory; the committed seeds are never written.
# Usage: tests/fuzz/run-fuzzers.sh BUILD_DIR [RUNS]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [RUNS]}
runs=${2:-200000}
src=$(cd "$(dirname "$0")" && pwd)
targets=(parse reorder sigmf ctl auth rx rx_fec)
missing=()
for target in "${targets[@]}"; do
	[ -x "$build/tests/fuzz/fuzz_$target" ] || missing+=("fuzz_$target")
done
if [ ${#missing[@]} -eq ${#targets[@]} ]; then
	echo "run-fuzzers: no fuzz targets in $build (configure with CC=clang -Dfuzz=true)" >&2
	exit 1
fi
if [ ${#missing[@]} -gt 0 ]; then # every target or none: one missing is a broken build
	echo "run-fuzzers: missing in $build: ${missing[*]}" >&2
	exit 1
fi
for target in "${targets[@]}"; do
	exe="$build/tests/fuzz/fuzz_$target"
	scratch="$build/fuzz-corpus-$target"
	mkdir -p "$scratch"
	n=$runs
	wrap=()
	if [ "$target" = rx ] || [ "$target" = rx_fec ]; then
		# the whole receive engine per input, with its outputs' thread and a socket: about 60
		# inputs a second, so a thousandth of the runs (at least 200); its fixed loopback port
		# in a network namespace of its own
		n=$((runs / 1000 > 200 ? runs / 1000 : 200))
		wrap=("$src/../tools/netns-run.sh")
	fi
	echo "fuzz_$target: $n runs"
	"${wrap[@]}" "$exe" -runs="$n" -max_len=2048 -seed=1 -print_final_stats=1 \
		"$scratch" "$src/corpus_$target" 2>&1 | tail -n 4
done
