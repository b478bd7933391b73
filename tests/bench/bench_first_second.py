#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The first second after an application connects (#24): zcs-send's tone at RATE, p12, into
# zcs-recv -F cs16 -o tcp:; a TCP client connects while the stream runs, waits DELAY seconds
# before its first read (an application building its DSP chain: SDR++ took 0.3-0.6 s at 20 MS/s),
# then reads as fast as it can to the end.  Prints, per zcs-recv binary, rate and delay, what the
# output counted (overruns: blocks lost in the middle of the client's stream; skipped: blocks
# passed over while it started), the receiver's own losses (so a row where the machine could not
# keep up says so) and the bytes the client read.  A benchmark: nothing asserted.
# usage: bench_first_second.py ZCS_SEND ZCS_RECV[,ZCS_RECV...] [RATES] [DELAYS] [SECONDS]
#   e.g. bench_first_second.py build/sender/zcs-send old/zcs-recv,build/receiver/zcs-recv
#        20000000,30720000 0,0.3,1 4
import os
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'recv'))
from recvlib import Recv, isolate  # noqa: E402

isolate()   # a loopback of its own

SEND = sys.argv[1]
RECVS = sys.argv[2].split(',')
RATES = [int(float(r)) for r in (sys.argv[3] if len(sys.argv) > 3 else '20e6,30.72e6').split(',')]
DELAYS = [float(d) for d in (sys.argv[4] if len(sys.argv) > 4 else '0,0.3,1').split(',')]
SECONDS = float(sys.argv[5]) if len(sys.argv) > 5 else 4.0
UDP, TCP = 24900, 24901


def reader(port, delay, got):
    s = socket.create_connection(('127.0.0.1', port))
    time.sleep(delay)
    buf = bytearray(4 << 20)
    n = 0
    while True:
        k = s.recv_into(buf)
        if k <= 0:
            break
        n += k
    s.close()
    got.append(n)


def one(recv, rate, delay):
    out = f'tcp:127.0.0.1:{TCP}'
    r = Recv(recv, ['-F', 'cs16', '-o', out, '--exit-on-eos', f'127.0.0.1:{UDP}'])
    got = []
    send = subprocess.Popen([SEND, '-q', '-s', 'tone', '-f', 'p12', '-r', str(rate),
                             '-n', str(int(rate * SECONDS)), f'127.0.0.1:{UDP}'],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # the client comes once the stream runs, as a user presses play on a running board
    end = time.monotonic() + 10
    while 'starting at datagram' not in r.news() and time.monotonic() < end:
        time.sleep(0.01)
    t = threading.Thread(target=reader, args=(TCP, delay, got))
    t.start()
    send.wait()
    s = r.finish(timeout=60)
    t.join(30)
    o = next((x for x in s.get('outputs', []) if x['name'] == out), {})
    return s, o, (got[0] if got else 0)


def main():
    print('| zcs-recv | MS/s | client waits (s) | overruns | skipped | blocks written | '
          'client read (MB) | receiver lost | socket drops |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
    for recv in RECVS:
        for rate in RATES:
            for delay in DELAYS:
                s, o, n = one(recv, rate, delay)
                print(f'| {recv} | {rate / 1e6:g} | {delay:g} | {o.get("overruns", "-")} | '
                      f'{o.get("skipped", "-")} | {o.get("blocks", "-")} | {n / 1e6:.1f} | '
                      f'{s.get("lost", "-")} | {s.get("socket_drops", "-")} |', flush=True)


main()
