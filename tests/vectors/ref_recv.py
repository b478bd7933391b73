# SPDX-License-Identifier: MIT
"""A second receiver of the zcs protocol, written from docs/protocol.md alone (its normative
sections and *Receiver parameters*), in Python with the standard library only (zstd through
ctypes from the system's libzstd; the keyed tag from tests/security/zcs_auth_ref.py, itself
written from the document).  It shares no code with zcs-recv: that both give the same output
and counters on every conformance vector is the test that the document is the protocol.

    ref_recv.py VECTOR.zcsv [--key KEYFILE] --out FILE.cs16

Writes the samples as cs16 (I, Q as int16 little-endian, the 12-bit value times 16) and prints
{"pairs": N, "counters": {...}} (docs/protocol.md, *Conformance vectors*)."""
import argparse
import ctypes
import ctypes.util
import json
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'security'))
import zcs_auth_ref  # noqa: E402

M64 = (1 << 64) - 1
NS = 10**9

# --- Receiver parameters (docs/protocol.md) ---
WINDOW_SPAN_NS = 5 * 10**6      # the window spans 5 ms of the stream ...
WINDOW_MIN = 64                 # ... at least 64 datagrams ...
WINDOW_MAX = 1024               # ... at most 1024, a power of two
FEC_BLOCKS = 4                  # ... and at least 4 blocks with their parity
HISTORY = 65536                 # numbers remembered behind the window
RESYNC = 1 << 18                # beyond this behind or ahead: a resync
HOLD_MIN_NS = 100 * 10**6       # hold and quiet: max(8 datagrams, 100 ms)
SILENCE_NS = 1500 * 10**6       # a stream silent this long has gone
META_CONFIRM_NS = 500 * 10**6   # unkeyed change of settings: believed after 500 ms
GAP_TOL = 1.010                 # zero fill: rate x dt x 1.01 + slack
LINE_TOL = 1.001                # ... or the line: rate x (now - start) x 1.001 + slack
MAX_SOURCE_GAP = 1 << 32
START_STORE = 4 << 20           # *The stream's start*: bytes kept before the start ...
START_RUNS = 4                  # ... in at most 4 runs ...
RUN_SPAN = 1024                 # ... each continuing over at most 1024 numbers
MAJORITY_MIN = 8
PAIR = {1: 2, 2: 3, 3: 4}

REASONS = {1: 'truncated', 2: 'bad_magic', 3: 'bad_version', 4: 'bad_type', 5: 'bad_format',
           6: 'bad_length', 7: 'bad_count', 8: 'reserved', 9: 'bad_meta', 10: 'decompress',
           11: 'auth'}


def diff(a, b):
    """(int64)(a - b): serial arithmetic."""
    d = (a - b) & M64
    return d - (1 << 64) if d >> 63 else d


def after(a, b):
    return diff(a, b) > 0


def before(a, b):
    return diff(a, b) < 0


class Reject(Exception):
    def __init__(self, code):
        Exception.__init__(self, REASONS[code])
        self.code = code


_zstd = None


def zstd_decode(frame, raw):
    """The frame decoded to exactly raw bytes, or None."""
    global _zstd
    if _zstd is None:
        _zstd = ctypes.CDLL(ctypes.util.find_library('zstd') or 'libzstd.so.1')
        _zstd.ZSTD_decompress.restype = ctypes.c_size_t
        _zstd.ZSTD_decompress.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                          ctypes.c_size_t]
        _zstd.ZSTD_isError.argtypes = [ctypes.c_size_t]
    buf = ctypes.create_string_buffer(raw + 1)
    n = _zstd.ZSTD_decompress(buf, raw + 1, frame, len(frame))
    if _zstd.ZSTD_isError(n) or n != raw:
        return None
    return buf.raw[:raw]


def text(field):
    """*Strings*: a NUL within the field (bad_meta), only zeros after it (reserved), UTF-8
    without control characters (bad_meta)."""
    i = field.find(b'\0')
    if i < 0:
        raise Reject(9)
    if any(field[i:]):
        raise Reject(8)
    try:
        s = field[:i].decode('utf-8')     # strict: shortest form, no surrogates
    except UnicodeDecodeError:
        raise Reject(9)
    if any(ord(ch) < 0x20 or 0x7f <= ord(ch) <= 0x9f for ch in s):
        raise Reject(9)
    return s


class Dgram:
    pass


