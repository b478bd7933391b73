# SPDX-License-Identifier: MIT
# Issue 22 part 1, exact time under any datagram, with the real programs: zcs-send (tone, 2 MS/s
# p12, exactly N samples, then its end of stream) into zcs-recv over loopback, through a relay that
# is also the forger and injects one datagram after a chosen real one: a copy of it numbered
# seq - 2^20, or an end of stream with no samples numbered seq + 3 (the two measured attacks that
# silently removed ~110 ms of the stream on 916cc15).  Each case asserts that the output holds
# exactly the sender's N samples, that every pair is the clean run's own at the same place or
# zero, and that the zeros are exactly gap_samples (at most the one datagram the forgery
# displaced).  Ports 22460-22469.  Usage: test_exact_time.py ZCS_RECV ZCS_SEND
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'recv'))
from recvlib import Checker, Recv, finish_suite, isolate, read, workdir  # noqa: E402
from seclib import Relay, seq_of, with_u64  # noqa: E402

isolate()

RECV, SEND = sys.argv[1], sys.argv[2]
BASE_PORT = 22460
WORK = workdir('exact')
N = 2_000_000             # samples sent: 1 s at 2 MS/s
SPD = 480                 # p12 pairs in a datagram at MTU 1500
AT = 1000                 # the real datagram after which the forgery goes
S_SEQ, S_FIRST, S_FLAGS, S_SAMPLES, S_PAYLOAD_LEN = 8, 16, 25, 26, 28
FLAG_EOS = 0x01


def forge_after(make):
    def forge(kind, d, relay):
        if kind == 'samples' and seq_of(d) == AT:
            return [], [make(d)], False
        return [], [], False
    return forge


def far_behind(d):
    """The datagram itself, numbered 2^20 back (its sample index left as it was)."""
    return with_u64(d, S_SEQ, AT - 2**20)


def eos_ahead(d):
    """A header alone: number seq + 3, its sample index where that datagram's would be, no
    samples, end of stream."""
    b = bytearray(with_u64(with_u64(d[:32], S_SEQ, AT + 3), S_FIRST, (AT + 3) * SPD))
    b[S_FLAGS] |= FLAG_EOS
    struct.pack_into('<HH', b, S_SAMPLES, 0, 0)
    return bytes(b)


def run(idx, name, forge):
    port = BASE_PORT + 2 * idx
    out = os.path.join(WORK, name + '.cs16')
    if os.path.exists(out):
        os.unlink(out)
    r = Recv(RECV, ['-F', 'cs16', '-o', 'file:' + out, '--exit-on-eos', '--eos-timeout', '30',
                    f'127.0.0.1:{port}'])
    relay = Relay(port + 1, ('127.0.0.1', port), forge)
    try:
        subprocess.run([SEND, '-s', 'tone', '-r', '2M', '-f', 'p12', '-n', str(N), '-q',
                        '--send-path', 'plain', '--cpus', 'none', f'127.0.0.1:{port + 1}'],
                       check=True, timeout=60, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        s = r.finish(timeout=60)
    finally:
        relay.close()
        r.stop()
        if r.proc.poll() is None:
            r.proc.kill()
            r.proc.wait()
    return r, s, read(out), relay.forged


def pairs(b):
    return [b[i:i + 4] for i in range(0, len(b), 4)]


checkers = []
c = Checker('clean')
r, s, clean, _ = run(0, 'clean', lambda k, d, relay: ([], [], False))
c.eq('exit status', r.rc, 0)
c.eq('samples', s.get('samples'), N)
c.eq('output pairs', len(clean) // 4, N)
c.eq('gap_samples', s.get('gap_samples'), 0)
checkers.append(c)
clean_pairs = pairs(clean)

for i, (name, make, most) in enumerate([('seq_minus_2_20', far_behind, 0),
                                        ('eos_seq_plus_3', eos_ahead, SPD)]):
    c = Checker(name)
    r, s, got, forged = run(i + 1, name, forge_after(make))
    zero = bytes(4)
    got_pairs = pairs(got)
    zeros = sum(1 for p in got_pairs if p == zero)
    misplaced = sum(1 for p, q in zip(got_pairs, clean_pairs) if p != q and p != zero)
    c.eq('forged', forged, 1)
    c.eq('exit status', r.rc, 0)
    c.eq('ended_by', s.get('ended_by'), 'eos')
    c.eq('output pairs', len(got_pairs), N)
    c.eq('samples', s.get('samples'), N)
    c.eq('rx_samples + gap_samples', s.get('rx_samples', 0) + s.get('gap_samples', 0), N)
    c.eq('pairs not in place', misplaced, 0)
    c.eq('zero pairs = gap_samples', zeros, s.get('gap_samples'))
    c.true(f'zero pairs {zeros} <= {most}', zeros <= most)
    c.eq('sample_jumps', s.get('sample_jumps'), 0)
    c.eq('resyncs', s.get('resyncs'), 0)
    c.eq('eos', s.get('eos'), 1)
    if c.failures:
        print(r.news())
    print(f'{name}: unconfirmed {s.get("unconfirmed")}, gap_samples {s.get("gap_samples")}, '
          f'duplicate {s.get("duplicate")}', flush=True)
    checkers.append(c)

finish_suite(checkers)
