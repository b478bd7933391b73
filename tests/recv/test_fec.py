# SPDX-License-Identifier: MIT
# Erasure coding end to end: zcs-send --fec 32:4's seeded tone through a relay that drops chosen
# sample and parity datagrams, into zcs-recv, exact to the byte.  Every block that kept 32 of its
# 36 gives the lossless output with no gap; a block that lost more is zero-filled exactly where
# its datagrams were, and the counters (restored, unrecoverable, parity) equal the relay's truth.
# Keyed, the same; forged parity (a wrong tag) is refused and leaves the output exact; and a
# parity datagram with wrong samples but a correct tag (made with the key) rebuilds datagrams that
# fail their own tags: not believed, their places zero-filled exactly, counted rebuilt_refused.
# Ports 21800-21819.
# Usage: test_fec.py ZCS_RECV ZCS_SEND ZCS_TONE_EXPECT
import os
import socket
import struct
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'security'))
from recvlib import Checker, Recv, finish_suite, isolate, read, workdir  # noqa: E402
import zcs_auth_ref  # noqa: E402

isolate()

RECV, SEND, EXPECT = sys.argv[1], sys.argv[2], sys.argv[3]
BASE_PORT = 21800
RATE, TONE, AMP, SEED = 2000000, 123456, 0.7, 5
N = 200000
K, M = 32, 4
SPD = (1472 - 16 - 32) // 3           # p12 at MTU 1500 with --fec: parity must fit too
SPD_KEYED = (1472 - 16 - 24 - 32 - 24) // 3


def expected(first=0, count=N):
    return subprocess.run([EXPECT, str(RATE), str(TONE), str(AMP), str(SEED), '0', 'p12', 'cs16',
                           str(first), str(count)], check=True, stdout=subprocess.PIPE).stdout


class Relay:
    """Forwards UDP from port to port + 1, dropping the sample datagrams whose seq is in
    drop_seq, the parity datagrams whose (block, index) is in drop_par, sending forge(dg)'s
    datagram before each parity datagram forge picks, and replace(dg)'s instead of each one
    replace picks.  Counts what it passed."""

    def __init__(self, port, drop_seq=(), drop_par=(), forge=None, replace=None):
        self.rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        # a burst of the sender's must wait here, not be dropped: the truth is what we drop
        self.rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
        self.rx.bind(('127.0.0.1', port))
        self.rx.settimeout(0.2)
        self.tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.to = ('127.0.0.1', port + 1)
        self.drop_seq, self.drop_par, self.forge = set(drop_seq), set(drop_par), forge
        self.replace = replace
        self.parity = self.dropped = self.forged = self.replaced = 0
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop:
            try:
                d = self.rx.recv(65536)
            except socket.timeout:
                continue
            base = d[3] & 0x7f
            if base == 0 and struct.unpack_from('<Q', d, 8)[0] in self.drop_seq:
                self.dropped += 1
                continue
            if base == 2:
                block, index = struct.unpack_from('<Q', d, 8)[0], d[26]
                if (block, index) in self.drop_par:
                    continue
                if self.forge:
                    f = self.forge(d)
                    if f:
                        self.tx.sendto(f, self.to)
                        self.forged += 1
                if self.replace:
                    f = self.replace(d)
                    if f:
                        d = f
                        self.replaced += 1
                self.parity += 1
            self.tx.sendto(d, self.to)

    def close(self):
        self.stop = True
        self.thread.join(5)
        self.rx.close()
        self.tx.close()


