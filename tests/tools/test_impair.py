# SPDX-License-Identifier: MIT
# Integration test of zcs-impair over loopback (ports 24100-24121): sends a known sequence of zcs
# sample datagrams through it and checks its ground-truth log against what really arrived, and
# that what its own socket dropped (a relay fallen behind) is counted exactly, and that --parity
# loses parity datagrams too.
# usage: /usr/bin/python3 test_impair.py ZCS-IMPAIR ZCS-UDPTOOL
import collections
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

IMPAIR, UDPTOOL = sys.argv[1], sys.argv[2]
SO_RCVBUFFORCE = 33
FAILURES = []


def check(cond, msg):
    if not cond:
        FAILURES.append(msg)
        print("FAIL:", msg)


def wait_file(path, proc, what):
    for _ in range(1000):
        if os.path.exists(path):
            return
        if proc.poll() is not None:
            sys.exit(f"{what} exited early with {proc.returncode}")
        time.sleep(0.01)
    sys.exit(f"{what} never became ready")


def run_relay(tmp, tag, port, relay_args, sends):
    """Runs one relay, feeds it `sends` (a list of udptool argument lists), returns
    (events, summary, arrivals) where arrivals are udptool's decode lines in arrival order."""
    listen, dest = f"127.0.0.1:{port}", f"127.0.0.1:{port + 1}"
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        rx.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
    except OSError:
        rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 20)
    rx.bind(("127.0.0.1", port + 1))
    log, ready = os.path.join(tmp, tag + ".log"), os.path.join(tmp, tag + ".ready")
    total = sum(int(s[s.index("--count") + 1]) if s[0] == "gen" else
                len(s) - 1 if s[0] == "raw" else 1 for s in sends)
    relay = subprocess.Popen([IMPAIR, "-l", listen, "-t", dest, "--count", str(total),
                              "--idle-exit", "10000", "--log", log, "--ready", ready]
                             + relay_args)
    wait_file(ready, relay, "zcs-impair")
    for s in sends:
        if s[0] == "raw":
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx:
                for d in s[1:]:
                    tx.sendto(d, ("127.0.0.1", port))
                    time.sleep(0.0002)  # the relay's 16 MB buffer holds them anyway
        else:
            subprocess.run([UDPTOOL, s[0], listen] + s[1:], check=True)
    if relay.wait(timeout=60) != 0:
        sys.exit(f"zcs-impair exited with {relay.returncode}")
    with open(log) as f:
        lines = [json.loads(line) for line in f]
    summary = lines[-1].get("summary")
    if summary is None:
        sys.exit(f"{log}: no summary line at the end")
    # everything the relay sent is queued in our socket by now; read exactly that many
    raw = []
    while len(raw) < summary["sent"]:
        if not select.select([rx], [], [], 10)[0]:
            break
        raw.append(rx.recv(65536))
    rx.close()
    check(len(raw) == summary["sent"], f"{tag}: relay sent {summary['sent']}, got {len(raw)}")
    dec = subprocess.run([UDPTOOL, "decode"], input="".join(r.hex() + "\n" for r in raw),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    return lines[:-1], summary, dec


def parse_arrival(line):
    f = line.split()
    if f[0] == "zcs":
        return "zcs", int(dict(x.split("=") for x in f[1:])["seq"])
    return f[0], (f[1] if f[0] == "bad" else " ".join(f[1:]))


def check_truth(tag, events, summary, dec, n, samples):
    fate = {}
    delay = {}
    garbage = collections.Counter()
    for e in events:
        if "seq" in e:
            check(e["seq"] not in fate, f"{tag}: seq {e['seq']} logged twice")
            fate[e["seq"]] = e["action"]
            check(e["samples"] == samples, f"{tag}: seq {e['seq']} samples {e['samples']}")
            if e["action"] == "reordered":
                delay[e["seq"]] = e["delay"]
        elif "garbage" in e:
            garbage[e["garbage"]] += 1
            want = {"truncated": "truncated", "bad_magic": "bad_magic",
                    "bad_version": "bad_version", "bad_length": "bad_length"}.get(e["garbage"])
            if want:
                check(e["reason"] == want, f"{tag}: {e}")
    check(sorted(fate) == list(range(n)), f"{tag}: not every seq 0..{n - 1} has one fate")
    counts = collections.Counter(fate.values())
    for k in ("forwarded", "dropped", "duplicated", "reordered"):
        check(summary[k] == counts[k], f"{tag}: summary {k}={summary[k]}, log has {counts[k]}")
    check(summary["dropped_samples"] == counts["dropped"] * samples, f"{tag}: dropped_samples")
    check(summary["garbage_by_kind"] == {k: garbage[k] for k in summary["garbage_by_kind"]},
          f"{tag}: garbage_by_kind {summary['garbage_by_kind']} vs log {dict(garbage)}")
    check(summary["sample_dgrams"] == n, f"{tag}: sample_dgrams {summary['sample_dgrams']}")
    check(summary["samples"] == n * samples, f"{tag}: samples {summary['samples']}")

    arrivals = [parse_arrival(x) for x in dec]
    seen = collections.Counter(v for k, v in arrivals if k == "zcs")
    for s, a in fate.items():
        want = {"dropped": 0, "forwarded": 1, "reordered": 1, "duplicated": 2, "spared": 1}[a]
        check(seen[s] == want, f"{tag}: seq {s} ({a}) arrived {seen[s]} times")
    # in-order datagrams keep their order; a reordered one follows exactly `delay` later ones
    inorder = [v for k, v in arrivals if k == "zcs" and fate.get(v) != "reordered"]
    dedup = [s for i, s in enumerate(inorder) if i == 0 or inorder[i - 1] != s]
    check(dedup == sorted(set(dedup)), f"{tag}: in-order datagrams arrived out of order")
    passed = set()
    for k, v in arrivals:
        if k != "zcs":
            continue
        if fate[v] == "reordered":
            later = sum(1 for s in passed if s > v)
            check(later == delay[v], f"{tag}: seq {v} delay {delay[v]} but {later} passed it")
        else:
            passed.add(v)
    bad = collections.Counter(v for k, v in arrivals if k == "bad")
    for kind in ("truncated", "bad_version", "bad_length"):
        check(bad[kind] == garbage[kind], f"{tag}: {kind}: log {garbage[kind]} arrived {bad[kind]}")
    texts = [v for k, v in arrivals if k == "text"]
    check(len(texts) == garbage["bad_magic"] + garbage["random"] + summary["other"],
          f"{tag}: {len(texts)} non-zcs arrivals")
    check(summary["spared"] == counts["spared"], f"{tag}: spared {summary['spared']}")
    check(summary["sent"] == counts["forwarded"] + 2 * counts["duplicated"] +
          counts["reordered"] + counts["spared"] + summary["garbage"] + summary["other"],
          f"{tag}: sent count")
    return counts, garbage


def sample_dgram(seq, samples, flags=0):
    """A zcs i8 sample datagram (docs/protocol.md: 32-byte header, then the payload)."""
    return struct.pack("<2sBBIQQBBHHH", b"ZS", 1, 0, 0x5EED, seq, seq * samples, 1, flags,
                       samples, 2 * samples, 0) + bytes(2 * samples)


def parity_dgram(block, index, number, shard=40):
    """A zcs parity datagram (docs/protocol.md, revision 8): k 4, m 2."""
    return struct.pack("<2sBBIQQBBBBHH", b"ZS", 1, 2, 0x5EED, block, number, 4, 2, index, 0,
                       shard, 0) + bytes(shard)


def case_parity(tmp, port):
    """--parity: parity datagrams are lost at --drop as sample datagrams are; without it they
    pass untouched (counted as other)."""
    raw = []
    for b in range(100):
        raw += [sample_dgram(4 * b + j, 10) for j in range(4)]
        raw += [parity_dgram(4 * b, i, 2 * b + i) for i in range(2)]
    _, sp, dp = run_relay(tmp, "parity", port, ["--seed", "3", "--parity", "--drop", "0.3"],
                          [["raw"] + raw])
    print("parity:", json.dumps(sp))
    check(sp["parity"] == 200, f"parity: counted {sp['parity']} of 200")
    check(0 < sp["parity_dropped"] < 200, f"parity: dropped {sp['parity_dropped']} of 200")
    check(sp["sent"] == 600 - sp["dropped"] - sp["parity_dropped"] and len(dp) == sp["sent"],
          f"parity: sent {sp['sent']}, arrived {len(dp)}, dropped {sp['dropped']} + "
          f"{sp['parity_dropped']}")
    _, sn, _ = run_relay(tmp, "noparity", port + 2, ["--seed", "3", "--drop", "0.3"],
                         [["raw"] + raw])
    check(sn["parity"] == 0 and sn["parity_dropped"] == 0 and sn["other"] == 200,
          f"noparity: parity {sn['parity']}, dropped {sn['parity_dropped']}, other {sn['other']}")


def case_socket_drops(tmp, port):
    """A relay that falls behind (stopped while a burst arrives) says exactly what its own socket
    dropped: received + socket_drops = what was sent to it, so its truth stays whole."""
    listen, dest = f"127.0.0.1:{port}", f"127.0.0.1:{port + 1}"
    log, ready = os.path.join(tmp, "drops.log"), os.path.join(tmp, "drops.ready")
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.bind(("127.0.0.1", port + 1))
    relay = subprocess.Popen([IMPAIR, "-l", listen, "-t", dest, "--rcvbuf", "65536",
                              "--idle-exit", "1500", "--log", log, "--ready", ready])
    wait_file(ready, relay, "zcs-impair")
    n = 3000
    relay.send_signal(signal.SIGSTOP)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx:
        for i in range(n):
            tx.sendto(b"x" * 1000, ("127.0.0.1", port))
    relay.send_signal(signal.SIGCONT)
    if relay.wait(timeout=60) != 0:
        sys.exit(f"zcs-impair exited with {relay.returncode}")
    sink.close()
    with open(log) as f:
        summary = json.loads(f.read().splitlines()[-1])["summary"]
    print(f"socket drops: received {summary['received']}, socket_drops {summary['socket_drops']}, "
          f"rcvbuf {summary['rcvbuf']}")
    check(summary["rcvbuf"] > 0, f"drops: rcvbuf {summary['rcvbuf']}")
    check(summary["socket_drops"] is not None and summary["socket_drops"] > 0,
          f"drops: a 64 KiB buffer took all {n} datagrams of a stopped relay?")
    check(summary["received"] + (summary["socket_drops"] or 0) == n,
          f"drops: received {summary['received']} + socket_drops {summary['socket_drops']} != {n}")


def main():
    n, samples = 3000, 100
    mixed = ["--seed", "42", "--drop", "0.03", "--dup", "0.03", "--reorder", "0.03",
             "--reorder-depth", "4", "--burst-drop", "0.005:6", "--garbage", "0.03"]
    sends = [["gen", "--count", "1500", "--samples", str(samples)],
             ["send", "--text", "zcs-marker"],
             ["gen", "--count", "1500", "--samples", str(samples), "--start-seq", "1500"]]
    with tempfile.TemporaryDirectory(prefix="zcs-impair-") as tmp:
        ev1, sum1, dec1 = run_relay(tmp, "mixed1", 24100, mixed, sends)
        counts, garbage = check_truth("mixed", ev1, sum1, dec1, n, samples)
        for k in ("forwarded", "dropped", "duplicated", "reordered"):
            check(counts[k] > 0, f"mixed: no datagram was {k}")
        check(sum1["bursts"] > 0 and sum1["burst_dropped"] > 0, "mixed: no burst")
        check(sum1["other"] == 1 and "text zcs-marker" in dec1, "mixed: marker not passed")
        print("mixed:", json.dumps(sum1))

        # the same seed and input give the same truth; another seed does not
        ev2, sum2, _ = run_relay(tmp, "mixed2", 24102, mixed, sends)
        check(ev1 == ev2 and sum1 == sum2, "same seed: different ground truth")
        other_seed = mixed[:1] + ["43"] + mixed[2:]
        ev3, _, _ = run_relay(tmp, "mixed3", 24104, other_seed, sends)
        check(ev1 != ev3, "seeds 42 and 43 gave the same ground truth")

        # every kind of garbage, each rejected for its reason
        evg, sumg, decg = run_relay(tmp, "garbage", 24106, ["--seed", "5", "--garbage", "1"],
                                    [["gen", "--count", "300", "--samples", "8"]])
        _, g = check_truth("garbage", evg, sumg, decg, 300, 8)
        for kind in ("truncated", "bad_magic", "bad_version", "bad_length", "random"):
            check(g[kind] > 0, f"garbage: no {kind} datagram in 300")

        # a delay keeps every datagram and the order
        evd, sumd, decd = run_relay(tmp, "delay", 24108, ["--delay-ms", "20"],
                                    [["gen", "--count", "200", "--samples", "50",
                                      "--format", "p12"]])
        check_truth("delay", evd, sumd, decd, 200, 50)
        check(sumd["forwarded"] == 200 and sumd["sent"] == 200, "delay: not all forwarded")

        # --spare-ends: datagram 0 and the end of stream arrive once, first and last, whatever
        # the draws (here most datagrams are dropped, duplicated or held back)
        n_se = 400
        raw = [sample_dgram(q, 10, 1 if q == n_se - 1 else 0) for q in range(n_se)]
        evs, sums, decs = run_relay(tmp, "spare", 24112,
                                    ["--seed", "9", "--spare-ends", "--drop", "0.4", "--dup",
                                     "0.3", "--reorder", "0.5", "--reorder-depth", "200"],
                                    [["raw"] + raw])
        cs, _ = check_truth("spare", evs, sums, decs, n_se, 10)
        zcs = [v for k, v in (parse_arrival(x) for x in decs) if k == "zcs"]
        check(cs["spared"] == 2 and sums["spared"] == 2, f"spare: spared {sums['spared']}")
        check(zcs[:1] == [0] and zcs[-1:] == [n_se - 1] and zcs.count(0) == 1 and
              zcs.count(n_se - 1) == 1, f"spare: first {zcs[:2]}, last {zcs[-2:]}")
        check(cs["reordered"] > 0 and cs["dropped"] > 0, "spare: nothing impaired")
        # without it the same draws impair them too (the option is what spares them)
        evn, _, _ = run_relay(tmp, "nospare", 24114,
                              ["--seed", "9", "--drop", "0.4", "--dup", "0.3", "--reorder", "0.5",
                               "--reorder-depth", "200"], [["raw"] + raw])
        fates = {e["seq"]: e["action"] for e in evn if "seq" in e}
        check(fates.get(n_se - 1) != "forwarded" or fates.get(0) != "forwarded",
              f"nospare: seq 0 and the end both forwarded untouched ({fates.get(0)}, {fates.get(n_se - 1)})")

        # nothing asked for: a transparent relay
        evt, sumt, dect = run_relay(tmp, "clean", 24110, [],
                                    [["gen", "--count", "500", "--format", "i8"]])
        check_truth("clean", evt, sumt, dect, 500, 100)
        check(sumt["forwarded"] == 500, "clean: relay changed something")
        check(sumt["socket_drops"] == 0, f"clean: its socket dropped {sumt['socket_drops']}")

        case_socket_drops(tmp, 24116)
        case_parity(tmp, 24118)

    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed")
        return 1
    print("impair: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
