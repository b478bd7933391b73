#!/bin/bash
# SPDX-License-Identifier: MIT
# zcs-send says before it streams what the stream costs on the wire and what link it leaves by,
# and warns when that link cannot carry it, with what would fit (issue 31: "nobody can tell what
# rate their board will do").  A veth pair between two network namespaces: the driver (veth),
# its speed as the driver reports it (10000 Mb/s), the MTU, checksum offload on and then off;
# p12 at 20 MS/s is 41667 datagrams/s of 1472 bytes, 61.3 MB/s of UDP payload; on a 100 Mb/s link
# (--link-speed, which a veth cannot be set to) the warning names each format's highest rate;
# with -q the warning stays; a datagram larger than the device's MTU is said to fragment.
# Usage: test_link_info.sh ZCS-SEND
set -u
SEND=$1
NS=zcs-link-$$
TX=$NS-tx RX=$NS-rx
cleanup() {
	ip netns del "$TX" 2>/dev/null
	ip netns del "$RX" 2>/dev/null
}
trap cleanup EXIT
FAILS=0
fail() {
	echo "FAIL: $*"
	FAILS=$((FAILS + 1))
}
die() {
	echo "FAIL: $*"
	exit 1
}
ip netns add "$TX" && ip netns add "$RX" &&
	ip link add veth0 netns "$TX" type veth peer name veth0 netns "$RX" &&
	ip -n "$TX" addr add 198.18.79.1/24 dev veth0 && ip -n "$RX" addr add 198.18.79.2/24 dev veth0 &&
	ip -n "$TX" link set veth0 up && ip -n "$RX" link set veth0 up || die "namespace set-up"

# the start-up lines of a short paced stream (nothing needs to listen)
say() {
	ip netns exec "$TX" "$SEND" -s tone -n 2000 --cpus none "$@" 198.18.79.2:21980 2>&1 |
		grep -E '^zcs-send: (link|stream|warning):'
}
expect() { # NAME PATTERN TEXT
	if grep -qE -- "$2" <<<"$3"; then echo "ok   $1"; else fail "$1: no /$2/ in:"; echo "$3"; fi
}
expect_not() {
	if grep -qE -- "$2" <<<"$3"; then fail "$1: /$2/ in:"; echo "$3"; else echo "ok   $1"; fi
}

out=$(say -r 20M -f p12)
expect "the link: veth0, its driver, speed, MTU, offload" \
	'^zcs-send: link: veth0, virtual \(driver veth\), 10000 Mb/s \(as the driver reports it\), MTU 1500, checksum offload$' "$out"
expect "the stream: p12 at 20 MS/s, datagrams, payload and wire rate" \
	'^zcs-send: stream: p12 at 20 MS/s: 41667 datagrams/s of 1472 bytes \(480 pairs\): 61\.3 MB/s of UDP payload, 5[0-9][0-9]\.[0-9] Mb/s on the wire' "$out"
expect_not "10 Gb/s carries it: no warning" 'warning' "$out"

out=$(say -r 20M -f p12 --link-speed 100M)
expect "100 Mb/s cannot: the warning with each format's highest rate" \
	'^zcs-send: warning: veth0 cannot carry this stream \(5[0-9][0-9]\.[0-9] Mb/s on the wire, the link 100 Mb/s\): expect loss\.  What fits: i8 up to [0-9.]+ MS/s, p12 up to 3\.[0-9]+ MS/s, i16 up to' "$out"
out=$(say -r 2M -f i8 --link-speed 100M)
expect_not "i8 at 2 MS/s fits 100 Mb/s" 'warning' "$out"

out=$(say -q -r 20M --link-speed 100M)
expect "-q keeps the warning" '^zcs-send: warning: veth0 cannot carry' "$out"
expect_not "-q drops the link and stream lines" '^zcs-send: (link|stream):' "$out"

# keyed and with parity: the tag and the parity in the count
key=$(mktemp -u /tmp/zcs-link-key.XXXXXX)
"$SEND" --gen-key "$key" 2>/dev/null || die "--gen-key"
out=$(say -r 1M --key "$key" --run-counter "$key.run" --fec 32:4)
rm -f "$key" "$key.run"
expect "keyed with parity: tag and parity said" \
	'^zcs-send: stream: p12 at 1 MS/s: [0-9]+ datagrams/s of 1430 bytes \(458 pairs, keyed: tag included, parity 32:4\)' "$out"

ip netns exec "$TX" ethtool -K veth0 tx off >/dev/null || die "ethtool -K veth0 tx off"
ip -n "$TX" link set veth0 mtu 1000 || die "mtu 1000"
out=$(say -r 1M)
expect "no checksum offload, MTU 1000" 'MTU 1000, no checksum offload$' "$out"
expect "1500-byte datagrams on a 1000-byte MTU fragment" 'each datagram fragmented' "$out"

echo "link_info: $FAILS failed"
[ "$FAILS" -eq 0 ]
