# SPDX-License-Identifier: MIT
# The pieces of booting the board's kernels that the ARM-kernel leg (.ci/kernels.sh) and the
# instruction-count benchmark (tests/bench/bench_board_icount.sh) share: Debian's armhf kernels
# and static tools as .debs through a private apt index, an initramfs of the armhf programs with
# their libraries, and a boot under qemu-system-arm -M vexpress-a9 with two virtio NICs.
#
# Source it with these set by the caller:
#   cache    where the suites' .debs are unpacked ($cache/SUITE/root)
#   sysroot  .ci/armhf.sh's armhf sysroot (the programs' libraries)
#   work     a scratch directory for the initramfs trees
#   ns       the network namespace holding tap0 and tap1
#   pids     an array: every background process is added, for the caller's cleanup
#   die      a function: prints its arguments and exits
# and for kernels_make_initramfs: progs (the armhf programs) after kernels_add_libs "${progs[@]}".

# The private apt options of SUITE (its index lives in $cache/SUITE) into the array kernels_apt.
kernels_apt_opts() { # SUITE
	local d=$cache/$1
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	[ -f "$d/status" ] || : >"$d/status"
	printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian %s main\n' \
		"$1" >"$d/sources.list"
	kernels_apt=(-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache" -o "Dir::State::status=$d/status"
		-o "Dir::Etc::sourcelist=$d/sources.list" -o Dir::Etc::sourceparts=/nonexistent
		-o APT::Architecture=armhf -o APT::Architectures::=armhf -o Debug::NoLocking=1 -q)
}

# Downloads PKG... of SUITE (its index already updated) and unpacks them into $cache/SUITE/NAME,
# again only when the set of .debs changed (the stamp is their file names).
kernels_unpack() { # SUITE NAME PKG...
	local s=$1 name=$2 d=$cache/$1 want f
	shift 2
	kernels_apt_opts "$s"
	want=$(apt-get "${kernels_apt[@]}" --print-uris download "$@" | awk '{ print $2 }' | sort)
	[ -n "$want" ] || die "apt cannot download $* from $s"
	if [ "$(cat "$d/$name.stamp" 2>/dev/null)" != "$want" ] || [ ! -d "$d/$name" ]; then
		rm -rf "$d/debs-$name" "$d/$name"
		mkdir -p "$d/debs-$name" "$d/$name"
		(cd "$d/debs-$name" && apt-get "${kernels_apt[@]}" download "$@" >"$d/apt-download.log" 2>&1) ||
			{ cat "$d/apt-download.log"; die "download from $s failed"; }
		for f in "$d/debs-$name"/*.deb; do dpkg-deb -x "$f" "$d/$name"; done
		printf '%s\n' "$want" >"$d/$name.stamp"
	fi
	echo "kernels: $s: $(tr '\n' ' ' <<<"$want")"
}

# SUITE's index, then its armmp kernel, busybox-static and bash-static into $cache/SUITE/root.
kernels_fetch_suite() { # SUITE
	local s=$1 d=$cache/$1 kernel
	kernels_apt_opts "$s"
	apt-get "${kernels_apt[@]}" update >"$d/apt-update.log" 2>&1 ||
		echo "kernels: apt index update of $s reported errors (tolerated, see $d/apt-update.log)"
	kernel=$(apt-cache "${kernels_apt[@]}" depends linux-image-armmp 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	[ -n "$kernel" ] || die "no linux-image-*-armmp in $s's index"
	kernels_unpack "$s" root "$kernel" busybox-static bash-static
	[ -d "$d/root/boot" ] || die "$s's kernel package has no /boot"
}

# Every library ELF... needs, recursively, into the associative array libs[name]=path, found in
# the sysroot or in the directories of kernels_libdirs (extra unpacked .debs).
declare -A libs=()
kernels_libdirs=()
kernels_add_libs() { # ELF...
	local queue=("$@") f n d
	local dirs=("$sysroot/lib/arm-linux-gnueabihf" "$sysroot/usr/lib/arm-linux-gnueabihf"
		"${kernels_libdirs[@]}")
	while [ ${#queue[@]} -gt 0 ]; do
		f=${queue[0]}
		queue=("${queue[@]:1}")
		for n in $(arm-linux-gnueabihf-readelf -d "$f" | sed -n 's/.*Shared library: \[\(.*\)\].*/\1/p'); do
			[ -n "${libs[$n]:-}" ] && continue
			for d in "${dirs[@]}"; do
				if [ -e "$d/$n" ]; then
					libs[$n]=$d/$n
					queue+=("$d/$n")
					break
				fi
			done
			[ -n "${libs[$n]:-}" ] || die "$n (needed by $f) is not in $sysroot ${kernels_libdirs[*]}"
		done
	done
}

# The initramfs of SUITE's kernel: busybox, bash, the virtio modules (listed in load order in
# /zcs/modules; one the kernel has built in is simply not there), the loader and libs[], the
# programs of progs[] and FILE... in /zcs, GUEST as /zcs/guest.sh (what .ci/kernels/init runs).
kernels_modules=(net/core/failover.ko drivers/net/net_failover.ko drivers/virtio/virtio_mmio.ko
	drivers/net/virtio_net.ko)
