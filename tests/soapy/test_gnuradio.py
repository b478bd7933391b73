# SPDX-License-Identifier: MIT
# GNU Radio 3.10's gr-soapy source on the zcs module: a flowgraph reads zcs-send's tone (negative
# frequency) as cf32: exactly N samples, the peak at the signed tone, the amplitude.  Port 22140.
# Usage: test_gnuradio.py MODULE_DIR ZCS_SEND
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soapylib import HERE, PY, Checker, finish_suite, foreign_env, isolate, sender, stop  # noqa: E402

isolate()

MODULE, SEND = sys.argv[1:3]
RATE, TONE, AMP, N, PORT = 1000000, -150000, 0.5, 200000, 22140


def main():
    c = Checker('gr-soapy source on driver=zcs')
    tx = sender(SEND, f'127.0.0.1:{PORT}', 'p12', RATE, TONE, AMP, 1)
    try:
        p = subprocess.run([PY, os.path.join(HERE, 'grsoapy.py'),
                            f'driver=zcs,addr=127.0.0.1:{PORT},timeout=30000', str(RATE), str(N)],
                           env=foreign_env(MODULE), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=180)
    finally:
        stop(tx)
    lines = [x for x in p.stdout.decode().splitlines() if x.startswith('{')]
    c.eq('flowgraph exit status', p.returncode, 0)
    if lines:
        r = json.loads(lines[-1])
        step = RATE / 65536
        c.eq('samples', r['samples'], N)
        c.true(f'peak {r["peak"]:.1f} Hz at the signed tone {TONE}', abs(r['peak'] - TONE) <= 2 * step)
        c.true(f'rms {r["rms"]:.4f} ~ {AMP}', abs(r['rms'] - AMP) < 0.01)
    else:
        c.true('a result line', False)
    if c.failures:
        print(p.stderr.decode()[-4000:])
    finish_suite([c])


if __name__ == '__main__':
    main()
