#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Checks that an armhf binary imports only glibc names that glibc 2.25 (PlutoSDR firmware) exports,
# explaining the names and versions that newer glibc headers and libraries merely rename.
"""usage: glibc-check.py [--strict] [--verbose] [--symbols FILE] [--readelf PROG] BINARY...

Reads the undefined dynamic symbols of each BINARY (readelf -W --dyn-syms and -V), keeps those
bound to a glibc library (a GLIBC_x.y version needed from libc.so.6, libm.so.6, libpthread.so.0,
libdl.so.2, librt.so.1, libresolv, libanl, libutil or ld-linux), and sorts each into:

  ok         the name is in the 2.25 list and its version is GLIBC_2.25 or older
  explained  the program's source calls a 2.25 function, but the build's glibc (Debian 12: 2.36)
             named or versioned it differently; linked against the board's own 2.25 sysroot the
             same source imports the old name and version.  The reason is printed.
  FAIL       a name glibc 2.25 does not have, or a rename that the board build's flags exist to
             avoid (fortify __*_chk, _TIME_BITS=64).

--verbose lists every ok import on its own line.  The shared libraries the binary needs are listed,
with a note for those the stock firmware lacks.
--strict (for a binary linked against the board's sysroot): every GLIBC version must be <= 2.25,
nothing is "explained".  Exit status: 0 when nothing failed, 1 otherwise, 2 on usage errors, 77
when the symbol list (outside the tree, ../shared/data) is absent and nothing could be checked.
"""
import os
import re
import subprocess
import sys

GLIBC_LIBS = re.compile(r'^(libc\.so|libm\.so|libpthread\.so|libdl\.so|librt\.so|libresolv\.so|'
                        r'libanl\.so|libutil\.so|ld-linux)')
MAX_VERSION = (2, 25)

# glibc >= 2.33 exports the stat family as functions; 2.25's headers inlined them into calls of
# these versioned wrappers (the first argument is _STAT_VER).  Unavoidable with newer headers.
# Data the dynamic loader exports, which the libc/libm list does not hold.  32-bit ARM keeps the
# stack protector's guard in one global that ld.so exports at GLIBC_2.4 (glibc's arm ld.abilist),
# so glibc 2.25 has it.  Code built with -fstack-protector imports it: Debian's static
# libsodium.a and libjansson.a are (dpkg-buildflags), and zcs-send links both.  A libm.a linked by
# mistake still shows as errno@GLIBC_PRIVATE, which fails below.
LDSO_EXPORTS = {'__stack_chk_guard': (2, 4)}
STAT_RENAMES = {
    'stat': '__xstat', 'fstat': '__fxstat', 'lstat': '__lxstat', 'fstatat': '__fxstatat',
    'stat64': '__xstat64', 'fstat64': '__fxstat64', 'lstat64': '__lxstat64',
    'fstatat64': '__fxstatat64', 'mknod': '__xmknod', 'mknodat': '__xmknodat',
}

# Names whose version moved after 2.25 although the function did not (why, per name).
REVERSIONED = {
    '__libc_start_main': 'glibc 2.34 gave it a new version on purpose, so binaries linked against '
                         '2.34+ refuse to start on an older glibc; it comes from crt1.o, not our code',
    'fcntl': 'glibc 2.28 re-versioned fcntl on 32-bit targets when it added fcntl64 '
             '(F_GETLK/F_SETLK semantics); same call, same ABI for the commands zcs uses',
}
MERGED_IN_234 = ('glibc 2.34 merged libpthread, librt, libdl, libutil and libanl into libc.so.6 and '
                 'gave their functions a GLIBC_2.34 version; in 2.25 the same name lives in the '
                 'old library at its old version')


# Libraries a binary may need that the stock PlutoSDR firmware does not ship (docs/board.md).
NOT_ON_BOARD = {
    'liburing.so.2': 'not in the PlutoSDR firmware: link liburing statically (install only '
                     'liburing.a in the sysroot) or build with -During=disabled',
    'libzstd.so.1': 'may be missing from the firmware (check /usr/lib on the board): build with '
                    '-Dzstd=disabled or link libzstd statically',
}


