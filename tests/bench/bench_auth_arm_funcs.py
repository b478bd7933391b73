#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where one operation's instructions go, by function: bench_auth_arm.sh's two exec logs (the
same operation at two repeat counts, one instruction a line) reduced to executed PCs, each PC
mapped to the function of the armhf binary that holds it, the two runs differenced and divided by
the extra repeats, as the script's totals are.  Functions come from the binary's symbol table
(arm-linux-gnueabihf-readelf -s: nm's symbols, and the object each local one came from, which
tells OpenSSL's assembler poly1305_init from its provider's of the same name).  A PC outside the
binary (a dynamically linked glibc: its symbols are stripped) counts as "shared libraries".
Where a position-independent binary was loaded is read from qemu's own name for the PCs of
main (the lowest of them is main's first instruction).

usage: bench_auth_arm_funcs.py EXE READELF N PCS1 PCS2
  N: the extra repeats of the second run; PCSk: lines "COUNT PC [NAME]" of run k (PC in hex,
  NAME qemu's symbol for it, if any)
Prints two markdown tables: by group, and every function of at least 1 instruction an operation.
"""
import bisect
import re
import subprocess
import sys

SHARED = '(shared libraries: glibc, ld.so)'
NOSYM = '(no symbol: PLT stubs)'

# (group, test on (name, object)), first match wins: the groups issue 20 asks the tag split into.
# A local function's object names it; a global's is not known (readelf lists globals after every
# object's locals), so its name does.
def _sodium(o):
    return o.startswith('libsodium_la-')


GROUPS = [
    ('HChaCha20 subkey (once a run and type)', lambda n, o: 'hchacha' in o or 'hchacha' in n),
    ('ChaCha20 block, libsodium (portable C)',
     lambda n, o: _sodium(o) and 'chacha' in o or n.startswith('crypto_stream_chacha20')),
    ('ChaCha20, OpenSSL (ARMv7 assembler; NEON from 192 bytes)',
     lambda n, o: n.startswith('ChaCha20_')),
    ('Poly1305, libsodium (portable C)',
     lambda n, o: _sodium(o) and 'poly1305' in o or n.startswith('crypto_onetimeauth')),
    ('Poly1305 key setup, OpenSSL (assembler, Poly1305_Init)',
     lambda n, o: n in ('poly1305_init', 'Poly1305_Init', 'poly1305_init_neon') and 'prov' not in o),
    ('Poly1305 blocks, OpenSSL (NEON assembler)', lambda n, o: n.startswith('poly1305_blocks')),
    ('Poly1305 final, OpenSSL (assembler emit)', lambda n, o: n.startswith('poly1305_emit')),
    ('Poly1305 buffering, OpenSSL (Poly1305_Update, Poly1305_Final)',
     lambda n, o: n.startswith('Poly1305_')),
    ('OpenSSL EVP and provider layers',
     lambda n, o: o.startswith(('libcrypto-lib-evp', 'libcrypto-lib-mac', 'libcrypto-lib-param',
                                'libdefault-lib-', 'libcommon-lib-', 'libcrypto-lib-provider',
                                'libcrypto-lib-prov_running', 'libcrypto-lib-core_'))
     or n.startswith(('EVP_', 'OSSL_PARAM', 'ossl_', 'evp_'))),
    ('OpenSSL other (OPENSSL_cleanse, CRYPTO_memcmp, ...)',
     lambda n, o: o.startswith('libcrypto-lib-') or n.startswith(('OPENSSL_', 'CRYPTO_'))),
    ('libsodium other (sodium_memzero, crypto_verify_16, ...)',
     lambda n, o: _sodium(o) or n.startswith(('sodium_', 'crypto_'))),
    ('zcs (nonce, trailer, tagger, the benchmark loop)',
     lambda n, o: n.startswith('zcs_') or n == 'main' or o.endswith('.c')),
    ('glibc, PLT', lambda n, o: True),
]


def group_of(name, obj):
    for g, test in GROUPS:
        if test(name, obj):
            return g
    return GROUPS[-1][0]


def symbols(exe, readelf):
    """[(start, end, name, object)] of the functions in exe, by start."""
    out = subprocess.run([readelf, '-sW', exe], check=True, capture_output=True, text=True).stdout
    obj = ''
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) < 8 or not f[0].endswith(':') or not f[0][:-1].isdigit():
            continue
        value, size, typ, bind, ndx, name = int(f[1], 16), int(f[2], 0), f[3], f[4], f[6], f[7]
        if typ == 'FILE':
            obj = name
            continue
        if typ != 'FUNC' or ndx in ('UND', 'ABS'):
            continue
        start = value & ~1  # the Thumb bit
        # A global's entry follows every file's locals: its object is not known, keep a
        # local's (which names it) when both name the same address.
        here = (start, start + size, name, obj if bind == 'LOCAL' else '')
        if start not in syms or (bind == 'LOCAL' and not syms[start][3]):
            syms[start] = here
    return [syms[k] for k in sorted(syms)]


def load_pcs(path):
    """{pc: count}, and the lowest PC qemu named main (None if it named none)."""
    pcs = {}
    main_pc = None
    with open(path) as f:
        for line in f:
            c, pc, *name = line.split()
            pc = int(pc, 16)
            pcs[pc] = pcs.get(pc, 0) + int(c)
            if name == ['main'] and (main_pc is None or pc < main_pc):
                main_pc = pc
    return pcs, main_pc


def main():
    exe, readelf, n, p1, p2 = sys.argv[1:6]
    n = int(n)
    syms = symbols(exe, readelf)
    pcs1, main1 = load_pcs(p1)
    pcs2, _ = load_pcs(p2)
    main_at = [s[0] for s in syms if s[2] == 'main']
    bias = main1 - main_at[0] if main1 is not None and main_at else 0
    starts = [s[0] for s in syms]
    hi = max(s[1] for s in syms)
    per = {}

    def charge(pcs, sign):
        for pc, c in pcs.items():
            a = pc - bias
            i = bisect.bisect_right(starts, a) - 1
            if a < 0 or a >= hi + 4096 or i < 0:
                key = (SHARED, '')
            elif a < syms[i][1]:
                key = (syms[i][2], syms[i][3])
            else:
                key = (NOSYM, '')
            per[key] = per.get(key, 0) + sign * c

    charge(pcs1, -1)
    charge(pcs2, 1)
    groups = {}
    for (name, obj), c in per.items():
        g = group_of(name, obj) if name not in (SHARED, NOSYM) else 'glibc, PLT'
        groups[g] = groups.get(g, 0) + c / n
    total = sum(per.values()) / n
    print('| where (by function groups) | instructions an operation | share |')
    print('|---|---:|---:|')
    order = [g for g, _ in GROUPS]
    for g in sorted(groups, key=lambda g: order.index(g)):
        if abs(groups[g]) >= 0.5:
            print(f'| {g} | {groups[g]:.0f} | {100 * groups[g] / total:.1f}% |')
    print(f'| total | {total:.0f} | 100% |')
    print()
    print('| function | object | instructions an operation |')
    print('|---|---|---:|')
    for (name, obj), c in sorted(per.items(), key=lambda kv: -kv[1]):
        if abs(c / n) >= 1:
            print(f'| {name} | {re.sub(r"^lib(crypto|default|common|sodium)(-lib|_la)-", "", obj)} '
                  f'| {c / n:.0f} |')


if __name__ == '__main__':
    main()
