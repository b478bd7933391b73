# SPDX-License-Identifier: MIT
# A python3-soapysdr client that retunes the board through driver=zcs: prints the frequency
# range the board reports, then sets FREQ and reads until the stream's metadata announces it
# (sensor stream_frequency); with RATE, then sets that sample rate and reads until the stream
# announces it (sensor stream_rate); as one JSON line.  Usage: soapy_retune.py ARGS FREQ [RATE]
import json
import sys
import time

import numpy as np
import SoapySDR
from SoapySDR import SOAPY_SDR_RX

args, want = sys.argv[1], float(sys.argv[2])
rate = float(sys.argv[3]) if len(sys.argv) > 3 else 0
dev = SoapySDR.Device(args)
out = dict(range=[[r.minimum(), r.maximum()] for r in dev.getFrequencyRange(SOAPY_SDR_RX, 0)],
           rates=[[r.minimum(), r.maximum()] for r in dev.getSampleRateRange(SOAPY_SDR_RX, 0)],
           before=dev.getFrequency(SOAPY_SDR_RX, 0))
st = dev.setupStream(SOAPY_SDR_RX, 'CS16', [0])
dev.activateStream(st)
buf = np.zeros(2 * 16384, dtype=np.int16)
dev.setFrequency(SOAPY_SDR_RX, 0, want)
out['after'] = dev.getFrequency(SOAPY_SDR_RX, 0)
got, deadline = 0, time.monotonic() + 60
while time.monotonic() < deadline and int(dev.readSensor('stream_frequency')) != int(want):
    r = dev.readStream(st, [buf], 16384, timeoutUs=200000)
    got += max(r.ret, 0)
out['stream_frequency'] = int(dev.readSensor('stream_frequency'))
out['samples'] = got
if rate:
    dev.setSampleRate(SOAPY_SDR_RX, 0, rate)
    out['rate_after'] = dev.getSampleRate(SOAPY_SDR_RX, 0)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and int(dev.readSensor('stream_rate')) != int(rate):
        dev.readStream(st, [buf], 16384, timeoutUs=200000)
    out['stream_rate'] = int(dev.readSensor('stream_rate'))
dev.deactivateStream(st)
dev.closeStream(st)
print(json.dumps(out), flush=True)
