# SPDX-License-Identifier: MIT
# Keyed streams (issue 10, part 1): zcs-send --key and zcs-recv --key over loopback, exact to the
# byte, against an attacker on the path without the key: forged datagrams of every type, a wrong
# key, no key on either side, a replay of an earlier keyed run while the live one flows, and key
# files others may read.  A Python relay forwards the live sender to zcs-recv and slips the
# attacker's datagrams in after given datagrams, so every case knows exactly what it sent.
# Ports 25800-25899 (in a network namespace of its own).
# Usage: test_keyed.py ZCS_RECV ZCS_SEND ZCS_TONE_EXPECT
import json
import os
import socket
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'recv'))
from recvlib import Checker, Recv, finish_suite, isolate, read, workdir  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zcs_auth_ref  # noqa: E402

isolate()

RECV, SEND, EXPECT = sys.argv[1], sys.argv[2], sys.argv[3]
BASE_PORT = 25800
RATE, TONE, AMP = 500000, 23456, 0.6
N = 200000
AUTH_BIT = 0x80
children = []


def expected(seed, fmt='p12', out_type='cs16', count=N):
    return subprocess.run([EXPECT, str(RATE), str(TONE), str(AMP), str(seed), '0', fmt, out_type,
                           '0', str(count)], check=True, stdout=subprocess.PIPE).stdout


