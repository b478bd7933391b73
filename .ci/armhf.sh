#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The board's CI leg: cross-build for armhf (Cortex-A9, NEON, hard-float), run the unit, fuzz-replay
# and armhf suites under qemu-arm, then check the binary's glibc imports and kernel-header needs.
# The emulated-board suite 'board' is native (its helpers run beside Debian's own iiod); with
# ZCS_NATIVE_BUILD naming a native build of this tree, its send scenarios also run with the
# armhf zcs-send under qemu-arm (tests/board/cross_send.sh).
#
#   [ZCS_NATIVE_BUILD=build] .ci/armhf.sh [BUILD_DIR]   (default build-armhf; root, Debian 12)
#
# Ends with one line "armhf: PASS ..." or "armhf: FAIL at <step> ..." and exits 0 or 1.
#
# Libraries come from an armhf sysroot unpacked from Debian's armhf .debs into a cache directory
# (ZCS_ARMHF_CACHE, default /var/cache/zcs-armhf) with a private apt index, instead of multiarch
# `apt-get install libiio-dev:armhf ...`: Multi-Arch: same packages must have the identical version
# for amd64 and armhf, and whenever a security update of the amd64 one (libzstd1, linux-libc-dev,
# libssl3...) is installed but the armhf index lags or fails (it does on this registry mirror), apt
# refuses the whole set.  The private index also leaves the machine's dpkg and apt state untouched.
# The same sysroot then exercises cross/pluto-sysroot.ini.in, the recipe for the real board.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${1:-build-armhf}
cache=${ZCS_ARMHF_CACHE:-/var/cache/zcs-armhf}
rm -f "$build/board-cross.json" "$build/glibc-check.json"   # never a previous run's results
export DEBIAN_FRONTEND=noninteractive
t0=$(date +%s)
current=start
tests_line=
step() {
	current=$*
	printf '\n=== armhf: %s (%ss)\n' "$*" "$(($(date +%s) - t0))"
}
result() {
	local rc=$? el=$(($(date +%s) - t0))
	if [ $rc -eq 0 ]; then
		printf '\narmhf: PASS in %ss: cross build -Werror, %s, glibc and kernel-header checks\n' \
			"$el" "${tests_line:-no tests run}"
	else
		printf '\narmhf: FAIL at "%s" after %ss (exit %s)%s\n' "$current" "$el" "$rc" \
			"${tests_line:+; $tests_line}"
		rc=1
	fi
	exit $rc
}
trap result EXIT

step "host packages"
# Everything this script and the suites it runs use, for a fresh Debian 12: the cross toolchain
# (with binutils' arm-linux-gnueabihf-readelf), qemu-arm, meson/ninja/pkg-config, python3 (glibc
# check, the fallback test's receiver), gcc (the kernel-header check compiles natively), iproute2
# (test_net's private network namespaces), apt and dpkg-deb (the sysroot; always there).
host_pkgs=(crossbuild-essential-armhf qemu-user meson ninja-build pkg-config python3 gcc git
	iproute2)
missing=()
for p in "${host_pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	apt-get update -q || true
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

step "armhf sysroot in $cache"
roots=(libc6-dev libiio-dev liburing-dev libzstd-dev check libsodium-dev libjansson-dev libssl-dev
	libad9361-dev libgf-complete-dev libjerasure-dev)
# (gf-complete and jerasure only for bench_fec's comparison: zcs's erasure code needs no library)
# Alternatives apt-cache lists beside the one actually needed, and tools that are not libraries.
skip='^(mawk|libc-dev-bin|rpcsvc-proto|libelogind0|libsystemd-shared)$'
mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial" "$cache/debs"
[ -f "$cache/apt/status" ] || : >"$cache/apt/status"
apt_opts=(-o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt/cache"
	-o "Dir::State::status=$cache/apt/status" -o APT::Architecture=armhf
	-o APT::Architectures::=armhf -o Debug::NoLocking=1 -q)
# A failing index (here: bookworm-security armhf, size mismatch on the mirror) is tolerated: the
# sysroot only has to be consistent with itself, and bookworm's main index is enough for that.
apt-get "${apt_opts[@]}" update >"$cache/apt-update.log" 2>&1 ||
	echo "armhf: apt index update reported errors (tolerated, see $cache/apt-update.log):" \
		"$(grep -c '^E:' "$cache/apt-update.log") lines"
mapfile -t pkgs < <(apt-cache "${apt_opts[@]}" depends --recurse --no-recommends --no-suggests \
	--no-conflicts --no-breaks --no-replaces --no-enhances "${roots[@]}" |
	grep -E '^[a-z0-9]' | sed 's/:armhf$//' | grep -Ev "$skip" | sort -u)
