#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build a stand-in for the PlutoSDR firmware's published sysroot (Buildroot's output/staging, as
# sysroot-v0.3x.tar.gz holds it) from sources, to test docs/board.md section 2 where the archive
# itself cannot be downloaded.  It has what the firmware's has and zcs-send uses:
#
#   glibc 2.25          the Linaro GCC 7.3-2018.05 toolchain's C library, lib/ and usr/lib/ layout
#   Linux UAPI headers  4.9 (sabotage-linux/kernel-headers v4.9.206): no newer than the firmware's 4.10
#   libiio 0.24         local backend only, libiio.so.0 + iio.h + libiio.pc, as on the board
#   liburing 2.3        static only (optional), as docs/board.md says to add it
#   check 0.15          static only (optional), so the unit suite can run against glibc 2.25
#   libsodium 1.0.18    static only (SODIUM_SRC=DIR in the environment): zcs-send links it
#                       statically (meson.build), so the board needs no libsodium of its own
#
# Every library is compiled with cross/pluto-sysroot.ini.in's flags against the glibc 2.25 built
# first, so nothing in the tree was built against the host's glibc.  It runs by hand, not in CI:
# its sources come from outside Debian.
#
#   [SODIUM_SRC=DIR] cross/standin-sysroot.sh OUT GLIBC_SRC HEADERS_SRC LIBIIO_SRC [LIBURING_SRC [CHECK_SRC]]
#
# OUT becomes OUT/staging (the sysroot) and OUT/build.  GLIBC_SRC is an unpacked glibc-2.25; the
# script edits it in place with the four changes a gcc-12 build of 2.25 needs (see glibc_fixups).
# HEADERS_SRC is a sabotage-linux/kernel-headers tree (its Makefile and patches/ are used);
# LIBIIO_SRC, LIBURING_SRC and CHECK_SRC are the projects' release trees (v0.24, liburing-2.3,
# 0.15.2 were tested).
set -euo pipefail

