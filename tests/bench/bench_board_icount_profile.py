#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Where the instructions of bench_board_icount.sh's cells go: the per-function profile of its
profile mode (ZCS_ICOUNT_PROFILE=1), read from the guest's report.

usage: bench_board_icount_profile.py DIR

DIR/report.txt holds, besides the cells' @cell lines:
  @kallsyms B64      /proc/kallsyms of the guest, gzip'd, in base64 lines (once a boot)
  @prof CELL REP B64 what icount_sampler wrote over the run REP (RUN:PAIRS) of CELL, the same way
DIR/profile-files.txt maps the guest's paths of the programs and libraries to the host's copies
("GUEST HOST" lines), whose symbols name the user-space addresses.

The sampler's output, one record a line:
  # icount_sampler period_ns=P
  comm PID TID EXEC NAME          a task's name (EXEC 1: set by exec)
  fork PID PPID TID PTID          a task or thread made (PID = TID for a process)
  exit PID PPID TID PTID
  mmap PID TID START LEN PGOFF FILE   an executable mapping (hex)
  task PID TID NAME               the task's name when the run ended (tasks older than the run)
  sample PID TID IP COUNT         COUNT samples at IP (hex) in that thread
  total period_ns=P samples=S unplaced=U lost=L throttled=T unthrottled=T other_records=O

