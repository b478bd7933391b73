# SPDX-License-Identifier: MIT
# zcs-send's seeded tone through zcs-recv into every output kind at once (fifo, tcp, tcp-connect,
# udp, sigmf, rtl_tcp, file), exact to the byte, for every wire format x every output type; then
# consumers that leave and come back (FIFO, TCP; the returning TCP and rtl_tcp clients start
# reading late, as applications do: they skip to the live stream at their start, no overruns) and
# a TCP client that reads too slowly once it has caught up: the network side loses nothing and an
# overrun is counted for that output only.  Ports 21500-21599.
# Usage: test_kinds.py ZCS_RECV ZCS_SEND ZCS_TONE_EXPECT SIGMF_SCHEMA
import fcntl
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

import jsonschema

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recvlib import Checker, Recv, finish_suite, isolate, read, skip_check, workdir  # noqa: E402

isolate()   # a loopback of its own: another build directory may run this test at the same time

RECV, SEND, EXPECT, SCHEMA = sys.argv[1:5]
# The SigMF schema comes from outside the tree (../shared/data): a clone without it checks the
# .sigmf-meta with the project's own checks below, and the test is a skip (exit 77).
if not os.path.exists(SCHEMA):
    skip_check(f'no SigMF schema at {SCHEMA}: schema validation skipped (own checks run)')
    SCHEMA = None
BASE_PORT = 21500
RATE, TONE, AMP, SEED = 2000000, 123456, 0.7, 11
WIRE_PAIR = {'i8': 2, 'p12': 3, 'i16': 4}
TYPE_PAIR = {'cs8': 2, 'cu8': 2, 'cs16': 4, 'cf32': 8}
RTL_GREETING = b'RTL0' + (5).to_bytes(4, 'big') + (29).to_bytes(4, 'big')
UDP_MAX = 1472
NEWS_TIMEOUT = 10.0


def expected(fmt, out_type, count, noise=False):
    return subprocess.run([EXPECT, str(RATE), str(TONE), str(AMP), str(SEED), '1' if noise else '0',
                           fmt, out_type, '0', str(count)], check=True,
                          stdout=subprocess.PIPE).stdout


def send_args(port, fmt, count, noise=False, json_summary=False):
    return [SEND, '-q', '-s', 'tone', '-f', fmt, '-r', str(RATE), '--tone', str(TONE),
            '--amplitude', str(AMP), '--seed', str(SEED), '-n', str(count)] + \
        (['--noise'] if noise else []) + (['--json'] if json_summary else []) + \
        [f'127.0.0.1:{port}']


def send_summary(err):
    """zcs-send's --json summary from its standard error ({} when there is none)."""
    lines = [ln for ln in err.splitlines() if ln.startswith('{') and '"summary"' in ln]
    return json.loads(lines[-1]) if lines else {}


def send(c, args):
    p = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if not c.eq('zcs-send exit status', p.returncode, 0):
        print(p.stderr.decode(errors='replace'))


def pair_bytes(fmt, out_type):
    return WIRE_PAIR[fmt] if out_type == 'native' else TYPE_PAIR[out_type]


# ---- news from zcs-recv ----

def news_count(r, name, what):
    """Lines of news about output `name` that contain `what` ("came", "left", "connected")."""
    return sum(1 for line in list(r.lines)
               if line.startswith(f'zcs-recv: {name}: ') and what in line[len(name) + 12:])


def wait_news(c, r, name, what, count=1, timeout=NEWS_TIMEOUT):
    end = time.monotonic() + timeout
    while news_count(r, name, what) < count:
        if time.monotonic() > end or r.proc.poll() is not None:
            c.true(f'{name}: news "{what}" #{count} within {timeout} s', False)
            return False
        time.sleep(0.01)
    return True


def samples_per_dgram(r):
    for line in r.lines:
        m = re.search(r'(\d+) samples/datagram', line)
        if m:
            return int(m.group(1))
    return None


# ---- consumers ----

