#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The board's own kernel for the instruction-count benchmark (ZCS_ICOUNT_MACHINE=zynq in
# tests/bench/bench_board_icount.sh): Debian's armmp kernels have neither ARCH_ZYNQ nor MACB and
# ship no Zynq device tree, so this builds one from Debian's linux-source-6.1 package with
# bookworm's armmp configuration plus the Zynq-7000's own pieces: ARCH_ZYNQ, the Cadence GEM
# driver (macb), the Zynq UART, and built in what the benchmark's guest needs without modules
# (virtio-mmio and virtio-rng: the CRNG under -icount; io_uring, packet sockets).  Only the
# zImage and the zynq-zc702 device tree are built (no modules).
#
#   tests/bench/zynq_kernel.sh            (root; prints the cache directory on its last line)
#   ZCS_ZYNQ_CACHE    where the result is kept (default /var/cache/zcs-zynq)
#   ZCS_KERNELS_CACHE the kernels' cache of .ci/kernels.sh (bookworm's armmp .deb; filled here)
#
# The result, $ZCS_ZYNQ_CACHE/KEY/{zImage,zynq-zc702.dtb,config,version}, is keyed by the source
# package's version, armmp's configuration and the options below, so it is built once per machine;
# the build's log is $ZCS_ZYNQ_CACHE/build.log.  Installs what it needs (linux-source-6.1,
# gcc-arm-linux-gnueabihf, bc, bison, flex, libelf-dev, libssl-dev, device-tree-compiler).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
zcache=${ZCS_ZYNQ_CACHE:-/var/cache/zcs-zynq}
cache=${ZCS_KERNELS_CACHE:-/var/cache/zcs-kernels}
src_tar=/usr/src/linux-source-6.1.tar.xz
die() {
	echo "zynq_kernel: $*" >&2
	exit 1
}
# run by hand, not in CI: what it needs it installs (as .ci/kernels.sh does)
host_pkgs=(linux-source-6.1 gcc-arm-linux-gnueabihf bc bison flex libelf-dev libssl-dev xz-utils make
	device-tree-compiler debian-archive-keyring)
missing=()
for p in "${host_pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
		die "cannot install ${missing[*]}"
fi
[ -f "$src_tar" ] || die "$src_tar is missing (linux-source-6.1)"

# bookworm's armmp kernel .deb (its /boot/config-*), through the kernels' private apt index
pids=()
# shellcheck source=../../.ci/kernels/lib.sh
. .ci/kernels/lib.sh
kernels_fetch_suite bookworm >/dev/null
armmp_config=$(ls "$cache"/bookworm/root/boot/config-*-armmp 2>/dev/null | head -n 1)
[ -n "$armmp_config" ] || die "no armmp config in $cache/bookworm/root/boot"

# What the Zynq-7000 board (and the benchmark's initramfs, which loads no modules here) needs on
# top of armmp: the SoC, its UART and clocks, the GEM, the virtio-mmio devices qemu may add,
# the CRNG's virtio-rng.  The rest of armmp stays as Debian ships it.
zynq_options=(
	ARCH_ZYNQ=y
	SERIAL_XILINX_PS_UART=y SERIAL_XILINX_PS_UART_CONSOLE=y
	NET_VENDOR_CADENCE=y MACB=y MACB_USE_HWSTAMP=n MACB_PCI=n
	PHYLIB=y MARVELL_PHY=y
	VIRTIO=y VIRTIO_MMIO=y VIRTIO_NET=y HW_RANDOM=y HW_RANDOM_VIRTIO=y
	IO_URING=y PACKET=y
	# not wanted in a count: no debug info (the build's time and disk), no module signing
	DEBUG_INFO_NONE=y DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT=n DEBUG_INFO_DWARF5=n DEBUG_INFO_BTF=n
	MODULE_SIG=n SYSTEM_TRUSTED_KEYS='""' SYSTEM_REVOCATION_KEYS='""'
	# other SoC families whose built-in drivers are half of armmp's build: off (not those that
	# change options common code depends on, ZONE_DMA by BCM2835, the PJ4B CPU by MMP and MVEBU,
	# nor OMAP, whose symbol a header of every file reads)
	ARCH_ASPEED=n ARCH_EXYNOS=n ARCH_HIGHBANK=n ARCH_MXC=n ARCH_MESON=n ARCH_ROCKCHIP=n
	ARCH_INTEL_SOCFPGA=n ARCH_STM32=n ARCH_SUNXI=n ARCH_TEGRA=n ARCH_VT8500=n ARCH_VIRT=n
)
src_version=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || stat -c %Y "$src_tar")
key=$( (echo "$src_version" && cat "$armmp_config" && printf '%s\n' "${zynq_options[@]}") |
	sha256sum | cut -c1-16)
out=$zcache/$key
if [ -f "$out/zImage" ] && [ -f "$out/zynq-zc702.dtb" ]; then
	echo "zynq_kernel: cached: linux-source-6.1 $src_version + armmp $(basename "$armmp_config") + Zynq"
	echo "$out"
	exit 0
fi

mkdir -p "$zcache"
tree=$zcache/src-$key
log=$zcache/build.log
echo "zynq_kernel: building linux-source-6.1 $src_version with $(basename "$armmp_config") + Zynq" \
	"in $tree (log: $log; 20-45 min on 2 cores)"
(
	set -e
	date -u
	rm -rf "$tree" "$out"
	mkdir -p "$tree"
	tar -xJf "$src_tar" -C "$tree" --strip-components=1
	cd "$tree"
	cp "$armmp_config" .config
	for o in "${zynq_options[@]}"; do
		case $o in
		*=n) scripts/config --disable "${o%%=*}" ;;
		*=y) scripts/config --enable "${o%%=*}" ;;
		*) scripts/config --set-val "${o%%=*}" "${o#*=}" ;;
		esac
	done
	make ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf- olddefconfig
	# every option asked for must have survived olddefconfig (a dependency unmet drops it)
	for o in "${zynq_options[@]}"; do
		case $o in
		*=y) grep -q "^CONFIG_${o%%=*}=y" .config || { echo "CONFIG_${o%%=*} is not y"; exit 1; } ;;
		esac
	done
	# (6.1 keeps its device trees flat in arch/arm/boot/dts)
	make ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf- KBUILD_BUILD_TIMESTAMP="$src_version" \
		-j"$(nproc)" zImage zynq-zc702.dtb
	mkdir -p "$out.tmp"
	cp arch/arm/boot/zImage "$out.tmp/"
	cp .config "$out.tmp/config"
	cp "$(find arch/arm/boot/dts -name zynq-zc702.dtb | head -n 1)" "$out.tmp/zynq-zc702.dtb"
	make -s ARCH=arm kernelrelease >"$out.tmp/version"
	mv "$out.tmp" "$out"
	date -u
	) >"$log" 2>&1
[ -f "$out/zImage" ] || { tail -n 30 "$log"; die "the build failed (see $log)"; }
rm -rf "$tree"
echo "zynq_kernel: built $(cat "$out/version")"
echo "$out"
