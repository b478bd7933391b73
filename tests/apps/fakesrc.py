# SPDX-License-Identifier: MIT
# A stand-in for zcs-recv's outputs (FIFO, file, TCP server, rtl_tcp server) that writes a known
# tone, so grtone.py's flowgraphs and checks are themselves tested, including that they fail.
"""Usage: fakesrc.py KIND TARGET --format F -r RATE --tone HZ --amplitude A -n COUNT [--swap-iq]
KIND: fifo PATH | file PATH | tcp PORT | rtl_tcp PORT (servers on 127.0.0.1, one client)."""
import argparse
import os
import socket
import stat
import sys

import numpy as np


def tone12(n, rate, tone_hz, amplitude):
    """The 12-bit I/Q values of zcs-send's tone (I = A cos, Q = A sin), as int32 pairs."""
    a = round(amplitude * 2047)
    ph = 2 * np.pi * tone_hz / rate * np.arange(n)
    return np.round(a * np.cos(ph)).astype(np.int32), np.round(a * np.sin(ph)).astype(np.int32)


def encode(i, q, fmt):
    """The consumer scaling of docs/outputs.md: cs16 = v << 4, cs8 = v / 16 rounded to nearest
    (halves away from zero) and saturated to int8, cu8 = cs8 + 128, cf32 = v / 2048."""
    v = np.empty(2 * len(i), dtype=np.int32)
    v[0::2], v[1::2] = i, q
    s8 = np.clip((v + 8 - (v < 0)) >> 4, -128, 127)
    if fmt == 'cs16':
        return (v << 4).astype('<i2').tobytes()
    if fmt == 'cs8':
        return s8.astype(np.int8).tobytes()
    if fmt == 'cu8':
        return (s8 + 128).astype(np.uint8).tobytes()
    return (v.astype(np.float32) / 2048.0).astype('<f4').tobytes()


def serve_one(port, payload, greeting=b''):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(('127.0.0.1', port))
    ls.listen(1)
    ls.settimeout(30)
    c, _ = ls.accept()
    ls.close()
    c.sendall(greeting)
    try:
        c.sendall(payload)
        # An rtl_tcp client reads until it has enough and then closes: keep its commands away.
        c.shutdown(socket.SHUT_WR)
        c.settimeout(5)
        while c.recv(4096):
            pass
    except OSError:
        pass
    c.close()


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument('kind', choices=('fifo', 'file', 'tcp', 'rtl_tcp'))
    p.add_argument('target')
    p.add_argument('--format', default='cf32', choices=('cu8', 'cs8', 'cs16', 'cf32'))
    p.add_argument('-r', '--rate', type=float, required=True)
    p.add_argument('--tone', type=float, required=True)
    p.add_argument('--amplitude', type=float, required=True)
    p.add_argument('-n', '--count', type=int, required=True)
    p.add_argument('--swap-iq', action='store_true', help='swap I and Q (the bug to catch)')
    a = p.parse_args(argv)

    i, q = tone12(a.count, a.rate, a.tone, a.amplitude)
    if a.swap_iq:
        i, q = q, i
    payload = encode(i, q, a.format)
    if a.kind in ('fifo', 'file'):
        if a.kind == 'fifo' and not (os.path.exists(a.target) and
                                     stat.S_ISFIFO(os.stat(a.target).st_mode)):
            os.mkfifo(a.target, 0o600)
        with open(a.target, 'wb') as f:   # on a FIFO: blocks until the reader opens it
            f.write(payload)
    elif a.kind == 'tcp':
        serve_one(int(a.target), payload)
    else:
        greeting = b'RTL0' + (5).to_bytes(4, 'big') + (29).to_bytes(4, 'big')
        serve_one(int(a.target), payload, greeting)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
