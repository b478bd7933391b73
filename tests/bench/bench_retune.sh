#!/bin/bash
# SPDX-License-Identifier: MIT
# Retune latency on the emulated board: an rtl_tcp client's set_freq to zcs-recv (--control),
# forwarded to zcs-send's control channel, applied through libiio (local:), announced by a CHANGE
# metadata datagram, and seen by zcs-recv (its --json "change" line).  N retunes, one at a time;
# prints each and the median, 90th percentile and maximum, with the machine's load.
#   BOARD_BIN=build/tests/board ZCS_SEND=... ZCS_RECV=... bench_retune.sh [N]
. "$(dirname "$0")/../board/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
N=${1:-20}
RATE=${RATE:-2000000}
fakeboard_feed --rate $RATE --mark 200000
fakeboard_key
key=$FB_KEY
"$ZCS_SEND" -u local: -f p12 --rate $RATE --freq 915000000 --key "$key" \
	--control 127.0.0.1:22592 -q --cpus none 127.0.0.1:22511 2> "$FB_TMP/send.log" &
fakeboard_track $!
fakeboard_wait_feed 1 'reader took'
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; rate $RATE S/s"
/usr/bin/python3 -u - "$ZCS_RECV" "$key" "$N" <<'EOF'
import json, random, socket, statistics, struct, subprocess, sys, time
recv_exe, key, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
p = subprocess.Popen([recv_exe, '--json', '--interval', '0', '--key', key, '--control', '22592',
                      '-o', 'rtl_tcp:127.0.0.1:22512', '-F', 'cu8', '127.0.0.1:22511'],
                     stderr=subprocess.PIPE, universal_newlines=True)
for line in p.stderr:
    if 'listening on' in line:
        break
for _ in range(400):
    try:
        s = socket.create_connection(('127.0.0.1', 22512), timeout=10)
        break
    except OSError:
        time.sleep(0.05)
s.recv(12)
# drain what the rtl_tcp output streams, so the client is not dropped for not reading
import threading
threading.Thread(target=lambda: [s.recv(1 << 16) for _ in iter(int, 1)], daemon=True).start()
# zcs-recv's lines through a queue: the reply and a keyed receiver's change line come together,
# and a select() on the pipe does not see a line already in the file object's buffer
import queue
lines = queue.Queue()
threading.Thread(target=lambda: [lines.put(l) for l in p.stderr], daemon=True).start()
lat, took = [], []
for i in range(n):
    f = 400000000 + 1000000 * (i + 1)
    t0 = time.monotonic()
    s.sendall(struct.pack('>BI', 1, f))
    seen = replied = False
    # both lines, in either order: a keyed receiver may believe the announcement before the
    # forwarder has read the board's reply
    while not (seen and replied) and time.monotonic() - t0 < 10:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            continue
        # the forwarder's news: the board's reply (applied, read back, index fixed; its CHANGE
        # metadata leaves before the next datagram)
        if 'the board took freq=%d ' % f in line:
            took.append((time.monotonic() - t0) * 1e3)
            replied = True
        if line.startswith('{') and '"change"' in line and json.loads(line)['center_freq'] == f:
            lat.append((time.monotonic() - t0) * 1e3)
            seen = True
        elif 'control' in line or 'client' in line:
            print('  zcs-recv: ' + line.rstrip())
    if not (seen and replied):
        print('retune %2d: no %s within 10 s' % (i + 1, 'reply' if seen else 'change line'))
        continue
    print('retune %2d: reply %7.1f ms, change believed by zcs-recv %7.1f ms' % (
        i + 1, took[-1], lat[-1]))
    # a user's set_freq comes at any moment of the board's refill: a pause of a random length
    # (more than a block, 1/20 s) samples every phase; a fixed one kept each retune at the same
    # phase, and the figures on 50 ms steps
    time.sleep(random.uniform(0.2, 0.3))
p.terminate()
p.wait()
for name, v in (('set_freq -> the board\'s reply (retune applied, announced)', took),
                ('set_freq -> zcs-recv reports the change', lat)):
    v.sort()
    print('%s, %d retunes: median %.1f ms, p90 %.1f ms, max %.1f ms' % (
        name, len(v), statistics.median(v), v[int(0.9 * (len(v) - 1))], v[-1]))
EOF
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
