#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# A key file's path with an escape sequence (a window title set, a bell), a newline and a byte
# that is not UTF-8 never reaches the terminal as it is (issue 22, part 5): zcs-send --gen-key's
# line, zcs-send's and zcs-recv's "keyed" lines, and the refusals of zcs-send, zcs-recv and
# zcs-ctl all quote it escaped (\x1b).  In a network namespace of its own (loopback), port 23108.
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'recv'))
from recvlib import isolate  # noqa: E402

send_exe, recv_exe, ctl_exe = sys.argv[1:4]
NAME = b'\x1b]0;owned\x07\nkey\xff'


def check(what, err):
    """err (bytes) holds no control byte but its line ends, and quotes the path escaped."""
    body = err.replace(b'\n', b'')
    bad = [b for b in body if b < 0x20 or b == 0x7f]
    assert not bad, '%s: raw control bytes %r in %r' % (what, bad, err)
    assert b'\\x1b' in err, '%s: the path is not quoted escaped: %r' % (what, err)
    # the path's own newline is escaped: the message is still one line (plus a --help hint)
    assert b'\\x0a' in err, '%s: %r' % (what, err)
    print('ok: %s: %s' % (what, err.decode(errors='replace').strip().splitlines()[0]))


def run(args):
    return subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)


def main():
    isolate()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(os.fsencode(d), NAME)
        p = run([send_exe, b'--gen-key', path])
        assert p.returncode == 0, p.stderr
        check('zcs-send --gen-key', p.stderr)
        p = run([send_exe, b'--gen-key', path])
        assert p.returncode == 1, p.stderr
        check('zcs-send --gen-key over an existing file', p.stderr)

        # the keyed lines at start: zcs-send sends 1000 samples and ends
        p = run([send_exe, b'-s', b'tone', b'-r', b'100k', b'-n', b'1000', b'--key', path,
                 b'127.0.0.1:23108'])
        assert p.returncode == 0, p.stderr
        keyed = b'\n'.join(line for line in p.stderr.splitlines() if b'keyed' in line)
        check('zcs-send --key (the keyed line)', keyed)
        # and every other line of that run (its run counter is named after the key)
        check('zcs-send --key (every line)', p.stderr)
        r = subprocess.Popen([recv_exe, b'--key', path, b'127.0.0.1:23108'],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            keyed = b''
            for line in r.stderr:   # said at start, before any datagram
                if b'keyed' in line:
                    keyed = line
                    break
        finally:
            r.terminate()
            r.communicate(timeout=30)
        check('zcs-recv --key (the keyed line)', keyed)

        # refusals: readable by others, then missing
        os.chmod(path, 0o644)
        for what, args in (('zcs-send', [send_exe, b'-s', b'tone', b'--key', path,
                                         b'127.0.0.1:23108']),
                           ('zcs-recv', [recv_exe, b'--key', path, b'127.0.0.1:23108']),
                           ('zcs-ctl', [ctl_exe, b'--key', path, b'127.0.0.1:23109', b'get'])):
            p = run(args)
            assert p.returncode == 2, (what, p.returncode, p.stderr)
            check('%s refuses a key file others may read' % what, p.stderr)
        os.unlink(path)
        p = run([ctl_exe, b'--key', path, b'127.0.0.1:23109', b'get'])
        assert p.returncode == 2, p.stderr
        check('zcs-ctl with a missing key file', p.stderr)
    print('PASS')


main()
