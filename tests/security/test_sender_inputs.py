# SPDX-License-Identifier: MIT
# What zcs-send reads (issue 10, parts 3-5): started with fd 0 closed, `-s -` reads /dev/null,
# never its own UDP socket; a .sigmf-meta that is a FIFO is refused at once (no hang); the
# SigMF reader takes core:datatype and core:sample_rate from "global" only, whatever comes
# first in the file, refuses duplicate keys and a meta file above its size limit.
# Usage: test_sender_inputs.py ZCS_RECV ZCS_SEND
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seclib  # noqa: E402
from seclib import recvlib  # noqa: E402

recvlib.isolate()
recv_exe, send_exe = sys.argv[1], sys.argv[2]
c = seclib.Check('security_sender_inputs')
tmp = tempfile.mkdtemp(prefix='zcs-sec-send-')
procs = []


def sigmf(name, meta_text, pairs=25000):
    """NAME.sigmf-data of ci16_le pairs (multiples of 16: exact through the 12-bit wire) and
    NAME.sigmf-meta holding meta_text; returns (data path, data bytes)."""
    base = os.path.join(tmp, name)
    data = b''.join(struct.pack('<hh', ((k * 37) % 4096 - 2048) * 16, (2047 - (k * 11) % 4096) * 16)
                    for k in range(pairs))
    with open(base + '.sigmf-data', 'wb') as f:
        f.write(data)
    if meta_text is not None:
        with open(base + '.sigmf-meta', 'w') as f:
            f.write(meta_text)
    return base + '.sigmf-data', data


try:
    # ---- fd 0 closed: /dev/null, not the UDP socket ----
    port = 23041
    r = recvlib.Recv(recv_exe, ['--exit-on-eos', '--eos-timeout', '2', f'127.0.0.1:{port}'])
    procs.append(r.proc)
    p = seclib.run(['/bin/bash', '-c', '"$0" -s - -n 100000 -r 1M --json "$1" <&-', send_exe,
                    f'127.0.0.1:{port}'], timeout=60)
    c.eq('zcs-send -s - <&- exits 0', p.returncode, 0)
    out = seclib.json_lines((p.stdout + p.stderr).decode(errors='replace').splitlines())
    summ = [o for o in out if o.get('type') == 'summary']
    c.true('it read 0 samples (end of /dev/null)', len(summ) == 1 and summ[0]['samples'] == 0,
           summ)
    r.stop()
    rs = seclib.finish(c, r, timeout=30)
    c.eq('the receiver got no samples', rs['samples'], 0)

    # ---- a .sigmf-meta that is a FIFO: refused, no hang ----
    path, _ = sigmf('fifo', None)
    os.mkfifo(path[:-len('.sigmf-data')] + '.sigmf-meta', 0o600)
    try:
        p = seclib.run([send_exe, '-s', 'file:' + path, '-n', '1000', '127.0.0.1:23042'],
                       timeout=30)
        c.eq('a FIFO meta path: exit status 2', p.returncode, 2)
        c.true('a FIFO meta path: says it is not a regular file',
               b'not a regular file' in p.stderr, p.stderr)
    except subprocess.TimeoutExpired:
        c.true('a FIFO meta path does not hang zcs-send', False)

    # ---- captures before global: the fields come from global ----
    port = 23043
    meta = ('{"captures": [{"core:sample_start": 0, "core:datatype": "cu8", '
            '"core:sample_rate": 1000}],\n "annotations": [],\n "global": {"core:datatype": '
            '"ci16_le", "core:sample_rate": 250000, "core:version": "1.0.0"}}\n')
    path, data = sigmf('capfirst', meta)
    out = os.path.join(tmp, 'capfirst.out')
    r = recvlib.Recv(recv_exe, ['--exit-on-eos', f'127.0.0.1:{port}', '-o', f'file:{out}'])
    procs.append(r.proc)
    p = seclib.run([send_exe, '-s', 'file:' + path, '-f', 'i16', '-q', f'127.0.0.1:{port}'],
                   timeout=60)
    c.eq('captures before global: zcs-send exits 0', p.returncode, 0)
    rs = seclib.finish(c, r, timeout=60)
    c.eq('the rate is global\'s', rs.get('sample_rate'), 250000)
    c.eq('every sample arrived', rs['samples'], len(data) // 4)
    with open(out, 'rb') as f:
        c.true('the type is global\'s: the output is the ci16 file, byte-exact', f.read() == data)

    # ---- the fields only outside global: not taken ----
    meta = ('{"captures": [{"core:sample_start": 0, "core:datatype": "ci16_le", '
            '"core:sample_rate": 250000}], "global": {"core:version": "1.0.0"}}')
    path, _ = sigmf('notglobal', meta)
    p = seclib.run([send_exe, '-s', 'file:' + path, '-n', '1000', '127.0.0.1:23044'], timeout=30)
    c.eq('core:datatype only in captures: refused (exit 2)', p.returncode, 2)
    c.true('... saying core:datatype is missing', b'core:datatype missing' in p.stderr, p.stderr)

    # ---- a duplicate "global": refused ----
    meta = ('{"global": {"core:datatype": "ci16_le", "core:version": "1.0.0"}, '
            '"global": {"core:datatype": "cu8", "core:version": "1.0.0"}}')
    path, _ = sigmf('dup', meta)
    p = seclib.run([send_exe, '-s', 'file:' + path, '-n', '1000', '127.0.0.1:23045'], timeout=30)
    c.eq('a duplicate key: refused (exit 2)', p.returncode, 2)
    c.true('... as not JSON', b'not JSON' in p.stderr, p.stderr)

    # ---- a meta file above the limit: refused before parsing ----
    path, _ = sigmf('huge', json.dumps({'global': {'core:datatype': 'ci16_le'}}))
    with open(path[:-len('.sigmf-data')] + '.sigmf-meta', 'r+b') as f:
        f.truncate(17 << 20)    # sparse: costs no disk
    p = seclib.run([send_exe, '-s', 'file:' + path, '-n', '1000', '127.0.0.1:23046'], timeout=30)
    c.eq('a 17 MB meta file: refused (exit 2)', p.returncode, 2)
    c.true('... naming the limit', b'larger than 16 MB' in p.stderr, p.stderr)
finally:
    seclib.kill_all(procs)
    shutil.rmtree(tmp, ignore_errors=True)
c.done()
