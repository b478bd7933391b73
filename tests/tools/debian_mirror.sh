# SPDX-License-Identifier: MIT
# Sourced by the scripts that debootstrap a root (tests/package/nspawn.sh,
# tests/bench/qemu_newer.sh): the first Debian mirror apt is configured with (deb822 or
# one-line sources).
debian_mirror() {
	local m
	m=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' |
		grep -v security | head -1)
	[ -n "$m" ] || m=$(grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}' | head -1)
	echo "${m:?no Debian mirror in /etc/apt}"
}