def parse_version(tag):
    m = re.match(r'^GLIBC_(\d+)\.(\d+)(?:\.(\d+))?$', tag)
    return (int(m.group(1)), int(m.group(2))) if m else None


def load_names(path):
    with open(path, encoding='utf-8') as f:
        return {line.strip() for line in f if line.strip() and not line.startswith('#')}


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def version_files(readelf, binary):
    """Map version index -> (library, version name) from the .gnu.version_r section."""
    out = run([readelf, '-W', '-V', binary])
    index, lib, in_r = {}, None, False
    for line in out.splitlines():
        if "Version needs section" in line:
            in_r = True
            continue
        if in_r and "section '" in line:
            in_r = False
        if not in_r:
            continue
        m = re.search(r'File: (\S+)', line)
        if m:
            lib = m.group(1)
            continue
        m = re.search(r'Name: (\S+)\s+Flags: \S+\s+Version: (\d+)', line)
        if m and lib:
            index[int(m.group(2))] = (lib, m.group(1))
    return index


def undefined_symbols(readelf, binary):
    """Yield (name, version or None, version index or None, bind) for each undefined symbol."""
    out = run([readelf, '-W', '--dyn-syms', binary])
    for line in out.splitlines():
        f = line.split()
        if len(f) < 8 or f[6] != 'UND':
            continue
        sym = f[7]
        idx = None
        if len(f) > 8:
            m = re.match(r'^\((\d+)\)$', f[8])
            idx = int(m.group(1)) if m else None
        name, _, ver = sym.partition('@')
        yield name, ver.lstrip('@') or None, idx, f[4]


def classify(name, ver, names, strict):
    """Return (status, reason)."""
    v = parse_version(ver) if ver else None
    newer = v is not None and v > MAX_VERSION
    if name in names and not newer:
        return 'ok', ''
    if name in LDSO_EXPORTS and v == LDSO_EXPORTS[name]:
        return 'ok', ''
    if strict:
        return 'FAIL', (f'version {ver} is newer than GLIBC_2.25' if name in names
                        else 'not exported by glibc 2.25')
    if name in names:
        if name in REVERSIONED:
            return 'explained', f'{ver}: {REVERSIONED[name]}'
        if v == (2, 32) and name.startswith('pthread_'):
            return 'explained', (f'{ver}: glibc 2.32 moved {name} from libpthread into libc.so.6 '
                                 'under a new version; 2.25 has it in libpthread')
        if v == (2, 34):
            return 'explained', f'{ver}: {MERGED_IN_234}'
        return 'explained', (f'{ver}: the function exists in 2.25 under an older version; a later '
                             'glibc re-versioned it and the board sysroot binds the old one')
    if name in STAT_RENAMES:
        old = STAT_RENAMES[name]
        ok = 'in' if old in names else 'NOT in'
        return ('explained' if old in names else 'FAIL',
                f'glibc 2.33+ headers call {name}() directly; 2.25 headers call {old}() ({ok} the list)')
    if name == 'fcntl64':
        return ('explained' if 'fcntl' in names else 'FAIL',
                'glibc 2.28+ headers redirect fcntl() to fcntl64 under _FILE_OFFSET_BITS=64 '
                '(meson\'s default); 2.25 headers have no fcntl64 and call fcntl()')
    m = re.match(r'^__(\w+?)_chk$', name)
    if m:
        return 'FAIL', (f'fortify variant of {m.group(1)}() newer than 2.25: build with '
                        '-U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=0 (cross/armhf-debian.ini does)')
    m = re.match(r'^__(\w+?)(?:_time)?64$', name)
    if m and m.group(1) in names:
        return 'FAIL', (f'64-bit time_t variant of {m.group(1)}() (2.34): the board build must not '
                        'define _TIME_BITS=64')
    m = re.match(r'^__isoc23_(\w+)$', name)
    if m and (m.group(1) in names or '__isoc99_' + m.group(1) in names):
        return 'explained', (f'glibc 2.38+ headers redirect {m.group(1)}() to its C23 variant under '
                             '_GNU_SOURCE; 2.25 headers call the plain name')
    return 'FAIL', 'not exported by glibc 2.25 (armhf libc/libm): use an older interface'


