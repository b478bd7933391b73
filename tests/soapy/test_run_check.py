# SPDX-License-Identifier: MIT
# The SoapySDR module keeps keyed runs as zcs-recv does (issue 22, part 2):
#   - its run state: a device that followed a run keeps it beside its key (KEY.seen), and a device
#     opened again refuses a replay of that run (make finds no stream);
#   - its liveness check (control=): a replay of an earlier run, sent while the board is off, is
#     not followed (nobody confirms it); the board's run, once it streams, is, and what is read is
#     the live run's samples only, byte-exact from its first (kept while the board answered, not
#     zero-filled: regression checked_run_zero_start, which a reader with from_start=1 saw).
# Recording and replaying are a Python relay on loopback.  Ports 26150-26169.
# Usage: test_run_check.py MODULE_DIR ZCS_SEND ZCS_TONE_EXPECT
import os
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soapylib import Checker, Client, expected, finish_suite, isolate, stop  # noqa: E402

isolate()

MODULE, SEND, EXPECT = sys.argv[1:4]
RATE, TONE, AMP = 500000, 23456, 0.6
N = 200000


def key_file(d, name):
    path = os.path.join(d, name)
    subprocess.run([SEND, '--gen-key', path], check=True, stderr=subprocess.DEVNULL)
    return path


def board(key, port, seed, count, control=None):
    args = [SEND, '-q', '-s', 'tone', '-f', 'p12', '-r', str(RATE), '--tone', str(TONE),
            '--amplitude', str(AMP), '--seed', str(seed), '-n', str(count), '--key', key]
    if control:
        args += ['--control', f'127.0.0.1:{control}']
    return subprocess.Popen(args + [f'127.0.0.1:{port}'], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def record(key, port, seed):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
    s.bind(('127.0.0.1', port))
    s.settimeout(60)
    p = board(key, port, seed, N)
    got = []
    while not got or not (got[-1][3] & 0x7f == 0 and got[-1][25] & 1):
        got.append(s.recv(65536))
    s.close()
    p.wait(60)
    return got


def replay(dgrams, port):
    out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i, d in enumerate(dgrams):
        out.sendto(d, ('127.0.0.1', port))
        if i % 2:
            time.sleep(0.001)


def case_run_state(port, d):
    c = Checker('soapy: the run followed is kept beside the key; opened again, a replay of it '
                'is refused')
    key = key_file(d, 'state.key')
    path = os.path.join(d, 'state.cs16')
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
    sock.bind(('127.0.0.1', port + 10))
    sock.settimeout(60)
    cl = Client(MODULE, [f'driver=zcs,addr=127.0.0.1:{port},key={key},timeout=60000',
                         'CS16', str(N), path])
    tx = board(key, port + 10, 31, N)
    got, out = [], socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        while not got or not (got[-1][3] & 0x7f == 0 and got[-1][25] & 1):
            got.append(sock.recv(65536))
            out.sendto(got[-1], ('127.0.0.1', port))   # to the device, recorded on the way
        res = cl.result()
    finally:
        stop(tx)
        cl.kill()
    sock.close()
    c.true('the device read the run', res['samples'] > 0)
    seen = key + '.seen'
    c.true('its run state is beside the key', os.path.exists(seen))
    c.true('it names run 1', os.path.exists(seen) and open(seen).read().startswith('run 1 '))
    # opened again: the run replayed is not followed, so make() finds no stream
    cl = Client(MODULE, [f'driver=zcs,addr=127.0.0.1:{port},key={key},timeout=3000', 'CS16',
                         str(N), path])
    replay(got, port)
    rc = cl.proc.wait(60)
    cl.kill()
    c.true(f'opened again: no stream followed (exit {rc})',
           rc != 0 and any('no stream arriving' in l for l in cl.err))
    if c.failures:
        print(''.join(cl.err))
    return c


def case_control_check(port, d):
    c = Checker('soapy control=: a replay sent while the board is off is not followed, the '
                "board's run is")
    key = key_file(d, 'check.key')
    older = record(key, port + 10, 41)                      # run 1, recorded only
    ctl = port + 5
    n = 3 * RATE
    fd, path = tempfile.mkstemp(prefix='zcs-soapy-check-')
    os.close(fd)
    cl = Client(MODULE, [f'driver=zcs,addr=127.0.0.1:{port},key={key},run_state=none,'
                         f'control=127.0.0.1:{ctl},from_start=1,timeout=60000', 'CS16', str(n),
                         path])
    tx = None
    try:
        replay(older, port)                                  # nobody answers for it
        tx = board(key, port, 42, n, control=ctl)            # run 2, the board's
        res = cl.result()
        tx.wait(60)
    finally:
        stop(tx)
        cl.kill()
    got = open(path, 'rb').read()
    os.unlink(path)
    want = expected(EXPECT, RATE, TONE, AMP, 42, 'p12', 'cs16', 0, n)
    c.eq('samples read', res['samples'], n)
    k = 0
    while k * 4 < len(got) and got[k * 4:k * 4 + 4] == b'\0\0\0\0':
        k += 1
    c.true('the live run\'s first pair is not zero', want[:4] != b'\0\0\0\0')
    c.eq('zero-filled pairs at its start', k, 0)
    c.true('the live run, whole', got[:n * 4] == want[:n * 4])
    if c.failures:
        print(''.join(cl.err))
    return c


def main():
    d = tempfile.mkdtemp(prefix='zcs-soapy-runs-')
    checks = [case_run_state(26150, d), case_control_check(26160, d)]
    finish_suite(checks)


if __name__ == '__main__':
    main()
