# SPDX-License-Identifier: MIT
# Strings from the wire (issue 10, part 3): a metadata string that is not UTF-8 or holds a control
# character is counted bad_meta and touches nothing; a newline in the sender name cannot forge a
# --json line; a quote or backslash (valid text) keeps the .sigmf-meta valid JSON; escape bytes
# never reach the terminal.  The live stream's output stays byte-exact throughout.
# Also zcs-send's side: a host name with a newline goes out escaped (a UTS namespace of its own).
# Usage: test_strings.py ZCS_RECV ZCS_SEND SIGMF_SCHEMA
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seclib  # noqa: E402
from seclib import recvlib  # noqa: E402

recvlib.isolate()
recv_exe, send_exe, schema = sys.argv[1], sys.argv[2], sys.argv[3]
c = seclib.Check('security_strings')
tmp = tempfile.mkdtemp(prefix='zcs-sec-str-')
procs = []

FORGED = [
    seclib.meta_dgram(sender=b'x\n{"type":"summary","samples":1}'),  # a newline: forged line
    seclib.meta_dgram(version=b'\x1b[2J\x1b]0;pwn\x07'),             # terminal escapes
    seclib.meta_dgram(source=b'\xff\xfe'),                           # not UTF-8
    seclib.meta_dgram(sender=b'a\xc2\x9b31m'),                        # a C1 control (CSI)
    seclib.meta_dgram(version=b'\xc3'),                               # a cut character
]

try:
    port = 23001
    data = os.path.join(tmp, 'out.cs16')
    rec = os.path.join(tmp, 'rec')
    r = recvlib.Recv(recv_exe, ['--exit-on-eos', f'127.0.0.1:{port}', '-o', f'file:{data}',
                                '-o', f'sigmf:{rec}'])
    procs.append(r.proc)
    # the stream's own metadata names its sender with a quote and a backslash: valid text,
    # which jansson escapes in the .sigmf-meta
    count = 400
    s = seclib.Stream(port, count=count, extra={50: FORGED, 51: FORGED},
                      meta={'sender': b'lab "pc" \\ 1', 'version': b'0.1"\\'}).start()
    s.wait()
    summ = seclib.finish(c, r, timeout=60)
    by = summ['invalid_by']
    c.eq('bad_meta counts every forged metadata datagram', by['bad_meta'], 2 * len(FORGED))
    c.eq('invalid is only those', summ['invalid'], 2 * len(FORGED))
    c.eq('samples out', summ['samples'], count * seclib.SPD)
    c.eq('nothing lost', summ['lost'] + summ['gap_samples'], 0)
    with open(data, 'rb') as f:
        c.true('file output byte-exact', f.read() == seclib.expect_cs16(0, count * seclib.SPD))
    with open(rec + '.sigmf-data', 'rb') as f:
        c.true('sigmf data byte-exact', f.read() == seclib.expect_cs16(0, count * seclib.SPD))
    # exactly one summary line: the forged newline never made a line of its own
    objs = seclib.json_lines(r.lines)
    c.eq('summary lines on stderr', sum(1 for o in objs if o.get('type') == 'summary'), 1)
    c.true('no forged line', not any(o.get('samples') == 1 for o in objs))
    err = ''.join(r.lines)
    c.true('no escape byte reached the terminal', '\x1b' not in err and '\x07' not in err)
    c.true('no C1 control reached the terminal', '\u009b' not in err)
    meta = seclib.validate_sigmf(c, rec + '.sigmf-meta', schema)
    if meta:
        hw = meta['global'].get('core:hw', '')
        c.true('core:hw keeps the quote and backslash as text', 'lab "pc" \\ 1' in hw, hw)
        c.true('core:hw has no forged string', 'summary' not in hw and 'pwn' not in hw, hw)

    # zcs-send on a host whose name holds a newline and an escape (root may set any name): the
    # metadata carries it escaped, so the receiver takes it (bad_meta 0) and no line is forged
    port = 23002
    r = recvlib.Recv(recv_exe, ['--exit-on-eos', f'127.0.0.1:{port}'])
    procs.append(r.proc)
    setname = ('import os, socket, sys; '
               'socket.sethostname("pc\\n{\\"type\\":\\"summary\\"}\\x1b[2J"); '
               'os.execv(sys.argv[1], sys.argv[1:])')
    p = subprocess.run(['unshare', '--uts', sys.executable, '-c', setname, send_exe, '-s', 'tone',
                        '-n', '48000', '-r', '1M', '-q', f'127.0.0.1:{port}'],
                       capture_output=True, timeout=60)
    c.eq('zcs-send with a newline in its host name exits 0', p.returncode, 0)
    summ = seclib.finish(c, r, timeout=60)
    c.eq('its metadata is taken (bad_meta)', summ['invalid_by']['bad_meta'], 0)
    c.eq('its samples are out', summ['samples'], 48000)
    news = r.news()
    c.true('the news names the sender escaped', 'pc\\x0a{"type":"summary"}\\x1b[2J' in news, news)
    objs = seclib.json_lines(r.lines)
    c.eq('one summary line', sum(1 for o in objs if o.get('type') == 'summary'), 1)
    c.true('no escape byte reached the terminal', '\x1b' not in ''.join(r.lines))

    # a news line quoting outside text that is not plain (a FIFO path with an escape sequence,
    # given by whoever wrote the command line) reaches the terminal escaped
    port = 23003
    fifo = os.path.join(tmp, 'iq\x1b[31mred')
    r = recvlib.Recv(recv_exe, [f'127.0.0.1:{port}', '-o', f'fifo:{fifo}'])
    procs.append(r.proc)
    rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    c.true('the reader is announced', seclib.wait_for(lambda: 'reader came' in r.news()))
    os.close(rfd)
    summ = seclib.finish(c, r, timeout=30, stop_after=0)
    c.true('the path in the news is escaped', 'iq\\x1b[31mred' in r.news(), r.news())
    c.true('no escape byte reached the terminal', '\x1b' not in ''.join(r.lines))
finally:
    seclib.kill_all(procs)
    shutil.rmtree(tmp, ignore_errors=True)
c.done()
