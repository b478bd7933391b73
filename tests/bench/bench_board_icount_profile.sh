# SPDX-License-Identifier: MIT
# The profile mode of bench_board_icount.sh (ZCS_ICOUNT_PROFILE=1), sourced by it: where the
# instructions of a cell go, per thread and function, from perf's cpu-clock sampled in the guest
# (tests/bench/icount_sampler.c; under -icount shift=0 a sample falls every PERIOD instructions).
# Each cell named by ZCS_ICOUNT_PROFILE_CELLS runs again, as NAME-prof, at the cell's short count
# of pairs and at ZCS_ICOUNT_PROFILE_N with the sampler on, beside the same cells counted without
# it; the self-check loop runs once under the sampler.  bench_board_icount_profile.py then
# differences the two runs' samples and scales the shares by the count without the sampler.
#
#   ZCS_ICOUNT_PROFILE_CELLS   an extended regex of the cells to profile (default iiod, the
#                              supply, p12 on uring-zc unkeyed and keyed)
#   ZCS_ICOUNT_PROFILE_N       pairs of the long profiled run (default 10 x the cell's short run)
#   ZCS_ICOUNT_PROFILE_PERIOD  ns (instructions) between samples (default 50000)
#
# Uses the caller's build, work, progs, libs, sysroot, cache, LOOP and die; sourced before the
# caller's kernels_add_libs (the sampler's libraries go with the others).
PROF_CELLS=${ZCS_ICOUNT_PROFILE_CELLS:-'^(iiod|supply|p12-uring-zc|p12-uring-zc-keyed)$'}
PROF_N=${ZCS_ICOUNT_PROFILE_N:-}
PROF_PERIOD=${ZCS_ICOUNT_PROFILE_PERIOD:-50000}
[ -x "$build/tests/bench/icount_sampler" ] || die "$build/tests/bench/icount_sampler is missing (.ci/armhf.sh builds it)"
progs+=("$build/tests/bench/icount_sampler")

# the guest's side, for kernels_make_initramfs (after the caller made its work directory)
profile_files() {
	printf 'PROF_PERIOD=%s\n' "$PROF_PERIOD" >"$work/profile.conf"
	profile_files=(tests/bench/bench_board_icount_profile_guest.sh "$work/profile.conf")
}

# CELLS (cells.txt) gains the profiled runs: for each cell to profile, its first line (run 1, the
# short count) again as NAME-prof at that count and at PROF_N; the self-check loop under the
# sampler first.
profile_cells() { # CELLS
	local more
	# the long run in whole libiio blocks too, as the counted cells' (a run reads whole blocks)
	more=$(awk -v re="$PROF_CELLS" -v big="$PROF_N" -v loop="$LOOP" -v b="${BLOCK:-1}" '
		BEGIN { print "selfcheck-prof 1 loop - " loop }
		$2 ~ /^1:/ && $1 ~ re && !seen[$1]++ {
			n = substr($2, 3)
			m = big != "" ? big : 10 * n
			k = int(m / b + 0.5); m = (k < 1 ? 1 : k) * b
			rest = $3; for (i = 4; i <= NF; i++) rest = rest " " $i
			print $1 "-prof 1:" n " " rest
			print $1 "-prof 1:" m " " rest
		}' "$1")
	printf '%s\n' "$more" >>"$1"
}

# The host's copies of what the guest runs, "GUEST-PATH HOST-PATH" (the initramfs's layout,
# .ci/kernels/lib.sh): the symbolizer names user-space addresses from them.
profile_manifest() { # OUT
	local f n
	{
		for f in "${progs[@]}"; do echo "/zcs/$(basename "$f") $(realpath "$f")"; done
		for n in "${!libs[@]}"; do echo "/lib/arm-linux-gnueabihf/$n $(realpath "${libs[$n]}")"; done
		echo "/lib/ld-linux-armhf.so.3 $(realpath "$sysroot/lib/ld-linux-armhf.so.3")"
		echo "/bin/busybox $cache/bookworm/root/bin/busybox"
		echo "/bin/bash $cache/bookworm/root/bin/bash-static"
	} >"$1"
}

profile_tables() { # DIR
	profile_manifest "$1/profile-files.txt"
	/usr/bin/python3 tests/bench/bench_board_icount_profile.py "$1" | tee "$1/profile.md"
}
