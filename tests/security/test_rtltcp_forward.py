#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# zcs-recv --control forwards rtl_tcp clients' tuning with the key's power, and rtl_tcp has no
# authentication (issue 22, part 4).  With the rtl_tcp: port on every address: zcs-recv warns at
# start; a client from a "LAN host" (198.18.22.1, an address this test puts on its namespace's
# loopback device, so not a loopback address) gets the greeting and the samples but its set_freq
# does not reach the board, which is said once and counted; a client on 127.0.0.1 still tunes the
# board; with --control-allow 198.18.22.0/24 the LAN host tunes it too.  A malformed allow list
# is refused with the option named.  Before, the LAN host tuned the board and nothing was said.
# Ports 23111-23114.
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'recv'))
from recvlib import Recv, isolate  # noqa: E402

recv_exe, send_exe, ctl_exe = sys.argv[1:4]
LAN = '198.18.22.1'
STREAM, CTL_PORT, RTL_PORT = 23111, 23112, 23113
CTL = '127.0.0.1:%d' % CTL_PORT


def key_file(d):
    p = os.path.join(d, 'key')
    with open(p, 'w') as f:
        f.write(os.urandom(32).hex() + '\n')
    os.chmod(p, 0o600)
    return p


def ctl(key, *args):
    p = subprocess.run([ctl_exe, '--key', key, '--json', '--timeout', '20000', CTL] +
                       list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    return p


def freq(key):
    p = ctl(key, 'get')
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)['settings']['freq']


def wait_for(what, cond, tries=600):
    for _ in range(tries):
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError('never: ' + what)


def rtl_client(src):
    """An rtl_tcp client from address src: connected, its greeting and some samples read."""
    s = socket.socket()
    s.bind((src, 0))
    s.connect((src if src != '127.0.0.1' else '127.0.0.1', RTL_PORT))
    s.settimeout(20)
    got = b''
    while len(got) < 12 + 4096:
        b = s.recv(65536)
        assert b, 'the rtl_tcp server closed the client'
        got += b
    assert got[:4] == b'RTL0', got[:12]
    return s


def set_freq(s, hz):
    s.sendall(struct.pack('>BI', 0x01, hz))


def main():
    isolate()
    subprocess.run(['ip', 'addr', 'add', LAN + '/32', 'dev', 'lo'], check=True)
    with tempfile.TemporaryDirectory() as d:
        key = key_file(d)
        send = subprocess.Popen([send_exe, '-s', 'tone', '-r', '250k', '-q', '--key', key,
                                 '--control', CTL, '127.0.0.1:%d' % STREAM],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        recv = None
        try:
            wait_for('zcs-send --control answers', lambda: ctl(key, 'get').returncode == 0)
            assert ctl(key, 'set', 'freq=100M').returncode == 0
            recv = Recv(recv_exe, ['--key', key, '--control', CTL, '-o',
                                   'rtl_tcp:0.0.0.0:%d' % RTL_PORT, '127.0.0.1:%d' % STREAM],
                        interval=0.2)
            news = recv.news()
            assert 'reachable from the network' in news and \
                'only clients on loopback' in news, news
            print('ok: warned at start: %s' % [line for line in news.splitlines()
                                                if 'reachable' in line][0])

            lan = rtl_client(LAN)
            set_freq(lan, 433920000)
            wait_for('the LAN client said not forwarded',
                     lambda: 'its settings are not forwarded' in recv.news())
            assert freq(key) == 100000000
            print('ok: a client from %s gets the samples; its set_freq is not forwarded' % LAN)

            local = rtl_client('127.0.0.1')
            set_freq(local, 150000000)
            wait_for('the loopback client tuned the board', lambda: freq(key) == 150000000)
            print('ok: a client on loopback still tunes the board')
            set_freq(lan, 433920000)
            wait_for('the second set_freq of the LAN client counted', lambda: any(
                o['not_allowed'] == 2 for st in recv.stats()[-1:] for o in st['outputs']))
            set_freq(local, 160000000)
            wait_for('the loopback client tuned the board again',
                     lambda: freq(key) == 160000000)
            assert freq(key) == 160000000
            lan.close()
            local.close()
            recv.stop(signal.SIGINT)
            summary = recv.finish(timeout=60)
            out = summary['outputs'][0]
            news = recv.news()
            assert news.count('its settings are not forwarded') == 1, news
            assert out['not_allowed'] == 2 and out['forwarded'] == 2, out
            print('ok: said once, counted: %s' % out)

            # the LAN named: forwarded
            recv = Recv(recv_exe, ['--key', key, '--control', CTL, '--control-allow',
                                   '198.18.22.0/24,fd00::/8', '-o',
                                   'rtl_tcp:0.0.0.0:%d' % RTL_PORT, '127.0.0.1:%d' % STREAM])
            assert 'in the 2 --control-allow prefixes may tune' in recv.news(), recv.news()
            lan = rtl_client(LAN)
            set_freq(lan, 433920000)
            wait_for('the allowed LAN client tuned the board', lambda: freq(key) == 433920000)
            lan.close()
            recv.stop(signal.SIGINT)
            out = recv.finish(timeout=60)['outputs'][0]
            assert out['not_allowed'] == 0 and out['forwarded'] == 1, out
            print('ok: with --control-allow 198.18.22.0/24 the LAN client tunes the board')
            recv = None

            # refusals name the option
            for allow, why in (('198.18.22.1/24', 'past its /24'),
                               ('lab-pc.local', 'not an IPv4 or IPv6 address')):
                p = subprocess.run([recv_exe, '--key', key, '--control', CTL,
                                    '--control-allow', allow, '-o', 'rtl_tcp:%d' % RTL_PORT],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   universal_newlines=True, timeout=30)
                assert p.returncode == 2 and "--control-allow '%s'" % allow in p.stderr \
                    and why in p.stderr, p.stderr
                print('ok: refused: %s' % p.stderr.splitlines()[0])
        finally:
            if recv and recv.proc.poll() is None:
                recv.proc.kill()
            if send.poll() is None:
                send.send_signal(signal.SIGINT)
                try:
                    send.wait(30)
                except subprocess.TimeoutExpired:
                    send.kill()
    print('PASS')


main()
