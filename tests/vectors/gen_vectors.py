# SPDX-License-Identifier: MIT
"""Writes the conformance vectors of docs/protocol.md ("Conformance vectors"): datagram sequences
built byte by byte from the document's tables (not with zcs's own writers), with the network's
losses, reorderings, copies and forgeries, as VECTOR.zcsv files in the format README.md gives.

    gen_vectors.py DIR [NAME...]

The expected outputs are not made here: check_vectors.py --update takes them from zcs-recv
(vec_replay), which is the reference, and the second reader (ref_recv.py) must agree."""
import ctypes
import json
import ctypes.util
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'security'))
import zcs_auth_ref  # noqa: E402  (the keyed tag, written from the document)

MAGIC = b'ZCSVEC1\n'
STREAM = 0x5a17c0de
RATE = 200000               # pairs per second
SPD = 100                   # pairs per full datagram
DGRAM_NS = SPD * 10**9 // RATE   # 500 us of stream per datagram
PAIR = {1: 2, 2: 3, 3: 4}
I8, P12, I16 = 1, 2, 3
EOS, ZSTD, DISCONT = 1, 2, 4
M_ZSTD, M_CHANGE = 1, 2
KEY = bytes(range(0x20, 0x40))
SALT = b'vec-salt'
KEYFILE = 'vectors.key'


def value(n):
    """Pair n of a stream, 12-bit: never (0, 0), so a zero in the output is a fill."""
    return ((n * 37) % 4000) - 1999, ((n * 101 + 7) % 3999) - 1999 or 1


