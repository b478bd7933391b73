# SPDX-License-Identifier: MIT
# Regression test for "zcs-recv --exit-on-eos never exits when the end-of-stream datagram is
# lost": zcs-genstream sends a stream without its EOS datagram (as if the network dropped it), and
# zcs-recv must end it after --eos-timeout seconds of silence, exit 0, flush every sample and say
# "ended_by":"idle".  Also checks the other ends it reports (eos, count, signal), that silence
# before any stream never ends the wait, and that 0 disables the idle end.  Ports 21900-21919.
# Usage: test_eos_lost.py ZCS_RECV ZCS_GENSTREAM
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recvlib import (Checker, Recv, expect_bytes, finish_suite, gen, isolate, read,  # noqa: E402
                     workdir)

isolate()

RECV, GEN = sys.argv[1], sys.argv[2]
BASE_PORT = 21900
WORK = workdir('eos-lost')


def run(idx, name, rargs, ops, want_end, want_layout, stop_after=None):
    c = Checker(name)
    port = BASE_PORT + idx
    out = os.path.join(WORK, name + '.cs16')
    r = Recv(RECV, ['-F', 'cs16', '-o', 'file:' + out] + rargs + [f'127.0.0.1:{port}'])
    t0 = time.monotonic()
    if ops:
        gen(GEN, f'127.0.0.1:{port}', [], ops)
    s = r.finish(timeout=30.0, stop_after=stop_after)
    # from before the first datagram: the silence (and any stop_after) lies within it for sure
    waited = time.monotonic() - t0
    c.eq('exit status', r.rc, 0)
    c.eq('ended_by', s.get('ended_by'), want_end)
    if want_layout is not None:
        c.same_bytes('output', read(out), expect_bytes(GEN, 'p12', 'cs16', want_layout))
    print(f'{name}: ended by {s.get("ended_by")} {waited:.2f} s after the sender started',
          flush=True)
    return c, s, r, waited


checkers = []

# the bug: no EOS datagram; --eos-timeout 1 ends the stream after a second of silence
c, s, r, waited = run(0, 'eos_lost_timeout_1s', ['--exit-on-eos', '--eos-timeout', '1'],
                      ['meta', '0-49'], 'idle', ['0-4999'])
c.eq('samples', s.get('samples'), 5000)
c.eq('eos', s.get('eos'), 0)
c.true('news says the stream was taken as ended', 'taken as ended' in r.news())
# not a timing assertion: the idle end cannot come before a full timeout of silence
c.true(f'ended only after the silence ({waited:.2f} s >= 1 s)', waited >= 1.0)
checkers.append(c)

# the default timeout (2 s) applies without --eos-timeout
c, s, r, waited = run(1, 'eos_lost_default_timeout', ['--exit-on-eos'], ['meta', '0-19'], 'idle',
                      ['0-1999'])
c.true(f'ended only after the default 2 s of silence ({waited:.2f} s)', waited >= 2.0)
checkers.append(c)

# the EOS datagram arrives: ended by it, at once
c, s, r, waited = run(2, 'eos_delivered', ['--exit-on-eos', '--eos-timeout', '5'],
                      ['meta', '0-19', 'eos:20'], 'eos', ['0-2099'])
c.eq('eos', s.get('eos'), 1)
checkers.append(c)

# --count
c, s, r, waited = run(3, 'count_reached', ['--exit-on-eos', '-n', '1500'], ['meta', '0-19'],
                      'count', ['0-1499'])
checkers.append(c)

# --eos-timeout 0: the idle end is off, so only the signal ends it
c, s, r, waited = run(4, 'eos_timeout_0_waits', ['--exit-on-eos', '--eos-timeout', '0'],
                      ['meta', '0-9'], 'signal', ['0-999'], stop_after=2.5)
c.true('still running until the signal', waited >= 2.5)
checkers.append(c)

# no stream at all: silence before the first datagram is waiting, not an end
c, s, r, waited = run(5, 'no_stream_keeps_waiting', ['--exit-on-eos', '--eos-timeout', '0.3'], [],
                      'signal', None, stop_after=1.5)
c.eq('stream', s.get('stream'), None)
checkers.append(c)

# without --exit-on-eos the option makes no sense: refused by name
c = Checker('eos_timeout_needs_exit_on_eos')
p = subprocess.run([RECV, '--eos-timeout', '1', '127.0.0.1:21919'], stderr=subprocess.PIPE,
                   stdout=subprocess.DEVNULL, timeout=10)
c.eq('exit status', p.returncode, 2)
c.true('message names --eos-timeout', b'--eos-timeout' in p.stderr)
p = subprocess.run([RECV, '--exit-on-eos', '--eos-timeout', 'soon', '127.0.0.1:21919'],
                   stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, timeout=10)
c.eq('bad value: exit status', p.returncode, 2)
checkers.append(c)

finish_suite(checkers)
