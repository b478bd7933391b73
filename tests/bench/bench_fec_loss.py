#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Residual loss against injected loss for zcs-send --fec (issue 21): a seeded tone, p12, through
# zcs-impair (--parity: parity datagrams are lost as sample datagrams are) into zcs-recv, over
# loopback, for no FEC, 32:2, 32:4 and 64:8, with random loss (0.1, 1, 3, 5 %) and bursts of 2, 4
# and 8 datagrams (1 % of datagrams on average).  Prints one table: the loss the relay really
# injected, the sample datagrams the receiver lost for good (residual, with the count), what it
# restored, the blocks it could not, and for random loss the residual a binomial model expects
# (p * P(Bin(K + M - 1, p) >= M)); then the cost of each K:M: bytes on the wire per sample
# (UDP payload and IPv4/UDP headers) against no FEC, and the sender's CPU (its own rusage, both
# threads) per 1e8 samples, from the lossless-link run of each.  datagram 0 and the end of
# stream are spared (--spare-ends: a receiver counts a lost tail only from the end that follows).
# zcs-recv runs with --hold 1000: on a loaded machine the relay or the sender can stall for more
# than the default 100 ms, and a silent stream's window is then released with its holes before
# their parity comes (counted idle_flushes): a stall of this machine, not the link's loss.  The
# table says each run's idle flushes (one at the end is the end of stream waiting behind the last
# hole for --hold); a run whose receiver or relay socket dropped anything is marked.
# Usage: bench_fec_loss.py ZCS-SEND ZCS-RECV ZCS-IMPAIR [--datagrams N] [--rate R] [--seed S]
import argparse
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time

PORT = 21950
SPD = {None: 480, (32, 2): 474, (32, 4): 474, (64, 8): 474}   # p12 pairs at MTU 1500
FECS = [None, (32, 2), (32, 4), (64, 8)]
LOSSES = [('random 0.1 %', ['--drop', '0.001'], 0.001),
          ('random 1 %', ['--drop', '0.01'], 0.01),
          ('random 3 %', ['--drop', '0.03'], 0.03),
          ('random 5 %', ['--drop', '0.05'], 0.05),
          ('bursts of 2', ['--burst-drop', '0.005:2'], None),
          ('bursts of 4', ['--burst-drop', '0.0025:4'], None),
          ('bursts of 8', ['--burst-drop', '0.00125:8'], None)]


def summary(text, key='type', want='summary'):
    found = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith('{'):
            try:
                o = json.loads(line)
            except json.JSONDecodeError:
                continue
            if o.get(key) == want or (key == 'summary' and 'summary' in o):
                found = o
    return found


def expected(p, k, m):
    """Residual loss of i.i.d. loss p under K:M: a datagram is lost for good when it is lost and
    at least M of the block's other K + M - 1 are."""
    if k is None:
        return p
    n = k + m - 1
    tail = sum(math.comb(n, x) * p ** x * (1 - p) ** (n - x) for x in range(m, n + 1))
    return p * tail


def run(a, fec, imp, port, tmp):
    out = os.path.join(tmp, 'recv.log')
    with open(out, 'w') as rlog:
        recv = subprocess.Popen([a.recv, '--no-key', '--json', '--interval', '0', '--exit-on-eos',
                                 '--eos-timeout', '3', '--hold', '1000', f'127.0.0.1:{port + 1}'],
                                stdout=subprocess.DEVNULL, stderr=rlog)
    relay = subprocess.Popen([a.impair, '-l', f'127.0.0.1:{port}', '-t', f'127.0.0.1:{port + 1}',
                              '--seed', str(a.seed), '--parity', '--spare-ends'] + imp,
                             stdout=subprocess.PIPE, text=True)
    try:
        return finish(a, fec, port, recv, relay, out)
    finally:
        for p in (recv, relay):
            if p.poll() is None:
                p.kill()
                p.wait()


