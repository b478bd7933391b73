#!/bin/bash
# SPDX-License-Identifier: MIT
# A newer qemu-system-arm for the Zynq machine of bench_board_icount.sh (ZCS_ICOUNT_QEMU): Debian
# 13's qemu 10.0 beside Debian 12's 7.2, to see that the counts are the guest's, not qemu's
# (docs/board.md, section 8, ran its sixth boot on it).  It is installed once per machine into
# a debootstrap'd root in /var/cache/zcs-qemu10 (ZCS_QEMU10_CACHE; ~360 MB, a few minutes) and run
# from there by a wrapper with that root's own loader and libraries, the host untouched.  The
# last line printed is the wrapper's path, for ZCS_ICOUNT_QEMU:
#
#   ZCS_ICOUNT_QEMU=$(tests/bench/qemu_newer.sh | tail -n 1) ZCS_ICOUNT_MACHINE=zynq \
#     tests/bench/bench_board_icount.sh build-armhf
#
# Needs root and debootstrap, and the Debian mirror of /etc/apt.  A benchmark's helper: not in CI.
set -euo pipefail
cache=${ZCS_QEMU10_CACHE:-/var/cache/zcs-qemu10}
root=$cache/root
wrapper=$cache/qemu-system-arm
suite=${ZCS_QEMU10_SUITE:-trixie}

# shellcheck source=../tools/debian_mirror.sh
. "$(dirname "$0")/../tools/debian_mirror.sh"

command -v debootstrap >/dev/null || { echo "qemu_newer: needs debootstrap" >&2; exit 1; }
mkdir -p "$cache"
(
	flock 9
	if [ ! -x "$root/usr/bin/qemu-system-arm" ]; then
		echo "qemu_newer: installing $suite's qemu-system-arm into $root once" >&2
		rm -rf "$root.tmp"
		debootstrap --variant=minbase --include=qemu-system-arm "$suite" "$root.tmp" \
			"$(debian_mirror)" >"$cache/debootstrap.log" 2>&1 ||
			{ tail -20 "$cache/debootstrap.log" >&2; exit 1; }
		rm -rf "$root"
		mv "$root.tmp" "$root"
	fi
	# qemu finds its modules and firmware at paths compiled in: its firmware by -L, its
	# modules' directory bound over the host's in a mount namespace of its own
	cat >"$wrapper.tmp" <<EOF
#!/bin/sh
exec unshare -m sh -c 'mount --bind "$root/usr/lib/x86_64-linux-gnu/qemu" "/usr/lib/x86_64-linux-gnu/qemu" &&
	exec "$root/lib64/ld-linux-x86-64.so.2" \\
	--library-path "$root/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu" \\
	"$root/usr/bin/qemu-system-arm" -L "$root/usr/share/qemu" "\$@"' qemu-system-arm "\$@"
EOF
	chmod +x "$wrapper.tmp"
	mv "$wrapper.tmp" "$wrapper"
) 9>"$cache/lock"
mkdir -p /usr/lib/x86_64-linux-gnu/qemu
"$wrapper" --version | head -n 1 >&2
echo "$wrapper"
