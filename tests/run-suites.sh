#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds zcs every way CI checks it and runs every suite; ends with the time each stage took and
# one line "zcs: N passed, N failed, N skipped" (tests/summary.py).
# Stages: native -Werror build (all suites), ASan+UBSan build (all suites), the parse, reorder
# and SigMF fuzzers for a fixed number of runs, a build with libiio, io_uring, zstd and FEC disabled
# (suites unit, fuzz and minimal), a TSan build of the threaded suites (unit, send, recv), and
# the armhf cross build under qemu-arm with the glibc and kernel-header checks, then that build's
# zcs-send on Debian's armhf Linux 6.1 and 5.10 booted under qemu-system-arm (.ci/kernels.sh),
# and the Debian packages built, linted, installed and used (tests/package/deb.sh).
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

run_meson_suite() { # DIR [meson test args...]
	local dir=$1; shift
	meson test -C "$dir" --print-errorlogs --num-processes 2 "$@"
	local rc=$?
	LOGS+=("$dir/meson-logs/testlog.json")
	return $rc
}

stage "native build (gcc, -Werror)"
if setup "${B}ci" "${FULL[@]}" -Dwerror=true -Dfuzz=false >/dev/null && ninja -C "${B}ci"; then
	run_meson_suite "${B}ci" || STAGE_FAIL=1
else
	echo "native build FAILED"; STAGE_FAIL=1
fi

stage "ASan+UBSan build (clang)"
if CC=clang CXX=clang++ setup "${B}asan" "${FULL[@]}" -Dwerror=true -Db_sanitize=address,undefined \
		-Db_lundef=false -Dfuzz=true >/dev/null && ninja -C "${B}asan"; then
	# sanitized code runs 2-5 times slower: every deadline, meson's and Check's, stretched alike.
	# The lab (namespaces, bridges, the short soak) and the applications (GNU Radio, rtl_433,
	# GQRX...) run natively only: they drive the same zcs-send and zcs-recv paths the recv, send,
	# soapy, board and security suites run here under the sanitizers, and took 340 s of this
	# stage (CI must stay under 30 minutes on 2 cores).  Suite 'static' compiles without running
	# anything (the kernel-headers check): nothing there for a sanitizer.
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
		CK_TIMEOUT_MULTIPLIER=3 run_meson_suite "${B}asan" --timeout-multiplier 3 \
		--no-suite lab --no-suite apps --no-suite static || STAGE_FAIL=1
	if [ -x tests/fuzz/run-fuzzers.sh ]; then
		stage "fuzzers, fixed iterations"
		tests/fuzz/run-fuzzers.sh "${B}asan" || STAGE_FAIL=1
	fi
else
	echo "sanitizer build FAILED"; STAGE_FAIL=1
fi

stage "minimal build: -Diio=disabled -During=disabled -Dzstd=disabled -Davahi=disabled -Dfec=disabled (a PC without libiio, avahi or the erasure code: it counts parity and ignores it; a board without io_uring)"
if setup "${B}min" -Dwerror=true -Diio=disabled -During=disabled -Dzstd=disabled -Davahi=disabled -Dfec=disabled -Dtests=enabled \
		>/dev/null && ninja -C "${B}min"; then
	run_meson_suite "${B}min" --suite unit --suite fuzz --suite minimal || STAGE_FAIL=1
else
	echo "minimal build FAILED"; STAGE_FAIL=1
fi

stage "TSan build (clang): the threaded suites"
if CC=clang CXX=clang++ setup "${B}tsan" "${FULL[@]}" -Dwerror=true -Db_sanitize=thread -Db_lundef=false \
		>/dev/null && ninja -C "${B}tsan"; then
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 CK_TIMEOUT_MULTIPLIER=3 \
		run_meson_suite "${B}tsan" --timeout-multiplier 3 --suite unit --suite send --suite recv ||
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
