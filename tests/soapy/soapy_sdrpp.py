# SPDX-License-Identifier: MIT
# A python3-soapysdr client that makes the calls SDR++'s SoapySDR source makes (v1.3.0 nightly,
# source_modules/soapy_source/src/main.cpp: refresh, selectDevice, start, tune, stop), with no
# device arguments at all, since SDR++ has no field for them: enumerate(), the zcs device chosen
# by its label; the probe (make, antennas, gains and their ranges, bandwidths, rates,
# hasGainMode, unmake); start (make, setSampleRate of the list's first rate, setAntenna,
# setGainMode(false) only when hasGainMode, setGain to each range's minimum, setFrequency,
# setupStream CF32, activate); reads until the stream's metadata announces FREQ (when WAIT is 1,
# else a few reads); stop (deactivate, close, unmake); then enumerate() again, as SDR++ does at
# its next start, to find the device by the label it kept.
# Prints one JSON line.  Usage: soapy_sdrpp.py FREQ WAIT
import json
import sys
import time

import numpy as np
import SoapySDR
from SoapySDR import SOAPY_SDR_RX

freq, wait = float(sys.argv[1]), sys.argv[2] == '1'
out = {}


def zcs_devices():
    return [dict(k) for k in SoapySDR.Device.enumerate() if dict(k).get('driver') == 'zcs']


found = zcs_devices()
out['before'] = [(k.get('label'), k.get('serial')) for k in found]
if not found:
    print(json.dumps(out), flush=True)
    sys.exit(1)
args = found[0]

# selectDevice: what the menu shows, then the device goes
dev = SoapySDR.Device(args)
antennas = list(dev.listAntennas(SOAPY_SDR_RX, 0))
gains = list(dev.listGains(SOAPY_SDR_RX, 0))
gain_ranges = [dev.getGainRange(SOAPY_SDR_RX, 0, g) for g in gains]
bw_ranges = list(dev.getBandwidthRange(SOAPY_SDR_RX, 0))
rates = list(dev.listSampleRates(SOAPY_SDR_RX, 0))
has_agc = dev.hasGainMode(SOAPY_SDR_RX, 0)
out['hasGainMode'] = bool(has_agc)
out['rates'] = rates
out['frequency_range'] = [[r.minimum(), r.maximum()] for r in dev.getFrequencyRange(SOAPY_SDR_RX, 0)]
del dev  # unmake, as the binding does when the object goes
print('probed', file=sys.stderr, flush=True)

# start
dev = SoapySDR.Device(args)
dev.setSampleRate(SOAPY_SDR_RX, 0, rates[0])
dev.setAntenna(SOAPY_SDR_RX, 0, antennas[0])
if len(bw_ranges) + 1 > 2:
    dev.setBandwidth(SOAPY_SDR_RX, 0, bw_ranges[0].minimum())
if has_agc:
    dev.setGainMode(SOAPY_SDR_RX, 0, False)
for g, r in zip(gains, gain_ranges):
    dev.setGain(SOAPY_SDR_RX, 0, g, r.minimum())
dev.setFrequency(SOAPY_SDR_RX, 0, freq)
st = dev.setupStream(SOAPY_SDR_RX, 'CF32')
dev.activateStream(st)
buf = np.zeros(16384, dtype=np.complex64)
got, reads = 0, 0
deadline = time.monotonic() + 30
while time.monotonic() < deadline:
    r = dev.readStream(st, [buf], len(buf), timeoutUs=200000)
    reads += 1
    got += max(r.ret, 0)
    if wait and int(dev.readSensor('stream_frequency')) == int(freq) and got > 100000:
        break
    if not wait and got > 100000:
        break
out['samples'] = got
out['stream_frequency'] = int(dev.readSensor('stream_frequency'))
out['getFrequency'] = dev.getFrequency(SOAPY_SDR_RX, 0)
# stop
dev.deactivateStream(st)
dev.closeStream(st)
del dev  # unmake, as the binding does when the object goes
print('stopped', file=sys.stderr, flush=True)
out['after'] = [(k.get('label'), k.get('serial')) for k in zcs_devices()]
print(json.dumps(out), flush=True)
