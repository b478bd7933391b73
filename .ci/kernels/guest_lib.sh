# SPDX-License-Identifier: MIT
# Inside the ARM guest (sourced by .ci/kernels/guest.sh and tests/bench/bench_board_icount_guest.sh):
# the two NICs named and addressed as the host expects (.ci/kernels/lib.sh's kernels_boot and
# kernels_netns), and the emulated board.  Reports a failure with `say "@error ..."`.

# eth0 is the NIC with checksum offload (198.18.90.2), eth1 the csum=off one (198.18.91.2), told
# apart by their MACs: the order the virtio-mmio transports probe in is not the command line's.
guest_nics() {
	local dev
	ip link set lo up
	for dev in $(ip -o link | sed -n 's/^[0-9]*: \(eth[0-9]*\):.*/\1/p'); do
		ip link set "$dev" name "tmp-$dev"
	done
	for dev in $(ip -o link | sed -n 's/^[0-9]*: \(tmp-eth[0-9]*\):.*/\1/p'); do
		case $(ip -o link show "$dev") in
		*52:54:00:00:90:02*) ip link set "$dev" name eth0 ;;
		*52:54:00:00:91:02*) ip link set "$dev" name eth1 ;;
		esac
	done
	ip addr add 198.18.90.2/24 dev eth0 && ip link set eth0 up || say "@error eth0 set-up"
	ip addr add 198.18.91.2/24 dev eth1 && ip link set eth1 up || say "@error eth1 set-up"
	# the neighbours resolved first: a GSO train queued behind an unresolved ARP entry may be
	# dropped by the neighbour queue, a loss that no counter of ours would see
	ping -c 1 -W 10 198.18.90.1 >/dev/null 2>&1 || say "@error no answer from 198.18.90.1"
	ping -c 1 -W 10 198.18.91.1 >/dev/null 2>&1 || say "@error no answer from 198.18.91.1"
}

# The emulated board: the same IIO tree as the native board tests, laid straight into the
# initramfs's /sys (no sysfs is mounted: nothing here needs the real one), and a FIFO as the
# buffer's device node.  libiio's local backend falls back to read() on it, as it does natively.
guest_board() {
	# shellcheck source=../../tests/board/fakeboard.sh
	. /zcs/fakeboard.sh
	mkdir -p "$FB_SYS"
	fb_phy
	fb_lpc 4
	mkfifo /dev/iio:device1 || say "@error mkfifo"
}
