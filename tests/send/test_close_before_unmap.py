#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Regression test close_before_unmap: zcs-send unmapped its train pool before closing its socket,
# against sendpath.h's own rule (zero-copy sends still in flight pin the pool's pages until their
# socket is closed).  Under strace, the close of the connected UDP socket must come before the
# munmap of the pool (the one MAP_POPULATE mapping: train.c prefaults it), on every send path.
# Usage: test_close_before_unmap.py ZCS-SEND   (port 20604; nothing needs to listen)
import os
import re
import subprocess
import sys
import tempfile

SEND = sys.argv[1]
failures = 0
env = dict(os.environ)
# LeakSanitizer cannot run under ptrace: the leak check is the other tests' job
env['ASAN_OPTIONS'] = env.get('ASAN_OPTIONS', '') + ':detect_leaks=0'

for path in ['auto', 'msg-zc', 'gso', 'plain']:
    with tempfile.NamedTemporaryFile('r', suffix='.strace') as log:
        p = subprocess.run(['strace', '-f', '-qq', '-e', 'trace=connect,close,mmap,munmap', '-o', log.name,
                            SEND, '-q', '--cpus', 'none', '-s', 'tone', '-r', '1M', '-n', '50000',
                            '--send-path', path, '127.0.0.1:20604'],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, timeout=120)
        lines = log.read().splitlines()
    if p.returncode != 0:
        failures += 1
        print(f'FAIL {path}: exit status {p.returncode}: {p.stderr.decode()}')
        continue
    sock = closed_at = pool = None
    unmaps = []
    for i, line in enumerate(lines):
        m = re.search(r'connect\((\d+), \{sa_family=AF_INET, sin_port=htons\(20604\)', line)
        if m:
            sock, closed_at = m.group(1), None
        if sock is not None and re.search(r'\bclose\(%s\)\s+= 0' % sock, line) and closed_at is None:
            closed_at = i
        m = re.search(r'mmap\(NULL, (\d+), PROT_READ\|PROT_WRITE, [A-Z_|]*MAP_POPULATE[A-Z_|]*, '
                      r'-1, 0\)\s+= (0x[0-9a-f]+)', line)
        if m:
            pool = m.group(2), m.group(1)
        m = re.search(r'munmap\((0x[0-9a-f]+), (\d+)\)\s+= 0', line)
        if m and pool == (m.group(1), m.group(2)):
            unmaps.append((int(m.group(2)), i))
    if sock is None or closed_at is None or len(unmaps) != 1:
        failures += 1
        print(f'FAIL {path}: socket {sock}, its close at {closed_at}, pool {pool}, '
              f'its munmaps {unmaps}')
        continue
    size, at = unmaps[0]
    ok = closed_at < at
    failures += not ok
    print(f'{"ok" if ok else "FAIL"} {path}: close({sock}) at line {closed_at}, '
          f'munmap of the pool ({size} bytes) at line {at}')

sys.exit(1 if failures else 0)
