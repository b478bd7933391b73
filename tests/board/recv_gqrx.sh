#!/bin/bash
# SPDX-License-Identifier: MIT
# GQRX 2.15 (Debian's gqrx-sdr) on zcs-recv's rtl_tcp: output with --control retunes the
# emulated board.  GQRX runs under Xvfb with a throwaway HOME whose default.conf names the
# device (rtl_tcp=), the rate and the frequency, and enables its remote control (TCP 7356), so
# it starts without a dialog; a null sink of a private PulseAudio gives it the audio it needs.
# The board's feeder plays a carrier at 434.02 MHz (feed_iq --tone-at): where it shows depends
# on where the board's LO really is.
#
# GQRX's remote "F <Hz>" (RemoteControl::setNewRemoteFreq, src/applications/gqrx/
# remote_control.cpp, v2.15.9) moves the demodulator inside the band when it can, as clicking
# the spectrum does, and otherwise retunes the hardware as the dial does (MainWindow::
# setNewFrequency): so the test asks once for each.  Asserted, each by waiting for it:
# - F 434.02 MHz (100 kHz right of the 433.92 MHz centre): GQRX's signal level ("l") rises:
#   samples flow through GQRX and the carrier is where the board says it is;
# - F 433.02 MHz (1 MHz left: out of GQRX's window) retunes the board: the LO file takes a value
#   within the band of 433.02 MHz, and zcs-recv's news announces exactly that LO;
# - F 434.02 MHz again: the level rises again, the carrier now right of the new centre, so GQRX's
#   axis and the board agree after the retune;
# - GQRX's dial itself (xdotool: the mouse wheel on its frequency display): the board's LO moves
#   by exactly what GQRX's frequency moved, and the stream announces it.
# With GQRX_SHOTS=DIR it leaves DIR/gqrx-{before,after,dial}.png (ImageMagick's import) for
# docs/howto-gqrx.md.
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
for p in gqrx Xvfb pulseaudio pactl xdotool; do
	command -v $p > /dev/null ||
		fb_die "$p is missing (quickstart.sh installs gqrx-sdr, xvfb, pulseaudio, xdotool)"
done
fakeboard_up
fakeboard_feed --rate 2400000 --tone-at 434020000 --mark 200000
fakeboard_key
# GQRX holds its source open without reading until its DSP starts: with the default
# --client-timeout it keeps its slot, since no other client wants one
fakeboard_tuned_pair 2400000 433920000
LO=$FB_PHY/out_altvoltage0_RX_LO_frequency

# The desktop, private: HOME, the runtime directory (PulseAudio's socket) and X's socket
# directory (a tmpfs in this mount namespace); -displayfd picks a display number no other X
# server holds (the lock files in /tmp are the host's).
export HOME=$FB_TMP/home XDG_RUNTIME_DIR=$FB_TMP/run QT_QPA_PLATFORM=xcb
unset DBUS_SESSION_BUS_ADDRESS PULSE_SERVER
mkdir -p "$HOME/.config/gqrx" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
mkdir -p /tmp/.X11-unix
mount -t tmpfs -o mode=1777 zcs-x11 /tmp/.X11-unix || fb_die "cannot mount a tmpfs on /tmp/.X11-unix"
cat > "$HOME/.config/gqrx/default.conf" <<'EOF'
[General]
configversion=3
crashed=false

[input]
device="rtl_tcp=127.0.0.1:22412"
frequency=433920000
sample_rate=2400000

[receiver]
offset=0

[remote_control]
enabled=true
allowed_hosts=127.0.0.1
EOF
# none of these is a libiio program: no one-opener shim for them
env -u LD_PRELOAD pulseaudio -n --daemonize=no --exit-idle-time=-1 \
	--load=module-native-protocol-unix --load=module-null-sink > "$FB_TMP/pulse.log" 2>&1 &
fakeboard_track $!
for ((i = 0; i < 600; i++)); do
	env -u LD_PRELOAD pactl info > /dev/null 2>&1 && break
	sleep 0.1
done
env -u LD_PRELOAD pactl info > /dev/null 2>&1 || fb_die "PulseAudio did not start"
env -u LD_PRELOAD Xvfb -displayfd 6 -nolisten tcp -screen 0 1280x800x24 \
	6> "$FB_TMP/display" 2> "$FB_TMP/xvfb.log" &
fakeboard_track $!
for ((i = 0; i < 600; i++)); do
	[ -s "$FB_TMP/display" ] && break
	sleep 0.1
done
[ -s "$FB_TMP/display" ] || fb_die "Xvfb did not start"
export DISPLAY=:$(tr -d '\n' < "$FB_TMP/display")
env -u LD_PRELOAD gqrx > "$FB_TMP/gqrx.log" 2>&1 &
fakeboard_track $!

shot() {
	[ -n "${GQRX_SHOTS:-}" ] || return 0
	# for the picture only (nothing is asserted on it): GQRX's plot and waterfall catch up
	sleep 5
	env -u LD_PRELOAD import -window root "$GQRX_SHOTS/$1" && echo "ok: $GQRX_SHOTS/$1"
}
# GQRX's remote control, one command a line; each answered by one line (or by "l"'s level)
cat > "$FB_TMP/remote.py" <<'EOF'
import socket, sys, time
end = time.monotonic() + 180        # GQRX starts slowly on a loaded machine
while True:
    try:
        s = socket.create_connection(("127.0.0.1", 7356), timeout=30)
        break
    except OSError:
        if time.monotonic() > end:
            sys.exit("GQRX's remote control never listened")
        time.sleep(0.2)
