# SPDX-License-Identifier: MIT
# Issue 10, part 2: one forged datagram (or a short burst) gets a bounded answer from zcs-recv,
# keyed or not.  A live stream (zcs-genstream, paced at its real rate) reaches zcs-recv through a
# relay that is also the attacker on the LAN: it learns the stream id and the header from the real
# datagrams it forwards (the attacker's model: watch one datagram, then send your own) and injects
# its forgeries from the same address right after a chosen real datagram, so each case knows
# exactly what was forged and when.  Each case asserts the counters (unconfirmed among them) and
# that the file: output is byte-exact: the live stream is neither thrown away, nor cut short, nor
# padded.  The last case is a real outage (no datagram for 10.5 s), zero-filled exactly.
# Ports 22400-22449.  Usage: test_bounds.py ZCS_RECV ZCS_GENSTREAM
import json
import os
import socket
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'recv'))
from recvlib import Checker, Recv, expect_bytes, finish_suite, isolate, read, workdir  # noqa: E402
from seclib import Relay, seq_of, with_u64  # noqa: E402

isolate()

RECV, GEN = sys.argv[1], sys.argv[2]
BASE_PORT = 22400
WORK = workdir('bounds')

# docs/protocol.md: the sample header and the metadata datagram
OFF_TYPE, OFF_STREAM = 3, 4
S_SEQ, S_FIRST, S_FORMAT, S_FLAGS, S_SAMPLES = 8, 16, 24, 25, 26
M_RATE, M_CENTER, M_FORMAT = 40, 48, 66
FLAG_EOS, FLAG_DISCONT = 0x01, 0x04
WIRE_I16 = 3

# 1 MS/s, 100 pairs a datagram: one datagram each 100 us, sent at that pace (a real-time stream)
RATE, SPD, LAST = 1000000, 100, 500
LIVE = ['--rate', str(RATE), '--spd', str(SPD), '--pace-us', '100']
# metadata every 100 datagrams (the protocol asks for at least every 500 ms)
OPS = ['meta'] + [x for a in range(0, LAST, 100) for x in (f'{a}-{a + 99}', 'meta')] + \
      [f'eos:{LAST}']
FULL = [f'0-{(LAST + 1) * SPD - 1}']


def after_seq(n, make):
    """A forger that sends make(dgram, relay) right after real sample datagram n."""
    def forge(kind, d, relay):
        if kind == 'samples' and seq_of(d) == n:
            return [], make(d, relay), False
        return [], [], False
    return forge


def case(idx, name, forge, want, layout=FULL, ops=OPS, gopts=LIVE, first=None, rargs=(),
         same=True):
    c = Checker(name)
    port = BASE_PORT + 2 * idx
    out = os.path.join(WORK, name + '.cs16')
    if os.path.exists(out):
        os.unlink(out)
    r = Recv(RECV, ['-F', 'cs16', '-o', 'file:' + out, '--exit-on-eos', '--eos-timeout', '30']
             + list(rargs) + [f'127.0.0.1:{port}'])
    relay = Relay(port + 1, ('127.0.0.1', port), forge)
    try:
        if first:
            for f in first:
                relay.send(f, True)
        subprocess.run([GEN] + gopts + [f'127.0.0.1:{port + 1}'] + ops, check=True, timeout=120)
        s = r.finish(timeout=60)
    finally:
        relay.close()
        r.stop()
        if r.proc.poll() is None:
            r.proc.kill()
            r.proc.wait()
    c.eq('exit status', r.rc, 0)
    c.eq('ended_by', s.get('ended_by'), 'eos')
    c.counters(s, want)
    got = read(out)
    expected = expect_bytes(GEN, 'p12', 'cs16', layout, gopts)
    if same is True:
        c.same_bytes('output', got, expected)
    else:
        same(c, got, expected)
    if c.failures:
        print(r.news())
    print(f'{name}: forged {relay.forged}, unconfirmed {s.get("unconfirmed")}', flush=True)
    return c


CLEAN = {'lost': 0, 'late': 0, 'gap_samples': 0, 'sample_jumps': 0, 'resyncs': 0, 'eos': 1,
         'samples': (LAST + 1) * SPD, 'delivered': LAST + 1, 'invalid': 0, 'streams': 1}


def want(**kw):
    d = dict(CLEAN)
    d.update(kw)
    return d


checkers = []

# DISCONT with first_sample + 2^32 (17 GB of zeros before): dropped, the real 101 taken
checkers.append(case(0, 'discont_2_32', after_seq(100, lambda d, r: [bytes(
    bytearray(with_u64(with_u64(d, S_SEQ, 101), S_FIRST, 101 * SPD + 2**32))[:S_FLAGS]) +
    bytes([d[S_FLAGS] | FLAG_DISCONT]) + d[S_FLAGS + 1:]]), want(unconfirmed=1)))

# seq + 2^18 with first_sample + lost x 65535 (68 GB of zeros before)
checkers.append(case(1, 'seq_2_18_fill_65535', after_seq(100, lambda d, r: [
    with_u64(with_u64(d, S_SEQ, 100 + 2**18), S_FIRST, 101 * SPD + (2**18 - 1) * 65535)]),
    want(unconfirmed=1)))

# seq + 100000, consistent sample index (made the rest of the stream late before)
checkers.append(case(2, 'seq_plus_100000', after_seq(100, lambda d, r: [
    with_u64(with_u64(d, S_SEQ, 100100), S_FIRST, 100100 * SPD)]), want(unconfirmed=1)))

