#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The receiving end of the board benchmark's SoapyRemote row (bench_board.sh): opens the remote
# zcsbench source through SoapyRemote, streams N samples in the wire format asked for, and prints
# what arrived and how many overflows (lost samples) SoapyRemote reported.
# usage: bench_soapy_client.py HOST RATE N CS12|CS16
import sys

import numpy as np
import SoapySDR
from SoapySDR import SOAPY_SDR_RX, SOAPY_SDR_CS16, SOAPY_SDR_OVERFLOW, SOAPY_SDR_TIMEOUT


def main():
    host, rate, want, wire = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    dev = SoapySDR.Device({"driver": "remote", "remote": "tcp://%s:55132" % host,
                           "remote:driver": "zcsbench"})
    dev.setSampleRate(SOAPY_SDR_RX, 0, rate)
    st = dev.setupStream(SOAPY_SDR_RX, SOAPY_SDR_CS16, [0],
                         {"remote:format": wire, "remote:mtu": "1500", "remote:prot": "udp"})
    buf = np.empty(2 * 65536, np.int16)
    dev.activateStream(st)
    got = overflows = timeouts = 0
    while got < want:
        r = dev.readStream(st, [buf], min(65536, want - got), timeoutUs=2000000)
        if r.ret > 0:
            got += r.ret
        elif r.ret == SOAPY_SDR_OVERFLOW:
            overflows += 1
        elif r.ret == SOAPY_SDR_TIMEOUT:
            timeouts += 1
            if timeouts > 5:
                break
        else:
            print("readStream: %d" % r.ret, file=sys.stderr)
            break
    dev.deactivateStream(st)
    dev.closeStream(st)
    print("got=%d overflows=%d timeouts=%d" % (got, overflows, timeouts))
    return 0 if got >= want else 1


sys.exit(main())
