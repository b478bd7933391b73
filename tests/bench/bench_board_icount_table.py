#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The tables of bench_board_icount.sh from the guests' reports (DIR/report.txt, DIR/host.txt per
kernel): instructions per sample of every cell, their spread over the runs, the ratio to iiod, and
the core shares calibrated to the seed's board (one Cortex-A9 core at 100% = iiod's instructions
per sample x 11.5 MS/s).

usage: bench_board_icount_table.py DIR...
       bench_board_icount_table.py --merge DIR...   (several boots of one kernel as one table,
                                                    e.g. the cells of another rate or a rerun)

Every cell runs at two sample counts (its REP is RUN:PAIRS); a figure per sample is the
difference of the two runs over the difference of their counts, so every program's start-up
(libiio's context alone is about 14 M instructions) cancels.

Charging (one guest CPU; its clock is an instruction count):
  system  the guest's busy time over the cell less the feeder's CPU within it: the program,
          kernel threads (ksoftirqd among them), the irq and softirq work that ran on top of any
          task, and the few instructions of the guest script around the cell; not the irq and
          softirq work that ran on top of idle.  Every task's run time by the scheduler: the
          tasks alive across the cell (tasks_ns, each thread's schedstat) plus the program's
          rusage; else /proc/schedstat's rq_cpu_time (busy_ns: a task's stretch enters it only
          when the task is switched out, so the script's own stretch at each end shifts it);
          reports of earlier runs, with neither, fall back to elapsed less the idle time.
  not idle elapsed less the nohz idle time (timer_list's sleeptimes), less the feeder: system
          plus the irq and softirq work on top of idle.  (Earlier runs summed the sleeptimes
          with busybox awk's %d, which stops at 2^31 - 1 ns: their idle time stopped growing
          after 2.1 s and this figure was void.)
  process the program's own user + system time (rusage, all threads); it includes the softirq
          and irq work that happened to run while one of its threads was current; the figure
          of the tables (BASIS) and of the shares.
  outside system - process: softirq and irq work on top of idle (the NIC's completions, TCP's
          ACKs for iiod), kernel threads.
"""
import json
import re
import statistics
import sys

# The figure the shares are calibrated on: the program's own rusage (see the charging above; the
# system-wide figure, what would also hold the NIC's completions and TCP's ACKs on top of idle,
# is printed beside it)
BASIS = "process"
SEED_MSPS = 11.5  # iiod on the board: 11-12 MS/s of i16 with one core at 100% (the seed)
RATES = (20.0, 30.72)
# ns of the guest's clock per instruction: 1 on vexpress; the Zynq machine's clock runs 1.2 ns an
# instruction (qemu's timer at 100 MHz against the device tree's 83.33 MHz), taken from the
# self-check loop of a known count when it reads more than 5% off 1 (set by table())
SCALE = 1.0
# The real board's two anchors (the seed, measured on an ADALM-PLUTO: Zynq-7010, two Cortex-A9 at
# 667 MHz): iiod serving i16 at 11-12 MS/s with one core at 100%; zc-stream -8's send thread
# (pinned to CPU1, send() of converted blocks over TCP) stopping at about 42.7 MB/s (42-43)
CORE_HZ = 667e6
IIOD_MSPS = (11.0, 12.0)
TCP_MBPS = (42.0, 43.0)
# the seed's plain TCP from Python, board to PC on the same link: 75 MB/s, one sending thread
PY_TCP_MBPS = 75.0


def parse(d):
    kernel, cells, host = "?", {}, {}
    pauses = []
    with open(f"{d}/host.txt", encoding="utf-8", errors="replace") as f:
        for line in f:
            w = line.split()
            if len(w) >= 3:
                host.setdefault((w[0], w[1]), {}).update(kv.split("=", 1) for kv in w[2:] if "=" in kv)
    with open(f"{d}/report.txt", encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if line.startswith("@kernel "):
                kernel = line[8:]
            if line.startswith("@pause "):
                w = line.split()
                p = dict(kv.split("=", 1) for kv in w[3:] if "=" in kv)
                p["cell"] = w[1]
                pauses.append(p)
            if not line.startswith("@cell "):
                continue
            head, _, js = line.partition(" json=")
            w = head.split()
            c = dict(kv.split("=", 1) for kv in w[3:] if "=" in kv)
            c["json"] = json.loads(js) if js.strip().startswith("{") else {}
            c["name"] = w[1]
            c.update(host.get((w[1], w[2]), {}))
            run, _, n = w[2].partition(":")
            c["n"] = int(n) if n else 0
            cells.setdefault(w[1], {}).setdefault(run, []).append(c)
    return kernel, cells, pauses


def num(c, k):
    try:
        return float(c.get(k, "nan"))
    except ValueError:
        return float("nan")


def busy(c, proc):
    """The system's busy ns over a cell (see system above); proc: the program's own."""
    if "tasks_ns" in c:
        # a resident iiod's threads alive across the cell are in tasks_ns already (live_ns)
        live = num(c, "live_ns")
        return num(c, "tasks_ns") + proc - (live if live == live else 0)
    if num(c, "busy_ns") > 0:
        return num(c, "busy_ns")
    return num(c, "wall_ns") - num(c, "idle_ns")


def totals(c):
    """A run's instructions: system, process, outside, per thread (zcs-send)."""
    proc = num(c, "cpu_s") * 1e9
    busy_ = busy(c, proc) - num(c, "feeder_ns")
    j = c["json"]
    t = {"system": busy_, "process": proc, "outside": busy_ - proc,
         "notidle": num(c, "wall_ns") - num(c, "idle_ns") - num(c, "feeder_ns"),
         "user": num(c, "user_s") * 1e9,
         "src": j.get("src_cpu_s", float("nan")) * 1e9 if j else float("nan"),
         "send": j.get("send_cpu_s", float("nan")) * 1e9 if j else float("nan"),
         # --send-threads 2: the second send thread (pinned with the source thread)
         "send2": j.get("send2_cpu_s", float("nan")) * 1e9 if j else float("nan")}
    return {k: v / SCALE for k, v in t.items()}


# The guest's event counts over a cell (the guest's net_snap, the program's context switches,
# iiod's read/write calls), shown per 1000 pairs for iiod's runs: what its count follows
EVENTS = (("Tcp_OutSegs", "TCP segs out"), ("Tcp_InSegs", "TCP segs in"),
          ("TcpExt_TCPPureAcks", "pure ACKs in"), ("TcpExt_DelayedACKs", "delayed ACKs"),
          ("TcpExt_TCPBacklogCoalesce", "backlog coalesced"), ("virtio_irqs", "NIC irqs"),
          ("net_rx", "NET_RX"), ("net_tx", "NET_TX"), ("ctxt", "ctx switches (all)"),
          ("vcsw", "its voluntary"), ("ivcsw", "its involuntary"), ("syscr", "its reads"),
          ("syscw", "its writes"))


def per_run(short, long_):
    """Per sample, from a run at n1 pairs and one at n2: the difference over n2 - n1."""
    n1, n2 = short["n"], long_["n"]
    a, b = totals(short), totals(long_)
    r = {k: (b[k] - a[k]) / (n2 - n1) for k in a}
    r["ev"] = {k: (num(long_, k) - num(short, k)) / (n2 - n1) * 1e3 for k, _ in EVENTS}
    r["host"] = f"{long_.get('host_load', '-')}, {long_.get('host_s', '-')} s"
    r["problems"] = sorted(set(checks(short, n1) + checks(long_, n2)))
    r["path"] = long_.get("path", "-")
    j = long_["json"]
    # samples a datagram (the kernel's cost per datagram beside per sample)
    r["spd"] = j["samples"] / j["datagrams"] if j and j.get("datagrams") else float("nan")
    return r


def checks(c, n):
    j = c["json"]
    problems = []
    if num(c, "overrun") > 0:
        problems.append(f"feeder overrun {c['overrun']}")
    if j:
        # the samples', the parity's (--fec, as the summary counts them, with two send threads
        # too), the metadata and the end of stream
        sent = j.get("datagrams", 0) + j.get("parity", 0) + j.get("meta_sent", 0) + 1
        if j.get("dropped_datagrams", 0) or j.get("send_errors", 0):
            problems.append(f"dropped {j.get('dropped_datagrams')} errors {j.get('send_errors')}")
        if "got" in c and int(c["got"]) != sent:
            problems.append(f"host counted {c['got']} of {sent} datagrams")
        if j.get("samples", n) != n:
            problems.append(f"samples {j.get('samples')}")
        c["path"] = j.get("send_path", "?") + (f" ({j.get('demotions')} demotions)" if j.get("demotions") else "")
    elif c.get("rc") not in ("0", None) and "readdev_pairs" not in c:
        problems.append(f"rc {c.get('rc')}")
    if "readdev_pairs" in c and int(c["readdev_pairs"]) != n:
        problems.append(f"iio_readdev got {c['readdev_pairs']} of {n} pairs")
    return problems


def fmt(x, p=1):
    return "-" if x != x else f"{x:.{p}f}"


SMALL = 2.0  # a spread of two runs above this many percent is called out as not small


def parse_merged(dirs):
    """Several boots' reports as one: each boot's runs keep their own numbers, prefixed by the
    boot's index, so a cell's two sample counts are always paired within one boot."""
    kernel, cells, pauses = "?", {}, []
    for i, d in enumerate(dirs):
        k, cs, ps = parse(d)
        kernel = k if k != "?" else kernel
        for name, byrun in cs.items():
            for run, runs in byrun.items():
                cells.setdefault(name, {})[f"b{i}.{run}"] = runs
        pauses += ps
    return kernel, cells, pauses


def set_scale(cells):
    """SCALE from the self-check loop's two counts: the slope of its CPU ns over its instructions
    (its start-up cancels), when it reads more than 5% off 1."""
    global SCALE
    loops = [c for cs in cells.get("selfcheck", {}).values() for c in cs]
    loops = sorted((c for c in loops if num(c, "instructions") > 0), key=lambda c: num(c, "instructions"))
    slope = ((num(loops[-1], "cpu_ns") - num(loops[0], "cpu_ns")) /
             (num(loops[-1], "instructions") - num(loops[0], "instructions"))
             if len(loops) >= 2 and num(loops[-1], "instructions") > num(loops[0], "instructions") else 1.0)
    SCALE = slope if abs(slope - 1) > 0.05 else 1.0
    return loops


def table(d):
    kernel, cells, pauses = parse_merged(d) if isinstance(d, list) else parse(d)
    out = [f"\n### Linux {kernel}\n"]
    loops = set_scale(cells)
    if SCALE != 1.0:
        out.append(f"The guest's clock runs {SCALE:.4f} ns an instruction by the self-check loop: every "
                   "figure below is its ns divided by that.")
    for k, when in (("selfcheck", "before the cells"), ("selfcheck-end", "after them")):
        for c in [c for cs in cells.get(k, {}).values() for c in cs]:
            i, ns = num(c, "instructions"), num(c, "cpu_ns") / SCALE
            busy_ = busy(c, num(c, "cpu_ns")) / SCALE
            notidle = (num(c, "wall_ns") - num(c, "idle_ns")) / SCALE
            out.append(f"Self-check ({when}): a loop of {i:.0f} instructions read {ns:.0f} instructions of its own CPU "
                       f"({(ns / i - 1) * 100:+.2f}%) and {busy_:.0f} of system busy time "
                       f"({(busy_ / i - 1) * 100:+.2f}%), {notidle:.0f} not idle "
                       f"({(notidle / i - 1) * 100:+.2f}%).")
    if pauses:
        q = [num(p, "quiet_ns") / num(p, "wall_ns") * 100 for p in pauses]
        worst = min(range(len(q)), key=q.__getitem__)
        out.append(f"Between cells (a 1 s pause after each of {len(q)}): the guest idled "
                   f"{min(q):.1f}% to {max(q):.1f}% of it (the least after {pauses[worst]['cell']}, "
                   f"busiest task {pauses[worst].get('busiest', '?')} ns).")
    runs = {}
    for name, byrun in cells.items():
        if name.startswith("selfcheck"):
            continue
        for cs in byrun.values():
            cs = sorted(cs, key=lambda c: c["n"])
            if len(cs) >= 2 and cs[-1]["n"] > cs[0]["n"]:
                checks(cs[-1], cs[-1]["n"])  # sets its send path
                runs.setdefault(name, []).append(per_run(cs[0], cs[-1]))
    if "iiod" not in runs:
        out.append("no iiod cell: no table")
        return "\n".join(out)

    def med(name, k):
        v = [r[k] for r in runs[name] if r[k] == r[k]]
        return statistics.median(v) if v else float("nan")

    iiod = med("iiod", BASIS)
    supply = med("supply", BASIS) if "supply" in runs else float("nan")
    supply_proc = med("supply", "process") if "supply" in runs else float("nan")
    iiod_net = iiod - supply
    core = iiod * SEED_MSPS  # M instructions a second that one A9 core does, by the seed
    core_net = iiod_net * SEED_MSPS
    out.append(f"\nCalibration: one A9 core at 100% = iiod's {iiod:.1f} instructions per sample x "
               f"{SEED_MSPS} MS/s = {core:.0f} M instructions/s ({core_net:.0f} M/s from iiod less "
               f"the supply, {iiod_net:.1f} per sample: the calibration of the shares).\n")
    out.append(f"| cell | send path | {BASIS} (run 1, run 2; spread) | system | outside | not idle "
               "| src thread | send thread | less supply | vs iiod "
               "| core at 20 MS/s | at 30.72 | src thread at 30.72 | send thread at 30.72 "
               "| ceiling, one core | send thread / datagram | problems |")
    out.append("|---|---|---|" + "---:|" * 13 + "---|")
    order = ["iiod", "supply"] + sorted((k for k in runs if k not in ("iiod", "supply")),
                                       key=lambda k: (re.sub(r"-keyed$", "", k).split("-", 1)[1],
                                                      k.split("-")[0], k.endswith("keyed")))
    big = []
    for name in order:
        if name not in runs:
            continue
        rs = runs[name]
        vals = [r[BASIS] for r in rs]
        m = med(name, BASIS)
        spread = (max(vals) - min(vals)) / m * 100 if m > 0 and len(vals) > 1 else float("nan")
        if spread > SMALL:
            big.append(f"{name} {spread:.1f}%")
        tool = name not in ("iiod", "supply")
        net = m - supply if name != "supply" else m
        ratio = net / iiod_net if name != "supply" else float("nan")
        # shares calibrated on iiod less the supply: the board reads its DMA blocks through mmap
        share = [net * r / core_net * 100 for r in RATES] if name != "supply" else [float("nan")] * 2
        # the threads: the source thread's figure holds the supply's own work (its process figure)
        src, send = med(name, "src") - supply_proc, med(name, "send")
        tshare = [x * RATES[-1] / core_net * 100 if tool else float("nan") for x in (src, send)]
        ceil = core_net / net if name != "supply" and net > 0 else float("nan")
        probs = sorted({p for r in rs for p in r["problems"]})
        out.append(f"| {name} | {rs[0].get('path', '-')} | {fmt(m)} ({', '.join(fmt(v) for v in vals)}; "
                   f"{fmt(spread)}%) | {fmt(med(name, 'system'))} | {fmt(med(name, 'outside'))} | "
                   f"{fmt(med(name, 'notidle'))} | "
                   f"{fmt(med(name, 'src'))} | {fmt(med(name, 'send'))} | {fmt(net)} | {fmt(ratio, 2)} | "
                   f"{fmt(share[0], 0)}% | {fmt(share[1], 0)}% | {fmt(tshare[0], 0)}% | {fmt(tshare[1], 0)}% | "
                   f"{fmt(ceil)} MS/s | {fmt(med(name, 'send') * med(name, 'spd'), 0)} | "
                   f"{'; '.join(probs) or 'none'} |")
    out.append("\nSpread of the two runs: " + ("all within %.0f%%" % SMALL if not big else
               "NOT small (above %.0f%%): %s" % (SMALL, ", ".join(big))) + ".")
    out.append(server_runs(runs["iiod"]))
    if "tcp-send" in runs and "tcp-convert" in runs:
        out.append(calibration(runs, med, supply))
    return "\n".join(out)


def calibration(runs, med, supply):
    """Cycles per instruction from the seed's two anchors, and each zcs-send cell's projected
    share of a 667 MHz core per thread, as a range (a projection, not a measurement)."""
    iiod = [r["process"] for r in runs["iiod"]]
    # the TCP anchor: the send loop's instructions a byte less its conversion (zc-stream converted
    # on its other thread); bench_send_tool packs p12, 3 bytes a pair.  The whole system's
    # figure (not idle: with the ACKs' and the timers' work, which on the board lands on CPU0)
    # gives the lower bound of the cycles an instruction, the program's own the upper (the
    # ACK-clocked sending is charged to whichever task is current, as for iiod)
    send_all = (med("tcp-send", "notidle") - med("tcp-convert", "notidle")) / 3
    send_own = (med("tcp-send", "process") - med("tcp-convert", "process")) / 3
    cpi_copy = [CORE_HZ / (m * 1e6 * i) for m in IIOD_MSPS for i in (min(iiod), max(iiod))]
    cpi_zc = [CORE_HZ / (b * 1e6 * x) for b in TCP_MBPS for x in (send_all, send_own) if x > 0]
    if not cpi_zc:
        return "\n(no positive TCP anchor: no calibration)"
    copy = (min(cpi_copy), max(cpi_copy))
    # The TCP anchor bounds, it does not pin: the seed's own Python sender reached 75 MB/s where
    # zc-stream stopped at 42.7 (a limit the seed left unexplained), and no core spent more
    # cycles an instruction on the kernel's send path than 75 MB/s leaves.  The send thread (the
    # kernel's send path, no uncached reads) is projected at that bound, the source thread at
    # iiod's range (it reads the DMA block as iiod does)
    net = tuple(sorted(CORE_HZ / (PY_TCP_MBPS * 1e6 * x) for x in (send_all, send_own) if x > 0))
    out = ["\n#### Calibration to the seed's board (a projection)\n",
           f"- iiod, i16: {fmt(min(iiod))}-{fmt(max(iiod))} instructions a sample here; the board ran it at "
           f"{IIOD_MSPS[0]:g}-{IIOD_MSPS[1]:g} MS/s with one 667 MHz core at 100%: "
           f"{fmt(copy[0], 2)}-{fmt(copy[1], 2)} cycles an instruction (copy-bound: uncached DMA reads, "
           "two copies).",
           f"- TCP send loop: {fmt(med('tcp-send', 'notidle') / 3, 2)} instructions a byte on the whole "
           f"system ({fmt(med('tcp-send', 'process') / 3, 2)} its own), "
           f"{fmt(med('tcp-convert', 'process') / 3, 2)} of them the conversion; the sending alone "
           f"{fmt(send_all, 2)} a byte ({fmt(send_own, 2)} on the program).  The seed's Python TCP "
           f"sender reached {PY_TCP_MBPS:g} MB/s on the same board and link: at most "
           f"{fmt(net[0], 2)}-{fmt(net[-1], 2)} cycles an instruction for the kernel's send path.  "
           f"zc-stream -8 stopped at {TCP_MBPS[0]:g}-{TCP_MBPS[1]:g} MB/s, which would be "
           f"{fmt(min(cpi_zc), 2)}-{fmt(max(cpi_zc), 2)} were its core the limit: by the Python "
           "sender, it was not.",
           f"- Projection below: the source thread (it reads the DMA block, as iiod does) at "
           f"{fmt(copy[0], 2)}-{fmt(copy[1], 2)} cycles an instruction, less the supply's emulated FIFO "
           f"read; the send threads (the kernel's send path) at the bound, {fmt(net[0], 2)}-"
           f"{fmt(net[-1], 2)}.\n",
           "With `--send-threads 2` (cells `-2t`) the second send thread shares the source "
           "thread's core (CPU0) and takes the share of the trains that balances the two cores' "
           "load (counted here at half the trains, which a one-CPU count cannot balance): `src` is "
           "the source thread plus the second send thread, `send` the first send thread's, each "
           "core's share projected at that balance, the second's share of the trains in brackets "
           "(the first keeps what only it does: the rest of the sealing, the parity).\n",
           "| cell | src thread / sample | send thread / sample | src at 20 MS/s | send at 20 MS/s "
           "| src at 30.72 | send at 30.72 | ceiling, src thread | ceiling, send thread |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    sp = med("supply", "process") if "supply" in runs else 0.0
    for name in sorted(runs):
        if name in ("iiod", "supply") or name.startswith(("tcp-", "iiod")):
            continue
        src, send = med(name, "src") - sp, med(name, "send")
        if src != src or send != send:
            continue
        send2 = med(name, "send2")

        def share(x, rate, cpi, x2=0.0, cpi2=None):
            # x at cpi, plus x2 (the second send thread on the same core) at cpi2
            lo = (x * cpi[0] + x2 * (cpi2 or cpi)[0]) * rate * 1e6 / CORE_HZ * 100
            hi = (x * cpi[1] + x2 * (cpi2 or cpi)[1]) * rate * 1e6 / CORE_HZ * 100
            return f"{lo:.0f}-{hi:.0f}%"
        if send2 == send2:
            # counted at half the trains: the trains' send work is twice the second's, the
            # first's own the rest.  The share x of trains on CPU0 that evens the cycles, at
            # each end of the calibration's range (clamped: a core may take none or all)
            trains, own = 2 * send2, send - send2
            xs = []
            for k in (0, 1):
                x = ((own + trains) * net[k] - src * copy[k]) / (2 * trains * net[k])
                xs.append(min(1.0, max(0.0, x)))

            def core(rate, cpu0):
                v = []
                for k in (0, 1):
                    c0 = src * copy[k] + xs[k] * trains * net[k]
                    c1 = (own + (1 - xs[k]) * trains) * net[k]
                    v.append((c0 if cpu0 else c1) * rate * 1e6 / CORE_HZ * 100)
                return f"{min(v):.0f}-{max(v):.0f}%"
            out.append(f"| {name} (second: {min(xs) * 100:.0f}-{max(xs) * 100:.0f}% of trains) | "
                       f"{fmt(src)} + {fmt(send2)} | {fmt(send)} | "
                       f"{core(20, True)} | {core(20, False)} | "
                       f"{core(30.72, True)} | {core(30.72, False)} | - | - |")
            continue

        def ceil(x, cpi):
            return f"{CORE_HZ / (x * cpi[1]) / 1e6:.1f}-{CORE_HZ / (x * cpi[0]) / 1e6:.1f} MS/s"
        out.append(f"| {name} | {fmt(src)} | {fmt(send)} | {share(src, 20, copy)} | {share(send, 20, net)} | "
                   f"{share(src, 30.72, copy)} | {share(send, 30.72, net)} | {ceil(src, copy)} | {ceil(send, net)} |")
    return "\n".join(out)


def corr(xs, ys):
    """Pearson's r of two lists, nan when either does not vary or is short."""
    p = [(x, y) for x, y in zip(xs, ys) if x == x and y == y]
    if len(p) < 3:
        return float("nan")
    mx, my = statistics.fmean(x for x, _ in p), statistics.fmean(y for _, y in p)
    sxy = sum((x - mx) * (y - my) for x, y in p)
    sx = sum((x - mx) ** 2 for x, _ in p) ** 0.5
    sy = sum((y - my) ** 2 for _, y in p) ** 0.5
    return sxy / (sx * sy) if sx > 0 and sy > 0 else float("nan")


def server_runs(rs):
    """iiod run by run: its instructions a sample beside the guest's event counts per 1000 pairs,
    and how far each count follows each event (Pearson's r over the runs)."""
    keys = [k for k, _ in EVENTS if any(r["ev"][k] == r["ev"][k] for r in rs)]
    if not keys:
        return ""
    label = dict(EVENTS)
    out = ["\niiod run by run (instructions a sample; events per 1000 pairs, the difference of the "
           "two sample counts as for the instructions):\n",
           "| run | host's load, client's wall (long run) | process | of which user | system | not idle | outside | " +
           " | ".join(label[k] for k in keys) + " |",
           "|---|---|---:|---:|---:|---:|---:|" + "---:|" * len(keys)]
    for i, r in enumerate(rs, 1):
        out.append(f"| {i} | {r['host']} | {fmt(r['process'])} | {fmt(r['user'])} | {fmt(r['system'])} | {fmt(r['notidle'])} | "
                   f"{fmt(r['outside'])} | " + " | ".join(fmt(r['ev'][k]) for k in keys) + " |")
    for basis in ("process", "user", "system", "notidle"):
        v = [r[basis] for r in rs]
        out.append(f"| r with {basis} | | | | | | {fmt(corr(v, [r['outside'] for r in rs]), 2)} | " +
                   " | ".join(fmt(corr(v, [r['ev'][k] for r in rs]), 2) for k in keys) + " |")
    for basis in ("process", "system", "notidle"):
        v = sorted(r[basis] for r in rs)
        if v:
            out.append(f"\niiod {basis}: median {fmt(statistics.median(v))}, {fmt(v[0])} to {fmt(v[-1])} "
                       f"over {len(v)} runs.")
    return "\n".join(out)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("Instructions per sample (pair) on the guest: the difference of two runs of each cell "
          "(N and 3N pairs) over 2N; median of the repetitions.")
    if sys.argv[1] == "--merge":
        print(table(sys.argv[2:]))
        return
    for d in sys.argv[1:]:
        try:
            print(table(d))
        except OSError as e:
            print(f"\n{d}: {e}")


if __name__ == "__main__":
    main()
