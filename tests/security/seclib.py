# SPDX-License-Identifier: MIT
# Helpers for the hardening tests of tests/security: a zcs stream written here datagram by datagram
# (docs/protocol.md: version 1, unkeyed, wire format i16), so a test can put any bytes in a
# metadata string and knows every sample the receiver must put out; plus checks that count.
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'recv'))
import recvlib  # noqa: E402  (Recv, isolate)

WIRE_I16 = 3
SPD = 100                 # pairs per sample datagram
RATE = 10_000_000         # announced; the tests send slower, so no bound on the rate bites
STREAM = 0x5ec0a11d


def meta_dgram(stream=STREAM, sender=b'lab-pc', version=b'0.1.0', source=b'tone', rate=RATE,
               next_seq=0, meta_version=1):
    """A metadata datagram (128 bytes); the strings are raw bytes, cut or padded to their fields
    (sender 32, version 16, source 8, each NUL terminated)."""
    def field(s, n):
        s = s[:n - 1]
        return s + b'\0' * (n - len(s))
    b = struct.pack('<2sBBIIiQQQQQQBBBBHH', b'ZS', 1, 1, stream, meta_version, 0, next_seq, 0, 0,
                    rate, 100_000_000, 0, 0, 0, WIRE_I16, 0, SPD, 0)
    b += field(sender, 32) + field(version, 16) + field(source, 8)
    assert len(b) == 128
    return b


def pair_values(idx):
    """The 12-bit I and Q of sample idx: a fixed function of the index, so any run of output
    tells where in the stream it comes from."""
    return ((idx * 7) % 4096) - 2048, 2047 - ((idx * 13) % 4096)


_payloads = {}


def sample_dgram(seq, stream=STREAM, flags=0):
    """Sample datagram seq: SPD pairs from index seq * SPD, i16 on the wire."""
    first = seq * SPD
    # the values repeat every 4096 samples, the payloads every 1024 datagrams: made once each
    key = first % 102400      # lcm(SPD, 4096)
    payload = _payloads.get(key)
    if payload is None:
        payload = b''.join(struct.pack('<hh', *pair_values(first + i)) for i in range(SPD))
        _payloads[key] = payload
    return struct.pack('<2sBBIQQBBHHH', b'ZS', 1, 0, stream, seq, first, WIRE_I16, flags, SPD,
                       len(payload), 0) + payload


def eos_dgram(seq, stream=STREAM):
    """The end of stream: a sample datagram with no samples, flagged EOS."""
    return struct.pack('<2sBBIQQBBHHH', b'ZS', 1, 0, stream, seq, seq * SPD, WIRE_I16, 0x01, 0,
                       0, 0)


def expect_cs16(first, pairs):
    """The cs16 bytes zcs-recv puts out for samples first..first+pairs-1 (value << 4)."""
    return b''.join(struct.pack('<hh', i << 4, q << 4)
                    for i, q in (pair_values(first + k) for k in range(pairs)))


def expect_cu8(first, pairs):
    """The cu8 bytes (rtl_tcp) for samples first..first+pairs-1: value / 16 rounded to nearest
    (halves away from zero), saturated to int8, + 128 (docs/outputs.md)."""
    def cu8(v):
        return min(max((v + 8 - (v < 0)) >> 4, -128), 127) + 128
    return bytes(b for i, q in (pair_values(first + k) for k in range(pairs))
                 for b in (cu8(i), cu8(q)))