def run_case(name, port, drop_seq, drop_par=(), keyed=None, forge=None, lost=(), replace=None,
             refused=0, replaced=0):
    """lost: the seqs whose samples must come out as zeros (their block lost more than M, or
    its parity was replaced); refused: the rebuilt datagrams that must fail their tags."""
    c = Checker(f'fec {name}')
    d = workdir('fec')
    path = os.path.join(d, f'out.{port}')
    key = ['--key', keyed] if keyed else ['--no-key']
    r = Recv(RECV, ['-F', 'cs16', '-o', 'file:' + path, '--exit-on-eos', *key,
                    f'127.0.0.1:{port + 1}'])
    relay = Relay(port, drop_seq, drop_par, forge, replace)
    subprocess.run([SEND, '-q', '-s', 'tone', '-f', 'p12', '-r', str(RATE), '--tone', str(TONE),
                    '--amplitude', str(AMP), '--seed', str(SEED), '-n', str(N),
                    '--fec', f'{K}:{M}'] + (['--key', keyed] if keyed else []) +
                   [f'127.0.0.1:{port}'], check=True, stdout=subprocess.DEVNULL)
    s = r.finish()
    relay.close()
    spd = SPD_KEYED if keyed else SPD
    want = bytearray(expected())
    gap = 0
    for seq in lost:
        first = seq * spd
        n = min(spd, N - first)
        want[first * 4:(first + n) * 4] = bytes(n * 4)
        gap += n
    blocks_lost = len({seq // K for seq in lost})
    c.eq('exit status', r.rc, 0)
    c.counters(s, {'samples': N, 'gap_samples': gap, 'lost': len(lost), 'invalid': 0 if not forge
                   else relay.forged, 'late': 0, 'socket_drops': 0,
                   'restored': len(set(drop_seq)) - len(lost), 'unrecoverable': blocks_lost,
                   'parity': relay.parity, 'rebuilt_refused': refused})
    c.eq('relay dropped', relay.dropped, len(set(drop_seq)))
    c.eq('relay replaced', relay.replaced, replaced)
    c.same_bytes('output', read(path), bytes(want))
    if c.failures:
        print(r.news())
    os.unlink(path)
    return c


def within_m(spd):
    """Losses within M in every block: the first block, the last (with the end of stream, whose
    seq is the number of sample datagrams), bursts at a block's ends."""
    nd = -(-N // spd)
    within = set()
    for b in range(-(-(nd + 1) // K)):
        base = b * K
        pattern = [(0,), (5, 6), (28, 29, 30, 31), (1, 2, 3), (17,), ()][b % 6]
        within |= {base + j for j in pattern if base + j < nd}
    within.add(nd)
    return within


def main():
    checks = []
    within = within_m(SPD)
    # parity lost as well where the block can spare it
    par = {(K * 1, 0), (K * 4, 3)}    # blocks 1 and 4 lose parity: their losses still fit
    checks.append(run_case('within M', BASE_PORT, within, par))
    # beyond M: block 2 loses 5, block 3 loses 3 sample datagrams and 2 parity (3 > 2 left)
    beyond = {2 * K + j for j in (0, 7, 8, 9, 20)} | {3 * K + j for j in (4, 5, 6)} | {K + 3}
    par = {(3 * K, 0), (3 * K, 1)}
    lost = sorted({2 * K + j for j in (0, 7, 8, 9, 20)} | {3 * K + j for j in (4, 5, 6)})
    checks.append(run_case('beyond M', BASE_PORT + 2, beyond, par, lost=lost))
    # keyed, with forged parity before every real one: same index, a tag that cannot verify
    kd = workdir('fec-key')
    keyfile = os.path.join(kd, 'key')
    subprocess.run([SEND, '--gen-key', keyfile], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)

    def forge(dg):
        f = bytearray(dg)
        for i in range(32, len(f) - 24):
            f[i] ^= 0x5a
        return bytes(f)
    checks.append(run_case('keyed, forged parity', BASE_PORT + 4, within_m(SPD_KEYED), (),
                           keyed=keyfile,
                           forge=forge))
    # keyed, parity 0 of blocks 1 and 6 replaced by one with other samples and a correct tag
    # (made with the key, as only a holder of it can): the block's rebuilt datagrams parse, fail
    # their own tags and are refused, once a block; the block is then rebuilt from its other
    # parity, so those blocks' losses (5, 6 and 192) are restored too (before, zero-filled)
    key = zcs_auth_ref.load_key(keyfile)
    wrong_blocks = {K * 1, K * 6}
    ref_failed = []

    def replace(dg):
        # zcs-send's parity verifies with the reference written from docs/protocol.md
        if not zcs_auth_ref.verify(key, dg):
            ref_failed.append(dg)
        if struct.unpack_from('<Q', dg, 8)[0] not in wrong_blocks or dg[26] != 0:
            return None
        f = bytearray(dg)
        # the shards' samples only: parity header 32, shard offset 16; not the sample
        # datagrams' trailer (its last 24) nor the parity's own (24)
        for i in range(32 + 16, len(f) - 24 - 24):
            f[i] ^= 0x5a
        f[-16:] = zcs_auth_ref.tag(key, zcs_auth_ref.nonce_of(bytes(f)), bytes(f[:-16]))
        return bytes(f)
    within = within_m(SPD_KEYED)
    checks.append(run_case('keyed, tagged parity with wrong samples', BASE_PORT + 6, within, (),
                           keyed=keyfile, replace=replace, refused=len(wrong_blocks),
                           replaced=len(wrong_blocks)))
    c = Checker('fec parity tags')
    c.eq('parity datagrams failing zcs_auth_ref.verify', len(ref_failed), 0)
    checks.append(c)
    finish_suite(checks)


if __name__ == '__main__':
    main()
