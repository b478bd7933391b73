# SPDX-License-Identifier: MIT
# A stream's start, with the real programs: zcs-send's seeded tone (2 MS/s p12, exactly N samples,
# then its end of stream) into zcs-recv over loopback through a relay that loses, holds back or
# forges datagrams at the start.  Whatever happens there, the output holds exactly the sender's
# N samples, every pair the tone's own at its place or zero, and the zeros exactly gap_samples:
# - sender_repeats_meta: zcs-send sends its metadata again within its first sample datagrams
#   (docs/protocol.md, "When metadata is sent"), not only 400 ms later;
# - first_meta_lost: the run's first metadata datagram is lost: nothing else is (the datagrams
#   before the next one are kept and delivered, not zero-filled and counted lost);
# - meta_at_400ms: the metadata comes only 400 ms after the first sample datagram, as from a
#   sender that does not repeat it at the start: the receiver keeps the 1,638 datagrams before it
#   and delivers them;
# - forged_start_*: a copy of the first sample datagram renumbered seq + 100,000 (or + 2^63, or
#   three of them in a row) arrives 2 ms before the real one: it does not become the start;
# - mtu_16000: zcs-send --mtu 16000 (15,971-byte datagrams) is taken with zcs-recv's defaults;
#   mtu_16000_no_gro the same without UDP GRO (one datagram per batch slot).
# Ports 21600-21629.  Usage: test_start.py ZCS_RECV ZCS_SEND ZCS_TONE_EXPECT
import os
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recvlib import Checker, Recv, finish_suite, isolate, read, workdir  # noqa: E402

isolate()

RECV, SEND, EXPECT = sys.argv[1], sys.argv[2], sys.argv[3]
BASE_PORT = 21600
WORK = workdir('start')
RATE, TONE, AMP, SEED = 2000000, 123456, 0.7, 5
N = 2_000_000             # 1 s of stream
OFF_TYPE, OFF_SEQ, OFF_NEXT_SEQ = 3, 8, 16
LATE_META_AT = 1638


def kind_of(d):
    return 'meta' if len(d) > OFF_TYPE and d[OFF_TYPE] & 0x7f == 1 else 'samples'


def seq_of(d):
    return struct.unpack_from('<Q', d, OFF_SEQ)[0]


def renumbered(d, seq):
    b = bytearray(d)
    struct.pack_into('<Q', b, OFF_SEQ, seq % 2**64)
    return bytes(b)


class Relay:
    """The network between zcs-send and zcs-recv.  decide(kind, dgram, relay) returns the
    datagrams to send in its place (the datagram itself, nothing, or forgeries around it); it
    may sleep.  Every datagram's kind is recorded in arrival order."""

    def __init__(self, port, dest, decide):
        self.rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
        self.rx.bind(('127.0.0.1', port))
        self.rx.settimeout(0.2)
        self.tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.tx.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16 << 20)
        self.dest, self.decide, self.stop = dest, decide, False
        self.kinds, self.samples_seen, self.meta_seen, self.forged = [], 0, 0, 0
        self.first_meta = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while True:
            try:
                d = self.rx.recv(65536)
            except socket.timeout:
                if self.stop:
                    break
                continue
            kind = kind_of(d)
            self.kinds.append(kind)
            out = self.decide(kind, d, self)
            if kind == 'meta':
                self.meta_seen += 1
            else:
                self.samples_seen += 1
            for x in out:
                self.tx.sendto(x, self.dest)

    def close(self):
        self.stop = True
        self.thread.join(10)
        self.rx.close()
        self.tx.close()


def expected():
    return subprocess.run([EXPECT, str(RATE), str(TONE), str(AMP), str(SEED), '0', 'p12', 'cs16',
                           '0', str(N)], check=True, stdout=subprocess.PIPE).stdout


