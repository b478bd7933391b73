#!/bin/bash
# SPDX-License-Identifier: MIT
# An application with no device arguments (SDR++'s SoapySDR source: soapy_sdrpp.py makes its
# calls) tunes the emulated board (tests/board/fakeboard.sh) with the default key, and finds the
# device again after the retune.  zcs-send -u local: --key --control streams the "radio" to the
# default port; HOME is a directory of the test's own (a tmpfs hides this machine's /etc/zcs).
# 1. No key anywhere: the stream plays, settings are read-only; hasGainMode is false, so the
#    gain mode is never set and nothing about it is logged (SDR++ used to log "cannot set the
#    gain mode" at every start); the frequency SDR++ sets is refused with its message.
# 2. The key at ~/.config/zcs/key (0600): the module says it uses the default key, the frequency
#    range is the board's (its control channel), SDR++'s setFrequency lands in the RX LO
#    attribute and in the stream's metadata, no error is logged at all, and enumerate() lists
#    the device with the same label and serial after the retune as before it.
# 3. The same key for zcs-ctl (get, no --key) and zcs-recv (no --key: keyed, its start message
#    says by the default key; --no-key: unkeyed), and a default key with the wrong mode refused
#    by each with its message.
# Usage: board_default_key.sh MODULE_DIR  (env BOARD_BIN, ZCS_SEND, ZCS_RECV, ZCS_CTL)
MODULE=$1
. "$(dirname "$0")/../board/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
RATE=2000000
FREQ=433920000
fakeboard_feed --rate $RATE --mark 200000
fakeboard_key
# this machine's own system-wide key is not the test's: hidden in the test's mount namespace
if [ -d /etc/zcs ]; then mount -t tmpfs zcs-test /etc/zcs || fb_die "cannot hide /etc/zcs"; fi
HOME_DIR=$FB_TMP/home
mkdir -p "$HOME_DIR"
"$ZCS_SEND" -u local: -f p12 --rate $RATE --freq 915000000 --key "$FB_KEY" \
	--control 127.0.0.1:5392 -q --cpus none 127.0.0.1 2> "$FB_TMP/send.log" &
fakeboard_track $!
fakeboard_wait_feed 1 'reader took'
fakeboard_wait_ctl 5392 "$FB_TMP/get.json"

# the environment an application started from a desktop has: HOME, no ZCS_KEY (meson's test
# set-up sets ZCS_KEY=none for every other test), no XDG_CONFIG_HOME
# (our_env for zcs-ctl and zcs-recv, app_env for python3 and the module)
our_env=(env -u ZCS_KEY -u XDG_CONFIG_HOME HOME="$HOME_DIR")
app_env=("${our_env[@]}" SOAPY_SDR_PLUGIN_PATH="$MODULE")
# a sanitized module in python3, which is not: its runtime preloaded (tests/soapy/meson.build);
# never into our own sanitized programs, which carry their own runtime (two clash)
[ -n "${ZCS_SOAPY_PRELOAD:-}" ] && app_env+=(LD_PRELOAD="$ZCS_SOAPY_PRELOAD" ASAN_OPTIONS=detect_leaks=0)
sdrpp() { # OUT WAIT
	"${app_env[@]}" /usr/bin/python3 "$(dirname "$0")/soapy_sdrpp.py" $FREQ "$2" \
		> "$FB_TMP/$1.json" 2> "$FB_TMP/$1.log" || { tail -20 "$FB_TMP/$1.log"; fb_die "$1: the client failed"; }
}
j() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$FB_TMP/$1.json" "$2"; }

# 1. no key anywhere
sdrpp nokey 0
fakeboard_expect "$(j nokey hasGainMode)" False "no key: hasGainMode"
grep -q 'gain mode' "$FB_TMP/nokey.log" && fb_die "no key: the gain mode logged: $(grep 'gain mode' "$FB_TMP/nokey.log")"
grep -q "cannot set the frequency to $FREQ" "$FB_TMP/nokey.log" || fb_die "no key: the refused frequency not logged"
fakeboard_expect "$(fakeboard_attr $FB_PHY/out_altvoltage0_RX_LO_frequency)" 915000000 "no key: LO unchanged"
echo "ok: no key: $(j nokey samples) samples, nothing about the gain mode"

# 2. the default key, per user
mkdir -p "$HOME_DIR/.config/zcs"
(umask 077 && cp "$FB_KEY" "$HOME_DIR/.config/zcs/key")
sdrpp keyed 1
grep -q "the default key $HOME_DIR/.config/zcs/key (no key= given)" "$FB_TMP/keyed.log" ||
	fb_die "keyed: the module did not say it uses the default key"
