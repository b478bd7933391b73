# SPDX-License-Identifier: MIT
# The control connection survives what an application may send it and a board that restarts
# (issue 22, part 5): setFrequency(nan) used to go out as a request the board cannot parse, the
# board closed the connection, and every later setting was lost (logged, never applied).  Now
# NaN and infinities (frequency, rate, gain, bandwidth) and a frequency beyond the board's range
# are refused alone, with a message (an exception with strict=1), and the next valid
# setFrequency lands: the stream's metadata announces it.  Then zcs-send is restarted (the
# module's connection is gone): the next setFrequency connects again and lands on the new run.
# Port 22210.  Usage: test_control_recover.py MODULE_DIR ZCS_SEND
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soapylib import PY, Checker, finish_suite, foreign_env, isolate, sender, stop  # noqa: E402

isolate()

MODULE, SEND = sys.argv[1:3]
PORT = 22210
FIRST, SECOND = 433.92e6, 868.3e6

CLIENT = r'''
import json, sys, time
import numpy as np
import SoapySDR
from SoapySDR import SOAPY_SDR_RX
args, first, second, restart = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == '1'
out = {}
dev = SoapySDR.Device(args)
st = dev.setupStream(SOAPY_SDR_RX, 'CS16', [0])
dev.activateStream(st)
buf = np.zeros(2 * 16384, dtype=np.int16)


def attempt(label, fn):
    try:
        fn()
        out[label] = 'ok'
    except Exception as e:
        out[label] = 'threw: ' + str(e)


def until(freq):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and int(dev.readSensor('stream_frequency')) != int(freq):
        dev.readStream(st, [buf], 16384, timeoutUs=200000)
    return int(dev.readSensor('stream_frequency'))


nan, inf = float('nan'), float('inf')
attempt('setFrequency(nan)', lambda: dev.setFrequency(SOAPY_SDR_RX, 0, nan))
attempt('setFrequency(inf)', lambda: dev.setFrequency(SOAPY_SDR_RX, 0, inf))
attempt('setFrequency(1e30)', lambda: dev.setFrequency(SOAPY_SDR_RX, 0, 1e30))
attempt('setSampleRate(nan)', lambda: dev.setSampleRate(SOAPY_SDR_RX, 0, nan))
attempt('setGain(nan)', lambda: dev.setGain(SOAPY_SDR_RX, 0, nan))
attempt('setBandwidth(-inf)', lambda: dev.setBandwidth(SOAPY_SDR_RX, 0, -inf))
attempt('setFrequency(first)', lambda: dev.setFrequency(SOAPY_SDR_RX, 0, first))
out['getFrequency'] = dev.getFrequency(SOAPY_SDR_RX, 0)
out['stream_frequency'] = until(first)
if restart:
    print('waiting', file=sys.stderr, flush=True)
    sys.stdin.readline()
    # the new run streaming (zcs-send serves its control channel before it streams)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and int(dev.readSensor('restarts')) < 1:
        dev.readStream(st, [buf], 16384, timeoutUs=200000)
    attempt('setFrequency(second)', lambda: dev.setFrequency(SOAPY_SDR_RX, 0, second))
    out['stream_frequency_after_restart'] = until(second)
    out['restarts'] = int(dev.readSensor('restarts'))
dev.deactivateStream(st)
dev.closeStream(st)
print(json.dumps(out), flush=True)
'''


class Client:
    """The client above in the background, its stderr read on a thread."""

    def __init__(self, script, args, restart):
        self.proc = subprocess.Popen([PY, script, args, str(FIRST), str(SECOND),
                                      '1' if restart else '0'], env=foreign_env(MODULE),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
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
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None
        self.t.join(10)
        lines = [x for x in self.proc.stdout.read().decode().splitlines() if x.startswith('{')]
        return json.loads(lines[-1]) if lines else None


def keyed_sender(key):
    return sender(SEND, f'127.0.0.1:{PORT}', 'p12', 1000000, 100000, 0.5, 1,
                  extra=('--key', key, '--control', '127.0.0.1:5392'))


def main():
    d = tempfile.mkdtemp(prefix='zcs-soapy-recover-')
    key = os.path.join(d, 'stream.key')
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, (os.urandom(32).hex() + '\n').encode())
    os.close(fd)
    script = os.path.join(d, 'client.py')
    with open(script, 'w') as f:
        f.write(CLIENT)
    checks = []
    tx = keyed_sender(key)
    try:
        c = Checker('NaN, infinities and 1e30 refused alone; the next setting lands; a restarted '
                    'board is connected again')
        cl = Client(script, f'driver=zcs,addr=127.0.0.1:{PORT},key={key},timeout=30000', True)
        try:
            if not cl.waiting.wait(180):
                c.true('the client reached the restart step', False)
            stop(tx)
            tx = keyed_sender(key)
            cl.go_on()
            r = cl.result()
        finally:
            if cl.proc.poll() is None:
                cl.proc.kill()
                cl.proc.wait()
        log = ''.join(cl.err)
        if r is None:
            c.true('a result', False)
        else:
            for call in ('setFrequency(nan)', 'setFrequency(inf)', 'setFrequency(1e30)',
                         'setSampleRate(nan)', 'setGain(nan)', 'setBandwidth(-inf)',
                         'setFrequency(first)', 'setFrequency(second)'):
                c.eq(call + ' returns (no exception without strict=1)', r.get(call), 'ok')
            for msg in ('cannot set the frequency to nan: not a number',
                        'cannot set the frequency to inf: not a number',
                        "cannot set the frequency to 1000000000000000019884624838656.000000: "
                        "outside the board's range",
                        'cannot set the sample rate to nan: not a number',
                        'cannot set the gain to nan: not a number',
                        'cannot set the bandwidth to -inf: not a number',
                        'control channel 127.0.0.1:5392: connected again'):
                c.true('logged: ' + msg, msg in log)
            c.eq('getFrequency after the refusals and the retune', r['getFrequency'], FIRST)
            c.eq('the retune after the refusals announced in the stream', r['stream_frequency'],
                 int(FIRST))
            c.eq('the retune after the board restarted announced in its new run',
                 r['stream_frequency_after_restart'], int(SECOND))
            c.true(f'the restart followed ({r["restarts"]})', r['restarts'] >= 1)
        if c.failures:
            print(log[-6000:])
        checks.append(c)

        c = Checker('strict=1: setFrequency(nan) throws its message; the next setting lands')
        cl = Client(script, f'driver=zcs,addr=127.0.0.1:{PORT},key={key},strict=1,timeout=30000',
                    False)
        r = cl.result()
        log = ''.join(cl.err)
        if r is None:
            c.true('a result', False)
        else:
            c.true('setFrequency(nan) threw: ' + r['setFrequency(nan)'],
                   'not a number' in r['setFrequency(nan)'])
            c.eq('setFrequency(first)', r['setFrequency(first)'], 'ok')
            c.eq('announced in the stream', r['stream_frequency'], int(FIRST))
        if c.failures:
            print(log[-6000:])
        checks.append(c)
    finally:
        stop(tx)
        # the key, the client, and what zcs-send keeps beside its key (its run counter)
        shutil.rmtree(d)
    finish_suite(checks)


if __name__ == '__main__':
    main()