# a short burst of the same: three consecutive forged datagrams far ahead are still a jump the
# live stream contradicts
checkers.append(case(3, 'burst_far_ahead', after_seq(100, lambda d, r: [
    with_u64(with_u64(d, S_SEQ, 100100 + i), S_FIRST, (100100 + i) * SPD) for i in range(3)]),
    want(unconfirmed=3)))

# a burst that resyncs (beyond 2^18): believed only once the old position fell silent
checkers.append(case(4, 'burst_resync', after_seq(100, lambda d, r: [
    with_u64(with_u64(d, S_SEQ, 2**30 + i), S_FIRST, (2**30 + i) * SPD) for i in range(3)]),
    want(unconfirmed=3)))


# a forged end of stream at seq + 3: its samples are the real ones (the forger held the real 103
# back and sent it first with EOS set), so the output stays exact; the run must not end there
def forged_eos(kind, d, relay):
    if kind != 'samples':
        return [], [], False
    n = seq_of(d)
    if n in (101, 102):
        return [], [], True
    if n == 103:
        return [d[:S_FLAGS] + bytes([d[S_FLAGS] | FLAG_EOS]) + d[S_FLAGS + 1:]], [], False
    return [], [], False


checkers.append(case(5, 'forged_eos_seq_plus_3', forged_eos,
                     want(unconfirmed=1, duplicate=1, reordered=2)))


# the replacement attack: seq + 5 sent 40 times.  Without a key the first arrival is all a
# receiver can keep: one datagram is replaced, once; the other 39 copies and the real one are
# duplicates, and nothing else changes (time stays true)
def replaced_once(c, got, expected):
    c.eq('output length', len(got), len(expected))
    lo, hi = 105 * SPD * 4, 106 * SPD * 4
    c.true('only datagram 105 differs', got[:lo] == expected[:lo] and got[hi:] == expected[hi:])


checkers.append(case(6, 'replace_seq_plus_5_x40', after_seq(100, lambda d, r: [
    with_u64(with_u64(d, S_SEQ, 105), S_FIRST, 105 * SPD)[:32] + bytes(len(d) - 32)] * 40),
    want(unconfirmed=0, duplicate=40), same=replaced_once))


# spoofed metadata: the rate doubled (contradicted by the stream's next metadata), then the
# format flipped (contradicted by the next sample datagram, still p12): neither is announced
def spoof_meta(kind, d, relay):
    if kind == 'samples' and seq_of(d) == 150:
        return [], [with_u64(with_u64(relay.meta, M_RATE, 2 * RATE), M_CENTER, 1)], False
    if kind == 'samples' and seq_of(d) == 250:
        m = bytearray(relay.meta)
        m[M_FORMAT] = WIRE_I16
        return [], [bytes(m)], False
    return [], [], False


# ... and a SigMF recording beside the file: keeps one capture at the real rate (a believed
# change of settings would start a new capture segment)
SIGMF = os.path.join(WORK, 'spoofed_metadata')
for x in ('.sigmf-meta', '.sigmf-data'):
    if os.path.exists(SIGMF + x):
        os.unlink(SIGMF + x)
c = case(7, 'spoofed_metadata', spoof_meta, want(unconfirmed=2, sample_rate=RATE,
                                                  center_freq=433920000),
         rargs=['-o', 'sigmf:' + SIGMF])
with open(SIGMF + '.sigmf-meta') as f:
    sigmf = json.load(f)
c.eq('SigMF captures', len(sigmf.get('captures', [])), 1)
c.eq('SigMF sample rate', sigmf.get('global', {}).get('core:sample_rate'), RATE)
c.eq('SigMF data bytes', os.path.getsize(SIGMF + '.sigmf-data'), (LAST + 1) * SPD * 4)
checkers.append(c)


# sending first: a lone forged sample datagram and a lone metadata datagram of a stream of its
# own, before the real sender starts, do not capture the receiver
def lone(kind_type, stream):
    """A valid datagram of stream `stream`, built by zcs-genstream into a socket of ours."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(('127.0.0.1', 0))
    s.settimeout(10)
    subprocess.run([GEN, '--stream', hex(stream), f'127.0.0.1:{s.getsockname()[1]}', kind_type],
                   check=True, timeout=30)
    d = s.recv(65536)
    s.close()
    return d


checkers.append(case(8, 'send_first', after_seq(-1, None), want(unconfirmed=0, pre_meta=1),
                     first=[lone('0', 0xbad), lone('meta', 0xbad)]))

# the pulled cable: 0.2 s of stream at 100 kS/s, no datagram for 10.5 s, then the stream
# resumes 10 s further on (the sender's clock ran on, ours a little longer): zero-filled exactly
OUT_RATE = 100000
outage = ['--rate', str(OUT_RATE), '--spd', str(SPD), '--pace-us', '1000']
checkers.append(case(9, 'outage_10s_zero_filled', lambda k, d, r: ([], [], False),
                     {'lost': 10000, 'gap_samples': 1000000, 'unconfirmed': 0, 'sample_jumps': 0,
                      'eos': 1, 'samples': 1040100},
                     layout=['0-19999', 'zero:1000000', '1020000-1040099'],
                     ops=['meta', '0-199', 'sleep:10500', 'meta', '10200-10399', 'eos:10400'],
                     gopts=outage))

finish_suite(checkers)
