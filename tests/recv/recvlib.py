# SPDX-License-Identifier: MIT
# Helpers for the zcs-recv integration tests: start zcs-recv and wait until it listens, collect
# its news and its final JSON summary, and compare counters and bytes with a clear message.
import json
import os
import signal
import subprocess
import sys
import threading
import time


class Recv:
    """zcs-recv running in the background; stderr collected on a thread."""

    def __init__(self, exe, args, stdout=subprocess.DEVNULL, ready_timeout=10.0):
        self.args = [exe, '--json', '--interval', '0'] + list(args)
        self.proc = subprocess.Popen(self.args, stdout=stdout, stderr=subprocess.PIPE)
        self.lines = []
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        if not self.ready.wait(ready_timeout):
            self.proc.kill()
            raise RuntimeError('zcs-recv did not start: ' + ' '.join(self.args) + '\n' +
                               ''.join(self.lines))

    def _read(self):
        for raw in self.proc.stderr:
            line = raw.decode(errors='replace')
            self.lines.append(line)
            if 'listening on' in line:
                self.ready.set()
        self.ready.set()

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)

    def finish(self, timeout=30.0, stop_after=None):
        """Waits for exit (sending SIGTERM after stop_after seconds if given); returns summary."""
        deadline = time.monotonic() + timeout
        if stop_after is not None:
            time.sleep(stop_after)
            self.stop()
        while self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError('zcs-recv did not exit in time:\n' + ''.join(self.lines))
        self.thread.join(5)
        self.rc = self.proc.returncode
        summary = None
        for line in self.lines:
            if line.startswith('{'):
                obj = json.loads(line)
                if obj.get('type') == 'summary':
                    summary = obj
        if summary is None:
            raise AssertionError('no JSON summary from zcs-recv:\n' + ''.join(self.lines))
        return summary

    def news(self):
        return ''.join(l for l in self.lines if not l.startswith('{'))


class Checker:
    def __init__(self, name):
        self.name = name
        self.failures = 0

    def eq(self, what, got, want):
        if got != want:
            print(f'FAIL {self.name}: {what}: got {got!r}, want {want!r}', flush=True)
            self.failures += 1
        return got == want

    def true(self, what, cond):
        if not cond:
            print(f'FAIL {self.name}: {what}', flush=True)
            self.failures += 1
        return cond

    def counters(self, summary, want):
        for key, value in want.items():
            if '.' in key:
                outer, inner = key.split('.', 1)
                got = summary.get(outer, {}).get(inner)
            else:
                got = summary.get(key)
            self.eq(key, got, value)

    def same_bytes(self, what, got, want):
        if got == want:
            return True
        at = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]),
                  min(len(got), len(want)))
        print(f'FAIL {self.name}: {what}: {len(got)} bytes, want {len(want)}; first difference '
              f'at byte {at}', flush=True)
        self.failures += 1
        return False


def read(path):
    with open(path, 'rb') as f:
        return f.read()


def expect_bytes(genstream, fmt, out_type, layout, gopts=()):
    """Bytes zcs-recv must put out, from zcs-genstream --expect (data ranges and zero runs)."""
    return subprocess.run([genstream, '--format', fmt] + list(gopts) + ['--expect', out_type] + layout,
                          check=True, stdout=subprocess.PIPE).stdout


def gen(genstream, dest, opts, ops):
    subprocess.run([genstream] + opts + [dest] + ops, check=True)


def finish_suite(checkers):
    failed = sum(c.failures for c in checkers)
    print(f'{len(checkers)} cases, {failed} failures', flush=True)
    sys.exit(1 if failed else 0)


def workdir(prefix):
    base = os.environ.get('MESON_BUILD_ROOT') or os.environ.get('TMPDIR') or '/tmp'
    d = os.path.join(base, 'recv-tests', f'{prefix}-{os.getpid()}')
    os.makedirs(d, exist_ok=True)
    return d
