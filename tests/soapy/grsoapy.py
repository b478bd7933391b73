# SPDX-License-Identifier: MIT
# A GNU Radio flowgraph with gr-soapy's source on driver=zcs: N cf32 samples into a vector
# sink; prints one JSON line with the count, the spectrum's peak and the rms amplitude.
# Usage: grsoapy.py DEVICE_ARGS RATE N
import json
import sys

import numpy as np
from gnuradio import blocks, gr, soapy


def main():
    args, rate, n = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    tb = gr.top_block()
    src = soapy.source(args, 'fc32', 1, '', '', [''], [''])
    src.set_sample_rate(0, rate)
    head = blocks.head(gr.sizeof_gr_complex, n)
    sink = blocks.vector_sink_c()
    tb.connect(src, head, sink)
    tb.run()
    z = np.array(sink.data(), dtype=np.complex64)
    k = 65536 if len(z) >= 65536 else len(z)
    peak = float(np.fft.fftfreq(k, 1.0 / rate)[int(np.argmax(np.abs(np.fft.fft(z[:k]))))])
    print(json.dumps(dict(samples=int(len(z)), peak=peak,
                          rms=float(np.sqrt(np.mean(np.abs(z) ** 2))))), flush=True)


if __name__ == '__main__':
    main()
