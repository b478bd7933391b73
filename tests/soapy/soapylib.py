# SPDX-License-Identifier: MIT
# Helpers for the SoapySDR module's tests: a client process (soapy_client.py) started and read
# back, zcs-send started, and the tone's expected bytes from zcs-tone-expect.
import json
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'recv'))
from recvlib import Checker, finish_suite, isolate, set_format  # noqa: E402,F401

HERE = os.path.dirname(os.path.abspath(__file__))
PY = '/usr/bin/python3'


def foreign_env(module_dir):
    """The environment of a program that loads the module but is not ours (python3,
    SoapySDRUtil): in a sanitized build, the sanitizer's runtime preloaded (meson.build)."""
    env = dict(os.environ, SOAPY_SDR_PLUGIN_PATH=module_dir)
    pre = os.environ.get('ZCS_SOAPY_PRELOAD')
    if pre:
        env['LD_PRELOAD'] = pre
        env['ASAN_OPTIONS'] = 'detect_leaks=0'
    return env


class Client:
    """soapy_client.py in the background: it makes the device (its receive path logs
    'listening on' at once), reads, and prints one JSON result line on stdout."""

    def __init__(self, module_dir, args, ready_timeout=60.0):
        env = foreign_env(module_dir)
        self.proc = subprocess.Popen([PY, os.path.join(HERE, 'soapy_client.py')] + list(args),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.err = []
        self.ready = threading.Event()
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()
        if not self.ready.wait(ready_timeout):
            self.kill()
            raise RuntimeError('client did not start listening:\n' + ''.join(self.err))

    def _read(self):
        for raw in self.proc.stderr:
            line = raw.decode(errors='replace')
            self.err.append(line)
            if 'listening on' in line:
                self.ready.set()
        self.ready.set()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def result(self, timeout=120.0):
        try:
            out, _ = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError('client did not finish:\n' + ''.join(self.err))
        self.t.join(5)
        for line in out.decode().splitlines():
            if line.startswith('{'):
                return json.loads(line)
        raise AssertionError('client printed no result (rc %s):\n%s' % (self.proc.returncode,
                                                                         ''.join(self.err)))


def sender(send_exe, dest, fmt, rate, tone, amp, seed, count=None, extra=()):
    args = [send_exe, '-q', '-s', 'tone', '-f', fmt, '-r', str(rate), '--tone', str(tone),
            '--amplitude', str(amp), '--seed', str(seed)]
    if count:
        args += ['-n', str(count)]
    return subprocess.Popen(args + list(extra) + [dest], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def stop(p):
    if p and p.poll() is None:
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def expected(expect_exe, rate, tone, amp, seed, fmt, out_type, first, count):
    return subprocess.run([expect_exe, str(rate), str(tone), str(amp), str(seed), '0', fmt,
                           out_type, str(first), str(count)], check=True,
                          stdout=subprocess.PIPE).stdout
