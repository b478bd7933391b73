# SPDX-License-Identifier: MIT
# zcs-send's seeded tone through zcs-recv, exact to the byte: every wire format x every output
# type into a file, plus stdout, zstd and a stream that is cut by --count.  Ports 21100-21199.
# Usage: test_tone.py ZCS_RECV ZCS_SEND ZCS_TONE_EXPECT
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recvlib import Checker, Recv, finish_suite, isolate, read, workdir  # noqa: E402

isolate()

RECV, SEND, EXPECT = sys.argv[1], sys.argv[2], sys.argv[3]
BASE_PORT = 21100
RATE, TONE, AMP, SEED = 2000000, 123456, 0.7, 5
N = 60000


def expected(fmt, out_type, first=0, count=N):
    return subprocess.run([EXPECT, str(RATE), str(TONE), str(AMP), str(SEED), '0', fmt, out_type,
                           str(first), str(count)], check=True, stdout=subprocess.PIPE).stdout


def send(port, fmt, extra=(), check=True):
    subprocess.run([SEND, '-q', '-s', 'tone', '-f', fmt, '-r', str(RATE), '--tone', str(TONE),
                    '--amplitude', str(AMP), '--seed', str(SEED), '-n', str(N)] + list(extra) +
                   [f'127.0.0.1:{port}'], check=check, stdout=subprocess.DEVNULL,
                   stderr=None if check else subprocess.DEVNULL)


def case(port, fmt, out_type, how='file', send_extra=(), recv_extra=(), count=N):
    c = Checker(f'tone {fmt}->{out_type} via {how} {" ".join(send_extra + recv_extra)}')
    d = workdir('tone')
    path = os.path.join(d, f'{fmt}.{out_type}.{port}')
    if how == 'stdout':
        f = open(path, 'wb')
        r = Recv(RECV, ['-F', out_type, '-o', '-', '--exit-on-eos', *recv_extra,
                        f'127.0.0.1:{port}'], stdout=f)
    else:
        f = None
        r = Recv(RECV, ['-F', out_type, '-o', 'file:' + path, '--exit-on-eos', *recv_extra,
                        f'127.0.0.1:{port}'])
    # a receiver that stops at --count leaves the sender talking to a closed port
    send(port, fmt, send_extra, check=count == N)
    s = r.finish()
    if f:
        f.close()
    c.eq('exit status', r.rc, 0)
    c.counters(s, {'samples': count, 'lost': 0, 'invalid': 0, 'late': 0, 'duplicate': 0,
                   'gap_samples': 0, 'socket_drops': 0, 'overruns': 0, 'eos': 1 if count == N else s['eos']})
    c.same_bytes('output', read(path), expected(fmt, out_type, 0, count))
    if c.failures:
        print(r.news())
    os.unlink(path)
    return c


def main():
    checks = []
    port = BASE_PORT
    for fmt in ('i8', 'p12', 'i16'):
        for out_type in ('cs8', 'cu8', 'cs16', 'cf32', 'native'):
            checks.append(case(port, fmt, out_type))
            port += 1
    checks.append(case(port, 'p12', 'cs16', how='stdout'))
    checks.append(case(port + 1, 'p12', 'cf32', how='stdout'))
    checks.append(case(port + 2, 'p12', 'cs16', send_extra=('--zstd',)))
    checks.append(case(port + 3, 'i16', 'cu8', send_extra=('--zstd=5',)))
    checks.append(case(port + 4, 'p12', 'cs16', recv_extra=('-n', '12345'), count=12345))
    finish_suite(checks)


if __name__ == '__main__':
    main()
