#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The packages under a real systemd as PID 1: a Debian 12 container (systemd-nspawn -b) on a copy
# of a debootstrap'd root kept in /var/cache/zcs-nspawn (made once per machine, ~2 min), the
# .debs installed in it, then zcs-send.service (keyed, its key in /etc/zcs as the docs put it)
# streams a tone into zcs-recv@ci.service.  Checks that both units start, run as the user zcs
# (not root), and that the receiver verifies and writes the stream.  The container has its own
# network namespace (loopback only) and is powered off and removed at the end.
# Usage: tests/package/nspawn.sh DIR DEB...   (DIR: scratch space, removed by the caller)
# Needs root, debootstrap and systemd-nspawn (systemd-container); the first run needs the
# Debian mirror of /etc/apt (for debootstrap).
set -uo pipefail
work=${1:?usage: $0 DIR DEB...}
shift
debs=("$@")
cache=${ZCS_NSPAWN_CACHE:-/var/cache/zcs-nspawn}
base=$cache/bookworm
# what the packages need at run time, already in the cached root so a run downloads nothing
# (apt fetches whatever a newer package adds)
include=systemd,systemd-sysv,dbus,iproute2,procps,libiio0,libad9361-0,liburing2,libzstd1
include+=,libsodium23,libssl3,libjansson4,libavahi-client3,libsoapysdr0.8
root=$work/nspawn-root
leader=
nspawn_pid=

say() { echo "nspawn: $*"; }

# shellcheck source=../tools/debian_mirror.sh
. "$(dirname "$0")/../tools/debian_mirror.sh"

# The cached root, made once (under a lock: two runs at once make it once).
ensure_base() {
	mkdir -p "$cache" || return 1
	(
		flock 9 || exit 1
		[ -x "$base/lib/systemd/systemd" ] && exit 0
		say "making $base once (debootstrap bookworm)"
		rm -rf "$base.tmp"
		debootstrap --variant=minbase --include="$include" bookworm "$base.tmp" "$(debian_mirror)" \
			>"$cache/debootstrap.log" 2>&1 || { tail -20 "$cache/debootstrap.log"; exit 1; }
		mv "$base.tmp" "$base"
	) 9>"$cache/lock"
}

# A writable layer over the cached root: the cache stays as it was.
mount_root() {
	mkdir -p "$work/upper" "$work/ovl-work" "$root" &&
		mount -t overlay overlay \
			-o "lowerdir=$base,upperdir=$work/upper,workdir=$work/ovl-work" "$root"
}

# Runs a command inside the booted container (its PID 1's namespaces).
in_ct() {
	nsenter -t "$leader" -m -u -i -n -p -- "$@"
}

cleanup() {
	if [ -n "$leader" ] && kill -0 "$leader" 2>/dev/null; then
		# SIGRTMIN+4: systemd's own poweroff request
		kill -s RTMIN+4 "$leader" 2>/dev/null
		for _ in $(seq 1 100); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.1; done
	fi
	[ -n "$nspawn_pid" ] && kill "$nspawn_pid" 2>/dev/null && wait "$nspawn_pid" 2>/dev/null
	mountpoint -q "$root" && umount "$root"
	rm -rf "$work/upper" "$work/ovl-work" "$root"
}
trap cleanup EXIT

install_debs() {
	mkdir -p "$root/root/debs" && cp "${debs[@]}" "$root/root/debs/" &&
		systemd-nspawn -q -D "$root" --register=no --keep-unit --pipe -E DEBIAN_FRONTEND=noninteractive \
			sh -c 'apt-get install -y -q /root/debs/*.deb >/root/install.log 2>&1 ||
			       { tail -20 /root/install.log; exit 1; }'
}

# The configuration a user would write, as the docs say: the key in /etc/zcs owned by zcs.
configure() {
	systemd-nspawn -q -D "$root" --register=no --keep-unit --pipe sh -ec '
		id zcs
		zcs-send --gen-key /etc/zcs/key
		chown zcs:zcs /etc/zcs/key
		echo "ZCS_SEND_ARGS=\"-s tone --tone 100k -r 1M -f p12 --key /etc/zcs/key --state-dir /var/lib/zcs-send 127.0.0.1:45393\"" \
			>/etc/zcs/send.conf
		echo "ZCS_RECV_ARGS=\"127.0.0.1:45393 --key /etc/zcs/key --state-dir /var/lib/zcs-recv-ci -o file:/var/lib/zcs-recv-ci/rx.cs16\"" \
			>/etc/zcs/recv-ci.conf'
}

boot() {
	systemd-nspawn -q -D "$root" -b --private-network --register=no --keep-unit \
		--machine="zcs-ci-$$" >"$work/console.log" 2>&1 &
	nspawn_pid=$!
	for _ in $(seq 1 200); do
		leader=$(pgrep -P "$nspawn_pid" | head -1)
		[ -n "$leader" ] && in_ct systemctl is-system-running >/dev/null 2>&1 && return 0
		# "degraded" is still up: a unit of the minimal root may have failed
		[ -n "$leader" ] && [ "$(in_ct systemctl is-system-running 2>/dev/null)" = degraded ] &&
			return 0
		kill -0 "$nspawn_pid" 2>/dev/null || break
		sleep 0.1
	done
	say "the container did not boot:"
	tail -20 "$work/console.log"
	return 1
}

# The user a unit's main process runs as, once it is running.
unit_user() {
	local pid
	pid=$(in_ct systemctl show -P MainPID "$1") || return 1
	[ "${pid:-0}" -gt 0 ] || return 1
	in_ct ps -o user= -p "$pid"
}

stream() {
	local u out size=0 rx=/var/lib/zcs-recv-ci/rx.cs16
	in_ct systemctl start zcs-recv@ci.service zcs-send.service || return 1
	# a 1 MS/s cs16 stream writes 4 MB/s: a few hundred KB show it arrives and keeps coming
	for _ in $(seq 1 100); do
		size=$(in_ct stat -c %s "$rx" 2>/dev/null || echo 0)
		[ "$size" -gt 400000 ] && break
		sleep 0.1
	done
	for u in zcs-send.service zcs-recv@ci.service; do
		out=$(in_ct systemctl is-active "$u")
		say "$u: $out, user $(unit_user "$u")"
		if [ "$out" != active ] || [ "$(unit_user "$u")" != zcs ]; then
			in_ct journalctl -q --no-pager -u "$u" | tail -20
			return 1
		fi
	done
	say "zcs-recv@ci wrote $size bytes of the keyed stream"
	[ "$size" -gt 400000 ] || { in_ct journalctl -q --no-pager -u zcs-recv@ci | tail -20; return 1; }
	# the keyed run counter and run state went to the services' own directories (--state-dir)
	in_ct ls -l /var/lib/zcs-send/key.run /var/lib/zcs-recv-ci/key.seen
}

ensure_base && mount_root && install_debs && configure && boot && stream
