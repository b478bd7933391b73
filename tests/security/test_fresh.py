# SPDX-License-Identifier: MIT
# Fresh keyed runs without the board's clock (issue 22, part 2).  A PlutoSDR has no real-time
# clock and boots at 1970 unless NTP reaches it; zcs-send runs here under libzcs-fakewall.so
# (tests/tools/fakewall.c), which makes its wall clock start where the test says, as such a board's
# does.  Each case is one the issue measured, end to end over loopback, exact to the byte:
#   - a board rebooted at 1970, twice, is followed at once by a keyed receiver that followed it;
#   - while a board at 1970 streams, a replay of a run recorded earlier with a real clock does
#     not take the receiver over;
#   - a freshly started keyed receiver, with no sender running, refuses a replay of a run it
#     followed before and of an earlier one (its run state, beside its key), then follows the
#     live sender at once;
#   - a receiver restarted while its sender streams picks the same run up again;
#   - the control channel's get names the live run (stream.run), the number its metadata carries.
# Recording and replaying are a Python relay on loopback, as in test_keyed.py.
# Ports 25900-25949 (in a network namespace of its own).
# Usage: test_fresh.py ZCS_RECV ZCS_SEND ZCS_TONE_EXPECT LIBZCS_FAKEWALL ZCS_CTL
import json
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'recv'))
from recvlib import Checker, Recv, finish_suite, isolate, read, workdir  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zcs_auth_ref  # noqa: E402

isolate()

RECV, SEND, EXPECT, FAKEWALL, CTL = sys.argv[1:6]
BASE_PORT = 25900
RATE, TONE, AMP = 500000, 23456, 0.6
N = 200000
children = []

# A board's clock after a boot without NTP: seconds after 1970-01-01.
BOOT_1970 = 30 * 10**9


def expected(seed, count=N):
    return subprocess.run([EXPECT, str(RATE), str(TONE), str(AMP), str(seed), '0', 'p12', 'cs16',
                           '0', str(count)], check=True, stdout=subprocess.PIPE).stdout


def sender(port, key, seed, wall_ns=None, count=N, extra=()):
    """zcs-send keyed; with wall_ns its wall clock starts there (a board without a clock)."""
    env = dict(os.environ)
    if wall_ns is not None:
        env['ZCS_FAKE_WALL_NS'] = str(wall_ns)
        env['LD_PRELOAD'] = FAKEWALL
        # a sanitizer build wants its runtime first among the preloaded libraries
        asan = env.get('ASAN_OPTIONS', '')
        env['ASAN_OPTIONS'] = (asan + ':' if asan else '') + 'verify_asan_link_order=0'
    args = [SEND, '-q', '-s', 'tone', '-f', 'p12', '-r', str(RATE), '--tone', str(TONE),
            '--amplitude', str(AMP), '--seed', str(seed), '-n', str(count), '--key', key]
    args += list(extra) + [f'127.0.0.1:{port}']
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    children.append(p)
    return p


def sender_done(p):
    _, err = p.communicate(timeout=120)
    if p.returncode != 0:
        raise AssertionError(f'zcs-send failed ({p.returncode}): {err.decode(errors="replace")}')
    return err.decode(errors='replace')


def recv(port, key, path, extra=()):
    r = Recv(RECV, list(extra) + ['--key', key, '-o', 'file:' + path, f'127.0.0.1:{port}'],
             interval=0.1)
    children.append(r.proc)
    return r


