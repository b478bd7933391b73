# SPDX-License-Identifier: MIT
# Loss through the module equals loss through zcs-recv: zcs-send's seeded tone goes through the
# seeded impairment relay (drops and burst drops only, so the same seed removes the same
# datagrams in every run) once into zcs-recv and once into a python3-soapysdr client.  Samples
# read, zero fill, gaps (one OVERFLOW each), lost datagrams and every output byte must be equal.
# Each OVERFLOW comes before its gap's zeros (docs/howto-soapy.md): returned when the samples
# read so far end where a run of zeros begins, with that run's first time.  Time: every read's
# timeNs is the stream's (RATE divides 1e9: 1000 ns a sample), advancing by exactly its samples
# between reads and by the gap's length over a gap, and getHardwareTime() after a read is the
# time of the sample after it.
# from_start=1: the module keeps the samples from its open, not from the activation, as zcs-recv
# delivers from its start (otherwise what comes between the metadata and activateStream is not
# read, by design, and that span depends on the machine's timing).
# Ports 22120-22139.
# Usage: test_loss.py MODULE_DIR ZCS_RECV ZCS_SEND ZCS_IMPAIR
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from SoapySDR import SOAPY_SDR_HAS_TIME, SOAPY_SDR_OVERFLOW

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soapylib import Checker, Client, finish_suite, isolate, sender, stop  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'recv'))
from recvlib import Recv  # noqa: E402

isolate()

MODULE, RECV, SEND, IMPAIR = sys.argv[1:5]
RATE, TONE, AMP, SEED, N = 1000000, 55555, 0.5, 3, 600000
RELAY_PORT, RX_PORT = 22120, 22121


def relay(seed, tmp):
    ready = os.path.join(tmp, 'ready')
    if os.path.exists(ready):
        os.unlink(ready)
    p = subprocess.Popen([IMPAIR, '-l', f'127.0.0.1:{RELAY_PORT}', '-t', f'127.0.0.1:{RX_PORT}',
                          '-s', str(seed), '--drop', '0.01', '--burst-drop', '0.004:7',
                          '--ready', ready, '--log', os.path.join(tmp, 'truth.json')],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not os.path.exists(ready):
        if time.monotonic() > deadline or p.poll() is not None:
            raise RuntimeError('zcs-impair did not start')
        time.sleep(0.02)
    return p


def run_send():
    tx = sender(SEND, f'127.0.0.1:{RELAY_PORT}', 'p12', RATE, TONE, AMP, SEED, count=N)
    tx.wait(120)


def main():
    tmp = tempfile.mkdtemp(prefix='zcs-soapy-loss-')
    c = Checker('soapy loss equals zcs-recv loss')
    rfile, sfile = os.path.join(tmp, 'recv.cs16'), os.path.join(tmp, 'soapy.cs16')
    # 1: zcs-recv
    rl = relay(7, tmp)
    r = Recv(RECV, ['-F', 'cs16', '-o', 'file:' + rfile, '--exit-on-eos', f'127.0.0.1:{RX_PORT}'])
    try:
        run_send()
        s = r.finish(timeout=60)
    finally:
        stop(rl)
        r.stop()
    # 2: the module, same relay seed, same stream
    rl = relay(7, tmp)
    cl = Client(MODULE, [f'driver=zcs,addr=127.0.0.1:{RX_PORT},from_start=1,timeout=60000', 'CS16',
                         '0', sfile,
                         '3'])
    try:
        run_send()
        res = cl.result(timeout=120)
    finally:
        stop(rl)
        cl.kill()
    sens = res['sensors']
    c.true(f'the relay removed something ({s["lost"]} datagrams)', s['lost'] > 0)
    c.eq('samples', res['samples'], s['samples'])
    c.eq('samples (sensor)', sens['samples'], s['samples'])
    c.eq('lost datagrams', sens['lost'], s['lost'])
    c.eq('gap samples', sens['gap_samples'], s['gap_samples'])
    c.eq('gaps', sens['gaps'], s['gaps'])
    c.eq('one OVERFLOW per gap', res['overflows'], s['gaps'])
    c.eq('socket drops', sens['socket_drops'], 0)
    c.eq('overruns', sens['overruns'], 0)
    c.same_bytes('samples, zero fill included', open(sfile, 'rb').read(), open(rfile, 'rb').read())
    # where the zeros are in zcs-recv's output (the tone is never 0, 0): runs of zero pairs
    iq = np.fromfile(rfile, dtype=np.int16).reshape(-1, 2)
    zero = np.concatenate(([0], ((iq[:, 0] == 0) & (iq[:, 1] == 0)).astype(np.int8), [0]))
    edges = np.flatnonzero(np.diff(zero))
    starts, ends = edges[0::2], edges[1::2]
    c.eq('zero-filled samples (the runs of zeros)', int((ends - starts).sum()), s['gap_samples'])
    reads = res['reads']
    over = [r for r in reads if r[1] == SOAPY_SDR_OVERFLOW]
    c.eq('each OVERFLOW where its zeros begin (samples read before it)', [r[0] for r in over],
         [int(x) for x in starts])
    # its time is that of the first zero: the time the next read (the zeros) carries
    nxt = [reads[i + 1] if i + 1 < len(reads) else None for i, r in enumerate(reads)
           if r[1] == SOAPY_SDR_OVERFLOW]
    c.true('each OVERFLOW has its time (SOAPY_SDR_HAS_TIME)',
           all(r[2] & SOAPY_SDR_HAS_TIME for r in over))
    c.eq('the OVERFLOW\'s time is its first zero\'s', [r[3] for r in over],
         [n[3] if n else None for n in nxt])
    ns = 10 ** 9 // RATE
    data = [r for r in reads if r[1] > 0]
    c.true('every read has its time (SOAPY_SDR_HAS_TIME)', all(r[2] & SOAPY_SDR_HAS_TIME
                                                              for r in data))
    steps = [(b[3] - a[3], max(a[1], 0) * ns) for a, b in zip(reads, reads[1:])]
    c.eq('timeNs advances by n * 1e9 / rate between reads', [(i, d, w) for i, (d, w) in enumerate(steps) if d != w], [])
    c.true('hasHardwareTime', res['hw_time'])
    c.eq('getHardwareTime after a read: the next sample\'s time',
         [r[4] - r[3] for r in reads], [max(r[1], 0) * ns for r in reads])
    # over each gap: the first sample after the zeros is the gap's length after the last
    # sample before it (its time from the read that holds it)

    def time_of(index):
        r = max((r for r in data if r[0] <= index), key=lambda r: r[0])
        return r[3] + (index - r[0]) * ns
    jumps = [(time_of(int(e)) - time_of(int(b) - 1), (int(e) - int(b) + 1) * ns)
             for b, e in zip(starts, ends) if b > 0 and e < len(iq)]
    c.true(f'time over {len(jumps)} gaps jumps by the gap', len(jumps) > 0 and
           all(d == w for d, w in jumps))
    if c.failures:
        print(''.join(cl.err)[-4000:])
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)
    finish_suite([c])


if __name__ == '__main__':
    main()
