# SPDX-License-Identifier: MIT
# Regression test for "a stop waits for the pacing sleep": at -r 1 one p12 datagram holds 480
# samples, so its train was due 480 s after the start and the source thread slept that long in one
# piece; SIGINT then went unanswered for minutes.  Now the pacing sleep looks at the stop flag: the
# train is finished and sent (that train only, not the rest of the source's block), then the end
# of stream, the summary, exit 0.  The 60 s bound below
# is not a timing assertion: the bug took 480 s, the fix about 0.2 s.
# Port 20600.  Usage: test_stop_low_rate.py ZCS-SEND
import json
import signal
import socket
import struct
import subprocess
import sys

SEND = sys.argv[1]
PORT = 20600
HDR, META = 32, 128
FLAG_EOS = 0x01

rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
rx.bind(('127.0.0.1', PORT))
rx.settimeout(30)
p = subprocess.Popen([SEND, '--json', '--cpus', 'none', '-s', 'tone', '-r', '1',
                      f'127.0.0.1:{PORT}'], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
fails = []
try:
    first = rx.recv(65536)  # the metadata before any sample: the sender runs
    if first[3] != 1:
        fails.append('the first datagram is not metadata')
    # the first per-second statistics line: the source has been pacing its first train (filled
    # in microseconds) for about a second, so the stop below lands in that pacing sleep
    # (--json goes to standard error, after the start-up lines)
    head, seen = b'', []
    while not head.startswith(b'{'):
        head = p.stderr.readline()
        seen.append(head)
        if not head:
            break
    if '"type":"stats"' not in head.decode():
        fails.append(f'no statistics line before the stop: {b"".join(seen)!r}')
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        fails.append('zcs-send did not end within 60 s of SIGINT (it slept out its pacing)')
    sample_bytes, eos = 0, None
    rx.settimeout(2)
    while eos is None:
        try:
            d = rx.recv(65536)
        except socket.timeout:
            break
        if d[3] == 1:
            continue
        flags, = struct.unpack_from('<B', d, 25)
        if flags & FLAG_EOS:
            eos = struct.unpack_from('<Q', d, 16)[0]
        else:
            sample_bytes += len(d)
    summary = None
    for line in err.decode().splitlines():
        if line.startswith('{') and json.loads(line).get('type') == 'summary':
            summary = json.loads(line)
    print(b''.join(seen).decode() + err.decode(), end='')
    if p.returncode != 0:
        fails.append(f'exit status {p.returncode}, expected 0')
    if summary is None:
        fails.append('no JSON summary')
    elif eos is None:
        fails.append('no end-of-stream datagram')
    else:
        # the train being paced was finished and sent: the end of stream follows its samples
        if eos != summary['samples'] or summary['bytes'] != sample_bytes:
            fails.append(f"EOS at sample {eos}, summary {summary['samples']} samples / "
                         f"{summary['bytes']} bytes, received {sample_bytes} bytes")
        # ... and only that train: not the rest of the tone's 8192-sample block in a burst
        train = summary['samples_per_dgram'] * summary['dgrams_per_train']
        if not 0 < summary['samples'] <= train:
            fails.append(f"{summary['samples']} samples sent after the stop, expected the "
                         f"one train being paced (at most {train})")
finally:
    if p.poll() is None:
        p.kill()
    rx.close()
for f in fails:
    print('FAIL: ' + f)
if not fails:
    print('ok: SIGINT at -r 1 ends the stream at once, the paced train and EOS sent')
sys.exit(1 if fails else 0)