# One line per .deb: the file name carries package, version and architecture, so it is the stamp.
want=$(apt-get "${apt_opts[@]}" --print-uris download "${pkgs[@]}" | awk '{ print $2 }' | sort)
sysroot="$cache/sysroot"
if [ "$(cat "$cache/sysroot.stamp" 2>/dev/null)" != "$want" ] || [ ! -e "$sysroot/lib/ld-linux-armhf.so.3" ]; then
	rm -rf "$cache/debs" "$sysroot"
	mkdir -p "$cache/debs" "$sysroot"
	(cd "$cache/debs" && apt-get "${apt_opts[@]}" download "${pkgs[@]}" >"$cache/apt-download.log" 2>&1) || {
		cat "$cache/apt-download.log"; exit 1; }
	for d in "$cache"/debs/*.deb; do dpkg-deb -x "$d" "$sysroot"; done
	printf '%s\n' "$want" >"$cache/sysroot.stamp"
fi
# The .debs carry absolute symlinks (libm.so -> /lib/<triplet>/libm.so.6) that would make the
# linker take libm.a: made relative on every run (cheap, and it mends an older cache).
cross/relative-symlinks.sh "$sysroot"
echo "armhf: sysroot of $(wc -l <<<"$want") packages:" \
	"$(grep -E '^(libiio0|liburing2|libzstd1|libc6)_' <<<"$want" | paste -sd' ')"

step "configure $build (cross/armhf-debian.ini + cross/pluto-sysroot.ini.in on the Debian sysroot)"
mkdir -p "$cache/cross"
sed "s|@SYSROOT@|$sysroot|g" cross/pluto-sysroot.ini.in >"$cache/cross/debian-sysroot.ini"
cross=(--cross-file cross/armhf-debian.ini --cross-file "$cache/cross/debian-sysroot.ini")
opts=(-Diio=enabled -Dad9361=enabled -During=enabled -Dzstd=enabled -Davahi=disabled -Dtests=enabled -Dfuzz=false -Dwerror=true)
# A build dir made some other way (native, other cross files, no -Werror) is made anew: the
# options are part of what this leg proves.  The stamp records how this script set it up.
stamp="${cross[*]} ${opts[*]}"
if [ -f "$build/build.ninja" ] && [ "$(cat "$build/.zcs-armhf-setup" 2>/dev/null)" = "$stamp" ]; then
	meson setup --reconfigure "$build" "${opts[@]}" >/dev/null
else
	if [ -e "$build" ]; then
		[ -d "$build/meson-private" ] || { echo "armhf: $build exists and is not a meson build dir" >&2; exit 1; }
		rm -rf "$build"
	fi
	meson setup "$build" "${cross[@]}" "${opts[@]}"
	printf '%s\n' "$stamp" >"$build/.zcs-armhf-setup"
fi

step "build"
ninja -C "$build"

step "tests under qemu-arm -cpu cortex-a9 (suites unit, fuzz, armhf)"
# qemu-user is several times slower than the host: give each test's own timeout room.
rc=0
meson test -C "$build" --suite unit --suite fuzz --suite armhf --print-errorlogs \
	--timeout-multiplier 4 --num-processes 2 | tee "$build/armhf-tests.txt" || rc=$?
count() { awk -v k="$1:" '$1 == k { v = $2 } END { print v + 0 }' "$build/armhf-tests.txt"; }
tests_line="tests under qemu: $(count Ok) ok, $(($(count Fail) + $(count Timeout))) failed, $(count Skipped) skipped"
[ $rc -eq 0 ] || exit $rc
[ "$(count Ok)" -gt 0 ] || { echo "armhf: no test ran" >&2; exit 1; }
# Tests that stop short under qemu-user say so (SKIP/note lines): show them, they are the limits.
grep -h -E '^(SKIP|note) ' "$build"/meson-logs/testlog.txt | sort -u || true

step "glibc 2.25 import check"
send="$build/sender/zcs-send"
if [ ! -x "$send" ]; then
	echo "armhf: $send was not built" >&2
	exit 1
fi
# counted with the tests (run-suites.sh's summary): a skip where the symbol list is absent
glibc_rc=0
/usr/bin/python3 .ci/glibc-check.py --readelf arm-linux-gnueabihf-readelf "$send" || glibc_rc=$?
case $glibc_rc in 0) glibc_result=OK ;; 77) glibc_result=SKIP ;; *) glibc_result=FAIL ;; esac
printf '{"name": "armhf/glibc-2.25-imports", "result": "%s", "duration": 0}\n' "$glibc_result" \
	>"$build/glibc-check.json"
[ "$glibc_result" != FAIL ] || exit "$glibc_rc"

step "kernel headers 4.10 check"
bash .ci/kernel-compat-check.sh

# With a native build of this tree beside (run-suites.sh passes its ${B}ci): the armhf zcs-send
# reads the emulated board through the sysroot's libiio, under qemu-arm.
if [ -n "${ZCS_NATIVE_BUILD:-}" ]; then
	step "armhf zcs-send on the emulated board (native helpers from $ZCS_NATIVE_BUILD)"
	tests/board/cross_send.sh "$ZCS_NATIVE_BUILD" "$build" "$sysroot" "$build/board-cross.json"
	board_count=$(grep -c '"result": "OK"' "$build/board-cross.json")
	tests_line="$tests_line; emulated board: $board_count ok"
fi

step "done"
