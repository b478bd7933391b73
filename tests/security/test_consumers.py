# SPDX-License-Identifier: MIT
# Consumers and what the receiver counts (issue 10, part 5): four TCP clients that connect and
# never read hold every slot; a fifth is turned away, one of the four that read nothing for
# --client-timeout goes for it, and the fifth's retry then gets the live stream
# byte-exact; a client that half-closes (nc -N) keeps receiving, on tcp: and rtl_tcp:;
# `zcs-recv -o - | head -c 100` ends, status 0, with the stream's first 100 bytes; zero-length
# datagrams are counted with UDP GRO and without; a stream whose datagrams never fit
# --max-datagram gets one warning naming the option.
# Usage: test_consumers.py ZCS_RECV
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seclib  # noqa: E402
from seclib import recvlib  # noqa: E402

recvlib.isolate()
recv_exe = sys.argv[1]
c = seclib.Check('security_consumers')
tmp = tempfile.mkdtemp(prefix='zcs-sec-cons-')
procs, socks, streams = [], [], []


def connect(port, rcvbuf=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        # a client that never reads, with a small window: what an attacker would pick
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect(('127.0.0.1', port))
    socks.append(s)
    return s


def read_n(s, n, timeout=60):
    s.settimeout(timeout)
    got = b''
    while len(got) < n:
        chunk = s.recv(n - len(got))
        if not chunk:
            break
        got += chunk
    return got


try:
    # ---- four idle clients, then a real one ----
    port = 23021
    r = recvlib.Recv(recv_exe, [f'127.0.0.1:{port}', '-o', 'tcp:23022', '--client-timeout', '1'])
    procs.append(r.proc)
    s = seclib.Stream(port, per_sec=4000).start()
    streams.append(s)
    idle = [connect(23022, rcvbuf=4096) for _ in range(4)]
    c.true('the four idle clients are attached', seclib.wait_for(
        lambda: r.news().count(' came') >= 4, timeout=60), r.news())

    def knock():
        # a client turned away (closed at once) makes one idle client past the timeout go
        k = connect(23022)
        k.settimeout(60)
        try:
            return k.recv(1) == b''
        except OSError:
            return True
    c.true('a fifth client is turned away while the four hold the slots', knock())
    dropped = 'read nothing for 1.0 s while data waited and a client was turned away: dropped'
    c.true('an idle client is dropped for it', seclib.wait_for(
        lambda: r.news().count(dropped) >= 1, timeout=120), r.news())
    real = connect(23022)
    data = read_n(real, 256 * 1024)
    ok, _ = seclib.cs16_contiguous(data)
    c.true('a fifth, real client gets the live stream byte-exact', ok and len(data) == 256 * 1024)
    s.stop()
    summ = seclib.finish(c, r, timeout=30, stop_after=0)
    c.eq('tcp: clients that came (the one turned away is not one)',
         summ['outputs'][0]['connects'], 5)

    # ---- half-closed clients keep receiving (tcp: and rtl_tcp:) ----
    port = 23023
    r = recvlib.Recv(recv_exe, [f'127.0.0.1:{port}', '-o', 'tcp:23024', '-o', 'rtl_tcp:23025'])
    procs.append(r.proc)
    s = seclib.Stream(port, per_sec=4000).start()
    streams.append(s)
    t = connect(23024)
    t.shutdown(socket.SHUT_WR)
    rt = connect(23025)
    c.eq('rtl_tcp greeting', read_n(rt, 12)[:4], b'RTL0')
    rt.shutdown(socket.SHUT_WR)
    c.true('the half-closes are seen as such', seclib.wait_for(
        lambda: r.news().count('closed its sending side: still sending to it') == 2), r.news())
    data = read_n(t, 512 * 1024)
    ok, _ = seclib.cs16_contiguous(data)
    c.true('the half-closed tcp: client still gets the stream byte-exact',
           ok and len(data) == 512 * 1024)
    data = read_n(rt, 128 * 1024)
    c.true('the half-closed rtl_tcp: client still gets the stream byte-exact',
           len(data) == 128 * 1024 and seclib.cu8_contiguous(data))
    c.true('neither was taken as gone', ' left' not in r.news(), r.news())
    s.stop()
    summ = seclib.finish(c, r, timeout=30, stop_after=0)
    c.eq('consumers at the end', [o['consumers'] for o in summ['outputs']], [1, 1])

    # ---- -o - into head -c 100: zcs-recv ends, status 0 ----
    port = 23026
    out = os.path.join(tmp, 'head.out')
    p = subprocess.Popen(['/bin/bash', '-c', 'set -o pipefail; "$0" --json --interval 0 '
                          f'127.0.0.1:{port} -o - | head -c 100 > "$1"', recv_exe, out],
                         stderr=subprocess.PIPE)
    procs.append(p)
    lines = []
    for raw in p.stderr:
        lines.append(raw.decode(errors='replace'))
        if 'listening on' in lines[-1]:
            break
    s = seclib.Stream(port, per_sec=2000).start()
    streams.append(s)
    try:
        _, rest = p.communicate(timeout=60)
        lines += rest.decode(errors='replace').splitlines(True)
    except subprocess.TimeoutExpired:
        pass
    c.true('zcs-recv -o - | head -c 100 ends', p.poll() is not None)
    c.eq('its exit status', p.returncode, 0)
    with open(out, 'rb') as f:
        c.true('head got the stream\'s first 100 bytes', f.read() == seclib.expect_cs16(0, 25))
    summ = [o for o in seclib.json_lines(lines) if o.get('type') == 'summary']
    c.true('the summary says the consumer went away',
           len(summ) == 1 and summ[0].get('ended_by') == 'consumer', summ)
    s.stop()

    # ---- zero-length datagrams, with UDP GRO and without ----
    for n, gro in enumerate([[], ['--no-gro']]):
        port = 23027 + n
        r = recvlib.Recv(recv_exe, ['--exit-on-eos', f'127.0.0.1:{port}'] + gro)
        procs.append(r.proc)
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for _ in range(5):
            u.sendto(b'', ('127.0.0.1', port))
        u.close()
        s = seclib.Stream(port, count=100).start()
        streams.append(s)
        s.wait()
        summ = seclib.finish(c, r, timeout=60)
        what = 'without GRO' if gro else 'with GRO'
        c.eq(f'zero-length datagrams counted {what}: truncated', summ['invalid_by']['truncated'], 5)
        c.eq(f'every datagram counted {what}', summ['datagrams'], 5 + 100 + 1 + 1)
        c.eq(f'samples {what}', summ['samples'], 100 * seclib.SPD)

    # ---- datagrams that never fit --max-datagram: one warning naming it ----
    for n, gro in enumerate([[], ['--no-gro']]):
        port = 23029 + n
        # nothing fits, so no stream is ever locked on: wait for the count, then stop it
        r = recvlib.Recv(recv_exe, ['--max-datagram', '300', f'127.0.0.1:{port}'] + gro,
                         interval=0.2)
        procs.append(r.proc)
        s = seclib.Stream(port, count=100).start()
        streams.append(s)
        s.wait()
        what = 'without GRO' if gro else 'with GRO'
        c.true(f'oversize counted {what}', seclib.wait_for(
            lambda: r.stats() and r.stats()[-1]['invalid_by']['oversize'] == 100), r.stats()[-1:])
        summ = seclib.finish(c, r, timeout=30, stop_after=0)
        c.eq(f'oversize in the summary {what}', summ['invalid_by']['oversize'], 100)
        news = r.news()
        c.eq(f'one warning naming --max-datagram {what}',
             news.count('none fits: they are larger than --max-datagram 300'), 1)
finally:
    for s in streams:
        s.stop()
    for s in socks:
        s.close()
    seclib.kill_all(procs)
    shutil.rmtree(tmp, ignore_errors=True)
c.done()
