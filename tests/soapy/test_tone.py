# SPDX-License-Identifier: MIT
# A python3-soapysdr client reads zcs-send's seeded tone through the zcs module in every stream
# format (CS16, CF32, CS8; wire p12, i8, i16): exactly the samples asked for, byte for byte what
# zcs-recv's conversion gives (zcs-tone-expect), the tone at its signed frequency and amplitude,
# no OVERFLOW, and the rate and formats the device reports.  Ports 22100-22119.
# Usage: test_tone.py MODULE_DIR ZCS_SEND ZCS_TONE_EXPECT
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soapylib import Checker, Client, expected, finish_suite, isolate, sender, stop  # noqa: E402

isolate()

MODULE, SEND, EXPECT = sys.argv[1:4]
BASE_PORT = 22100
RATE, TONE, AMP, SEED = 2000000, -123456, 0.7, 5
N = 150000
PERIOD = 65536          # zcs-send rounds the tone to a multiple of rate/65536
TYPES = {'CS16': ('cs16', np.int16, 32768.0), 'CF32': ('cf32', np.float32, 1.0),
         'CS8': ('cs8', np.int8, 128.0)}


def tone_sent():
    # what zcs-send really sends: the tone rounded to a multiple of rate/65536
    step = RATE / PERIOD
    return round(TONE / step) * step


def case(port, wire, fmt):
    c = Checker(f'soapy tone {wire} -> {fmt}')
    out_type, dtype, scale = TYPES[fmt]
    fd, path = tempfile.mkstemp(prefix='zcs-soapy-tone-')
    os.close(fd)
    # the stream runs before the application opens it, as a board's does (a stream that starts
    # after the open: test_start_between.py)
    tx = sender(SEND, f'127.0.0.1:{port}', wire, RATE, TONE, AMP, SEED)
    try:
        cl = Client(MODULE, [f'driver=zcs,addr=127.0.0.1:{port}', fmt, str(N), path])
    except BaseException:
        stop(tx)
        raise
    try:
        res = cl.result()
    finally:
        stop(tx)
        cl.kill()
    got = open(path, 'rb').read()
    os.unlink(path)
    c.eq('samples read', res['samples'], N)
    c.eq('overflows', res['overflows'], 0)
    c.eq('rate', res['rate'], RATE)
    c.eq('formats', res['formats'], ['CS16', 'CF32', 'CS8'])
    for k in ('lost', 'gaps', 'gap_samples', 'socket_drops', 'overruns', 'invalid'):
        c.eq('sensor ' + k, res['sensors'][k], 0)
    # where in the tone's period the read began: the first samples located in one period,
    # then every byte compared from there
    exp = expected(EXPECT, RATE, TONE, AMP, SEED, wire, out_type, 0, PERIOD + N)
    pb = 2 * np.dtype(dtype).itemsize
    e = np.frombuffer(exp, dtype=dtype).reshape(-1, 2)
    g = np.frombuffer(got, dtype=dtype).reshape(-1, 2)
    head = g[:64]
    offs = [o for o in range(PERIOD) if np.array_equal(e[o:o + 64], head)]
    c.true(f'start found in the tone ({len(offs)} candidate offsets)', len(offs) >= 1)
    if offs:
        # 8-bit samples repeat within a period more easily: the candidate that fits all
        o = next((o for o in offs if exp[o * pb:(o + N) * pb] == got), offs[0])
        c.same_bytes('samples', got, exp[o * pb:(o + N) * pb])
    # the tone's sign and amplitude, as an application would measure them
    z = (g[:, 0].astype(np.float64) + 1j * g[:, 1].astype(np.float64)) / scale
    spec = np.fft.fft(z[:65536])
    peak = np.fft.fftfreq(65536, 1.0 / RATE)[int(np.argmax(np.abs(spec)))]
    c.true(f'tone frequency with its sign: peak {peak:.1f} Hz, sent {tone_sent():.1f} Hz',
           abs(peak - tone_sent()) < RATE / 65536)
    amp = float(np.sqrt(np.mean(np.abs(z) ** 2)))
    # CS8 keeps 8 of the 12 bits: the amplitude within a quantisation step
    c.true(f'tone amplitude: rms {amp:.4f}, sent {AMP}', abs(amp - AMP) < 2.0 / 128)
    if c.failures:
        print(''.join(cl.err)[-4000:])
    return c


def main():
    checks = []
    port = BASE_PORT
    for wire, fmt in (('p12', 'CS16'), ('p12', 'CF32'), ('p12', 'CS8'), ('i8', 'CS16'),
                      ('i16', 'CF32')):
        checks.append(case(port, wire, fmt))
        port += 1
    finish_suite(checks)


if __name__ == '__main__':
    main()