def pack(fmt, pairs):
    out = bytearray()
    for i, q in pairs:
        if fmt == I16:
            out += struct.pack('<hh', i, q)
        elif fmt == P12:
            w = (i & 0xfff) | (q & 0xfff) << 12
            out += w.to_bytes(3, 'little')
        else:
            out += struct.pack('<bb', max(-128, min(127, i // 16)), max(-128, min(127, q // 16)))
    return bytes(out)


_zstd = ctypes.CDLL(ctypes.util.find_library('zstd') or 'libzstd.so.1')
_zstd.ZSTD_compress.restype = ctypes.c_size_t
_zstd.ZSTD_compress.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                ctypes.c_size_t, ctypes.c_int]
_zstd.ZSTD_isError.argtypes = [ctypes.c_size_t]


def zstd(raw):
    buf = ctypes.create_string_buffer(len(raw) + 1024)
    n = _zstd.ZSTD_compress(buf, len(buf), raw, len(raw), 3)
    assert not _zstd.ZSTD_isError(n)
    return buf.raw[:n]


def strz(text, n):
    b = text.encode()
    assert len(b) < n
    return b + b'\0' * (n - len(b))


def tag(key, d, number):
    """The tag of keyed datagram d (all of it but the tag), numbered `number` (*The tag*)."""
    nonce = d[-8:] + d[4:8] + bytes([d[3]]) + b'\0\0\0' + struct.pack('<Q', number)
    return zcs_auth_ref.tag(key, nonce, d)


class Stream:
    """One sender run: its datagrams as the document lays them out."""

    def __init__(self, sid=STREAM, fmt=I16, spd=SPD, rate=RATE, keyed=False, run=1,
                 salt=SALT, values=value, fec=None):
        self.sid, self.fmt, self.spd, self.rate = sid, fmt, spd, rate
        self.keyed, self.run, self.salt = keyed, run, salt
        self.values = values
        self.fec = fec
        self.seq = 0
        self.first = 0
        self.meta_version = 1
        self.meta_seq = 0
        self.freq = 433920000
        self.parity_number = 0
        self.zstd = False

    def _seal(self, d, number):
        return d + tag(KEY, d, number)

    def meta(self, flags=0, next_seq=None, ref_sample=None, meta_seq=None, version='0.1.0'):
        if self.fec:
            version += ' fec=%d:%d' % self.fec
        d = bytearray(128)
        d[0:4] = b'ZS\x01' + bytes([0x81 if self.keyed else 1])
        struct.pack_into('<IIiQQQQQQ', d, 4, self.sid, self.meta_version, 40000,
                         self.seq if next_seq is None else next_seq,
                         self.first if ref_sample is None else ref_sample, 12 * 10**9,
                         self.rate, self.freq, self.rate)
        struct.pack_into('<BBBBH', d, 64, 0, 0, self.fmt,
                         flags | (M_ZSTD if self.zstd else 0), self.spd)
        d[72:104] = strz('vector', 32)
        d[104:120] = strz(version, 16)
        d[120:128] = strz('tone', 8)
        if not self.keyed:
            return bytes(d)
        n = self.meta_seq if meta_seq is None else meta_seq
        if meta_seq is None:
            self.meta_seq += 1
        d += struct.pack('<QQQ', 12 * 10**9, n, self.run) + self.salt
        return self._seal(bytes(d), n)

    def samples(self, n=None, flags=0, compress=False, fmt=None, advance=True, seq=None,
                first=None, payload=None):
        fmt = fmt or self.fmt
        n = self.spd if n is None else n
        seq = self.seq if seq is None else seq
        first = self.first if first is None else first
        raw = pack(fmt, [self.values(first + j) for j in range(n)]) if payload is None \
            else payload
        if compress:
            z = zstd(raw)
            if len(z) < len(raw):
                raw, flags = z, flags | ZSTD
        d = bytearray(32)
        d[0:4] = b'ZS\x01' + bytes([0x80 if self.keyed else 0])
        struct.pack_into('<IQQBBHHH', d, 4, self.sid, seq, first, fmt, flags, n, len(raw), 0)
        d = bytes(d) + raw
        if self.keyed:
            d = self._seal(d + self.salt, seq)
        if advance:
            self.seq = seq + 1
            self.first = first + n
        return d

    def parity(self, block):
        """The parity datagrams of block (a list of (seq, datagram)), as *Parity datagrams*."""
        k, m = len(block), self.fec[1]
        shards = [d[16:] for _, d in block]
        shard_len = max(len(s) for s in shards)
        shards = [s + b'\0' * (shard_len - len(s)) for s in shards]
        out = []
        for i in range(m):
            p = bytearray(shard_len)
            for j, s in enumerate(shards):
                c = gf_inv(i ^ (32 + j))
                for x in range(shard_len):
                    p[x] ^= gf_mul(c, s[x])
            d = bytearray(32)
            d[0:4] = b'ZS\x01' + bytes([0x82 if self.keyed else 2])
            struct.pack_into('<IQQBBBBHH', d, 4, self.sid, block[0][0], self.parity_number,
                             k, m, i, 0, shard_len, 0)
            d = bytes(d) + bytes(p)
            if self.keyed:
                d = self._seal(d + self.salt, self.parity_number)
            self.parity_number += 1
            out.append(d)
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


def gf_inv(a):
    return next(x for x in range(1, 256) if gf_mul(a, x) == 1)


class Capture:
    """Datagrams as a receiver hears them, with their arrival times."""

    def __init__(self, keyed=False):
        self.recs = []
        self.t = 0
        self.keyed = keyed

    def at(self, t_ns, d):
        assert t_ns >= self.t
        self.t = t_ns
        self.recs.append((t_ns, d))

    def add(self, d, dt=0):
        self.at(self.t + dt, d)

    def write(self, path):
        with open(path, 'wb') as f:
            f.write(MAGIC)
            for t, d in self.recs:
                f.write(struct.pack('<QI', t, len(d)) + d)


def run_stream(cap, s, count, t0=0, drop=(), meta_every=None, compress=False, eos=True,
               parity=True):
    """count sample datagrams of s at the stream's pace from t0 (metadata first, then every
    meta_every datagrams), those in drop not heard; the end of stream last.  Returns the
    datagrams sent, by seq, and the time after the last."""
    sent = {}
    block = []
    t = t0
    cap.at(max(t, cap.t), s.meta())
    for i in range(count):
        if meta_every and i and i % meta_every == 0:
            cap.at(max(t, cap.t), s.meta())
        last = eos and i == count - 1
        d = s.samples(flags=EOS if last else 0, compress=compress)
        seq = s.seq - 1
        sent[seq] = d
        if seq not in drop:
            cap.at(max(t, cap.t), d)
        t += DGRAM_NS
        if s.fec and parity:
            block.append((seq, d))
            if len(block) == s.fec[0] or last:
                for j, p in enumerate(s.parity(block)):
                    if ('p', block[0][0], j) not in drop:
                        cap.at(max(t, cap.t), p)
                block = []
    return sent, t


# ---- the vectors: name -> (description, builder returning (Capture, keyed)) ----

def v_clean():
    c = Capture()
    run_stream(c, Stream(), 200)
    return c


def v_clean_p12():
    c = Capture()
    run_stream(c, Stream(fmt=P12, spd=150), 120)
    return c


def v_clean_i8():
    c = Capture()
    run_stream(c, Stream(fmt=I8, spd=200), 100)
    return c


def v_i16_clip():
    big = [(4000, -4000), (2047, -2048), (2048, -2049), (32767, -32768)]
    c = Capture()
    run_stream(c, Stream(values=lambda n: big[n % 4]), 20)
    return c


def v_drops():
    c = Capture()
    run_stream(c, Stream(), 300, drop={5, 6, 7, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 120,
                                       200, 202, 204})
    return c


def v_reorder():
    s, c = Stream(), Capture()
    c.at(0, s.meta())
    ds = [s.samples(flags=EOS if i == 199 else 0) for i in range(200)]
    order = list(range(200))
    # swaps, a datagram 30 places late, a reversed run of 8
    order[10], order[11] = order[11], order[10]
    order.remove(40)
    order.insert(70, 40)
    order[100:108] = reversed(order[100:108])
    for k, i in enumerate(order):
        c.at(k * DGRAM_NS, ds[i])
    return c


def v_duplicates():
    s, c = Stream(), Capture()
    c.at(0, s.meta())
    ds = [s.samples(flags=EOS if i == 149 else 0) for i in range(150)]
    for i, d in enumerate(ds):
        c.at(i * DGRAM_NS, d)
        if i in (3, 4, 90):
            c.add(d)                    # at once
        if i == 60:
            c.add(ds[20])               # long delivered
        if i == 80:
            c.add(ds[80])
            c.add(ds[80])
    c.add(s.meta())                     # metadata again: not a datagram of the window
    return c


def v_late():
    """A datagram held back past the reorder window: declared lost, then late when it comes."""
    s, c = Stream(), Capture()
    c.at(0, s.meta())
    ds = [s.samples(flags=EOS if i == 299 else 0) for i in range(300)]
    for i, d in enumerate(ds):
        if i != 10:
            c.at(i * DGRAM_NS, d)
        if i == 200:
            c.add(ds[10])
    return c


def v_pause():
    """The stream stops for 300 ms with a hole in the window: what it holds is released after
    the hold (100 ms), the hole lost; the missing datagram then comes late."""
    s, c = Stream(), Capture()
    c.at(0, s.meta())
    ds = [s.samples(flags=EOS if i == 99 else 0) for i in range(100)]
    t = 0
    for i in range(50):
        if i != 45:
            c.at(t, ds[i])
        t += DGRAM_NS
    t += 300 * 10**6
    c.at(t, ds[45])
    for i in range(50, 100):
        c.at(t, ds[i])
        t += DGRAM_NS
    return c


def v_compressed():
    quiet = lambda n: ((n // 40) % 8 - 4, 3) if (n // 500) % 2 == 0 else value(n)  # noqa: E731
    s = Stream(values=quiet)
    s.zstd = True
    c = Capture()
    run_stream(c, s, 60, compress=True, drop={30})
    return c


def v_invalid():
    """Every rejection reason of *Receiver checks* among a clean stream; none disturbs it."""
    s, c = Stream(), Capture()
    c.at(0, s.meta())
    good = s.samples(advance=False)
    m = s.meta()
    bad = [
        b'', b'Z', b'ZS', b'ZS\x01',                             # truncated
        b'XS\x01\x00' + good[4:],                                 # bad_magic
        good[:2] + b'\x02' + good[3:],                            # bad_version
        good[:3] + b'\x07' + good[4:],                            # bad_type
        good[:3] + b'\x83' + good[4:],                            # bad_type (131)
        good[:20],                                                # truncated sample
        good[:25] + b'\x08' + good[26:],                          # reserved flag
        good[:30] + b'\x01\x00' + good[32:],                      # reserved bytes
        good[:24] + b'\x04' + good[25:],                          # bad_format
        good[:24] + b'\x00' + good[25:],                          # bad_format 0
        good[:-1],                                                # bad_length
        good + b'\0',                                             # bad_length
        good[:26] + struct.pack('<H', 99) + good[28:],            # bad_count
        good[:25] + b'\x02' + good[26:],                          # ZSTD, payload == raw
        m[:-1], m + b'\0',                                        # truncated, bad_length
        m[:67] + b'\x04' + m[68:],                                # reserved meta flag
        m[:40] + b'\0' * 8 + m[48:],                              # bad_meta: rate 0
        m[:40] + struct.pack('<Q', 10**10 + 1) + m[48:],          # bad_meta: above 10 GS/s
        m[:65] + b'\x02' + m[66:],                                # bad_meta: channel
        m[:64] + b'\x07' + m[65:],                                # bad_meta: gain mode
        m[:72] + b'x' * 32 + m[104:],                             # bad_meta: no NUL
        m[:80] + b'x' + m[81:],                                   # reserved after NUL
        m[:68] + b'\0\0' + m[70:],                                # bad_meta: spd 0
        m[:72] + b'\xc3\x28' + m[74:],                            # bad_meta: not UTF-8
        m[:72] + b'\xc0\xaf' + m[74:],                            # bad_meta: overlong
        m[:120] + b'to\x1bne' + m[125:],                          # bad_meta: control
        m[:120] + b'\xc2\x85ne' + m[124:],                        # bad_meta: C1 control
        m[:104] + b'0.1.0 \xc3\xa9t\xc3\xa9\0' + m[116:],        # accepted: UTF-8
    ]
    zs = bytearray(s.samples(advance=False, payload=b'\x28\xb5\x2f\xfd' + b'\0' * 6, n=100))
    zs[25] |= ZSTD
    bad.append(bytes(zs))                                         # decompress
    t = 0
    for i in range(100):
        c.at(t, s.samples(flags=EOS if i == 99 else 0))
        if i < len(bad):
            c.add(bad[i])
        t += DGRAM_NS
    return c


def v_wrong_version():
    s, c = Stream(), Capture()
    c.at(0, s.meta())
    t = 0
    for i in range(60):
        d = s.samples(flags=EOS if i == 59 else 0)
        if i % 10 == 5:
            c.at(t, d[:2] + b'\x02' + d[3:])   # a later protocol version: counted, not used
        else:
            c.at(t, d)
        t += DGRAM_NS
    return c


def v_join_at_next_seq():
    """Metadata first, of a stream long under way: the stream starts at its next_seq."""
    s = Stream()
    s.seq, s.first = 1000, 100000
    c = Capture()
    run_stream(c, s, 100)
    return c


def v_join_lost_first():
    """Joined late, the datagram at next_seq lost: the start is next_seq, counted lost."""
    s = Stream()
    s.seq, s.first = 500, 50000
    c = Capture()
    run_stream(c, s, 100, drop={500, 501})
    return c


def v_two_senders():
    """A second sender to the same port: counted foreign while the first is followed; it is
    followed once the first has ended."""
    a, b = Stream(sid=0x1111), Stream(sid=0x2222, fmt=P12, spd=150)
    c = Capture()
    c.at(0, a.meta())
    t = 0
    for i in range(100):
        c.at(t, a.samples(flags=EOS if i == 99 else 0))
        if i == 10:
            c.add(b.meta())
        if i > 10 and i % 3 == 0:
            c.add(b.samples())
        t += DGRAM_NS
    t += 500 * 10**6                    # the first is silent after its end
    c.at(t, b.meta())
    for i in range(40):
        c.at(t, b.samples(flags=EOS if i == 39 else 0))
        t += DGRAM_NS
    return c


def v_restart():
    """A sender restarted without its end of stream (a crash): a new stream id after 2 s."""
    a, b = Stream(sid=0xaaaa0001), Stream(sid=0xaaaa0002)
    c = Capture()
    _, t = run_stream(c, a, 80, eos=False)
    c.at(t + 100 * 10**6, b.meta())     # too soon: the first has not fallen silent
    c.add(b.samples())
    run_stream(c, Stream(sid=0xaaaa0002), 60, t0=t + 2 * 10**9)
    return c


def v_discont():
    """Source loss at the sender: DISCONT and first_sample jumps; network loss before it."""
    s, c = Stream(), Capture()
    c.at(0, s.meta())
    t = 0
    for i in range(120):
        flags = 0
        if i in (30, 80):
            s.first += 1234
            flags = DISCONT
        d = s.samples(flags=flags | (EOS if i == 119 else 0))
        if i not in (79,):
            c.at(t, d)
        t += DGRAM_NS
    return c


def v_format_change():
    """i16, then a change of wire format to p12 (CHANGE metadata twice), then i8."""
    s, c = Stream(), Capture()
    t = 0
    c.at(t, s.meta())
    for i in range(150):
        if i in (50, 100):
            s.meta_version += 1
            s.fmt, s.spd = (P12, 130) if i == 50 else (I8, 190)
            c.at(t, s.meta(flags=M_CHANGE))
            c.at(t, s.meta(flags=M_CHANGE))
        c.at(t, s.samples(flags=EOS if i == 149 else 0))
        t += DGRAM_NS
        if i in (60, 120):
            c.at(t, s.meta())
    return c


def v_retune():
    """A retune (CHANGE metadata twice), the periodic metadata after it; a lost datagram."""
    s, c = Stream(rate=20000), Capture()     # 5 ms a datagram: 500 ms is 100 of them
    t = 0
    c.at(t, s.meta())
    for i in range(200):
        if i == 30:
            s.meta_version += 1
            s.freq = 100000000
            c.at(t, s.meta(flags=M_CHANGE))
            c.at(t, s.meta(flags=M_CHANGE))
        elif i % 50 == 0 and i:
            c.at(t, s.meta())
        d = s.samples(flags=EOS if i == 199 else 0)
        if i != 70:
            c.at(t, d)
        t += 5 * 10**6
    return c


def v_forged_jump():
    """Unkeyed, forged datagrams: a number far ahead, an index that does not follow, an end of
    stream ahead.  The live stream contradicts each: nothing of them reaches the output."""
    s, c = Stream(), Capture()
    c.at(0, s.meta())
    t = 0
    for i in range(200):
        c.at(t, s.samples(flags=EOS if i == 199 else 0))
        if i == 50:
            c.add(s.samples(seq=s.seq + 5000, first=s.first + 500000, advance=False,
                            payload=b'\xee' * 400))
        if i == 100:
            c.add(s.samples(seq=s.seq, first=s.first + 10**9, advance=False,
                            payload=b'\xee' * 400))
        t += DGRAM_NS
    return c


def v_fec():
    """Parity 4:2: blocks with one or two datagrams lost are restored; one with three is not."""
    s = Stream(fec=(4, 2))
    s.spd = 84                      # 16 bytes less, as a sender that protects its stream
    c = Capture()
    run_stream(c, s, 40, drop={1, 8, 9, 16, 17, 18, 25, ('p', 24, 0)})
    return c


def v_window_edge():
    """The reorder window W (64 datagrams here): a datagram 63 places late is in time, one 64
    places late was declared lost and is late."""
    s, c = Stream(), Capture()
    c.at(0, s.meta())
    ds = [s.samples(flags=EOS if i == 299 else 0) for i in range(300)]
    for i, d in enumerate(ds):
        if i not in (20, 120):
            c.at(i * DGRAM_NS, d)
        if i == 83:
            c.add(ds[20])
        if i == 184:
            c.add(ds[120])
    return c


def v_fec_window():
    """Parity 16:4 makes W 4 x (16 + 4) = 80, rounded up to 128: a datagram 100 places late
    is in time, one 128 places late is not."""
    s = Stream(fec=(16, 4))
    s.spd = 84
    c = Capture()
    sent, t = run_stream(c, s, 400, drop={30, 200} | {('p', b, j) for b in (16, 192)
                                                      for j in range(4)})
    out = []
    for tt, d in c.recs:
        out.append((tt, d))
        seq = struct.unpack_from('<Q', d, 8)[0] if d[3] == 0 else None
        if seq == 130:
            out.append((tt, sent[30]))
        if seq == 328:
            out.append((tt, sent[200]))
    c.recs = out
    return c


def v_hold():
    """The hold: with a hole in the window, a pause of 95 ms releases nothing (the missing
    datagram then fills it); one of 105 ms releases what is held (the hole lost, the missing
    datagram late)."""
    s, c = Stream(), Capture()
    c.at(0, s.meta())
    ds = [s.samples(flags=EOS if i == 99 else 0) for i in range(100)]
    t = 0
    for i in range(100):
        if i in (30, 70):
            t += (95 if i == 30 else 105) * 10**6
            c.at(t, ds[i - 2])
        if i not in (28, 68):
            c.at(t, ds[i])
        t += DGRAM_NS
    return c


def v_eos_quiet():
    """An end of stream is believed after 100 ms of silence: one followed by more of the stream
    50 ms later is not; the last one, then 150 ms of silence, is: the next stream is followed
    at once."""
    a, b = Stream(sid=0xe0e0), Stream(sid=0xe1e1)
    c = Capture()
    c.at(0, a.meta())
    t = 0
    for i in range(80):
        c.at(t, a.samples(flags=EOS if i in (39, 79) else 0))
        t += DGRAM_NS + (50 * 10**6 if i == 39 else 0)
    run_stream(c, b, 40, t0=t + 150 * 10**6)
    return c


def v_silence():
    """A stream that stops without its end: another stream id is foreign for 1.5 s, then
    followed."""
    a, b = Stream(sid=0x5100), Stream(sid=0x5200)
    c = Capture()
    _, t = run_stream(c, a, 60, eos=False)
    last = t - DGRAM_NS
    c.at(last + 1450 * 10**6, b.meta())
    c.add(b.samples())
    run_stream(c, Stream(sid=0x5200), 60, t0=last + 1550 * 10**6)
    return c


def v_confirm_format():
    """Unkeyed, a change of wire format is believed once repeated for 500 ms: before, the
    estimate of lost datagrams before a DISCONT uses the old samples per datagram, after it
    the new."""
    s, c = Stream(rate=20000), Capture()
    t = 0
    c.at(t, s.meta())
    for i in range(150):
        if i == 10:
            s.meta_version += 1
            s.fmt, s.spd = P12, 130
            c.at(t, s.meta(flags=M_CHANGE))
            c.at(t, s.meta(flags=M_CHANGE))
        if i in (100, 120):           # 450 ms and 550 ms after the change
            c.at(t, s.meta())
        flags = 0
        if i in (22, 62):             # delivered when the window passes the holes: 63 later
            s.first += 1000
            flags = DISCONT
        d = s.samples(flags=flags | (EOS if i == 149 else 0))
        if i not in (20, 21, 60, 61):
            c.at(t, d)
        t += 5 * 10**6
    return c


def outage(ratio):
    """100 datagrams, 1 s in which nothing arrives while the sender goes on (2000 datagrams),
    100 more; their sample index advanced by `ratio` times what 1 s holds."""
    s, c = Stream(), Capture()
    c.at(0, s.meta())
    t = 0
    for i in range(200):
        if i == 100:
            s.seq += 2000
            s.first += int(2000 * SPD * ratio)
            t += 10**9
        c.at(t, s.samples(flags=EOS if i == 199 else 0))
        t += DGRAM_NS
    return c


def v_outage():
    """A jump in seq beyond twice the window, believed once the old position has been silent
    (100 ms), filled: 1 s of stream is within the bound of real time."""
    return outage(1.0)


def v_outage_fast():
    """The same jump claiming 1.1 s of samples after 1 s: more zeros than real time allows,
    so the position is taken as is and nothing is filled."""
    return outage(1.1)


def v_keyed():
    """A keyed stream, received with the key: everything verifies."""
    c = Capture(keyed=True)
    run_stream(c, Stream(keyed=True), 100, drop={40})
    return c


def v_keyed_no_key():
    """The same stream received without the key: the trailers set aside, nothing verified."""
    c = Capture()
    run_stream(c, Stream(keyed=True), 100, drop={40})
    return c


def v_keyed_forged():
    """With the key: unkeyed datagrams, a keyed one altered after sealing (its version byte, its
    samples), one sealed under another key, all counted auth whatever else is wrong; one sealed
    with protocol version 2 verifies and is then bad_version."""
    s, c = Stream(keyed=True), Capture(keyed=True)
    plain = Stream()
    c.at(0, s.meta())
    t = 0
    for i in range(80):
        d = s.samples(flags=EOS if i == 79 else 0)
        c.at(t, d)
        if i == 10:
            c.add(plain.meta())
            c.add(plain.samples(seq=11, first=1100, advance=False))
        if i == 20:
            c.add(d[:2] + b'\x02' + d[3:])                       # auth, not bad_version
            c.add(d[:40] + bytes([d[40] ^ 1]) + d[41:])          # a sample altered
            c.add(b'ZS')                                          # auth, not truncated
        if i == 30:
            other_key = bytes(32)
            d2 = s.samples(seq=31, first=3100, advance=False)[:-16]
            c.add(d2 + tag(other_key, d2, 31))
        if i == 40:
            v2 = bytearray(s.samples(seq=41, first=4100, advance=False)[:-16])
            v2[2] = 2
            c.add(bytes(v2) + tag(KEY, bytes(v2), 41))
        t += DGRAM_NS
    return c


def v_keyed_replay():
    """With the key: the run's own metadata replayed (refused: meta_seq), its sample datagrams
    replayed (duplicates, or late), an earlier run's metadata (refused: old_run) and samples
    (foreign)."""
    old = Stream(keyed=True, run=1, salt=b'old-salt', sid=0x01d)
    old_meta = old.meta()
    old_samples = [old.samples() for _ in range(5)]
    s, c = Stream(keyed=True, run=2), Capture(keyed=True)
    first_meta = s.meta()
    c.at(0, first_meta)
    t = 0
    ds = []
    for i in range(600):
        if i and i % 200 == 0:
            c.at(t, s.meta())
        d = s.samples(flags=EOS if i == 599 else 0)
        ds.append(d)
        c.at(t, d)
        if i == 50:
            c.add(first_meta)
            c.add(ds[45])
            c.add(old_meta)
            c.add(old_samples[0])
        if i == 500:
            c.add(ds[10])
        t += DGRAM_NS
    return c


def v_keyed_new_run():
    """With the key: a later run (run 3, another stream id) replaces the run followed at once,
    before it has fallen silent; the earlier run's datagrams after that are foreign."""
    a, b = Stream(keyed=True, run=2, sid=0xa2), Stream(keyed=True, run=3, sid=0xa3,
                                                         salt=b'run3salt')
    c = Capture(keyed=True)
    c.at(0, a.meta())
    t = 0
    for i in range(60):
        c.at(t, a.samples())
        t += DGRAM_NS
    c.at(t, b.meta())
    for i in range(60):
        c.at(t, b.samples(flags=EOS if i == 59 else 0))
        c.add(a.samples())
        t += DGRAM_NS
    return c


def v_keyed_fec():
    """With the key: keyed parity (type 130) restores lost datagrams; the rebuilt ones verify."""
    s = Stream(keyed=True, fec=(4, 2))
    s.spd = 78                        # 40 bytes less: the trailer and the parity's header
    c = Capture(keyed=True)
    run_stream(c, s, 40, drop={1, 8, 9, 16, 17, 18})
    return c


def v_start_pre_meta():
    """Joined mid-stream: five sample datagrams before the first metadata heard."""
    s, c = Stream(), Capture()
    s.seq, s.first = 1000, 100000
    t = 0
    for _ in range(5):
        c.at(t, s.samples())
        t += DGRAM_NS
    run_stream(c, s, 100, t0=t)
    return c


def v_start_meta_lost():
    """The stream's first metadata lost: its datagrams 0-3 come before the next metadata."""
    s, c = Stream(), Capture()
    s.meta()                            # sent, lost
    t = 0
    for _ in range(4):
        c.at(t, s.samples())
        t += DGRAM_NS
    run_stream(c, s, 100, t0=t)
    return c


def v_start_reordered():
    """The stream's datagram 1 arrives before datagram 0, both after the metadata."""
    s, c = Stream(), Capture()
    c.at(0, s.meta())
    d0, d1 = s.samples(), s.samples()
    c.add(d1)
    c.add(d0)
    run_stream(c, s, 100, t0=DGRAM_NS)
    return c


def v_start_forger_first():
    """A lone sample datagram of another stream id comes first; the real stream's metadata then
    takes the receiver over."""
    f, s, c = Stream(sid=0xbad), Stream(), Capture()
    c.at(0, f.samples(payload=b'\xee' * 400))
    run_stream(c, s, 100, t0=DGRAM_NS)
    return c


def v_start_forged_ahead():
    """After the metadata, a copy of datagram 0 renumbered 100,000 ahead arrives first: the
    metadata names the stream's own run, so the copy is never its start (counted
    unconfirmed)."""
    s, c = Stream(), Capture()
    c.at(0, s.meta())
    d0 = s.samples(advance=False)
    c.add(d0[:8] + struct.pack('<Q', 100000) + d0[16:])
    t = 0
    for i in range(100):
        c.at(t, s.samples(flags=EOS if i == 99 else 0))
        t += DGRAM_NS
    return c


def v_start_late_join():
    """Joined late: the metadata (next_seq 1000), then nothing for 100 ms, then the stream from
    datagram 1200: where the rate has taken it since the metadata, so two datagrams confirm
    it."""
    s, c = Stream(), Capture()
    s.seq, s.first = 1000, 100000
    c.at(0, s.meta())
    s.seq, s.first = 1200, 120000
    run_stream(c, s, 100, t0=100 * 10**6)
    c.recs = [r for r in c.recs if r[1][3] != 1 or r[0] == 0]      # no metadata after the first
    return c


def v_start_majority():
    """Forged metadata first, naming a next_seq far from the stream; the real stream then shows
    no metadata for its first 20 datagrams: its run, 8 datagrams and more than twice all others,
    is the start whatever the metadata says."""
    s, c = Stream(), Capture()
    c.at(0, s.meta(next_seq=10**9))
    t = 0
    for i in range(100):
        if i == 20:
            c.at(t, s.meta())
        c.at(t, s.samples(flags=EOS if i == 99 else 0))
        t += DGRAM_NS
    return c


def v_start_silence():
    """Metadata naming a next_seq far away, three datagrams of the stream, then 150 ms of
    silence: the run with the most, two or more, is the start; the stream then goes on."""
    s, c = Stream(), Capture()
    c.at(0, s.meta(next_seq=10**9))
    t = 0
    for i in range(60):
        if i == 3:
            t += 150 * 10**6
        c.at(t, s.samples(flags=EOS if i == 59 else 0))
        t += DGRAM_NS
    return c


def v_start_at_end():
    """Metadata naming a next_seq far away and one datagram, then the capture ends: at the end
    the run with the most is the start, and delivered."""
    s, c = Stream(), Capture()
    c.at(0, s.meta(next_seq=10**9))
    c.at(DGRAM_NS, s.samples(flags=EOS))
    return c


def v_large():
    """Datagrams of 15,998 bytes (p12, 5,322 pairs: a sender at MTU 16000), two reordered and
    one lost: a receiver takes every datagram up to 65,507 bytes."""
    s, c = Stream(fmt=P12, spd=5322, rate=2000000), Capture()
    c.at(0, s.meta())
    ds = [s.samples(flags=EOS if i == 11 else 0) for i in range(12)]
    order = [0, 1, 2, 4, 3, 5, 6, 7, 9, 10, 11]
    for k, i in enumerate(order):
        c.at(k * 2661000, ds[i])
    return c


def v_start_two_senders():
    """Two senders start together: A's metadata, B's metadata, then both streams' datagrams. B's
    metadata takes the receiver over before A has shown a sample datagram; A is then foreign."""
    a, b = Stream(sid=0xa000), Stream(sid=0xb000, fmt=P12, spd=150)
    c = Capture()
    c.at(0, a.meta())
    c.add(b.meta())
    t = 0
    for i in range(60):
        c.at(t, a.samples(flags=EOS if i == 59 else 0))
        c.add(b.samples(flags=EOS if i == 59 else 0))
        t += DGRAM_NS
    return c


def v_confirm_cancel():
    """Unkeyed, a change of format announced (CHANGE twice), then a sample datagram of the old
    format: the change is cancelled (unconfirmed); announced again, then metadata of the old
    settings: cancelled again.  The output is every datagram decoded by its own format."""
    s, c = Stream(), Capture()
    t = 0
    c.at(t, s.meta())
    for i in range(120):
        if i in (30, 80):
            s.meta_version += 1
            s.fmt, s.spd = P12, 130
            c.at(t, s.meta(flags=M_CHANGE))
            c.at(t, s.meta(flags=M_CHANGE))
            s.fmt, s.spd = I16, 100         # the sender did not change (a forger said so)
            s.meta_version -= 1
        if i == 90:
            c.at(t, s.meta())
        c.at(t, s.samples(flags=EOS if i == 119 else 0))
        t += DGRAM_NS
    return c


VECTORS = {
    'clean': ('one i16 stream, nothing lost', v_clean),
    'clean_p12': ('one p12 stream', v_clean_p12),
    'clean_i8': ('one i8 stream', v_clean_i8),
    'i16_clip': ('i16 values outside 12 bits, clipped', v_i16_clip),
    'drops': ('datagrams lost alone and in runs, zero-filled', v_drops),
    'reorder': ('reordered within the window', v_reorder),
    'duplicates': ('copies, at once and long after', v_duplicates),
    'late': ('a datagram after the window passed it', v_late),
    'pause': ('a pause with a hole: the hold releases the window', v_pause),
    'compressed': ('zstd payloads, one lost', v_compressed),
    'invalid': ('every rejection reason among a stream', v_invalid),
    'wrong_version': ('datagrams of another protocol version', v_wrong_version),
    'join_next_seq': ('joined at the metadata\'s next_seq', v_join_at_next_seq),
    'join_lost_first': ('joined, the first datagrams lost', v_join_lost_first),
    'two_senders': ('a second stream: foreign, then followed', v_two_senders),
    'restart': ('a sender restart after silence', v_restart),
    'discont': ('source loss (DISCONT) and network loss', v_discont),
    'format_change': ('the wire format changes twice', v_format_change),
    'retune': ('a retune announced with CHANGE', v_retune),
    'forged_jump': ('forged far-ahead and non-following datagrams', v_forged_jump),
    'fec': ('parity datagrams restore lost ones', v_fec),
    'window_edge': ('the reorder window\'s edge: 63 places late, 64', v_window_edge),
    'fec_window': ('the window of a stream with parity 16:4', v_fec_window),
    'hold': ('pauses of 95 and 105 ms with a hole in the window', v_hold),
    'eos_quiet': ('an end of stream contradicted, then believed', v_eos_quiet),
    'silence': ('another stream id after 1.45 s and 1.55 s of silence', v_silence),
    'outage': ('1 s lost, the jump confirmed by silence, filled', v_outage),
    'outage_fast': ('a jump claiming more samples than real time allows', v_outage_fast),
    'keyed': ('a keyed stream with the key', v_keyed),
    'keyed_no_key': ('a keyed stream without the key', v_keyed_no_key),
    'keyed_forged': ('with the key: unkeyed, altered, other key, version 2', v_keyed_forged),
    'keyed_replay': ('with the key: replays of the run and of an earlier run', v_keyed_replay),
    'keyed_new_run': ('with the key: a later run replaces the run followed', v_keyed_new_run),
    'keyed_fec': ('with the key: keyed parity', v_keyed_fec),
    'start_pre_meta': ('joined mid-stream, datagrams before the metadata', v_start_pre_meta),
    'start_meta_lost': ('the first metadata lost, datagrams 0-3 before the next',
                        v_start_meta_lost),
    'start_reordered': ('datagram 1 before datagram 0 at the start', v_start_reordered),
    'start_forger_first': ('a lone datagram of another stream first', v_start_forger_first),
    'start_forged_ahead': ('a copy renumbered far ahead before the stream\'s first',
                           v_start_forged_ahead),
    'start_late_join': ('joined late: the run where the rate has taken the stream',
                        v_start_late_join),
    'start_majority': ('misleading metadata: the run of 8 and twice all others', v_start_majority),
    'start_silence': ('misleading metadata: the run with the most after 100 ms of silence',
                      v_start_silence),
    'start_at_end': ('misleading metadata: the run with the most at the end', v_start_at_end),
    'large': ('datagrams of 15,998 bytes, reordered and lost', v_large),
    'start_two_senders': ('two senders start together: the later metadata first shown',
                          v_start_two_senders),
    'confirm_cancel': ('an unkeyed change cancelled by the old format, then by old metadata',
                       v_confirm_cancel),
    'confirm_format': ('an unkeyed change of format before and after 500 ms', v_confirm_format),
}


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or list(VECTORS)
    for name in names:
        desc, build = VECTORS[name][:2]
        cap = build()
        cap.write(os.path.join(out, name + '.zcsv'))
        # what is expected comes from zcs-recv (check_vectors.py --update), not from here
        with open(os.path.join(out, name + '.json'), 'w') as f:
            json.dump({'description': desc, 'key': KEYFILE if cap.keyed else None}, f,
                      indent=1, sort_keys=True)
            f.write('\n')
        if cap.keyed:
            with open(os.path.join(out, KEYFILE), 'w') as f:
                f.write(KEY.hex() + '\n')
            os.chmod(os.path.join(out, KEYFILE), 0o600)


if __name__ == '__main__':
    main()
