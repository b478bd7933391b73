# SPDX-License-Identifier: MIT
# find() leaves a receiver that is already on its unicast port alone, and says so: zcs-recv
# receives a seeded tone on the port while SoapySDRUtil --find listens there (the address itself
# and every address); find lists nothing, logs "skipped: ... in use by another receiver" as a
# warning (not an error), and zcs-recv gets every sample, none lost.  (A unicast port is bound
# without SO_REUSEADDR, so find() cannot share it: before, its bind failed with an ERROR line.)
# Ports 22190-22194.
# Usage: test_find_busy.py MODULE_DIR ZCS_RECV ZCS_SEND
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soapylib import Checker, finish_suite, foreign_env, isolate, sender, stop  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'recv'))
from recvlib import Recv  # noqa: E402

isolate()

MODULE, RECV, SEND = sys.argv[1:4]
PORT, RATE, N = 22190, 1000000, 1500000


def find(hint):
    p = subprocess.run(['SoapySDRUtil', '--find=' + hint], env=foreign_env(MODULE),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    return p.stdout.decode(errors='replace')


def main():
    c = Checker('soapy find() skips a unicast port a receiver holds')
    tmp = tempfile.mkdtemp(prefix='zcs-soapy-findbusy-')
    out = os.path.join(tmp, 'recv.cs16')
    r = Recv(RECV, ['-F', 'cs16', '-o', 'file:' + out, '--exit-on-eos', f'127.0.0.1:{PORT}'])
    tx = None
    try:
        tx = sender(SEND, f'127.0.0.1:{PORT}', 'p12', RATE, 40000, 0.5, 4, count=N)
        found = {h: find(h) for h in (f'driver=zcs,addr=127.0.0.1:{PORT}',
                                      f'driver=zcs,addr=:{PORT}')}
        tx.wait(120)
        s = r.finish(timeout=60)
    finally:
        stop(tx)
        r.stop()
    for h, text in found.items():
        c.true(f'{h}: skipped, said as a warning',
               'WARNING] zcs: find: skipped:' in text and 'in use by another receiver' in text)
        c.true(f'{h}: no error line', 'ERROR]' not in text)
        c.true(f'{h}: nothing listed', 'No devices found' in text)
        if c.failures:
            print(text[-2000:])
    c.eq('zcs-recv: samples', s['samples'], N)
    c.eq('zcs-recv: lost', s['lost'], 0)
    c.eq('zcs-recv: gap samples', s['gap_samples'], 0)
    c.eq('zcs-recv: file', os.path.getsize(out), 4 * N)
    os.unlink(out)
    os.rmdir(tmp)
    finish_suite([c])


if __name__ == '__main__':
    main()
