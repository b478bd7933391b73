# SPDX-License-Identifier: MIT
# Who calls whom, read from the objects themselves (nm of the static libraries, so every call
# between files counts, macros and headers included, and nothing a comment claims): the libraries
# call each other in one direction only (no circle between libraries), and inside a library no two
# files call each other, directly or around a circle, except the groups listed below, each a
# single object split into files for a reason its header states.  A send path that calls back
# into its back-end's caller, or a receive engine whose files call each other both ways, fails.
# Usage: test_calls.py NM LIBRARY.a...
import collections
import os
import subprocess
import sys

# One object split by thread or kind: the output set (receiver/outputs/output_kinds.h says why its
# files call each other: the writers report failure and ask whether the set is stopping).
ALLOWED = [
    ('zcs_recv_outputs', {'outputs_outputs.c', 'outputs_out_feed.c', 'outputs_out_writer.c',
                          'outputs_out_fifo.c', 'outputs_out_file.c', 'outputs_out_rtltcp.c',
                          'outputs_out_sigmf.c', 'outputs_out_tcp.c', 'outputs_out_udp.c'}),
]


# Libraries that are parts of another, built apart only for their compiler flags.
ISA_PARTS = {'zcs_formats_sse2': 'zcs_formats', 'zcs_formats_avx2': 'zcs_formats',
             'zcs_formats_neon': 'zcs_formats'}


def read_library(nm, path):
    """Returns {member: (defined symbols, undefined symbols)} of a static library."""
    out = subprocess.run([nm, path], capture_output=True, text=True, check=True).stdout
    members, cur = {}, None
    for line in out.splitlines():
        if line.endswith(':') and line[:-1].endswith('.o'):
            cur = os.path.basename(line[:-1]).removesuffix('.o')
            members[cur] = (set(), set())
            continue
        parts = line.split()
        if cur is None:
            continue
        if len(parts) == 3 and parts[1] in 'TDBRC':
            members[cur][0].add(parts[2])
        elif len(parts) == 2 and parts[0] == 'U':
            members[cur][1].add(parts[1])
    return members


def circles(graph):
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index, low, on, stack, found, n = {}, {}, set(), [], [], 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n
                    n += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def main():
    nm, paths = sys.argv[1], sys.argv[2:]
    owner = {}  # symbol -> (library, member)
    libs = {}
    for path in paths:
        lib = os.path.basename(path).removeprefix('lib').removesuffix('.a')
        # the per-ISA kernels are the formats library compiled with other flags
        lib = ISA_PARTS.get(lib, lib)
        libs.setdefault(lib, {}).update(read_library(nm, path))
        for member, (defined, _) in libs[lib].items():
            for sym in defined:
                owner[sym] = (lib, member)
    files = collections.defaultdict(set)
    between = collections.defaultdict(set)
    for lib, members in libs.items():
        for member, (_, undefined) in members.items():
            for sym in undefined:
                if sym not in owner:
                    continue
                olib, omember = owner[sym]
                if olib == lib and omember != member:
                    files[(lib, member)].add((lib, omember))
                elif olib != lib:
                    between[lib].add(olib)
    bad = []
    for comp in circles(between):
        bad.append('libraries call each other: ' + ', '.join(comp))
    for comp in circles(files):
        lib = comp[0][0]
        names = ', '.join(m for _, m in comp)
        if any(lib == alib and {m for _, m in comp} <= group for alib, group in ALLOWED):
            print(f'allowed circle in {lib}: {names}')
        else:
            bad.append(f'files of {lib} call each other: {names}')
    calls = sum(len(v) for v in files.values())
    print(f'{len(libs)} libraries, {sum(len(m) for m in libs.values())} files, '
          f'{calls} calls between files of one library')
    for b in bad:
        print('FAIL: ' + b)
    return 1 if bad else 0


sys.exit(main())