def parse(d):
    """*Receiver checks*, steps 1-12, for a receiver without a key or after step 0."""
    if len(d) < 2:
        raise Reject(1)
    if d[0:2] != b'ZS':
        raise Reject(2)
    if len(d) < 3:
        raise Reject(1)
    if d[2] != 1:
        raise Reject(3)
    if len(d) < 4:
        raise Reject(1)
    t = d[3]
    if t not in (0, 1, 2, 128, 129, 130):
        raise Reject(4)
    g = Dgram()
    g.keyed = bool(t & 0x80)
    g.salt = None
    base = t & 0x7f
    if g.keyed:
        trailer = 48 if base == 1 else 24
        if len(d) < trailer + 4:
            raise Reject(1)
        g.salt = d[len(d) - 24:len(d) - 16]
        if base == 1:
            g.run_start, g.meta_seq, g.run = struct.unpack_from('<QQQ', d, 128)
        d = d[:len(d) - trailer]
    g.kind = base
    g.stream_id = struct.unpack_from('<I', d, 4)[0] if len(d) >= 8 else None
    if base == 0:
        if len(d) < 32:
            raise Reject(1)
        seq, first, fmt, flags, n, plen, res = struct.unpack_from('<QQBBHHH', d, 8)
        if flags & 0xf8 or res:
            raise Reject(8)
        if fmt not in PAIR:
            raise Reject(5)
        if len(d) != 32 + plen:
            raise Reject(6)
        raw = n * PAIR[fmt]
        if raw > 65475 or (n == 0 and not flags & 1):
            raise Reject(7)
        if flags & 2:
            if not 1 <= plen < raw:
                raise Reject(7)
        elif plen != raw:
            raise Reject(7)
        g.seq, g.first, g.fmt, g.flags, g.samples = seq, first, fmt, flags, n
        g.payload = d[32:]
        g.raw = raw
    elif base == 1:
        if len(d) < 128:
            raise Reject(1)
        if len(d) > 128:
            raise Reject(6)
        (g.meta_version, g.gain_mdb, g.next_seq, g.ref_sample, g.ref_time, g.rate, g.freq,
         g.bw) = struct.unpack_from('<IiQQQQQQ', d, 8)
        g.gain_mode, g.channel, g.fmt, g.mflags, g.spd, res = struct.unpack_from('<BBBBHH', d, 64)
        if g.mflags & 0xfc or res:
            raise Reject(8)
        if g.fmt not in PAIR:
            raise Reject(5)
        if g.rate == 0 or g.rate > 10**10 or g.channel > 1 or \
                g.gain_mode not in (0, 1, 2, 3, 255) or g.spd == 0 or g.spd * PAIR[g.fmt] > 65475:
            raise Reject(9)
        g.sender = text(d[72:104])
        g.version = text(d[104:120])
        g.source = text(d[120:128])
        g.fec = None
        for a in g.version.split(' ')[1:]:
            if a.startswith('fec='):
                try:
                    k, m = a[4:].split(':')
                    if str(int(k)) == k and str(int(m)) == m and 1 <= int(k) <= 128 and \
                            1 <= int(m) <= 32:
                        g.fec = (int(k), int(m))
                except ValueError:
                    pass
    else:
        if len(d) < 32:
            raise Reject(1)
        g.block_seq, g.number, g.k, g.m, g.index, r1, g.shard_len, r2 = \
            struct.unpack_from('<QQBBBBHH', d, 8)
        if r1 or r2:
            raise Reject(8)
        if len(d) != 32 + g.shard_len:
            raise Reject(6)
        if not (1 <= g.k <= 128 and 1 <= g.m <= 32 and g.index < g.m and g.shard_len >= 16):
            raise Reject(7)
        g.shard = d[32:]
    return g


def settings(m):
    """What a change of settings is: every described setting but the strings and numbers."""
    return (m.rate, m.freq, m.bw, m.gain_mdb, m.gain_mode, m.channel, m.fmt, m.spd,
            m.mflags & ~2)


def cs16(fmt, payload, n):
    """*Formats* to cs16: the 12-bit value times 16 (i16 clipped to 12 bits first)."""
    out = bytearray(4 * n)
    if fmt == 3:
        vals = struct.unpack_from('<%dh' % (2 * n), payload)
        vals = [max(-2048, min(2047, v)) * 16 for v in vals]
    elif fmt == 1:
        vals = [v * 256 for v in struct.unpack_from('<%db' % (2 * n), payload)]
    else:
        vals = []
        for j in range(n):
            b0, b1, b2 = payload[3 * j:3 * j + 3]
            i = b0 | (b1 & 0x0f) << 8
            q = b1 >> 4 | b2 << 4
            vals += [(i - 4096 if i & 0x800 else i) * 16, (q - 4096 if q & 0x800 else q) * 16]
    struct.pack_into('<%dh' % (2 * n), out, 0, *vals)
    return out


def gf_mul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        if a & 0x100:
            a ^= 0x11d
        b >>= 1
    return r


GF_INV = [0] + [next(x for x in range(1, 256) if gf_mul(a, x) == 1) for a in range(1, 256)]


