# SPDX-License-Identifier: MIT
# Absurd announced rates: metadata announcing more I/Q pairs per second than any radio makes
# (2^64 - 1, 2^63 - 1, one above docs/protocol.md's bound of 10 GS/s) is malformed metadata,
# counted bad_meta and believed by nothing: a stream announcing such a rate from its start is
# never followed, so no SigMF recording says it; forged among a live stream's own metadata it
# touches nothing, and the recording keeps the stream's real rate, its data byte-exact.
# Usage: test_rates.py ZCS_RECV
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seclib  # noqa: E402
from seclib import recvlib  # noqa: E402

recvlib.isolate()
recv_exe = sys.argv[1]
c = seclib.Check('security_rates')
tmp = tempfile.mkdtemp(prefix='zcs-sec-rates-')
procs = []
ABSURD = [2**64 - 1, 2**63 - 1, 10**10 + 1]
COUNT = 400                      # sample datagrams; the stream's metadata every 200 of them

try:
    # ---- a whole stream announcing an absurd rate: never followed, nothing recorded ----
    for n, rate in enumerate(ABSURD):
        port = 23060 + n
        rec = os.path.join(tmp, f'absurd{n}')
        r = recvlib.Recv(recv_exe, ['--exit-on-eos', '--eos-timeout', '1', f'127.0.0.1:{port}',
                                    '-o', f'sigmf:{rec}'])
        procs.append(r.proc)
        seclib.Stream(port, count=COUNT, meta={'rate': rate}).start().wait()
        r.stop()
        summ = seclib.finish(c, r, timeout=60)
        c.eq(f'rate {rate}: every metadata datagram counted bad_meta',
             summ['invalid_by']['bad_meta'], COUNT // 200)
        c.eq(f'rate {rate}: no sample taken', summ['samples'], 0)
        meta = None
        if os.path.exists(rec + '.sigmf-meta'):
            with open(rec + '.sigmf-meta') as f:
                meta = json.load(f)
        c.true(f'rate {rate}: no SigMF meta says it',
               meta is None or meta['global'].get('core:sample_rate') != rate)

    # ---- forged among a live stream's metadata: bad_meta, the recording untouched ----
    port = 23065
    rec = os.path.join(tmp, 'live')
    forged = [seclib.meta_dgram(rate=rate) for rate in ABSURD]
    r = recvlib.Recv(recv_exe, ['--exit-on-eos', f'127.0.0.1:{port}', '-o', f'sigmf:{rec}'])
    procs.append(r.proc)
    seclib.Stream(port, count=COUNT, extra={10: forged, 250: forged}).start().wait()
    summ = seclib.finish(c, r, timeout=60)
    c.eq('forged rates: each counted bad_meta', summ['invalid_by']['bad_meta'], 2 * len(ABSURD))
    c.eq('forged rates: invalid is only those', summ['invalid'], 2 * len(ABSURD))
    c.eq('forged rates: samples out', summ['samples'], COUNT * seclib.SPD)
    with open(rec + '.sigmf-meta') as f:
        meta = json.load(f)
    c.eq('forged rates: the recording keeps the stream\'s rate',
         meta['global']['core:sample_rate'], seclib.RATE)
    with open(rec + '.sigmf-data', 'rb') as f:
        c.true('forged rates: sigmf data byte-exact',
               f.read() == seclib.expect_cs16(0, COUNT * seclib.SPD))
finally:
    seclib.kill_all(procs)
    shutil.rmtree(tmp, ignore_errors=True)
c.done()
