# SPDX-License-Identifier: MIT
# Every registered test that may touch the network runs in namespaces of its own, so two runs of
# the suites on one host (two build directories, meson test --repeat N --num-processes 2) never
# share a fixed port: its command starts with tests/tools/netns-run.sh, or the program or script
# it runs makes its own namespaces (a marker below in its text, or in its .c source for a built
# program), or it is one of the few tests known to use no network at all.
# Usage: test_isolation.py BUILD-DIR/meson-info/intro-tests.json SOURCE-ROOT
import json
import os
import sys

# How a test that is not wrapped makes its own namespaces: unshare(1) or unshare(CLONE_NEWNET),
# `ip netns add`, tests/recv/recvlib.py isolate(), tests/board/fakeboard.sh, tests/lab/lab.sh.
MARKERS = ('unshare', 'ip netns add', 'isolate()', 'fakeboard_enter', 'lab_up ')
# Suites and tests without any socket: the fuzz corpus replays, the man page checks, the
# kernel-header check, common/'s include order, this check, the profile readers of the ARM counts.
NO_NETWORK_SUITES = {'fuzz'}
NO_NETWORK_TESTS = {'manpage_zcs_send', 'manpage_zcs_recv', 'manpage_zcs_ctl', 'board-kernel-compat',
                    'common_layers', 'include_boundaries', 'call_layers', 'tests_isolated',
                    'icount_profile', 'auth_arm_funcs', 'package_build_deps'}


def texts(cmd, build_dir, src_root):
    """The text of each file the command names: scripts as they are, a built program's .c."""
    for arg in cmd:
        path = arg if os.path.isabs(arg) else os.path.join(build_dir, arg)
        if not os.path.isfile(path):
            continue
        with open(path, 'rb') as f:
            head = f.read(4)
        if head == b'\x7fELF':
            rel = os.path.relpath(path, build_dir)
            path = os.path.join(src_root, rel + '.c')
            if not os.path.isfile(path):
                continue
        with open(path, errors='replace') as f:
            yield f.read()


def main():
    intro, src_root = sys.argv[1], sys.argv[2]
    build_dir = os.path.dirname(os.path.dirname(os.path.abspath(intro)))
    with open(intro) as f:
        tests = json.load(f)
    bad = []
    for t in tests:
        suites = {s.split(':')[-1] for s in t['suite']}
        name, cmd = t['name'], t['cmd']
        if suites & NO_NETWORK_SUITES or name in NO_NETWORK_TESTS:
            how = 'no network'
        elif os.path.basename(cmd[0]) == 'netns-run.sh':
            how = 'netns-run.sh'
        else:
            how = next((m for text in texts(cmd, build_dir, src_root) for m in MARKERS
                        if m in text), None)
        print(f'{name}: {how or "NOT ISOLATED"}')
        if how is None:
            bad.append(name)
    for name in bad:
        print(f'FAIL: {name} runs on the host\'s network: make tests/tools/netns-run.sh its exe '
              '(netns_run in meson) with the real command as its arguments')
    print(f'isolation: {len(tests)} tests checked, {len(bad)} on the host\'s network')
    return 1 if bad or not tests else 0


if __name__ == '__main__':
    sys.exit(main())