def solve(rows, rhs):
    """Gaussian elimination over GF(2^8): rows (n x n coefficients), rhs (n byte strings)."""
    n = len(rows)
    rows = [list(r) for r in rows]
    rhs = [bytearray(r) for r in rhs]
    for c in range(n):
        p = next(r for r in range(c, n) if rows[r][c])
        rows[c], rows[p] = rows[p], rows[c]
        rhs[c], rhs[p] = rhs[p], rhs[c]
        inv = GF_INV[rows[c][c]]
        rows[c] = [gf_mul(inv, v) for v in rows[c]]
        rhs[c] = bytearray(gf_mul(inv, v) for v in rhs[c])
        for r in range(n):
            if r != c and rows[r][c]:
                f = rows[r][c]
                rows[r] = [a ^ gf_mul(f, b) for a, b in zip(rows[r], rows[c])]
                rhs[r] = bytearray(a ^ gf_mul(f, b) for a, b in zip(rhs[r], rhs[c]))
    return rhs


class Window:
    """The reorder window of *Sequence numbers and sample indices*: W slots from `next`."""

    def __init__(self, hist):
        self.hist = hist            # seq % HISTORY -> delivered (True) or lost (False)
        self.started = False
        self.W = WINDOW_MAX
        self.c = dict(delivered=0, lost=0, late=0, duplicate=0)
        self.ev = []

    def reset(self, start, W):
        self.W, self.start, self.next = W, start, start
        self.held = {}
        self.highest = None
        self.started = True

    def _deliver(self, seq):
        self.hist[seq % HISTORY] = True
        self.c['delivered'] += 1

    def _lost(self, seq, count):
        for s in range(max(seq, seq + count - HISTORY), seq + count):
            self.hist[s % HISTORY] = False
        self.c['lost'] += count
        if self.ev and self.ev[-1][0] == 'lost' and self.ev[-1][1] + self.ev[-1][2] == seq:
            self.ev[-1] = ('lost', self.ev[-1][1], self.ev[-1][2] + count)
        else:
            self.ev.append(('lost', seq, count))

    def advance(self, to):
        """Releases every number before `to`: held ones as data, missing ones as lost."""
        while before(self.next, to):
            if not self.held:
                self._lost(self.next, diff(to, self.next))
                self.next = to
                break
            if self.next in self.held:
                self._deliver(self.next)
                self.ev.append(('data', self.held.pop(self.next)))
                self.next += 1
                continue
            run = 1
            while before(self.next + run, to) and self.next + run not in self.held:
                run += 1
            self._lost(self.next, run)
            self.next += run

    def _store(self, seq, dg):
        self.held[seq] = dg
        if self.highest is None or after(seq, self.highest):
            self.highest = seq
        while self.next in self.held:
            self._deliver(self.next)
            self.ev.append(('data', self.held.pop(self.next)))
            self.next += 1

    def flush(self):
        if self.started and self.highest is not None and not before(self.highest, self.next):
            self.advance(self.highest + 1)

    def _resync(self, seq):
        self.flush()
        self.ev.append(('resync', seq))
        self.reset(seq, self.W)

    def push(self, seq, dg, jump_ok=False):
        """'accepted', 'duplicate', 'late', 'stale' or 'jump' (a jump to be confirmed)."""
        d = diff(seq, self.next)
        if d < 0:
            if -d > RESYNC:
                if not jump_ok:
                    return 'jump'
                self._resync(seq)
                self._store(seq, dg)
                return 'accepted'
            if before(seq, self.start):
                return 'stale'
            if -d > HISTORY or not self.hist.get(seq % HISTORY, False):
                self.c['late'] += 1
                return 'late'
            self.c['duplicate'] += 1
            return 'duplicate'
        if d < self.W:
            if seq in self.held:
                self.c['duplicate'] += 1
                return 'duplicate'
            self._store(seq, dg)
            return 'accepted'
        if not jump_ok and d - self.W >= self.W:
            return 'jump'
        if d - self.W < RESYNC:
            self.advance(seq - self.W + 1)
            self._store(seq, dg)
            return 'accepted'
        self._resync(seq)
        self._store(seq, dg)
        return 'accepted'


