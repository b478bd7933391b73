#!/bin/sh
# SPDX-License-Identifier: MIT
# DNS-SD end to end, with two hosts: a "pc" (this network namespace) and a "board" (a second
# one, on the far end of a veth pair), each with a private dbus-daemon (its own system bus) and
# avahi-daemon (its own config).  zcs-send --announce on either, SoapySDRUtil --find=driver=zcs
# on the pc listing what was announced: multicast groups the find was never told (opened with the
# arguments find gave, the board's across the veth), a keyed unicast stream with its control
# port, a retune and a change of wire format reaching the TXT record, a stream heard on the
# default port tuned with no device argument through its announced control port, the board's
# stream to the pc listed and its stream to its own loopback not, an ended stream withdrawn, and zcs-send
# streaming on without a daemon (no bus at all; then a bus and no avahi-daemon yet, which starts
# later).
# Usage: test_dnssd.sh MODULE_DIR ZCS_SEND ZCS_CTL
#   (runs in a network namespace of its own: netns-run.sh; then re-runs itself in a private mount
#   namespace with a tmpfs over /run, so it never meets the host's dbus or avahi-daemon; the
#   board is this script again, ZCS_DNSSD_ROLE=board, in a network and mount namespace of its own)
set -eu
MODULE=$1 SEND=$2 CTL=$3
if [ "${ZCS_DNSSD_MNTNS:-}" != 1 ]; then
	ZCS_DNSSD_MNTNS=1 exec unshare -m --propagation private -- /bin/sh "$0" "$@"
fi
mount -t tmpfs -o mode=0755 zcs-dnssd-run /run
mkdir /run/avahi-daemon
ROLE=${ZCS_DNSSD_ROLE:-pc}

export SOAPY_SDR_PLUGIN_PATH=$MODULE
SoapySDRUtil() {
	if [ -n "${ZCS_SOAPY_PRELOAD:-}" ]; then
		LD_PRELOAD=$ZCS_SOAPY_PRELOAD ASAN_OPTIONS=detect_leaks=0 command SoapySDRUtil "$@"
	else
		command SoapySDRUtil "$@"
	fi
}
if [ "$ROLE" = board ]; then
	tmp=$ZCS_DNSSD_TMP
else
	tmp=$(mktemp -d)