Each sample stands for P instructions (the guest's clock under -icount shift=0).  A cell runs at
two sample counts with the sampler; a place's figure per sample is the difference of its sample
counts over the difference of the pairs (start-up cancels as in the count tables), its share is
that difference over the program's, and its instructions a sample are the share times the count
of the same cell without the sampler (the count tables' "process" figure, from the same boot).
"""
import base64
import bisect
import collections
import gzip
import os
import re
import statistics
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_board_icount_table as counts  # noqa: E402

PROGRAMS = ("zcs-send", "iiod", "bench_iio_floor", "bench_icount_lo")  # comm is 15 characters
FEEDER = "feed_iq"
KERNEL_REACH = 1 << 20  # no kernel function is a megabyte long
SAMPLER = "icount_sampler"


class Run:
    """One run of the sampler, as it reported it."""

    def __init__(self):
        self.period = 0
        self.samples = collections.Counter()  # (pid, tid, ip) -> count
        self.names = {}  # tid -> name (last exec comm or the name at the end)
        self.exec_names = {}  # pid -> name set by its last exec
        self.forks = []  # (pid, ppid, tid, ptid) in the order the kernel reported them
        self.maps = collections.defaultdict(list)  # pid -> [(start, end, pgoff, file)], in order
        self.totals = {}


def parse_run(text):
    r = Run()
    for line in text.splitlines():
        w = line.split()
        if not w:
            continue
        k = w[0]
        try:
            if k == "#" and len(w) >= 3 and w[2].startswith("period_ns="):
                r.period = int(w[2].split("=", 1)[1])
            elif k == "sample" and len(w) == 5:
                r.samples[(int(w[1]), int(w[2]), int(w[3], 16))] += int(w[4])
            elif k == "comm" and len(w) >= 5:
                pid, tid, name = int(w[1]), int(w[2]), " ".join(w[4:])
                r.names[tid] = name
                if w[3] == "1":
                    r.exec_names[pid] = name
            elif k == "task" and len(w) >= 4:
                r.names.setdefault(int(w[2]), " ".join(w[3:]))
            elif k == "fork" and len(w) == 5:
                r.forks.append(tuple(int(x) for x in w[1:]))
            elif k == "mmap" and len(w) >= 7:
                start, length = int(w[3], 16), int(w[4], 16)
                r.maps[int(w[1])].append((start, start + length, int(w[5], 16), " ".join(w[6:])))
            elif k == "total":
                r.totals = {a: int(b) for a, b in (x.split("=", 1) for x in w[1:] if "=" in x)}
                r.period = r.totals.get("period_ns", r.period)
        except ValueError:
            continue  # a line cut short by the serial port: its samples are lost, not misread
    return r


class Symbols:
    """Sorted (address, name) of functions; name_at gives the one an address lies in."""

    def __init__(self, pairs):
        pairs = sorted(pairs)
        self.addr = [a for a, _ in pairs]
        self.name = [n for _, n in pairs]

    def name_at(self, ip, reach=None):
        """The function IP lies in: the last one at or below it, if within REACH bytes (an
        address past the last function, the vectors page of an ARM kernel, is no function's)."""
        i = bisect.bisect_right(self.addr, ip) - 1
        if i < 0 or (reach is not None and ip - self.addr[i] > reach):
            return None
        return self.name[i]


def parse_kallsyms(text):
    """/proc/kallsyms: text symbols only ("name" or "name [module]"); None for an empty file."""
    pairs = []
    for line in text.splitlines():
        w = line.split()
        if len(w) >= 3 and w[1] in "tTwW":
            name = w[2] + (" " + w[3] if len(w) > 3 else "")
            pairs.append((int(w[0], 16), name))
    pairs = [p for p in pairs if p[0]]  # a kernel hiding its addresses prints zeros
    return Symbols(pairs) if pairs else None


class Elf:
    """A host copy of a guest's program or library: its load segments and function symbols,
    read with binutils (the ARM ones for an ARM file).  Source files where the file has them."""

    def __init__(self, path, tools="arm-linux-gnueabihf-", lines=False):
        self.path = path
        self.loads = []  # (offset, vaddr, filesz)
        out = subprocess.run([tools + "readelf", "-lW", path], capture_output=True, text=True).stdout
        for line in out.splitlines():
            w = line.split()
            if w and w[0] == "LOAD":
                self.loads.append((int(w[1], 16), int(w[2], 16), int(w[4], 16)))
        self.src = {}
        pairs = self._nm(tools, ["-n", "--defined-only"] + (["-l"] if lines else []))
        if not pairs:
            pairs = self._nm(tools, ["-D", "-n", "--defined-only"])
        self.syms = Symbols(pairs)

    def _nm(self, tools, args):
        out = subprocess.run([tools + "nm"] + args + [self.path], capture_output=True, text=True).stdout
        pairs = []
        for line in out.splitlines():
            w = line.split(None, 3)
            if len(w) >= 3 and w[1] in "tTwWiI":
                a = int(w[0], 16) & ~1  # Thumb functions have bit 0 set
                pairs.append((a, w[2]))
                if len(w) == 4:
                    self.src[w[2]] = w[3].split("\t")[-1]
        return pairs

    def vaddr(self, off):
        for o, v, n in self.loads:
            if o <= off < o + n:
                return off - o + v
        return None


def user_place(run, pid, ip, elf_of):
    """(object, function) of a user address of PID: the latest executable mapping that holds it
    (an exec replaces the earlier ones), else its parent's (a child before its exec)."""
    seen = set()
    while pid not in seen:
        seen.add(pid)
        for start, end, pgoff, path in reversed(run.maps.get(pid, [])):
            if start <= ip < end:
                obj = os.path.basename(path)
                elf = elf_of(path)
                if elf is None:
                    return obj, "?"
                v = elf.vaddr(ip - start + pgoff)
                name = elf.syms.name_at(v) if v is not None else None
                return obj, name or "?"
        parent = [f[1] for f in run.forks if f[0] == pid and f[2] == pid]
        if not parent:
            break
        pid = parent[0]
    return "?", "?"


# The NIC driver's own group, also where a virtio module's symbol names it
NIC_GROUP = "NIC xmit and completions (virtio-net, macb)"
# The kernel's functions by what they do, first match wins (names of Linux 6.1; a pattern
# covers the function's own helpers).  Irq-off code is seen where interrupts come back on
# (the skid): the hard-irq handlers mostly under "irq", the scheduler's switch under "scheduler".
KERNEL_GROUPS = [
    ("perf sampling (the sampler's own)", r"perf_|^__perf"),
    ("irqs back on after a lock (the irq-off code before it)",
     r"^_raw_spin_unlock_irq|^_raw_read_unlock_irq|^_raw_write_unlock_irq|^raw_spin_rq_unlock_irq"),
    ("io_uring", r"^_*io_(?!schedule)|^io_uring|^tctx_|^task_work"),
    ("zero-copy notifications", r"zerocopy|zcopy|^io_notif|^mm_account_pinned|ubuf|msg_zerocopy"),
    (NIC_GROUP, r"virtnet|start_xmit|free_old_xmit|virtqueue|vring|^vm_notify|^macb_|^gem_|"
                r"^vm_interrupt|\[virtio|^virtio_"),
    ("UDP/IP output", r"^_*udp|^_*ip_|^_*ip4|^_*inet_|^dst_|^neigh|^_*fib|^rt_|^ip_route|^__mkroute|"
                      r"^sk_dst|^raw_v4|^nf_|^_*nf_|icmp"),
    ("TCP", r"^_*tcp"),
    ("device queue and xmit", r"dev_queue_xmit|dev_hard_start_xmit|sch_direct|qdisc|pfifo|"
                              r"validate_xmit|netif_|^_*dev_|^net_tx|^eth_|^skb_tx|netdev_"),
    ("softirq", r"softirq|^net_rx_action|^napi|^_*napi|^tasklet|^irq_exit|^run_ksoftirqd|^gro_|"
                r"^_*netif_receive|^process_backlog|^_*napi_poll"),
    ("socket layer and skb", r"^_*sock_|^_*sys_sendmsg|^_*sys_sendto|^sys_send|^_*sys_recv|^_*sk_|"
                             r"skb|^_*alloc_skb|^csum|^_*copy_from_iter|^_*copy_to_iter|"
                             r"^do_csum|^csum_partial|^skb_page_frag|^page_frag"),
    ("kernel memset and memcpy (mmioset, mmiocpy)", r"^mmioset$|^mmiocpy$|^__memset|^__memzero"),
    ("pipe (the emulation's FIFO)", r"^pipe_|^anon_pipe|^_*pipe_|^fifo_|^wait_for_partner"),
    ("user copies", r"copy_to_user|copy_from_user|^arm_copy|^__copy_|^_copy_|^copy_page|^__memzero|"
                    r"^memcpy|^memmove|^memset|^mmiocpy|^__memcpy|^copy_|^_*clear_user"),
    ("irq", r"irq|^gic_|^__irq|^twd_|^handle_|^do_IRQ|^hrtimer_interrupt|^__hrtimer_run|^tick_|"
            r"^ipi_|^__handle_domain|^arch_timer|^clockevents"),
    ("scheduler", r"schedule|^__switch_to|^switch_to|^finish_task_switch|^pick_next|^_*enqueue|"
                  r"^_*dequeue|^update_|^try_to_wake_up|^ttwu|^_*wake_up|^select_task|^check_preempt|"
                  r"^set_next|^put_prev|^_*sched|^resched|^place_entity|^reweight|^cpuacct|^sched_|"
                  r"^__calc_delta|^account_|^task_tick|^psi_|^cgroup|^rcu_note|^idle_|^wakeup_|^prepare_task|"
                  r"^load_balance|^newidle|^nohz|^cpufreq|^rq_|^raw_spin_rq"),
    ("futex and waits", r"futex|^_*wait|^prepare_to_wait|^finish_wait|^add_wait|^remove_wait|"
                        r"^autoremove|^woken_wake|^do_nanosleep|^hrtimer_nanosleep|^_*poll|^do_sys_poll|"
                        r"^_*schedule_hrtimeout|^ep_|^do_epoll|^eventfd|^signal|^_*send_signal"),
    ("time and timers", r"hrtimer|^ktime|^_*clock|^timekeeping|^read_current|^__getnstimeofday|"
                        r"^posix|^do_clock|^jiffies|^timer|^_*mod_timer|^run_timer|^sp804|^arm_timer|"
                        r"^get_cycles|^sched_clock|^cyc"),
    ("memory (pages, slab, pinning)", r"page|^kmem|^kmalloc|^_*kfree|^kfree|slab|^slub|^mm_|^_*mm|^vm_|"
                                      r"^_*alloc|^free_|^_*get_user_pages|^gup|^follow_|^do_page_fault|"
                                      r"^do_DataAbort|^do_translation|^handle_mm_fault|^handle_pte|^lru|"
                                      r"^folio|^_*folio|^mlock|^account_locked|^percpu|^pcpu|^vma"),
    ("system call entry and return", r"^vector_swi|^ret_fast_syscall|^ret_to_user|^ret_slow|^__sys_trace|"
                                     r"^local_restart|^sys_|^__sys_|^__se_sys|^__do_sys|^do_work_pending|"
                                     r"^slow_work_pending|^syscall|^arm_syscall|^__ret_fast|^el0|"
                                     r"^vfp_|^do_vfp|^iwmmxt|^__und_usr|^__dabt_usr|^__pabt_usr|"
                                     r"^no_work_pending|^restore_user_regs|^security_|^fput|^fdget|^_*fget|"
                                     r"^__fdget|^_*fsnotify|^rw_verify"),
    ("file read and write (VFS)", r"^vfs_|^ksys_|^new_sync|^do_iter|^import_iovec|^_*import_single|"
                                  r"^iov_iter|^rw_copy|^file_|^generic_"),
]
KERNEL_RES = [(g, re.compile(p)) for g, p in KERNEL_GROUPS]
IDLE_RE = re.compile(r"^(default_idle_call|arch_cpu_idle|cpu_idle_poll|do_idle|cpu_startup_entry|"
                     r"cpuidle_|v7_cpu_idle|cpu_v7_do_idle|arch_cpu_idle_exit|arch_cpu_idle_enter)")


KTHREAD_RE = re.compile(r"^(ksoftirqd|kworker|rcu|migration|kthreadd|cpuhp|irq/|khungtaskd|kcompactd|"
                        r"hwrng|writeback|oom_reaper|kswapd|kdevtmpfs|kauditd|watchdog|kblockd)")


def kernel_group(fn):
    base = fn.split(" ")[0]
    if fn.endswith("]") and "[virtio" in fn:
        return NIC_GROUP
    for g, rx in KERNEL_RES:
        if rx.search(base):
            return g
    return "kernel, other"


# zcs-send's code by the source file its debug information names (the armhf build keeps it);
# what it linked in statically (OpenSSL's libcrypto, libsodium, jansson) has none, by name
ZCS_SRC_GROUPS = [
    ("zcs: pack (formats/)", r"/formats/"),
    ("zcs: tag glue (common/wire/auth.c)", r"/common/wire/auth\.c"),
    ("zcs: erasure code", r"/common/wire/(fec|gf256)"),
    ("zcs: send path and trains (sender/sendpath/)", r"/sender/sendpath/"),
    ("zcs: pipeline (sender/pipeline/)", r"/sender/pipeline/"),
    ("zcs: source (sender/source/)", r"/sender/source/"),
    ("zcs: other", r"."),
]
STATIC_LIB_GROUPS = [
    ("tag: Poly1305 (OpenSSL, NEON)", r"poly1305|Poly1305"),
    ("tag: ChaCha20 (one-time key)", r"chacha|ChaCha|hchacha|crypto_stream|crypto_core"),
    ("tag: OpenSSL EVP and plumbing", r"^EVP_|^evp_|^ossl_|^OSSL_|^CRYPTO_|^OPENSSL_|^ERR_|^mac_|"
                                      r"^poly1305_|^OBJ_|^ossl|^int_|^CRYPTO|^openssl_|^provider"),
    ("libsodium, other", r"^sodium|^crypto_|^_crypto|^randombytes"),
    ("jansson", r"^json_|^jsonp_|^hashtable|^strbuffer|^utf8"),
]


def user_group(obj, fn, src):
    if obj == "zcs-send":
        if src:
            for g, p in ZCS_SRC_GROUPS:
                if re.search(p, src):
                    return g
        for g, p in STATIC_LIB_GROUPS:
            if re.search(p, fn):
                return g
        return "zcs-send, linked in (other)"
    if obj.startswith("libc.so"):
        return "libc: " + ("memcpy/memmove/memset" if re.match(r"_*(mem|__aeabi_mem)", fn) else "other")
    if obj.startswith("libiio"):
        return "libiio"
    if obj.startswith("liburing"):
        return "liburing"
    if obj.startswith("ld-linux"):
        return "dynamic loader"
    if obj == "?":
        return "user, unknown"
    return obj


def thread_roles(run, pid):
    """The roles of PID's threads by the order they were made: zcs-send makes its send thread,
    then its source thread (sender/pipeline/pipeline.c); other programs' threads are numbered."""
    name = run.exec_names.get(pid) or run.names.get(pid, "")
    made = [f[2] for f in run.forks if f[0] == pid and f[2] != pid]
    if name == "zcs-send":
        labels = ["send thread", "source thread"]
    else:
        labels = []
    roles = {pid: "main thread"}
    for i, tid in enumerate(made):
        roles[tid] = labels[i] if i < len(labels) else f"thread {i + 1}"
    return roles


def attribute(run, ksyms, elf_of):
    """Every sample of RUN as a Counter of (owner, thread, group, function) -> samples.
    owner: the cell's program ("program"), the feeder, the sampler, the idle task ("idle" when
    in the idle loop, else "irq and softirq on idle"), kernel threads, or "other tasks"."""
    kbase = ksyms.addr[0] if ksyms and ksyms.addr else 0xbf000000
    progs = {pid for pid, name in run.exec_names.items() if name in PROGRAMS}
    # a thread's process: the fork that made it
    proc_of = {f[2]: f[0] for f in run.forks}
    roles = {}
    for pid in progs:
        roles.update(thread_roles(run, pid))
    out = collections.Counter()
    for (pid, tid, ip), n in run.samples.items():
        if ip >= kbase:
            fn = (ksyms.name_at(ip, KERNEL_REACH) if ksyms else None) or "?"
            group = kernel_group(fn)
        else:
            obj, fn = user_place(run, pid, ip, elf_of)
            src = ""
            if obj != "?":
                src = elf_of.src(obj, fn) if hasattr(elf_of, "src") else ""
            group = user_group(obj, fn, src)
        name = run.exec_names.get(pid) or run.names.get(pid) or run.names.get(tid) or f"pid {pid}"
        if pid in progs or proc_of.get(tid) in progs:
            owner, thread = "program:" + name, roles.get(tid, "thread ?")
        elif pid == 0 and IDLE_RE.match(fn):
            owner, thread, group = "idle", "-", "idle loop"
        elif pid == 0:
            owner, thread = "irq and softirq on idle", "-"
        elif name == FEEDER:
            owner, thread = "feeder (feed_iq, charged to no one)", "-"
        elif name == SAMPLER:
            owner, thread = "the sampler (icount_sampler)", "-"
        elif KTHREAD_RE.match(name):
            owner, thread = "kernel threads", name
        else:
            owner, thread = "other tasks (the guest's script, bench_send_tool, timeout)", name
        out[(owner, thread, group, fn)] += n
    return out


def difference(short, long_):
    """long - short per key; keys of either."""
    keys = set(short) | set(long_)
    return {k: long_.get(k, 0) - short.get(k, 0) for k in keys}


def blobs(lines):
    """@kallsyms and @prof lines of a report -> (kallsyms text, {(cell, rep): text})."""
    ks, prof = [], collections.defaultdict(list)
    for line in lines:
        line = line.rstrip("\r\n")
        if line.startswith("@kallsyms "):
            ks.append(line[10:].strip())
        elif line.startswith("@prof "):
            w = line.split()
            if len(w) == 4:
                prof[(w[1], w[2])].append(w[3])

    def text(chunks):
        try:
            return gzip.decompress(base64.b64decode("".join(chunks))).decode("utf-8", "replace")
        except (ValueError, OSError, EOFError, zlib.error):
            return ""
    return text(ks) if ks else "", {k: text(v) for k, v in prof.items()}


class ElfCache:
    def __init__(self, manifest):
        self.files = manifest
        self.cache = {}
        self.by_base = {}

    def __call__(self, guest_path):
        host = self.files.get(guest_path) or self.files.get(os.path.basename(guest_path))
        if not host or not os.path.exists(host):
            return None
        if host not in self.cache:
            self.cache[host] = Elf(host, lines=os.path.basename(host) == "zcs-send")
            self.by_base[os.path.basename(guest_path)] = self.cache[host]
        return self.cache[host]

    def src(self, obj, fn):
        e = self.by_base.get(obj)
        return e.src.get(fn, "") if e else ""


def read_manifest(path):
    files = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                w = line.split()
                if len(w) == 2:
                    files[w[0]] = w[1]
                    files.setdefault(os.path.basename(w[0]), w[1])
    except OSError:
        pass
    return files


def fmt(x, p=1):
    return "-" if x != x else f"{x:.{p}f}"


def cell_tables(cell, runs, ksyms, elf_of, counted, datagrams):
    """The tables of one profiled cell: RUNS {rep: text}, COUNTED: its process figure a sample
    without the sampler (nan when the boot did not count it), DATAGRAMS: datagrams a pair."""
    parsed = {}
    for rep, text in runs.items():
        _, _, n = rep.partition(":")
        parsed[int(n)] = parse_run(text)
    if len(parsed) < 2:
        return f"\n{cell}: one run only ({', '.join(runs)}): no difference\n"
    n1, n2 = min(parsed), max(parsed)
    r1, r2 = parsed[n1], parsed[n2]
    # the sampler's period is in ns of the guest's clock: instructions, once divided by its
    # ns an instruction (1.2 on the Zynq machine)
    p = round((r2.period or 1) / counts.SCALE)
    a1, a2 = attribute(r1, ksyms, elf_of), attribute(r2, ksyms, elf_of)
    d = difference(a1, a2)
    dn = n2 - n1
    prog = {k: v for k, v in d.items() if k[0].startswith("program:")}
    prog_total = sum(prog.values())
    direct = prog_total * p / dn
    scale = counted / prog_total if prog_total > 0 and counted == counted else float("nan")
    name = next((k[0][8:] for k in prog), "?")
    out = [f"\n#### {cell}: {name}\n",
           f"Runs of {n1} and {n2} pairs, a sample every {p} instructions; {prog_total} samples of the "
           f"program in the difference ({direct:.2f} instructions a sample by the samples alone, "
           f"{fmt(counted, 2)} counted without the sampler: the instructions below are each share x "
           f"that count).  Sampler: {r1.totals.get('samples', '?')} and {r2.totals.get('samples', '?')} "
           f"samples in all, lost {r1.totals.get('lost', '?')} and {r2.totals.get('lost', '?')}, "
           f"throttled {r1.totals.get('throttled', '?')} and {r2.totals.get('throttled', '?')}, "
           f"unplaced {r1.totals.get('unplaced', '?')} and {r2.totals.get('unplaced', '?')}.\n"]
    per_dg = 1 / datagrams if datagrams and datagrams == datagrams else float("nan")
    out.append("| thread | group | % of the program | instructions a sample | a datagram | "
               "its functions (% of the program) |")
    out.append("|---|---|---:|---:|---:|---|")
    groups = collections.defaultdict(collections.Counter)
    for (owner, thread, group, fn), v in prog.items():
        groups[(thread, group)][fn] += v
    threads = collections.Counter()
    for (thread, _), fns in groups.items():
        threads[thread] += sum(fns.values())
    order = {"source thread": 0, "send thread": 1, "main thread": 2}
    for thread, tv in sorted(threads.items(), key=lambda x: (order.get(x[0], 3), -x[1])):
        rows = sorted(((g, fns) for (t, g), fns in groups.items() if t == thread),
                      key=lambda x: -sum(x[1].values()))
        for g, fns in rows:
            v = sum(fns.values())
            if prog_total <= 0 or abs(v) / prog_total < 0.001:
                continue
            share = v / prog_total
            top = ", ".join(f"{f} {c / prog_total * 100:.1f}" for f, c in fns.most_common(5)
                            if c / prog_total >= 0.002)
            out.append(f"| {thread} | {g} | {share * 100:.1f} | {fmt(v * scale, 2)} | "
                       f"{fmt(v * scale * per_dg, 0)} | {top} |")
        share = tv / prog_total if prog_total > 0 else float("nan")
        out.append(f"| **{thread}** | **all** | **{share * 100:.1f}** | **{fmt(tv * scale, 2)}** | "
                   f"**{fmt(tv * scale * per_dg, 0)}** | |")
    rest = collections.defaultdict(collections.Counter)
    for (owner, thread, group, fn), v in d.items():
        if not owner.startswith("program:"):
            rest[(owner, group)][fn] += v
    out.append("\nOutside the program, over the same difference (instructions a sample from the samples "
               "alone, each P instructions; a negative figure is the noise of the two runs):\n")
    out.append("| who | group | instructions a sample | its functions (instructions a sample) |")
    out.append("|---|---|---:|---|")
    for (owner, g), fns in sorted(rest.items(), key=lambda x: (x[0][0], -sum(x[1].values()))):
        v = sum(fns.values())
        if abs(v * p / dn) < 0.01:
            continue
        top = ", ".join(f"{f} {c * p / dn:.2f}" for f, c in fns.most_common(4) if abs(c * p / dn) >= 0.01)
        out.append(f"| {owner} | {g} | {v * p / dn:.2f} | {top} |")
    return "\n".join(out)


def counted_figures(d):
    """From the count tables' own reading of the report: each cell's process figure a sample
    (median of its runs) and datagrams a pair."""
    _, cells, _ = counts.parse(d)
    # the guest's clock (1.2 ns an instruction on the Zynq machine): the figures as instructions
    counts.set_scale(cells)
    fig, dg = {}, {}
    for name, byrun in cells.items():
        if name.startswith("selfcheck"):
            continue
        vals, dgs = [], []
        for cs in byrun.values():
            cs = sorted(cs, key=lambda c: c["n"])
            if len(cs) >= 2 and cs[-1]["n"] > cs[0]["n"]:
                vals.append(counts.per_run(cs[0], cs[-1])["process"])
                j1, j2 = cs[0]["json"], cs[-1]["json"]
                if j1 and j2:
                    dgs.append((j2.get("datagrams", 0) - j1.get("datagrams", 0)) / (cs[-1]["n"] - cs[0]["n"]))
        if vals:
            fig[name] = statistics.median(vals)
        if dgs:
            dg[name] = statistics.median(dgs)
    return fig, dg, cells


def sampler_cost(fig, cells):
    """What the sampler cost: the loop of a known count with and without it, and each profiled
    cell's count with it against the same cell's without."""
    out = []
    loops = {}
    for k in ("selfcheck", "selfcheck-prof"):
        for c in [c for cs in cells.get(k, {}).values() for c in cs]:
            i, ns = counts.num(c, "instructions"), counts.num(c, "cpu_ns")
            if i > 0:
                loops.setdefault(k, []).append((i, ns))
    if "selfcheck-prof" in loops and "selfcheck" in loops:
        i, ns = loops["selfcheck-prof"][0]
        base = [x for x in loops["selfcheck"] if x[0] == i]
        if base:
            out.append(f"A loop of {i:.0f} instructions read {base[0][1]:.0f} ns of its own CPU without the "
                       f"sampler and {ns:.0f} with it: the sampler's interrupts cost "
                       f"{(ns - base[0][1]) / base[0][1] * 100:.2f}% of what they sample.")
    for name in sorted(fig):
        if name.endswith("-prof") and name[:-5] in fig:
            a, b = fig[name[:-5]], fig[name]
            out.append(f"{name[:-5]}: {a:.2f} instructions a sample without the sampler, {b:.2f} with it "
                       f"({(b - a) / a * 100:+.1f}%).")
    return "\n".join(out)


def loop_check(cell, runs, cells, ksyms, elf_of):
    """The self-check under the sampler: a loop of a known count of instructions should hold
    that count over P samples, all in the loop."""
    out = []
    for rep, text in sorted(runs.items()):
        r = parse_run(text)
        a = attribute(r, ksyms, elf_of)
        loop = sum(v for k, v in a.items() if k[0].startswith("program:"))
        c = next((c for c in cells.get(cell, {}).get(rep.split(":")[0], [])), None)
        i = counts.num(c, "instructions") if c else float("nan")
        want = i * counts.SCALE / r.period if r.period else float("nan")
        top = max(((k[3], v) for k, v in a.items() if k[0].startswith("program:")), key=lambda x: x[1],
                  default=("-", 0))
        out.append(f"Self-check under the sampler: a loop of {i:.0f} instructions drew {loop} samples of "
                   f"every {r.period} ns (expected {want:.0f}: {(loop / want - 1) * 100 if want else 0:+.2f}%); "
                   f"{top[1]} of them in {top[0]}; {r.totals.get('samples', '?')} samples in all over the "
                   f"window.")
    return "\n".join(out)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    with open(f"{d}/report.txt", encoding="utf-8", errors="replace") as f:
        ks_text, profs = blobs(f)
    ksyms = parse_kallsyms(ks_text)
    elf_of = ElfCache(read_manifest(f"{d}/profile-files.txt"))
    fig, dg, cells = counted_figures(d)
    kernel = "?"
    with open(f"{d}/report.txt", encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("@kernel "):
                kernel = line[8:].strip()
    print(f"\n### Where the instructions go (Linux {kernel})\n")
    if ksyms is None:
        print("No kallsyms in the report: kernel addresses are not named.")
    print(sampler_cost(fig, cells))
    bycell = collections.defaultdict(dict)
    for (cell, rep), text in profs.items():
        bycell[cell][rep.split(":", 1)[0] + ":" + rep.split(":", 1)[-1]] = text
    for cell in sorted(bycell):
        if cell.startswith("selfcheck"):
            print(loop_check(cell, bycell[cell], cells, ksyms, elf_of))
            continue
        base = cell[:-5] if cell.endswith("-prof") else cell
        byrun = collections.defaultdict(dict)
        for rep, text in bycell[cell].items():
            byrun[rep.split(":")[0]][rep] = text
        for run, runs in sorted(byrun.items()):
            print(cell_tables(f"{base} (run {run})", runs, ksyms, elf_of, fig.get(base, float("nan")),
                              dg.get(base, float("nan"))))


if __name__ == "__main__":
    main()
