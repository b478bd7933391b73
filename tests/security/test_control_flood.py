#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# A flood of connections that never prove the key must not keep a key holder off the control
# channel (issue 22, part 3).  200 connections from 40 addresses (127.0.0.2-41) other than the key
# holder's (127.0.0.1), each reopened as soon as zcs-send closes it: idle ones, slow ones that send
# a HELLO one byte at a time, and ones that send a whole HELLO and then stall before AUTH.
# Meanwhile `zcs-ctl get` runs again and again, each from a fresh address of that /24
# (127.0.0.100-111, one that never proved the key): every one must be answered.
# Before, the flood held every slot and zcs-ctl was closed at once.
# Then the same from 12,000 addresses (issue 30 item 3: 10.20.0.1 to 10.20.47.62, 48 /24s, put on
# the loopback of the test's own network namespace), idle-connecting: counted by address alone,
# they filled every cell of zcs-send's admission sketch, so a key holder's fresh address (here
# 10.20.100.1-111.1, of the same /16) looked as busy as any and got no answer (0 of 3 runs);
# counted by prefix too, it is the quietest.  zcs-ctl's source address is the one it connects to
# (each a local address of the namespace), and zcs-send listens on them all.
# What is asserted is answers and counters, not how long anything took.  Ports 23106-23107.
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
FEW_ADDRS = ['127.0.0.%d' % i for i in range(2, 42)]
MANY = 12000
MANY_ADDRS = ['10.20.%d.%d' % (j // 254, 1 + j % 254) for j in range(MANY)]
IDLE, SLOW, STALL = 120, 40, 40
GETS = 12
# the key holder's addresses, one for each get, never used before
FEW_HOLDERS = ['127.0.0.%d' % (100 + i) for i in range(GETS)]
MANY_HOLDERS = ['10.20.%d.1' % (100 + i) for i in range(GETS)]
HELLO = b'\x24\x00' + b'ZC\x01\x01'   # + a 32-byte nonce: a well-formed HELLO frame


class Flood(threading.Thread):
    """Keeps IDLE + SLOW + STALL connections open to the control port, each from one of
    addrs, opening a new one whenever the server closes one."""

    def __init__(self, addrs):
        super().__init__(daemon=True)
        self.addrs = addrs
        self.sel = selectors.DefaultSelector()
        self.stop = threading.Event()
        self.opened = 0
        self.closed_by_server = 0
        self.rng = random.Random(22)

    def open_one(self, kind):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.bind((self.rng.choice(self.addrs), 0))
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


def ctl(key, *args, timeout_ms=20000, host=CTL[0]):
    return subprocess.run([ctl_exe, '--key', key, '--json', '--timeout', str(timeout_ms),
                           '%s:%d' % (host, CTL[1])] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)


def add_many_addrs():
    """The 12,000 flood addresses on the loopback of this test's network namespace (isolate):
    each a source of its own, gone with the namespace."""
    batch = ''.join('address add %s/32 dev lo\n' % a
                    for a in MANY_ADDRS + FEW_HOLDERS + MANY_HOLDERS)
    subprocess.run(['ip', '-batch', '-'], input=batch.encode(), check=True)


def flood_case(key, addrs, holders, label, min_opened):
    """zcs-send's control channel flooded from addrs; a `zcs-ctl get` from each of holders (its
    source address: the one it connects to) must be answered.  Returns zcs-send's control
    counters."""
    send = subprocess.Popen([send_exe, '-s', 'tone', '-r', '200k', '-q', '--json', '--key',
                             key, '--control', '0.0.0.0:%d' % CTL[1], '127.0.0.1:23107'],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    flood = Flood(addrs)
    answers, failures = 0, []
    try:
        for _ in range(400):
            if ctl(key, 'get').returncode == 0:
                break
            time.sleep(0.05)
        else:
            raise AssertionError('zcs-send --control never answered')
        flood.start()
        # the flood holds every handshake slot, and has used its addresses, before the key
        # holder asks
        for _ in range(2400):
            if flood.closed_by_server >= IDLE + SLOW + STALL and flood.opened >= min_opened:
                break
            assert flood.is_alive(), 'the flood thread died'
            time.sleep(0.05)
        else:
            raise AssertionError('%s: the server closed only %d flood connections of %d' %
                                 (label, flood.closed_by_server, flood.opened))
        print('%s: %d connections open, %d closed by the server so far' %
              (label, flood.opened - flood.closed_by_server, flood.closed_by_server))
        for host in holders:
            p = ctl(key, 'get', host=host)
            if p.returncode == 0 and json.loads(p.stdout)['settings']:
                answers += 1
            else:
                failures.append(p.stderr.strip())
            time.sleep(0.2)
        flood.stop.set()
        flood.join(30)
        print('%s: %d connections opened, %d closed by the server' %
              (label, flood.opened, flood.closed_by_server))
        send.send_signal(signal.SIGINT)
        _, err = send.communicate(timeout=60)
    finally:
        flood.stop.set()
        if send.poll() is None:
            send.kill()
            send.wait()
    c = [json.loads(line)['control'] for line in err.decode().splitlines()
         if line.startswith('{"control"')][0]
    print('%s: zcs-send counted: %s' % (label, c))
    print('%s: zcs-ctl get under the flood: %d of %d answered' % (label, answers, GETS))
    assert answers == GETS, (label, failures)
    # the flood did fill the handshake slots: newcomers took the busiest sources' places
    assert c['evicted'] + c['refused_busy'] > 0, c
    assert c['sessions'] >= GETS + 1, c
    assert c['gets'] >= GETS + 1, c
    return c


def main():
    isolate()
    if os.environ.get('ZCS_TEST_NETNS') != '1':
        print('this test needs a network namespace of its own (root, or user namespaces)')
        sys.exit(1)
    add_many_addrs()
    with tempfile.TemporaryDirectory() as d:
        key = key_file(d)
        flood_case(key, FEW_ADDRS, FEW_HOLDERS, 'flood from 40 addresses', 0)
        flood_case(key, MANY_ADDRS, MANY_HOLDERS, 'flood from %d addresses' % MANY, 2 * MANY)
    print('PASS')


main()
