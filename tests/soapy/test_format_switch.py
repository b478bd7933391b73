# SPDX-License-Identifier: MIT
# A change of wire format while a SoapySDR application reads (zcs-ctl set format= on a keyed
# zcs-send with --control): the module converts each block by its own format into the
# application's type, so the CS16 it reads is zcs-send's seeded tone from index 0 byte for byte,
# each stretch through its own wire format (p12, then i8, then i16 from the indices the sender's
# replies gave), with no OVERFLOW and nothing lost.  Ports 22190-22191.
# Usage: test_format_switch.py MODULE_DIR ZCS_SEND ZCS_CTL ZCS_TONE_EXPECT
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soapylib import (Checker, Client, expected, finish_suite, isolate, sender,  # noqa: E402
                      set_format, stop)

isolate()

MODULE, SEND, CTL, EXPECT = sys.argv[1:5]
RATE, TONE, AMP, SEED, N = 1000000, 76543, 0.6, 9, 2000000
PORT, CPORT = 22190, 22191


def main():
    c = Checker('soapy: CS16 across p12 -> i8 -> i16')
    d = tempfile.mkdtemp(prefix='zcs-soapy-fmt-')
    key, path = os.path.join(d, 'key'), os.path.join(d, 'out.cs16')
    with open(key, 'w') as f:
        f.write(os.urandom(32).hex() + '\n')
    os.chmod(key, 0o600)
    cl = Client(MODULE, [f'driver=zcs,addr=127.0.0.1:{PORT},key={key},'
                         f'from_start=1,timeout=60000', 'CS16',
                         str(N), path])
    tx = None
    try:
        tx = sender(SEND, f'127.0.0.1:{PORT}', 'p12', RATE, TONE, AMP, SEED, count=N,
                    extra=['--key', key, '--control', f'127.0.0.1:{CPORT}'])
        s1 = set_format(CTL, key, CPORT, tx, 'i8')
        s2 = set_format(CTL, key, CPORT, tx, 'i16')
        res = cl.result()
        tx.wait(60)
    finally:
        stop(tx)
        cl.kill()
    got = open(path, 'rb').read()
    os.unlink(path)
    # the key's directory also holds the sender's run counter (KEY.run)
    shutil.rmtree(d)
    c.true(f'switches inside the stream: i8 from {s1}, i16 from {s2}', 0 < s1 < s2 < N)
    c.eq('samples read', res['samples'], N)
    c.eq('overflows', res['overflows'], 0)
    for k in ('lost', 'gaps', 'gap_samples', 'socket_drops', 'overruns', 'invalid', 'restarts'):
        c.eq('sensor ' + k, res['sensors'][k], 0)
    if 0 < s1 < s2 < N:
        want = (expected(EXPECT, RATE, TONE, AMP, SEED, 'p12', 'cs16', 0, s1) +
                expected(EXPECT, RATE, TONE, AMP, SEED, 'i8', 'cs16', s1, s2 - s1) +
                expected(EXPECT, RATE, TONE, AMP, SEED, 'i16', 'cs16', s2, N - s2))
        c.same_bytes('samples from index 0, each stretch in its format', got, want)
    if c.failures:
        print(''.join(cl.err)[-4000:])
    finish_suite([c])


if __name__ == '__main__':
    main()
