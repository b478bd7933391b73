# SPDX-License-Identifier: MIT
# mcast_check.py: the assertions of the multicast lab tests (test_mcast_*.sh) on zcs-recv's JSON
# summary and on cs16 output files against a reference run.  Exit status 1 on any failed check.
#
#   expect LOG KEY=VAL|KEY>VAL ...   fields of the last {"type":"summary"} line in LOG
#   get LOG KEY                      print one field of that summary
#   exact OUT REF                    OUT and REF are the same bytes
#   slice OUT REF SPD [--to-end]     OUT is REF[off:off+len] with off a multiple of SPD (pairs);
#                                    prints off; --to-end: OUT also ends where REF ends
#   prefix OUT REF                   OUT is a prefix of REF, whole pairs (a killed receiver)
#   gaps OUT REF SPD LOST GAPSAMP    OUT is REF with LOST whole datagrams (SPD pairs, the last
#                                    one may be shorter) replaced by zeros, GAPSAMP zero pairs
import json
import sys

np = None  # numpy, imported only by the file checks (the summary checks stay quick)


def die(msg):
    print(f"mcast_check: {msg}", file=sys.stderr)
    sys.exit(1)


def summary(path):
    found = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("{") and '"summary"' in line:
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if obj.get("type") == "summary":
                    found = obj
    if found is None:
        die(f"{path}: no JSON summary line")
    return found


def pairs(path):
    """A cs16 file as one uint32 per I/Q pair (so a pair compares as one value)."""
    global np
    if np is None:
        import numpy
        np = numpy
    raw = np.fromfile(path, dtype=np.uint8)
    if raw.size % 4:
        die(f"{path}: {raw.size} bytes is not a whole number of cs16 pairs")
    return raw.view("<u4")


def first_diff(a, b):
    idx = np.flatnonzero(a != b)
    return int(idx[0]) if idx.size else -1


def cmd_expect(log, *conds):
    s = summary(log)
    bad = []
    for c in conds:
        op = ">" if ">" in c else "="
        key, want = c.split(op, 1)
        if key not in s:
            bad.append(f"{key} missing")
            continue
        got = s[key]
        ok = got > int(want) if op == ">" else str(got) == want
        if not ok:
            bad.append(f"{key}={got} (want {op}{want})")
    if bad:
        die(f"{log}: " + ", ".join(bad))


def cmd_get(log, key):
    s = summary(log)
    if key not in s:
        die(f"{log}: no field {key}")
    print(s[key])


def cmd_exact(out, ref):
    o, r = pairs(out), pairs(ref)
    if o.size != r.size:
        die(f"{out}: {o.size} pairs, reference {r.size}")
    d = first_diff(o, r)
    if d >= 0:
        die(f"{out}: differs from the reference first at pair {d}")
    print(f"{out}: {o.size} pairs, identical to the reference")


def cmd_slice(out, ref, spd, *opts):
    o, r, spd = pairs(out), pairs(ref), int(spd)
    if o.size == 0:
        die(f"{out}: empty")
    if o.size > r.size:
        die(f"{out}: {o.size} pairs, longer than the reference ({r.size})")
    # the reference is a noisy tone: a datagram's worth of pairs occurs once in it
    n = min(spd, o.size)
    cand = np.flatnonzero(r[: r.size - o.size + 1] == o[0])
    offs = [int(c) for c in cand if np.array_equal(r[c:c + n], o[:n])]
    if len(offs) != 1:
        die(f"{out}: its first {n} pairs occur {len(offs)} times in the reference")
    off = offs[0]
    if off % spd:
        die(f"{out}: starts at reference pair {off}, not a datagram boundary ({spd} pairs)")
    d = first_diff(o, r[off:off + o.size])
    if d >= 0:
        die(f"{out}: slice from {off} differs at output pair {d}")
    if "--to-end" in opts and off + o.size != r.size:
        die(f"{out}: slice {off}..{off + o.size} stops before the reference's end {r.size}")
    print(off)


def cmd_prefix(out, ref):
    o, r = pairs(out), pairs(ref)
    if o.size > r.size:
        die(f"{out}: longer than the reference")
    d = first_diff(o, r[: o.size])
    if d >= 0:
        die(f"{out}: differs from the reference prefix at pair {d}")
    print(f"{out}: {o.size} pairs, a prefix of the reference")


def cmd_gaps(out, ref, spd, lost, gapsamp):
    o, r, spd = pairs(out), pairs(ref), int(spd)
    if o.size != r.size:
        die(f"{out}: {o.size} pairs, reference {r.size} (gaps must be zero-filled)")
    zero_blocks = zero_pairs = 0
    for start in range(0, r.size, spd):
        ob, rb = o[start:start + spd], r[start:start + spd]
        if np.array_equal(ob, rb):
            continue
        if np.any(ob != 0):
            die(f"{out}: datagram at pair {start} is neither the reference nor zeros "
                f"(first difference at pair {start + first_diff(ob, rb)})")
        zero_blocks += 1
        zero_pairs += ob.size
    if zero_blocks != int(lost) or zero_pairs != int(gapsamp):
        die(f"{out}: {zero_blocks} zeroed datagrams / {zero_pairs} pairs, "
            f"expected {lost} / {gapsamp}")
    print(f"{out}: reference with {zero_blocks} datagrams ({zero_pairs} pairs) zero-filled")


CMDS = {"expect": cmd_expect, "get": cmd_get, "exact": cmd_exact, "slice": cmd_slice,
        "prefix": cmd_prefix, "gaps": cmd_gaps}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in CMDS:
        die("usage: mcast_check.py expect|get|exact|slice|prefix|gaps ARGS...")
    try:
        CMDS[sys.argv[1]](*sys.argv[2:])
    except TypeError as e:
        die(f"{sys.argv[1]}: bad arguments ({e})")
