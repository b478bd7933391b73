# SPDX-License-Identifier: MIT
# Files as root (issue 10, part 4) and a full disk (part 5).  zcs-recv runs as root on lab PCs,
# often writing into a shared directory: whatever another user swaps in there after start (a
# symlink, another FIFO) is never opened, truncated or written; a planted temporary name of the
# SigMF writer, or a symlink at its meta path after start, is never followed; a disk that fills
# is an error (message, exit status 1).
# The disk is a small tmpfs in a private mount namespace (unshare -m), the test's own.
# Usage: test_files.py ZCS_RECV SIGMF_SCHEMA
import glob
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seclib  # noqa: E402
from seclib import recvlib  # noqa: E402

recvlib.isolate()
if os.environ.get('ZCS_TEST_MNTNS') != '1':
    # a mount namespace of our own for the small tmpfs: nothing outside ever sees it
    env = dict(os.environ, ZCS_TEST_MNTNS='1')
    unshare = shutil.which('unshare')
    for mode in (['--mount', '--propagation', 'private'],
                 ['--map-root-user', '--mount', '--propagation', 'private']):
        if subprocess.run([unshare] + mode + ['true'], capture_output=True).returncode == 0:
            os.execve(unshare, [unshare] + mode + [sys.executable] + sys.argv, env)
    print('cannot make a mount namespace (unshare -m): this test needs root')
    sys.exit(1)

recv_exe, schema = sys.argv[1], sys.argv[2]
c = seclib.Check('security_files')
tmp = tempfile.mkdtemp(prefix='zcs-sec-files-')
procs = []
PRECIOUS = b'precious: never overwritten\n'


def victim(name):
    path = os.path.join(tmp, name)
    with open(path, 'wb') as f:
        f.write(PRECIOUS)
    return path


def intact(path):
    with open(path, 'rb') as f:
        return f.read() == PRECIOUS


def read_some(path, n, timeout=30):
    """Opens the FIFO for reading and reads n bytes (whole cs16 pairs)."""
    fd = os.open(path, os.O_RDONLY)
    got = b''
    try:
        while len(got) < n:
            chunk = os.read(fd, n - len(got))
            if not chunk:
                break
            got += chunk
    finally:
        os.close(fd)
    return got


