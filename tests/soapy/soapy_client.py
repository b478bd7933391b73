# SPDX-License-Identifier: MIT
# A python3-soapysdr client of the zcs module, as an application would be: makes the device from
# its arguments, sets up a stream in FORMAT, reads COUNT samples (or to the end of the stream with
# COUNT 0) into OUT, and prints one JSON line: samples read, OVERFLOW returns, timeouts, sensors,
# and every read that was not a timeout as [samples read before it, ret, flags, timeNs,
# getHardwareTime() after it].
# Usage: soapy_client.py ARGS FORMAT COUNT OUT [IDLE_S]
import json
import sys
import time

import numpy as np
import SoapySDR
from SoapySDR import SOAPY_SDR_RX, SOAPY_SDR_OVERFLOW, SOAPY_SDR_TIMEOUT

DTYPE = {'CS16': np.int16, 'CF32': np.float32, 'CS8': np.int8}


def main():
    args, fmt, count, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    idle = float(sys.argv[5]) if len(sys.argv) > 5 else 5.0
    dev = SoapySDR.Device(args)
    info = dict(rate=dev.getSampleRate(SOAPY_SDR_RX, 0), freq=dev.getFrequency(SOAPY_SDR_RX, 0),
                formats=list(dev.getStreamFormats(SOAPY_SDR_RX, 0)), hw_time=dev.hasHardwareTime())
    st = dev.setupStream(SOAPY_SDR_RX, fmt, [0])
    mtu = dev.getStreamMTU(st)
    buf = np.zeros(2 * mtu, dtype=DTYPE[fmt])
    dev.activateStream(st)
    got, overflows, timeouts, first_time, reads = 0, 0, 0, None, []
    last_data = time.monotonic()
    with open(out, 'wb') as f:
        while count == 0 or got < count:
            want = mtu if count == 0 else min(mtu, count - got)
            r = dev.readStream(st, [buf], want, timeoutUs=200000)
            if r.ret != SOAPY_SDR_TIMEOUT:
                reads.append([got, r.ret, r.flags, r.timeNs, dev.getHardwareTime()])
            if r.ret > 0:
                if first_time is None:
                    first_time = r.timeNs
                f.write(buf[:2 * r.ret].tobytes())
                got += r.ret
                last_data = time.monotonic()
            elif r.ret == SOAPY_SDR_OVERFLOW:
                overflows += 1
            elif r.ret == SOAPY_SDR_TIMEOUT:
                timeouts += 1
                # count 0: to the end of the stream, taken as IDLE_S without samples
                if time.monotonic() - last_data > idle:
                    break
            else:
                raise SystemExit('readStream: %d' % r.ret)
    dev.deactivateStream(st)
    sensors = {k: int(dev.readSensor(k)) for k in dev.listSensors()}
    dev.closeStream(st)
    print(json.dumps(dict(info, samples=got, overflows=overflows, timeouts=timeouts, mtu=mtu,
                          first_time=first_time, sensors=sensors, reads=reads)), flush=True)


if __name__ == '__main__':
    main()
