# SPDX-License-Identifier: MIT
# Accounting exactness: zcs-send's seeded tone goes through the seeded impairment relay
# (zcs-impair: drops, bursts, duplicates, reorders, garbage) into zcs-recv.  The relay's log says
# what happened to every datagram in the order it left; replaying that order through the reorder
# window's definition gives the ground truth, and zcs-recv's lost, late, duplicate, reordered,
# gap_samples, invalid-by-reason and output bytes must equal it exactly.  Ports 21200-21299.
# The truth is the relay's order; timing the machine decides must not change it: zcs-recv holds
# datagrams for 60 s (--hold), so only the window and the end release them (as the model does); a
# pause between senders starts only once the relay's datagrams all reached zcs-recv (settle), so
# zcs-recv sees the silence that makes the next stream a restart; and zcs-recv is stopped only
# once it has read every datagram the relay sent.
# Last, a keyed stream switched p12 -> i8 -> i16 by zcs-ctl while the relay drops and reorders:
# the datagram-to-sample mapping changes size at each switch, and the accounting and the bytes
# must still be exact (lost datagrams' samples from the relay's log, each stretch through its
# own format).
# Usage: test_accounting.py ZCS_RECV ZCS_SEND ZCS_IMPAIR ZCS_TONE_EXPECT ZCS_CTL
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recvlib import (Checker, Recv, finish_suite, isolate, read, set_format, settle,  # noqa: E402
                     workdir)

isolate()

RECV, SEND, IMPAIR, EXPECT, CTL = sys.argv[1:6]
BASE_PORT = 21200
RATE, TONE, AMP, SEED = 4000000, 250000, 0.6, 9
WINDOW = 64


def tone_bytes(count):
    return bytearray(subprocess.run([EXPECT, str(RATE), str(TONE), str(AMP), str(SEED), '0', 'p12',
                                     'cs16', '0', str(count)], check=True,
                                    stdout=subprocess.PIPE).stdout)


def model(arrivals, samples_of):
    """The receiver's window, by its definition, over one stream's arrival order."""
    m = dict(lost=0, late=0, duplicate=0, reordered=0, gap_samples=0)
    if not arrivals:
        return m, [], -1
    first = arrivals[0]
    start = 0 if first < WINDOW else first
    nxt, held, done, lost_seqs, highest = start, set(), {}, [], None

    def release(upto):
        nonlocal nxt
        while nxt < upto:
            if nxt in held:
                held.discard(nxt)
                done[nxt] = True
            else:
                done[nxt] = False
                lost_seqs.append(nxt)
            nxt += 1

    for seq in arrivals:
        if seq < start:
            continue
        if seq < nxt:
            if done[seq]:
                m['duplicate'] += 1
            else:
                m['late'] += 1
            continue
        if seq in held:
            m['duplicate'] += 1
            continue
        if seq >= nxt + WINDOW:
            release(seq - WINDOW + 1)
        held.add(seq)
        if highest is not None and seq < highest:
            m['reordered'] += 1
        else:
            highest = seq
        while nxt in held:
            held.discard(nxt)
            done[nxt] = True
            nxt += 1
    release(highest + 1)
    m['lost'] = len(lost_seqs)
    m['gap_samples'] = sum(samples_of[s] for s in lost_seqs)
    return m, lost_seqs, highest


