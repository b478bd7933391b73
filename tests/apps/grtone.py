# SPDX-License-Identifier: MIT
# Real GNU Radio 3.10 / gr-osmosdr flowgraphs reading zcs-recv's outputs, and the measurement of
# the tone they received (frequency, power, image, count) against what zcs-send was told to send.
# Run only with Debian's /usr/bin/python3: GNU Radio's modules load only in that interpreter.
"""Usage: grtone.py KIND SOURCE [options]   (exit 0: pass, 1: a check failed, 2: could not run)

KIND and SOURCE:
  fifo PATH              File Source on a FIFO (or file) of cf32, as GNU Radio users do
  tcp HOST:PORT          gr-network TCP Source, client mode (--format cs16 or cs8)
  osmo-file PATH         gr-osmosdr source "file=PATH,rate=R,freq=F,repeat=false,throttle=false"
  osmo-rtltcp HOST:PORT  gr-osmosdr source "rtl_tcp=HOST:PORT" (cu8, like GQRX)
  raw PATH               no flowgraph: read a recording with numpy (--format cu8|cs8|cs16|cf32)
"""
import argparse
import math
import os
import sys
import tempfile
import time

import numpy as np

# Bytes per I/Q pair and the full-scale divisor of each consumer type (docs/outputs.md: cs16 =
# v << 4, cs8 = v / 16 rounded, cu8 = cs8 + 128, cf32 = v / 2048).
PAIR_BYTES = {'cu8': 2, 'cs8': 2, 'cs16': 4, 'cf32': 8}


def _gr():
    # Imported late so that `measure` and `raw` work without GNU Radio, and so that the chatter
    # gr-osmosdr's plugins print on import goes to stderr, not into a caller's parsing.
    from gnuradio import gr, blocks
    return gr, blocks


def _touch(path):
    if path:
        with open(path, 'w') as f:
            f.write('%d\n' % os.getpid())


def _run_to_file(tb, src, itemsize_ok, limit):
    """Connects src -> [head] -> file_sink(temp), runs tb to completion and returns the samples.
    A file sink, not vector_sink: turning millions of samples into a Python list is slow."""
    gr, blocks = _gr()
    fd, tmp = tempfile.mkstemp(prefix='grtone-', suffix='.cf32')
    os.close(fd)
    try:
        sink = blocks.file_sink(gr.sizeof_gr_complex, tmp, False)
        sink.set_unbuffered(False)
        chain = [src]
        if limit:
            chain.append(blocks.head(gr.sizeof_gr_complex, int(limit)))
        chain.append(sink)
        tb.connect(*chain)
        tb.run()
        sink.close()
        return np.fromfile(tmp, dtype=np.complex64)
    finally:
        os.unlink(tmp)


def read_fifo(path, limit=None, ready=None):
    """cf32 through blocks.file_source.  On a FIFO the constructor's open() blocks until a writer
    comes; EOF (the writer closing) ends the flowgraph."""
    gr, blocks = _gr()
    tb = gr.top_block()
    src = blocks.file_source(gr.sizeof_gr_complex, path, False)
    _touch(ready)
    return _run_to_file(tb, src, True, limit)


def _connect_retry(make, deadline):
    while True:
        try:
            return make()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def read_tcp(host, port, fmt, limit=None, ready=None, timeout=20.0):
    """gr-network's tcp_source in client mode (it connects in its constructor, once: we retry
    until the server listens).  One item is one whole I/Q pair, so a pair is never split; the
    interleaved converters then divide by the type's full scale (32768 or 128)."""
    gr, blocks = _gr()
    from gnuradio import network
    if fmt not in ('cs16', 'cs8'):
        raise ValueError('tcp reads cs16 or cs8, not ' + fmt)
    tb = gr.top_block()
    src = _connect_retry(lambda: network.tcp_source.tcp_source(
        PAIR_BYTES[fmt], host, int(port), False),
                         time.monotonic() + timeout)
    if fmt == 'cs16':
        conv = blocks.interleaved_short_to_complex(True, False, 32768.0)
    else:
        conv = blocks.interleaved_char_to_complex(True, 128.0)
    tb.connect(src, conv)
    _touch(ready)
    return _run_to_file(tb, conv, True, limit)


