# SPDX-License-Identifier: MIT
# Names planted before zcs-recv starts, as root, in a sticky directory every user may write
# (/tmp, a shared lab directory): a symlink at `file:PATH`, at the SigMF data or meta name, and
# a file owned by another user (`nobody`) or with a second name (a hard link to root's file)
# there are refused at start, their targets untouched; root's own file there, and another
# user's file in a directory only root writes, are recorded as asked.  The kernel's own guards
# (fs.protected_symlinks, fs.protected_regular) are off during the test, as on hosts that turn
# them off, and restored after: zcs-recv must not rely on them.
# Usage: test_planted.py ZCS_RECV
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seclib  # noqa: E402
from seclib import recvlib  # noqa: E402

recvlib.isolate()
recv_exe = sys.argv[1]
c = seclib.Check('security_planted')
if os.geteuid() != 0:
    print('this test plants files for root: it needs root')
    sys.exit(1)

NOBODY = 65534
PRECIOUS = b'precious: never overwritten\n'
GUARDS = ['/proc/sys/fs/protected_symlinks', '/proc/sys/fs/protected_regular']
saved = {}
tmp = tempfile.mkdtemp(prefix='zcs-sec-planted-')
procs = []


def put(path, data=PRECIOUS, uid=0):
    with open(path, 'wb') as f:
        f.write(data)
    os.chown(path, uid, uid)
    return path


def intact(path):
    with open(path, 'rb') as f:
        return f.read() == PRECIOUS


def refused(port, spec, says):
    """zcs-recv started with output spec must refuse it at start, saying `says`.  Should it
    start listening instead, a short stream is sent to it, to show what it writes where."""
    r = recvlib.Recv(recv_exe, ['--exit-on-eos', f'127.0.0.1:{port}', '-o', spec])
    procs.append(r.proc)
    started = r.proc.poll() is None and 'listening on' in r.news()
    if started:
        seclib.Stream(port, count=10).start().wait()
    r.stop()
    r.proc.wait(30)
    r.thread.join(5)
    c.true(f'{spec}: refused at start (exit status {r.proc.returncode})',
           not started and r.proc.returncode != 0, r.news())
    c.true(f'{spec}: says why ({says!r})', says in r.news(), r.news())


def recorded(port, spec, data_path):
    """zcs-recv records a short stream into spec; data_path then holds exactly its samples."""
    count = 100
    r = recvlib.Recv(recv_exe, ['--exit-on-eos', f'127.0.0.1:{port}', '-o', spec])
    procs.append(r.proc)
    seclib.Stream(port, count=count).start().wait()
    seclib.finish(c, r, timeout=60)
    with open(data_path, 'rb') as f:
        c.true(f'{spec}: recorded byte-exact over what was there',
               f.read() == seclib.expect_cs16(0, count * seclib.SPD))


try:
    for g in GUARDS:
        with open(g) as f:
            saved[g] = f.read().strip()
        with open(g, 'w') as f:
            f.write('0')
    os.chmod(tmp, 0o755)
    shared = os.path.join(tmp, 'shared')
    os.mkdir(shared)
    os.chmod(shared, 0o1777)           # as /tmp
    victim = put(os.path.join(tmp, 'victim'))

    def plant_link(name):
        path = os.path.join(shared, name)
        os.symlink(victim, path)
        os.lchown(path, NOBODY, NOBODY)
        return path

    # ---- symlinks planted by another user at every name a recording opens or replaces ----
    port = 23030
    cap = plant_link('cap.cs16')
    refused(port, f'file:{cap}', 'is a symbolic link: refused')
    plant_link('rec.sigmf-data')
    refused(port, 'sigmf:' + os.path.join(shared, 'rec'), 'is a symbolic link: refused')
    plant_link('meta.sigmf-meta')
    refused(port, 'sigmf:' + os.path.join(shared, 'meta'), 'is a symbolic link: refused')
    plant_link('iq')
    refused(port, 'fifo:' + os.path.join(shared, 'iq'), 'is a symbolic link: refused')
    c.true('the symlinks\' target is untouched', intact(victim))

    # ---- another user's files: never truncated or written ----
    theirs = put(os.path.join(shared, 'theirs.cs16'), uid=NOBODY)
    refused(port, f'file:{theirs}', 'belongs to uid 65534 (nobody)')
    c.true('file: another user\'s file is untouched', intact(theirs))
    data = put(os.path.join(shared, 'tdata.sigmf-data'), uid=NOBODY)
    refused(port, 'sigmf:' + os.path.join(shared, 'tdata'), 'belongs to uid 65534 (nobody)')
    c.true('sigmf: another user\'s data file is untouched', intact(data))
    meta = put(os.path.join(shared, 'tmeta.sigmf-meta'), uid=NOBODY)
    refused(port, 'sigmf:' + os.path.join(shared, 'tmeta'), 'belongs to uid 65534 (nobody)')
    c.true('sigmf: another user\'s meta file is untouched', intact(meta))
    c.true('sigmf: nothing made beside a refused meta file',
           not os.path.exists(os.path.join(shared, 'tmeta.sigmf-data')))
    # a hard link to root's own file, as a user may make where fs.protected_hardlinks is off
    hard = os.path.join(shared, 'hard.cs16')
    os.link(victim, hard)
    refused(port, f'file:{hard}', 'has 2 names (hard links)')
    c.true('file: a hard link\'s file is untouched', intact(victim))

    # ---- what the user means to overwrite still is ----
    mine = put(os.path.join(shared, 'mine.cs16'))
    recorded(23031, f'file:{mine}', mine)
    put(os.path.join(shared, 'mine.sigmf-data'))
    put(os.path.join(shared, 'mine.sigmf-meta'))
    recorded(23032, 'sigmf:' + os.path.join(shared, 'mine'),
             os.path.join(shared, 'mine.sigmf-data'))
    private = os.path.join(tmp, 'private')
    os.mkdir(private, 0o755)           # only root writes here: what is in it, root chose
    given = put(os.path.join(private, 'given.cs16'), uid=NOBODY)
    recorded(23033, f'file:{given}', given)
finally:
    seclib.kill_all(procs)
    for g, v in saved.items():
        with open(g, 'w') as f:
            f.write(v)
    shutil.rmtree(tmp, ignore_errors=True)
c.done()
