#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The host's side of bench_board_icount.sh's profile mode (bench_board_icount_profile.py): the
sampler's records read back, addresses named from kallsyms and from a program's mappings, the
threads of zcs-send told apart, the owners of samples, the difference of two runs, and the
report's base64 blocks.  Built from made-up records: no guest, no ARM file."""
import base64
import gzip
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_board_icount_profile as prof  # noqa: E402

KALLSYMS = """\
c0100000 T vector_swi
c0100400 t ret_fast_syscall
c0200000 T udp_sendmsg
c0200800 T ip_finish_output2
c0300000 T io_issue_sqe
c0300100 T io_schedule
c0400000 T _raw_spin_unlock_irqrestore
c0500000 T pipe_read
c0600000 T default_idle_call
c0700000 d some_data
bf000100 t start_xmit\t[virtio_net]
"""


class FakeElf:
    """An ELF seen through its load segments and symbols, as Elf reads them."""

    def __init__(self, loads, pairs, src=None):
        self.loads = loads
        self.syms = prof.Symbols(pairs)
        self.src = src or {}

    def vaddr(self, off):
        return prof.Elf.vaddr(self, off)


ZCS = FakeElf([(0, 0, 0x20000), (0x20000, 0x30000, 0x1000)],
              [(0x1000, "pack_p12"), (0x2000, "zcs_pipeline_send_main"), (0x3000, "poly1305_blocks_neon")],
              {"pack_p12": "/src/build/../formats/convert_neon.c:65",
               "zcs_pipeline_send_main": "/src/build/../sender/pipeline/pipeline_send.c:10"})
LIBC = FakeElf([(0, 0, 0x100000)], [(0x500, "memcpy"), (0x900, "pthread_cond_wait")])


def elf_of(path):
    return {"/zcs/zcs-send": ZCS, "/lib/arm-linux-gnueabihf/libc.so.6": LIBC}.get(path)


elf_of.src = lambda obj, fn: ZCS.src.get(fn, "") if obj == "zcs-send" else ""

# a zcs-send run: timeout (pid 90) forks 100, which execs zcs-send; 100 makes its send thread
# (101), then its source thread (102); the feeder (50) and the sampler (60) are older than the run
RUN = """\
# icount_sampler period_ns=50000
fork 100 90 100 90
comm 100 100 1 zcs-send
mmap 90 90 10000 1000 0 /usr/bin/timeout
mmap 100 100 400000 20000 0 /zcs/zcs-send
mmap 100 100 600000 100000 0 /lib/arm-linux-gnueabihf/libc.so.6
fork 100 100 101 100
fork 100 100 102 100
task 50 50 feed_iq
task 60 60 icount_sampler
task 7 7 ksoftirqd/0
sample 100 102 401004 30
sample 100 102 401004 10
sample 100 101 403010 5
sample 100 101 c0200010 4
sample 100 102 600504 3
sample 100 102 c0500004 2
sample 0 0 c0600010 1000
sample 0 0 bf000104 7
sample 50 50 c0500004 9
sample 60 60 c0400000 1
sample 7 7 c0200810 2
sample 100 100 10010 1
sample 100 101 c0300104 1
sample 100 101 12345
total period_ns=50000 samples=1074 unplaced=0 lost=0 throttled=0 unthrottled=0 other_records=0
"""


class TestParse(unittest.TestCase):
    def test_records(self):
        r = prof.parse_run(RUN)
        self.assertEqual(r.period, 50000)
        self.assertEqual(r.exec_names, {100: "zcs-send"})
        self.assertEqual(r.samples[(100, 101, 0x403010)], 5)
        # the line cut short (no count) is dropped, not read as something else
        self.assertNotIn((100, 101, 0x12345), r.samples)
        self.assertEqual(r.maps[100][0], (0x400000, 0x420000, 0, "/zcs/zcs-send"))
        self.assertEqual(r.names[50], "feed_iq")
        self.assertEqual(r.totals["samples"], 1074)
        self.assertEqual(r.forks[1], (100, 100, 101, 100))

    def test_kallsyms(self):
        ks = prof.parse_kallsyms(KALLSYMS)
        self.assertEqual(ks.name_at(0xc0200000), "udp_sendmsg")
        self.assertEqual(ks.name_at(0xc02007ff), "udp_sendmsg")
        self.assertEqual(ks.name_at(0xc0200800), "ip_finish_output2")
        self.assertEqual(ks.name_at(0xbf000104), "start_xmit [virtio_net]")
        self.assertIsNone(ks.name_at(0xbe000000))
        self.assertIsNone(ks.name_at(0xffff0fe0, prof.KERNEL_REACH))  # the vectors page
        # data symbols are not functions
        self.assertEqual(ks.name_at(0xc0700010), "default_idle_call")
        self.assertIsNone(prof.parse_kallsyms("00000000 T hidden\n"))


