# SPDX-License-Identifier: MIT
# Settings through the control channel: a zcs-send tone with --key and --control; the module,
# given key=, connects to the stream's sender at port 5392 by default, reports the board's
# ranges (from its get), retunes with setFrequency, and the stream's metadata then announces the
# new frequency (sensor stream_frequency) while samples keep coming.  A setting the board does
# not change while streaming, and any change without key=, fail with a message (thrown with
# strict=1, else logged).  The datagrams are verified with the key (no auth refusals); another
# key admits no stream, and the open fails with a message.  Port 22160.
# Usage: test_control.py MODULE_DIR ZCS_SEND
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soapylib import PY, Checker, finish_suite, foreign_env, isolate, sender, stop  # noqa: E402

isolate()

MODULE, SEND = sys.argv[1:3]
PORT = 22160

CLIENT = r'''
import json, sys, time
import numpy as np
import SoapySDR
from SoapySDR import SOAPY_SDR_RX
args, want, wait = sys.argv[1], float(sys.argv[2]), sys.argv[3] == '1'
out = {}
dev = SoapySDR.Device(args)
out['range'] = [[r.minimum(), r.maximum()] for r in dev.getFrequencyRange(SOAPY_SDR_RX, 0)]
out['before'] = dev.getFrequency(SOAPY_SDR_RX, 0)
st = dev.setupStream(SOAPY_SDR_RX, 'CS16', [0])
dev.activateStream(st)
buf = np.zeros(2 * 16384, dtype=np.int16)
try:
    dev.setFrequency(SOAPY_SDR_RX, 0, want)
    out['set'] = 'ok'
except Exception as e:
    out['set'] = str(e)
out['after'] = dev.getFrequency(SOAPY_SDR_RX, 0)
try:
    dev.setSampleRate(SOAPY_SDR_RX, 0, 2e6)
    out['rate'] = 'ok'
except Exception as e:
    out['rate'] = str(e)
got, deadline = 0, time.monotonic() + 30
while time.monotonic() < deadline:
    r = dev.readStream(st, [buf], 16384, timeoutUs=200000)
    if r.ret > 0:
        got += r.ret
    done = not wait or out['set'] != 'ok' or int(dev.readSensor('stream_frequency')) == int(want)
    if done and got > 100000:
        break
out['stream_frequency'] = int(dev.readSensor('stream_frequency'))
out['samples'] = got
out['auth'] = int(dev.readSensor('auth'))
out['invalid'] = int(dev.readSensor('invalid'))
dev.deactivateStream(st)
dev.closeStream(st)
print(json.dumps(out), flush=True)
'''


def run(args, want, wait=False):
    fd, path = tempfile.mkstemp(suffix='.py', prefix='zcs-soapy-ctl-')
    with os.fdopen(fd, 'w') as f:
        f.write(CLIENT)
    try:
        p = subprocess.run([PY, path, args, str(want), '1' if wait else '0'], env=foreign_env(MODULE),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    finally:
        os.unlink(path)
    lines = [x for x in p.stdout.decode().splitlines() if x.startswith('{')]
    return (json.loads(lines[-1]) if lines else None), p.stderr.decode()


def main():
    d = tempfile.mkdtemp(prefix='zcs-soapy-key-')
    key = os.path.join(d, 'stream.key')
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, (os.urandom(32).hex() + '\n').encode())
    os.close(fd)
    checks = []
    tx = sender(SEND, f'127.0.0.1:{PORT}', 'p12', 1000000, 100000, 0.5, 1,
                extra=('--key', key, '--control', '127.0.0.1:5392'))
    try:
        c = Checker('retune through setFrequency (key=, control by default)')
        r, err = run(f'driver=zcs,addr=127.0.0.1:{PORT},key={key},strict=1,timeout=30000',
                     433.92e6, wait=True)
        if r is None:
            c.true('a result', False)
            print(err[-4000:])
        else:
            c.eq('frequency range from the board', r['range'], [[0.0, 100e9]])
            c.eq('setFrequency', r['set'], 'ok')
            c.eq('getFrequency after', r['after'], 433.92e6)
            c.eq('announced in the stream', r['stream_frequency'], 433920000)
            c.true(f'samples flowed ({r["samples"]})', r['samples'] > 100000)
            c.eq('keyed datagrams verified: none refused (auth)', r['auth'], 0)
            c.eq('invalid', r['invalid'], 0)
            c.true('rate refused with a message: ' + r['rate'],
                   'does not set the sample rate' in r['rate'])
            if c.failures:
                print(err[-4000:])
        checks.append(c)
        c = Checker('without key=, strict=1: set* throws with a message')
        r, err = run(f'driver=zcs,addr=127.0.0.1:{PORT},strict=1,timeout=30000', 915e6)
        if r is None:
            c.true('a result', False)
            print(err[-4000:])
        else:
            c.true('message: ' + r['set'], 'no control channel to the board' in r['set'])
            c.eq('frequency unchanged', r['after'], 433.92e6)
        checks.append(c)
        c = Checker('without key=: set* logs its message, does not throw (GUI applications)')
        r, err = run(f'driver=zcs,addr=127.0.0.1:{PORT},timeout=30000', 915e6)
        if r is None:
            c.true('a result', False)
            print(err[-4000:])
        else:
            c.eq('setFrequency returns', r['set'], 'ok')
            c.true('the message in the log', 'cannot set the frequency to 915000000' in err)
            c.eq('getFrequency still the stream\'s', r['after'], 433.92e6)
        checks.append(c)
        c = Checker('another key: the stream is refused, the open fails with a message')
        other = os.path.join(d, 'other.key')
        fd = os.open(other, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, (os.urandom(32).hex() + '\n').encode())
        os.close(fd)
        r, err = run(f'driver=zcs,addr=127.0.0.1:{PORT},key={other},timeout=2000', 915e6)
        os.unlink(other)
        c.true('no device opened', r is None)
        c.true('message: no stream arriving', 'no stream arriving on 127.0.0.1:' in err)
        if c.failures:
            print(err[-4000:])
        checks.append(c)
    finally:
        stop(tx)
        # the key's directory also holds the sender's run counter (KEY.run)
        shutil.rmtree(d)
    finish_suite(checks)


if __name__ == '__main__':
    main()
