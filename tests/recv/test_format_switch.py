#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# A change of wire format while streaming (zcs-ctl set format=), seen by zcs-recv: zcs-send's
# seeded tone goes p12 -> i8 -> i16; the sender's reply gives the index of the first sample
# of each new format, the receiver's --json change event names the same index and format, and
# its cs16 output is the tone exact to the byte, each stretch through its own wire format, with
# nothing lost, invalid or zero-filled.  Keyed on each send path that can run here (the
# trailer and GSO's segment size change with the format), and once unkeyed (a receiver that
# confirms a change after 500 ms still takes it from the announced index).  Then -F native, which
# writes the wire's own bytes: it ends at the change with a message, its file holding exactly
# the samples before the index.  Ports 21720-21739.
import json
import os
import signal
import subprocess
import sys
import tempfile

from recvlib import Ctl, Recv, change_events as changes, isolate, set_format, wait_for

recv_exe, send_exe, ctl_exe, expect_exe = sys.argv[1:5]
RATE, TONE, AMP, SEED = 1000000, 12345, 0.7, 3


def expected(fmt, out_type, first, count):
    return subprocess.run([expect_exe, str(RATE), str(TONE), str(AMP), str(SEED), '0', fmt,
                           out_type, str(first), str(count)], check=True,
                          stdout=subprocess.PIPE).stdout


def sender(key, ctl_port, data_port, extra=()):
    return subprocess.Popen([send_exe, '-s', 'tone', '-f', 'p12', '-r', str(RATE), '--tone',
                             str(TONE), '--amplitude', str(AMP), '--seed', str(SEED), '-q',
                             '--key', key, '--control', '127.0.0.1:%d' % ctl_port] + list(extra) +
                            ['127.0.0.1:%d' % data_port],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def stop(*procs):
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()


def run(d, key, name, ports, keyed, extra=()):
    data, port = ports
    raw = os.path.join(d, name + '.cs16')
    recv = Recv(recv_exe, (['--key', key] if keyed else []) +
                ['--exit-on-eos', '-F', 'cs16', '-o', 'file:' + raw,
                 '127.0.0.1:%d' % data])
    send = sender(key, port, data, extra)
    got = []
    try:
        wait_for('the stream', lambda: any('rate 1 MS/s' in l for l in recv.lines))
        for fmt in ('i8', 'i16'):
            since = set_format(ctl_exe, key, port, send, fmt)
            got.append((fmt, since))
            wait_for('the change event to ' + fmt, lambda: any(
                c['since_sample'] == since for c in changes(recv)))
            # samples of the new format written: each stretch is in the file
            wait_for('samples in ' + fmt, lambda: os.path.exists(raw) and
                     os.path.getsize(raw) // 4 > since + 20000)
        if name == 'keyed-auto':
            # a set the source refuses in part changes nothing: not the format either
            rc, p = Ctl(ctl_exe, key, port).run('set', 'format=p12', 'gain=10')
            r = json.loads(p.stdout.splitlines()[-1])
            assert rc == 1 and not r['ok'] and r['settings']['format'] == 'i16', (rc, r)
            assert Ctl(ctl_exe, key, port)('get')['stream']['format'] == 'i16'
            print('ok: %s: set format=p12 gain=10 refused (%s): still i16' % (name, r['error']))
        send.send_signal(signal.SIGINT)
        assert send.wait(timeout=60) == 0, send.stderr.read()
        summary = recv.finish(timeout=60)
    finally:
        stop(send, recv.proc)
    assert recv.rc == 0, (name, recv.rc, recv.news())
    for fmt, since in got:
        ev = [c for c in changes(recv) if c['since_sample'] == since]
        assert ev and ev[0]['exact'] and ev[0]['format'] == fmt, (name, ev, changes(recv))
        print('ok: %s: --json change event at %d, format %s, %d samples/datagram' % (
            name, since, fmt, ev[0]['samples_per_dgram']))
    assert got[0][1] < got[1][1], got
    for k in ('lost', 'gap_samples', 'invalid', 'late', 'duplicate', 'unconfirmed'):
        assert summary[k] == 0, (name, k, summary)
    n = summary['samples']
    data_out = open(raw, 'rb').read()
    assert len(data_out) == 4 * n, (len(data_out), n)
    bounds = [('p12', 0)] + got + [(None, n)]
    want = b''.join(expected(f, 'cs16', a, b - a) for (f, a), (_, b) in zip(bounds, bounds[1:]))
    assert data_out == want, '%s: the output differs from the tone at byte %d' % (
        name, next(i for i in range(min(len(want), len(data_out))) if want[i] != data_out[i]))
    print('ok: %s: %d samples, exact: p12 [0, %d), i8 [%d, %d), i16 [%d, %d); nothing lost' % (
        name, n, got[0][1], got[0][1], got[1][1], got[1][1], n))


def native(d, key, ports):
    """-F native writes the wire's bytes: it cannot change layout silently, so it ends there."""
    data, port = ports
    raw = os.path.join(d, 'native.bin')
    recv = Recv(recv_exe, ['--key', key, '-F', 'native', '-o', 'file:' + raw,
                           '127.0.0.1:%d' % data])
    send = sender(key, port, data)
    try:
        wait_for('the stream', lambda: any('rate 1 MS/s' in l for l in recv.lines))
        since = set_format(ctl_exe, key, port, send, 'i16')
        summary = recv.finish(timeout=90, stop_after=None)
        send.send_signal(signal.SIGINT)
        send.wait(timeout=60)
    finally:
        stop(send, recv.proc)
    news = recv.news()
    assert recv.rc == 1, (recv.rc, news)
    assert 'native' in news and 'from p12 to i16 at sample %d' % since in news, news
    out = open(raw, 'rb').read()
    assert out == expected('p12', 'native', 0, since), (len(out), 3 * since)
    assert summary['lost'] == 0 and summary['gap_samples'] == 0, summary
    print('ok: -F native ends at the change to i16 (sample %d), its file holds exactly the '
          '%d p12 samples before it' % (since, since))


def main():
    isolate()
    with tempfile.TemporaryDirectory() as d:
        key = os.path.join(d, 'key')
        with open(key, 'w') as f:
            f.write(os.urandom(32).hex() + '\n')
        os.chmod(key, 0o600)
        ports = iter((p, p + 1) for p in range(21720, 21740, 2))
        for path in ('auto', 'gso', 'plain'):
            run(d, key, 'keyed-' + path, next(ports), True, ['--send-path', path])
        run(d, key, 'unkeyed', next(ports), False)
        native(d, key, next(ports))
    print('PASS')


main()
