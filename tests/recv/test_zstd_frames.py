# SPDX-License-Identifier: MIT
# zstd-flagged datagrams through zcs-recv, with or without zstd in its build.  zcs-genstream
# --zstd-rle sends a constant signal, each payload a zstd frame of one RLE block made without
# libzstd, so the same stream can be sent from every build:
#   - a zcs-recv with zstd decodes it exactly (a frame its own encoder never makes, but any
#     conforming one may);
#   - a zcs-recv without zstd says once per stream, with the stream's settings, that it cannot
#     decode it, and counts every such datagram as invalid (decompress): none is delivered.
# Ports 21300-21309.
# Usage: test_zstd_frames.py ZCS_RECV ZCS_GENSTREAM yes|no   (whether the build has zstd; zcs-recv
# --version must say the same)
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recvlib import (Checker, Recv, expect_bytes, finish_suite, gen, isolate, read,  # noqa: E402
                     workdir)

isolate()

RECV, GEN, HAVE_ZSTD = sys.argv[1], sys.argv[2], sys.argv[3] == 'yes'
VERSION = subprocess.run([RECV, '--version'], check=True, stdout=subprocess.PIPE, text=True).stdout
PORT = 21300
CANNOT = 'which this build of zcs-recv cannot decode'
# meta twice: the warning is once per stream, not once per metadata datagram
OPS = ['meta', '0-4', 'meta', '5-9', 'eos:10']
SENT = 13


def run(fmt, out_type, port):
    which = 'with' if HAVE_ZSTD else 'without'
    c = Checker(f'zstd RLE frames, {fmt}->{out_type}, zcs-recv {which} zstd')
    out = os.path.join(workdir('zstdrle'), f'{fmt}.{out_type}')
    if os.path.exists(out):
        os.unlink(out)
    args = ['-F', out_type, '-o', 'file:' + out, '--window', '8', f'127.0.0.1:{port}']
    if HAVE_ZSTD:
        args.append('--exit-on-eos')
    r = Recv(RECV, args, interval=0.05)
    gen(GEN, f'127.0.0.1:{port}', ['--format', fmt, '--zstd-rle'], OPS)
    if not HAVE_ZSTD:
        # the end-of-stream datagram is one of the undecodable ones: stop once all were read
        c.true(f'zcs-recv read the {SENT} datagrams sent', r.wait_datagrams(SENT))
        r.stop()
    s = r.finish()
    c.eq('exit status', r.rc, 0)
    warnings = [line for line in r.news().splitlines() if CANNOT in line]
    if HAVE_ZSTD:
        c.counters(s, {'samples': 1100, 'delivered': 11, 'eos': 1, 'invalid': 0, 'lost': 0})
        c.eq('"cannot decode" lines', warnings, [])
        c.same_bytes('output', read(out),
                     expect_bytes(GEN, fmt, out_type, ['0-1099'], ['--zstd-rle']))
    else:
        c.counters(s, {'samples': 0, 'delivered': 0, 'eos': 0, 'invalid': 11,
                       'invalid_by.decompress': 11, 'streams': 1})
        c.eq('"cannot decode" lines', len(warnings), 1)
        c.true('the line names the stream', bool(warnings) and 'stream 0x00c0ffee' in warnings[0])
        c.eq('output bytes', len(read(out)) if os.path.exists(out) else 0, 0)
    if c.failures:
        print(r.news())
    return c


def version_check():
    c = Checker('zcs-recv --version')
    c.eq('--version', VERSION.strip().split(' ', 2)[2] if VERSION.count(' ') >= 2 else VERSION,
         f'(zstd {"yes" if HAVE_ZSTD else "no"})')
    return c


def main():
    finish_suite([version_check(), run('p12', 'cs16', PORT), run('i8', 'cf32', PORT + 1),
                  run('i16', 'cs16', PORT + 2)])


if __name__ == '__main__':
    main()
