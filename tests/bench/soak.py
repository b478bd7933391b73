# SPDX-License-Identifier: MIT
# soak.py: the driver of soak.sh (read its header first): runs the soak in a lab soak.sh built,
# then reconciles every count and prints the tables.  Not run alone.
import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time

GROUP_A, GROUP_B = "239.18.7.1", "239.18.7.2"
PORT_A, PORT_B, CTL_PORT, CONSUMER_PORT = 24700, 24702, 24701, 24710
TX_ADDR = "198.18.0.1"
CONSUMER = r"""
import socket, sys, time
for _ in range(500):
    try:
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        break
    except OSError:
        time.sleep(0.02)
else:
    sys.exit(1)
print("connected", flush=True)
while s.recv(1 << 20):
    pass
"""
FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL:", msg, flush=True)


def parse_rate(s):
    mult = {"k": 1e3, "M": 1e6, "G": 1e9}
    return int(round(float(s[:-1]) * mult[s[-1]])) if s[-1] in mult else int(s)


class Lab:
    def __init__(self, lab):
        self.lab = lab

    def ns(self, host):
        return f"{self.lab}-{host}"

    def popen(self, host, cmd, **kw):
        return subprocess.Popen(["ip", "netns", "exec", self.ns(host)] + cmd, **kw)

    def run(self, host, cmd, timeout=30):
        return subprocess.run(["ip", "netns", "exec", self.ns(host)] + cmd, capture_output=True,
                              text=True, timeout=timeout)

    def joined(self, host, group, secs=10):
        end = time.monotonic() + secs
        while time.monotonic() < end:
            out = subprocess.run(["ip", "-n", self.ns(host), "maddr", "show", "dev", "eth0"],
                                 capture_output=True, text=True).stdout
            if group in out.split():
                return True
            time.sleep(0.05)
        return False

    def relay_drained(self, port, secs):
        """The relay's receive queue (in rx3) is empty twice in a row, 0.2 s apart."""
        end, empty = time.monotonic() + secs, 0
        while time.monotonic() < end:
            out = self.run("rx3", ["ss", "-Huan", f"sport = :{port}"]).stdout.split()
            empty = empty + 1 if out and out[1] == "0" else 0
            if empty == 2:
                return True
            time.sleep(0.2)
        return False

    def udp_drops(self, host):
        """The namespace's UDP receive-buffer and checksum errors (/proc/net/snmp is per netns)."""
        out = self.run(host, ["cat", "/proc/net/snmp"]).stdout.splitlines()
        rows = [line.split() for line in out if line.startswith("Udp:")]
        d = dict(zip(rows[0][1:], map(int, rows[1][1:])))
        return d.get("RcvbufErrors", 0) + d.get("InCsumErrors", 0)


def proc_sample(pid):
    """(RSS kB, open descriptors, threads) of a live process, or None."""
    try:
        with open(f"/proc/{pid}/status") as f:
            st = dict(line.split(":", 1) for line in f if ":" in line)
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        return int(st["VmRSS"].split()[0]), fds, int(st["Threads"])
    except (OSError, KeyError, ValueError):
        return None