def cu8_contiguous(data):
    """Whether data is cu8 pairs that follow each other in the stream (from anywhere)."""
    if len(data) < 2 or len(data) % 2:
        return False
    for idx in range(4096 * 13):
        if expect_cu8(idx, 1) == data[:2] and expect_cu8(idx, len(data) // 2) == data:
            return True
    return False


def cs16_contiguous(data):
    """Whether data is whole cs16 pairs that follow each other in the stream (it may start
    anywhere: a late client starts at a block boundary).  Returns (ok, first index mod 4096)."""
    if len(data) < 4 or len(data) % 4:
        return False, None
    i0, q0 = struct.unpack_from('<hh', data, 0)
    start = None
    for idx in range(4096 * 13):   # the pattern repeats every 4096 samples
        if pair_values(idx) == (i0 >> 4, q0 >> 4):
            start = idx
            break
    if start is None:
        return False, None
    return data == expect_cs16(start, len(data) // 4), start % 4096


class Stream:
    """A paced sender of the stream on a thread: metadata every 200 datagrams, then sample
    datagrams until stop() (or `count` of them), then end of stream."""

    def __init__(self, port, count=None, per_sec=2000, host='127.0.0.1', extra=None, meta=None):
        self.addr = (host, port)
        self.meta = meta or {}      # meta_dgram's keywords for the stream's own metadata
        self.count = count
        self.per_sec = per_sec
        self.extra = extra or {}    # seq -> list of datagrams sent before sample seq
        self.sent = 0
        self._stop = threading.Event()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def _run(self):
        t0 = time.monotonic()
        seq = 0
        while not self._stop.is_set() and (self.count is None or seq < self.count):
            if seq % 200 == 0:
                self.sock.sendto(meta_dgram(next_seq=seq, **self.meta), self.addr)
            for d in self.extra.get(seq, []):
                self.sock.sendto(d, self.addr)
            self.sock.sendto(sample_dgram(seq), self.addr)
            seq += 1
            self.sent = seq
            ahead = t0 + seq / self.per_sec - time.monotonic()
            if ahead > 0:
                time.sleep(ahead)
        self.sock.sendto(eos_dgram(seq), self.addr)
        self.sent = seq + 1

    def stop(self):
        self._stop.set()
        self.thread.join(30)

    def wait(self, timeout=120):
        self.thread.join(timeout)
        return not self.thread.is_alive()


class Check:
    """Counts failed checks; each prints one line."""

    def __init__(self, name):
        self.name = name
        self.fails = 0
        self.skips = 0

    def true(self, what, ok, detail=''):
        print(('ok   ' if ok else 'FAIL ') + what + ('' if ok or not detail else ': ' + str(detail)))
        if not ok:
            self.fails += 1
        return ok

    def eq(self, what, got, want):
        return self.true(f'{what} == {want!r}', got == want, f'got {got!r}')

    def skip(self, what):
        """A check that could not run here: the test is a skip (exit status 77, which meson
        counts) once every other check passed."""
        print('SKIP ' + what)
        self.skips += 1

    def done(self):
        print(f'{self.name}: {"all passed" if not self.fails else str(self.fails) + " failed"}'
              f'{", " + str(self.skips) + " skipped" if self.skips else ""}')
        sys.exit(1 if self.fails else 77 if self.skips else 0)


def wait_for(cond, timeout=60.0, step=0.02):
    """Waits until cond() is true; returns whether it became true."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(step)
    return cond()


def json_lines(lines):
    """Every line of zcs output that parses as a JSON object."""
    out = []
    for line in lines:
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def validate_sigmf(c, meta_path, schema_path):
    """The .sigmf-meta parses as JSON and, where the schema exists, validates against it."""
    try:
        with open(meta_path) as f:
            meta = json.load(f)
    except ValueError as e:
        c.true(f'{meta_path} is valid JSON', False, e)
        return None
    c.true(f'{meta_path} is valid JSON', True)
    if not schema_path or not os.path.exists(schema_path):
        # ../shared/data may be absent in a clone: the test is then a skip
        c.skip(f'no SigMF schema at {schema_path}: schema check skipped (JSON checked)')
        return meta
    import jsonschema
    with open(schema_path) as f:
        schema = json.load(f)
    try:
        jsonschema.validate(meta, schema)
        c.true('sigmf meta valid against the SigMF schema', True)
    except jsonschema.ValidationError as e:
        c.true('sigmf meta valid against the SigMF schema', False, e.message)
    return meta


def finish(c, r, **kw):
    """recvlib.Recv.finish, and a check that zcs-recv exited 0 (a sanitizer's report makes it
    fail, so this is where the ASan build of the suite finds what it finds)."""
    summ = r.finish(**kw)
    c.eq('zcs-recv exit status', r.rc, 0)
    return summ


def kill_all(procs):
    for p in procs:
        if p is not None and p.poll() is None:
            p.kill()
            p.wait()


def run(args, timeout=60, **kw):
    return subprocess.run(args, timeout=timeout, capture_output=True, **kw)


# docs/protocol.md: where a datagram's type and a sample datagram's number are
OFF_TYPE, S_SEQ = 3, 8


def seq_of(d):
    return struct.unpack_from('<Q', d, S_SEQ)[0]


def with_u64(d, off, v):
    b = bytearray(d)
    struct.pack_into('<Q', b, off, v & (2**64 - 1))
    return bytes(b)


class Relay:
    """The network between a sender and zcs-recv, and the forger on it.  forge(kind, dgram,
    relay) is called for every real datagram before it is forwarded and returns (before, after,
    hold): datagrams to send before it, after it, and whether to hold it back until the next
    call (for a forgery that must arrive first)."""

    def __init__(self, port, dest, forge):
        self.rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.rx.bind(('127.0.0.1', port))
        self.rx.settimeout(0.2)
        self.tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.dest, self.forge, self.stop, self.forged = dest, forge, False, 0
        self.meta = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def send(self, d, forged=False):
        self.tx.sendto(d, self.dest)
        self.forged += forged

    def _run(self):
        held = []
        while True:
            try:
                d = self.rx.recv(65536)
            except socket.timeout:
                if self.stop:
                    break
                continue
            kind = 'meta' if d[OFF_TYPE] & 0x7f == 1 else 'samples'
            if kind == 'meta' and self.meta is None:
                self.meta = d
            before, after, hold = self.forge(kind, d, self)
            for f in before:
                self.send(f, True)
            if hold:
                held.append(d)
                continue
            for h in held + [d]:
                self.send(h)
            held = []
            for f in after:
                self.send(f, True)
        for h in held:
            self.send(h)

    def close(self):
        self.stop = True
        self.thread.join(10)
        self.rx.close()
        self.tx.close()
