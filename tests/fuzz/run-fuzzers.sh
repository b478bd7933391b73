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
found=0
for target in parse reorder sigmf; do
	exe="$build/tests/fuzz/fuzz_$target"
	[ -x "$exe" ] || continue
	found=1
	scratch="$build/fuzz-corpus-$target"
	mkdir -p "$scratch"
	echo "fuzz_$target: $runs runs"
	"$exe" -runs="$runs" -max_len=2048 -seed=1 -print_final_stats=1 \
		"$scratch" "$src/corpus_$target" 2>&1 | tail -n 4
done
if [ "$found" -eq 0 ]; then
	echo "run-fuzzers: no fuzz targets in $build (configure with CC=clang -Dfuzz=true)" >&2
	exit 1
fi
