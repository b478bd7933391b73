#!/bin/bash
# SPDX-License-Identifier: MIT
# SDR++'s RTL-TCP source against zcs-recv --control, replayed: SDR++ is not packaged in Debian 12,
# so a client here sends what SDR++ sends, in its order, and the emulated board must take it.
#
# Read from SDR++ 1.3.0 (core/src/version.h), github.com/AlexandreRouma/SDRPlusPlus at
# 6f8407683144a035cf01f10334040181c5e9f961, source_modules/rtl_tcp_source/src/rtl_tcp_client.cpp
# and main.cpp (module rtl_tcp_source 1.1.0):
# - every command is rtl_tcp's 5 bytes, code then a u32 big-endian (Client::sendCommand);
# - SDR++ never reads the 12-byte "RTL0" greeting apart: its worker takes every byte as cu8
#   samples, the greeting included, and sends its commands right after connect();
# - start(): set_freq (1), set_sample_rate (2), set_freq_correction (5, the PPM), direct sampling
#   (9), RTL AGC (8), bias-T (14), offset tuning (10), then with "Tuner AGC" off (its default)
#   set_gain_mode 1 and set_gain_by_index (13, the gain slider 0-28), with it on set_gain_mode 0;
#   SDR++ never sends set_gain (4) nor set_bandwidth (0x40);
# - while running: tune() sends set_freq; the PPM box 5 (a negative PPM as its u32); the gain
#   slider 13; bias-T 14; offset tuning 10; direct sampling 9 then 13; RTL AGC 8 (and 13 when
#   turned off); Tuner AGC 3 with !tunerAGC (and 13 when turned off).  The rate only changes
#   while stopped (its combo is disabled while running), so it comes with the next start().
# Asserted: the start's frequency, rate, gain mode and gain (index 14: the R820T's 25.4 dB) land
# in ad9361-phy's files as one set; each control afterwards lands or, for the five that are not
# settings, changes nothing and is counted by name when the client leaves; the stream keeps
# flowing to the client throughout, and the retune is announced in the stream.
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
fakeboard_feed --rate 2000000 --mark 200000
fakeboard_key
fakeboard_tuned_pair 2000000 915000000
recv=$FB_RECV_PID
PHY=$FB_PHY
LO=$PHY/out_altvoltage0_RX_LO_frequency RATE=$PHY/in_voltage_sampling_frequency
GAIN=$PHY/in_voltage0_hardwaregain MODE=$PHY/in_voltage0_gain_control_mode
BW=$PHY/in_voltage_rf_bandwidth
# the attribute files as the client's "board:" lines report them
board() { echo "board: $(fakeboard_attr $LO) $(fakeboard_attr $RATE) $(fakeboard_attr $MODE)" \
	"$(fakeboard_attr $GAIN) $(fakeboard_attr $BW)"; }
export LO RATE GAIN MODE BW
# The client: step lines on its standard input ("send C=V ...", "wait FILE VALUE", "flow",
# "quit"), one answer line each on its standard output; the reader thread counts the stream.
cat > "$FB_TMP/sdrpp.py" <<'EOF'
import os, socket, struct, sys, threading, time

s = socket.create_connection(("127.0.0.1", 22412), timeout=30)
got = [0]
first = bytearray()
lock = threading.Condition()

def reader():
    # as SDR++'s worker: every byte is a sample, the greeting too (kept here to check it)
    while True:
        try:
            b = s.recv(65536)
        except OSError:
            return
        if not b:
            return
        with lock:
            if len(first) < 12:
                first.extend(b[:12 - len(first)])
            got[0] += len(b)
            lock.notify_all()

threading.Thread(target=reader, daemon=True).start()

def attr(path):
    with open(path, "rb") as f:
        return f.read().replace(b"\0", b"").strip().decode()

def wait_bytes(n):
    with lock:
        end = time.monotonic() + 60
        while got[0] < n and time.monotonic() < end:
            lock.wait(1)
        return got[0] >= n

for line in sys.stdin:
    w = line.split()
    if not w:
        continue
    if w[0] == "send":
        # one write: TCP carries SDR++'s separate sends as this same byte sequence
        s.sendall(b"".join(struct.pack(">BI", int(c, 0), int(v, 0) & 0xffffffff)
                           for c, v in (a.split("=") for a in w[1:])))
        print("sent", len(w) - 1)
    elif w[0] == "wait":
        # the forwarder merges, then the board applies: wait for the file, not a time
        end = time.monotonic() + 20
        while attr(w[1]) != w[2] and time.monotonic() < end:
            time.sleep(0.05)
        print("ok" if attr(w[1]) == w[2] else "bad %s" % attr(w[1]))
    elif w[0] == "flow":
        # the stream goes on: another 0.5 s of samples (2 MS/s, 2 bytes a pair) after now
        with lock:
            n = got[0]
        print("ok %d %s" % (n, bytes(first[:4]).decode("ascii", "replace"))
              if wait_bytes(n + 2000000) else "bad %d" % got[0])
    elif w[0] == "quit":
        s.close()
        print("closed")
        break
