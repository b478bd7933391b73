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
targets=(parse reorder sigmf ctl auth)
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
	echo "fuzz_$target: $runs runs"
	"$exe" -runs="$runs" -max_len=2048 -seed=1 -print_final_stats=1 \
		"$scratch" "$src/corpus_$target" 2>&1 | tail -n 4
done