f = s.makefile("rw")
def ask(cmd):
    f.write(cmd + "\n")
    f.flush()
    return f.readline().strip()
def level_up(what):
    # the carrier in the demodulator's channel: GQRX's level well above its floor
    end = time.monotonic() + 60
    while time.monotonic() < end:
        v = float(ask("l"))
        if v > -30:
            print("ok: GQRX's level %.1f dBFS (%s)" % (v, what))
            return
        time.sleep(0.2)
    sys.exit("%s: GQRX's level stayed at %s dBFS" % (what, ask("l")))
for line in sys.stdin:
    w = line.split()
    if w[0] == "level":
        level_up(" ".join(w[1:]))
    else:
        a = ask(line.strip())
        print("ok: %s: %s" % (line.strip(), a) if a.startswith("RPRT 0") or w[0] == "f"
              else "bad: %s: %s" % (line.strip(), a))
    sys.stdout.flush()
EOF
coproc GQRX_RC { exec /usr/bin/python3 -u "$FB_TMP/remote.py" 2> "$FB_TMP/remote.err"; }
fakeboard_track $GQRX_RC_PID
rc() {
	local a
	echo "$*" >&"${GQRX_RC[1]}"
	read -r -t 300 a <&"${GQRX_RC[0]}" ||
		{ cat "$FB_TMP/remote.err" "$FB_TMP/gqrx.log" >&2; fb_die "GQRX remote: no answer to $*"; }
	echo "$a"
	case $a in ok:*) ;; *) cat "$FB_TMP/gqrx.log" >&2; fb_die "GQRX remote: $a" ;; esac
}
wait_news() {
	for ((i = 0; i < 600; i++)); do
		grep -q -E "$1" "$FB_TMP/recv.log" && { echo "ok: zcs-recv: $2"; return 0; }
		sleep 0.1
	done
	cat "$FB_TMP/recv.log" >&2
	fb_die "zcs-recv never said: $2"
}
# GQRX connected and set the board to its configuration's frequency (the board had it already)
wait_news 'client 127\.0\.0\.1:[0-9]+: set_freq 433920000 forwarded' "GQRX's set_freq 433920000"
rc f
rc U DSP 1
rc F 434020000
rc level on the 434.02 MHz carrier, before the retune
lo0=$(fakeboard_attr $LO)
echo "ok: board LO $lo0 (GQRX moved its demodulator, not the radio)"
shot gqrx-before.png
rc F 433020000
for ((i = 0; i < 600; i++)); do
	[ "$(fakeboard_attr $LO)" != "$lo0" ] && break
	sleep 0.1
done
lo=$(fakeboard_attr $LO)
[ "$lo" != "$lo0" ] || fb_die "GQRX's F 433020000 did not retune the board"
[ $((lo > 433020000 ? lo - 433020000 : 433020000 - lo)) -lt 1200000 ] ||
	fb_die "the board took $lo, not within the band of 433020000"
echo "ok: the board's LO took $lo from GQRX"
mhz=$(printf '%d.%06d' $((lo / 1000000)) $((lo % 1000000)))
wait_news "changed from sample [0-9]+: .*frequency ${mhz//./\\.} MHz" "the stream announced $mhz MHz"
rc F 434020000
rc level on the 434.02 MHz carrier, the LO at $mhz MHz
shot gqrx-after.png
# GQRX's own dial: the mouse wheel over its frequency display's MHz digit (each digit of the
# display is a dial; which one the pointer is on sets the step).  The dial keeps the demodulator
# where it is in the band and retunes the hardware by the step (MainWindow::setNewFrequency):
# the board's LO must move by exactly what GQRX's frequency moved.
lo1=$(fakeboard_attr $LO)
# No window manager here: focus GQRX's window by hand, or Qt never makes it the active one and
# the display ignores the pointer (CFreqCtrl::mouseMoveEvent picks a digit only then).
win=$(env -u LD_PRELOAD xdotool search --onlyvisible --name '^Gqrx' | head -n 1)
[ -n "$win" ] || fb_die "xdotool finds no GQRX window"
# (108, 112): the MHz units digit of GQRX 2.15.9's display on this 1280x800 screen with Debian
# 12's fonts; two moves, so that Qt sees motion inside the display after the focus.  Another
# digit under the pointer would still pass (the board must follow whatever step GQRX took).
env -u LD_PRELOAD xdotool windowfocus --sync "$win" mousemove 100 112 mousemove 108 112 click 4 ||
	fb_die "xdotool"
for ((i = 0; i < 600; i++)); do
	[ "$(fakeboard_attr $LO)" != "$lo1" ] && break
	sleep 0.1
done
lo2=$(fakeboard_attr $LO)
[ "$lo2" != "$lo1" ] || fb_die "GQRX's dial did not retune the board"
f2=$(rc f)
f2=${f2##* }
[ $((lo2 - lo1)) -eq $((f2 - 434020000)) ] ||
	fb_die "the dial moved GQRX by $((f2 - 434020000)) Hz, the board by $((lo2 - lo1)) Hz"
echo "ok: GQRX's dial moved GQRX to $f2 and the board's LO by the same $((lo2 - lo1)) Hz, to $lo2"
mhz=$(printf '%d.%06d' $((lo2 / 1000000)) $((lo2 % 1000000)))
wait_news "changed from sample [0-9]+: .*frequency ${mhz//./\\.} MHz" "the stream announced $mhz MHz"
shot gqrx-dial.png
echo "ok: board LO $(fakeboard_attr $LO) at the end"
echo "PASS"
