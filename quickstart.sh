#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's two quick-start commands on a fresh Debian 12 machine (run as root):
#   ./quickstart.sh demo   install, build, and stream a 20 MS/s p12 tone over loopback into zcs-recv
#   ./quickstart.sh test   install, build, and run every test suite (what CI runs)
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD

# Debian packages: build, tests, the emulated board, the lab, the SDR applications, armhf.
BUILD_PKGS=(build-essential meson ninja-build pkg-config libiio-dev libad9361-dev liburing-dev libzstd-dev check
            libsodium-dev libjansson-dev libavahi-client-dev libssl-dev)
TEST_PKGS=(clang llvm libclang-rt-14-dev libiio-utils iiod iproute2 nftables ethtool
           python3 python3-numpy python3-jsonschema busybox groff-base procps
           gnuradio gr-osmosdr rtl-433 strace
           qemu-system-arm cpio libsoapysdr-dev soapysdr-tools python3-soapysdr
           soapyremote-server soapysdr0.8-module-remote avahi-daemon dbus
           gqrx-sdr xvfb pulseaudio pulseaudio-utils xdotool
           libgf-complete-dev libjerasure-dev
           debhelper lintian dpkg-dev debootstrap systemd-container)

need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "quickstart: run as root (apt-get, network namespaces and mount namespaces need it)" >&2
		exit 1
	fi
}

install_pkgs() {
	need_root
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q "$@"
}

build() { # build DIR [meson options...]
	local dir=$1; shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$@"
	fi
	ninja -C "$dir"
}

demo() {
	install_pkgs "${BUILD_PKGS[@]}"
	build build
	exec "$ROOT/tests/demo.sh" "$ROOT/build"
}

test_all() {
	install_pkgs "${BUILD_PKGS[@]}" "${TEST_PKGS[@]}"
	exec "$ROOT/tests/run-suites.sh"
}

case "${1:-}" in
demo) demo ;;
test) test_all ;;
*) echo "usage: $0 demo|test" >&2; exit 2 ;;
esac
