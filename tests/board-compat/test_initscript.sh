#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The board's init script (sender/board/S60zcs-send) under BusyBox sh and BusyBox applets, in a fake
# root and a private mount namespace with a real BusyBox syslogd: start, statistics in syslog, respawn
# after kill -9, restart, back-off on a failing config, stop during back-off, status.
# Needs root (unshare -m) and busybox.  Ports 27300-27301.
set -euo pipefail

send=${ZCS_SEND_BIN:?ZCS_SEND_BIN: path of the built zcs-send}
srcdir=${ZCS_SOURCE_ROOT:?ZCS_SOURCE_ROOT: the source tree}
port=27300
py=/usr/bin/python3

fail() {
	echo "FAIL: $*" >&2
	if [ -n "${tmp:-}" ] && [ -s "$tmp/messages" ]; then
		echo "--- syslog (last 20 lines)" >&2
		tail -20 "$tmp/messages" >&2
	fi
	exit 1
}
command -v busybox >/dev/null || fail "busybox is not installed (apt-get install busybox)"
[ "$(id -u)" = 0 ] || fail "needs root for a private mount namespace (unshare -m)"

# Private mount namespace, so the syslog socket /dev/log and the tmpfs under /dev stay ours.
if [ -z "${ZCS_IN_NS:-}" ]; then
	exec unshare -m --propagation private env ZCS_IN_NS=1 "$0" "$@"
fi

tmp=$(mktemp -d /tmp/zcs-initscript.XXXXXX)
root=$tmp/root
init=$root/etc/init.d/S60zcs-send
cleanup() {
	set +e
	[ -x "$init" ] && PATH=$tmp/bb:$PATH ZCS_ROOT=$root busybox sh "$init" stop >/dev/null 2>&1
	for p in $(cat "$root/var/run/zcs-send.child.pid" "$root/var/run/zcs-send.pid" 2>/dev/null); do
		kill -KILL "$p" 2>/dev/null
	done
	[ -n "${syslogd:-}" ] && kill "$syslogd" 2>/dev/null && wait "$syslogd" 2>/dev/null
	umount -l /dev 2>/dev/null
	umount -l "$tmp/olddev" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# A /dev of our own: the device nodes programs need, and room for syslogd's /dev/log.
mkdir -p "$tmp/olddev"
mount --bind /dev "$tmp/olddev"
mount -t tmpfs -o mode=755 tmpfs /dev
for n in null zero random urandom full tty; do
	if [ -e "$tmp/olddev/$n" ]; then
		: >"/dev/$n"
		mount --bind "$tmp/olddev/$n" "/dev/$n"
	fi
done
ln -s /proc/self/fd /dev/fd

# BusyBox applets first on PATH: the script must work with what the board has.
mkdir -p "$tmp/bb"
for a in sh ash awk logger sleep kill mkfifo cat rm date setsid mkdir grep env tr; do
	ln -s "$(command -v busybox)" "$tmp/bb/$a"
done
bbpath=$tmp/bb:/usr/bin:/bin

busybox syslogd -n -O "$tmp/messages" &
syslogd=$!
for _ in $(seq 50); do [ -S /dev/log ] && break; sleep 0.1; done
[ -S /dev/log ] || fail "busybox syslogd did not create /dev/log"

# The fake root: the script, a config for a tone to loopback, the binary.
mkdir -p "$root/etc/init.d" "$root/usr/bin" "$root/var/run"
install -m 755 "$srcdir/sender/board/S60zcs-send" "$init"
ln -s "$(readlink -f "$send")" "$root/usr/bin/zcs-send"
conf() { # conf KEY=VALUE... : the shipped config with these values replaced
	cp "$srcdir/sender/board/zcs-send.conf" "$root/etc/zcs-send.conf"
	for kv in "$@"; do
		k=${kv%%=*}
		grep -q "^$k=" "$root/etc/zcs-send.conf" || fail "config has no key $k"
		sed -i "s|^$k=.*|$k=\"${kv#*=}\"|" "$root/etc/zcs-send.conf"
	done
}
conf DEST=127.0.0.1 PORT=$port URI= CHANNEL= FREQ= RATE=2M LOG_EVERY=2 \
	EXTRA_ARGS="-s tone --cpus none"

svc() { PATH=$bbpath ZCS_ROOT=$root busybox sh "$init" "$@"; }
child() { cat "$root/var/run/zcs-send.child.pid" 2>/dev/null || true; }
super() { cat "$root/var/run/zcs-send.pid" 2>/dev/null || true; }
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }
# count_dgrams SECONDS: datagrams arriving on the port in that time
count_dgrams() {
	"$py" - "$port" "$1" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', int(sys.argv[1])))
end, n = time.monotonic() + float(sys.argv[2]), 0
while True:
    left = end - time.monotonic()
    if left <= 0:
        break
    s.settimeout(left)
    try:
        s.recv(65536)
        n += 1
    except socket.timeout:
        break
print(n)
EOF
}
# wait_for CMD...: up to 10 s
wait_for() {
	for _ in $(seq 100); do "$@" && return 0; sleep 0.1; done
	return 1
}
syslog_has() { grep -q -- "$1" "$tmp/messages" 2>/dev/null; }

