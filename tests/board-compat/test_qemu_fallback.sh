#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The armhf zcs-send under qemu-arm (Cortex-A9): qemu-user has no io_uring, so --send-path auto must
# detect that, report the path it runs in its JSON summary (never io_uring), and deliver every
# datagram to a native loopback receiver;
# a forced uring-zc must be refused cleanly.  Ports 27310-27311.
set -euo pipefail

send=${ZCS_SEND_BIN:?ZCS_SEND_BIN: the armhf zcs-send}
qroot=${ZCS_QEMU_ROOT:-/usr/arm-linux-gnueabihf}
py=/usr/bin/python3
port=27310
count=300000

fail() { echo "FAIL: $*" >&2; exit 1; }
command -v qemu-arm >/dev/null || fail "qemu-arm missing (apt-get install qemu-user)"
qemu=(qemu-arm -cpu cortex-a9 -L "$qroot")
tmp=$(mktemp -d /tmp/zcs-qemu.XXXXXX)
rpid=
cleanup() {
	[ -n "$rpid" ] && kill "$rpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# Native receiver: counts datagrams and bytes until 2 s of silence after the first one.
"$py" - "$port" "$tmp/recv.txt" "$tmp/ready" <<'EOF' &
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
s.bind(('127.0.0.1', int(sys.argv[1])))
open(sys.argv[3], 'w').close()
n = nbytes = 0
s.settimeout(60)
try:
    while True:
        d = s.recv(65536)
        n += 1
        nbytes += len(d)
        s.settimeout(2)
except socket.timeout:
    pass
with open(sys.argv[2], 'w') as f:
    f.write(f'{n} {nbytes}\n')
EOF
rpid=$!
for _ in $(seq 50); do [ -e "$tmp/ready" ] && break; sleep 0.1; done

echo "# auto under qemu-arm: $count samples of tone at 1 MS/s, p12"
rc=0
"${qemu[@]}" "$send" -s tone -r 1M -n "$count" -f p12 --send-path auto --json --cpus none \
	"127.0.0.1:$port" >"$tmp/out.json" 2>"$tmp/err.txt" || rc=$?
cat "$tmp/err.txt"
[ "$rc" = 0 ] || fail "zcs-send under qemu exited $rc"
wait "$rpid" || true
rpid=
read -r got gotbytes <"$tmp/recv.txt"
summary=$(grep '"type":"summary"' "$tmp/err.txt" | tail -1)   # --json is on stderr
[ -n "$summary" ] || fail "no JSON summary on stderr"
echo "summary: $summary"
echo "receiver: $got datagrams, $gotbytes bytes"
"$py" - "$summary" "$got" "$gotbytes" "$count" <<'EOF'
import json, sys
s = json.loads(sys.argv[1])
got, gotbytes, count = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
errors = []
if s['send_path'] in ('uring-zc', 'uring'):
    errors.append(f"send path {s['send_path']} reported although qemu-user has no io_uring")
if s['samples'] != count:
    errors.append(f"sent {s['samples']} samples, asked for {count}")
# Metadata and end-of-stream datagrams ride beside the sample datagrams; the receiver counts all.
extra = s.get('meta_sent', 0) + 4
if got < s['datagrams'] or got > s['datagrams'] + extra:
    errors.append(f"receiver got {got} datagrams, sender sent {s['datagrams']} sample datagrams "
                  f"(+{s.get('meta_sent', 0)} metadata)")
if gotbytes < s['bytes']:
    errors.append(f"receiver got {gotbytes} bytes, sender sent {s['bytes']}")
print(f"send path under qemu: {s['send_path']}")
for e in errors:
    print('FAIL:', e)
sys.exit(1 if errors else 0)
EOF

echo "# forced uring-zc under qemu: refused with a message, no crash"
rc=0
timeout 60 "${qemu[@]}" "$send" -s tone -r 1M -n 1000 --send-path uring-zc --cpus none \
	"127.0.0.1:$((port + 1))" >/dev/null 2>"$tmp/err2.txt" || rc=$?
cat "$tmp/err2.txt"
case "$rc" in
0) fail "forced uring-zc succeeded under qemu-user (no io_uring there)" ;;
1 | 2) ;;
*) fail "forced uring-zc under qemu ended with status $rc (crash or timeout?)" ;;
esac
[ -s "$tmp/err2.txt" ] || fail "forced uring-zc failed without saying why"

echo "qemu-fallback: 1 passed, 0 failed"