class TestPlaces(unittest.TestCase):
    def test_user_place(self):
        r = prof.parse_run(RUN)
        self.assertEqual(prof.user_place(r, 100, 0x401004, elf_of), ("zcs-send", "pack_p12"))
        self.assertEqual(prof.user_place(r, 100, 0x600504, elf_of), ("libc.so.6", "memcpy"))
        # before its exec the child runs its parent's code
        self.assertEqual(prof.user_place(r, 100, 0x10010, elf_of)[0], "timeout")
        self.assertEqual(prof.user_place(r, 100, 0x900000, elf_of), ("?", "?"))

    def test_segments(self):
        # the second load segment: file offset 0x20010 is address 0x30010
        self.assertEqual(ZCS.vaddr(0x20010), 0x30010)
        self.assertIsNone(ZCS.vaddr(0x90000))

    def test_thread_roles(self):
        r = prof.parse_run(RUN)
        self.assertEqual(prof.thread_roles(r, 100),
                         {100: "main thread", 101: "send thread", 102: "source thread"})

    def test_groups(self):
        self.assertEqual(prof.kernel_group("udp_sendmsg"), "UDP/IP output")
        self.assertEqual(prof.kernel_group("io_issue_sqe"), "io_uring")
        self.assertNotEqual(prof.kernel_group("io_schedule"), "io_uring")
        self.assertEqual(prof.kernel_group("start_xmit [virtio_net]"), "NIC xmit and completions (virtio-net, macb)")
        self.assertEqual(prof.kernel_group("pipe_read"), "pipe (the emulation's FIFO)")
        self.assertTrue(prof.kernel_group("_raw_spin_unlock_irqrestore").startswith("irqs back on"))
        self.assertEqual(prof.kernel_group("vector_swi"), "system call entry and return")
        self.assertEqual(prof.kernel_group("__do_softirq"), "softirq")
        self.assertEqual(prof.kernel_group("msg_zerocopy_callback"), "zero-copy notifications")
        self.assertEqual(prof.kernel_group("no_such_thing_at_all"), "kernel, other")
        # the ARM kernel's memset is named by its first alias: not page or slab work
        self.assertTrue(prof.kernel_group("mmioset").startswith("kernel memset"))
        self.assertEqual(prof.user_group("zcs-send", "pack_p12", ZCS.src["pack_p12"]), "zcs: pack (formats/)")
        self.assertEqual(prof.user_group("zcs-send", "poly1305_blocks_neon", ""), "tag: Poly1305 (OpenSSL, NEON)")
        self.assertEqual(prof.user_group("zcs-send", "ChaCha20_neon", ""), "tag: ChaCha20 (one-time key)")
        self.assertEqual(prof.user_group("libc.so.6", "memcpy", ""), "libc: memcpy/memmove/memset")
        self.assertEqual(prof.user_group("libc.so.6", "pthread_cond_wait", ""), "libc: other")
        self.assertEqual(prof.user_group("libiio.so.0", "iio_buffer_refill", ""), "libiio")


class TestAttribute(unittest.TestCase):
    def test_owners(self):
        r = prof.parse_run(RUN)
        a = prof.attribute(r, prof.parse_kallsyms(KALLSYMS), elf_of)
        self.assertEqual(a[("program:zcs-send", "source thread", "zcs: pack (formats/)", "pack_p12")], 40)
        self.assertEqual(a[("program:zcs-send", "send thread", "UDP/IP output", "udp_sendmsg")], 4)
        self.assertEqual(a[("program:zcs-send", "source thread", "pipe (the emulation's FIFO)", "pipe_read")], 2)
        self.assertEqual(a[("idle", "-", "idle loop", "default_idle_call")], 1000)
        self.assertEqual(a[("irq and softirq on idle", "-", "NIC xmit and completions (virtio-net, macb)",
                            "start_xmit [virtio_net]")], 7)
        self.assertEqual(a[("feeder (feed_iq, charged to no one)", "-", "pipe (the emulation's FIFO)",
                            "pipe_read")], 9)
        self.assertEqual(sum(v for k, v in a.items() if k[0] == "the sampler (icount_sampler)"), 1)
        self.assertEqual(a[("kernel threads", "ksoftirqd/0", "UDP/IP output", "ip_finish_output2")], 2)
        # every sample is somewhere
        self.assertEqual(sum(a.values()), sum(r.samples.values()))

    def test_difference(self):
        d = prof.difference({"a": 5, "b": 2}, {"a": 9, "c": 1})
        self.assertEqual(d, {"a": 4, "b": -2, "c": 1})


class TestReport(unittest.TestCase):
    def test_blobs(self):
        def lines(prefix, text):
            b = base64.encodebytes(gzip.compress(text.encode())).decode()
            return [f"{prefix} {chunk}\n" for chunk in b.split()]
        report = (["@kernel 6.1\n"] + lines("@kallsyms", KALLSYMS) +
                  lines("@prof p12-uring-zc-prof 1:250000", RUN) +
                  ["@cell x 1 rc=0\n"] + lines("@prof p12-uring-zc-prof 1:2500000", "total samples=3\n"))
        ks, runs = prof.blobs(report)
        self.assertEqual(ks, KALLSYMS)
        self.assertEqual(runs[("p12-uring-zc-prof", "1:250000")], RUN)
        self.assertEqual(runs[("p12-uring-zc-prof", "1:2500000")], "total samples=3\n")
        # a block that lost a line on the way reads as nothing, never as something else
        broken = lines("@prof c 1:1", RUN)
        del broken[1]
        self.assertEqual(prof.blobs(broken)[1][("c", "1:1")], "")


if __name__ == "__main__":
    unittest.main()