fakeboard_expect "$(j keyed frequency_range)" "[[70000000.0, 6000000000.0]]" "keyed: frequency range from the board"
fakeboard_expect "$(j keyed hasGainMode)" True "keyed: hasGainMode (the board sets it)"
fakeboard_expect "$(fakeboard_attr $FB_PHY/out_altvoltage0_RX_LO_frequency)" $FREQ "keyed: LO in the tree"
fakeboard_expect "$(j keyed stream_frequency)" $FREQ "keyed: announced in the stream"
fakeboard_expect "$(fakeboard_attr $FB_PHY/in_voltage0_gain_control_mode)" manual "keyed: setGainMode(false) on the board"
if grep -E '\[ERROR\].*zcs:' "$FB_TMP/keyed.log"; then fb_die "keyed: errors logged"; fi
before=$(j keyed before)
fakeboard_expect "$(j keyed after)" "$before" "keyed: label and serial after the retune"
case $before in
*MHz* | *MS/s*) fb_die "keyed: a setting in the label: $before" ;;
esac
echo "ok: keyed: label and serial $before"

# 3. zcs-ctl and zcs-recv, no --key
"${our_env[@]}" "$ZCS_CTL" --json 127.0.0.1:5392 get > "$FB_TMP/ctl.json" 2> "$FB_TMP/ctl.log" ||
	fb_die "zcs-ctl get with the default key: $(cat "$FB_TMP/ctl.log")"
fakeboard_expect "$(fakeboard_json "$FB_TMP/ctl.json" settings.freq)" $FREQ "zcs-ctl get (default key): freq"
# the stream goes to 5391, where zcs-recv listens by default: keyed by the default key
"${our_env[@]}" "$ZCS_RECV" -n 200000 --exit-on-eos --interval 0 > /dev/null 2> "$FB_TMP/recv.log" ||
	fb_die "zcs-recv with the default key: $(tail -5 "$FB_TMP/recv.log")"
grep -q "zcs-recv: keyed: only datagrams authenticated with $HOME_DIR/.config/zcs/key are accepted (the default key" \
	"$FB_TMP/recv.log" || fb_die "zcs-recv: the start message does not say the default key"
grep -q '200000 samples' "$FB_TMP/recv.log" || fb_die "zcs-recv (default key): $(tail -3 "$FB_TMP/recv.log")"
"${our_env[@]}" "$ZCS_RECV" --no-key -n 200000 --exit-on-eos --interval 0 > /dev/null 2> "$FB_TMP/recv-nokey.log" ||
	fb_die "zcs-recv --no-key: $(tail -5 "$FB_TMP/recv-nokey.log")"
grep -q 'keyed:' "$FB_TMP/recv-nokey.log" && fb_die "zcs-recv --no-key: keyed"
echo "ok: zcs-ctl and zcs-recv with the default key, zcs-recv --no-key without"
# a default key that others may read is refused by each, naming it
chmod 644 "$HOME_DIR/.config/zcs/key"
"${our_env[@]}" "$ZCS_CTL" 127.0.0.1:5392 get > /dev/null 2> "$FB_TMP/ctl-mode.log" && fb_die "zcs-ctl took a key of mode 644"
grep -q 'default key: key file .* is accessible by group or others' "$FB_TMP/ctl-mode.log" ||
	fb_die "zcs-ctl: $(cat "$FB_TMP/ctl-mode.log")"
"${our_env[@]}" "$ZCS_RECV" -n 1 > /dev/null 2> "$FB_TMP/recv-mode.log" && fb_die "zcs-recv took a key of mode 644"
grep -q 'zcs-recv: default key: key file .* is accessible by group or others.*--no-key for none' \
	"$FB_TMP/recv-mode.log" || fb_die "zcs-recv: $(cat "$FB_TMP/recv-mode.log")"
"${app_env[@]}" /usr/bin/python3 -c 'import SoapySDR; SoapySDR.Device("driver=zcs,timeout=5000")' \
	> /dev/null 2> "$FB_TMP/soapy-mode.log" && fb_die "the module took a key of mode 644"
grep -q 'the default key (no key= given; key=FILE for another, key=none for none): key file' \
	"$FB_TMP/soapy-mode.log" || fb_die "module: $(tail -3 "$FB_TMP/soapy-mode.log")"
echo "ok: a default key of mode 644 refused by zcs-ctl, zcs-recv and the module"
echo "soapy board default key: ok"
