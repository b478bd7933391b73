# SPDX-License-Identifier: MIT
# Changing the key as docs/security.md ("Making and sharing keys") says, to the letter: generate
# a new key on the board (`zcs-send --gen-key`, which never replaces a file: a new name, so its run
# counter starts afresh at run 1), copy it to the receiver over its key file, restart the sender
# with it, and the receiver (it reads its key at start).  The receiver followed runs 1-3 of the
# old key and kept run 3 beside its key file (KEY.seen); that record belongs to the old key, so
# the new key's run 1 must be followed at once, byte-exact, not refused as "not after run 3".
# A receiver still on the old key meanwhile counts the new key's datagrams as `auth`.  Done twice:
# with the state beside the keys, and with both programs' `--state-dir` (the keys where nothing
# is written, as a hardened service keeps them under a read-only /etc).
# Ports 23050-23059 (in a network namespace of its own).
# Usage: test_key_change.py ZCS_RECV ZCS_SEND ZCS_TONE_EXPECT
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'recv'))
from recvlib import Checker, Recv, finish_suite, isolate, read, workdir  # noqa: E402

isolate()
RECV, SEND, EXPECT = sys.argv[1:4]
PORT = 23050
RATE, TONE, AMP = 500000, 23456, 0.6
N = 100000
children = []


def expected(seed):
    return subprocess.run([EXPECT, str(RATE), str(TONE), str(AMP), str(seed), '0', 'p12', 'cs16',
                           '0', str(N)], check=True, stdout=subprocess.PIPE).stdout


def send_run(key, seed, extra=()):
    """One keyed run of N samples from the board; returns zcs-send's stderr."""
    p = subprocess.run([SEND, '-s', 'tone', '-f', 'p12', '-r', str(RATE), '--tone', str(TONE),
                        '--amplitude', str(AMP), '--seed', str(seed), '-n', str(N), '--key', key]
                       + list(extra) + [f'127.0.0.1:{PORT}'], capture_output=True, timeout=120)
    if p.returncode != 0:
        raise AssertionError(f'zcs-send failed ({p.returncode}): {p.stderr.decode()}')
    return p.stderr.decode(errors='replace')


def receiver(key, out, extra=()):
    r = Recv(RECV, list(extra) + ['--key', key, '-o', 'file:' + out, f'127.0.0.1:{PORT}'],
             interval=0.1)
    children.append(r.proc)
    return r


def wait_count(r, field, n, timeout=60.0):
    """Waits until zcs-recv's statistics count n of field; True when exactly n."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and r.proc.poll() is None:
        st = r.stats()
        if st and st[-1][field] >= n:
            return st[-1][field] == n
        time.sleep(0.02)
    return False


def copy_key(src, dst):
    """As the docs say: copied keeping its mode 0600 (`scp -p`, or `chmod 600` after)."""
    shutil.copyfile(src, dst)
    os.chmod(dst, 0o600)


def case_documented_change(d, state_dir=False):
    label = ', run state in --state-dir' if state_dir else ''
    c = Checker('the key changed as docs/security.md says' + label)
    tag = '-sd' if state_dir else ''
    board, pc = os.path.join(d, 'board' + tag), os.path.join(d, 'pc' + tag)
    os.makedirs(board)
    os.makedirs(pc)
    extra_send, extra_recv = (), ()
    if state_dir:
        # as a hardened service keeps it: the keys where the program may not write (a
        # read-only /etc), the state in a directory of its own (a StateDirectory)
        board_state, pc_state = os.path.join(d, 'board-state'), os.path.join(d, 'pc-state')
        os.makedirs(board_state)
        os.makedirs(pc_state)
        extra_send, extra_recv = ('--state-dir', board_state), ('--state-dir', pc_state)
    old_key, pc_key = os.path.join(board, 'stream.key'), os.path.join(pc, 'stream.key')
    subprocess.run([SEND, '--gen-key', old_key], check=True, capture_output=True)
    copy_key(old_key, pc_key)
    # the old key in use: three runs followed, the newest (run 3) kept by the receiver
    out = os.path.join(d, 'old' + tag)
    r = receiver(pc_key, out, extra_recv)
    for n, seed in enumerate((1, 2, 3), 1):
        send_run(old_key, seed, extra_send)
        c.true(f'old key: run {n} delivered', wait_count(r, 'samples', n * N))
    r.stop()
    summary = r.finish()
    c.eq('old key: exit status', r.rc, 0)
    c.counters(summary, {'samples': 3 * N, 'lost': 0, 'streams': 3, 'replayed': 0})
    # "To change keys, generate a new one, copy it to the receivers, and restart the sender
    # with it": --gen-key never replaces a file, so the new key has a name of its own on the
    # board; the receiver keeps its key file's name, and is restarted to read the new key
    new_key = os.path.join(board, 'stream-new.key')
    subprocess.run([SEND, '--gen-key', new_key], check=True, capture_output=True)
    stale = os.path.join(d, 'stale' + tag)
    still_old = receiver(pc_key, stale, extra_recv)        # not restarted yet: the old key
    copy_key(new_key, pc_key)
    news = send_run(new_key, 4, extra_send)
    c.true('the new key\'s counter starts afresh: run 1', 'this is run 1' in news)
    still_old.stop()
    summary = still_old.finish()
    c.eq('receiver on the old key: samples', summary['samples'], 0)
    c.true('receiver on the old key: the new key\'s datagrams counted as auth',
           summary.get('invalid_by', {}).get('auth', 0) > 0)
    out = os.path.join(d, 'new' + tag)
    r = receiver(pc_key, out, extra_recv)
    send_run(new_key, 5, extra_send)
    c.true('new key: run 2 delivered', wait_count(r, 'samples', N))
    r.stop()
    summary = r.finish()
    c.eq('new key: exit status', r.rc, 0)
    c.true('the restarted receiver says the record it found was another key\'s',
           'kept for another key' in r.news())
    c.counters(summary, {'samples': N, 'lost': 0, 'invalid': 0, 'streams': 1, 'replayed': 0})
    c.same_bytes('new key: its run whole', read(out), expected(5))
    if state_dir:
        c.eq('--state-dir: the counters are kept there', sorted(os.listdir(board_state)),
             ['stream-new.key.run', 'stream.key.run'])
        c.true('--state-dir: the receiver\'s run state is kept there',
               os.path.exists(os.path.join(pc_state, 'stream.key.seen')))
        c.eq('--state-dir: nothing is written beside the keys',
             sorted(os.listdir(board)) + sorted(f for f in os.listdir(pc)),
             ['stream-new.key', 'stream.key', 'stream.key'])
    if c.failures:
        print(r.news())
    return c


def main():
    d = workdir('security-key-change')
    checks = []
    try:
        checks.append(case_documented_change(d))
        checks.append(case_documented_change(d, state_dir=True))
    finally:
        for p in children:
            if p.poll() is None:
                p.kill()
                p.wait()
    finish_suite(checks)


main()
