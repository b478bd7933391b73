# SPDX-License-Identifier: MIT
# common/'s dependency order, checked on its quoted includes: common/ includes nothing of zcs
# outside it (but the build's zcs_config.h); its folders come in the order of common_inc in
# common/meson.build, and a file includes only headers of its own folder or of folders before
# it (util <- wire <- net, ctl, dnssd); no two files of common/ include each other in a circle,
# and no two of its modules (x.c with x.h) include each other's header, as proto.c and auth.c did.
# Usage: test_layers.py SOURCE-ROOT
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main():
    root = os.path.join(sys.argv[1], 'common')
    with open(os.path.join(root, 'meson.build')) as f:
        m = re.search(r"common_inc\s*=\s*include_directories\(([^)]*)\)", f.read())
    order = re.findall(r"'([^']+)'", m.group(1))
    files = {}
    for folder in order:
        for name in sorted(os.listdir(os.path.join(root, folder))):
            if name.endswith(('.c', '.h')):
                files[name] = folder
    bad = []
    edges = {}
    for name, folder in files.items():
        with open(os.path.join(root, folder, name), errors='replace') as f:
            includes = INCLUDE.findall(f.read())
        edges[name] = [i for i in includes if i in files]
        for inc in includes:
            if inc == 'zcs_config.h':
                continue
            if inc not in files:
                bad.append(f'{folder}/{name} includes "{inc}", which is not in common/')
            elif order.index(files[inc]) > order.index(folder):
                bad.append(f'{folder}/{name} includes {files[inc]}/{inc}, a folder after its own')
    # a circle of includes among the files
    state = {}

    def visit(n, path):
        state[n] = 1
        for t in edges[n]:
            if state.get(t) == 1:
                bad.append('circle: ' + ' -> '.join(path[path.index(t):] + [t]))
            elif not state.get(t):
                visit(t, path + [t])
        state[n] = 2
    for n in sorted(edges):
        if not state.get(n):
            visit(n, [n])
    # two modules that include each other's header
    for a in sorted(n for n in files if n.endswith('.c')):
        for b in sorted(n for n in files if n.endswith('.c') and n > a):
            ha, hb = a[:-2] + '.h', b[:-2] + '.h'
            if hb in edges[a] and ha in edges[b]:
                bad.append(f'{a} and {b} include each other\'s header')
    print(f'common/: {len(files)} files in {", ".join(order)}')
    for b in bad:
        print('FAIL: ' + b)
    return 1 if bad else 0


sys.exit(main())