fi
pids=
# start CMD...: in the background, its pid kept for the cleanup (the board's in a file too, so
# the pc's cleanup reaches them even if the board's shell is gone)
start() {
	"$@" &
	pids="$pids $!"
	[ "$ROLE" = pc ] || echo $! >>"$tmp/board.pids"
}
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	if [ "$ROLE" = pc ] && [ -f "$tmp/board.pids" ]; then
		for p in $(cat "$tmp/board.pids"); do kill "$p" 2>/dev/null || true; done
	fi
	wait 2>/dev/null || true
	[ "$ROLE" = pc ] || return 0
	ip link del zdv0 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() {
	echo "FAIL ($ROLE): $*"
	for f in "$tmp"/out "$tmp"/*.log; do
		[ -f "$f" ] && { echo "  $f:"; sed 's/^/  | /' "$f" | tail -40; }
	done
	exit 1
}
# wait_for SECONDS CMD...: until CMD succeeds (generous: a loaded 2-core machine)
wait_for() {
	end=$(($(date +%s) + $1)); shift
	while ! "$@" 2>/dev/null; do
		[ "$(date +%s)" -lt $end ] || return 1
		sleep 0.1
	done
}
# start_dbus NAME: a system bus of our own at $tmp/bus-NAME
start_dbus() {
	cat >"$tmp/dbus-$1.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$tmp/bus-$1</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
	start dbus-daemon --config-file="$tmp/dbus-$1.conf" --nofork --nopidfile \
		>"$tmp/dbus-$1.log" 2>&1
	wait_for 30 test -S "$tmp/bus-$1" || fail "dbus-daemon did not start"
}
# start_avahi NAME HOSTNAME IFACE: avahi-daemon on the bus of DBUS_SYSTEM_BUS_ADDRESS, on IFACE
# only (IPv4)
start_avahi() {
	cat >"$tmp/avahi-$1.conf" <<EOF
[server]
host-name=$2
use-ipv4=yes
use-ipv6=no
allow-interfaces=$3
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
publish-addresses=yes
EOF
	start avahi-daemon -f "$tmp/avahi-$1.conf" --no-drop-root --no-chroot --no-proc-title \
		>"$tmp/avahi-$1.log" 2>&1
	avahi_pid=${pids##* }
	wait_for 60 grep -q 'Server startup complete' "$tmp/avahi-$1.log" ||
		fail "avahi-daemon did not start"
}

if [ "$ROLE" = board ]; then
	# the board: its end of the veth (the pc moves it in), its own daemons, three streams
	ip link set lo up
	# in its own namespaces now: the pc may move the veth's end in
	echo $$ >"$tmp/board.netns"
	wait_for 60 ip link show zdv1 >/dev/null || fail "no zdv1"
	ip addr add 198.18.77.2/24 dev zdv1
	ip link set zdv1 multicast on up
	export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$tmp/bus-board"
	start_dbus board
	start_avahi board zcs-dnssd-board zdv1
	start "$SEND" -q -s tone -f p12 -r 2000000 --iface zdv1 --announce=board-mc \
		239.77.1.3:22241 >"$tmp/board_mc.log" 2>&1
	start "$SEND" -q -s tone -f i8 -r 1000000 --announce=board-pc 198.18.77.1:22243 \
		>"$tmp/board_pc.log" 2>&1
	start "$SEND" -q -s tone -f i8 -r 1000000 --announce=board-lo 127.0.0.1:22242 \
		>"$tmp/board_lo.log" 2>&1
	wait
	exit 0
fi

# a veth pair with multicast (loopback has none, and avahi-daemon skips it): the pc's avahi on
# zdv0, the board's on zdv1 in the board's namespaces
ip link add zdv0 type veth peer name zdv1
ip addr add 198.18.77.1/24 dev zdv0
ip link set zdv0 multicast on up
start env ZCS_DNSSD_MNTNS=1 ZCS_DNSSD_ROLE=board ZCS_DNSSD_TMP="$tmp" \
	unshare -n -m --propagation private -- /bin/sh "$0" "$@" >"$tmp/board.log" 2>&1
wait_for 60 test -s "$tmp/board.netns" || fail "the board did not start"
ip link set zdv1 netns "$(cat "$tmp/board.netns")"

# without any daemon: one line, and the stream goes on (the bus is not even there yet)
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$tmp/bus-pc"
"$SEND" -s tone -r 250000 -n 250000 --announce 198.18.77.1:22230 >"$tmp/out" 2>&1 ||
	fail "zcs-send --announce without avahi-daemon failed"
[ "$(grep -c 'DNS-SD' "$tmp/out")" = 1 ] || fail "no daemon: not exactly one DNS-SD line"
grep -q 'DNS-SD: avahi-daemon not reachable' "$tmp/out" || fail "no daemon: the line"
grep -q '250000 samples' "$tmp/out" || fail "no daemon: the stream did not run to its end"

start_dbus pc

# the multicast sender starts before avahi-daemon (the bus runs): it says so once, and is
# announced when the daemon comes
"$SEND" -q -s tone -f i16 -r 1250000 --tone 100000 --mcast-loop --iface zdv0 \
	--announce=zcs-dnssd-mc 239.77.1.2:22231 >"$tmp/send_mc.log" 2>&1 &
pids="$pids $!"
wait_for 60 grep -q 'DNS-SD: avahi-daemon not reachable (not running)' "$tmp/send_mc.log" ||
	fail "the multicast sender did not say that avahi-daemon is missing"

start_avahi pc zcs-dnssd-test zdv0

# find until the announced streams are listed (an announcement takes a probe of ~1 s first)
find_until() {
	i=0
	until SoapySDRUtil --find="driver=zcs" >"$tmp/out" 2>&1 && grep -q "$1" "$tmp/out"; do
		i=$((i + 1))
		[ $i -lt 40 ] || fail "--find did not list: $1"
	done
}
# the value of KEY in the --find block whose lines have PATTERN
field() {
	awk -v pat="$1" -v key="$2" '
		function flush() { if (hit && val != "" && !done) { print val; done = 1 } hit = 0; val = "" }
		/^Found device/ { flush(); next }
		index($0, pat) { hit = 1 }
		$1 == key { val = $3 }
		END { flush() }' "$tmp/out"
}
# find until the block with PATTERN has KEY = VALUE (the settings are keys of their own: the
# label holds none, so that applications find the device again after a retune)
find_field_until() {
	i=0
	until SoapySDRUtil --find="driver=zcs" >"$tmp/out" 2>&1 && [ "$(field "$1" "$2")" = "$3" ]; do
		i=$((i + 1))
		[ $i -lt 40 ] || fail "--find did not list $2 = $3 for: $1"
	done
}

# a multicast stream: find() is not told the group, DNS-SD names it and the interface
wait_for 60 grep -q "DNS-SD: announced as 'zcs-dnssd-mc'" "$tmp/send_mc.log" ||
	fail "the multicast sender was not announced once avahi-daemon started"
[ "$(grep -c 'not reachable' "$tmp/send_mc.log")" = 1 ] || fail "missing daemon said more than once"
find_until "DNS-SD 'zcs-dnssd-mc'"
grep -q "label = zcs zcs-dnssd-test.local (198.18.77.1), DNS-SD 'zcs-dnssd-mc'$" \
	"$tmp/out" || fail "multicast: label"
[ "$(field "zcs-dnssd-mc" stream_rate)" = 1250000 ] || fail "multicast: stream_rate"
[ "$(field "zcs-dnssd-mc" stream_frequency)" = 0 ] || fail "multicast: stream_frequency"
[ "$(field "zcs-dnssd-mc" wire_format)" = i16 ] || fail "multicast: wire_format"
[ "$(field "zcs-dnssd-mc" keyed)" = no ] || fail "multicast: keyed"
[ "$(field "zcs-dnssd-mc" serial)" = 198.18.77.1/22231 ] || fail "multicast: serial"
grep -q 'addr = 239.77.1.2:22231' "$tmp/out" || fail "multicast: addr"
grep -q 'iface = zdv0' "$tmp/out" || fail "multicast: iface"
[ "$(grep -c "DNS-SD 'zcs-dnssd-mc'" "$tmp/out")" = 1 ] || fail "multicast: listed twice"
id=$(field "zcs-dnssd-mc" stream)
[ -n "$id" ] || fail "multicast: no stream="
# the arguments find gave open it: the probe reads the rate from the stream itself
SoapySDRUtil --probe="driver=zcs,addr=239.77.1.2:22231,iface=zdv0,stream=$id" >"$tmp/out" 2>&1 ||
	fail "multicast: --probe with find's arguments"
grep -q 'wire_format=i16' "$tmp/out" || fail "multicast: probe: wire_format"
grep -q 'Sample rates: 1.25 MSps' "$tmp/out" || fail "multicast: probe: rate"

# a keyed unicast stream to this host with a control channel on a port of its own; a retune
# through that channel reaches the TXT record (find's stream_frequency; the label stays)
"$SEND" --gen-key "$tmp/key" >/dev/null 2>&1
"$SEND" -q -s tone -f p12 -r 1000000 --key "$tmp/key" --control 22232 --announce \
	198.18.77.1:22233 >"$tmp/send_uc.log" 2>&1 &
uc_pid=$!
pids="$pids $uc_pid"
wait_for 60 grep -q "DNS-SD: announced as 'zcs on " "$tmp/send_uc.log" ||
	fail "the unicast sender was not announced"
find_until "DNS-SD 'zcs on "
[ "$(field "DNS-SD 'zcs on " keyed)" = yes ] || fail "unicast: keyed"
[ "$(field "DNS-SD 'zcs on " wire_format)" = p12 ] || fail "unicast: wire_format"
label=$(grep "label = .*DNS-SD 'zcs on " "$tmp/out")
grep -q 'addr = 198.18.77.1:22233' "$tmp/out" || fail "unicast: addr"
grep -q 'source = 198.18.77.1' "$tmp/out" || fail "unicast: source"
grep -q 'control = 198.18.77.1:22232' "$tmp/out" || fail "unicast: control port"
grep -q '^ *key = ' "$tmp/out" && fail "unicast: a key in find's output"
"$CTL" -k "$tmp/key" 198.18.77.1:22232 set freq=433.92M >"$tmp/ctl.log" 2>&1 ||
	fail "zcs-ctl set freq"
find_field_until "DNS-SD 'zcs on " stream_frequency 433920000
[ "$(grep "label = .*DNS-SD 'zcs on " "$tmp/out")" = "$label" ] || fail "unicast: the label changed"
# and a change of wire format too (the TXT fmt)
"$CTL" -k "$tmp/key" 198.18.77.1:22232 set format=i16 >>"$tmp/ctl.log" 2>&1 ||
	fail "zcs-ctl set format"
find_field_until "DNS-SD 'zcs on " wire_format i16
[ "$(field "DNS-SD 'zcs on " stream_frequency)" = 433920000 ] || fail "unicast: frequency after format"
# the multicast stream is still listed beside it
grep -q "DNS-SD 'zcs-dnssd-mc'" "$tmp/out" || fail "two streams: the multicast one is gone"

# a stream heard on the default port whose control channel is on a port of its own: the
# announcement gives the heard entry that port, so an application that passes no device argument
# (SDR++: enumerate(), then make() with what it found; the key the default one, ZCS_KEY) tunes
# it.  Before, the heard entry kept the default 5392 and the tuning went nowhere.
"$SEND" -q -s tone -f p12 -r 1000000 --key "$tmp/key" --run-counter "$tmp/key.ctl.run" \
	--control 22234 --announce=zcs-dnssd-ctl 198.18.77.1 >"$tmp/send_ctl.log" 2>&1 &
ctl_pid=$!
pids="$pids $ctl_pid"
wait_for 60 grep -q "DNS-SD: announced as 'zcs-dnssd-ctl'" "$tmp/send_ctl.log" ||
	fail "the sender with --control 22234 was not announced"
tune_no_args() {
	if [ -n "${ZCS_SOAPY_PRELOAD:-}" ]; then
		set -- env LD_PRELOAD="$ZCS_SOAPY_PRELOAD" ASAN_OPTIONS=detect_leaks=0 "$@"
	fi
	ZCS_KEY="$tmp/key" "$@" /usr/bin/python3 - >"$tmp/tune.log" 2>&1 <<'PYEOF'
import SoapySDR
from SoapySDR import SOAPY_SDR_RX
found = [dict(k) for k in SoapySDR.Device.enumerate('')]
mine = [k for k in found if k.get('driver') == 'zcs' and 'DNS-SD' not in k.get('label', '')
        and k.get('control') == '198.18.77.1:22234']
print('found:', found)
if not mine:
    raise SystemExit('the heard stream has no control=198.18.77.1:22234')
dev = SoapySDR.Device(mine[0])
dev.setFrequency(SOAPY_SDR_RX, 0, 433.92e6)
print('tuned to', dev.getFrequency(SOAPY_SDR_RX, 0))
PYEOF
}
i=0
until tune_no_args; do
	i=$((i + 1))
	[ $i -lt 10 ] || fail "no device arguments: not tuned: $(tail -5 "$tmp/tune.log")"
done
"$CTL" -k "$tmp/key" 198.18.77.1:22234 get >"$tmp/ctl_get.log" 2>&1 || fail "zcs-ctl get on 22234"
grep -q '^freq  *433920000 Hz' "$tmp/ctl_get.log" ||
	fail "no device arguments: the board was not tuned: $(cat "$tmp/ctl_get.log")"
kill "$ctl_pid"
wait "$ctl_pid" 2>/dev/null || true

# the board's streams, announced by its own avahi-daemon across the veth: its group (opened
# with find's arguments: the datagrams cross the veth), its stream to this pc (the board the
# source), and not its stream to its own loopback, though the pc's daemon has resolved it
wait_for 120 dbus-send --system --print-reply --reply-timeout=5000 --dest=org.freedesktop.Avahi / \
	org.freedesktop.Avahi.Server.ResolveService int32:-1 int32:-1 string:board-lo \
	string:_zcs._udp string:local int32:-1 uint32:0 >/dev/null ||
	fail "the pc's avahi-daemon did not resolve the board's board-lo"
find_until "DNS-SD 'board-mc'"
find_until "DNS-SD 'board-pc'"
grep -q "DNS-SD 'board-mc'" "$tmp/out" || fail "board: board-mc and board-pc not listed together"
grep -q "label = zcs zcs-dnssd-board.local (198.18.77.2), DNS-SD 'board-mc'$" \
	"$tmp/out" || fail "board: multicast label"
[ "$(field "board-mc" stream_rate)" = 2000000 ] || fail "board: multicast: stream_rate"
grep -q 'addr = 239.77.1.3:22241' "$tmp/out" || fail "board: multicast addr"
grep -q 'addr = 198.18.77.1:22243' "$tmp/out" || fail "board: unicast addr"
grep -q 'source = 198.18.77.2' "$tmp/out" || fail "board: unicast source"
grep -q 'board-lo' "$tmp/out" && fail "board: its loopback stream is listed on the pc"
id=$(field "board-mc" stream)
[ -n "$id" ] || fail "board: multicast: no stream="
SoapySDRUtil --probe="driver=zcs,addr=239.77.1.3:22241,iface=zdv0,stream=$id" >"$tmp/out" 2>&1 ||
	fail "board: multicast: --probe with find's arguments"
grep -q 'wire_format=p12' "$tmp/out" || fail "board: multicast: probe: wire_format"
grep -q 'Sample rates: 2 MSps' "$tmp/out" || fail "board: multicast: probe: rate"

# avahi-daemon restarting (an upgrade, say): the senders running here announce again
kill "$avahi_pid"
wait "$avahi_pid" 2>/dev/null || true
start_avahi pc zcs-dnssd-test zdv0
wait_for 60 grep -q 'DNS-SD: avahi-daemon went away' "$tmp/send_mc.log" ||
	fail "restart: the sender did not notice"
announced_twice() { [ "$(grep -c "DNS-SD: announced as 'zcs-dnssd-mc'" "$tmp/send_mc.log")" = 2 ]; }
wait_for 60 announced_twice || fail "restart: not announced again"
find_until "DNS-SD 'zcs-dnssd-mc'"
grep -q 'no longer announced' "$tmp/send_mc.log" && fail "restart: given up"

# a stream that ends is withdrawn
find_field_until "DNS-SD 'zcs on " wire_format i16
kill "$uc_pid"
wait "$uc_pid" 2>/dev/null || true
i=0
while SoapySDRUtil --find="driver=zcs" >"$tmp/out" 2>&1 && grep -q "DNS-SD 'zcs on " "$tmp/out"; do
	i=$((i + 1))
	[ $i -lt 40 ] || fail "the ended stream is still listed"
done
# and only it: the others are still there
grep -q "DNS-SD 'zcs-dnssd-mc'" "$tmp/out" || fail "withdrawal: the multicast stream went too"
grep -q "DNS-SD 'board-mc'" "$tmp/out" || fail "withdrawal: the board's stream went too"
# ZCS_DNSSD_SHOW=1: the last find and the daemons' and senders' logs, for a person reading a run
[ -n "${ZCS_DNSSD_SHOW:-}" ] && { cat "$tmp"/out "$tmp"/*.log; } >&2
echo "soapy dnssd: ok"