class Fill:
    """Zero fill and output (*Sequence numbers and sample indices*, *Receiver parameters*)."""

    def __init__(self, out):
        self.out = out
        self.c = dict(samples=0, rx_samples=0, gap_samples=0, discont_samples=0)
        self.restart(0)
        self.rate = 0
        self.slack = 0

    def restart(self, spd):
        self.have_pos = False
        self.line = None            # (index, time) the stream began at
        self.lost = 0
        self.contest = None
        self.spd = spd
        self.began = 0

    def within(self, frm, to, dt, now):
        """Zero fill from `frm` up to `to`, dt after the datagram before, is within the bound."""
        if self.rate == 0 or diff(to, frm) <= 0:
            return True
        if diff(to, frm) <= self.rate * dt * GAP_TOL / 1e9 + self.slack:
            return True
        if self.line is None:
            return False
        ahead = diff(to, self.line[0])
        return ahead <= 0 or ahead <= self.rate * (now - self.line[1]) * LINE_TOL / 1e9 + \
            self.slack

    def _begin_line(self, pos):
        self.line = (pos, self.began if self.began and self.began < self.now else self.now)

    def _put(self, n, data=None):
        self.out += data if data is not None else bytes(4 * n)
        self.c['samples'] += n

    def data(self, dg, pairs, now):
        """Datagram dg delivered in order at time now; pairs: its samples as cs16."""
        self.now = now
        if not self.have_pos:
            est = self.lost * self.spd
            self.have_pos = True
            self.pos = dg.first
            if 0 < est <= dg.first and not dg.flags & 4:
                self.pos = dg.first - est
                self.c['gap_samples'] += est
            self._begin_line(self.pos)
            if self.pos != dg.first:
                self._put(est)
        else:
            self._close_gap(dg)
        self.lost = 0
        self.contest = None
        self.pos = dg.first + dg.samples
        self.last = now
        self._put(dg.samples, pairs)
        self.c['rx_samples'] += dg.samples

    def _close_gap(self, dg):
        disc = dg.flags & 4
        d = diff(dg.first, self.pos)
        if d == 0:
            return
        most = self.lost * 65535
        if self.contest and not before(self.pos, self.contest[0]) and \
                not after(dg.first, self.contest[1]):
            most += self.contest[1] - self.pos
        if d < 0 or (not disc and d > most) or (disc and d > most + MAX_SOURCE_GAP) or \
                not self.within(self.pos, dg.first, self.now - self.last, self.now):
            self.pos = dg.first         # a jump: taken as is, not filled
            self._begin_line(self.pos)
            return
        net = d
        if disc:
            est = self.lost * self.spd if self.spd else most
            net = min(est, d)
            self.c['discont_samples'] += d - net
        self.c['gap_samples'] += net
        self._put(d)

    def contested(self, first, n):
        if not self.have_pos or n == 0 or before(first, self.pos) or (self.spd and n > self.spd):
            return
        self.contest = (first, first + n)


def pow2(n):
    p = 2
    while p < n:
        p <<= 1
    return min(p, WINDOW_MAX)


