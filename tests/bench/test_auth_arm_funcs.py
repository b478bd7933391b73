#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench_auth_arm_funcs.py, the per-function table of bench_auth_arm.sh, on made-up input: a
symbol table as readelf prints it (a fake readelf), two runs' PC counts.  Checks the load bias
read from main, the Thumb bit, locals named by their object (OpenSSL's assembler poly1305_init
against its provider's), PCs outside the binary and in a gap, the difference of the two runs
divided by the extra repeats, and the groups.  No ARM file, no qemu."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_auth_arm_funcs as funcs  # noqa: E402

READELF_OUT = """\

Symbol table '.symtab' contains 12 entries:
   Num:    Value  Size Type    Bind   Vis      Ndx Name
     1: 00000000     0 FILE    LOCAL  DEFAULT  ABS libdefault-lib-poly1305_prov.o
     2: 00001001    32 FUNC    LOCAL  DEFAULT   13 poly1305_init
     3: 00000000     0 FILE    LOCAL  DEFAULT  ABS libsodium_la-chacha20_ref.o
     4: 00002001   256 FUNC    LOCAL  DEFAULT   13 chacha20_encrypt_bytes.part.0
     5: 00000000     0 FILE    LOCAL  DEFAULT  ABS auth.c
     6: 00003001    16 FUNC    LOCAL  DEFAULT   13 same_prefix
     7: 00004000    64 FUNC    GLOBAL DEFAULT   13 poly1305_init
     8: 00004100   128 FUNC    GLOBAL DEFAULT   13 poly1305_blocks_neon
     9: 00005001    64 FUNC    GLOBAL DEFAULT   13 main
    10: 00005101    32 FUNC    GLOBAL DEFAULT   13 EVP_MAC_init
    11: 00000000     0 FUNC    GLOBAL DEFAULT  UND memset@GLIBC_2.4
"""

BIAS = 0x40000000


def pcs(counts):
    """The lines bench_auth_arm.sh writes: COUNT PC [NAME], PCs at the load bias."""
    lines = []
    for addr, (c, name) in counts.items():
        lines.append(f'{c} {BIAS + addr:08x} {name}'.rstrip())
    return '\n'.join(lines) + '\n'


class FuncsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        with open(os.path.join(d, 'symtab'), 'w') as f:
            f.write(READELF_OUT)
        self.readelf = os.path.join(d, 'readelf')
        with open(self.readelf, 'w') as f:
            f.write(f'#!/bin/sh\ncat {d}/symtab\n')
        os.chmod(self.readelf, 0o755)

    def tearDown(self):
        self.dir.cleanup()

    def run_funcs(self, run1, run2, n):
        d = self.dir.name
        for name, counts in (('p1', run1), ('p2', run2)):
            with open(os.path.join(d, name), 'w') as f:
                f.write(pcs(counts))
        out = io.StringIO()
        argv = sys.argv
        sys.argv = ['bench_auth_arm_funcs.py', 'exe', self.readelf, str(n),
                    os.path.join(d, 'p1'), os.path.join(d, 'p2')]
        try:
            with contextlib.redirect_stdout(out):
                funcs.main()
        finally:
            sys.argv = argv
        rows = {}
        for line in out.getvalue().splitlines():
            cells = [c.strip() for c in line.strip('|').split('|')]
            if len(cells) >= 2 and cells[-1].lstrip('-').isdigit():
                rows[(cells[0], cells[1] if len(cells) == 3 else '')] = int(cells[-1])
            elif len(cells) == 3 and cells[2].endswith('%'):
                rows[(cells[0], '%')] = int(cells[1])
        return rows

    def test_functions_groups_and_difference(self):
        # main's entry (its lowest PC, Thumb bit cleared) gives the bias; set-up runs the same
        # in both runs and cancels; 30 extra repeats divide the difference.
        common = {0x5000: (1, 'main'), 0x5002: (9, 'main')}
        run1 = dict(common)
        run2 = dict(common)
        per = {
            0x1000: (10, 'poly1305_init'),           # the provider's (a local of its object)
            0x4004: (20, 'poly1305_init'),           # the assembler's (a global)
            0x4100: (300, 'poly1305_blocks_neon'),
            0x2010: (200, 'chacha20_encrypt_bytes.part.0'),
            0x3000: (5, 'same_prefix'),
            0x5100: (6, 'EVP_MAC_init'),
            0x4080: (2, ''),                         # between two functions: no symbol
            0x7f000000: (40, ''),                    # outside the binary: shared libraries
        }
        for addr, (c, name) in per.items():          # c an operation: 10 runs, then 40
            run1[addr] = (c * 10, name)
            run2[addr] = (c * 40, name)
        rows = self.run_funcs(run1, run2, 30)
        self.assertEqual(rows[('poly1305_init', 'poly1305_prov.o')], 10)
        self.assertEqual(rows[('poly1305_init', '')], 20)
        self.assertEqual(rows[('poly1305_blocks_neon', '')], 300)
        self.assertEqual(rows[('chacha20_encrypt_bytes.part.0', 'chacha20_ref.o')], 200)
        self.assertEqual(rows[('same_prefix', 'auth.c')], 5)
        self.assertEqual(rows[(funcs.SHARED, '')], 40)
        self.assertEqual(rows[(funcs.NOSYM, '')], 2)
        self.assertNotIn(('main', ''), rows)         # the set-up cancelled
        self.assertEqual(rows[('Poly1305 key setup, OpenSSL (assembler, Poly1305_Init)', '%')], 20)
        self.assertEqual(rows[('Poly1305 blocks, OpenSSL (NEON assembler)', '%')], 300)
        self.assertEqual(rows[('ChaCha20 block, libsodium (portable C)', '%')], 200)
        self.assertEqual(rows[('OpenSSL EVP and provider layers', '%')], 16)
        self.assertEqual(rows[('zcs (nonce, trailer, tagger, the benchmark loop)', '%')], 5)
        self.assertEqual(rows[('glibc, PLT', '%')], 42)
        self.assertEqual(rows[('total', '%')], 583)

    def test_static_binary_has_no_bias(self):
        # main named at its own address: nothing to subtract
        global BIAS
        saved, BIAS = BIAS, 0
        try:
            rows = self.run_funcs({0x5000: (1, 'main'), 0x4100: (3, '')},
                                  {0x5000: (1, 'main'), 0x4100: (33, '')}, 30)
        finally:
            BIAS = saved
        self.assertEqual(rows[('poly1305_blocks_neon', '')], 1)


if __name__ == '__main__':
    unittest.main()
