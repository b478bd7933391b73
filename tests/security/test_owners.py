# SPDX-License-Identifier: MIT
# Keys and run state owned by another user: whoever owns a file may rewrite it, whatever its
# mode, so a key of `nobody`'s (mode 0600) must not key root's stream, nor be believed as the
# default key, and a run counter or run state `nobody` owns must not steer root's runs.  As ssh
# does: the owner must be the user running the program, or root.  Each refusal names the file
# and its owner, and touches nothing.  Runs as root (only root can give a file away).
# Usage: test_owners.py ZCS_SEND ZCS_RECV
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seclib  # noqa: E402
from seclib import recvlib  # noqa: E402

recvlib.isolate()
SEND, RECV = sys.argv[1], sys.argv[2]
c = seclib.Check('security_owners')
if os.geteuid() != 0:
    print('this test gives files to another user: it needs root')
    sys.exit(1)
NOBODY = 65534
DEST = '127.0.0.1:23040'
OWNER = 'is owned by uid 65534 (nobody), not by this user (uid 0) or root: refused'
tmp = tempfile.mkdtemp(prefix='zcs-sec-owners-')
os.chmod(tmp, 0o755)


def refused(what, args, says, env=None):
    """The program must stop before it sends or listens: exit status 2 and says (the file's
    name and its owner) on stderr.  A zcs-recv that listens instead is stopped and fails."""
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    err = ''
    for raw in p.stderr:
        err += raw.decode(errors='replace')
        if 'listening on' in err:
            p.kill()
            break
    p.wait(30)
    c.eq(f'{what}: exit status', p.returncode, 2)
    c.true(f'{what}: names the file and its owner', all(s in err for s in says), err)


def gen_key(path, uid=0):
    subprocess.run([SEND, '--gen-key', path], check=True, capture_output=True)
    os.chown(path, uid, uid)
    return path


try:
    # ---- a key another user owns, named or found as the default ----
    theirs = gen_key(os.path.join(tmp, 'theirs.key'), NOBODY)
    refused('zcs-send --key (nobody\'s)', [SEND, '--key', theirs, '-s', 'tone', '-n', '1000',
                                          DEST], [theirs, OWNER])
    refused('zcs-recv --key (nobody\'s)', [RECV, '--key', theirs, DEST], [theirs, OWNER])
    home = os.path.join(tmp, 'home')
    os.makedirs(os.path.join(home, '.config', 'zcs'))
    default = gen_key(os.path.join(home, '.config', 'zcs', 'key'), NOBODY)
    env = {k: v for k, v in os.environ.items() if k not in ('ZCS_KEY', 'XDG_CONFIG_HOME')}
    env['HOME'] = home
    refused('zcs-recv, nobody\'s key as its default key', [RECV, DEST], [default, OWNER], env)

    # ---- run state another user owns, beside root's own key ----
    mine = gen_key(os.path.join(tmp, 'mine.key'))
    run = mine + '.run'
    with open(run, 'w') as f:
        f.write('5\n')
    os.chmod(run, 0o600)
    os.chown(run, NOBODY, NOBODY)
    refused('zcs-send, nobody\'s KEY.run', [SEND, '--key', mine, '-s', 'tone', '-n', '1000',
                                           DEST], [run, OWNER])
    with open(run) as f:
        c.eq('nobody\'s KEY.run is left as it was', f.read(), '5\n')
    seen = mine + '.seen'
    with open(seen, 'w') as f:
        f.write('run 12 stream 0x1a2b3c4d salt 000102abcdef10ff meta 5\n')
    os.chmod(seen, 0o600)
    os.chown(seen, NOBODY, NOBODY)
    refused('zcs-recv, nobody\'s KEY.seen', [RECV, '--key', mine, DEST], [seen, OWNER])

    # ---- root's own files are taken: the same run goes on once they are root's ----
    os.chown(run, 0, 0)
    p = seclib.run([SEND, '--key', mine, '-s', 'tone', '-n', '1000', DEST], timeout=60)
    c.eq('zcs-send with root\'s own key and KEY.run: exit status', p.returncode, 0)
    with open(run) as f:
        c.eq('root\'s KEY.run advanced', f.read(), '6\n')
finally:
    shutil.rmtree(tmp, ignore_errors=True)
c.done()
