# SPDX-License-Identifier: MIT
# Exact scenarios through zcs-recv: zcs-genstream sends datagrams in a scripted order (reordered,
# lost, duplicated, late, restarted, malformed, discontinuous, compressed) and every counter and
# every output byte must match what the script implies.  Ports 21010-21099.
# The outcome must not depend on how the machine schedules the processes: zcs-recv holds datagrams
# for 60 s (--hold) so a sender paused mid-script never has its holes released early, a 'term'
# case is stopped only once zcs-recv has read every datagram sent, and a 'sleep:' is timed from
# the moment zcs-recv has read everything before it.
# Usage: test_scenarios.py ZCS_RECV ZCS_GENSTREAM
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recvlib import (Checker, Recv, expect_bytes, finish_suite, gen, isolate, read,  # noqa: E402
                     workdir)

isolate()

RECV, GEN = sys.argv[1], sys.argv[2]
BASE_PORT = 21010
ZERO = {'lost': 0, 'late': 0, 'duplicate': 0, 'reordered': 0, 'invalid': 0, 'gap_samples': 0,
        'socket_drops': 0, 'overruns': 0, 'resyncs': 0}


def counts(**kw):
    d = dict(ZERO)
    d.update(kw)
    return d


# name, genstream options, ops, extra zcs-recv args, counters, output layout (spd 100 unless set),
# how it ends: 'eos' (--exit-on-eos), 'term' (SIGTERM once the sender is done) or 'count'
CASES = [
    ('in_order', [], ['meta', '0-49', 'eos:50'], ['--window', '8'],
     counts(samples=5100, delivered=51, eos=1), ['0-5099'], 'eos'),
    ('reorder_within_window', [], ['meta', '0-9', '12', '11', '10', '13-19', 'eos:20'],
     ['--window', '8'], counts(reordered=2, samples=2100), ['0-2099'], 'eos'),
    ('one_lost', [], ['meta', '0-9', '11-19', 'eos:20'], ['--window', '8'],
     counts(lost=1, gap_samples=100, samples=2100, rx_samples=2000),
     ['0-999', 'zero:100', '1100-2099'], 'eos'),
    # a loss takes real time: the sleep stands for the 30 datagrams' 3 ms (zero fill is bounded
    # by the rate, docs/receiver.md)
    ('burst_lost', [], ['meta', '0-9', 'sleep:50', '40-59', 'eos:60'], ['--window', '8'],
     counts(lost=30, gap_samples=3000, gaps=1, samples=6100), ['0-999', 'zero:3000', '4000-6099'],
     'eos'),
    ('gap_drop', [], ['meta', '0-9', '11-19', 'eos:20'], ['--window', '8', '--gap', 'drop'],
     counts(lost=1, gap_samples=100, samples=2000), ['0-999', '1100-2099'], 'eos'),
    ('duplicates', [], ['meta', '0-9', '5', '9', '10', '10', '11-19', '15', 'eos:20'],
     ['--window', '8'], counts(duplicate=4, samples=2100), ['0-2099'], 'eos'),
    ('late', [], ['meta', '0-9', '11-20', '10', '21-29', 'eos:30'], ['--window', '4'],
     counts(lost=1, late=1, gap_samples=100, samples=3100), ['0-999', 'zero:100', '1100-3099'],
     'eos'),
    ('reordered_and_late_and_dup', [],
     ['meta', '0-3', '5', '4', '4', '7', '9', '8', '12', '6', '10', '11', '13-15', 'eos:16'],
     ['--window', '4'],
     # 12 slides the window to 9: 6 is declared lost and then arrives late; 4, 8, 10 and 11
     # come after a higher number but in time
     counts(reordered=4, duplicate=1, lost=1, late=1, gap_samples=100, samples=1700),
     ['0-599', 'zero:100', '700-1699'], 'eos'),
    ('long_gap_zero_filled', [], ['meta', '0-9', 'sleep:600', '5000-5009', 'eos:5010'],
     ['--window', '8'],
     counts(lost=4990, gap_samples=499000, samples=501100), ['0-999', 'zero:499000', '500000-501099'],
     'eos'),
    # a resync is believed once the old position fell silent (100 ms) and the new one goes on
    ('huge_jump_resyncs', [], ['meta', '0-9', 'sleep:300', '300000-300009', 'eos:300010'],
     ['--window', '8'],
     counts(resyncs=1, samples=2100), ['0-999', '30000000-30001099'], 'eos'),
    ('lost_at_start', [], ['meta', '2-9', 'eos:10'], ['--window', '8'],
     counts(lost=2, gap_samples=200, samples=1100), ['zero:200', '200-1099'], 'eos'),
    # the stream's start came before its metadata: kept, and delivered once it came (the
    # stream's first metadata lost costs nothing), not a late join
    ('before_metadata', ['--next-seq', '5'], ['0-4', 'meta', '5-9', 'eos:10'], ['--window', '8'],
     counts(pre_meta=0, pre_meta_samples=0, lost=0, gap_samples=0, samples=1100,
            rx_samples=1100, late_joins=0), ['0-1099'], 'eos'),
    # joined mid-stream: what came before the metadata is kept and delivered too, from the
    # first datagram heard on, and nothing before it counts as loss
    ('late_join', ['--next-seq', '25'], ['20-24', 'meta', '25-29', 'eos:30'], ['--window', '8'],
     counts(pre_meta=0, pre_meta_samples=0, samples=1100, late_joins=1), ['2000-3099'], 'eos'),
    # a copy of the first datagram renumbered far ahead, sent before it: not the start (its
    # number is counted unconfirmed), the stream exact from sample 0
    ('forged_ahead_at_start', [], ['meta', '100000', '0-9', 'eos:10'], ['--window', '8'],
     counts(samples=1100, unconfirmed=1, late_joins=0), ['0-1099'], 'eos'),
    ('late_join_at_metadata', ['--next-seq', '40'], ['meta', '40-44', 'eos:45'], ['--window', '8'],
     counts(pre_meta=0, samples=600, late_joins=1), ['4000-4599'], 'eos'),
    ('source_discontinuity', ['--discont', '10:500'], ['meta', '0-19', 'eos:20'], ['--window', '8'],
     counts(discont=1, discont_samples=500, samples=2600), ['0-999', 'zero:500', '1500-2599'],
     'eos'),
    ('garbage_counted_by_reason', [],
     ['meta', '0-4', 'garbage:truncated', '5-9', 'garbage:bad_magic', 'garbage:bad_version',
      'garbage:bad_length', 'garbage:bad_format', 'garbage:reserved', 'garbage:bad_count',
      'garbage:random', 'garbage:foreign', '10-19', 'eos:20'], ['--window', '8'],
     dict(counts(samples=2100, foreign=1), invalid=8, **{
         'invalid_by.truncated': 1, 'invalid_by.bad_magic': 2, 'invalid_by.bad_version': 1,
         'invalid_by.bad_length': 1, 'invalid_by.bad_format': 1, 'invalid_by.reserved': 1,
         'invalid_by.bad_count': 1}), ['0-2099'], 'eos'),
    ('zstd', ['--zstd', '--slow'], ['meta', '0-19', 'eos:20'], ['--window', '8'],
     counts(samples=2100, compressed=21), ['0-2099'], 'eos'),
    ('zstd_corrupt_frame', ['--zstd', '--slow'], ['meta', '0-4', 'garbage:bad_zstd', '5-9', 'eos:10'],
     ['--window', '8'], dict(counts(samples=1100), invalid=1, **{'invalid_by.decompress': 1}),
     ['0-1099'], 'eos'),
    # an end of stream is believed once the stream falls silent after it (100 ms)
    ('restart_after_eos', [], ['meta', '0-19', 'eos:20', 'sleep:300', 'stream:0x2', 'meta', '0-9',
                               'eos:10'],
     ['--window', '8'], counts(samples=3200, restarts=1, streams=2, eos=2),
     ['0-2099', '0-1099'], 'term'),
    # longer than zcs-recv's 1.5 s rule for a silent stream; --eos-timeout (default 2 s) would
    # end the first stream when the machine delays the second sender
    ('restart_after_silence', [], ['meta', '0-9', 'sleep:1800', 'stream:0x3', 'meta', '0-9',
                                   'eos:10'],
     ['--window', '8', '--eos-timeout', '60'], counts(samples=2100, restarts=1, streams=2, eos=1),
     ['0-999', '0-1099'], 'eos'),
    ('other_stream_ignored', [], ['stream:0x1', 'meta', '0-4', 'stream:0x2', 'meta', '0-9',
                                  'stream:0x1', '5-9', 'stream:0x2', 'eos:10'],
     ['--window', '8', '--stream', '0x2'], counts(samples=1100, foreign=11, streams=1),
     ['0-1099'], 'eos'),
    ('count_truncates', [], ['meta', '0-49', 'eos:50'], ['--window', '8', '-n', '1550'],
     counts(samples=1550), ['0-1549'], 'count'),
    ('count_through_zero_fill', [], ['meta', '0-4', '8-49', 'eos:50'], ['--window', '8', '-n', '650'],
     counts(samples=650, lost=3, gap_samples=300), ['0-499', 'zero:150'], 'count'),
    ('source_filter_rejects', [], ['meta', '0-9', 'eos:10'], ['--source', '127.0.0.2'],
     counts(samples=0, filtered=12, streams=0), [], 'term'),
    ('source_filter_accepts', [], ['meta', '0-9', 'eos:10'], ['--source', '127.0.0.1'],
     counts(samples=1100, filtered=0), ['0-1099'], 'eos'),
]