class Receiver:
    """One receiver, fed datagram by datagram with their arrival times."""

    def __init__(self, key=None):
        self.key = key
        self.out = bytearray()
        self.c = dict(foreign=0, pre_meta=0, streams=0, eos=0, restored=0, replayed=0,
                      unconfirmed=0)
        self.invalid = {}
        self.hist = {}
        self.win = Window(self.hist)
        self.fill = Fill(self.out)
        self.locked = False
        self.ended = False
        self.hold = self.quiet = 0
        self.newest = None          # keyed: (run, stream id, salt, meta_seq) of the newest run
        self.now = 0
        self.kept = []              # unkeyed: datagrams kept before the start is confirmed
        self.kept_bytes = 0
        self.fec_placing = False
        self.fec_reset()

    # --- time ---

    def silence(self, now):
        return now - self.last_rx if self.locked and now > self.last_rx else 0

    def idle(self, now):
        """Time passes to `now` with nothing received (*Receiver parameters*: hold, quiet)."""
        self.now = now
        if not self.locked:
            return
        if self.kept and self.have_meta and self.silence(now) >= self.quiet:
            self.start_settle(silent=True)
        if (self.cand or self.eos_pending is not None) and self.silence(now) >= self.quiet:
            self.drop_cand()
            if self.eos_pending is not None:
                self.flush_window()
                self.end_stream()
        if self.win.started and self.win.held and self.silence(now) >= self.hold:
            self.flush_window()

    def feed(self, now, d):
        self.idle(now)
        self.now = now
        self.datagram(d)
        self.idle(now)

    def finish(self):
        if self.locked:
            if not self.key:
                self.start_settle(ending=True)
                self.start_discard()
            self.drop_cand()
            self.flush_window()
            if self.eos_pending is not None:
                self.end_stream()

    # --- the stream followed ---

    def follow(self, sid):
        self.locked, self.sid = True, sid
        self.have_meta = False
        self.need_start = True
        self.pre = None             # (lowest, highest) seq heard before the metadata
        self.ended = False
        self.last_rx = self.now
        self.cand = None
        self.anchor = None
        self.eos_pending = None
        self.meta_pending = None
        self.c['streams'] += 1
        self.start_discard(own=False)
        self.runs = []
        self.start_since = 0

    def drop_cand(self):
        if self.cand:
            self.cand = None
            self.c['unconfirmed'] += 1

    def end_stream(self):
        self.eos_pending = None
        self.ended = True
        self.c['eos'] += 1

    def flush_window(self):
        if self.win.started and self.win.held:
            self.win.flush()
            self.drain()

    def end_followed(self, eos):
        self.drop_cand()
        self.flush_window()
        self.fec_reset()
        if eos:
            self.end_stream()

    def select(self, g):
        """Which stream: 'take', 'foreign', 'replayed' or 'switch' (*Receivers*, *Sender
        restarts*, *What a receiver believes*)."""
        if self.key:
            return self.select_keyed(g)
        if not self.locked:
            self.follow(g.stream_id)
            return 'take'
        if g.stream_id == self.sid:
            return 'take'
        if self.need_start and not self.ended and g.kind == 1:
            self.c['streams'] -= 1
            self.follow(g.stream_id)
            return 'take'
        eos = self.eos_pending is not None and self.now - self.last_rx >= self.quiet
        if self.ended or eos or self.now - self.last_rx > SILENCE_NS:
            self.end_followed(eos)
            self.follow(g.stream_id)
            return 'take'
        self.c['foreign'] += 1
        return 'foreign'

    def select_keyed(self, g):
        same = self.locked and g.stream_id == self.sid and g.salt == self.salt
        if same:
            if g.kind != 1:
                return 'take'
            if not after(g.meta_seq, self.meta_seq):
                self.c['replayed'] += 1
                return 'replayed'
            self.meta_seq = g.meta_seq
            self.newest = (self.newest[0], self.newest[1], self.newest[2], g.meta_seq)
            return 'take'
        if g.kind != 1:
            self.c['foreign'] += 1
            return 'foreign'
        n = self.newest
        fresh = n is None or g.run > n[0] or (g.run == n[0] and g.stream_id == n[1] and
                                              g.salt == n[2] and after(g.meta_seq, n[3]))
        if not fresh:
            self.c['replayed'] += 1
            return 'replayed'
        if self.locked:
            self.end_followed(False)
        self.follow(g.stream_id)
        self.salt, self.meta_seq = g.salt, g.meta_seq
        self.newest = (g.run, g.stream_id, g.salt, g.meta_seq)
        return 'take'

    # --- one datagram ---

    def reject(self, code):
        name = REASONS[code]
        self.invalid[name] = self.invalid.get(name, 0) + 1

    def datagram(self, d):
        """Returns True when d, a sample datagram, took its place in the window."""
        if self.key and not zcs_auth_ref.verify(self.key, d):
            self.reject(11)
            return False
        try:
            g = parse(d)
        except Reject as e:
            self.reject(e.code)
            return False
        g.bytes = d
        if g.kind == 2:
            self.parity(g)
            return False
        if self.select(g) != 'take':
            return False
        self.last_rx = self.now
        if g.kind == 1:
            self.apply_meta(g)
            return False
        return self.samples(g)

    # --- metadata ---

    def window_for(self):
        m = self.meta
        km = sum(m.fec) if m.fec else self.fec_k + self.fec_m
        w = m.rate * WINDOW_SPAN_NS // NS // (m.spd or 1)
        w = min(max(w, WINDOW_MIN, FEC_BLOCKS * km), WINDOW_MAX)
        return pow2(w)

    def bound_fill(self, W=None):
        self.fill.rate = self.meta.rate
        self.fill.slack = (W or self.window_for()) * self.meta.spd

    def apply_meta(self, m):
        first = not self.have_meta
        if not first and not self.key:
            # unkeyed: a change of settings is believed once repeated for 500 ms with
            # nothing of the old settings in between
            if settings(m) == settings(self.meta):
                if self.meta_pending:
                    self.meta_pending = None
                    self.c['unconfirmed'] += 1
            elif not self.meta_pending or settings(self.meta_pending[0]) != settings(m):
                if self.meta_pending:
                    self.c['unconfirmed'] += 1
                self.meta_pending = (m, self.now)
                return
            elif self.now - self.meta_pending[1] < META_CONFIRM_NS:
                return
            else:
                self.meta_pending = None
        changed = first or settings(m) != settings(self.meta)
        self.meta = m
        self.meta_ns = self.now     # where the stream was now: a start is judged by it
        if not changed:
            return
        self.have_meta = True
        dgram = m.spd * NS // m.rate
        self.hold = self.quiet = max(8 * dgram, HOLD_MIN_NS)
        if not self.need_start:
            self.bound_fill(self.win.W)
            self.fill.spd = m.spd

    # --- sample datagrams ---

    def samples(self, g):
        if self.need_start and not self.key and not self.start_sample(g):
            return False
        if not self.have_meta:
            self.c['pre_meta'] += 1
            lo, hi = self.pre or (g.seq, g.seq)
            self.pre = (g.seq if before(g.seq, lo) else lo, g.seq if after(g.seq, hi) else hi)
            return False
        if self.meta_pending and g.fmt == self.meta.fmt and \
                self.meta_pending[0].fmt != self.meta.fmt:
            self.meta_pending = None
            self.c['unconfirmed'] += 1
        if not self.fec_armed and self.meta.fec:
            self.fec_arm(g.seq)
        self.fec_data(g)
        if g.flags & 2:
            raw = zstd_decode(g.payload, g.raw)
            if raw is None:
                self.reject(10)
                return False
            g.payload = raw
        if self.need_start:
            self.place_window(g)
        placed = self.place(g)
        self.restore(g.seq)
        return placed

    def place_window(self, g):
        self.place_window_at(g.seq)

    def place_window_at(self, seq):
        W = self.window_for()
        d = diff(seq, self.meta.next_seq)
        start = self.meta.next_seq if 0 <= d < W else seq
        skip_to = None
        if self.pre and self.pre[0] == 0:
            # the stream's datagram 0 came and could not be used: its start is lost
            start = 0
            skip_to = seq if after(self.pre[1] + 1, seq) else self.pre[1] + 1
        elif self.pre and after(self.pre[1] + 1, start) and not after(self.pre[1] + 1, seq):
            start = self.pre[1] + 1
        self.need_start = False
        self.win.reset(start, W)
        if self.fec_armed:
            self.fec_from = start
        self.fill.restart(self.meta.spd)
        if not self.key and self.start_since:
            self.fill.began = self.start_since
        self.bound_fill(W)
        if skip_to is not None and after(skip_to, self.win.next):
            self.win.advance(skip_to)
            self.drain()

    def continues(self, h, seq, end, since):
        """h follows datagram seq whose samples end at `end` (*What a receiver believes*);
        since: when that one was taken (None: no time bound)."""
        k = diff(h.seq, seq)
        if k == 1 and h.first == end:
            return True
        if k <= 0:
            return False
        gap = diff(h.first, end)
        if gap < 0:
            return False
        most = (k - 1) * 65535 + (MAX_SOURCE_GAP if h.flags & 4 else 0)
        if gap > most:
            return False
        if since is None:
            return True
        return self.fill.within(end, h.first, self.now - since, self.now)

    def believable(self, h):
        a = self.anchor
        if a is None or self.continues(h, a[0], a[2], self.live):
            return True
        k = diff(h.seq, a[0])
        return k == 0 or (k < 0 and not after(h.first + h.samples, a[1]))

    def plausible(self, h):
        c = self.cand[0]
        ahead = diff(c.seq, self.win.next)
        if self.now - self.live >= self.quiet:
            return True
        W = self.win.W
        if self.anchor is None or ahead < 0 or (ahead >= W and ahead - W >= RESYNC):
            return False
        if ahead < W and diff(h.seq, self.cand[1]) == 1 and h.first == self.cand[2]:
            return True
        return self.continues(c, self.anchor[0], self.anchor[2], self.live)

    def claims_jump(self, h):
        if not self.believable(h):
            return True
        return bool(self.cand) and self.continues(h, self.cand[1], self.cand[2], None) and \
            self.plausible(h)

    def taken(self, h):
        self.live = self.now
        if self.anchor is None or after(h.seq, self.anchor[0]):
            self.anchor = (h.seq, h.first, h.first + h.samples)
            self.drop_cand()
        if self.eos_pending is not None and after(h.seq, self.eos_pending):
            self.eos_pending = None
            self.c['unconfirmed'] += 1

    def jump(self, h):
        if self.key:
            if before(h.seq, self.win.next):
                self.c['replayed'] += 1
                return False
            self.anchor = None
        elif self.cand and self.continues(h, self.cand[1], self.cand[2], None):
            if not self.plausible(h):
                self.c['unconfirmed'] += 1
                self.cand = (self.cand[0], h.seq, h.first + h.samples)
                return False
            c = self.cand[0]
            self.cand = None
            if self.win.push(c.seq, c, True) == 'accepted':
                self.anchor = None
                self.taken(c)
                self.drain()
        else:
            self.drop_cand()
            self.cand = (h, h.seq, h.first + h.samples)
            return True
        if self.win.push(h.seq, h, True) != 'accepted':
            return False
        self.taken(h)
        self.drain()
        return True

    def place(self, h):
        if self.claims_jump(h):
            return self.jump(h)
        v = self.win.push(h.seq, h)
        if v == 'jump':
            return self.jump(h)
        if v == 'duplicate' and before(h.seq, self.win.next):
            self.fill.contested(h.first, h.samples)
        if v != 'accepted':
            return False
        self.taken(h)
        self.drain()
        return True

    def drain(self):
        ev, self.win.ev = self.win.ev, []
        for e in ev:
            if e[0] == 'lost':
                self.fill.lost += e[2]
            elif e[0] == 'resync':
                self.fill.restart(self.meta.spd)
            else:
                self.deliver(e[1])

    def deliver(self, g):
        self.fill.data(g, cs16(g.fmt, g.payload, g.samples), self.now)
        if g.flags & 1 and not self.ended and self.eos_pending is None:
            self.eos_pending = g.seq

    # --- the stream's start, unkeyed (*The stream's start*) ---

    @staticmethod
    def follows(seq, first, discont, prev, end):
        """(seq, first) continues a datagram `prev` whose samples end at `end`: a later number
        at most RUN_SPAN on, each missing datagram 1 to 65535 pairs (2^32 more with DISCONT)."""
        k = diff(seq, prev)
        gap = diff(first, end)
        if k == 1 and first == end:
            return True
        if k <= 0 or k > RUN_SPAN or gap < k - 1:
            return False
        return gap <= (k - 1) * 65535 + (MAX_SOURCE_GAP if discont else 0)

    def start_note(self, g):
        """g into the runs: one it continues, one that continues from it, one it lies within,
        else a run of its own (in the place of the run kept least when there are 4)."""
        end = g.first + g.samples
        if not self.start_since:
            self.start_since = self.now
        for r in self.runs:
            if self.follows(g.seq, g.first, g.flags & 4, r['hi'], r['hi_end']):
                r['hi'], r['hi_end'] = g.seq, end
            elif self.follows(r['lo'], r['lo_first'], False, g.seq, end):
                r['lo'], r['lo_first'] = g.seq, g.first
            elif not (diff(g.seq, r['lo']) >= 0 and diff(r['hi'], g.seq) >= 0) or \
                    before(g.first, r['lo_first']) or after(end, r['hi_end']):
                continue
            r['count'] += 1
            return
        run = dict(lo=g.seq, hi=g.seq, lo_first=g.first, hi_end=end, count=1)
        if len(self.runs) < START_RUNS:
            self.runs.append(run)
        else:
            least = min(range(len(self.runs)), key=lambda i: self.runs[i]['count'])
            self.runs[least] = run

    def start_give_up(self, seq, own=True):
        """A datagram kept for the start dropped (no room, or the stream left)."""
        self.c['pre_meta'] += 1
        if not own:
            return
        for r in self.runs:
            if diff(seq, r['lo']) >= 0 and diff(r['hi'], seq) >= 0 and r['count']:
                r['count'] -= 1
                break
        lo, hi = self.pre or (seq, seq)
        self.pre = (seq if before(seq, lo) else lo, seq if after(seq, hi) else hi)

    def start_discard(self, own=True):
        kept, self.kept, self.kept_bytes = self.kept, [], 0
        for g in kept:
            self.start_give_up(g.seq, own)

    def start_keep(self, g):
        if len(g.bytes) > START_STORE:
            self.start_give_up(g.seq)
            return
        while self.kept and self.kept_bytes + len(g.bytes) > START_STORE:
            old = self.kept.pop(0)
            self.kept_bytes -= len(old.bytes)
            self.start_give_up(old.seq)
        self.kept.append(g)
        self.kept_bytes += len(g.bytes)

    def start_pick(self, silent=False, ending=False):
        """The run confirmed as the stream's start, or None (*The stream's start*, step 3)."""
        if not self.have_meta or not self.runs:
            return None
        W, ns = self.window_for(), self.meta.next_seq
        pick, pick_named, best, second, total = None, 0, None, 0, 0
        for r in self.runs:
            n = 0
            if r['count']:
                if (r['lo'] - ns) & M64 < W:
                    n = 2
                elif (ns - r['lo']) & M64 <= ((r['hi'] - r['lo']) & M64) + W:
                    n = 1
            total += r['count']
            if n and (n > pick_named or (n == pick_named and r['count'] > pick['count'])):
                pick, pick_named = r, n
            if best is None or r['count'] > best['count']:
                second = best['count'] if best else 0
                best = r
            elif r['count'] > second:
                second = r['count']
        if not pick and best['count'] >= 2 and best['count'] > 2 * second:
            spd = self.meta.spd or 1
            reach = self.meta.rate * 1.01 * ((self.now - self.meta_ns) / 1e9) / spd + W
            ahead = diff(best['lo'], ns)
            if (0 < ahead <= reach) or (best['count'] >= MAJORITY_MIN and
                                        best['count'] > 2 * (total - best['count'])):
                pick = best
        if not pick and ((silent and best['count'] >= 2 and best['count'] > second) or
                         (ending and best['count'])):
            pick = best
        if pick:
            self.runs = []
        return pick

    def start_settle(self, silent=False, ending=False):
        """When a run is confirmed: the window placed at it, its datagrams kept replayed in
        the order they came, the others counted unconfirmed.  Returns the run, or None."""
        if self.key or not self.need_start:
            return None
        r = self.start_pick(silent, ending)
        if r is None:
            return None
        self.place_window_at(r['lo'])
        kept, self.kept, self.kept_bytes = self.kept, [], 0
        for g in kept:
            if (g.seq - r['lo']) & M64 > (r['hi'] - r['lo']) & M64:
                self.c['unconfirmed'] += 1
                continue
            g2 = parse(g.bytes)
            g2.bytes = g.bytes
            self.samples(g2)
        return r

    def start_sample(self, g):
        """g, a sample datagram of a stream whose start is not confirmed: True when it goes
        on into the window (a clean start, or its run just confirmed), False when kept or
        dropped."""
        if not self.kept and not self.runs and self.have_meta and \
                (g.seq - self.meta.next_seq) & M64 < self.window_for():
            return True                 # a clean start: the metadata names it
        self.start_note(g)
        r = self.start_settle()
        if r is None:
            self.start_keep(g)
            return False
        if (g.seq - r['lo']) & M64 <= (r['hi'] - r['lo']) & M64:
            return True
        self.c['unconfirmed'] += 1
        return False

    # --- parity (*Parity datagrams*) ---

    def fec_reset(self):
        self.fec_armed = False
        self.fec_from = 0
        self.fec_store = {}
        self.fec_blocks = {}
        self.fec_k = self.fec_m = 0

    def fec_arm(self, frm):
        self.fec_armed = True
        self.fec_from = frm

    def fec_data(self, g):
        if self.fec_armed and not before(g.seq, self.fec_from):
            self.fec_store[g.seq] = g.bytes

    def fec_next(self, at):
        return at if self.need_start else self.win.next

    def parity(self, p):
        if not self.locked or p.stream_id != self.sid or (self.key and p.salt != self.salt):
            return
        if not self.fec_armed:
            w = self.win
            self.fec_arm(p.block_seq if self.need_start else
                         w.highest + 1 if w.highest is not None and
                         not before(w.highest, w.next) else w.next)
        if not self.need_start:
            need = FEC_BLOCKS * (p.k + p.m)
            if self.win.W < need and not self.win.held and pow2(need) > self.win.W:
                self.win.W = pow2(need)
                self.bound_fill(self.win.W)
        self.fec_k, self.fec_m = p.k, p.m
        if not before(self.fec_next(p.block_seq), p.block_seq + p.k) or \
                before(p.block_seq, self.fec_from):
            return
        b = self.fec_blocks.get(p.block_seq)
        if b is None:
            b = self.fec_blocks[p.block_seq] = dict(k=p.k, m=p.m, shard_len=p.shard_len,
                                                    parity={}, keyed=p.keyed, given_up=False)
        elif (b['k'], b['m'], b['shard_len']) != (p.k, p.m, p.shard_len):
            return
        if p.index in b['parity']:
            return
        b['parity'][p.index] = p.shard
        self.restore(p.block_seq)

    def restore(self, at):
        """Rebuilds the lost datagrams of the block holding `at` once k of its k + m are here;
        a rebuilt datagram is then received as any other."""
        if not self.fec_armed or self.fec_placing:
            return
        bs = next((s for s, b in self.fec_blocks.items()
                   if not before(at, s) and before(at, s + b['k'])), None)
        if bs is None or self.fec_blocks[bs]['given_up']:
            return
        b = self.fec_blocks[bs]
        k, n = b['k'], b['shard_len']
        have = {j: self.fec_store[bs + j] for j in range(k) if bs + j in self.fec_store}
        missing = [j for j in range(k) if j not in have]
        if not missing or len(missing) > len(b['parity']):
            return
        if any(len(d) > 16 + n for d in have.values()):
            b['given_up'] = True
            return
        rows = sorted(b['parity'])[:len(missing)]
        rhs = []
        for i in rows:
            r = bytearray(b['parity'][i])
            for j, d in have.items():
                c = GF_INV[i ^ (32 + j)]
                for x, v in enumerate(d[16:]):
                    r[x] ^= gf_mul(c, v)
            rhs.append(r)
        shards = solve([[GF_INV[i ^ (32 + j)] for j in missing] for i in rows], rhs)
        self.fec_placing = True
        for j, shard in zip(missing, shards):
            seq = bs + j
            dlen = 32 + struct.unpack_from('<H', shard, 12)[0] + (24 if b['keyed'] else 0)
            if dlen > 16 + n:
                b['given_up'] = True
                continue
            dg = b'ZS\x01' + bytes([0x80 if b['keyed'] else 0]) + \
                struct.pack('<IQ', self.sid, seq) + bytes(shard[:dlen - 16])
            self.fec_store[seq] = dg
            if before(seq, self.win.next):
                continue
            if self.key and not zcs_auth_ref.verify(self.key, dg):
                b['given_up'] = True
                continue
            if self.datagram(dg):
                self.c['restored'] += 1
        self.fec_placing = False

    def counters(self):
        c = dict(self.c)
        c.update(self.win.c)
        c.update(self.fill.c)
        c['invalid_by'] = dict(self.invalid)
        return c


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('vector')
    ap.add_argument('--key')
    ap.add_argument('--out', required=True)
    a = ap.parse_args()
    key = zcs_auth_ref.load_key(a.key) if a.key else None
    r = Receiver(key)
    with open(a.vector, 'rb') as f:
        data = f.read()
    if data[:8] != b'ZCSVEC1\n':
        sys.exit('ref_recv: %s: not a vector' % a.vector)
    pos = 8
    while pos < len(data):
        t, n = struct.unpack_from('<QI', data, pos)
        r.feed(t, data[pos + 12:pos + 12 + n])
        pos += 12 + n
    r.finish()
    with open(a.out, 'wb') as f:
        f.write(r.out)
    print(json.dumps({'pairs': len(r.out) // 4, 'counters': r.counters()}))


if __name__ == '__main__':
    main()