[ $# -ge 4 ] || { sed -n '19p' "$0" | sed 's/^#  *//' >&2; exit 2; }
out=$(realpath -m "$1")
glibc_src=$(realpath "$2")
headers_src=$(realpath "$3")
libiio_src=$(realpath "$4")
liburing_src=${5:+$(realpath "$5")}
check_src=${6:+$(realpath "$6")}
staging=$out/staging
build=$out/build
jobs=$(nproc)
triplet=arm-linux-gnueabihf
cpu=(-mcpu=cortex-a9 -mfpu=neon -mfloat-abi=hard)

step() { printf '\n=== standin: %s\n' "$*"; }

# The recipe's compile and link flags (cross/pluto-sysroot.ini.in), as plain CFLAGS/LDFLAGS for
# the libraries' own build systems.
sysroot_cflags="${cpu[*]} --sysroot=$staging -nostdinc -iwithprefixbefore include -iwithprefixbefore include-fixed -isystem $staging/usr/include"
sysroot_ldflags="${cpu[*]} --sysroot=$staging -B$staging/usr/lib -L$staging/lib -L$staging/usr/lib -Wl,-rpath-link,$staging/lib -Wl,-rpath-link,$staging/usr/lib"

step "host packages"
pkgs=(crossbuild-essential-armhf gawk bison python3 make cmake patch qemu-user)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The sysroot is made anew every run (a library left from an earlier run with more arguments would
# be linked by the recipe check); the glibc build directory is kept while its source stays the same.
rm -rf "$staging"
mkdir -p "$staging" "$build"

step "Linux UAPI headers from $headers_src"
# sabotage's tree is the kernel's 'make headers_install' output plus patches/ for musl; one of them
# drops struct sysinfo from linux/kernel.h, which glibc's sys/sysinfo.h relies on.  Undo them all
# so the sysroot has the kernel's own headers, as a glibc toolchain's are.
rm -rf "$build/linux-headers" && cp -a "$headers_src" "$build/linux-headers"
# last applied, first reversed
while IFS= read -r p; do
	patch -R -p1 -s -d "$build/linux-headers" <"$p"
done < <(find "$build/linux-headers/patches" -name '*.patch' | sort -r)
make -C "$build/linux-headers" ARCH=arm prefix=/usr DESTDIR="$staging" install >"$build/headers.log"

# glibc 2.25 predates gcc 10-12; four changes let it build and run, none changes what it exports:
#  - configure's compiler check knows versions up to 9.x only;
#  - misc/regexp.c's loc1/loc2/locs carry symbol versions, which a common symbol cannot
#    (-fcommon is needed elsewhere in 2.25; upstream marked these three nocommon in 2.27);
#  - ld.so found its own load address as "adr _dl_start" minus &_dl_start read from the GOT, but
#    gcc 12 computes &_dl_start pc-relative, so the difference is 0 and ld.so crashes before its
#    first system call; upstream 2.35 uses &__ehdr_start instead, and so does this copy;
#  - the math test inputs (libm-test.inc, auto-libm-test-out) are needed by 'make' even without
#    'make check'; git snapshots that leave out large files lack them, and empty ones do.
glibc_fixups() {
	sed -i 's/|\[5-9\]\.\*)/|[5-9].*|[1-9][0-9].*)/' "$glibc_src/configure"
	sed -i -E 's/^char \*(loc1|loc2|locs);/char *\1 __attribute__ ((nocommon));/' "$glibc_src/misc/regexp.c"
	perl -0pi -e 's/(elf_machine_load_address \(void\)\n\{\n).*?\n\}\n/$1  extern const Elf32_Ehdr __ehdr_start attribute_hidden;\n  return (Elf32_Addr) &__ehdr_start;\n}\n/s' \
		"$glibc_src/sysdeps/arm/dl-machine.h"
	local f
	for f in libm-test.inc auto-libm-test-out; do
		[ -s "$glibc_src/math/$f" ] || { : >"$glibc_src/math/$f"; touch -d 2001-01-01 "$glibc_src/math/$f"; }
	done
}

step "glibc from $glibc_src"
grep -q '^#define VERSION "2\.25"' "$glibc_src/version.h" || { echo "standin: $glibc_src is not glibc 2.25" >&2; exit 1; }
glibc_fixups
if [ "$(cat "$build/glibc/.zcs-src" 2>/dev/null)" != "$glibc_src" ]; then
	rm -rf "$build/glibc"
fi
mkdir -p "$build/glibc/math"
if [ ! -e "$build/glibc/config.status" ]; then
	(cd "$build/glibc" && "$glibc_src/configure" --host=$triplet --build=x86_64-linux-gnu \
		--prefix=/usr --with-headers="$staging/usr/include" --enable-kernel=3.2 \
		--disable-werror --disable-profile --without-selinux --without-gd \
		CC="$triplet-gcc ${cpu[*]}" CFLAGS="-O2 -g -fcommon" libc_cv_slibdir=/lib) \
		>"$build/glibc-configure.log" 2>&1
	printf '%s\n' "$glibc_src" >"$build/glibc/.zcs-src"
fi
# With empty test inputs, say the generated tests are up to date (they are only for 'make check').
[ -s "$glibc_src/math/libm-test.inc" ] || touch "$build/glibc/math/libm-test.stmp"
make -C "$build/glibc" -j"$jobs" >"$build/glibc-make.log" 2>&1 ||
	{ grep -E 'Error|error:' "$build/glibc-make.log" | head -20 >&2; exit 1; }
make -C "$build/glibc" install install_root="$staging" >"$build/glibc-install.log" 2>&1 ||
	{ tail -20 "$build/glibc-install.log" >&2; exit 1; }

# A CMake toolchain file carrying the recipe's flags, for libiio and check.
cat >"$build/toolchain.cmake" <<EOF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER $triplet-gcc)
set(CMAKE_C_FLAGS_INIT "$sysroot_cflags")
set(CMAKE_EXE_LINKER_FLAGS_INIT "$sysroot_ldflags")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "$sysroot_ldflags")
set(CMAKE_SYSROOT $staging)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
EOF
cmake_build() { # name src cmake-options...
	local name=$1 src=$2
	shift 2
	rm -rf "$build/$name"
	cmake -S "$src" -B "$build/$name" -DCMAKE_TOOLCHAIN_FILE="$build/toolchain.cmake" \
		-DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_BUILD_TYPE=Release "$@" \
		>"$build/$name-cmake.log" 2>&1 || { tail -20 "$build/$name-cmake.log" >&2; exit 1; }
	make -C "$build/$name" -j"$jobs" >"$build/$name-make.log" 2>&1 ||
		{ grep -E 'Error|error:' "$build/$name-make.log" | head -20 >&2; exit 1; }
	DESTDIR="$staging" make -C "$build/$name" install >"$build/$name-install.log" 2>&1 ||
		{ tail -20 "$build/$name-install.log" >&2; exit 1; }
}