def datagrams(ops):
    """How many datagrams zcs-genstream sends for these OPs."""
    n = 0
    for op in ops:
        if op.startswith(('stream:', 'sleep:')):
            continue
        if '-' in op and op[0].isdigit():
            a, b = op.split('-')
            n += int(b) - int(a) + 1
        else:
            n += 1
    return n


def run_case(idx, case, fmt='p12', out_type='cs16'):
    name, gopts, ops, rargs, want, layout, end = case
    c = Checker(f'{name} ({fmt}->{out_type})')
    port = BASE_PORT + idx
    d = workdir('scen')
    out = os.path.join(d, f'{name}.{out_type}')
    if os.path.exists(out):
        os.unlink(out)
    args = ['-F', out_type, '-o', 'file:' + out, '--hold', '60000'] + rargs + [f'127.0.0.1:{port}']
    if end == 'eos':
        args.append('--exit-on-eos')
    r = Recv(RECV, args, interval=0.05)
    dest, gargs, sent = f'127.0.0.1:{port}', ['--format', fmt] + gopts, 0
    while any(op.startswith('sleep:') for op in ops):
        # the silence starts once zcs-recv has read what came before, not when the sender
        # thinks it sent it
        at = next(i for i, op in enumerate(ops) if op.startswith('sleep:'))
        gen(GEN, dest, gargs, ops[:at])
        sent += datagrams(ops[:at])
        c.true(f'zcs-recv read the {sent} datagrams before {ops[at]}', r.wait_datagrams(sent))
        time.sleep(int(ops[at][6:]) / 1000)
        ops = ops[at + 1:]
    gen(GEN, dest, gargs, ops)
    sent += datagrams(ops)
    if end == 'term':
        # stopped only once every datagram sent was read: a signal ends zcs-recv at once
        c.true(f'zcs-recv read the {sent} datagrams sent', r.wait_datagrams(sent))
        r.stop()
    s = r.finish()
    c.eq('exit status', r.rc, 0)
    c.counters(s, want)
    if layout is not None:
        c.same_bytes('output', read(out), expect_bytes(GEN, fmt, out_type, layout, gopts))
    if c.failures:
        print(r.news())
    return c


def main():
    checkers = [run_case(i, case) for i, case in enumerate(CASES)]
    # the loss case through every wire format and output type: zero fill must be each type's zero
    n = len(CASES)
    for fmt in ('i8', 'p12', 'i16'):
        for out_type in ('cs8', 'cu8', 'cs16', 'cf32', 'native'):
            checkers.append(run_case(n, CASES[2], fmt, out_type))
            n += 1
    finish_suite(checkers)


if __name__ == '__main__':
    main()
