# SPDX-License-Identifier: MIT
# Regression test for "zcs-send's summary rate includes start-up time" (100000 samples at -r 1M
# were reported as "0.200 s, 0.499 MS/s"): the summary's rate is over the samples' own span,
# send_s, from the source's start (sample 0 due) to the last sample handed to the kernel.  No
# timing assertion: pacing makes send_s >= count / rate for certain, send_s lies within the
# program's elapsed_s, and msps must be samples / send_s (the text summary says the same).
# Port 20981 (nobody listens: refusals do not matter here).
# Usage: test_summary_rate.py ZCS-SEND
import json
import re
import subprocess
import sys

SEND = sys.argv[1]
N, RATE = 100000, 1000000
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print('FAIL: ' + what, flush=True)


for path in ['plain', 'auto']:
    p = subprocess.run([SEND, '--json', '-q', '--cpus', 'none', '-s', 'tone', '-r', str(RATE),
                        '-n', str(N), '--send-path', path, '127.0.0.1:20981'],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    err = p.stderr.decode()
    summary = None
    for line in err.splitlines():  # --json is on standard error
        if line.startswith('{') and json.loads(line).get('type') == 'summary':
            summary = json.loads(line)
    check(p.returncode == 0 and summary is not None, f'{path}: exit {p.returncode}, summary\n{err}')
    if summary is None:
        continue
    send_s, elapsed, msps = summary.get('send_s'), summary['elapsed_s'], summary['msps']
    print(f'{path}: send_s {send_s}, elapsed_s {elapsed}, msps {msps}', flush=True)
    check(send_s is not None, f'{path}: the summary has no send_s')
    if send_s is None:
        continue
    check(send_s >= N / RATE, f'{path}: send_s {send_s} < {N / RATE}: pacing broken')
    check(send_s <= elapsed + 0.0005, f'{path}: send_s {send_s} beyond elapsed_s {elapsed}')
    want = N / send_s / 1e6
    check(abs(msps - want) <= 0.0001 + want * 1e-4,
          f'{path}: msps {msps} is not samples / send_s = {want:.4f}')
    m = re.search(r'(\d+) samples in ([0-9.]+) s \(([0-9.]+) MS/s', err)
    check(m is not None, f'{path}: no text summary line:\n{err}')
    if m:
        # the text rounds to 1 ms, the JSON to 1 us: half of each apart at most (at exactly half a
        # ms, 0.1055 against "0.106", the float's own error made 0.0005 fail once in CI)
        check(abs(float(m.group(2)) - send_s) <= 0.0005 + 0.0000005 + 1e-12,
              f'{path}: the text summary says {m.group(2)} s, send_s is {send_s}')
        check(abs(float(m.group(3)) - want) <= 0.0015,
              f'{path}: the text summary says {m.group(3)} MS/s, samples / send_s is {want:.3f}')

print(f'{failures} failures', flush=True)
sys.exit(1 if failures else 0)
