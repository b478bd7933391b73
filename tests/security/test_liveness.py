# SPDX-License-Identifier: MIT
# The liveness check (issue 22, part 2): a keyed receiver with --control follows a run it has
# no record of only once the board, asked over its control channel, says it streams that run.
# End to end over loopback, the real zcs-send and zcs-recv, exact to the byte:
#   - a freshly started receiver (no run state) refuses a replay of an earlier run while the
#     board is reachable and names another run, then follows the live run from its datagram 0
#     (the board's answer already known: nothing lost);
#   - a board restarted (the next number of its run counter, a new stream id) is followed at
#     once, each run asked about once, and delivered byte-exact from its first sample: what came
#     while the board answered is kept meanwhile, not zero-filled (regression
#     checked_run_zero_start);
#   - a flood of replayed metadata of earlier runs, and of forged metadata claiming a later run,
#     costs the board one request; with the board unreachable (a listener that closes every
#     connection at once) the requests stay within the rate limit's bound (4, then one a
#     second), nothing replayed is followed, and the datagrams of the runs awaiting the board
#     are kept within the hold's fixed size (zcs-recv's resident memory grows by less than it,
#     for a flood four times larger);
#   - zcs-recv stopped (SIGINT) while its request waits on a board that accepts the connection
#     and never answers exits at once, not after the request's 3 s time-out.
# Recording and replaying are a Python relay on loopback, as in test_fresh.py.
# Ports 26100-26149 (in a network namespace of its own).
# Usage: test_liveness.py ZCS_RECV ZCS_SEND ZCS_TONE_EXPECT
import json
import math
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'recv'))
from recvlib import Checker, Recv, finish_suite, isolate, read, workdir  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zcs_auth_ref  # noqa: E402

isolate()

RECV, SEND, EXPECT = sys.argv[1:4]
BASE_PORT = 26100
RATE, TONE, AMP = 500000, 23456, 0.6
N = 200000
# the checker's rate limit (receiver/control/ctl_live.h) and the client's tries per request
# (common/ctl/ctl_client.h)
BURST, ATTEMPTS = 4, 5
children = []


def expected(seed, count=N):
    return subprocess.run([EXPECT, str(RATE), str(TONE), str(AMP), str(seed), '0', 'p12', 'cs16',
                           '0', str(count)], check=True, stdout=subprocess.PIPE).stdout