class Consumer(threading.Thread):
    """Reads one consumer's byte stream on a thread until EOF (or `limit` bytes, then leaves)."""

    def __init__(self, limit=None):
        super().__init__(daemon=True)
        self.limit = limit
        self.data = bytearray()
        self.error = None

    def want(self):
        return 65536 if self.limit is None else min(65536, self.limit - len(self.data))

    def run(self):
        try:
            while self.limit is None or len(self.data) < self.limit:
                chunk = self.read_some(self.want())
                if not chunk:
                    break
                self.data += chunk
        except OSError as e:
            self.error = e
        finally:
            self.close()

    def finish(self, c, what, timeout=30.0):
        self.join(timeout)
        c.true(f'{what}: reader finished', not self.is_alive())
        c.eq(f'{what}: reader error', self.error, None)
        return bytes(self.data)


class FifoReader(Consumer):
    """Opened without blocking, so the writer finds a reader; reads blocking once attached."""

    def __init__(self, path, limit=None):
        super().__init__(limit)
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)

    def begin(self):
        flags = fcntl.fcntl(self.fd, fcntl.F_GETFL)
        fcntl.fcntl(self.fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
        self.start()

    def read_some(self, n):
        return os.read(self.fd, n)

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class TcpReader(Consumer):
    """A TCP client of a tcp: or rtl_tcp: output; `slow` = (chunk, pause) once `slow_on` and until
    `hurry` is set."""

    def __init__(self, port, limit=None, rcvbuf=None, slow=None, sock=None):
        super().__init__(limit)
        self.slow = slow
        self.slow_on = threading.Event()
        self.hurry = threading.Event()
        if sock is None:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            if rcvbuf:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            sock.connect(('127.0.0.1', port))
        self.sock = sock
        self.sock.settimeout(60)

    def begin(self):
        self.start()

    def read_some(self, n):
        if self.slow and self.slow_on.is_set() and not self.hurry.is_set():
            time.sleep(self.slow[1])
            n = min(n, self.slow[0])
        return self.sock.recv(n)

    def peer_name(self):
        """How zcs-recv's news names this client: 127.0.0.1:PORT."""
        host, port = self.sock.getsockname()[:2]
        return f'{host}:{port}'

    def close(self):
        if self.sock:
            self.sock.close()
            self.sock = None


class TcpServer(threading.Thread):
    """The application a tcp-connect: output connects to: accepts a client per entry of limits,
    one after the other, and reads each to EOF (None) or to that many bytes, then closes it."""

    def __init__(self, port, limits=(None,)):
        super().__init__(daemon=True)
        self.lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind(('127.0.0.1', port))
        self.lsock.listen(1)
        self.lsock.settimeout(NEWS_TIMEOUT)
        self.limits = limits
        self.conns = []          # what each connection brought
        self.error = None

    def run(self):
        try:
            for limit in self.limits:
                conn, _ = self.lsock.accept()
                reader = TcpReader(0, limit=limit, sock=conn)
                reader.run()     # on this thread: the next accept waits for this one's end
                self.conns.append(bytes(reader.data))
                if reader.error:
                    raise reader.error
        except OSError as e:
            self.error = e
        finally:
            self.lsock.close()

    def begin(self):
        pass

    def finish(self, c, what, timeout=30.0):
        self.join(timeout)
        c.true(f'{what}: server finished', not self.is_alive())
        c.eq(f'{what}: server error', self.error, None)
        c.eq(f'{what}: connections', len(self.conns), len(self.limits))
        return self.conns + [b''] * (len(self.limits) - len(self.conns))


class UdpReader(threading.Thread):
    """The application of a udp: output: every datagram, with a big receive buffer."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:   # as root the rmem_max limit does not apply (SO_RCVBUFFORCE = 33)
            self.sock.setsockopt(socket.SOL_SOCKET, 33, 32 << 20)
        except OSError:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 << 20)
        self.sock.bind(('127.0.0.1', port))
        self.sock.settimeout(0.2)
        self.dgrams = []
        self.done = threading.Event()

    def run(self):
        while True:
            try:
                self.dgrams.append(self.sock.recv(65536))
            except socket.timeout:
                if self.done.is_set():
                    break
        self.sock.close()

    def finish(self):
        """After zcs-recv exited: whatever is still queued, then stop."""
        self.done.set()
        self.join(10)
        return self.dgrams


# ---- checks ----

def out_stats(s, name):
    for o in s.get('outputs', []):
        if o['name'] == name:
            return o
    return {}


def check_output(c, s, name, want_bytes, connects=1, unread=0, overruns=0):
    st = out_stats(s, name)
    c.eq(f'{name}: bytes', st.get('bytes'), want_bytes)
    c.eq(f'{name}: connects', st.get('connects'), connects)
    c.eq(f'{name}: unread', st.get('unread'), unread)
    c.eq(f'{name}: overruns', st.get('overruns'), overruns)
    c.eq(f'{name}: skipped', st.get('skipped'), 0)
    return st


def check_sigmf(c, path, datatype, want_data):
    c.same_bytes('sigmf data', read(path + '.sigmf-data'), want_data)
    with open(path + '.sigmf-meta') as f:
        meta = json.load(f)
    if SCHEMA:
        with open(SCHEMA) as f:
            schema = json.load(f)
        try:
            jsonschema.validate(meta, schema)
        except jsonschema.ValidationError as e:
            c.true(f'sigmf meta valid against the schema: {e.message}', False)
    g = meta.get('global', {})
    c.eq('sigmf core:datatype', g.get('core:datatype'), datatype)
    c.eq('sigmf core:sample_rate', g.get('core:sample_rate'), RATE)
    caps = meta.get('captures', [])
    c.eq('sigmf captures', [(x.get('core:sample_start'), x.get('core:global_index'))
                            for x in caps], [(0, 0)])
    c.eq('sigmf annotations', meta.get('annotations'), [])


def common_len(a, pa, b, pb):
    """Length of the common run of a[pa:] and b[pb:]."""
    n = min(len(a) - pa, len(b) - pb)
    i, step = 0, 65536
    while i < n:
        k = min(step, n - i)
        if a[pa + i:pa + i + k] != b[pb + i:pb + i + k]:
            while a[pa + i] == b[pb + i]:
                i += 1
            return i
        i += k
    return n


def find_on_grid(exp, probe, start, grid):
    pos = exp.find(probe, start)
    while pos >= 0 and pos % grid:
        pos = exp.find(probe, pos + 1)
    return pos


def block_slices(c, what, got, exp, grid):
    """Splits got into runs that are exact slices of exp, each starting and ending on the
    datagram grid (blocks hold whole datagrams), in increasing order.  [(start, end)] in exp."""
    runs, p, e = [], 0, 0
    while p < len(got):
        probe = got[p:p + 256]
        pos = find_on_grid(exp, probe, e, grid)
        if not c.true(f'{what}: bytes at {p} are a slice of the stream on the datagram grid '
                      f'at or after {e}', pos >= 0):
            return None
        n = common_len(got, p, exp, pos)
        end = pos + n
        if p + n < len(got):
            # the run is cut where a dropped block began: on the grid (noise never matches
            # a datagram's worth by chance)
            end = end // grid * grid
            if not c.true(f'{what}: run at {p} (stream {pos}) longer than nothing', end > pos):
                return None
        runs.append((pos, end))
        p += end - pos
        e = end
    return runs


# ---- 1: every kind at once ----

def case_all_kinds(idx, fmt, out_type):
    c = Checker(f'all kinds {fmt}->{out_type}')
    n = 300000
    port = BASE_PORT + 5 * idx
    p_tcp, p_tcpc, p_udp, p_rtl = port + 1, port + 2, port + 3, port + 4
    d = workdir('kinds')
    base = os.path.join(d, f'{fmt}.{out_type}')
    fifo, sigmf, fpath = base + '.fifo', base + '.rec', base + '.file'
    names = {'fifo': 'fifo:' + fifo, 'tcp': f'tcp:127.0.0.1:{p_tcp}',
             'tcpc': f'tcp-connect:127.0.0.1:{p_tcpc}', 'udp': f'udp:127.0.0.1:{p_udp}',
             'rtl': f'rtl_tcp:127.0.0.1:{p_rtl}', 'file': 'file:' + fpath}
    if out_type != 'native':   # p12 has no SigMF datatype: refused
        names['sigmf'] = 'sigmf:' + sigmf
    server = TcpServer(p_tcpc)
    server.start()
    udp = UdpReader(p_udp)
    udp.start()
    args = ['-F', out_type, '--exit-on-eos', f'127.0.0.1:{port}']
    for spec in names.values():
        args += ['-o', spec]
    r = Recv(RECV, args)
    fr = FifoReader(fifo)
    tc = TcpReader(p_tcp)
    rc = TcpReader(p_rtl)
    ok = all([wait_news(c, r, names['fifo'], 'reader came'),
              wait_news(c, r, names['tcp'], 'came'),
              wait_news(c, r, names['rtl'], 'came'),
              wait_news(c, r, names['tcpc'], 'connected to')])
    for x in (fr, tc, rc, server):
        x.begin()
    if ok:
        send(c, send_args(port, fmt, n))
    else:
        r.stop()
    s = r.finish()
    got = {'fifo': fr.finish(c, 'fifo'), 'tcp': tc.finish(c, 'tcp'),
           'rtl': rc.finish(c, 'rtl_tcp'), 'tcpc': server.finish(c, 'tcp-connect')[0]}
    dgrams = udp.finish()
    if not ok:
        print(r.news())
        return c

    exp = expected(fmt, out_type, n)
    exp_cu8 = expected(fmt, 'cu8', n)
    pb = pair_bytes(fmt, out_type)
    c.eq('exit status', r.rc, 0)
    c.counters(s, {'samples': n, 'lost': 0, 'invalid': 0, 'late': 0, 'duplicate': 0,
                   'gap_samples': 0, 'socket_drops': 0, 'overruns': 0, 'eos': 1})
    c.same_bytes('file', read(fpath), exp)
    c.same_bytes('fifo', got['fifo'], exp)
    c.same_bytes('tcp', got['tcp'], exp)
    c.same_bytes('tcp-connect', got['tcpc'], exp)
    c.eq('rtl_tcp greeting', got['rtl'][:12], RTL_GREETING)
    c.same_bytes('rtl_tcp (cu8 whatever -F)', got['rtl'][12:], exp_cu8)
    bad = [len(g) for g in dgrams if len(g) % pb or len(g) > UDP_MAX or not g]
    c.eq('udp datagrams not of whole pairs or too big', bad, [])
    c.same_bytes('udp (concatenated)', b''.join(dgrams), exp)
    if 'sigmf' in names:
        check_sigmf(c, sigmf, {'cs8': 'ci8', 'cu8': 'cu8', 'cs16': 'ci16_le',
                               'cf32': 'cf32_le'}[out_type], exp)
    for key, name in names.items():
        want = len(exp_cu8) if key == 'rtl' else len(exp)
        st = check_output(c, s, name, want)
        c.eq(f'{name}: blocks like file:', st.get('blocks'),
             out_stats(s, names['file']).get('blocks'))
    if c.failures:
        print(r.news())
    for p in (fifo, fpath, sigmf + '.sigmf-data', sigmf + '.sigmf-meta'):
        if os.path.exists(p):
            os.unlink(p)
    return c


# ---- 2: consumers that leave and come back ----

def check_suffix(c, what, got, exp, grid, after):
    """A consumer that came mid-stream: the stream's exact tail from a block boundary on."""
    off = len(exp) - len(got)
    c.true(f'{what}: got something ({len(got)} bytes)', len(got) > 0)
    c.same_bytes(f'{what}: the tail of the stream', got, exp[off:])
    c.eq(f'{what}: starts on a datagram boundary (offset {off} % {grid})', off % grid, 0)
    c.true(f'{what}: starts after the first consumer left ({off} >= {after})', off >= after)


# What the kernel can hold for a TCP client that has not read yet, whatever it was given before
# its stream jumped: our send buffer (4 MB at most by Linux's default tcp_wmem) and the client's
# receive buffer.  Twice that bounds the part before the live tail.
KERNEL_HELD_MAX = 2 * (4 << 20) + (1 << 20)


def check_late_tail(c, what, got, exp, grid, after, skipped):
    """A consumer that came mid-stream and may have started reading late: what the kernel took
    before it read (the stream from where it came, on the datagram grid), the jump to the live
    stream that its skipped blocks made, and from there the stream's exact tail to the end."""
    if skipped == 0:
        check_suffix(c, what, got, exp, grid, after)
        return
    runs = block_slices(c, what, got, exp, grid)
    if runs is None or not c.true(f'{what}: got something', runs != []):
        return
    c.true(f'{what}: starts after the first consumer left ({runs[0][0]} >= {after})',
           runs[0][0] >= after)
    c.true(f'{what}: skipped {skipped} blocks, so its stream jumps ({len(runs) - 1} jumps)',
           len(runs) > 1)
    c.eq(f'{what}: its last run is the exact tail of the stream, to the end', runs[-1][1], len(exp))
    c.same_bytes(f'{what}: the tail after its last jump', got[len(got) - (runs[-1][1] - runs[-1][0]):],
                 exp[runs[-1][0]:])
    head = len(got) - (runs[-1][1] - runs[-1][0])
    c.true(f'{what}: the jumps are at its start, in what the kernel held before it read '
           f'({head} bytes <= {KERNEL_HELD_MAX})', head <= KERNEL_HELD_MAX)
    print(f'{what}: {head} bytes the kernel held, then {len(runs) - 1} jump(s), then the last '
          f'{runs[-1][1] - runs[-1][0]} bytes of the stream; {skipped} blocks skipped', flush=True)


def wait_skipped(c, r, name, sender):
    """Until zcs-recv's statistics show output `name` skipping (its consumer reads nothing, so
    its queue filled) while the stream still runs."""
    while sender.poll() is None and r.proc.poll() is None:
        st = r.stats()
        if st and out_stats(st[-1], name).get('skipped', 0) > 0:
            return True
        time.sleep(0.02)
    return c.true(f'{name}: skipped while the stream still ran (else the machine is far too '
                  f'slow for this test)', False)


def case_leave_return(port):
    c = Checker('consumers leave and come back (fifo, tcp, tcp-connect, rtl_tcp)')
    # 5 s at 2 MS/s, cs16: 40 MB; a returning client that reads nothing skips after about 1.4 s
    # (tcp: 4 MB of socket and 112 blocks of queue at 8 MB/s) or 2 s (rtl_tcp's cu8)
    n = 10000000
    # what each first consumer reads before it leaves: not whole pairs, a reader may leave anywhere
    first = {'fifo': 1000003, 'tcp': 1500001, 'tcpc': 1200002, 'rtl': 12 + 700001}
    d = workdir('kinds')
    fifo, fpath = os.path.join(d, 'leave.fifo'), os.path.join(d, 'leave.cs16')
    names = {'fifo': 'fifo:' + fifo, 'tcp': f'tcp:127.0.0.1:{port + 1}',
             'tcpc': f'tcp-connect:127.0.0.1:{port + 2}', 'rtl': f'rtl_tcp:127.0.0.1:{port + 3}'}
    nfile = 'file:' + fpath
    # the application behind tcp-connect: drops the first connection, keeps the second
    server = TcpServer(port + 2, limits=(first['tcpc'], None))
    server.start()
    args = ['-F', 'cs16', '-o', nfile, '--exit-on-eos', f'127.0.0.1:{port}']
    for spec in names.values():
        args += ['-o', spec]
    r = Recv(RECV, args, interval=0.05)
    one = {'fifo': FifoReader(fifo, limit=first['fifo']),
           'tcp': TcpReader(port + 1, limit=first['tcp']),
           'rtl': TcpReader(port + 3, limit=first['rtl'])}
    ok = all([wait_news(c, r, names['fifo'], 'reader came'), wait_news(c, r, names['tcp'], 'came'),
              wait_news(c, r, names['rtl'], 'came'),
              wait_news(c, r, names['tcpc'], 'connected to')])
    for x in one.values():
        x.begin()
    sender = subprocess.Popen(send_args(port, 'p12', n, noise=True), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    got1 = {k: x.finish(c, f'{k} 1') for k, x in one.items()}
    ok = ok and all([wait_news(c, r, names[k], 'left') for k in names])
    # stay away until blocks have passed with nobody attached (unread): at least 200 datagrams
    # (~3 blocks) read after everyone left, however slowly the machine runs the sender
    base = r.stats()[-1]['datagrams'] if r.stats() else 0
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and sender.poll() is None:
        st = r.stats()
        if st and st[-1]['datagrams'] >= base + 200:
            break
        time.sleep(0.02)
    ok = ok and c.true('the stream still runs when the new consumers come (else the machine '
                       'is far too slow for this test)', sender.poll() is None)
    two = {'fifo': FifoReader(fifo), 'tcp': TcpReader(port + 1), 'rtl': TcpReader(port + 3)}
    # the stream runs.  The FIFO's reader and tcp-connect's application read from the moment
    # they are there (the FIFO's once zcs-recv has it open for writing: before, a read would
    # see end of file); the TCP and rtl_tcp clients connect and read nothing until their output
    # skips, as an application that builds its DSP chain after it connected does (#24): they
    # must skip to the live stream at their start, not overrun in their middle
    ok = ok and wait_news(c, r, names['fifo'], 'reader came', 2)
    two['fifo'].begin()
    ok = ok and all([wait_news(c, r, names['tcp'], 'came', 2),
                     wait_news(c, r, names['rtl'], 'came', 2),
                     wait_news(c, r, names['tcpc'], 'connected to', 2)])
    for k in ('tcp', 'rtl'):
        ok = ok and wait_skipped(c, r, names[k], sender)
        two[k].begin()
    err = sender.communicate(timeout=60)[1]
    if not c.eq('zcs-send exit status', sender.returncode, 0):
        print(err.decode(errors='replace'))
    s = r.finish()
    got2 = {k: x.finish(c, f'{k} 2') for k, x in two.items()}
    got1['tcpc'], got2['tcpc'] = server.finish(c, 'tcp-connect')
    if not ok:
        print(r.news())
        return c

    exp = expected('p12', 'cs16', n, noise=True)
    exp_cu8 = expected('p12', 'cu8', n, noise=True)
    spd = samples_per_dgram(r)
    c.eq('exit status', r.rc, 0)
    c.counters(s, {'samples': n, 'lost': 0, 'socket_drops': 0, 'invalid': 0, 'gap_samples': 0,
                   'overruns': 0, 'eos': 1})
    c.same_bytes('file: beside them', read(fpath), exp)
    fst = check_output(c, s, nfile, len(exp))
    for key, name in names.items():
        g1, g2, want, grid = got1[key], got2[key], exp, spd * 4
        if key == 'rtl':
            c.eq('rtl_tcp 1: greeting', g1[:12], RTL_GREETING)
            c.eq('rtl_tcp 2: greeting', g2[:12], RTL_GREETING)
            g1, g2, want, grid = g1[12:], g2[12:], exp_cu8, spd * 2
        c.eq(f'{name} 1: read what it wanted', len(g1), first[key] - (12 if key == 'rtl' else 0))
        c.same_bytes(f'{name} 1: the head of the stream', g1, want[:len(g1)])
        st = out_stats(s, name)
        if key in ('tcp', 'rtl'):
            c.true(f'{name} 2 began late: skipped > 0 ({st.get("skipped")})',
                   st.get('skipped', 0) > 0)
        check_late_tail(c, f'{name} 2', g2, want, grid, len(g1), st.get('skipped', 0))
        c.eq(f'{name}: connects', st.get('connects'), 2)
        c.eq(f'{name}: consumers at the end', st.get('consumers'), 1)
        c.eq(f'{name}: overruns', st.get('overruns'), 0)
        c.true(f'{name}: unread > 0 while nobody was there ({st.get("unread")})',
               st.get('unread', 0) > 0)
        c.eq(f'{name}: blocks + unread + skipped = the blocks file: got',
             st.get('blocks', 0) + st.get('unread', 0) + st.get('skipped', 0), fst.get('blocks'))
        c.true(f'{name}: bytes {st.get("bytes")} >= what both consumers read',
               st.get('bytes', 0) >= len(g1) + len(g2))
    if c.failures:
        print(r.news())
    os.unlink(fpath)
    os.unlink(fifo)
    return c


# ---- 3: a client that reads too slowly ----

def case_slow(port):
    c = Checker('a tcp client that turns slow once it caught up, beside a fast one and a file')
    # A consumer catches up 3 s after it came at the earliest (ZCS_OUT_CATCHUP_NS), later on a
    # busy machine: the stream runs until the slow one has overrun (at most 60 s at 2 MS/s), then
    # the sender is stopped by SIGTERM, which ends its stream cleanly; what it sent is the count
    n = 120000000
    d = workdir('kinds')
    fpath = os.path.join(d, 'slow.cs16')
    nt, nfile = f'tcp:127.0.0.1:{port + 1}', 'file:' + fpath
    r = Recv(RECV, ['-F', 'cs16', '-o', nt, '-o', nfile, '--exit-on-eos', f'127.0.0.1:{port}'],
             interval=0.05)
    fast = TcpReader(port + 1)
    slow = TcpReader(port + 1, slow=(4096, 0.05))
    ok = wait_news(c, r, nt, 'came', 2)
    fast.begin()
    slow.begin()
    if ok:
        sender = subprocess.Popen(send_args(port, 'p12', n, noise=True, json_summary=True),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        # it reads the live stream until zcs-recv says it caught up, then falls behind in the
        # middle of its stream: that is an overrun, not a start that skips
        ok = wait_news(c, r, nt, f'client {slow.peer_name()} caught up', timeout=60)
        slow.slow_on.set()
        # once it has overrun, it reads at full speed again: what its socket and queue hold is
        # drained while the stream still runs, so it ends with the stream, a second later
        while ok and sender.poll() is None:
            st = r.stats()
            if st and out_stats(st[-1], nt).get('overruns', 0) > 0:
                break
            time.sleep(0.02)
        slow.hurry.set()
        time.sleep(1)             # drains its queue and reads the live stream again
        if sender.poll() is None:
            sender.send_signal(signal.SIGTERM)
        err = sender.communicate(timeout=60)[1].decode(errors='replace')
        if not c.eq('zcs-send exit status', sender.returncode, 0):
            print(err)
        n = send_summary(err).get('samples', n)
    else:
        r.stop()
    slow.hurry.set()          # the stream is over: take the rest at once
    s = r.finish()
    gf = fast.finish(c, 'fast client')
    gs = slow.finish(c, 'slow client')
    if not ok:
        print(r.news())
        return c

    exp = expected('p12', 'cs16', n, noise=True)
    grid = samples_per_dgram(r) * 4
    c.eq('exit status', r.rc, 0)
    c.counters(s, {'samples': n, 'lost': 0, 'socket_drops': 0, 'invalid': 0, 'gap_samples': 0,
                   'eos': 1})
    c.same_bytes('file:', read(fpath), exp)
    c.same_bytes('fast client', gf, exp)
    fst = check_output(c, s, nfile, len(exp))
    st = out_stats(s, nt)
    skipped = st.get('skipped', 0)
    c.true(f'{nt}: overruns > 0 ({st.get("overruns")})', st.get('overruns', 0) > 0)
    c.eq('overruns in total are the slow output\'s own', s.get('overruns'), st.get('overruns'))
    c.eq(f'{nt}: unread', st.get('unread'), 0)
    c.eq(f'{nt}: connects', st.get('connects'), 2)
    # the fast client took everything; the slow one may also have skipped at its start, had the
    # machine kept it from reading then
    c.eq(f'{nt}: blocks + overruns + skipped = 2 x the blocks file: got',
         st.get('blocks', 0) + st.get('overruns', 0) + skipped, 2 * fst.get('blocks', 0))
    c.eq(f'{nt}: bytes = what both clients read', st.get('bytes'), len(gf) + len(gs))
    runs = block_slices(c, 'slow client', gs, exp, grid)
    if runs is not None and c.true('slow client: got something', runs != []):
        c.true(f'slow client: lost something ({len(gs)} of {len(exp)} bytes)', len(gs) < len(exp))
        if skipped == 0:
            c.eq('slow client: starts at the first sample', runs[0][0], 0)
        # the last blocks may have been dropped too, but never half of one
        c.true(f'slow client: ends at the end or on the datagram grid ({runs[-1][1]})',
               runs[-1][1] == len(exp) or runs[-1][1] % grid == 0)
        c.true(f'slow client: holes ({len(runs) - 1}) <= overruns + skipped',
               len(runs) - 1 <= st.get('overruns', 0) + skipped)
        print(f'slow client: {len(gs)} of {len(exp)} bytes in {len(runs)} runs, '
              f'{st.get("overruns")} blocks overrun, {skipped} skipped', flush=True)
    if c.failures:
        print(r.news())
    os.unlink(fpath)
    return c


def main():
    checks = []
    idx = 0
    for fmt in ('p12', 'i8', 'i16'):
        for out_type in ('cs16', 'cf32', 'cs8', 'cu8', 'native'):
            checks.append(case_all_kinds(idx, fmt, out_type))
            idx += 1
    checks.append(case_leave_return(BASE_PORT + 80))
    checks.append(case_slow(BASE_PORT + 90))
    finish_suite(checks)


if __name__ == '__main__':
    main()
