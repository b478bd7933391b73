#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Follow docs/board.md section 2 against an armhf sysroot (the firmware's sysroot-v0.3x.tar.gz
# unpacked, or the stand-in from cross/standin-sysroot.sh) and check what comes out:
#
#   1. cross/pluto-sysroot.ini.in filled in, layered on cross/armhf-debian.ini, built with -Werror;
#   2. zcs-send and zcs-recv import only glibc symbols and versions up to 2.25
#      (.ci/glibc-check.py --strict), and need no library the sysroot lacks;
#   3. both start under qemu-arm with the sysroot's own loader and libc;
#   4. if the sysroot has check: the suites unit, fuzz and armhf run the same way, i.e. against
#      the sysroot's glibc;
#   5. with ZCS_NATIVE_BUILD set to a native build directory of this tree (for its emulated-board
#      helpers, tests/board/README.md): the board binary, under qemu-arm with the sysroot's glibc
#      and libiio, streams from the emulated board through libiio's local backend in the
#      send_local, send_settings, send_disable and send_errors scenarios, and send_low_rates when
#      the sysroot has libad9361 (rtl_433's rates through its FIR).  (send_iiod needs the
#      network backend, which a sysroot's libiio may lack; on the board zcs-send uses local:.)
#      Needs check in the sysroot too: the armhf shim the emulated board preloads is built with
#      the tests; without it this step is skipped, and the summary says so.
#
#   [ZCS_NATIVE_BUILD=build] cross/sysroot-recipe-check.sh SYSROOT [BUILD_DIR]  (default build-pluto)
#
# liburing is linked if the sysroot has liburing.pc, libzstd if it has libzstd.pc.  Ends with one
# line "sysroot-recipe: PASS ..." or "sysroot-recipe: FAIL at <step>" and exits 0 or 1.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
[ $# -ge 1 ] || { sed -n '20p' "$0" | sed 's/^#  *//' >&2; exit 2; }
sysroot=$(realpath "$1")
build=${2:-build-pluto}
current=start
summary=
step() {
	current=$*
	printf '\n=== sysroot-recipe: %s\n' "$*"
}
result() {
	local rc=$?
	if [ $rc -eq 0 ]; then
		printf '\nsysroot-recipe: PASS against %s: %s\n' "$sysroot" "$summary"
	else
		printf '\nsysroot-recipe: FAIL at "%s" (exit %s)\n' "$current" "$rc"
		rc=1
	fi
	exit $rc
}
trap result EXIT

[ -e "$sysroot/usr/include/stdio.h" ] || { echo "sysroot-recipe: $sysroot has no usr/include/stdio.h" >&2; exit 1; }
has_pc() { [ -e "$sysroot/usr/lib/pkgconfig/$1.pc" ] || [ -e "$sysroot/usr/lib/arm-linux-gnueabihf/pkgconfig/$1.pc" ]; }
feature() { if has_pc "$1"; then echo enabled; else echo disabled; fi; }
tests=$(feature check)

step "sysroot symlinks"
# A library symlink to an absolute path (libm.so -> /lib/libm.so.6) points at the host once the
# sysroot is not /: the linker skips it and quietly links libm.a instead.  Name them, and the fix.
abs_links=$(find "$sysroot/lib" "$sysroot/usr/lib" -type l -lname '/*' -name 'lib*' 2>/dev/null || true)
if [ -n "$abs_links" ]; then
	echo "$abs_links" >&2
	echo "sysroot-recipe: absolute symlinks in the sysroot; make them relative first:" \
		"cross/relative-symlinks.sh $sysroot" >&2
	exit 1
fi
echo "none absolute"

step "configure $build"
ini="$(dirname "$(realpath -m "$build")")/$(basename "$build").ini"
sed "s|@SYSROOT@|$sysroot|g" cross/pluto-sysroot.ini.in >"$ini"
if [ -e "$build" ]; then # made anew, but only if it is a build directory
	[ -d "$build/meson-private" ] || { echo "sysroot-recipe: $build exists and is not a meson build dir" >&2; exit 1; }
	rm -rf "$build"
fi
meson setup "$build" --cross-file cross/armhf-debian.ini --cross-file "$ini" -Dwerror=true \
	-Diio=enabled -During="$(feature liburing)" -Dzstd="$(feature libzstd)" -Dtests="$tests"

step "build"
ninja -C "$build"

step "glibc 2.25 imports (--strict)"
for prog in sender/zcs-send receiver/zcs-recv; do
	# 77: the symbol list (../shared/data) is absent; the check says it skipped
	python3 .ci/glibc-check.py --strict --readelf arm-linux-gnueabihf-readelf "$build/$prog" ||
		[ $? = 77 ]
done

step "libraries come from the sysroot"
# Every library the programs need must be in the sysroot: the board has the sysroot's, nothing else.
for prog in sender/zcs-send receiver/zcs-recv; do
	for lib in $(arm-linux-gnueabihf-readelf -d "$build/$prog" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p'); do
		found=$(find "$sysroot/lib" "$sysroot/usr/lib" -maxdepth 2 -name "$lib" -print -quit)
		[ -n "$found" ] || { echo "sysroot-recipe: $prog needs $lib, which the sysroot lacks" >&2; exit 1; }
		echo "$prog: $lib -> ${found#"$sysroot"}"
	done
done

step "start under qemu-arm with the sysroot's loader"
for prog in sender/zcs-send receiver/zcs-recv; do
	qemu-arm -cpu cortex-a9 -L "$sysroot" "$build/$prog" --version
done
libc=$(qemu-arm -cpu cortex-a9 -L "$sysroot" "$sysroot"/lib/libc.so.6 2>/dev/null | head -1 || true)
summary="built -Werror, imports <= GLIBC_2.25, starts on ${libc:-its libc}"

if [ "$tests" = enabled ]; then
	step "suites unit, fuzz, armhf under qemu-arm -L $sysroot"
	meson test -C "$build" --suite unit --suite fuzz --suite armhf --print-errorlogs \
		--timeout-multiplier 4 --num-processes 2 | tee "$build/recipe-tests.txt"
	ok=$(awk '$1 == "Ok:" { print $2 }' "$build/recipe-tests.txt")
	[ "${ok:-0}" -gt 0 ] || { echo "sysroot-recipe: no test ran" >&2; exit 1; }
	summary="$summary; $ok tests passed against it"
else
	summary="$summary; no tests (the sysroot has no check)"
fi

if [ -n "${ZCS_NATIVE_BUILD:-}" ] && [ "$tests" = enabled ]; then
	step "zcs-send on the emulated board, under qemu-arm -L $sysroot"
	tests/board/cross_send.sh "$ZCS_NATIVE_BUILD" "$build" "$sysroot" "$build/board-cross.json"
	summary="$summary; $(grep -c '"result": "OK"' "$build/board-cross.json") emulated-board scenarios passed"
elif [ -n "${ZCS_NATIVE_BUILD:-}" ]; then
	summary="$summary; emulated board skipped (without check there is no tests/ build and no armhf shim)"
fi
step "done"