def run(idx, name, impair_args, senders=1, kill_first_after=None):
    c = Checker(name)
    port = BASE_PORT + 2 * idx
    d = workdir('acct')
    out, log, ready = (os.path.join(d, f'{name}.{x}') for x in ('cs16', 'log', 'ready'))
    for p in (out, log, ready):
        if os.path.exists(p):
            os.unlink(p)
    r = Recv(RECV, ['-o', 'file:' + out, '--window', str(WINDOW), '--hold', '60000',
                    f'127.0.0.1:{port}'], interval=0.05)
    relay = subprocess.Popen([IMPAIR, '-l', f'127.0.0.1:{port + 1}', '-t', f'127.0.0.1:{port}',
                              '--log', log, '--ready', ready, '--idle-exit', '20000'] + impair_args)
    for _ in range(500):
        if os.path.exists(ready):
            break
        time.sleep(0.01)
    for i in range(senders):
        cmd = [SEND, '-q', '-s', 'tone', '-f', 'p12', '-r', str(RATE), '--tone', str(TONE),
               '--amplitude', str(AMP), '--seed', str(SEED), f'127.0.0.1:{port + 1}']
        if i == 0 and kill_first_after is not None:
            # a sender killed mid-stream: no end of stream; the next start is a restart
            s = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(1000):
                if 'starting at datagram' in r.news():
                    break
                time.sleep(0.01)
            time.sleep(kill_first_after)
            s.send_signal(signal.SIGKILL)
            s.wait()
        else:
            subprocess.run(cmd[:1] + ['-n', '1500000'] + cmd[1:], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # everything this sender sent has reached zcs-recv (or was dropped) ...
        c.true('the relay and zcs-recv settled', settle(r, relay.pid, (port, port + 1)))
        if i + 1 < senders:
            # ... and now a silence longer than zcs-recv's 1.5 s rule, so the next stream is a
            # restart even when the relay swallowed or held back this one's end of stream
            time.sleep(2.0)
    # the relay releases what it still holds when told to stop
    relay.send_signal(signal.SIGTERM)
    relay.wait(timeout=60)

    # the relay's log, in the order datagrams left it
    streams, order, samples_of, garbage, relay_sum = {}, [], {}, {}, {}
    with open(log) as f:
        for line in f:
            e = json.loads(line)
            if 'summary' in e:
                relay_sum = e['summary']
            elif 'garbage' in e:
                garbage[e['reason']] = garbage.get(e['reason'], 0) + 1
            elif 'seq' in e:
                sid = e['stream']
                if sid not in streams:
                    streams[sid] = []
                    order.append(sid)
                samples_of.setdefault(sid, {})[e['seq']] = e['samples']
                n = {'forwarded': 1, 'reordered': 1, 'duplicated': 2}.get(e['action'], 0)
                # once the next stream shows, the old one is no longer followed: what the relay
                # still releases of it reaches zcs-recv as another stream's datagrams
                if sid == order[-1]:
                    streams[sid] += [e['seq']] * n
    # stopped once it has read all the relay sent: a signal ends zcs-recv at once
    c.true(f'zcs-recv read the {relay_sum.get("sent")} datagrams the relay sent',
           r.wait_datagrams(relay_sum.get('sent', -1)))
    r.stop()
    summary = r.finish()
    c.eq('exit status', r.rc, 0)

    want = dict(lost=0, late=0, duplicate=0, reordered=0, gap_samples=0)
    expect_out = bytearray()
    for sid in order:
        m, lost_seqs, highest = model(streams[sid], samples_of[sid])
        for k in want:
            want[k] += m[k]
        spd = max(samples_of[sid].values())
        end = highest * spd + samples_of[sid][highest]
        tone = tone_bytes(end)
        for s in lost_seqs:
            tone[s * spd * 4:(s * spd + samples_of[sid][s]) * 4] = bytes(samples_of[sid][s] * 4)
        expect_out += tone
    c.counters(summary, want)
    c.eq('samples', summary['samples'], len(expect_out) // 4)
    c.eq('streams', summary['streams'], len(order))
    c.eq('restarts', summary['restarts'], len(order) - 1)
    c.eq('invalid', summary['invalid'], sum(garbage.values()))
    for reason, n in garbage.items():
        c.eq('invalid_by.' + reason, summary['invalid_by'][reason], n)
    c.eq('socket_drops', summary['socket_drops'], 0)
    c.same_bytes('output', read(out), bytes(expect_out))
    # the relay's own counts agree with the model where no datagram was late
    if want['late'] == 0:
        c.eq('relay duplicated', relay_sum.get('duplicated'), want['duplicate'])
        c.eq('relay reordered', relay_sum.get('reordered'), want['reordered'])
    print(f'{name}: relay {json.dumps(relay_sum)}\n  zcs-recv lost {summary["lost"]} late '
          f'{summary["late"]} dup {summary["duplicate"]} reordered {summary["reordered"]} '
          f'gap_samples {summary["gap_samples"]} invalid {summary["invalid"]}', flush=True)
    if c.failures:
        print(r.news())
    return c


def tone_in(fmt, first, count):
    return subprocess.run([EXPECT, str(SW_RATE), str(TONE), str(AMP), str(SEED), '0', fmt, 'cs16',
                           str(first), str(count)], check=True, stdout=subprocess.PIPE).stdout


SW_RATE, SW_COUNT = 1000000, 2500000


def run_switch(idx, name, impair_args):
    c = Checker(name)
    port = BASE_PORT + 2 * idx
    cport = BASE_PORT + 90 + idx
    d = workdir('acct')
    out, log, ready, key = (os.path.join(d, f'{name}.{x}') for x in ('cs16', 'log', 'ready', 'key'))
    for p in (out, log, ready, key):
        if os.path.exists(p):
            os.unlink(p)
    with open(key, 'w') as f:
        f.write(os.urandom(32).hex() + '\n')
    os.chmod(key, 0o600)
    r = Recv(RECV, ['--key', key, '-o', 'file:' + out, '--window', str(WINDOW), '--hold', '60000',
                    f'127.0.0.1:{port}'], interval=0.05)
    relay = subprocess.Popen([IMPAIR, '-l', f'127.0.0.1:{port + 1}', '-t', f'127.0.0.1:{port}',
                              '--log', log, '--ready', ready, '--idle-exit', '20000'] + impair_args)
    for _ in range(500):
        if os.path.exists(ready):
            break
        time.sleep(0.01)
    tx = subprocess.Popen([SEND, '-q', '-s', 'tone', '-f', 'p12', '-r', str(SW_RATE), '--tone',
                           str(TONE), '--amplitude', str(AMP), '--seed', str(SEED), '-n',
                           str(SW_COUNT), '--key', key, '--control', f'127.0.0.1:{cport}',
                           f'127.0.0.1:{port + 1}'], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
    try:
        s1 = set_format(CTL, key, cport, tx, 'i8')
        # half a second of i8 written before the next switch, so each format has its losses
        end = time.monotonic() + 60
        while time.monotonic() < end and tx.poll() is None and not (
                os.path.exists(out) and os.path.getsize(out) // 4 > s1 + 500000):
            time.sleep(0.02)
        s2 = set_format(CTL, key, cport, tx, 'i16')
        c.eq('zcs-send exit status', tx.wait(timeout=120), 0)
    finally:
        if tx.poll() is None:
            tx.kill()
            tx.wait()
    c.true(f'both switches inside the stream: i8 from {s1}, i16 from {s2}', 0 < s1 < s2 < SW_COUNT)
    c.true('the relay and zcs-recv settled', settle(r, relay.pid, (port, port + 1)))
    relay.send_signal(signal.SIGTERM)
    relay.wait(timeout=60)
    arrivals, samples_of, relay_sum = [], {}, {}
    with open(log) as f:
        for line in f:
            e = json.loads(line)
            if 'summary' in e:
                relay_sum = e['summary']
            elif 'seq' in e:
                samples_of[e['seq']] = e['samples']
                arrivals += [e['seq']] * {'forwarded': 1, 'reordered': 1,
                                          'duplicated': 2}.get(e['action'], 0)
    c.true(f'zcs-recv read the {relay_sum.get("sent")} datagrams the relay sent',
           r.wait_datagrams(relay_sum.get('sent', -1)))
    r.stop()
    summary = r.finish()
    c.eq('exit status', r.rc, 0)
    want, lost_seqs, highest = model(arrivals, samples_of)
    # every datagram is in the log, the lost ones too: a datagram's first sample is the sum of
    # those before it, whatever each format's datagram size
    first, pos = {}, 0
    for seq in range(highest + 1):
        first[seq] = pos
        pos += samples_of[seq]
    per = [sum(1 for q in lost_seqs if a <= first[q] < b)
           for a, b in ((0, s1), (s1, s2), (s2, pos))]
    c.true(f'datagrams lost in each format (p12, i8, i16: {per})', min(per) > 0)
    expect_out = bytearray()
    for fmt, a, b in (('p12', 0, s1), ('i8', s1, s2), ('i16', s2, pos)):
        expect_out += tone_in(fmt, a, b - a)
    for seq in lost_seqs:
        expect_out[first[seq] * 4:(first[seq] + samples_of[seq]) * 4] = bytes(samples_of[seq] * 4)
    c.counters(summary, want)
    c.eq('samples', summary['samples'], pos)
    c.eq('invalid', summary['invalid'], 0)
    c.eq('socket_drops', summary['socket_drops'], 0)
    c.same_bytes('output', read(out), bytes(expect_out))
    print(f'{name}: switches at {s1} (i8), {s2} (i16); relay {json.dumps(relay_sum)}\n  zcs-recv '
          f'lost {summary["lost"]} late {summary["late"]} dup {summary["duplicate"]} reordered '
          f'{summary["reordered"]} gap_samples {summary["gap_samples"]}', flush=True)
    if c.failures:
        print(r.news())
    return c


def main():
    checks = [
        run(0, 'mixed', ['--seed', '11', '--drop', '0.01', '--dup', '0.01', '--reorder', '0.02',
                         '--reorder-depth', '3', '--garbage', '0.01']),
        run(1, 'bursty_long_gaps', ['--seed', '12', '--drop', '0.002', '--burst-drop', '0.004:150',
                                    '--reorder', '0.01', '--reorder-depth', '5']),
        run(2, 'deep_reorder_late', ['--seed', '13', '--drop', '0.01', '--reorder', '0.02',
                                     '--reorder-depth', '90', '--dup', '0.005']),
        run(3, 'restart_mid_stream', ['--seed', '14', '--drop', '0.01', '--dup', '0.01',
                                      '--reorder', '0.02'], senders=2, kill_first_after=0.3),
        run(4, 'restart_after_eos', ['--seed', '15', '--drop', '0.005', '--reorder', '0.01',
                                     '--garbage', '0.005'], senders=2),
        run_switch(5, 'format_switch', ['--seed', '16', '--drop', '0.02', '--dup', '0.005',
                                        '--reorder', '0.02', '--reorder-depth', '3']),
    ]
    finish_suite(checks)


if __name__ == '__main__':
    main()
