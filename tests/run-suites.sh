#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds zcs every way CI checks it and runs every suite; ends with the time each stage took and
# one line "zcs: N passed, N failed, N skipped" (tests/summary.py).
# Stages: native -Werror build (all suites), ASan+UBSan build (all suites), the parse, reorder
# and SigMF fuzzers for a fixed number of runs, a build with libiio, io_uring, zstd and FEC disabled
# (suites unit, fuzz and minimal), a TSan build of the threaded suites (unit, send, recv), and
# the armhf cross build under qemu-arm with the glibc and kernel-header checks, then that build's
# zcs-send on Debian's armhf Linux 6.1 and 5.10 booted under qemu-system-arm (.ci/kernels.sh),
# and the Debian packages built, linted, installed and used (tests/package/deb.sh).  The sanitizer
# and minimal builds run in the background (nice 19) during the native suites: their output
# follows when they are waited for.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LOGS=()
B=${ZCS_BUILD_PREFIX:-build-}   # build directories: ${B}ci, ${B}asan, ${B}armhf
STAGE_FAIL=0

# stage NAME: the next stage begins; the one before is timed (stage_end), so the run ends saying
# where its minutes went (CI must stay well under 30 on 2 cores).
T_RUN=$(date +%s)
T_STAGE=$T_RUN
STAGE_NAME=
TIMES=()
stage_end() {
	[ -n "$STAGE_NAME" ] &&
		TIMES+=("$(printf '%5d s  %s' $(($(date +%s) - T_STAGE)) "${STAGE_NAME%%:*}")")
	STAGE_NAME=
}
stage() {
	stage_end
	STAGE_NAME=$*
	T_STAGE=$(date +%s)
	echo
	echo "=== $* ==="
}

# meson setup DIR OPTIONS...: a directory left from an earlier run is wiped, because meson 1.0 keeps
# an existing directory's options and exits 0 (an "ASan" build could run without its sanitizer).
setup() {
	local dir=$1
	shift
	if [ -d "$dir/meson-private" ]; then
		meson setup --wipe "$dir" "$@"
	else
		meson setup "$dir" "$@"
	fi
}
# The full builds require every feature: a dependency that went missing must fail the run, not
# quietly drop the suites that need it (meson registers no test for them, so nothing counts a skip).
FULL=(-Diio=enabled -During=enabled -Dzstd=enabled -Dtests=enabled -Dsoapy=enabled -Davahi=enabled
      -Dad9361=enabled -Dfec=enabled -Dopenssl=enabled)

# Tests run at once by the native and TSan builds.  They wait far more than they compute (paced
# streams, consumers, timers: 0.2-0.6 of a core per test running, measured), and each runs in
# namespaces of its own, so one more than the cores: the native suites took 561 s at 2 (300
# CPU-s), 353 s at 3, TSan's 194 s at 2, 107 s at 3, on 2 cores shared with other work.  The ASan
# and minimal builds keep 2: at 3 the board suite's ASan'd check_board lost datagrams on loopback
# (its receivers need 2-5 times the CPU).  ZCS_TEST_JOBS overrides the 3.
JOBS=${ZCS_TEST_JOBS:-3}

run_meson_suite() { # DIR JOBS [meson test args...]
	local dir=$1 jobs=$2
	shift 2
	meson test -C "$dir" --print-errorlogs --num-processes "$jobs" "$@"
	local rc=$?
	LOGS+=("$dir/meson-logs/testlog.json")
	return $rc
}

# Builds only compute: they run in the background at the lowest priority while the native suites
# wait on their streams, take the CPU those leave idle, and leave them theirs (nice 19 against 0
# is a 1:68 share when both want a core).  (The armhf leg stays in the foreground: starved in the
# background, its suites under qemu-arm met Check's 60 s time-outs on a loaded machine.)
# in_background LOG COMMAND...: its output into LOG, its end time into LOG.end; sets BG_PID.
in_background() {
	local log=$1
	shift
	rm -f "$log.end"
	( renice -n 19 "$BASHPID" >/dev/null; "$@"; rc=$?; date +%s >"$log.end"; exit $rc ) \
		>"$log" 2>&1 &
	BG_PID=$!
}
# await PID LOG NAME START: waits for it, times it in the closing table (the time it ran, in the
# background), shows its output, returns its status.
await() {
	local pid=$1 log=$2 name=$3 start=$4 rc
	wait "$pid"
	rc=$?
	cat "$log"
	TIMES+=("$(printf '%5d s  %s (in the background)' \
		$(($(cat "$log.end" 2>/dev/null || date +%s) - start)) "$name")")
	[ $rc -eq 0 ] || echo "$name FAILED"
	return $rc
}
build() { # DIR SETUP-OPTIONS...: configured (wiped first) and built
	local dir=$1
	shift
	setup "$dir" "$@" >/dev/null && ninja -C "$dir"
}

stage "native build (gcc, -Werror)"
NATIVE_OK=0
setup "${B}ci" "${FULL[@]}" -Dwerror=true -Dfuzz=false >/dev/null && ninja -C "${B}ci" && NATIVE_OK=1
[ $NATIVE_OK = 1 ] || { echo "native build FAILED"; STAGE_FAIL=1; }

