# SPDX-License-Identifier: MIT
# Helpers for the zcs-recv integration tests: start zcs-recv and wait until it listens, collect
# its news and its final JSON summary, and compare counters and bytes with a clear message.
# Timing the tests cannot assume (a loaded machine) they wait for: Recv.wait_datagrams, settle.
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time


def isolate():
    """Re-runs this test in a network namespace of its own (loopback only) when it may create
    one: the ports are fixed, and zcs-recv's and zcs-impair's sockets take SO_REUSEADDR, so a
    second run of the same test on this host (another build directory, or meson test --repeat
    with several processes) would bind the same ports and silently take over half the traffic.
    Without the right to create one (not root, no user namespaces) it runs on the host."""
    if os.environ.get('ZCS_TEST_NETNS') == '1':
        return
    unshare = shutil.which('unshare')
    if not unshare:
        return
    env = dict(os.environ, ZCS_TEST_NETNS='1')
    for mode in (['--net'], ['--map-root-user', '--net']):
        probe = subprocess.run([unshare] + mode + ['--', 'ip', 'link', 'set', 'lo', 'up'],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if probe.returncode == 0:
            os.execve(unshare, [unshare] + mode + [
                '--', '/bin/sh', '-c', 'ip link set lo up && exec "$@"', 'sh', sys.executable]
                + sys.argv, env)


class Recv:
    """zcs-recv running in the background; stderr collected on a thread.  With interval > 0 it
    prints JSON statistics lines that wait_datagrams reads."""

    def __init__(self, exe, args, stdout=subprocess.DEVNULL, ready_timeout=10.0, interval=0):
        self.args = [exe, '--json', '--interval', str(interval)] + list(args)
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

    def stats(self):
        """The JSON statistics lines so far (needs interval > 0)."""
        return [json.loads(l) for l in list(self.lines) if l.startswith('{"type":"stats"')]

    def wait_datagrams(self, n, timeout=60.0):
        """Waits until a statistics line counts n datagrams read; True when it counts exactly n.
        Lines are printed between receive steps, so the step that read the n-th datagram (and
        set the stream's last-datagram time) has finished by then.  False on timeout."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            st = self.stats()
            if st and st[-1]['datagrams'] >= n:
                return st[-1]['datagrams'] == n
            time.sleep(0.02)
        return False


def udp_queued(port):
    """Bytes waiting in the receive queues of the UDP sockets bound to port (IPv4), or None when
    none is bound."""
    total = None
    with open('/proc/net/udp') as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            if int(fields[1].split(':')[1], 16) == port:
                total = (total or 0) + int(fields[4].split(':')[1], 16)
    return total


def proc_state(pid):
    """The scheduler state letter of process pid (S: sleeping, R: running...)."""
    try:
        with open(f'/proc/{pid}/stat') as f:
            return f.read().rsplit(')', 1)[1].split()[0]
    except OSError:
        return None


def settle(recv, relay_pid, ports, quiet=0.3, timeout=60.0):
    """Waits until a relay's datagrams have all reached zcs-recv: the relay sleeps, nothing waits
    in the sockets on ports, and zcs-recv's datagram count has stood still for `quiet` seconds
    (zcs-recv needs interval > 0).  After a sender ended, a silence the test then keeps is a
    silence zcs-recv sees, however late the machine ran the relay and zcs-recv.  False on
    timeout."""
    deadline = time.monotonic() + timeout
    last, since = None, None
    while time.monotonic() < deadline:
        st = recv.stats()
        n = st[-1]['datagrams'] if st else 0
        now = time.monotonic()
        busy = any(udp_queued(p) for p in ports) or proc_state(relay_pid) != 'S'
        if busy or n != last:
            last, since = n, now
        elif now - since >= quiet:
            return True
        time.sleep(0.02)
    return False


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


# Checks that could not run here (what they needed is outside the tree and absent): the test is
# then a skip (exit status 77, which meson counts) once every other check passed.
SKIPPED = []


def skip_check(what):
    SKIPPED.append(what)
    print(f'SKIP: {what}', flush=True)


def finish_suite(checkers):
    failed = sum(c.failures for c in checkers)
    print(f'{len(checkers)} cases, {failed} failures, {len(SKIPPED)} checks skipped', flush=True)
    sys.exit(1 if failed else 77 if SKIPPED else 0)


def workdir(prefix):
    base = os.environ.get('MESON_BUILD_ROOT') or os.environ.get('TMPDIR') or '/tmp'
    d = os.path.join(base, 'recv-tests', f'{prefix}-{os.getpid()}')
    os.makedirs(d, exist_ok=True)
    return d


def wait_for(what, cond, timeout=90.0):
    """cond()'s first true value, polled every 50 ms; AssertionError naming what after timeout."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError('timed out waiting for ' + what)


def change_events(recv):
    """The --json "change" events zcs-recv has printed so far."""
    out = []
    for line in list(recv.lines):
        if line.startswith('{'):
            obj = json.loads(line)
            if obj.get('type') == 'change':
                out.append(obj)
    return out


class Ctl:
    """zcs-ctl with a key, against a zcs-send control port on 127.0.0.1."""

    def __init__(self, exe, key, port):
        self.exe, self.key, self.port = exe, key, port

    def run(self, *args):
        """(exit status, the finished process) of zcs-ctl --json ARGS."""
        p = subprocess.run([self.exe, '--key', self.key, '--json', '--timeout', '20000',
                            '127.0.0.1:%d' % self.port] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
        return p.returncode, p

    def __call__(self, *args):
        """zcs-ctl's answer (its last JSON line); AssertionError when it failed."""
        rc, p = self.run(*args)
        assert rc == 0, 'zcs-ctl %s: %s %s' % (args, p.stdout, p.stderr)
        return json.loads(p.stdout.splitlines()[-1])

    def set_retry(self, send, *settings, timeout=90.0):
        """set SETTINGS, retried while zcs-send (the process send) is still starting: its
        control port opens once it has, which under a sanitizer on a loaded machine can take
        many seconds.  Returns the answer."""
        last, end = None, time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                return self('set', *settings)
            except AssertionError as e:
                last = e
                if send.poll() is not None:
                    raise AssertionError('zcs-send ended (%s): %s' % (send.returncode, (
                        send.stderr.read().decode(errors='replace') if send.stderr else '')))
                time.sleep(0.1)
        raise AssertionError('zcs-ctl never succeeded: %s' % last)


def set_format(ctl_exe, key, port, send, fmt):
    """set format=FMT on zcs-send's control port (retried while it starts); returns the sample
    index the new format holds from, as the answer gives it."""
    r = Ctl(ctl_exe, key, port).set_retry(send, 'format=' + fmt)
    assert r['ok'] and r['settings']['format'] == fmt and 'since_sample' in r, r
    return r['since_sample']