def run(idx, name, decide, send_extra=(), recv_extra=()):
    port = BASE_PORT + 2 * idx
    out = os.path.join(WORK, name + '.cs16')
    if os.path.exists(out):
        os.unlink(out)
    r = Recv(RECV, ['-F', 'cs16', '-o', 'file:' + out, '--exit-on-eos', '--eos-timeout', '30',
                    *recv_extra, f'127.0.0.1:{port}'])
    relay = Relay(port + 1, ('127.0.0.1', port), decide)
    try:
        subprocess.run([SEND, '-q', '-s', 'tone', '-f', 'p12', '-r', str(RATE), '--tone', str(TONE),
                        '--amplitude', str(AMP), '--seed', str(SEED), '-n', str(N),
                        '--send-path', 'plain', '--cpus', 'none', *send_extra,
                        f'127.0.0.1:{port + 1}'],
                       check=True, timeout=60, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        s = r.finish(timeout=60)
    finally:
        relay.close()
        r.stop()
        if r.proc.poll() is None:
            r.proc.kill()
            r.proc.wait()
    return r, s, read(out), relay


def check_exact(c, r, s, got, want, zeros_most=0):
    """N pairs, each the tone's own at its place or zero, the zeros counted, at most zeros_most."""
    n = min(len(got), len(want)) // 4
    zeros = misplaced = 0
    zero = bytes(4)
    for i in range(0, 4 * n, 4):
        p = got[i:i + 4]
        if p == zero:
            zeros += 1
        elif p != want[i:i + 4]:
            misplaced += 1
    c.eq('exit status', r.rc, 0)
    c.eq('ended_by', s.get('ended_by'), 'eos')
    c.eq('output pairs', len(got) // 4, N)
    c.eq('samples', s.get('samples'), N)
    c.eq('pairs not in place', misplaced, 0)
    c.eq('zero pairs = gap_samples', zeros, s.get('gap_samples'))
    c.true(f'zero pairs {zeros} <= {zeros_most}', zeros <= zeros_most)
    c.eq('invalid', s.get('invalid'), 0)
    c.eq('sample_jumps', s.get('sample_jumps'), 0)
    c.eq('resyncs', s.get('resyncs'), 0)
    c.eq('late_joins', s.get('late_joins'), 0)


def passthrough(kind, d, relay):
    return [d]


def drop_first_meta(kind, d, relay):
    return [] if kind == 'meta' and relay.meta_seen == 0 else [d]


def meta_at_400ms(kind, d, relay):
    """A sender of 5b5b638, whose first metadata is lost: the next comes 400 ms later, before
    sample datagram 1,638 (the issue's figure).  Every metadata datagram before it is lost, and
    the relay sends the first again there, saying 1,638 is next."""
    if kind == 'meta' and relay.samples_seen < LATE_META_AT:
        if relay.first_meta is None:
            relay.first_meta = d
        return []
    if kind == 'samples' and relay.samples_seen == LATE_META_AT:
        return [with_next_seq(relay.first_meta, LATE_META_AT), d]
    return [d]


def with_next_seq(meta, seq):
    b = bytearray(meta)
    struct.pack_into('<Q', b, OFF_NEXT_SEQ, seq)
    return bytes(b)


def forge_first(offsets):
    """Before the first sample datagram, copies of it renumbered seq + each offset, then 2 ms."""
    def decide(kind, d, relay):
        if kind != 'samples' or relay.samples_seen:
            return [d]
        for off in offsets:
            relay.tx.sendto(renumbered(d, seq_of(d) + off), relay.dest)
            relay.forged += 1
        time.sleep(0.002)
        return [d]
    return decide


def main():
    want = expected()
    checks = []

    c = Checker('sender_repeats_meta')
    r, s, got, relay = run(0, 'clean', passthrough)
    check_exact(c, r, s, got, want)
    first = relay.kinds.index('samples')
    upto = [i for i, k in enumerate(relay.kinds) if k == 'samples'][99]
    metas = relay.kinds[first:upto].count('meta')
    c.true(f'metadata datagrams among the first 100 sample datagrams: {metas}, want >= 2',
           metas >= 2)
    checks.append(c)

    for i, (name, decide, most) in enumerate([
            ('first_meta_lost', drop_first_meta, 0),
            ('meta_at_400ms', meta_at_400ms, 0),
            ('forged_start_plus_100000', forge_first([100000]), 0),
            ('forged_start_plus_2_63', forge_first([2**63]), 0),
            ('forged_start_run_of_3', forge_first([100000, 100001, 100002]), 0)]):
        c = Checker(name)
        r, s, got, relay = run(i + 1, name, decide)
        check_exact(c, r, s, got, want, most)
        c.eq('lost', s.get('lost'), 0)
        c.eq('pre_meta', s.get('pre_meta'), 0)
        if relay.forged:
            c.true(f'unconfirmed {s.get("unconfirmed")} >= forged {relay.forged}',
                   s.get('unconfirmed', 0) >= relay.forged)
        if c.failures:
            print(r.news())
        print(f'{name}: lost {s.get("lost")}, gap_samples {s.get("gap_samples")}, pre_meta '
              f'{s.get("pre_meta")}, unconfirmed {s.get("unconfirmed")}', flush=True)
        checks.append(c)

    for i, (name, recv_extra) in enumerate([('mtu_16000', ()), ('mtu_16000_no_gro', ('--no-gro',))]):
        c = Checker(name)
        r, s, got, relay = run(8 + i, name, passthrough, ('--mtu', '16000'), recv_extra)
        check_exact(c, r, s, got, want)
        c.eq('lost', s.get('lost'), 0)
        if c.failures:
            print(r.news())
        checks.append(c)
    finish_suite(checks)


main()
