# SPDX-License-Identifier: MIT
# Regression: a stream that starts between the device's open and setupStream(CF32 or CS8) is read
# whole.  The device used to open its receive path in CS16 and open it again for another format,
# so the stream's first metadata went to the socket that was closed, and its start was counted
# lost and zero-filled.  Here the sender starts after the socket opened (the client logs
# 'listening on') and before make() returns (make waits for the first metadata), so before
# setupStream: with from_start=1 every sample from index 0 is read, byte for byte, nothing lost.
# Ports 22180-22189.
# Usage: test_start_between.py MODULE_DIR ZCS_SEND ZCS_TONE_EXPECT
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soapylib import Checker, Client, expected, finish_suite, isolate, sender, stop  # noqa: E402

isolate()

MODULE, SEND, EXPECT = sys.argv[1:4]
RATE, TONE, AMP, SEED, N = 1000000, 76543, 0.6, 9, 300000


def case(port, wire, fmt, out_type):
    c = Checker(f'soapy stream started before setupStream({fmt}), wire {wire}')
    fd, path = tempfile.mkstemp(prefix='zcs-soapy-between-')
    os.close(fd)
    cl = Client(MODULE, [f'driver=zcs,addr=127.0.0.1:{port},from_start=1,timeout=60000', fmt,
                         str(N), path])
    tx = None
    try:
        tx = sender(SEND, f'127.0.0.1:{port}', wire, RATE, TONE, AMP, SEED, count=N)
        res = cl.result()
        tx.wait(60)
    finally:
        stop(tx)
        cl.kill()
    got = open(path, 'rb').read()
    os.unlink(path)
    c.eq('samples read', res['samples'], N)
    c.eq('overflows', res['overflows'], 0)
    for k in ('lost', 'gaps', 'gap_samples', 'socket_drops', 'overruns', 'invalid', 'restarts'):
        c.eq('sensor ' + k, res['sensors'][k], 0)
    c.same_bytes('samples from index 0', got,
                 expected(EXPECT, RATE, TONE, AMP, SEED, wire, out_type, 0, N))
    if c.failures:
        print(''.join(cl.err)[-4000:])
    return c


def main():
    finish_suite([case(22180, 'p12', 'CF32', 'cf32'), case(22181, 'i16', 'CS8', 'cs8'),
                  case(22182, 'i8', 'CS16', 'cs16')])


if __name__ == '__main__':
    main()