step "libiio from $libiio_src (local backend)"
cmake_build libiio "$libiio_src" -DWITH_LOCAL_BACKEND=ON -DWITH_NETWORK_BACKEND=OFF \
	-DWITH_USB_BACKEND=OFF -DWITH_XML_BACKEND=OFF -DWITH_SERIAL_BACKEND=OFF -DWITH_IIOD=OFF \
	-DWITH_TESTS=OFF -DHAVE_DNS_SD=OFF -DWITH_LOCAL_CONFIG=OFF -DWITH_DOC=OFF -DWITH_MAN=OFF \
	-DPYTHON_BINDINGS=OFF -DCSHARP_BINDINGS=OFF -DINSTALL_UDEV_RULE=OFF

if [ -n "$liburing_src" ]; then
	step "liburing from $liburing_src (static)"
	rm -rf "$build/liburing" && cp -a "$liburing_src" "$build/liburing"
	# configure probes the headers (linux/time_types.h, ...) with --cc alone: the flags go there.
	(cd "$build/liburing" && ./configure --cc="$triplet-gcc $sysroot_cflags $sysroot_ldflags" \
		--prefix=/usr) >"$build/liburing-configure.log" 2>&1
	make -C "$build/liburing/src" ENABLE_SHARED=0 CFLAGS="-O2" \
		>"$build/liburing-make.log" 2>&1 || { tail -20 "$build/liburing-make.log" >&2; exit 1; }
	make -C "$build/liburing" install DESTDIR="$staging" ENABLE_SHARED=0 \
		>"$build/liburing-install.log" 2>&1 || { tail -20 "$build/liburing-install.log" >&2; exit 1; }
fi

# libsodium's release tarball (libsodium-1.0.18.tar.gz, unpacked) has a generated configure.
# Not run in this tree's CI (its source is not in Debian's binary archive): written to the
# release's documented autotools build, static only, with the recipe's flags.
sodium_src=${SODIUM_SRC:+$(realpath "$SODIUM_SRC")}
if [ -n "$sodium_src" ]; then
	step "libsodium from $sodium_src (static)"
	mkdir -p "$build/libsodium"
	(cd "$build/libsodium" && "$sodium_src/configure" --host=$triplet --prefix=/usr \
		--disable-shared --enable-static --with-pic CFLAGS="-O2 $sysroot_cflags" \
		LDFLAGS="$sysroot_ldflags") >"$build/libsodium-configure.log" 2>&1 ||
		{ tail -20 "$build/libsodium-configure.log" >&2; exit 1; }
	make -C "$build/libsodium" -j"$jobs" >"$build/libsodium-make.log" 2>&1 ||
		{ tail -20 "$build/libsodium-make.log" >&2; exit 1; }
	make -C "$build/libsodium" install DESTDIR="$staging" >"$build/libsodium-install.log" 2>&1 ||
		{ tail -20 "$build/libsodium-install.log" >&2; exit 1; }
fi

if [ -n "$check_src" ]; then
	step "check from $check_src (static)"
	cmake_build check "$check_src" -DBUILD_SHARED_LIBS=OFF -DCHECK_ENABLE_TESTS=OFF \
		-DENABLE_SUBUNIT_EXT=OFF -DCHECK_ENABLE_GCOV=OFF -DBUILD_TESTING=OFF
fi

step "done"
glibc_version=$(sed -n 's/^#define VERSION "\(.*\)"/\1/p' "$glibc_src/version.h")
printf 'standin: %s: glibc %s, Linux headers %s, libiio %s%s%s%s\n' "$staging" "$glibc_version" \
	"$(sed -n 's/^#define LINUX_VERSION_CODE \([0-9]*\)/\1/p' "$staging/usr/include/linux/version.h" |
		awk '{ printf "%d.%d", int($1 / 65536), int($1 / 256) % 256 }')" \
	"$(sed -n 's/^Version: //p' "$staging/usr/lib/pkgconfig/libiio.pc")" \
	"${liburing_src:+, liburing $(sed -n 's/^Version: //p' "$staging/usr/lib/pkgconfig/liburing.pc")}" \
	"${check_src:+, check $(sed -n 's/^Version: //p' "$staging/usr/lib/pkgconfig/check.pc")}" \
	"${sodium_src:+, libsodium $(sed -n 's/^Version: //p' "$staging/usr/lib/pkgconfig/libsodium.pc")}"
