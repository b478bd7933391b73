#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# zcs-recv wipes the key it loaded on every way out (regression: a failure to set up its outputs
# returned without wiping it).  Run under libzcs-keywatch.so, which reports at exit whether the
# key's bytes were wiped and fails one allocation where asked.  Case 'alloc': the outputs' first
# block (ZCS_BLOCK_BYTES) fails, a failure nothing else brings about (not in sanitizer builds,
# whose allocator the watch cannot replace: meson registers it only elsewhere).  Case
# 'refusals': a run state refused and an output refused, two other ways out after the load.
# In a network namespace of its own (loopback), port 23140 (never bound: every run ends before).
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'recv'))
from recvlib import isolate  # noqa: E402

recv_exe, keywatch, case = sys.argv[1:4]   # case: alloc | refusals
HEX = '5a17c0de' * 8
BLOCK_BYTES = 64 * 1024   # receiver/outputs/include/output.h, ZCS_BLOCK_BYTES


def run(args, fail_malloc=None):
    env = dict(os.environ, LD_PRELOAD=keywatch, ZCS_KEYWATCH_HEX=HEX)
    # a sanitizer build's runtime wants to come first; this library only watches
    asan = env.get('ASAN_OPTIONS', '')
    env['ASAN_OPTIONS'] = (asan + ':' if asan else '') + 'verify_asan_link_order=0'
    if fail_malloc:
        env['ZCS_KEYWATCH_FAIL_MALLOC'] = str(fail_malloc)
    p = subprocess.Popen([recv_exe] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         env=env)
    try:
        _, stderr = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        # every run here ends at start; one still running got past the point it was to fail
        # at and listens for a stream: SIGTERM ends it cleanly, the watch still reports at
        # exit, and the assertions say what went wrong
        p.terminate()
        _, stderr = p.communicate(timeout=30)
    report = [line for line in stderr.decode(errors='replace').splitlines()
              if line.startswith('keywatch:')]
    assert report, 'no report from the watch: %r' % stderr
    return p.returncode, stderr.decode(errors='replace'), report[-1]


def main():
    isolate()
    with tempfile.TemporaryDirectory() as d:
        key = os.path.join(d, 'k')
        with open(key, 'w') as f:
            f.write(HEX + '\n')
        os.chmod(key, 0o600)
        where = '127.0.0.1:23140'

        if case == 'alloc':
            rc, err, report = run(['--key', key, '--run-state', 'none', where], BLOCK_BYTES)
            assert 'fault yes' in report, 'the allocation failure was not injected: %r' % report
            assert rc == 1 and 'outputs:' in err, (rc, err)
            assert 'wiped yes' in report, 'outputs not set up: the key was not wiped: %r' % err
            print('ok: outputs not set up: exit 1, key wiped')
        else:
            rc, err, report = run(['--key', key, '--run-state', d, where])
            assert rc == 2 and '--run-state' in err, (rc, err)
            assert 'wiped yes' in report, 'run state refused: the key was not wiped: %r' % err
            print('ok: run state refused: exit 2, key wiped')

            rc, err, report = run(['--key', key, '--run-state', 'none', '-o', 'nosuchkind:x',
                                   where])
            assert rc == 2, (rc, err)
            assert 'wiped yes' in report, 'output refused: the key was not wiped: %r' % err
            print('ok: output refused: exit 2, key wiped')
    print('PASS')
    return 0


sys.exit(main())