def finish(a, fec, port, recv, relay, out):
    time.sleep(0.5)
    n = a.datagrams * SPD[fec]
    cmd = [a.send, '--json', '-q', '-s', 'tone', '-f', 'p12', '-r', str(a.rate),
           '-n', str(n), '--seed', str(a.seed)]
    if fec:
        cmd += ['--fec', f'{fec[0]}:{fec[1]}']
    snd = subprocess.run(cmd + [f'127.0.0.1:{port}'], capture_output=True, text=True)
    if snd.returncode != 0:
        sys.exit(f'zcs-send failed: {snd.stderr[-500:]}')
    if recv.wait(timeout=120) != 0:
        sys.exit(f'zcs-recv exited with {recv.returncode}')
    relay.send_signal(signal.SIGTERM)
    rel = summary(relay.communicate(timeout=30)[0], key='summary')['summary']
    with open(out) as f:
        r = summary(f.read())
    s = summary(snd.stderr)
    return s, rel, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('send')
    ap.add_argument('recv')
    ap.add_argument('impair')
    ap.add_argument('--datagrams', type=int, default=100000)
    ap.add_argument('--rate', type=int, default=10000000)
    ap.add_argument('--seed', type=int, default=1)
    a = ap.parse_args()
    rows, cost = [], {}
    with tempfile.TemporaryDirectory(prefix='zcs-bench-fec-') as tmp:
        for fec in FECS:
            name = f'{fec[0]}:{fec[1]}' if fec else 'none'
            s, rel, r = run(a, fec, [], PORT, tmp)
            wire = s['bytes'] + 28 * s['datagrams']
            if fec:
                wire += s['parity'] * (s['bytes'] / s['datagrams'] + 16 + 28)
            cost[name] = (wire / s['samples'], (s['src_cpu_s'] + s['send_cpu_s']) /
                          s['samples'] * 1e8, r['lost'], r['socket_drops'])
            for label, imp, p in LOSSES:
                s, rel, r = run(a, fec, imp, PORT, tmp)
                injected = (rel['dropped'] + rel['parity_dropped']) / (rel['sample_dgrams'] +
                                                                     rel['parity'])
                residual = r['lost'] / s['datagrams']
                bad = r['socket_drops'] or rel['socket_drops']
                rows.append((name, label, injected, residual, r['lost'], r['restored'],
                             r['unrecoverable'], expected(p, *(fec or (None, None)))
                             if p else None, bad, r['idle_flushes']))
                print(f'# {name:5} {label:12} done: lost {r["lost"]}, restored {r["restored"]}',
                      file=sys.stderr)
    print(f'Residual loss, p12 at {a.rate / 1e6:g} MS/s, {a.datagrams} sample datagrams a run, '
          f'relay seed {a.seed}')
    print()
    print('| K:M | injected loss | injected (measured, parity too) | residual loss | '
          'lost for good | restored | blocks unrecoverable | binomial model | idle flushes |')
    print('|---|---|---|---|---|---|---|---|---|')
    for name, label, inj, res, lost, rest, unrec, exp, bad, idle in rows:
        model = f'{exp * 100:.2g} %' if exp is not None else ''
        mark = ' (socket drops!)' if bad else ''
        print(f'| {name} | {label} | {inj * 100:.3f} % | {res * 100:.4f} %{mark} | {lost} | '
              f'{rest} | {unrec} | {model} | {idle} |')
    print()
    base = cost['none'][0]
    print('| K:M | wire bytes per sample | overhead | sender CPU-s per 1e8 samples '
          '(both threads, lossless run) |')
    print('|---|---|---|---|')
    for name, (bps, cpu, lost, drops) in cost.items():
        print(f'| {name} | {bps:.4f} | {(bps / base - 1) * 100:+.1f} % | {cpu:.3f} |')
    return 0


if __name__ == '__main__':
    sys.exit(main())
