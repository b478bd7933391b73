# SPDX-License-Identifier: MIT
# One GNU Radio 3.10 flowgraph, fed two ways: gr-soapy's source on driver=zcs (the module), or a
# File Source on a FIFO that zcs-recv -F cf32 -o fifo: writes.  N samples through a head block into
# a null sink; prints the process's own CPU seconds (every thread, the module's receive thread
# included) and the wall time, as one JSON line.  Usage: bench_soapy_gr.py soapy ARGS RATE N
#                                                     bench_soapy_gr.py fifo PATH N
import json
import resource
import sys
import time

from gnuradio import blocks, gr, soapy


def main():
    kind = sys.argv[1]
    tb = gr.top_block()
    if kind == 'soapy':
        src = soapy.source(sys.argv[2], 'fc32', 1, '', '', [''], [''])
        src.set_sample_rate(0, float(sys.argv[3]))
        n = int(sys.argv[4])
    else:
        src = blocks.file_source(gr.sizeof_gr_complex, sys.argv[2], False)
        n = int(sys.argv[3])
    head = blocks.head(gr.sizeof_gr_complex, n)
    tb.connect(src, head, blocks.null_sink(gr.sizeof_gr_complex))
    r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    tb.run()
    r1, t1 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    print(json.dumps(dict(kind=kind, samples=n, cpu_s=cpu, wall_s=t1 - t0)), flush=True)


if __name__ == '__main__':
    main()
