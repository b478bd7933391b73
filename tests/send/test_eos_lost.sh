#!/bin/bash
# SPDX-License-Identifier: MIT
# Regression test for "a lost end of stream still exits 0": the end-of-stream datagram's send
# result was ignored, so receivers waited for their timeout while zcs-send reported a clean end.
# A netfilter rule in this namespace refuses the end of stream alone (an unkeyed one is a bare
# 32-byte header: UDP length 40; metadata is 128 bytes, sample datagrams longer), so its send
# fails with EPERM: zcs-send must exit 1 and say the end of stream was not sent.
# Usage: test_eos_lost.sh ZCS-SEND   (run under netns_run; port 20610, nothing needs to listen)
set -u
SEND=$1
dir=$(mktemp -d)
trap 'nft delete table ip zcseos 2>/dev/null; rm -rf "$dir"' EXIT
nft add table ip zcseos &&
	nft add chain ip zcseos out '{ type filter hook output priority 0; }' &&
	nft add rule ip zcseos out udp dport 20610 udp length 40 drop || {
	echo "FAIL: the netfilter rule"
	exit 1
}
fail=0
for path in plain gso; do
	"$SEND" --json -q --cpus none -s tone -n 100000 -r max --send-path $path 127.0.0.1:20610 \
		>"$dir/out" 2>"$dir/err"
	rc=$?
	cat "$dir/err"
	[ "$rc" = 1 ] || { echo "FAIL $path: exit status $rc, expected 1"; fail=1; }
	grep -q "zcs-send: send: the end of stream was not sent: Operation not permitted" "$dir/err" ||
		{ echo "FAIL $path: no message saying the end of stream was not sent"; fail=1; }
	grep -q '"samples":100000,' "$dir/err" ||
		{ echo "FAIL $path: the samples before it were not all sent"; fail=1; }
done
[ $fail = 0 ] && echo "ok: a refused end of stream exits 1 with a message"
exit $fail
