#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# A flood of connections that never prove the key must not keep a key holder off the control
# channel (issue 22, part 3).  200 connections from 40 addresses (127.0.0.2-41) other than the key
# holder's (127.0.0.1), each reopened as soon as zcs-send closes it: idle ones, slow ones that send
# a HELLO one byte at a time, and ones that send a whole HELLO and then stall before AUTH.
# Meanwhile `zcs-ctl get` runs again and again from 127.0.0.1: every one must be answered.
# Before, the flood held every slot and zcs-ctl was closed at once.  What is asserted is answers
# and counters, not how long anything took.  Ports 23106-23107.
import json
import os
import random
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'recv'))
from recvlib import isolate  # noqa: E402

send_exe, ctl_exe = sys.argv[1:3]
CTL = ('127.0.0.1', 23106)
FLOOD_ADDRS = ['127.0.0.%d' % i for i in range(2, 42)]
IDLE, SLOW, STALL = 120, 40, 40
GETS = 12
HELLO = b'\x24\x00' + b'ZC\x01\x01'   # + a 32-byte nonce: a well-formed HELLO frame


class Flood(threading.Thread):
    """Keeps IDLE + SLOW + STALL connections open to the control port, each from one of
    FLOOD_ADDRS, opening a new one whenever the server closes one."""

    def __init__(self):
        super().__init__(daemon=True)
        self.sel = selectors.DefaultSelector()
        self.stop = threading.Event()
        self.opened = 0
        self.closed_by_server = 0
        self.rng = random.Random(22)

    def open_one(self, kind):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.bind((self.rng.choice(FLOOD_ADDRS), 0))
            s.connect_ex(CTL)
        except OSError:
            s.close()
            return False
        hello = HELLO + os.urandom(32)
        st = {'kind': kind, 'left': hello, 'next': time.monotonic()}
        self.sel.register(s, selectors.EVENT_READ, st)
        self.opened += 1
        return True

    def run(self):
        want = ['idle'] * IDLE + ['slow'] * SLOW + ['stall'] * STALL
        pending = list(want)
        while not self.stop.is_set():
            while pending and not self.stop.is_set():
                if self.open_one(pending[-1]):
                    pending.pop()
                else:
                    break
            now = time.monotonic()
            for key, _ in self.sel.select(timeout=0.02):
                s, st = key.fileobj, key.data
                try:
                    gone = not s.recv(4096)
                except BlockingIOError:
                    gone = False
                except OSError:
                    gone = True
                if gone:
                    self.sel.unregister(s)
                    s.close()
                    self.closed_by_server += 1
                    pending.append(st['kind'])
            for key in list(self.sel.get_map().values()):
                s, st = key.fileobj, key.data
                if not st['left'] or now < st['next']:
                    continue
                # slow: a byte every 100 ms; stall: the whole HELLO at once, then nothing
                n = 1 if st['kind'] == 'slow' else len(st['left'])
                if st['kind'] == 'idle':
                    continue
                try:
                    sent = s.send(st['left'][:n])
                    st['left'] = st['left'][sent:]
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    pass          # closed: the select sees it
                st['next'] = now + 0.1
        for key in list(self.sel.get_map().values()):
            key.fileobj.close()


def key_file(d):
    p = os.path.join(d, 'key')
    with open(p, 'w') as f:
        f.write(os.urandom(32).hex() + '\n')
    os.chmod(p, 0o600)
    return p


def ctl(key, *args, timeout_ms=20000):
    return subprocess.run([ctl_exe, '--key', key, '--json', '--timeout', str(timeout_ms),
                           '%s:%d' % CTL] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)


def main():
    isolate()
    with tempfile.TemporaryDirectory() as d:
        key = key_file(d)
        send = subprocess.Popen([send_exe, '-s', 'tone', '-r', '200k', '-q', '--json', '--key',
                                 key, '--control', '%s:%d' % CTL, '127.0.0.1:23107'],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        flood = Flood()
        answers, failures = 0, []
        try:
            for _ in range(400):
                if ctl(key, 'get').returncode == 0:
                    break
                time.sleep(0.05)
            else:
                raise AssertionError('zcs-send --control never answered')
            flood.start()
            # the flood holds every handshake slot before the key holder asks
            for _ in range(1200):
                if flood.closed_by_server >= IDLE + SLOW + STALL:
                    break
                assert flood.is_alive(), 'the flood thread died'
                time.sleep(0.05)
            else:
                raise AssertionError('the server closed only %d flood connections' %
                                     flood.closed_by_server)
            print('flood: %d connections open, %d closed by the server so far' %
                  (flood.opened - flood.closed_by_server, flood.closed_by_server))
            for i in range(GETS):
                p = ctl(key, 'get')
                if p.returncode == 0 and json.loads(p.stdout)['settings']:
                    answers += 1
                else:
                    failures.append(p.stderr.strip())
                time.sleep(0.2)
            flood.stop.set()
            flood.join(30)
            print('flood: %d connections opened, %d closed by the server' %
                  (flood.opened, flood.closed_by_server))
            send.send_signal(signal.SIGINT)
            _, err = send.communicate(timeout=60)
        finally:
            flood.stop.set()
            if send.poll() is None:
                send.kill()
                send.wait()
        c = [json.loads(line)['control'] for line in err.decode().splitlines()
             if line.startswith('{"control"')][0]
        print('zcs-send counted: %s' % c)
        print('zcs-ctl get under the flood: %d of %d answered' % (answers, GETS))
        assert answers == GETS, failures
        # the flood did fill the handshake slots: newcomers took the busiest sources' places
        assert c['evicted'] + c['refused_busy'] > 0, c
        assert c['sessions'] >= GETS + 1, c
        assert c['gets'] >= GETS + 1, c
    print('PASS')


main()