def udp_socket(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
    s.bind(('127.0.0.1', port))
    s.settimeout(60)
    return s


def is_eos(d):
    return len(d) >= 32 and d[3] & 0x7f == 0 and d[25] & 1


def relay(sock, dst, inject=lambda k, d: ()):
    """Forwards every datagram on sock to dst (None: nowhere, a recording only) until the end of
    stream; after the k-th datagram d it also sends what inject(k, d) returns.  Returns the
    datagrams that came."""
    out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    got = []
    while True:
        d = sock.recv(65536)
        if dst:
            out.sendto(d, dst)
            for extra in inject(len(got), d):
                out.sendto(extra, dst)
        got.append(d)
        if is_eos(d):
            return got


def record(port, key, seed, wall_ns=None):
    """A whole keyed run, captured by an attacker on the path (nobody receives it)."""
    sock = udp_socket(port)
    p = sender(port, key, seed, wall_ns)
    got = relay(sock, None)
    sock.close()
    sender_done(p)
    return got


def replay(dgrams, port, per_ms=2):
    """Sends a recording to zcs-recv as live, about as fast as the run came."""
    out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i, d in enumerate(dgrams):
        out.sendto(d, ('127.0.0.1', port))
        if i % per_ms == per_ms - 1:
            time.sleep(0.001)


def split(dgrams):
    return [d for d in dgrams if d[3] & 0x7f == 1], [d for d in dgrams if d[3] & 0x7f == 0]


def key_file(d, name):
    path = os.path.join(d, name)
    for old in (path, path + '.run', path + '.seen'):
        if os.path.exists(old):
            os.unlink(old)
    subprocess.run([SEND, '--gen-key', path], check=True, stderr=subprocess.DEVNULL)
    return path


def wait_samples(r, n, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and r.proc.poll() is None:
        st = r.stats()
        if st and st[-1]['samples'] >= n:
            return st[-1]['samples'] == n
        time.sleep(0.02)
    return False


def some_samples(r, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and r.proc.poll() is None:
        st = r.stats()
        if st and st[-1]['samples'] > 0:
            return True
        time.sleep(0.02)
    return False


def runs_of(dgrams):
    return sorted({zcs_auth_ref.meta_run(d) for d in split(dgrams)[0]})


def case_reboots_1970(port, d):
    c = Checker('a board rebooted at 1970, twice, is followed at once')
    key = key_file(d, 'reboot.key')
    path = os.path.join(d, f'reboot.{port}')
    r = recv(port, key, path)
    # run 1 with the clock set (NTP reached it), then two boots without: 30 s, then 10 s after 1970
    sender_done(sender(port, key, seed=11))
    c.true('run 1 delivered', wait_samples(r, N))
    sender_done(sender(port, key, seed=12, wall_ns=BOOT_1970))
    c.true('run 2 (the board at 1970) delivered', wait_samples(r, 2 * N))
    sender_done(sender(port, key, seed=13, wall_ns=BOOT_1970 - 20 * 10**9))
    c.true('run 3 (at 1970 again, its clock behind run 2) delivered', wait_samples(r, 3 * N))
    r.stop()
    summary = r.finish()
    c.eq('exit status', r.rc, 0)
    c.counters(summary, {'samples': 3 * N, 'lost': 0, 'invalid': 0, 'streams': 3,
                         'replayed': 0, 'foreign': 0})
    c.same_bytes('output: the three runs, whole', read(path),
                 expected(11) + expected(12) + expected(13))
    counter = key + '.run'
    c.eq("the board's run counter", read(counter) if os.path.exists(counter) else None, b'3\n')
    if c.failures:
        print(r.news())
    return c


def case_replay_real_clock(port, d):
    c = Checker('a replay recorded with a real clock does not take over a board at 1970')
    key = key_file(d, 'realclock.key')
    old = record(port + 50, key, seed=21)
    old_meta, old_samples = split(old)
    c.eq('the recording is run 1', runs_of(old), [1])
    path = os.path.join(d, f'realclock.{port}')
    r = recv(port, key, path, ['--exit-on-eos'])
    sock = udp_socket(port + 50)
    snd = sender(port + 50, key, seed=22, wall_ns=BOOT_1970)
    queue = list(old)

    def inject(k, dg):
        if k >= 10 and queue:     # two of the old run after each live datagram
            return [queue.pop(0) for _ in range(min(2, len(queue)))]
        return ()
    got = relay(sock, ('127.0.0.1', port), inject)
    sock.close()
    sender_done(snd)
    summary = r.finish()
    meta, _ = split(got)
    c.eq('the live run is run 2', runs_of(got), [2])
    c.eq('exit status', r.rc, 0)
    c.true('the whole old run was replayed during the live one', not queue)
    c.counters(summary, {'samples': N, 'lost': 0, 'invalid': 0, 'eos': 1, 'streams': 1,
                         'restarts': 0, 'foreign': len(old_samples),
                         'replayed': len(old_meta), 'replayed_by.old_run': len(old_meta),
                         'meta': len(meta)})
    c.same_bytes('output (the live stream at 1970 only)', read(path), expected(22))
    if c.failures:
        print(r.news())
    return c


def case_fresh_receiver(port, d):
    c = Checker('a freshly started receiver refuses replays of earlier runs, then follows the '
                'live one')
    key = key_file(d, 'freshrecv.key')
    older = record(port + 50, key, seed=31)                       # run 1, recorded only
    # run 2: a receiver follows it (and keeps it, beside its key) while the attacker records it
    first = os.path.join(d, f'fresh-first.{port}')
    r = recv(port, key, first, ['--exit-on-eos'])
    sock = udp_socket(port + 50)
    snd = sender(port + 50, key, seed=32, wall_ns=BOOT_1970)
    seen = relay(sock, ('127.0.0.1', port))
    sock.close()
    sender_done(snd)
    summary = r.finish()
    c.eq('first receiver: exit status', r.rc, 0)
    c.counters(summary, {'samples': N, 'streams': 1})
    c.eq('runs recorded', runs_of(older) + runs_of(seen), [1, 2])
    c.true('the receiver kept the run it followed', os.path.exists(key + '.seen'))
    # later, no sender running: a receiver started afresh gets both recordings as if live
    path = os.path.join(d, f'fresh.{port}')
    r = recv(port, key, path)
    replay(seen, port)
    replay(older, port)
    total = len(seen) + len(older)
    c.true(f'zcs-recv read all {total} replayed datagrams', r.wait_datagrams(total))
    st = r.stats()[-1]
    c.eq('samples of the replays', st['samples'], 0)
    c.eq('streams followed', st['streams'], 0)
    # then the board boots again, at 1970: its run 3 is followed at once
    sender_done(sender(port, key, seed=33, wall_ns=BOOT_1970))
    c.true('the live run delivered', wait_samples(r, N))
    r.stop()
    summary = r.finish()
    c.eq('exit status', r.rc, 0)
    meta_seen, samples_seen = split(seen)
    meta_older, samples_older = split(older)
    c.counters(summary, {'samples': N, 'lost': 0, 'invalid': 0, 'streams': 1,
                         'replayed': len(meta_seen) + len(meta_older),
                         'replayed_by.old_run': len(meta_seen) + len(meta_older),
                         'foreign': len(samples_seen) + len(samples_older)})
    c.same_bytes('output (run 3 only)', read(path), expected(33))
    if c.failures:
        print(r.news())
    return c


def case_receiver_restart(port, d):
    c = Checker('a receiver restarted while its sender streams takes the same run up again')
    key = key_file(d, 'restart.key')
    count = 8 * RATE           # 8 s of stream
    snd = sender(port, key, seed=41, count=count)
    path = os.path.join(d, f'restart-a.{port}')
    r = recv(port, key, path)
    c.true('first receiver gets samples', some_samples(r))
    time.sleep(1.0)            # a metadata datagram or two more of the run (every 500 ms)
    r.stop()
    summary = r.finish()
    c.eq('first receiver: streams', summary.get('streams'), 1)
    path = os.path.join(d, f'restart-b.{port}')
    r = recv(port, key, path)
    c.true('second receiver follows the run', some_samples(r))
    sender_done(snd)
    r.stop()
    summary = r.finish()
    c.eq('exit status', r.rc, 0)
    c.counters(summary, {'streams': 1, 'replayed': 0, 'invalid': 0})
    if c.failures:
        print(r.news())
    return c


def case_control_names_run(port, d):
    c = Checker("the control channel's get names the live run")
    key = key_file(d, 'control.key')
    sender_done(sender(port + 50, key, seed=51))           # run 1, to nobody
    sock = udp_socket(port)
    ctl_port = port + 20
    snd = sender(port, key, seed=52, wall_ns=BOOT_1970, count=4 * RATE,
                 extra=('--control', f'127.0.0.1:{ctl_port}'))
    reply = None
    deadline = time.monotonic() + 30
    while reply is None and time.monotonic() < deadline:
        p = subprocess.run([CTL, '--key', key, '--json', f'127.0.0.1:{ctl_port}', 'get'],
                           capture_output=True, timeout=60)
        if p.returncode == 0:
            reply = json.loads(p.stdout.decode().splitlines()[0])
        else:
            time.sleep(0.1)
    got = relay(sock, None)
    sock.close()
    sender_done(snd)
    c.true('zcs-ctl get answered', reply is not None)
    stream = (reply or {}).get('stream', {})
    c.eq('stream.run', stream.get('run'), 2)
    c.eq("the run the stream's metadata carries", runs_of(got), [2])
    c.eq('stream.id is the stream', stream.get('id'), int.from_bytes(got[0][4:8], 'little'))
    return c


def case_vector():
    """docs/protocol.md's keyed metadata example, checked with the reference written from it."""
    c = Checker("protocol.md's keyed metadata vector")
    vec = bytes.fromhex(''.join((
        '5a 53 01 81 78 56 34 12 01 00 00 00 40 9c 00 00',
        '00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00',
        '00 78 41 cb 02 00 00 00 80 84 1e 00 00 00 00 00',
        '00 18 dd 19 00 00 00 00 00 00 00 00 00 00 00 00',
        '00 00 02 00 d8 01 00 00 70 6c 75 74 6f 00 00 00',
        '00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00',
        '00 00 00 00 00 00 00 00 30 2e 31 2e 30 00 00 00',
        '00 00 00 00 00 00 00 00 69 69 6f 00 00 00 00 00',
        '00 78 41 cb 02 00 00 00 00 00 00 00 00 00 00 00',
        '07 00 00 00 00 00 00 00 5a 43 53 2d 73 61 6c 74',
        '03 29 3c 82 a0 af 94 73 fb 13 ab 29 be f6 32 67',
    )))
    c.eq('length', len(vec), 176)
    c.true('verifies under the key 00..1f', zcs_auth_ref.verify(bytes(range(32)), vec))
    c.eq('run', zcs_auth_ref.meta_run(vec), 7)
    return c


def main():
    d = workdir('security-fresh')
    checks = [case_vector()]
    try:
        checks.append(case_reboots_1970(BASE_PORT, d))
        checks.append(case_replay_real_clock(BASE_PORT + 1, d))
        checks.append(case_fresh_receiver(BASE_PORT + 2, d))
        checks.append(case_receiver_restart(BASE_PORT + 3, d))
        checks.append(case_control_names_run(BASE_PORT + 4, d))
    finally:
        for p in children:
            if p.poll() is None:
                p.kill()
                p.wait()
    finish_suite(checks)


if __name__ == '__main__':
    main()
