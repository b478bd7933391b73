# SPDX-License-Identifier: MIT
# A datagram's path through a program's functions, from a trace of tests/tools/call_trace.c:
# the calls made while the Nth call of FUNCTION ran (the receive engine's per-datagram entry,
# zcs_rx_datagram), as a tree with each function's file, then what the path does between files:
# how many times it enters another file, how many of those return to a file it had left (the
# same file entered again within one datagram), and how many call back into a file still
# waiting lower on the stack (a callee calling its caller).  Inline helpers of common/wire and
# the conversion kernels are left out of the tree (they never call back).
# Usage: call_path.py EXE TRACE FUNCTION N [SOURCE-ROOT]
import collections
import os
import subprocess
import sys

QUIET = ('bytes.h', 'seq.h', 'convert_', 'wire.h')


def main():
    exe, trace, entry, nth = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    root = sys.argv[5] if len(sys.argv) > 5 else os.getcwd()
    events = [line.split() for line in open(trace)]
    offsets = sorted({e[2] for e in events})
    lines = subprocess.run(['addr2line', '-f', '-e', exe] + ['0x' + o for o in offsets],
                           capture_output=True, text=True, check=True).stdout.split('\n')
    sym = {}
    for i, o in enumerate(offsets):
        where = lines[2 * i + 1].split(':')[0]
        sym[o] = (lines[2 * i], os.path.relpath(where, root) if where.startswith('/') else where)
    busiest = collections.Counter(e[0] for e in events).most_common(1)[0][0]
    events = [e for e in events if e[0] == busiest]
    starts = [i for i, e in enumerate(events) if e[1] == '>' and sym[e[2]][0] == entry]
    if nth >= len(starts):
        print(f'{entry} ran {len(starts)} times; no call number {nth}')
        return 1
    stack, files, entered, returned, backs = [], [], 0, 0, 0
    for e in events[starts[nth]:]:
        fn, path = sym[e[2]]
        if e[1] == '>':
            if not any(q in path for q in QUIET):
                here = [f for _, f in stack if not any(q in f for q in QUIET)]
                if here and path != here[-1]:
                    entered += 1
                    returned += path in files
                    backs += path in here[:-1]
                if not files or path != files[-1]:
                    files.append(path)
                print('  ' * len(stack) + f'{fn}  {path}')
            stack.append((fn, path))
            continue
        stack.pop()
        if not stack:
            break
        here = [f for _, f in stack if not any(q in f for q in QUIET)]
        if here and here[-1] != files[-1]:
            files.append(here[-1])
    print(' -> '.join(os.path.basename(f) for f in files))
    print(f'{len(set(files))} files; enters another file {entered} times, '
          f'{returned} of them a file it had left; calls back into a caller\'s file {backs} times')
    return 0


sys.exit(main())
