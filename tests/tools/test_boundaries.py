# SPDX-License-Identifier: MIT
# A library with an include/ folder (receiver/core, receiver/outputs, sender/sendpath,
# sender/pipeline) shows its users those headers only: every other header of its folder is
# private, and no file outside the folder includes one (read from the quoted includes, by file
# name: names are unique across the tree).
# The unit tests and fuzzers of a library's insides reach them on purpose, each named below with
# the folder whose insides it tests (the build gives them that folder: tests/unit/meson.build).
# And a program's own headers (those beside its main file: receiver/recv_opts.h, ...) are the
# program's: none of its libraries (its subfolders) includes one, so each library, the SoapySDR
# module's reader (receiver/embed/) among them, stands on the libraries below it alone.
# The build enforces the same through include paths; this also catches a relative path around
# them ("../core/reorder.h").
# Usage: test_boundaries.py SOURCE-ROOT
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
TREES = ['common', 'formats', 'sender', 'receiver', 'soapy', 'ctl', 'tests']
PROGRAMS = ['sender', 'receiver']
SOURCES = ('.c', '.h', '.cc', '.cpp')

# Tests of a library's insides: file -> the library folder they may reach into.
INSIDES = {
    'tests/unit/test_reorder.c': 'receiver/core',
    'tests/unit/test_gapfill.c': 'receiver/core',
    'tests/unit/test_rx_follow.c': 'receiver/core',
    'tests/unit/test_rx_hold.c': 'receiver/core',
    'tests/unit/test_rx_forged.c': 'receiver/core',
    'tests/unit/test_bounds.c': 'receiver/core',
    'tests/fuzz/fuzz_reorder.c': 'receiver/core',
    'tests/unit/test_outputs.c': 'receiver/outputs',
    'tests/unit/test_out_queue.c': 'receiver/outputs',
    'tests/send/test_sendpath_fail.c': 'sender/sendpath',
    'tests/send/test_pipeline_tune_clock.c': 'sender/pipeline',
    'tests/unit/test_spread.c': 'sender/pipeline',
}


def sources(root):
    for tree in TREES:
        for d, dirs, names in os.walk(os.path.join(root, tree)):
            dirs[:] = sorted(x for x in dirs if not x.startswith(('.', 'build')))
            for n in sorted(names):
                if n.endswith(SOURCES):
                    yield os.path.relpath(os.path.join(d, n), root)


def main():
    root = sys.argv[1]
    files = list(sources(root))
    # the libraries: folders with an include/ of their own
    libs = sorted({os.path.dirname(os.path.dirname(f)) for f in files
                   if os.path.basename(os.path.dirname(f)) == 'include'})
    private = {}  # header name -> its library
    for f in files:
        for lib in libs:
            if f.startswith(lib + '/') and not f.startswith(lib + '/include/') and \
                    f.endswith('.h'):
                private[os.path.basename(f)] = lib
    bad = []
    for f in files:
        with open(os.path.join(root, f), errors='replace') as fh:
            includes = INCLUDE.findall(fh.read())
        for inc in includes:
            lib = private.get(os.path.basename(inc))
            if lib is None or f.startswith(lib + '/') or INSIDES.get(f) == lib:
                continue
            bad.append(f'{f} includes "{inc}", private to {lib} (its users see '
                       f'{lib}/include/ only)')
    # a program's headers, reached from its libraries
    for prog in PROGRAMS:
        own = {os.path.basename(f) for f in files
               if os.path.dirname(f) == prog and f.endswith('.h')}
        for f in files:
            if not f.startswith(prog + '/') or os.path.dirname(f) == prog:
                continue
            with open(os.path.join(root, f), errors='replace') as fh:
                for inc in INCLUDE.findall(fh.read()):
                    if os.path.basename(inc) in own:
                        bad.append(f'{f} includes "{inc}", the program\'s own ({prog}/): a '
                                   f'library stands on the libraries below it alone')
    for f, lib in INSIDES.items():
        if f not in files:
            bad.append(f'{f}, named as a test of {lib}\'s insides, does not exist')
    print(f'{len(libs)} libraries with a public include/: {", ".join(libs)}; '
          f'{len(private)} private headers, {len(files)} files read')
    for b in bad:
        print('FAIL: ' + b)
    return 1 if bad else 0


sys.exit(main())
