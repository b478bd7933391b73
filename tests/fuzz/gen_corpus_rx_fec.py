#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the seed corpus of fuzz_rx_fec (tests/fuzz/corpus_rx_fec): inputs spelled out as what
# the network does to each sample and parity datagram, in the order fuzz_rx_fec.c reads its
# bytes.  Not run by the tests (the seeds are committed); run it after changing that order.
# Files named regression_* are inputs the fuzzer found, kept as it wrote them.
# Usage: gen_corpus_rx_fec.py DIR
import os
import sys

LIVE = 300
DELIVER, LOSE, TWICE, SWAP, MADE_UP = 0, 1, 2, 3, 4      # a sample datagram's fate
P_DELIVER, P_LOSE, P_TWICE, P_WRONG_FIRST = 0, 1, 2, 3      # a parity datagram's


def made_up(kind, back=0, number=0, k=None, m=None, index=0, shard_len=400, fill=0x33):
    """The bytes of one made-up parity datagram (fuzz_rx_fec.c, made_up()).  kind: bit 0 the
    stream's k, bit 1 its m, bit 2 a block of the stream's own, bit 3 sealed when keyed."""
    b = [kind, back, number & 0xff, number >> 8]
    if not kind & 1:
        b.append(k - 1)
    if not kind & 2:
        b.append(m - 1)
    b += [index, (shard_len - 16) & 0xff, (shard_len - 16) >> 8, fill]
    return b


def seed(keyed, announced, k, m, ops=None, parity=None, extra=None):
    """ops: {seq: fate}; parity: {(block, index): fate}; extra: {seq: [made-up bytes, ...]}
    sent before that sample datagram.  Bytes up to the last event; the rest delivers."""
    ops, parity, extra = ops or {}, parity or {}, extra or {}
    out = [(1 if keyed else 0) | (2 if announced else 0), k - 1, m - 1]
    last = len(out)
    count = 0
    for s in range(LIVE):
        for e in extra.get(s, []):
            out += [MADE_UP] + e
            last = len(out)
        out.append(ops.get(s, DELIVER))
        if s in ops:
            last = len(out)
        count += 1
        if count == k or s == LIVE - 1:
            block = s // k
            for i in range(m):
                out.append(parity.get((block, i), P_DELIVER))
                if (block, i) in parity:
                    last = len(out)
            count = 0
    return bytes(out[:last])


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    k, m = 32, 4
    within = {1: LOSE, 2: LOSE, 40: LOSE, 63: LOSE, 64: LOSE, 65: LOSE, 66: LOSE, 290: LOSE}
    seeds = {
        'announced_clean': seed(False, True, k, m),
        # within M in every block, parity lost too
        'announced_within': seed(False, True, k, m, within, {(1, 0): P_LOSE}),
        # block 3 loses 5 of 32 and a parity: zero-filled; the others restored
        'announced_beyond': seed(False, True, k, m, {96 + j: LOSE for j in (0, 3, 9, 20, 31)},
                                 {(3, 2): P_LOSE}),
        'keyed_announced_within': seed(True, True, k, m, within, {(2, 3): P_TWICE}),
        # a correctly tagged parity datagram with wrong contents before the real one of the same
        # index: what it rebuilds fails its own tag, the block is zero-filled, nothing else
        'keyed_sealed_wrong_parity': seed(True, True, k, m, {33: LOSE, 34: LOSE},
                                          extra={35: [made_up(1 | 2 | 4 | 8, index=0,
                                                              shard_len=440)]}),
        # the real parity 0 of block 1, its samples' part changed and tagged again, before
        # the real one: the rebuilt datagrams parse and fail their own tags (rebuilt_refused)
        'keyed_tagged_wrong_parity': seed(True, True, k, m, {33: LOSE, 50: LOSE},
                                          {(1, 0): P_WRONG_FIRST}),
        'unkeyed_wrong_parity': seed(False, True, k, m, {33: LOSE}, {(1, 0): P_WRONG_FIRST}),
        'keyed_unsealed_parity': seed(True, True, k, m, {70: LOSE},
                                      extra={71: [made_up(1 | 2 | 4, index=1, shard_len=440)]}),
        'unannounced_within': seed(False, False, k, m, within),
        'unkeyed_made_up': seed(False, True, k, m, {10: LOSE},
                                extra={12: [made_up(4, k=7, m=3, index=2, shard_len=900)],
                                       50: [made_up(0, back=9, k=128, m=32, index=31)]}),
        'swaps_and_copies': seed(False, True, 16, 2, {5: SWAP, 9: TWICE, 20: LOSE, 21: SWAP,
                                                      40: LOSE, 41: LOSE}),
        'smallest_block': seed(False, True, 1, 1, {7: LOSE, 8: LOSE, 100: LOSE},
                               {(8, 0): P_LOSE}),
        'largest_block': seed(True, True, 32, 8, {j: LOSE for j in range(64, 72)}),
    }
    for name, data in seeds.items():
        with open(os.path.join(d, name), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main()