try:
    # ---- fifo: swapped for a symlink, then for another FIFO, after start ----
    port = 23011
    fifo = os.path.join(tmp, 'iq')
    v1 = victim('victim-fifo')
    r = recvlib.Recv(recv_exe, [f'127.0.0.1:{port}', '-o', f'fifo:{fifo}'])
    procs.append(r.proc)
    s = seclib.Stream(port, per_sec=1000).start()
    data = read_some(fifo, 64 * 1024)
    ok, _ = seclib.cs16_contiguous(data)
    c.true('the FIFO made at start gets the live stream, byte-exact', ok and len(data) == 65536)
    c.true('its reader is seen leaving', seclib.wait_for(lambda: 'left' in r.news()), r.news())
    os.unlink(fifo)
    os.symlink(v1, fifo)
    c.true('a symlink planted at the FIFO path is refused',
           seclib.wait_for(lambda: 'is now a symbolic link' in r.news()), r.news())
    c.true('the symlink target is never written', intact(v1))
    os.unlink(fifo)
    os.mkfifo(fifo, 0o600)
    rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)   # a reader on the planted FIFO
    c.true('another FIFO at the path is refused (fstat: not the one made at start)',
           seclib.wait_for(lambda: 'is now another file' in r.news()), r.news())
    try:
        planted = os.read(rfd, 4096)
    except BlockingIOError:
        planted = b''
    os.close(rfd)
    c.eq('the planted FIFO got nothing', planted, b'')
    s.stop()
    summ = seclib.finish(c, r, timeout=30, stop_after=0)
    c.eq('the fifo output had one consumer only', summ['outputs'][0]['connects'], 1)
    c.true('the symlink target is still intact', intact(v1))

    # ---- sigmf: a planted temporary name, and a symlink at the meta path after start ----
    # (one planted before start is refused then: test_planted.py)
    port = 23012
    rec = os.path.join(tmp, 'rec')
    v2, v3 = victim('victim-tmp'), victim('victim-meta')
    os.symlink(v2, rec + '.sigmf-meta.tmp')
    r = recvlib.Recv(recv_exe, ['--exit-on-eos', f'127.0.0.1:{port}', '-o', f'sigmf:{rec}'])
    procs.append(r.proc)
    # planted over the meta path after start: zcs-recv may have written its first meta file
    # already (its writer flushes one soon after start, data or not), so the link replaces it
    # as an attacker's would, by rename
    os.symlink(v3, rec + '.planted')
    os.replace(rec + '.planted', rec + '.sigmf-meta')
    count = 300
    seclib.Stream(port, count=count).start().wait()
    summ = seclib.finish(c, r, timeout=60)
    c.eq('sigmf run exits 0', r.rc, 0)
    c.true('the planted PATH.sigmf-meta.tmp target is intact', intact(v2))
    c.true('the planted .tmp symlink is left alone',
           os.path.islink(rec + '.sigmf-meta.tmp') and os.readlink(rec + '.sigmf-meta.tmp') == v2)
    c.true('the symlink at the meta path is replaced, not followed', intact(v3) and
           not os.path.islink(rec + '.sigmf-meta'))
    seclib.validate_sigmf(c, rec + '.sigmf-meta', schema)
    c.eq('no temporary file is left', sorted(glob.glob(rec + '.sigmf-meta.*')),
         [rec + '.sigmf-meta.tmp'])
    with open(rec + '.sigmf-data', 'rb') as f:
        c.true('sigmf data byte-exact', f.read() == seclib.expect_cs16(0, count * seclib.SPD))

    # ---- file: the path swapped for a symlink after start: never truncated or written ----
    port = 23013
    out = os.path.join(tmp, 'out.cs16')
    v4 = victim('victim-file')
    r = recvlib.Recv(recv_exe, ['--exit-on-eos', f'127.0.0.1:{port}', '-o', f'file:{out}'])
    procs.append(r.proc)
    os.link(out, out + '.kept')     # the file opened at start
    os.unlink(out)
    os.symlink(v4, out)
    seclib.Stream(port, count=count).start().wait()
    summ = seclib.finish(c, r, timeout=60)
    c.true('the symlink swapped in after start is not followed', intact(v4))
    with open(out + '.kept', 'rb') as f:
        c.true('the file opened at start got every byte',
               f.read() == seclib.expect_cs16(0, count * seclib.SPD))

    # ---- a full disk: file: and sigmf: fail with a message and exit status 1 ----
    small = os.path.join(tmp, 'small')
    os.mkdir(small)
    subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', small], check=True)
    for n, spec in enumerate(['file:' + os.path.join(small, 'full.cs16'),
                              'sigmf:' + os.path.join(small, 'full')]):
        port = 23014 + n
        r = recvlib.Recv(recv_exe, ['--exit-on-eos', f'127.0.0.1:{port}', '-o', spec])
        procs.append(r.proc)
        s = seclib.Stream(port, count=2000).start()    # 800 KB of cs16 into 256 KB
        summ = r.finish(timeout=60)
        s.stop()
        c.eq(f'{spec} on a full disk: exit status', r.rc, 1)
        c.eq(f'{spec} on a full disk: ended_by', summ.get('ended_by'), 'error')
        c.true(f'{spec} on a full disk: says so',
               f"-o '{spec}': cannot write: No space left on device" in r.news(), r.news())
        for f in glob.glob(os.path.join(small, '*')):
            os.unlink(f)
    subprocess.run(['umount', small], check=True)
finally:
    seclib.kill_all(procs)
    subprocess.run(['umount', os.path.join(tmp, 'small')], capture_output=True)
    shutil.rmtree(tmp, ignore_errors=True)
c.done()
