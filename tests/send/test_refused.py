# SPDX-License-Identifier: MIT
# Regression test for "zcs-send reports send errors when no receiver listens": to a loopback port
# nobody listens on, the kernel answers each datagram with ICMP port unreachable, which a
# connected UDP socket reports as ECONNREFUSED on a later send.  On every send path zcs-send must
# count those as "refused" (> 0), not as send errors (0), keep sending every sample, keep its
# send path (no demotion) and exit 0.  Port 20980 (nobody binds it).
# Usage: test_refused.py ZCS-SEND
import json
import subprocess
import sys

SEND = sys.argv[1]
DEST = '127.0.0.1:20980'
N = 100000
failures = 0


def check(path, cond, what, summary):
    global failures
    if not cond:
        failures += 1
        print(f'FAIL {path}: {what}: {json.dumps(summary)}', flush=True)


for path in ['uring-zc', 'msg-zc', 'gso', 'plain']:
    p = subprocess.run([SEND, '--json', '-q', '--cpus', 'none', '-s', 'tone', '-r', '1M',
                        '-n', str(N), '--send-path', path, DEST],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    # --json is on standard error, among the text lines
    lines = [json.loads(l) for l in p.stderr.decode().splitlines() if l.startswith('{')]
    summary = next((o for o in lines if o.get('type') == 'summary'), None)
    if p.returncode != 0 or summary is None:
        failures += 1
        print(f'FAIL {path}: exit status {p.returncode}, summary {summary}\n'
              f'{p.stderr.decode()}', flush=True)
        continue
    print(f'{path}: refused {summary.get("refused")}, send_errors {summary["send_errors"]}, '
          f'demotions {summary["demotions"]}, path {summary["send_path"]}', flush=True)
    check(path, summary.get('refused', 0) > 0, 'refused > 0', summary)
    check(path, summary['send_errors'] == 0, 'send_errors == 0', summary)
    check(path, summary['demotions'] == 0, 'no demotion', summary)
    check(path, summary['send_path'] == path, 'send path kept', summary)
    check(path, summary['samples'] == N, f'all {N} samples sent', summary)
    check(path, summary['dropped_trains'] == 0, 'no train dropped', summary)
    check(path, b'refused (no listener)' in p.stderr, 'the text summary names refused', summary)

print(f'{failures} failures', flush=True)
sys.exit(1 if failures else 0)