EOF
coproc SDRPP { exec /usr/bin/python3 -u "$FB_TMP/sdrpp.py" 2> "$FB_TMP/sdrpp.err"; }
fakeboard_track $SDRPP_PID
step() {
	local a
	echo "$*" >&"${SDRPP[1]}"
	read -r -t 90 a <&"${SDRPP[0]}" || { cat "$FB_TMP/sdrpp.err" >&2; fb_die "client: no answer to $*"; }
	case $a in
	ok* | sent* | closed) echo "ok: $* ($a)" ;;
	*) board >&2; tail -n 30 "$FB_TMP/recv.log" "$FB_TMP/send.log" >&2; fb_die "$*: $a" ;;
	esac
	ANSWER=$a
}
unchanged_since() {
	[ "$(board)" = "$1" ] || fb_die "an ignored command changed the board: $(board), was $1"
	echo "ok: nothing else changed ($1)"
}
# start(): freq 433.92 MHz, 2.4 MHz, PPM 0, direct sampling off, RTL AGC off, bias-T off, offset
# tuning off, Tuner AGC off: manual, gain index 14
step send 1=433920000 2=2400000 5=0 9=0 8=0 14=0 10=0 3=1 13=14
step wait $LO 433920000
step wait $RATE 2400000
step wait $MODE manual
step wait $GAIN 25.400000
step flow
case $ANSWER in *RTL0) ;; *) fb_die "the stream did not begin with the greeting: $ANSWER" ;; esac
# the start was one set: its four settings together, nothing of the five others
for ((i = 0; i < 400; i++)); do
	grep -q 'the board took' "$FB_TMP/recv.log" && break
	sleep 0.05
done
grep 'set .*: the board took' "$FB_TMP/recv.log" | head -n 1 |
	grep -q 'set freq=433920000 rate=2400000 gain_mode=manual gain=25.4: the board took' ||
	{ cat "$FB_TMP/recv.log"; fb_die "SDR++'s start was not one set of its four settings"; }
echo "ok: the start went as one set"
# tune() from its dial
step send 1=868000000
step wait $LO 868000000
# the gain slider to 20 (37.2 dB)
step send 13=20
step wait $GAIN 37.200000
# Tuner AGC on (3 0), then off again (3 1, 13 20)
step send 3=0
step wait $MODE slow_attack
step send 3=1 13=20
step wait $MODE manual
step wait $GAIN 37.200000
# the non-settings: PPM -3, bias-T on, offset tuning on, direct sampling Q (9 2, 13 20), RTL AGC
# on then off (8 1; 8 0, 13 20): none changes the board
before=$(board)
step send 5=-3
step send 14=1
step send 10=1
step send 9=2 13=20
step send 8=1
step send 8=0 13=20
step flow
unchanged_since "$before"
# the retune is in the stream: zcs-recv's news
for ((i = 0; i < 400; i++)); do
	grep -q 'changed from sample [0-9]*: .*frequency 868.000000 MHz' "$FB_TMP/recv.log" && break
	sleep 0.05
done
grep -q 'changed from sample [0-9]*: .*frequency 868.000000 MHz' "$FB_TMP/recv.log" ||
	{ cat "$FB_TMP/recv.log"; fb_die "the retune to 868 MHz was not announced"; }
echo "ok: the stream announced 868 MHz"
step quit
# counted by name when it left: 5 at the start, then 5, 14, 10, 9, 8, 8
want='11 commands ignored: set_freq_correction 2, set_agc_mode 3, set_direct_sampling 2, set_offset_tuning 2, set_bias_tee 2'
for ((i = 0; i < 400; i++)); do
	grep -q "$want" "$FB_TMP/recv.log" && break
	sleep 0.05
done
grep -q "$want" "$FB_TMP/recv.log" || { cat "$FB_TMP/recv.log"; fb_die "no tally of the ignored commands"; }
echo "ok: $want"
kill $recv
wait $recv
# 9 + 1 + 1 + 1 + 2 + 8 commands; forwarded: 4 + 1 + 1 + 1 + 2 + 2 (the gain index after 9 and 8)
grep -q '22 commands (11 forwarded)' "$FB_TMP/recv.log" ||
	{ cat "$FB_TMP/recv.log"; fb_die "the output's command count"; }
echo "PASS"