echo "# start"
out=$(svc start) || true
echo "$out"
[ "$out" = "Starting zcs-send: OK" ] || fail "start printed '$out'"
svc status || fail "status after start"
n=$(count_dgrams 1.5)
echo "datagrams in 1.5 s: $n"
[ "$n" -gt 0 ] || fail "no datagrams from the service"
wait_for syslog_has 'zcs-send: starting:' || fail "no start line in syslog"
# the shipped config's SEND_THREADS=auto reaches zcs-send
syslog_has 'zcs-send: starting:.* --send-threads auto' || fail "no --send-threads auto in the start line"
wait_for syslog_has 'MS/s.*dgrams' || fail "no statistics line in syslog"
grep 'zcs-send' "$tmp/messages" | tail -3

echo "# kill -9 zcs-send: the supervisor restarts it"
old=$(child)
alive "$old" || fail "no zcs-send child"
kill -KILL "$old"
respawned() { c=$(child); [ -n "$c" ] && [ "$c" != "$old" ] && alive "$c"; }
wait_for respawned || fail "zcs-send was not restarted after kill -9"
wait_for syslog_has 'exited with status 137 .*restarting in 1s' || fail "no restart line in syslog"
n=$(count_dgrams 1.5)
echo "after respawn: $n datagrams"
[ "$n" -gt 0 ] || fail "no datagrams after the respawn"

echo "# restart (as after an upgrade: new binary or config, same command)"
oldsup=$(super)
out=$(svc restart)
echo "$out"
printf '%s\n' "$out" | grep -q 'Stopping zcs-send: OK' || fail "restart: stop part"
printf '%s\n' "$out" | grep -q 'Starting zcs-send: OK' || fail "restart: start part"
alive "$oldsup" && fail "old supervisor $oldsup still alive after restart"
svc status || fail "status after restart"

echo "# stop"
c=$(child)
s=$(super)
out=$(svc stop)
echo "$out"
[ "$out" = "Stopping zcs-send: OK" ] || fail "stop printed '$out'"
alive "$c" && fail "zcs-send $c still alive after stop"
alive "$s" && fail "supervisor $s still alive after stop"
[ -e "$root/var/run/zcs-send.pid" ] && fail "pid file left behind"
st=0; svc status || st=$?
[ "$st" = 3 ] || fail "status after stop returned $st, not 3"
wait_for syslog_has 'zcs-send: stopped' || fail "no stop line in syslog"
out=$(svc stop)
[ "$out" = "Stopping zcs-send: not running" ] || fail "second stop printed '$out'"

echo "# the supervisor itself killed: status says so, start replaces the orphaned zcs-send"
svc start >/dev/null
s=$(super)
c=$(child)
kill -KILL "$s"
wait_for sh -c "! kill -0 $s 2>/dev/null" || fail "supervisor $s survived kill -9"
st=0; svc status || st=$?
[ "$st" = 1 ] || fail "status with an orphaned zcs-send returned $st, not 1"
out=$(svc start)
echo "$out"
[ "$out" = "Starting zcs-send: OK" ] || fail "start after a dead supervisor printed '$out'"
wait_for sh -c "! kill -0 $c 2>/dev/null" || fail "orphaned zcs-send $c still running after start"
svc stop >/dev/null

echo "# a config zcs-send refuses: back-off, error in syslog, stop during the back-off"
conf DEST=127.0.0.1 PORT=$port FORMAT=bogus URI= CHANNEL= FREQ= RATE= RESTART_DELAY=1 \
	EXTRA_ARGS="-s tone"
svc start || true
wait_for syslog_has 'restarting in 2s' || fail "no back-off (1s, 2s) in syslog"
grep -E 'zcs-send.*(bogus|restarting)' "$tmp/messages" | tail -4
syslog_has 'bogus' || fail "zcs-send's error message did not reach syslog"
s=$(super)
t0=$(date +%s%N)
svc stop
t1=$(date +%s%N)
alive "$s" && fail "supervisor still alive after stop during back-off"
ms=$(((t1 - t0) / 1000000))
echo "stop during back-off took ${ms} ms"

echo "# no config: start refuses"
rm "$root/etc/zcs-send.conf"
st=0; svc start || st=$?
[ "$st" = 1 ] || fail "start without config returned $st"

echo "initscript: 1 passed, 0 failed"
