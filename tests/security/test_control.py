#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The control channel under attack (docs/security.md, "Control"): a peer without the key, one
# with a wrong key, a recorded session's handshake replayed, a sealed frame replayed inside a
# live session, garbage and an oversized length, more clients than allowed.  Each is closed and
# counted by reason in zcs-send's summary, no setting changes, and the stream zcs-recv takes
# meanwhile loses nothing.  The handshake MACs are BLAKE2b keyed (hashlib), as common/ctl/ctl_proto.c
# computes them, so a peer can be written here without libsodium.  Idle connections beside the
# sessions, and a key holder refused with the reason when every session is held.
# Ports 23100-23109.
import hashlib
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'recv'))
from recvlib import Recv, isolate  # noqa: E402

recv_exe, send_exe, ctl_exe = sys.argv[1:4]
CTL = ('127.0.0.1', 23101)
CLIENTS = 3


def key_file(d, name):
    p = os.path.join(d, name)
    with open(p, 'w') as f:
        f.write(os.urandom(32).hex() + '\n')
    os.chmod(p, 0o600)
    return p


def frame(body):
    return struct.pack('<H', len(body)) + body


def read_frame(s):
    def exact(n):
        b = b''
        while len(b) < n:
            c = s.recv(n - len(b))
            if not c:
                return None
            b += c
        return b
    h = exact(2)
    if h is None:
        return None
    return exact(struct.unpack('<H', h)[0])


def closed(s, timeout=20.0):
    """True when the server closed the connection (EOF) within timeout."""
    s.settimeout(timeout)
    try:
        while True:
            if not s.recv(4096):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def hello(nc):
    """Connects and sends HELLO; returns the socket and SHELLO (retrying while every slot is
    still held by a connection the server has not seen close yet)."""
    for _ in range(200):
        s = socket.create_connection(CTL)
        s.sendall(frame(b'ZC\x01\x01' + nc))
        sh = read_frame(s)
        if sh:
            return s, sh
        s.close()
        time.sleep(0.05)
    raise AssertionError('no SHELLO')


def mac(key, label, nc, ns):
    return hashlib.blake2b(label.ljust(16, b'\0') + nc + ns, key=key, digest_size=32).digest()


