# SPDX-License-Identifier: MIT
# The calls GUI applications make, none of which may throw (CubicSDR and GQRX end on any
# exception from their input): soapy_appcalls.py makes CubicSDR 0.2.7's sequence (it lists the
# TX antennas of every device: the module used to throw there, and CubicSDR ended with
# "Unhandled unknown exception") and the other queries and settings an application may make
# (other channels and directions, "CORR", gain elements by name, refused rates, a negative
# frequency, unknown sensors).  Queries about a channel that is not there get SoapySDR's empty
# answers, refused settings are logged, and the stream still delivers samples after all of it.
# Without key= (read-only settings), and with key= and the control channel, where the retune
# lands and a board that goes away while the application runs is logged, not thrown; reads
# with CubicSDR's 2^30 us timeout then return (SOAPY_SDR_TIMEOUT), so its SDR thread can stop.  The
# device is made from enumerate()'s result, as CubicSDR does: it must keep key=.
# Port 22200.  Usage: test_appcalls.py MODULE_DIR ZCS_SEND
import json
import os
import socket
import shutil
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soapylib import PY, HERE, Checker, finish_suite, foreign_env, isolate, sender, stop  # noqa: E402

isolate()

MODULE, SEND = sys.argv[1:3]
PORT = 22200
FREQ = 433.92e6


def wait_streaming(port):
    """Until the sender's datagrams arrive on the port (then it is free again): enumerate()
    listens for one second only, and a sender slow to start on a loaded machine (a sanitizer
    build) would otherwise be found by nobody."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.bind(('127.0.0.1', port))
        s.settimeout(120)
        s.recv(65536)
    finally:
        s.close()


class AppClient:
    """soapy_appcalls.py in the background, its stderr read on a thread."""

    def __init__(self, args, wait):
        cmd = [PY, os.path.join(HERE, 'soapy_appcalls.py'), args, str(FREQ)] + (['wait'] if wait else [])
        self.proc = subprocess.Popen(cmd, env=foreign_env(MODULE), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.err = []
        self.waiting = threading.Event()
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self):
        for raw in self.proc.stderr:
            line = raw.decode(errors='replace')
            self.err.append(line)
            if line.startswith('waiting'):
                self.waiting.set()
        self.waiting.set()

    def go_on(self):
        self.proc.stdin.write(b'go\n')
        self.proc.stdin.flush()

    def result(self, timeout=180.0):
        # not communicate(): it would read stderr too, racing the thread for its lines; the
        # one JSON line on stdout fits in the pipe
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None
        self.t.join(10)
        lines = [x for x in self.proc.stdout.read().decode().splitlines() if x.startswith('{')]
        return json.loads(lines[-1]) if lines else None

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def common_checks(c, r, log):
    thrown = {k: v for k, v in r['calls'].items() if v != 'ok'}
    c.eq('calls that threw', thrown, {})
    v = r['values']
    c.true(f'samples before the calls ({v["samples_before"]})', v['samples_before'] >= 100000)
    c.true(f'samples after the calls ({v["samples_after"]})', v['samples_after'] >= 100000)
    c.eq('listAntennas(TX): none (SoapySDR\'s answer)', v['listAntennas(TX)'], [])
    c.eq('getAntenna(TX)', v['getAntenna(TX)'], '')
    c.true('listSampleRates(RX) not empty (CubicSDR takes its first)',
           bool(v['listSampleRates(RX)']))
    c.eq('no CORR element', v['listFrequencies(RX)'], ['RF'])
    c.eq('getFrequencyRange(RX, CORR)', v['getFrequencyRange(RX, CORR)'], [])
    for d in ('TX', 'RX1'):
        for q in ('getStreamFormats', 'listAntennas', 'listGains', 'listFrequencies',
                  'getFrequencyRange', 'listSampleRates', 'getSampleRateRange'):
            c.eq(f'{q}({d}) empty', v[f'{q}({d})'], [])
    for msg in ('no frequency element "CORR"', 'no gain element "LNA"',
                'cannot set the frequency of TX channel 0: one receive channel only',
                'cannot set the frequency to -1', 'no sensor "nosuch"'):
        c.true('logged: ' + msg, msg in log)


def main():
    checks = []
    d = tempfile.mkdtemp(prefix='zcs-soapy-appcalls-')
    key = os.path.join(d, 'stream.key')
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, (os.urandom(32).hex() + '\n').encode())
    os.close(fd)
    tx = sender(SEND, f'127.0.0.1:{PORT}', 'p12', 1000000, 100000, 0.5, 1)
    try:
        wait_streaming(PORT)
        c = Checker('without key=: every call returns, the stream keeps flowing')
        cl = AppClient(f'driver=zcs,addr=127.0.0.1:{PORT},timeout=30000', False)
        r = cl.result()
        log = ''.join(cl.err)
        if r is None:
            c.true('a result', False)
        else:
            common_checks(c, r, log)
            c.true('the refused frequency logged', 'cannot set the frequency to 433920000' in log)
        if c.failures:
            print(log[-6000:])
        checks.append(c)
        stop(tx)
        tx = sender(SEND, f'127.0.0.1:{PORT}', 'p12', 1000000, 100000, 0.5, 1,
                    extra=('--key', key, '--control', '127.0.0.1:5392'))
        wait_streaming(PORT)
        c = Checker('with key=: every call returns, the retune lands, a board gone is logged')
        cl = AppClient(f'driver=zcs,addr=127.0.0.1:{PORT},key={key},timeout=30000', True)
        try:
            if not cl.waiting.wait(180):
                c.true('the client reached the board-gone step', False)
            stop(tx)
            tx = None
            cl.go_on()
            r = cl.result()
        finally:
            cl.kill()
        log = ''.join(cl.err)
        if r is None:
            c.true('a result', False)
        else:
            common_checks(c, r, log)
            c.eq('enumerate() passes key= on', r['values']['enumerate'][0].get('key'), key)
            c.true('control connected', 'control channel 127.0.0.1:5392: connected' in log)
            c.eq('getFrequency(RX) after the retune', r['values']['getFrequency(RX)'], FREQ)
            c.true('the board\'s refusal of the rate logged',
                   'does not set the sample rate' in log)
            c.true('the board gone: logged', 'zcs: control channel: ' in log)
            c.eq('reads with a 2^30 us timeout return after the end',
                 r['values']['reads after the end'], [-1, -1])
        if c.failures:
            print(log[-6000:])
        checks.append(c)
    finally:
        stop(tx)
        # the key's directory also holds the sender's run counter (KEY.run)
        shutil.rmtree(d)
    finish_suite(checks)


if __name__ == '__main__':
    main()