def sender(port, key, seed, count=N, control=None):
    args = [SEND, '-q', '--json', '-s', 'tone', '-f', 'p12', '-r', str(RATE), '--tone',
            str(TONE), '--amplitude', str(AMP), '--seed', str(seed), '-n', str(count), '--key',
            key]
    if control:
        args += ['--control', f'127.0.0.1:{control}']
    p = subprocess.Popen(args + [f'127.0.0.1:{port}'], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    children.append(p)
    return p


def sender_done(p):
    """Waits for zcs-send; returns its control channel's counters (None without one)."""
    _, err = p.communicate(timeout=120)
    text = err.decode(errors='replace')
    if p.returncode != 0:
        raise AssertionError(f'zcs-send failed ({p.returncode}): {text}')
    for line in text.splitlines():
        if line.startswith('{"control"'):
            return json.loads(line)['control']
    return None


def recv(port, key, path, control, extra=()):
    r = Recv(RECV, ['--run-state', 'none', '--control', f'127.0.0.1:{control}'] + list(extra) +
             ['--key', key, '-o', 'file:' + path, f'127.0.0.1:{port}'], interval=0.1)
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


def is_meta(d):
    return d[3] & 0x7f == 1


def record(port, key, seed):
    """A whole keyed run, captured by an attacker on the path (nobody receives it)."""
    sock = udp_socket(port)
    p = sender(port, key, seed)
    got = []
    while not got or not is_eos(got[-1]):
        got.append(sock.recv(65536))
    sock.close()
    sender_done(p)
    return got


def replay(dgrams, port, per_ms=2):
    out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i, d in enumerate(dgrams):
        out.sendto(d, ('127.0.0.1', port))
        if i % per_ms == per_ms - 1:
            time.sleep(0.001)


def split(dgrams):
    return [d for d in dgrams if is_meta(d)], [d for d in dgrams if not is_meta(d)]


def key_file(d, name):
    path = os.path.join(d, name)
    for old in (path, path + '.run', path + '.seen'):
        if os.path.exists(old):
            os.unlink(old)
    subprocess.run([SEND, '--gen-key', path], check=True, stderr=subprocess.DEVNULL)
    return path


def wait_stat(r, cond, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and r.proc.poll() is None:
        st = r.stats()
        if st and cond(st[-1]):
            return True
        time.sleep(0.02)
    return False


class Holder(threading.Thread):
    """Reads a live stream on its own port and holds it until release(), then forwards what it
    held and what follows to dst, up to the end of stream."""

    def __init__(self, sock, dst):
        super().__init__(daemon=True)
        self.sock, self.dst = sock, dst
        self.held, self.first = [], threading.Event()
        self.go = threading.Event()
        self.out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.count = 0

    def run(self):
        sent = 0
        while True:
            d = self.sock.recv(65536)
            self.held.append(d)
            self.first.set()
            if self.go.is_set():
                while sent < len(self.held):
                    self.out.sendto(self.held[sent], self.dst)
                    sent += 1
            if is_eos(d):
                break
        self.go.wait(120)
        while sent < len(self.held):
            self.out.sendto(self.held[sent], self.dst)
            sent += 1
        self.count = sent


def zero_prefix(seg):
    """Pairs at the start of a cs16 segment that are all zero."""
    n = 0
    while n * 4 < len(seg) and seg[n * 4:n * 4 + 4] == b'\0\0\0\0':
        n += 1
    return n


def case_replay_denied_then_live(port, d):
    c = Checker('a fresh receiver refuses a replay the board denies, then follows the live run '
                'from its datagram 0')
    key = key_file(d, 'denied.key')
    older = record(port + 50, key, seed=61)                         # run 1, recorded only
    old_meta, old_samples = split(older)
    count = 6 * RATE                                                # the live run: 6 s
    ctl = port + 20
    path = os.path.join(d, f'denied.{port}')
    r = recv(port, key, path, ctl, ['--exit-on-eos'])
    sock = udp_socket(port + 40)
    hold = Holder(sock, ('127.0.0.1', port))
    hold.start()
    board = sender(port + 40, key, seed=62, count=count, control=ctl)
    # its first datagram: its control channel listens (it starts before the stream)
    c.true('the live run began', hold.first.wait(60))
    # the recording again and again until the board's answer is in (on a loaded machine it may
    # come after the recording's last datagram): a replay, however repeated, costs one request
    rounds, deadline = 0, time.monotonic() + 60
    while time.monotonic() < deadline:
        replay(older, port)
        rounds += 1
        if wait_stat(r, lambda s: s['replayed_by'].get('not_live', 0) >= 1, timeout=1.0):
            break
    c.true('the board was asked and the replayed run refused (not_live)',
           wait_stat(r, lambda s: s['replayed_by'].get('not_live', 0) >= 1, timeout=1.0))
    c.eq('samples of the replay', r.stats()[-1]['samples'], 0)
    hold.go.set()
    hold.join(120)
    sock.close()
    summary = r.finish(timeout=120)
    board_ctl = sender_done(board)
    c.eq('exit status', r.rc, 0)
    c.eq('the live run is run 2', sorted({zcs_auth_ref.meta_run(m)
                                          for m in split(hold.held)[0]}), [2])
    c.eq("liveness requests the board answered (its control's gets)", (board_ctl or {}).get('gets'),
         1)
    c.counters(summary, {'samples': count, 'lost': 0, 'gap_samples': 0, 'invalid': 0,
                         'streams': 1, 'restarts': 0, 'eos': 1, 'replayed_by.old_run': 0})
    denied = summary.get('replayed_by', {}).get('not_live', 0)
    c.true('replayed metadata refused as not live', denied >= 1)
    c.eq('every replayed metadata datagram refused (not_live; meta_seq for a repeat) or held '
         'for the answer (unconfirmed)', denied + summary.get('unconfirmed', 0) +
         summary.get('replayed_by', {}).get('meta_seq', 0), rounds * len(old_meta))
    c.eq('every replayed sample datagram dropped (held before metadata, or foreign)',
         summary.get('pre_meta', 0) + summary.get('foreign', 0), rounds * len(old_samples))
    c.same_bytes('output: the live run, whole', read(path), expected(62, count))
    if c.failures:
        print(r.news())
    return c


def case_reboot(port, d):
    c = Checker('a restarted board (its next run) is followed at once, asked about once, '
                'byte-exact from its first sample')
    key = key_file(d, 'reboot.key')
    ctl = port + 20
    path = os.path.join(d, f'reboot.{port}')
    r = recv(port, key, path, ctl)
    gets = []
    # each run streams a few seconds: the board's answer comes within them (a handshake and a
    # get, milliseconds on a LAN, more on a loaded test machine)
    n = 3 * RATE
    for seed in (71, 72):
        gets.append((sender_done(sender(port, key, seed=seed, count=n, control=ctl))
                     or {}).get('gets'))
        c.true(f'run of seed {seed} delivered',
               wait_stat(r, lambda s, k=len(gets): s['samples'] >= k * n))
    r.stop()
    summary = r.finish()
    c.eq('exit status', r.rc, 0)
    c.eq("each run was asked about once (its board's gets)", gets, [1, 1])
    # the board answers within the hold (milliseconds here; the hold keeps seconds of this rate)
    c.counters(summary, {'samples': 2 * n, 'invalid': 0, 'streams': 2, 'replayed': 0,
                         'gap_samples': 0, 'lost': 0, 'pre_meta': 0})
    out = read(path)
    c.eq('output length', len(out), 2 * n * 4)
    for i, seed in enumerate((71, 72)):
        seg, want = out[i * n * 4:(i + 1) * n * 4], expected(seed, n)
        # the tone's first pair is not zero: a zero prefix would be what the receiver filled
        c.true(f'run {i + 1}: its first pair is not zero', want[:4] != b'\0\0\0\0')
        c.eq(f'run {i + 1}: zero-filled pairs at its start', zero_prefix(seg), 0)
        c.same_bytes(f'run {i + 1}, whole', seg, want)
    if c.failures:
        print(r.news())
    return c


def forged_claim(meta, run):
    """meta with another run number and its tag left as it was: fails verification."""
    return meta[:144] + run.to_bytes(8, 'little') + meta[152:]


def case_flood_reachable(port, d):
    c = Checker('a flood of replayed and forged run claims costs the board one request')
    key = key_file(d, 'flood.key')
    metas = []
    for seed in (81, 82, 83):                                       # runs 1-3, recorded
        metas += split(record(port + 50, key, seed=seed))[0]
    ctl = port + 20
    board = sender(port + 40, key, seed=84, count=8 * RATE, control=ctl)   # run 4, to nobody
    path = os.path.join(d, f'flood.{port}')
    r = recv(port, key, path, ctl)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    forged = [forged_claim(m, 10**9 + i) for i, m in enumerate(metas[:20])]
    # the control channel listens once zcs-send streams: wait for it to answer anyone
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(('127.0.0.1', ctl), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    sent, rounds, after = 0, 0, None
    deadline = time.monotonic() + 60
    # claims until the board's answer is in (a replay refused as not live), then 40 rounds more
    while (after is None or rounds < after + 40) and time.monotonic() < deadline:
        for m in metas + forged:
            sock.sendto(m, ('127.0.0.1', port))
            sent += 1
        rounds += 1
        time.sleep(0.02)
        st = r.stats()
        if after is None and st and st[-1]['replayed_by'].get('not_live', 0) >= 1:
            after = rounds
    c.true('the board answered during the flood', after is not None)
    c.true(f'zcs-recv read the {sent} datagrams of the flood', r.wait_datagrams(sent))
    r.stop()
    summary = r.finish()
    board.kill()
    board.wait(60)
    c.eq('exit status', r.rc, 0)
    m = re.search(r'liveness: (\d+) requests to the board \((\d+) answered', r.news())
    c.eq('requests to the board (zcs-recv: requests, answered)',
         (int(m.group(1)), int(m.group(2))) if m else None, (1, 1))
    c.counters(summary, {'samples': 0, 'streams': 0, 'invalid': len(forged) * rounds,
                         'invalid_by.auth': len(forged) * rounds})
    c.true('replays refused as not live', summary.get('replayed_by', {}).get('not_live', 0) > 0)
    if c.failures:
        print(r.news())
    return c


class Closer(threading.Thread):
    """A TCP listener that accepts every connection and closes it at once: a control port
    where nobody holds the key.  Counts the connections."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.s.bind(('127.0.0.1', port))
        self.s.listen(64)
        self.s.settimeout(0.2)
        self.count, self.stop = 0, threading.Event()

    def run(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.s.accept()
            except socket.timeout:
                continue
            self.count += 1
            conn.close()
        self.s.close()


# the hold of a run awaiting the board (receiver/core/rx_hold.h, ZCS_RX_HOLD_BYTES)
HOLD_BYTES = 16 << 20


def rss_kib(pid):
    """The process's resident memory (VmRSS), KiB."""
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return None


def case_flood_unreachable(port, d):
    c = Checker('with the board unreachable, a flood of run claims stays within the rate limit')
    key = key_file(d, 'unreach.key')
    runs = [record(port + 50, key, seed=seed) for seed in (91, 92, 93)]
    ctl = port + 20
    closer = Closer(ctl)
    closer.start()
    path = os.path.join(d, f'unreach.{port}')
    t0 = time.monotonic()
    r = recv(port, key, path, ctl)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sent = sent_bytes = 0
    rss0 = rss_kib(r.proc.pid)
    flood_end = time.monotonic() + 3                                # 3 s of claims or more
    # whole runs, again and again, and at least 4 holds' worth of them
    while time.monotonic() < flood_end or sent_bytes < 4 * HOLD_BYTES:
        for rec in runs:
            for i in range(0, len(rec), 20):
                for dg in rec[i:i + 20]:
                    sock.sendto(dg, ('127.0.0.1', port))
                    sent += 1
                    sent_bytes += len(dg)
                time.sleep(0.001)
    c.true(f'zcs-recv read the {sent} datagrams of the flood', r.wait_datagrams(sent))
    rss1 = rss_kib(r.proc.pid)
    grew = (rss1 - rss0) * 1024 if rss0 and rss1 else None
    print(f'board unreachable: a flood of {sent_bytes >> 20} MiB, zcs-recv\'s resident memory '
          f'{rss0} KiB before, {rss1} KiB after (the hold: {HOLD_BYTES >> 20} MiB)', flush=True)
    # kept without a bound, the flood would have grown it by its own size, four holds
    c.true(f'resident memory grew less than the hold and 8 MiB ({grew} bytes, for a flood of '
           f'{sent_bytes})', grew is not None and grew < HOLD_BYTES + (8 << 20))
    r.stop()
    summary = r.finish()
    elapsed = time.monotonic() - t0
    closer.stop.set()
    closer.join(5)
    c.eq('exit status', r.rc, 0)
    m = re.search(r'liveness: (\d+) requests to the board \((\d+) answered, (\d+) failed',
                  r.news())
    requests = int(m.group(1)) if m else None
    # the bound holds however slowly the test ran: a slower run only allows more
    bound = BURST + math.ceil(elapsed) + 1
    print(f'board unreachable: {requests} requests, {closer.count} connections in {elapsed:.1f} s '
          f'(bound {bound} requests)', flush=True)
    c.true(f'requests made ({requests})', requests is not None and requests >= 1)
    c.true(f'requests within the rate limit ({requests} <= {bound} in {elapsed:.1f} s)',
           requests is not None and requests <= bound)
    c.true(f'connections within {ATTEMPTS} a request ({closer.count} for {requests})',
           requests is not None and 1 <= closer.count <= ATTEMPTS * requests)
    c.true('the runs awaiting the board were kept, the oldest giving way (pre_meta)',
           summary.get('pre_meta', 0) > 0)
    c.counters(summary, {'samples': 0, 'streams': 0, 'replayed_by.not_live': 0})
    if c.failures:
        print(r.news())
    return c


def case_exit_prompt(port, d):
    c = Checker('zcs-recv --control exits at SIGINT while its request waits on a board that never '
                'answers')
    key = key_file(d, 'mute.key')
    older = record(port + 50, key, seed=95)
    ctl = port + 20
    # a control port that takes the connection and never answers: the kernel completes it in
    # the listen queue, nobody accepts it
    mute = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    mute.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    mute.bind(('127.0.0.1', ctl))
    mute.listen(8)
    r = recv(port, key, os.path.join(d, f'mute.{port}'), ctl)
    replay(older, port)
    asked = bool(select.select([mute], [], [], 30)[0])
    c.true('the run was asked about (a connection waits at the mute board)', asked)
    t0 = time.monotonic()
    r.stop(signal.SIGINT)
    r.finish(timeout=30)
    took = time.monotonic() - t0
    mute.close()
    print(f'exit {took:.2f} s after SIGINT, the request outstanding', flush=True)
    c.eq('exit status', r.rc, 0)
    # the request's own time-out is 3 s (ctl_live.h): an exit that waited it out takes ~3 s;
    # 2 s leaves a loaded machine ample room and still tells the two apart
    c.true(f'exited before the request\'s 3 s time-out ({took:.2f} s < 2 s)', took < 2.0)
    if c.failures:
        print(r.news())
    return c


def main():
    d = workdir('security-liveness')
    checks = []
    try:
        checks.append(case_replay_denied_then_live(BASE_PORT, d))
        checks.append(case_reboot(BASE_PORT + 1, d))
        checks.append(case_flood_reachable(BASE_PORT + 2, d))
        checks.append(case_flood_unreachable(BASE_PORT + 3, d))
        checks.append(case_exit_prompt(BASE_PORT + 4, d))
    finally:
        for p in children:
            if p.poll() is None:
                p.kill()
                p.wait()
    finish_suite(checks)


if __name__ == '__main__':
    main()