def check(binary, names, strict, readelf, verbose):
    vers = version_files(readelf, binary)
    rows, fails, tags = [], 0, set()
    for name, ver, idx, bind in undefined_symbols(readelf, binary):
        lib = vers.get(idx, (None, None))[0] if idx is not None else None
        is_glibc = (lib is not None and GLIBC_LIBS.match(lib)) or (ver or '').startswith('GLIBC_')
        if not is_glibc:
            continue
        status, reason = classify(name, ver, names, strict)
        fails += status == 'FAIL'
        if ver and (parse_version(ver) or (0, 0)) > MAX_VERSION:
            tags.add(ver)
        rows.append((status, name, ver or '-', lib or '-', bind, reason))
    print(f'== {binary}')
    order = {'FAIL': 0, 'explained': 1, 'ok': 2}
    for status, name, ver, lib, bind, reason in sorted(rows, key=lambda r: (order[r[0]], r[1])):
        if status == 'ok' and not verbose:
            continue
        line = f'  {status:9} {name + "@" + ver:40} {lib:16} {bind:6}'
        print(line + (f'  {reason}' if reason else ''))
    n_ok = sum(r[0] == 'ok' for r in rows)
    if not verbose and n_ok:
        print('  ok (in 2.25, version <= 2.25): ' +
              ' '.join(sorted(r[1] for r in rows if r[0] == 'ok')))
    n_ex = sum(r[0] == 'explained' for r in rows)
    print(f'  {len(rows)} glibc imports: {n_ok} ok, {n_ex} explained, {fails} failed')
    if tags:
        print('  loads on glibc 2.25 as linked: NO (needs ' + ', '.join(sorted(tags)) + '); '
              'expected when linked against a newer glibc: link against the board sysroot '
              '(docs/board.md) for a binary that runs there')
    else:
        print('  loads on glibc 2.25 as linked: yes (no GLIBC version newer than 2.25)')
    needed = re.findall(r'\(NEEDED\)\s+Shared library: \[([^\]]+)\]', run([readelf, '-W', '-d', binary]))
    print('  shared libraries needed: ' + ' '.join(needed))
    for lib in needed:
        if lib in NOT_ON_BOARD:
            print(f'  note: {lib}: {NOT_ON_BOARD[lib]}')
    return fails


def main(argv):
    strict, verbose, readelf, binaries = False, False, os.environ.get('READELF', 'readelf'), []
    # The repository's top: git's answer, or this script's parent directory outside a work tree.
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        top = run(['git', '-C', here, 'rev-parse', '--show-toplevel']).strip()
    except (OSError, subprocess.CalledProcessError):
        top = os.path.dirname(here)
    symbols = os.path.join(top, '..', 'shared', 'data', 'glibc-2.25-armhf-symbols.txt')
    it = iter(argv)
    for a in it:
        if a == '--strict':
            strict = True
        elif a in ('-v', '--verbose'):
            verbose = True
        elif a == '--symbols':
            symbols = next(it, None)
        elif a == '--readelf':
            readelf = next(it, None)
        elif a in ('-h', '--help'):
            print(__doc__)
            return 0
        else:
            binaries.append(a)
    if not binaries or symbols is None or readelf is None:
        print(__doc__, file=sys.stderr)
        return 2
    if not os.path.isfile(symbols):
        # The list comes from outside the tree (../shared/data): a clone without it builds and
        # tests all the same, and the check it could not make is a skip (77) for the caller
        # to count (ZCS_REQUIRE_SHARED=1: fail)
        print(f'glibc-check: SKIP: symbol list {symbols} not found: the glibc 2.25 import check '
              'is skipped', file=sys.stderr)
        return 2 if os.environ.get('ZCS_REQUIRE_SHARED') else 77
    names = load_names(symbols)
    print(f'glibc-check: {len(names)} names from {os.path.normpath(symbols)}'
          f'{" (strict)" if strict else ""}')
    fails = 0
    for b in binaries:
        if not os.path.isfile(b):
            print(f'glibc-check: {b}: no such file', file=sys.stderr)
            return 2
        fails += check(b, names, strict, readelf, verbose)
    print(f'glibc-check: {"FAILED" if fails else "passed"} ({fails} failing imports)')
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