kernels_make_initramfs() { # SUITE OUT.gz GUEST FILE...
	local suite=$1 out=$2 guest=$3 root=$cache/$1/root ir=$work/ir-$1 kver m
	shift 3
	kver=$(ls "$root/lib/modules")
	rm -rf "$ir"
	mkdir -p "$ir"/{bin,proc,dev,tmp,sys,zcs,lib/modules,lib/arm-linux-gnueabihf}
	cp "$root/bin/busybox" "$ir/bin/busybox"
	# one bash for both: fakeboard.sh needs bash, and bookworm's runs on either kernel
	cp "$cache/bookworm/root/bin/bash-static" "$ir/bin/bash"
	: >"$ir/zcs/modules"
	for m in "${kernels_modules[@]}"; do
		if [ -e "$root/lib/modules/$kver/kernel/$m" ]; then
			cp "$root/lib/modules/$kver/kernel/$m" "$ir/lib/modules/"
			basename "$m" >>"$ir/zcs/modules"
		fi
	done
	cp -L "$sysroot/lib/ld-linux-armhf.so.3" "$ir/lib/"
	for m in "${!libs[@]}"; do cp -L "${libs[$m]}" "$ir/lib/arm-linux-gnueabihf/$m"; done
	cp "${progs[@]}" "$ir/zcs/"
	[ $# -eq 0 ] || cp "$@" "$ir/zcs/"
	cp "$guest" "$ir/zcs/guest.sh"
	cp .ci/kernels/init "$ir/init"
	chmod +x "$ir/init"
	(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1 >"$out") || die "cpio of $suite"
	echo "kernels: $suite ($kver): initramfs $(du -h "$out" | cut -f1), ${#libs[@]} libraries," \
		"modules: $(paste -sd' ' "$ir/zcs/modules")"
}

# Boots SUITE's kernel with INITRD in the namespace $ns, QEMU_ARG... added to qemu's command line
# (kernels_nic0: more properties of eth0's virtio-net-device, e.g. ",host_tso4=off"); the console
# lands in DIR/console.log, the guest's report (its ttyAMA1) in DIR/report.txt.  Waits for qemu,
# at most ${KERNELS_TIMEOUT:-900} s (the leg's whole guest takes a few minutes), or with
# kernels_boot_wait=0 returns at once with qemu's pid in kernels_qemu.
kernels_boot() { # SUITE DIR INITRD QEMU_ARG...
	local root=$cache/$1 dir=$2 initrd=$3 kver q
	root=$root/root
	shift 3
	kver=$(ls "$root/lib/modules")
	# eth0: checksum offload on; eth1: csum=off, a NIC that cannot checksum (the USB gadget's
	# case).  The MACs tell them apart in the guest whatever order the transports probe in.
	# In the background, its pid in pids: a signal to the caller then runs its trap at once
	# (bash defers traps while a foreground child runs), and its cleanup stops qemu before the
	# namespace and its taps go.
	QEMU_AUDIO_DRV=none timeout "${KERNELS_TIMEOUT:-900}" ip netns exec "$ns" qemu-system-arm \
		-M vexpress-a9 -m 1024 "$@" \
		-kernel "$root/boot/vmlinuz-$kver" \
		-dtb "$root/usr/lib/linux-image-$kver/vexpress-v2p-ca9.dtb" \
		-initrd "$initrd" -append "console=ttyAMA0 quiet panic=-1" \
		-display none -monitor none -no-reboot \
		-serial "file:$dir/console.log" -serial "file:$dir/report.txt" \
		-netdev tap,id=n0,ifname=tap0,script=no,downscript=no \
		-device "virtio-net-device,netdev=n0,mac=52:54:00:00:90:02${kernels_nic0:-}" \
		-netdev tap,id=n1,ifname=tap1,script=no,downscript=no \
		-device virtio-net-device,netdev=n1,mac=52:54:00:00:91:02,csum=off &
	q=$!
	pids+=("$q")
	kernels_qemu=$q
	[ "${kernels_boot_wait:-1}" = 0 ] || wait "$q"
}

# The namespace $ns with tap0 (198.18.90.1/24, the guest's eth0) and tap1 (198.18.91.1/24, eth1).
kernels_netns() {
	ip netns add "$ns" || die "ip netns add"
	ip -n "$ns" link set lo up
	ip -n "$ns" tuntap add dev tap0 mode tap && ip -n "$ns" tuntap add dev tap1 mode tap ||
		die "tuntap (needs /dev/net/tun)"
	ip -n "$ns" addr add 198.18.90.1/24 dev tap0 && ip -n "$ns" addr add 198.18.91.1/24 dev tap1 &&
		ip -n "$ns" link set tap0 up && ip -n "$ns" link set tap1 up || die "tap set-up"
}
