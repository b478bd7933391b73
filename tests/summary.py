#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Adds up meson testlog.json files: one line per build, then the closing
'zcs: N passed, N failed, N skipped'.

A skip counts as a failure except under qemu (a build directory named *armhf*), or where
../shared/data (the SigMF schema and the glibc 2.25 symbol list, outside the tree) is absent: the
checks that read it are then skips, named here.  On this machine and in CI every capability
and file exists, so a test that skips there hides a broken set-up."""
import json
import os
import sys

SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'shared', 'data')
have_shared = os.path.isdir(SHARED)

total_pass = total_fail = total_skip = 0
for path in sys.argv[1:]:
    p = f = s = 0
    failed, skipped = [], []
    try:
        with open(path) as fh:
            for line in fh:
                rec = json.loads(line)
                res = rec.get("result")
                if res in ("OK", "EXPECTEDFAIL"):
                    p += 1
                elif res == "SKIP":
                    s += 1
                    skipped.append(rec.get("name"))
                else:
                    f += 1
                    failed.append(rec.get("name"))
    except FileNotFoundError:
        print(f"{path}: missing (the stage did not run its tests)")
        total_fail += 1
        continue
    print(f"{path}: {p} passed, {f} failed, {s} skipped" +
          (f"  FAILED: {' '.join(failed)}" if failed else "") +
          (f"  SKIPPED: {' '.join(skipped)}" if skipped else ""))
    if p + f + s == 0:
        print(f"{path}: no results (the stage ran no test): counted as failed")
        total_fail += 1
    total_pass += p
    total_fail += f
    total_skip += s
    if s and "armhf" not in path:
        if have_shared:
            print(f"{path}: {s} skipped where nothing may skip: counted as failed")
            total_fail += s
        else:
            print(f"{path}: {s} skipped: {os.path.normpath(SHARED)} is absent, so the checks "
                  "that read it did not run")

print(f"zcs: {total_pass} passed, {total_fail} failed, {total_skip} skipped")
sys.exit(1 if total_fail or total_pass == 0 else 0)