def ctl(key, *args, check=True):
    p = subprocess.run([ctl_exe, '--key', key, '--json', '--timeout', '20000',
                        '%s:%d' % CTL] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if check:
        assert p.returncode == 0, (args, p.stdout, p.stderr)
    return p


class Recorder:
    """A TCP relay between a client and the server that keeps what the client sent, and can
    send the client's first sealed frame twice (a replay inside the session)."""

    def __init__(self, port, duplicate=False):
        self.ls = socket.socket()
        self.ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.ls.bind(('127.0.0.1', port))
        self.ls.listen(1)
        self.duplicate = duplicate
        self.sent = b''
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        c, _ = self.ls.accept()
        s = socket.create_connection(CTL)
        frames = 0

        def back():
            try:
                while True:
                    b = s.recv(65536)
                    if not b:
                        break
                    c.sendall(b)
            except OSError:
                pass
            c.close()
        threading.Thread(target=back, daemon=True).start()
        buf = b''
        try:
            while True:
                b = c.recv(65536)
                if not b:
                    break
                self.sent += b
                buf += b
                # whole frames: hello, auth, then the first sealed one (frames == 2) twice
                while len(buf) >= 2 and len(buf) >= 2 + struct.unpack('<H', buf[:2])[0]:
                    n = 2 + struct.unpack('<H', buf[:2])[0]
                    f, buf = buf[:n], buf[n:]
                    s.sendall(f)
                    if self.duplicate and frames == 2:
                        s.sendall(f)
                    frames += 1
        except OSError:
            pass
        s.close()


def main():
    isolate()
    with tempfile.TemporaryDirectory() as d:
        key, other = key_file(d, 'key'), key_file(d, 'other')
        kb = bytes.fromhex(open(key).read().strip())
        recv = Recv(recv_exe, ['--exit-on-eos', '127.0.0.1:23100'])
        send = subprocess.Popen([send_exe, '-s', 'tone', '-r', '500k', '-q', '--json', '--key',
                                 key, '--control', '%s:%d' % CTL, '--control-clients',
                                 str(CLIENTS), '127.0.0.1:23100'],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            for _ in range(400):
                if ctl(key, 'get', check=False).returncode == 0:
                    break
                time.sleep(0.05)
            ctl(key, 'set', 'freq=100M')   # the tone announces freq as metadata only
            before = json.loads(ctl(key, 'get').stdout)['settings']

            # 1. no key: a peer answers the server's hello with a made-up AUTH
            s, sh = hello(os.urandom(32))
            assert sh and len(sh) == 68 and sh[:4] == b'ZC\x01\x02', sh
            s.sendall(frame(b'ZC\x01\x03' + os.urandom(32)))
            assert closed(s), 'no-key peer not closed'
            print('ok: a peer without the key is closed after its AUTH')

            # 2. a wrong key: zcs-ctl finds the server does not hold it and leaves; a raw peer
            # that sends its AUTH under the wrong key is closed (auth)
            p = ctl(other, 'set', 'freq=1G', check=False)
            assert p.returncode == 1 and 'does not hold our key' in p.stderr, p.stderr
            nc = os.urandom(32)
            s, sh = hello(nc)
            ns = sh[4:36]
            ob = bytes.fromhex(open(other).read().strip())
            assert mac(ob, b'zcs-ctl1 server', nc, ns) != sh[36:], 'server MAC under a wrong key?'
            assert mac(kb, b'zcs-ctl1 server', nc, ns) == sh[36:], 'server MAC not BLAKE2b keyed'
            s.sendall(frame(b'ZC\x01\x03' + mac(ob, b'zcs-ctl1 client', nc, ns)))
            assert closed(s), 'wrong-key peer not closed'
            print('ok: a wrong key learns nothing and is closed (zcs-ctl: %s)' %
                  p.stderr.strip().splitlines()[-1])

            # 3. a recorded session replayed: the server's fresh nonce voids the old AUTH
            rec = Recorder(23102)
            p = subprocess.run([ctl_exe, '--key', key, '--timeout', '20000', '127.0.0.1:23102',
                                'set', 'freq=433.92M'], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True)
            assert p.returncode == 0, p.stderr
            rec.t.join(20)
            ctl(key, 'set', 'freq=%d' % before['freq'])   # back, so a replayed set would show
            # the recorded HELLO (2 + 36 bytes), then its AUTH and sealed set as recorded
            assert rec.sent[:6] == b'\x24\x00ZC\x01\x01', rec.sent[:6]
            s, _ = hello(rec.sent[6:38])
            s.sendall(rec.sent[38:])
            assert closed(s), 'replayed session not closed'
            now = json.loads(ctl(key, 'get').stdout)['settings']
            assert now['freq'] == before['freq'], (now, before)
            print('ok: a replayed session is closed; freq stays %d' % now['freq'])

            # 4. a sealed frame replayed inside a live session: the second copy does not open
            rec = Recorder(23103, duplicate=True)
            p = subprocess.run([ctl_exe, '--key', key, '--timeout', '20000', '127.0.0.1:23103',
                                'get'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               universal_newlines=True)
            rec.t.join(20)
            print('ok: a frame replayed in its session (zcs-ctl exit %d)' % p.returncode)

            # 5. garbage, an oversized length, a handshake never finished beside the limit
            for junk in (b'GET / HTTP/1.0\r\n\r\n', b'\xff\xff' + os.urandom(64),
                         b'\x00\x00', frame(b'ZC\x02\x01' + os.urandom(32)),
                         frame(b'XY\x01\x01' + os.urandom(32))):
                s = socket.create_connection(CTL)
                s.sendall(junk)
                assert closed(s), 'garbage %r not closed' % junk[:8]
            print('ok: garbage, a 65535-byte length, a zero length, version 2, bad magic: closed')
            # 6. connections that never start the handshake hold no session: a key holder is
            # served beside them, and they are closed when the handshake's time is up
            idle = [socket.create_connection(CTL) for _ in range(CLIENTS + 2)]
            ctl(key, 'get')
            for x in idle:
                assert closed(x, 20), 'an idle connection was never closed'
                x.close()
            print('ok: %d idle connections: a key holder served beside them, each closed when '
                  'its handshake time was up or another from its address came' % len(idle))
            # 7. every session held by key holders (zcs-ctl watch): one more proves the key and
            # is refused with the reason; served again once one leaves
            def watcher():
                return subprocess.Popen([ctl_exe, '--key', key, '%s:%d' % CTL, 'watch'],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            watchers = [watcher() for _ in range(CLIENTS)]
            refused = None
            for _ in range(400):
                # a get that came between them may have taken a watcher's session: again
                watchers = [w if w.poll() is None else watcher() for w in watchers]
                p = ctl(key, 'get', check=False)
                if p.returncode != 0:
                    refused = p
                    break
                time.sleep(0.05)
            for w in watchers:
                w.terminate()
                w.wait()
            assert refused and 'control sessions is held' in refused.stderr, refused
            print('ok: with --control-clients %d sessions held, one more is told: %s' %
                  (CLIENTS, refused.stderr.strip()))
            for _ in range(400):   # the sessions free as the watchers' closes are seen
                if ctl(key, 'get', check=False).returncode == 0:
                    break
                time.sleep(0.05)
            now = json.loads(ctl(key, 'get').stdout)['settings']
            assert now == before, (now, before)
            print('ok: settings unchanged: %s' % now)
            send.send_signal(signal.SIGINT)
            out, err = send.communicate(timeout=60)
            summary = recv.finish(timeout=60)
        finally:
            for p in (send, recv.proc):
                if p.poll() is None:
                    p.kill()
                    p.wait()
        c = [json.loads(line)['control'] for line in err.decode().splitlines()
             if line.startswith('{"control"')][0]
        print('zcs-send counted: %s' % c)
        dr = c['dropped']
        assert dr['auth'] >= 3, c          # no key, wrong key (raw), replayed session
        assert dr['seal'] >= 1, c          # the frame replayed in its session
        assert dr['bad_length'] >= 2 and dr['bad_magic'] >= 1 and dr['bad_version'] >= 1, c
        assert c['abandoned'] >= 1, c      # zcs-ctl with the wrong key left
        assert c['refused_full'] >= 1, c
        # the idle ones: timed out, or (a source holds 4 handshakes at most) given way
        assert c['handshake_timeouts'] + c['evicted'] >= CLIENTS + 2, c
        assert c['sets'] == 3 and c['set_refused'] == 0, c   # only the three genuine sets
        assert summary['lost'] == 0 and summary['gap_samples'] == 0, summary
        assert summary['samples'] > 0, summary
        print('ok: the stream lost nothing (%d samples)' % summary['samples'])
    print('PASS')


main()
