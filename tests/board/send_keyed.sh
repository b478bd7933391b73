#!/bin/bash
# SPDX-License-Identifier: MIT
# Keyed streams from the emulated board: the tag zcs-send computes is the one every receiver
# checks (issue 20).  zcs-send -s iio --key in p12, i16 and i8 reaches a zcs-recv with the same
# key whole: every sample datagram verified (nothing refused, nothing lost or filled), and for
# p12 and i16 every pair of the output the board's pattern in order (cs16 is the radio's value
# << 4; i8's 8-bit pairs do not carry the pattern's index, so i8 is held to its counts and tags).
# A zcs-recv with another key refuses every datagram and writes nothing.  Natively (board suite)
# the sender is the PC's; cross_send.sh runs it with the armhf zcs-send under qemu-arm -cpu
# cortex-a9, where OpenSSL's NEON Poly1305 and both pipeline threads' sealing are the board's,
# against the native zcs-recv.  Own network namespace; port 22431.
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
fakeboard_feed --rate 4000000
fakeboard_key
N=300000
PORT=22431
other=$FB_TMP/other.key
(umask 077 && /usr/bin/python3 -c 'import os; print(os.urandom(32).hex())' > "$other") ||
	fb_die "cannot write a key"

# recv_one FORMAT KEY OUTFILE [stop]: one keyed stream from the board into zcs-recv, to its end
# (with "stop", a receiver that cannot believe the stream's end: stopped a second after the sender)
recv_one() {
	local fmt=$1 key=$2 out=$3 stop=${4:-} type=cs16 i
	[ "$fmt" = i8 ] && type=cs8
	rm -f "$out" "$FB_TMP/recv.log"
	"$ZCS_RECV" --key "$key" --json --exit-on-eos --eos-timeout 10 -F "$type" -o "file:$out" \
		127.0.0.1:$PORT 2> "$FB_TMP/recv.log" &
	local recv=$!
	fakeboard_track $recv
	for ((i = 0; i < 1200; i++)); do
		grep -q 'listening on' "$FB_TMP/recv.log" && break
		sleep 0.05
	done
	"$ZCS_SEND" -s iio -u local: -f "$fmt" -n $N --key "$FB_KEY" --json -q --cpus none \
		127.0.0.1:$PORT 2> "$FB_TMP/send.json" || { cat "$FB_TMP/send.json"; fb_die "$fmt: zcs-send failed"; }
	if [ -n "$stop" ]; then
		sleep 1
		kill -TERM $recv
	fi
	wait $recv || { cat "$FB_TMP/recv.log"; fb_die "$fmt: zcs-recv ended with $?"; }
}

# the board's pattern, pair after pair, in a cs16 file: pair j is v << 4 of pattern k0 + j (rx1)
check_pattern() {
	/usr/bin/python3 - "$1" "$N" <<'EOF'
import array, sys
a = array.array('h')
with open(sys.argv[1], 'rb') as f:
    a.frombytes(f.read())
n = int(sys.argv[2])
if len(a) != 2 * n:
    sys.exit(f'{len(a) // 2} pairs in the output, not {n}')
def k_of(i, q):
    if i & 15 or q & 15:
        return None
    return ((i >> 4) & 0xfff) | ((q >> 4) & 0xfff) << 12
k0 = k_of(a[0], a[1])
if k0 is None:
    sys.exit('the first pair is not a pattern value')
for j in range(n):
    if k_of(a[2 * j], a[2 * j + 1]) != (k0 + j) & 0xffffff:
        sys.exit(f'pair {j} is ({a[2 * j]}, {a[2 * j + 1]}), not pattern {(k0 + j) & 0xffffff}')
print(f'ok: {n} pairs, the pattern from {k0} on')
EOF
}

for fmt in p12 i16 i8; do
	out=$FB_TMP/$fmt.out
	recv_one $fmt "$FB_KEY" "$out"
	fakeboard_expect "$(fakeboard_json "$FB_TMP/send.json" samples)" $N "$fmt: sender's samples"
	fakeboard_expect "$(fakeboard_json "$FB_TMP/recv.log" samples)" $N "$fmt: receiver's samples"
	# the sender's sample datagrams and its end of stream, each verified
	fakeboard_expect "$(fakeboard_json "$FB_TMP/recv.log" sample_datagrams)" \
		$(($(fakeboard_json "$FB_TMP/send.json" datagrams) + 1)) "$fmt: sample datagrams taken"
	for c in lost gap_samples invalid; do
		fakeboard_expect "$(fakeboard_json "$FB_TMP/recv.log" $c)" 0 "$fmt: $c"
	done
	[ "$fmt" = i8 ] && want=$((2 * N)) || want=$((4 * N))
	fakeboard_expect "$(stat -c %s "$out")" $want "$fmt: output bytes"
	[ "$fmt" = i8 ] || check_pattern "$out" || fb_die "$fmt: output is not the board's pattern"
done

# another key: every datagram refused (counted invalid), nothing written
recv_one p12 "$other" "$FB_TMP/other.out" stop
fakeboard_expect "$(fakeboard_json "$FB_TMP/recv.log" samples)" 0 "other key: samples"
bad=$(fakeboard_json "$FB_TMP/recv.log" invalid)
[ "${bad:-0}" -ge "$(fakeboard_json "$FB_TMP/send.json" datagrams)" ] ||
	fb_die "other key: $bad datagrams refused, fewer than the $(fakeboard_json "$FB_TMP/send.json" datagrams) sent"
[ ! -s "$FB_TMP/other.out" ] || fb_die "other key: the output holds $(stat -c %s "$FB_TMP/other.out") bytes"
echo "PASS"