def read_osmosdr(args, rate, freq, limit=None, ready=None, timeout=20.0, start_delay=0.0):
    """gr-osmosdr's source with a device string, as GQRX builds it.  For rtl_tcp= the block
    connects in its constructor and sends its 5-byte commands (rate, frequency, gain...);
    start_delay seconds then pass before the flowgraph reads, as in an application that builds
    the rest of its chain (or waits for its user) after its source connected."""
    gr, _ = _gr()
    import osmosdr
    tb = gr.top_block()
    deadline = time.monotonic() + timeout
    while True:
        try:
            src = osmosdr.source(args)
            break
        except RuntimeError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    src.set_sample_rate(rate)
    src.set_center_freq(freq, 0)
    if start_delay > 0:
        time.sleep(start_delay)
    _touch(ready)
    return _run_to_file(tb, src, True, limit)


def read_raw(path, fmt):
    """A recording read with numpy alone (the suffix convention .cu8/.cs8/.cs16/.cf32)."""
    if fmt == 'cf32':
        return np.fromfile(path, dtype=np.complex64)
    if fmt == 'cs16':
        v = np.fromfile(path, dtype='<i2').astype(np.float32) / 32768.0
    elif fmt == 'cs8':
        v = np.fromfile(path, dtype=np.int8).astype(np.float32) / 128.0
    elif fmt == 'cu8':
        v = (np.fromfile(path, dtype=np.uint8).astype(np.float32) - 128.0) / 128.0
    else:
        raise ValueError('unknown format ' + fmt)
    v = v[:len(v) // 2 * 2]
    return (v[0::2] + 1j * v[1::2]).astype(np.complex64)


def measure(x, rate, nfft=65536, skip=0):
    """The strongest tone in x: its frequency (signed, from a Hann-windowed FFT of nfft samples
    after skip), its power in dBFS (the energy of its main lobe, +-3 bins, which does not depend on
    where between bins the tone falls), the whole signal's RMS in dBFS, and the power at the
    mirror frequency relative to the tone (an I/Q swap puts the tone there)."""
    x = np.asarray(x, dtype=np.complex64)
    n = len(x)
    out = {'samples': n, 'rate': rate}
    seg = x[skip:]
    if len(seg) < 1024:
        out['error'] = 'too few samples (%d) to measure' % n
        return out
    nfft = min(nfft, 1 << int(math.log2(len(seg))))
    seg = seg[(len(seg) - nfft) // 2:][:nfft].astype(np.complex128)
    w = np.hanning(nfft)
    spec = np.abs(np.fft.fft(seg * w)) ** 2
    k = int(np.argmax(spec))
    lobe = [(k + d) % nfft for d in range(-3, 4)]
    norm = nfft * float(np.sum(w * w))   # Parseval: a tone of amplitude a gives a^2 over its lobe
    tone_pow = float(np.sum(spec[lobe])) / norm
    kk = k - nfft if k >= nfft // 2 else k
    image = [(-kk + d) % nfft for d in range(-3, 4)]
    image_pow = float(np.sum(spec[image])) / norm
    rms = float(np.sqrt(np.mean(np.abs(x.astype(np.complex128)) ** 2)))
    out.update({
        'nfft': nfft,
        'bin_hz': rate / nfft,
        'freq_hz': kk * rate / nfft,
        'tone_dbfs': 10 * math.log10(max(tone_pow, 1e-30)),
        'rms_dbfs': 20 * math.log10(max(rms, 1e-15)),
        'image_dbc': 10 * math.log10(max(image_pow, 1e-30) / max(tone_pow, 1e-30)),
    })
    return out


def check(m, tone_hz, amplitude, count=None, tol_db=0.5, min_image_dbc=30.0):
    """Compares a measurement with what zcs-send was told; returns a list of failures.
    zcs-send's tone has amplitude round(A * 2047) in 12-bit units, full scale 2048."""
    fails = []
    if 'error' in m:
        return [m['error']]
    want_db = 20 * math.log10(round(amplitude * 2047) / 2048.0)
    m['want_dbfs'] = want_db
    if abs(m['freq_hz'] - tone_hz) > m['bin_hz']:
        fails.append('frequency %.1f Hz, want %.1f Hz within one bin (%.1f Hz)%s' % (
            m['freq_hz'], tone_hz, m['bin_hz'],
            ' - mirrored: I/Q swapped' if abs(m['freq_hz'] + tone_hz) <= m['bin_hz'] else ''))
    if abs(m['tone_dbfs'] - want_db) > tol_db:
        fails.append('tone power %.2f dBFS, want %.2f +- %.1f' % (m['tone_dbfs'], want_db, tol_db))
    # The tone is all there is: the whole signal's power must be the tone's.
    if abs(m['rms_dbfs'] - want_db) > tol_db:
        fails.append('RMS %.2f dBFS, want %.2f +- %.1f' % (m['rms_dbfs'], want_db, tol_db))
    if tone_hz != 0 and m['image_dbc'] > -min_image_dbc:
        fails.append('image at %.1f Hz only %.1f dB below the tone (want < -%.0f)' % (
            -m['freq_hz'], m['image_dbc'], min_image_dbc))
    if count is not None and m['samples'] != count:
        fails.append('%d samples, want exactly %d' % (m['samples'], count))
    return fails


def report(m, label):
    keys = ('samples', 'freq_hz', 'bin_hz', 'tone_dbfs', 'want_dbfs', 'rms_dbfs', 'image_dbc')
    parts = []
    for key in keys:
        if key in m:
            v = m[key]
            parts.append('%s=%s' % (key, ('%.3f' % v) if isinstance(v, float) else v))
    print('%s: %s' % (label, ' '.join(parts)), flush=True)


def _hostport(s):
    host, _, port = s.rpartition(':')
    return host or '127.0.0.1', int(port)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog='\n'.join(__doc__.splitlines()[1:]))
    p.add_argument('kind', choices=('fifo', 'tcp', 'osmo-file', 'osmo-rtltcp', 'raw'))
    p.add_argument('source')
    p.add_argument('--format', default='cf32', choices=sorted(PAIR_BYTES))
    p.add_argument('-r', '--rate', type=float, required=True, help='sample rate sent, S/s')
    p.add_argument('--tone', type=float, required=True, help='tone frequency sent, Hz')
    p.add_argument('--amplitude', type=float, required=True, help='amplitude sent (0..1)')
    p.add_argument('--freq', type=float, default=100e6, help='centre frequency for osmosdr')
    p.add_argument('--count', type=int, help='samples expected exactly (EOF ends the read)')
    p.add_argument('--limit', type=int, help='stop after this many samples (head block)')
    p.add_argument('--skip', type=int, default=0, help='samples to leave out of the FFT')
    p.add_argument('--tol-db', type=float, default=0.5)
    p.add_argument('--ready', help='file created once the source is open/connected')
    p.add_argument('--label', default=None)
    p.add_argument('--start-delay', type=float, default=0.0,
                   help='osmo-rtltcp: seconds between connecting and reading')
    a = p.parse_args(argv)

    t0 = time.monotonic()
    try:
        if a.kind == 'fifo':
            x = read_fifo(a.source, a.limit, a.ready)
        elif a.kind == 'tcp':
            host, port = _hostport(a.source)
            x = read_tcp(host, port, a.format, a.limit, a.ready)
        elif a.kind == 'osmo-file':
            args = 'file=%s,rate=%d,freq=%d,repeat=false,throttle=false' % (
                a.source, int(a.rate), int(a.freq))
            x = read_osmosdr(args, a.rate, a.freq, a.limit, a.ready)
        elif a.kind == 'osmo-rtltcp':
            x = read_osmosdr('rtl_tcp=' + a.source, a.rate, a.freq, a.limit, a.ready,
                             start_delay=a.start_delay)
        else:
            x = read_raw(a.source, a.format)
    except Exception as e:  # report, do not hide: exit 2 tells the driver the read itself failed
        print('grtone: %s %s: %s: %s' % (a.kind, a.source, type(e).__name__, e), file=sys.stderr)
        return 2
    m = measure(x, a.rate, skip=a.skip)
    fails = check(m, a.tone, a.amplitude, a.count, a.tol_db)
    m['seconds'] = time.monotonic() - t0
    report(m, a.label or a.kind)
    for f in fails:
        print('FAIL: ' + f, flush=True)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