# the sanitizer and minimal builds, meanwhile (one after another: each ninja fills both cores);
# the background's logs in the native build's directory
mkdir -p "${B}ci"
T_BUILDS=$(date +%s)
in_background "${B}ci/background-builds.log" bash -c '
	set -o pipefail
	'"$(declare -f setup build)"'
	FULL=('"${FULL[*]}"')
	r=0
	echo "=== ASan+UBSan build (clang) ==="
	CC=clang CXX=clang++ build "$1asan" "${FULL[@]}" -Dwerror=true \
		-Db_sanitize=address,undefined -Db_lundef=false -Dfuzz=true || { echo "ASan: FAILED"; r=1; }
	echo "=== minimal build ==="
	build "$1min" -Dwerror=true -Diio=disabled -During=disabled -Dzstd=disabled \
		-Davahi=disabled -Dfec=disabled -Dtests=enabled || { echo "minimal: FAILED"; r=1; }
	echo "=== TSan build (clang) ==="
	CC=clang CXX=clang++ build "$1tsan" "${FULL[@]}" -Dwerror=true -Db_sanitize=thread \
		-Db_lundef=false || { echo "TSan: FAILED"; r=1; }
	exit $r' builds "$B"
BUILDS_PID=$BG_PID

if [ $NATIVE_OK = 1 ]; then
	stage "native suites"
	run_meson_suite "${B}ci" "$JOBS" || STAGE_FAIL=1
fi

stage "ASan+UBSan, minimal and TSan builds (waiting for the background)"
await "$BUILDS_PID" "${B}ci/background-builds.log" "ASan+UBSan, minimal and TSan builds" "$T_BUILDS" ||
	STAGE_FAIL=1

stage "ASan+UBSan suites"
if grep -q '^ASan: FAILED' "${B}ci/background-builds.log"; then
	echo "sanitizer build FAILED"; STAGE_FAIL=1
else
	# sanitized code runs 2-5 times slower: every deadline, meson's and Check's, stretched alike.
	# The lab (namespaces, bridges, the short soak) and the applications (GNU Radio, rtl_433,
	# GQRX...) run natively only: they drive the same zcs-send and zcs-recv paths the recv, send,
	# soapy, board and security suites run here under the sanitizers, and took 340 s of this
	# stage (CI must stay under 30 minutes on 2 cores).  Suite 'static' compiles without running
	# anything (the kernel-headers check): nothing there for a sanitizer.
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
		CK_TIMEOUT_MULTIPLIER=3 run_meson_suite "${B}asan" 2 --timeout-multiplier 3 \
		--no-suite lab --no-suite apps --no-suite static || STAGE_FAIL=1
	if [ -x tests/fuzz/run-fuzzers.sh ]; then
		stage "fuzzers, fixed iterations"
		tests/fuzz/run-fuzzers.sh "${B}asan" || STAGE_FAIL=1
	fi
fi

stage "minimal build's suites: -Diio=disabled -During=disabled -Dzstd=disabled -Davahi=disabled -Dfec=disabled (a PC without libiio, avahi or the erasure code: it counts parity and ignores it; a board without io_uring)"
if ! grep -q '^minimal: FAILED' "${B}ci/background-builds.log"; then
	run_meson_suite "${B}min" 2 --suite unit --suite fuzz --suite minimal || STAGE_FAIL=1
else
	echo "minimal build FAILED"; STAGE_FAIL=1
fi

stage "TSan suites (clang): the threaded suites"
if ! grep -q '^TSan: FAILED' "${B}ci/background-builds.log"; then
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 CK_TIMEOUT_MULTIPLIER=3 \
		run_meson_suite "${B}tsan" "$JOBS" --timeout-multiplier 3 --suite unit --suite send --suite recv ||
		STAGE_FAIL=1
else
	echo "TSan build FAILED"; STAGE_FAIL=1
fi

if [ -x .ci/armhf.sh ]; then
	stage "armhf cross build under qemu-arm"
	# the native build's emulated-board helpers let the armhf zcs-send read the emulated radio
	ZCS_NATIVE_BUILD="${B}ci" .ci/armhf.sh "${B}armhf" || STAGE_FAIL=1
	[ -f "${B}armhf/meson-logs/testlog.json" ] && LOGS+=("${B}armhf/meson-logs/testlog.json")
	LOGS+=("${B}armhf/board-cross.json")
	[ -f "${B}armhf/glibc-check.json" ] && LOGS+=("${B}armhf/glibc-check.json")
	# the same armhf programs on the boards' own kernels (6.1, 5.10) booted under
	# qemu-system-arm; only when the armhf stage built them (a failed build failed above)
	if [ -x .ci/kernels.sh ] && [ -x "${B}armhf/sender/zcs-send" ] &&
		[ -x "${B}armhf/tests/board/feed_iq" ]; then
		stage "armhf kernels 6.1 and 5.10 under qemu-system-arm"
		ZCS_NATIVE_BUILD="${B}ci" .ci/kernels.sh "${B}armhf" || STAGE_FAIL=1
		LOGS+=("${B}armhf/kernels.json")
	fi
fi

# Last, because it installs the packages it builds (and purges them after): the earlier stages
# must never meet an installed SoapySDR module or /usr/bin/zcs-recv.
stage "Debian packages: dpkg-buildpackage -b, lintian, install, the installed files at work"
tests/package/deb.sh "${B}ci/package.json" || STAGE_FAIL=1
LOGS+=("${B}ci/package.json")

stage_end
echo
echo "=== time by stage ==="
printf '%s\n' "${TIMES[@]}"
printf '%5d s  in all\n' $(($(date +%s) - T_RUN))
echo
echo "=== summary ==="
/usr/bin/python3 "$ROOT/tests/summary.py" "${LOGS[@]}"
rc=$?
[ "$STAGE_FAIL" -eq 0 ] || rc=1
exit $rc