def sender(port, key=None, seed=1, extra=()):
    args = [SEND, '-q', '--json', '-s', 'tone', '-f', 'p12', '-r', str(RATE), '--tone', str(TONE),
            '--amplitude', str(AMP), '--seed', str(seed), '-n', str(N)]
    if key:
        args += ['--key', key]
    p = subprocess.Popen(args + list(extra) + [f'127.0.0.1:{port}'], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    children.append(p)
    return p


def sender_summary(p):
    _, err = p.communicate(timeout=120)
    text = err.decode(errors='replace')
    if p.returncode != 0:
        raise AssertionError(f'zcs-send failed ({p.returncode}): {text}')
    # --json lines go to standard error, among the news
    return [json.loads(line) for line in text.splitlines()
            if line.startswith('{') and '"summary"' in line][-1]


def recv(port, key=None, path=None, extra=(), interval=0):
    args = list(extra)
    if key:
        args += ['--key', key]
    if path:
        args += ['-o', 'file:' + path]
    r = Recv(RECV, args + [f'127.0.0.1:{port}'], interval=interval)
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
    """Forwards every datagram on sock to dst until the end of stream; after the k-th (from 0)
    datagram d it also sends what inject(k, d) returns.  Returns the forwarded datagrams."""
    out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    got = []
    while True:
        d = sock.recv(65536)
        out.sendto(d, dst)
        for extra in inject(len(got), d):
            out.sendto(extra, dst)
        got.append(d)
        if is_eos(d):
            return got


def capture(sock):
    got = []
    while True:
        d = sock.recv(65536)
        got.append(d)
        if is_eos(d):
            return got


def key_file(d, name, mode=0o600):
    path = os.path.join(d, name)
    if os.path.exists(path):
        os.unlink(path)
    subprocess.run([SEND, '--gen-key', path], check=True, stderr=subprocess.DEVNULL)
    os.chmod(path, mode)
    return path


def split(dgrams):
    meta = [d for d in dgrams if d[3] & 0x7f == 1]
    samples = [d for d in dgrams if d[3] & 0x7f == 0]
    return meta, samples


def forged(meta, sample):
    """What an attacker who saw one keyed metadata and one keyed sample datagram can send."""
    stream, seq, first = struct.unpack_from('<IQQ', sample, 4)
    salt = sample[-24:-16]
    junk = bytes(range(16))
    trailer = salt + junk

    def samples(type_, seq, first_, flags, n, payload=b'', keyed=True):
        body = struct.pack('<2sBBIQQBBHHH', b'ZS', 1, type_, stream, seq, first_, 2, flags, n,
                           len(payload), 0) + payload
        return body + trailer if keyed else body
    pay = bytes(480 * 3)
    flipped = bytearray(sample)
    flipped[40] ^= 0x01
    meta_rate = bytearray(meta)
    struct.pack_into('<Q', meta_rate, 40, 2 * RATE)
    meta_plain = bytes(meta[:128])
    meta_plain = meta_plain[:3] + b'\x01' + meta_plain[4:40] + struct.pack('<Q', 3 * RATE) + meta_plain[48:]
    return [
        samples(AUTH_BIT, seq + 5, first + 5 * 480, 0, 480, pay),          # replace a datagram
        bytes(flipped),                                                    # an authentic one, one bit off
        samples(AUTH_BIT, seq + 3, first + 3 * 480, 1, 0),                 # end of stream early
        samples(AUTH_BIT, seq + 1, first + 2**32, 4, 480, pay),            # DISCONT jump
        bytes(meta_rate),                                                  # keyed metadata, new rate
        samples(0, seq + 5, first + 5 * 480, 0, 480, pay, keyed=False),    # unkeyed samples
        samples(0, seq + 3, first + 3 * 480, 1, 0, keyed=False),           # unkeyed end of stream
        meta_plain,                                                        # unkeyed metadata
        bytes(sample[:40]),                                                # truncated keyed
    ]


def case_exact(port, d, key, extra=(), name='keyed p12 exact'):
    c = Checker(name)
    path = os.path.join(d, f'exact.{port}')
    r = recv(port, key, path, ['--exit-on-eos'])
    s = sender_summary(sender(port, key, seed=3, extra=extra))
    summary = r.finish()
    c.eq('exit status', r.rc, 0)
    c.counters(summary, {'samples': N, 'lost': 0, 'invalid': 0, 'eos': 1, 'streams': 1,
                         'replayed': 0, 'meta': s['meta_sent']})
    c.same_bytes('output', read(path), expected(3))
    c.true('keyed datagrams carry fewer samples (trailer within the MTU)',
           s['samples_per_dgram'] == (1472 - 32 - 24) // 3)
    if c.failures:
        print(r.news())
    return c


def case_forged(port, d, key):
    c = Checker('forged datagrams without the key')
    path = os.path.join(d, f'forged.{port}')
    r = recv(port, key, path, ['--exit-on-eos'])
    sock = udp_socket(port + 50)
    snd = sender(port + 50, key, seed=4)
    seen = {}
    sent = []

    def inject(k, dg):
        seen.setdefault(dg[3] & 0x7f, dg)
        if k == 12 and 0 in seen and 1 in seen:
            sent.extend(forged(seen[1], seen[0]))
            return sent
        return ()
    got = relay(sock, ('127.0.0.1', port), inject)
    sock.close()
    sender_summary(snd)
    summary = r.finish()
    meta, samples = split(got)
    c.eq('exit status', r.rc, 0)
    c.counters(summary, {'samples': N, 'lost': 0, 'late': 0, 'duplicate': 0, 'gap_samples': 0,
                         'invalid': 9, 'invalid_by.auth': 9, 'eos': 1, 'streams': 1,
                         'restarts': 0, 'sample_datagrams': len(samples), 'meta': len(meta),
                         'sample_rate': RATE})
    c.same_bytes('output', read(path), expected(4))
    # the document's construction, implemented apart from common/wire/auth.c, agrees on every datagram
    kb = zcs_auth_ref.load_key(key)
    c.true('every datagram of zcs-send verifies with the reference of docs/protocol.md',
           all(zcs_auth_ref.verify(kb, g) for g in got))
    c.true('no forged one does', sent and not any(zcs_auth_ref.verify(kb, f) for f in sent))
    c.true('nor under another key', not zcs_auth_ref.verify(bytes(32), got[0]))
    c.eq('said once: another key or forged', r.news().count('under another key (or forged)'), 1)
    c.eq('said once: not keyed', r.news().count('is not keyed'), 1)
    if c.failures:
        print(r.news())
    return c


def case_mismatch(port, d, recv_key, send_key, name, said):
    """zcs-recv never follows the stream: every datagram counts as auth, news said once."""
    c = Checker(name)
    r = recv(port, recv_key, None, [], interval=0.2)
    s = sender_summary(sender(port, send_key, seed=5))
    total = s['datagrams'] + s['meta_sent'] + 1
    c.true(f'zcs-recv read all {total} datagrams', r.wait_datagrams(total))
    r.stop()
    summary = r.finish()
    c.counters(summary, {'samples': 0, 'datagrams': total, 'invalid': total,
                         'invalid_by.auth': total, 'streams': 0, 'stream': None})
    c.eq(f'said once: {said}', r.news().count(said), 1)
    if c.failures:
        print(r.news())
    return c


def case_unverified(port, d, key):
    c = Checker('keyed stream, unkeyed receiver')
    path = os.path.join(d, f'unverified.{port}')
    r = recv(port, None, path, ['--exit-on-eos'])
    sender_summary(sender(port, key, seed=6))
    summary = r.finish()
    c.eq('exit status', r.rc, 0)
    c.counters(summary, {'samples': N, 'lost': 0, 'invalid': 0, 'eos': 1})
    c.same_bytes('output', read(path), expected(6))
    c.eq('said once: cannot verify', r.news().count('cannot verify it'), 1)
    if c.failures:
        print(r.news())
    return c


def case_replay(port, d, key):
    c = Checker('replay of an earlier keyed run while the live one flows')
    # the earlier run, captured whole by the attacker
    sock = udp_socket(port + 50)
    old = capture_run(sock, port + 50, key)
    old_meta, old_samples = split(old)
    path = os.path.join(d, f'replay.{port}')
    r = recv(port, key, path, ['--exit-on-eos'])
    snd = sender(port + 50, key, seed=8)
    queue = list(old)
    first_meta = []

    def inject(k, dg):
        if dg[3] & 0x7f == 1 and not first_meta:
            first_meta.append(dg)
        extra = []
        if k >= 10 and queue:     # two of the old run after each live datagram
            extra += [queue.pop(0) for _ in range(min(2, len(queue)))]
        if k == 40 and first_meta: # and the live run's own first metadata again
            extra.append(first_meta[0])
        return extra
    got = relay(sock, ('127.0.0.1', port), inject)
    sock.close()
    sender_summary(snd)
    summary = r.finish()
    meta, samples = split(got)
    c.eq('exit status', r.rc, 0)
    c.true('the whole old run was replayed during the live one', not queue)
    c.counters(summary, {'samples': N, 'lost': 0, 'invalid': 0, 'eos': 1, 'streams': 1,
                         'restarts': 0, 'foreign': len(old_samples),
                         'replayed': len(old_meta) + 1, 'meta': len(meta)})
    c.same_bytes('output (the live stream only)', read(path), expected(8))
    c.eq('said once: replay', r.news().count('refused as a replay'), 1)
    if c.failures:
        print(r.news())
    return c


def capture_run(sock, port, key):
    p = sender(port, key, seed=7)
    got = capture(sock)
    sender_summary(p)
    return got


def case_modes(d):
    c = Checker('key file readable by others is refused')
    loose = key_file(d, 'loose.key', 0o644)
    for prog, args in ((SEND, ['-s', 'tone', '-n', '1000', '127.0.0.1:25899']),
                       (RECV, ['127.0.0.1:25899'])):
        p = subprocess.run([prog, '--key', loose] + args, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=30)
        err = p.stderr.decode(errors='replace')
        c.eq(f'{os.path.basename(prog)} exit status', p.returncode, 2)
        c.true(f'{os.path.basename(prog)} says why: {err.strip()}', 'chmod 600' in err)
    good = key_file(d, 'good.key')
    st = os.stat(good)
    c.eq('--gen-key mode', st.st_mode & 0o777, 0o600)
    with open(good) as f:
        text = f.read()
    c.true('--gen-key writes 64 hex digits and a newline',
           len(text) == 65 and all(ch in '0123456789abcdef' for ch in text[:64]))
    p = subprocess.run([SEND, '--gen-key', good], stderr=subprocess.PIPE)
    c.eq('--gen-key never replaces a file', p.returncode, 1)
    with open(good) as f:
        c.eq('the old key is kept', f.read(), text)
    return c


def main():
    d = workdir('security-keyed')
    k1 = key_file(d, 'k1.key')
    k2 = key_file(d, 'k2.key')
    checks = []
    try:
        checks.append(case_exact(BASE_PORT, d, k1))
        checks.append(case_exact(BASE_PORT + 1, d, k1, ('--zstd',), 'keyed p12 zstd exact'))
        checks.append(case_exact(BASE_PORT + 2, d, k1, ('--send-path', 'plain'),
                                 'keyed p12 plain path exact'))
        checks.append(case_forged(BASE_PORT + 3, d, k1))
        checks.append(case_mismatch(BASE_PORT + 4, d, k1, k2, 'wrong key',
                                    'under another key (or forged)'))
        checks.append(case_mismatch(BASE_PORT + 5, d, k1, None, 'unkeyed sender, keyed receiver',
                                    'is not keyed'))
        checks.append(case_unverified(BASE_PORT + 6, d, k1))
        checks.append(case_replay(BASE_PORT + 7, d, k1))
        checks.append(case_modes(d))
    finally:
        for p in children:
            if p.poll() is None:
                p.kill()
                p.wait()
    finish_suite(checks)


if __name__ == '__main__':
    main()
