#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# A retune through the control channel, seen by zcs-recv: a --json "change" event carries the
# sample index the sender's reply gave; the sigmf: recording starts a capture segment at exactly
# that index with the new core:frequency; a raw file: output keeps every sample (no gap).
# zcs-send's tone source takes freq as metadata, so the test needs no board.  Twice: a receiver
# without --key (it believes a change only after 500 ms unopposed, so it reports it late, still
# at the announced index), and one with --key, which believes the verified announcement at once:
# a last retune followed by the end of the stream as soon as its first samples are out is still
# a change event and a capture segment at its index.  Ports 21700-21709.
import json
import os
import signal
import subprocess
import sys
import tempfile

from recvlib import Ctl, Recv, change_events as changes, isolate, wait_for

recv_exe, send_exe, ctl_exe = sys.argv[1:4]


def set_freq(key, port, send, freq):
    r = Ctl(ctl_exe, key, port).set_retry(send, 'freq=%d' % freq)
    assert r['ok'] and r['settings']['freq'] == freq, r
    print('ok: set freq=%d holds from sample %d' % (freq, r['since_sample']))
    return r['since_sample']


def run(d, key, keyed):
    """One receiver (keyed or not) through two retunes; keyed, a third just before the end."""
    data, port = (21702, 21703) if keyed else (21700, 21701)
    name = 'keyed' if keyed else 'unkeyed'
    rec, raw = os.path.join(d, name), os.path.join(d, name + '.cs16')
    recv = Recv(recv_exe, (['--key', key] if keyed else []) +
                ['--exit-on-eos', '-F', 'cs16', '-o', 'sigmf:' + rec,
                 '-o', 'file:' + raw, '127.0.0.1:%d' % data])
    send = subprocess.Popen([send_exe, '-s', 'tone', '-r', '1M', '-q', '--key', key,
                             '--control', '127.0.0.1:%d' % port, '127.0.0.1:%d' % data],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for('the stream', lambda: any('waiting for its metadata' in l or 'rate 1 MS/s' in l
                                            for l in recv.lines))
        got = []
        for freq in (433920000, 868000000):
            since = set_freq(key, port, send, freq)
            got.append((freq, since))
            wait_for('the change event', lambda: any(
                c['since_sample'] == since for c in changes(recv)))
        if keyed:
            # the last retune: the stream ends as soon as the receiver has written samples
            # from its index (so the announcement, sent before them, has come), long before
            # the 500 ms an unkeyed receiver waits.  The file holds indices first..first+n-1
            # with first >= 0, so n > since means index since is in it.
            since = set_freq(key, port, send, 915000000)
            got.append((915000000, since))
            wait_for('samples from the last retune on',
                     lambda: os.path.exists(raw) and os.path.getsize(raw) // 4 > since)
        send.send_signal(signal.SIGINT)
        send.wait(timeout=60)
        summary = recv.finish(timeout=60)
    finally:
        for p in (send, recv.proc):
            if p.poll() is None:
                p.kill()
                p.wait()
    for freq, since in got:
        ev = [c for c in changes(recv) if c['since_sample'] == since]
        assert ev and ev[0]['exact'] and ev[0]['center_freq'] == freq, (name, ev, changes(recv))
        print('ok: %s: --json change event at %d, %d Hz, exact' % (name, since, freq))
    meta = json.load(open(rec + '.sigmf-meta'))
    caps = [(c['core:global_index'], c.get('core:frequency')) for c in meta['captures']]
    for freq, since in got:
        assert (since, freq) in caps, '%s: no capture at %d with %d Hz: %s' % (name, since, freq,
                                                                            caps)
        seg = [c for c in meta['captures'] if c['core:global_index'] == since][0]
        first = meta['captures'][0]
        # one stream, no gap: the file position is the index from the first capture's
        assert seg['core:sample_start'] == since - first['core:global_index'], (seg, first)
        print('ok: %s: sigmf capture at global index %d, sample_start %d, %d Hz' % (
            name, since, seg['core:sample_start'], freq))
    assert summary['lost'] == 0 and summary['gap_samples'] == 0, summary
    assert summary['unconfirmed'] == 0, summary
    size = os.path.getsize(raw)
    assert size == summary['samples'] * 4, (size, summary['samples'])
    assert os.path.getsize(rec + '.sigmf-data') == size
    print('ok: %s: raw file and recording hold all %d samples' % (name, summary['samples']))


def main():
    isolate()
    with tempfile.TemporaryDirectory() as d:
        key = os.path.join(d, 'key')
        with open(key, 'w') as f:
            f.write(os.urandom(32).hex() + '\n')
        os.chmod(key, 0o600)
        run(d, key, False)
        run(d, key, True)
    print('PASS')


main()