class Receiver:
    """One long-lived zcs-recv; a thread reads its --json lines as they come."""

    def __init__(self, lab, host, group, port, key, tmp, fmt):
        self.host, self.lines, self.changes, self.news = host, [], [], []
        self.last = None
        self.log = open(os.path.join(tmp, f"{host}.log"), "w")
        self.proc = lab.popen(host, [ARGS.recv, f"{group}:{port}", "--iface", "eth0", "--key", key,
                                     "--run-state", os.path.join(tmp, f"{host}.seen"), "--json",
                                     "--interval", "1", "--rcvbuf", "64M", "-F", fmt,
                                     "-o", f"tcp:127.0.0.1:{CONSUMER_PORT}"],
                              stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        if not lab.joined(host, group):
            fail(f"{host}: never joined {group}")

    def _read(self):
        for line in self.proc.stderr:
            self.log.write(line)
            if not line.startswith("{"):
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            with self.lock:
                if obj.get("type") in ("stats", "summary"):
                    self.last = obj
                    if obj["type"] == "summary":
                        self.summary = obj
                elif obj.get("type") == "change":
                    self.changes.append(obj)
                else:
                    self.news.append(obj)
        self.log.flush()

    def connects(self):
        s = self.stats() or {}
        return ((s.get("outputs") or [{}])[0]).get("connects", 0)

    def stats(self):
        with self.lock:
            return dict(self.last) if self.last else None


class Sampler(threading.Thread):
    """RSS, descriptors and threads of every process watched, every `period` seconds."""

    def __init__(self, period):
        super().__init__(daemon=True)
        self.period, self.watch, self.series = period, {}, {}
        self.stop = threading.Event()
        self.lock = threading.Lock()

    def set(self, label, pid):
        with self.lock:
            if pid is None:
                self.watch.pop(label, None)
            else:
                self.watch[label] = pid

    def run(self):
        while not self.stop.wait(self.period):
            with self.lock:
                items = list(self.watch.items())
            for label, pid in items:
                s = proc_sample(pid)
                if s:
                    self.series.setdefault(label, []).append((time.monotonic(), pid) + s)


class Periodic(threading.Thread):
    def __init__(self, period, fn):
        super().__init__(daemon=True)
        self.period, self.fn = period, fn
        self.stop = threading.Event()

    def run(self):
        while not self.stop.wait(self.period):
            self.fn()


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    for a in ("lab", "tmp", "send", "recv", "ctl", "impair"):
        ap.add_argument("--" + a, required=True)
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--run-minutes", type=float, default=5)
    ap.add_argument("--rate", default="30.72M")
    ap.add_argument("--retune-s", type=float, default=10)
    ap.add_argument("--consumer-s", type=float, default=20, help="a consumer's life")
    ap.add_argument("--sample-s", type=float, default=5, help="RSS/fd sampling period")
    ap.add_argument("--drop", default="0.01")
    ap.add_argument("--dup", default="0.005")
    ap.add_argument("--reorder", default="0.01")
    ap.add_argument("--out-format", default="cs8")
    # the relay's own socket: a relay starved of CPU must not lose what it is to relay there (the
    # kernel doubles it: 1 GiB, ~3.5 minutes of a 1 MS/s stream, charged only while queued)
    ap.add_argument("--relay-rcvbuf", default=str(512 << 20))
    # plain: one datagram per send, as from a board whose NIC has no checksum offload (the
    # Pluto's USB Ethernet); zero-copy trains wait for every receiver's copy of them on veth
    ap.add_argument("--send-path", default="plain")
    ap.add_argument("--ci", action="store_true",
                    help="2 minutes, 30 s runs, 2 MS/s, consumers every 7 s; RSS and fds asserted")
    ARGS = a = ap.parse_args()
    if a.ci:
        a.minutes, a.run_minutes, a.rate, a.consumer_s, a.sample_s = 2, 0.5, "2M", 7, 1
    rate = parse_rate(a.rate)
    runs = max(1, int(round(a.minutes / a.run_minutes)))
    lab = Lab(a.lab)
    key = os.path.join(a.tmp, "key")
    with open(key, "w") as f:
        f.write(os.urandom(32).hex() + "\n")
    os.chmod(key, 0o600)
    print(f"soak: {runs} runs of {a.run_minutes * 60:g} s at {rate} S/s p12, keyed, multicast; "
          f"relay drop {a.drop} dup {a.dup} reorder {a.reorder} (depth 3); retune every "
          f"{a.retune_s} s; consumers killed every {a.consumer_s} s; load before: "
          f"{open('/proc/loadavg').read().split()[:3]}", flush=True)

    sampler = Sampler(a.sample_s)
    rx = {h: Receiver(lab, h, g, p, key, a.tmp, a.out_format)
          for h, g, p in (("rx1", GROUP_A, PORT_A), ("rx2", GROUP_B, PORT_B))}
    for h, r in rx.items():
        sampler.set(f"zcs-recv {h}", r.proc.pid)
    sampler.start()

    consumers = {h: None for h in rx}
    attaches = {h: 0 for h in rx}
    clock = threading.Lock()

    def reattach():
        with clock:
            for h in rx:
                c = consumers[h]
                if c is not None:
                    c.send_signal(signal.SIGKILL)
                    c.wait()
                c = consumers[h] = lab.popen(h, ["/usr/bin/python3", "-c", CONSUMER,
                                                 str(CONSUMER_PORT)], stdout=subprocess.PIPE,
                                             text=True)
                # killed only once zcs-recv took it (its connects counter moved, not merely the
                # kernel's handshake): every attach is then one the output must have counted
                if c.stdout.readline().strip() != "connected":
                    fail(f"{h}: a consumer could not connect")
                    continue
                end = time.monotonic() + 60
                while time.monotonic() < end and rx[h].connects() <= attaches[h]:
                    time.sleep(0.1)
                attaches[h] += 1
                if rx[h].connects() < attaches[h]:
                    fail(f"{h}: a consumer connected but zcs-recv did not take it within 60 s")
    reattach()

    retunes = []
    freqs = [100_000_000 + 1_000_000 * i for i in range(7)]

    def retune():
        f = freqs[len(retunes) % len(freqs)]
        t = time.monotonic()
        r = lab.run("rx1", [a.ctl, "--key", key, "--json", "--timeout", "3000",
                            f"{TX_ADDR}:{CTL_PORT}", "set", f"freq={f}"], timeout=20)
        rep = None
        for line in r.stdout.splitlines():
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "since_sample" in obj:
                rep = obj
        retunes.append((t, f, r.returncode, rep))

    threads = [Periodic(a.consumer_s, reattach), Periodic(a.retune_s, retune)]
    for t in threads:
        t.start()

    results = []
    prev = {h: {} for h in rx}
    for k in range(1, runs + 1):
        res = {"run": k}
        drops0 = {h: lab.udp_drops(h) for h in ("rx1", "rx2", "rx3")}
        rlog = os.path.join(a.tmp, f"relay{k}.log")
        ready = os.path.join(a.tmp, f"relay{k}.ready")
        relay = lab.popen("rx3", [a.impair, "-l", f"{GROUP_A}:{PORT_A}", "--in-iface", "eth0",
                                  "-t", f"{GROUP_B}:{PORT_B}", "--out-iface", "eth0", "--ttl", "1",
                                  "--seed", str(1000 + k), "--drop", a.drop, "--dup", a.dup,
                                  "--reorder", a.reorder, "--reorder-depth", "3",
                                  "--spare-ends", "--rcvbuf", a.relay_rcvbuf, "--ready", ready],
                          stdout=open(rlog, "w"), stderr=subprocess.STDOUT)
        for _ in range(500):
            if os.path.exists(ready):
                break
            time.sleep(0.02)
        if not lab.joined("rx3", GROUP_A):
            fail(f"run {k}: the relay never joined {GROUP_A}")
        sampler.set("zcs-impair", relay.pid)
        slog = os.path.join(a.tmp, f"send{k}.log")
        t0 = res["t_start"] = time.monotonic()
        # no -n: the run is as long in time whatever the machine paces, and ends as a user
        # restarts a sender, by SIGTERM (zcs-send then ends its stream cleanly, EOS included)
        sender = lab.popen("tx", [a.send, "-s", "tone", "--seed", str(k), "-r",
                                  str(rate), "-f", "p12", "--key", key,
                                  "--control", f"{TX_ADDR}:{CTL_PORT}", "--json", "--cpus",
                                  "none", "--ttl", "1", "--iface", "eth0", "--send-path", a.send_path,
                                  f"{GROUP_A}:{PORT_A}"],
                           stderr=open(slog, "w"), stdout=subprocess.DEVNULL)
        sampler.set("zcs-send", sender.pid)
        time.sleep(a.run_minutes * 60)
        sender.send_signal(signal.SIGTERM)
        try:
            src = sender.wait(timeout=60)
        except subprocess.TimeoutExpired:
            sender.kill()
            src = sender.wait()
            fail(f"run {k}: zcs-send did not end within 60 s of SIGTERM")
        res["seconds"] = time.monotonic() - t0
        sampler.set("zcs-send", None)
        if src != 0:
            fail(f"run {k}: zcs-send exited with {src}: {open(slog).read()[-300:]}")
        ssum = [json.loads(x) for x in open(slog) if x.startswith("{") and '"summary"' in x]
        res["send"] = ssum[-1] if ssum else {}
        # a relay starved of CPU may still hold the run's tail in its socket: stopped now, it
        # would lose what the kernel queued for it (counted nowhere), so it reads it all first
        if not lab.relay_drained(PORT_A, 600):
            fail(f"run {k}: the relay's socket still held datagrams 600 s after the run")
        # every receiver believes this run's end of stream (100 ms of silence after it)
        end = time.monotonic() + 120
        snap = {}
        while time.monotonic() < end and len(snap) < len(rx):
            for h, r in rx.items():
                s = r.stats()
                if s and s.get("eos", 0) >= k:
                    snap[h] = s
            time.sleep(0.1)
        for h in rx:
            if h not in snap:
                fail(f"run {k}: {h} never saw this run's end of stream")
                snap[h] = rx[h].stats() or {}
        res["t_end"] = time.monotonic()
        relay.send_signal(signal.SIGTERM)
        relay.wait(timeout=30)
        sampler.set("zcs-impair", None)
        rsum = [json.loads(x)["summary"] for x in open(rlog) if x.startswith('{"summary"')]
        res["relay"] = rsum[-1] if rsum else {}
        res["kdrops"] = {h: lab.udp_drops(h) - drops0[h] for h in drops0}
        res["rx"] = {h: {key_: snap[h].get(key_, 0) - prev[h].get(key_, 0) for key_ in
                         ("samples", "sample_datagrams", "lost", "gap_samples", "duplicate",
                          "reordered", "late", "invalid", "socket_drops", "restarts", "streams",
                          "eos", "foreign", "unconfirmed", "replayed", "sample_jumps", "stale",
                          "late_joins", "resyncs")} for h in rx}
        prev = snap
        results.append(res)
        reconcile(res)
        time.sleep(2)  # the next run is a restart: a new stream id after this one's end

    for t in threads:
        t.stop.set()
    for t in threads:
        t.join()
    with clock:
        for h, c in consumers.items():
            if c is not None:
                c.send_signal(signal.SIGKILL)
                c.wait()
    time.sleep(a.sample_s * 1.5)  # a last sample with the consumers gone
    sampler.stop.set()
    sampler.join()
    summaries = {}
    for h, r in rx.items():
        r.proc.send_signal(signal.SIGTERM)
        r.proc.wait(timeout=30)
        r.thread.join(timeout=10)
        summaries[h] = getattr(r, "summary", None)
        if r.proc.returncode != 0 or summaries[h] is None:
            fail(f"{h}: zcs-recv exited with {r.proc.returncode}, summary {summaries[h]}")
    report(a, rate, results, rx, summaries, retunes, attaches, sampler.series)
    print("soak: FAILED (%d)" % len(FAILS) if FAILS else "soak: every count reconciled")
    return 1 if FAILS else 0


def reconcile(res):
    """One run's exact accounting: sender, relay and both receivers.  rx1 must get every sample
    datagram the sender sent (its end of stream included).  rx2 must lose exactly what the relay
    dropped plus what never reached the relay (its socket overflowed on a busy machine: the
    sender's count less the relay's, which the namespace's RcvbufErrors show too), duplicate
    exactly what it duplicated, and find exactly the datagrams it held back reordered."""
    k, s, rl, kd = res["run"], res["send"], res["relay"], res["kdrops"]
    sent_samples, sent_dgrams = s.get("samples"), s.get("datagrams")
    if not s:
        fail(f"run {k}: no summary from the sender: nothing to reconcile with")
        return
    d1 = res["rx"]["rx1"]
    # the sender's datagrams are those carrying samples; its end of stream carries none
    if sent_dgrams is None or d1.get("sample_datagrams") != sent_dgrams + 1:
        fail(f"run {k}: rx1 got {d1.get('sample_datagrams')} sample datagrams, "
             f"the sender sent {sent_dgrams} and an end of stream")
    all_dgrams = (sent_dgrams or 0) + 1
    up_dgrams = all_dgrams - rl.get("sample_dgrams", 0)
    up_samples = (sent_samples or 0) - rl.get("samples", 0)
    res["upstream"] = (up_dgrams, up_samples)
    # A relay starved of CPU long enough for its socket to overflow may lose the end of stream
    # (or datagram 0) there: rx2 then cannot know how many samples the lost tail held, nor
    # count it.  That run says so and is not held against rx2; rx1's checks still apply.
    res["starved"] = up_dgrams > 0 and rl.get("spared") != 2
    if res["starved"]:
        print(f"run {k}: rx2 not reconcilable: {up_dgrams} sample datagrams never reached the "
              f"relay (its socket overflowed), among them datagram 0 or the end of stream",
              flush=True)
    for h, d in res["rx"].items():
        if h == "rx2" and res["starved"]:
            continue
        want = {"samples": sent_samples, "eos": 1, "streams": 1, "restarts": 0 if k == 1 else 1,
                "invalid": 0, "late": 0, "foreign": 0, "replayed": 0, "sample_jumps": 0,
                "stale": 0, "late_joins": 0, "resyncs": 0, "socket_drops": 0}
        if h == "rx1":
            want.update(lost=0, gap_samples=0, duplicate=0, reordered=0)
        else:
            # A datagram the relay held back for 3 later ones is late (its number declared lost)
            # only when those 3 came from beyond the window (after a stretch lost in the relay's
            # socket) or after a pause of the relay longer than --hold (starved of CPU): then it
            # is lost, and its samples zero-filled, once more.  Nothing else arrives late.
            late = d.get("late", 0)
            want.update(late=late, lost=rl.get("dropped", 0) + up_dgrams + late,
                        gap_samples=rl.get("dropped_samples", 0) + up_samples
                        + late * s.get("samples_per_dgram", 0),
                        duplicate=rl.get("duplicated"), reordered=rl.get("reordered", 0) - late,
                        sample_datagrams=rl.get("sample_dgrams", 0) - rl.get("dropped", 0)
                        + rl.get("duplicated", 0))
        bad = [f"{key}={d.get(key)} (want {v})" for key, v in want.items() if d.get(key) != v]
        if bad:
            fail(f"run {k}: {h}: " + ", ".join(bad))
    # the relay spared exactly datagram 0 and the end of stream
    if rl.get("spared") != 2 and not res["starved"]:
        fail(f"run {k}: the relay spared {rl.get('spared')}, not datagram 0 and the end")
    # loss before the relay is its socket's, never a datagram the network lost unseen: the
    # kernel's count for that socket (zcs-impair's socket_drops) is exactly the sample datagrams
    # and the metadata that did not reach the relay
    up_meta = s.get("meta_sent", 0) - rl.get("other", 0)
    res["up_meta"] = up_meta
    if rl.get("socket_drops") is None:
        if up_dgrams < 0 or up_dgrams > kd["rx3"]:
            fail(f"run {k}: {up_dgrams} sample datagrams never reached the relay, its "
                 f"namespace's kernel dropped {kd['rx3']}")
    elif up_dgrams < 0 or up_dgrams + up_meta != rl["socket_drops"]:
        fail(f"run {k}: {up_dgrams} sample datagrams and {up_meta} metadata never reached the "
             f"relay, its socket dropped {rl['socket_drops']}")
    if kd["rx1"] or kd["rx2"]:
        fail(f"run {k}: the kernel dropped datagrams in a receiver's namespace: {kd}")


def flat(series):
    """first / last / max of each column over a process's samples (after the first second)."""
    if not series:
        return None
    cols = list(zip(*[x[2:] for x in series]))
    return [(c[0], c[-1], max(c)) for c in cols]


def report(a, rate, results, rx, summaries, retunes, attaches, series):
    print()
    rcvbufs = sorted({r["relay"].get("rcvbuf") for r in results})
    print(f"relay receive buffer granted: {rcvbufs} bytes; 'not to relay': sample datagrams and "
          f"samples its socket dropped (the kernel's count for it, metadata included, in brackets)")
    print(f"| run | s | sender MS/s | sender samples | sender dgrams | not to relay (its socket) | "
          f"relay dropped / samples | relay dup | "
          f"relay reordered | rx1 samples | rx1 lost / gap | rx2 samples | rx2 lost / gap | "
          f"rx2 dup | rx2 reordered | restarts followed | kernel drops rx1, relay, rx2 | reconciled |")
    print("|---" * 18 + "|")
    tot = {}
    for r in results:
        s, rl, d1, d2 = r["send"], r["relay"], r["rx"]["rx1"], r["rx"]["rx2"]
        ok = not any(f.startswith(f"run {r['run']}:") for f in FAILS)
        ok = ("yes" if ok else "NO") + (" (rx2 not: relay starved)" if r.get("starved") else "")
        up = r.get("upstream", ("?", "?"))
        print(f"| {r['run']} | {r['seconds']:.0f} | {s.get('msps')} | {s.get('samples')} | {s.get('datagrams')} | "
              f"{up[0]} / {up[1]} ({rl.get('socket_drops')}) | "
              f"{rl.get('dropped')} / {rl.get('dropped_samples')} | {rl.get('duplicated')} | "
              f"{rl.get('reordered')} | {d1['samples']} | {d1['lost']} / {d1['gap_samples']} | "
              f"{d2['samples']} | {d2['lost']} / {d2['gap_samples']} | {d2['duplicate']} | "
              f"{d2['reordered']} | {d1['restarts']}, {d2['restarts']} | "
              f"{r['kdrops']['rx1']}, {r['kdrops']['rx3']}, {r['kdrops']['rx2']} | "
              f"{ok} |")
        for key_, v in (("samples", s.get("samples", 0)), ("dropped", rl.get("dropped", 0)),
                        ("up", r.get("upstream", (0, 0))[0]),
                        ("dup", rl.get("duplicated", 0)), ("reord", rl.get("reordered", 0))):
            tot[key_] = tot.get(key_, 0) + v
    print()
    print("| receiver | samples (summary) | sent, all runs | lost | gap_samples | duplicate | "
          "reordered | restarts | streams | socket_drops | invalid | consumer attaches | "
          "connects | retunes seen |")
    print("|---" * 14 + "|")
    ok_retunes = [(f, rep) for _, f, rc, rep in retunes if rc == 0 and rep]
    for h, sm in summaries.items():
        sm = sm or {}
        out = (sm.get("outputs") or [{}])[0]
        seen = {(c.get("since_sample"), c.get("center_freq")) for c in rx[h].changes
                if c.get("exact")}
        want = {(rep["since_sample"], f) for f, rep in ok_retunes}
        missing = want - seen
        print(f"| {h} | {sm.get('samples')} | {tot.get('samples')} | {sm.get('lost')} | "
              f"{sm.get('gap_samples')} | {sm.get('duplicate')} | {sm.get('reordered')} | "
              f"{sm.get('restarts')} | {sm.get('streams')} | {sm.get('socket_drops')} | "
              f"{sm.get('invalid')} | {attaches[h]} | {out.get('connects')} | "
              f"{len(want) - len(missing)} of {len(want)} |")
        starved = h == "rx2" and any(r.get("starved") for r in results)  # said run by run
        if sm.get("samples") != tot.get("samples") and not starved:
            fail(f"{h}: {sm.get('samples')} samples over the soak, the sender sent {tot.get('samples')}")
        # a CHANGE lost in the relay's socket is announced again later, not at its index
        if missing and (h == "rx1" or tot["up"] == 0):
            fail(f"{h}: retunes answered but never reported at their index: {sorted(missing)[:5]}")
        if out.get("connects") != attaches[h]:
            fail(f"{h}: {attaches[h]} consumers attached, the output counted {out.get('connects')}")
    if summaries.get("rx2") and not any(r.get("starved") for r in results):
        if summaries["rx2"].get("lost") != tot["dropped"] + tot["up"] + summaries["rx2"].get("late", 0):
            fail(f"rx2: lost {summaries['rx2'].get('lost')} over the soak, the relays dropped "
                 f"{tot['dropped']} and {tot['up']} never reached them")
    nret = len(retunes)
    print(f"\nretunes: {nret} asked, {len(ok_retunes)} answered (the others fell between runs, "
          f"while no sender ran: {nret - len(ok_retunes)})")
    print()
    print(f"| process (sampled every {a.sample_s:g} s) | samples | RSS kB first / last / max | "
          f"fds first / last / max | threads first / last / max | RSS kB at each run's end |")
    print("|---|---|---|---|---|---|")
    for label in sorted(series):
        f = flat(series[label])
        ends = [max((x for x in series[label] if x[0] <= r["t_end"]), default=None,
                    key=lambda x: x[0]) for r in results]
        ends = " ".join(str(e[2]) if e else "-" for e in ends)
        if f:
            print(f"| {label} | {len(series[label])} | {f[0][0]} / {f[0][1]} / {f[0][2]} | "
                  f"{f[1][0]} / {f[1][1]} / {f[1][2]} | {f[2][0]} / {f[2][1]} / {f[2][2]} | "
                  f"{ends} |")
    print(f"\nload after: {open('/proc/loadavg').read().split()[:3]}")
    # bounded: from the first run on, the receivers' descriptors vary by the tcp: output's 4
    # client slots and one client being turned away at most (a killed consumer's socket is
    # closed at the next write to it, so the killed ones may wait in their slots a while), and their memory after the first run stays within 8 MB
    # of what the first run reached
    for h in rx:
        ser = series.get(f"zcs-recv {h}", [])
        if not ser:
            fail(f"{h}: never sampled")
            continue
        t0 = results[0]["t_start"] if results else 0
        fds = [x[3] for x in ser if x[0] >= t0] or [x[3] for x in ser]
        if max(fds) - min(fds) > 5:
            fail(f"{h}: open descriptors ranged {min(fds)}..{max(fds)}")
        t1 = results[0]["t_end"] if results and "t_end" in results[0] else None
        first = [x[2] for x in ser if t1 is None or x[0] <= t1] or [ser[0][2]]
        if max(x[2] for x in ser) > max(first) + 8192:
            fail(f"{h}: RSS grew to {max(x[2] for x in ser)} kB, {max(first)} kB in the first run")


if __name__ == "__main__":
    sys.exit(main())
