#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian packages from a fresh copy of the tree: dpkg-buildpackage -b, lintian, install, then
# the installed files at work (the SoapySDR module found by SoapySDRUtil, a loopback stream from
# /usr/bin/zcs-send into /usr/bin/zcs-recv, the systemd units verified and rated, the docs the man
# pages name in place), the packages under systemd as PID 1 in a Debian 12 container
# (tests/package/nspawn.sh: both units started, as the user zcs, streaming), then purge.
# Usage: tests/package/deb.sh RESULTS.json   (one JSON line per check, as meson's testlog.json,
# for tests/summary.py).  Needs root, debhelper, lintian, debootstrap, systemd-container;
# installs and removes packages.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
results=${1:?usage: $0 RESULTS.json}
mkdir -p "$(dirname "$results")" && : >"$results"
work=$(mktemp -d /tmp/zcs-deb.XXXXXX)
pkgs=(zcs-recv zcs-send soapysdr0.8-module-zcs)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	dpkg -s "${pkgs[@]}" >/dev/null 2>&1 && apt-get purge -y -q "${pkgs[@]}" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

fails=0
check() { # NAME COMMAND...: one result line; the command's output shown on failure
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "ok   package/$name"
		printf '{"name": "package/%s", "result": "OK"}\n' "$name" >>"$results"
	else
		echo "FAIL package/$name (exit $rc):"
		sed 's/^/     /' <<<"$out" | tail -40
		printf '{"name": "package/%s", "result": "FAIL"}\n' "$name" >>"$results"
		fails=$((fails + 1))
	fi
	return $rc
}

# The tree as git knows it (tracked and new files, no build directories), built out of the way.
copy() {
	mkdir -p "$work/zcs" &&
		(cd "$top" && git ls-files -z -c -o --exclude-standard | grep -zv '^build' |
			xargs -0 cp --parents -t "$work/zcs")
}
build() { (cd "$work/zcs" && dpkg-buildpackage -b -us -uc -j2); }
lint() { # lintian clean: no error and no warning
	local out
	out=$(lintian --fail-on error,warning "$work"/zcs_*.changes 2>&1)
	local rc=$?
	echo "$out"
	return $rc
}
install_debs() {
	local debs=()
	for p in "${pkgs[@]}"; do debs+=("$work/${p}_"*.deb); done
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${debs[@]}"
}
files_in_place() {
	local lib
	lib=$(dpkg -L soapysdr0.8-module-zcs | grep 'modules0.8/libzcsSupport.so$') || return 1
	[ -x /usr/bin/zcs-recv ] && [ -x /usr/bin/zcs-ctl ] && [ -x /usr/bin/zcs-send ] &&
		[ -f /lib/systemd/system/zcs-recv@.service ] && [ -f /lib/systemd/system/zcs-send.service ] &&
		[ -f /etc/zcs/zcs-recv-example.conf ] && man -w zcs-recv >/dev/null && echo "module: $lib"
}
units_verify() {
	command -v systemd-analyze >/dev/null || { echo "no systemd-analyze"; return 1; }
	# an instance needs its configuration (ConditionPathExists) only to start, not to verify
	systemd-analyze verify --man=no /lib/systemd/system/zcs-recv@lab.service \
		/lib/systemd/system/zcs-send.service
}
# A tone from the installed zcs-send on loopback: the installed module lists it.
soapy_find() {
	/usr/bin/zcs-send -s tone --tone 100k -r 1M -f p12 -q 127.0.0.1:45391 &
	pids+=($!)
	local out
	out=$(SoapySDRUtil --find="driver=zcs,addr=127.0.0.1:45391" 2>&1)
	kill "${pids[-1]}" 2>/dev/null
	wait "${pids[-1]}" 2>/dev/null
	echo "$out"
	grep -q 'driver = zcs' <<<"$out"
}
# Both units in systemd's "OK" band of exposure (at most 4.9 of 10).
units_security() {
	local u score fails=0
	for u in zcs-send.service zcs-recv@.service; do
		score=$(systemd-analyze security --offline=true "/lib/systemd/system/$u" 2>&1 |
			sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
		echo "$u: exposure ${score:-?}"
		awk -v s="${score:-99}" 'BEGIN { exit !(s <= 4.9) }' || fails=1
	done
	return $fails
}
# Every Markdown page a man page names is installed where it says: /usr/share/doc/PACKAGE/.
docs_installed() {
	local m pkg page fails=0
	for m in zcs-recv:zcs-recv zcs-ctl:zcs-recv zcs-send:zcs-send; do
		pkg=${m#*:}
		for page in $(zcat "/usr/share/man/man1/${m%%:*}.1.gz" | grep -v '^\.\\"' | sed 's/\\-/-/g' |
			      grep -o '[a-z][a-z-]*\.md' | sort -u); do
			[ -f "/usr/share/doc/$pkg/$page" ] && continue
			echo "man ${m%%:*}: no /usr/share/doc/$pkg/$page"
			fails=1
		done
	done
	[ "$fails" -eq 0 ] && echo "every page the man pages name is in /usr/share/doc"
	return $fails
}
# Under systemd as PID 1 (a Debian 12 container): the user zcs, both units started, a keyed stream.
systemd_boot() {
	"$top/tests/package/nspawn.sh" "$work" "$work"/zcs-recv_*.deb "$work"/zcs-send_*.deb
}
# Every sample of a counted stream, through the installed programs.
loopback_stream() {
	local n=2000000 out
	/usr/bin/zcs-recv 127.0.0.1:45392 -F cs16 -o "file:$work/rx.cs16" --exit-on-eos --json \
		>"$work/recv.json" 2>"$work/recv.err" &
	pids+=($!)
	local r=${pids[-1]}
	sleep 0.5
	/usr/bin/zcs-send -s tone --tone 100k -r 2M -f p12 -n $n -q 127.0.0.1:45392 || return 1
	wait "$r" || { cat "$work/recv.err"; return 1; }
	out=$(stat -c %s "$work/rx.cs16")
	echo "received $out bytes, expected $((n * 4))"
	[ "$out" -eq $((n * 4)) ]
}

check build-copy copy &&
	check dpkg-buildpackage build &&
	{ check lintian lint; check install install_debs; } &&
	{ check files files_in_place; check systemd-units units_verify;
	  check systemd-security units_security; check docs-installed docs_installed;
	  check soapy-find soapy_find; check loopback-stream loopback_stream;
	  check systemd-boot systemd_boot; }
echo "package: $fails failed"
[ "$fails" -eq 0 ]
