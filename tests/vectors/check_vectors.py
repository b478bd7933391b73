# SPDX-License-Identifier: MIT
"""Runs a receiver on every conformance vector of DIR and compares what it wrote and counted
with the vector's NAME.json (README.md).

    check_vectors.py --replay VEC_REPLAY DIR          zcs-recv's engine (the reference)
    check_vectors.py --ref REF_RECV.PY DIR            the second reader
    check_vectors.py --replay VEC_REPLAY --update DIR [NAME...]   write NAME.json from zcs-recv

A receiver is run as `RECEIVER VECTOR.zcsv [--key KEYFILE] --out FILE` and prints one JSON
object: {"pairs": N, "counters": {...}}."""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile


def run(cmd, vec_dir, name, key):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'out.cs16')
        args = cmd + [os.path.join(vec_dir, name + '.zcsv'), '--out', out]
        if key:
            # a copy of mode 0600 owned by whoever runs this: a checkout leaves the file
            # readable by others, which a receiver rightly refuses
            kpath = os.path.join(tmp, key)
            with open(os.path.join(vec_dir, key), 'rb') as src, \
                    open(os.open(kpath, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), 'wb') as dst:
                dst.write(src.read())
            args += ['--key', kpath]
        p = subprocess.run(args, capture_output=True, text=True, timeout=240)
        if p.returncode != 0:
            raise RuntimeError('%s: exit %d: %s' % (name, p.returncode, p.stderr.strip()))
        got = json.loads(p.stdout)
        with open(out, 'rb') as f:
            data = f.read()
    if len(data) != got['pairs'] * 4:
        raise RuntimeError('%s: %d bytes written for %d pairs' % (name, len(data), got['pairs']))
    return {'pairs': got['pairs'], 'sha256': hashlib.sha256(data).hexdigest(),
            'counters': got['counters']}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--replay')
    ap.add_argument('--ref')
    ap.add_argument('--update', action='store_true')
    ap.add_argument('dir')
    ap.add_argument('names', nargs='*')
    a = ap.parse_args()
    if a.replay:
        cmd = [a.replay]
    else:
        cmd = [sys.executable, a.ref]
    names = a.names or sorted(f[:-5] for f in os.listdir(a.dir) if f.endswith('.zcsv'))
    failed = 0
    for name in names:
        jpath = os.path.join(a.dir, name + '.json')
        want = {}
        if os.path.exists(jpath):
            with open(jpath) as f:
                want = json.load(f)
        got = run(cmd, a.dir, name, want.get('key'))
        if a.update:
            want.update(got)
            with open(jpath, 'w') as f:
                json.dump(want, f, indent=1, sort_keys=True)
                f.write('\n')
            print('wrote %s: %d pairs' % (jpath, got['pairs']))
            continue
        diffs = []
        for k in ('pairs', 'sha256'):
            if got[k] != want.get(k):
                diffs.append('%s %s, expected %s' % (k, got[k], want.get(k)))
        wc = want.get('counters', {})
        for k in sorted(set(wc) | set(got['counters'])):
            if got['counters'].get(k) != wc.get(k):
                diffs.append('%s %s, expected %s' % (k, got['counters'].get(k), wc.get(k)))
        if diffs:
            failed += 1
            print('FAIL %s: %s' % (name, '; '.join(diffs)))
        else:
            print('ok   %s (%d pairs)' % (name, got['pairs']))
    if not a.update:
        print('%d of %d vectors agree' % (len(names) - failed, len(names)))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
