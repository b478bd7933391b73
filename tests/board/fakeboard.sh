# SPDX-License-Identifier: MIT
# The emulated board, a library for the board tests (source it).  In a private mount and network
# namespace it lays a hand-made IIO tree (ad9361-phy, cf-ad9361-lpc) on a tmpfs over /sys/bus, puts
# a FIFO at /dev/iio:device1 through an overlay on /dev, feeds it with feed_iq and can serve it all
# with the real iiod on 127.0.0.1:30431.  See README.md for why each piece is there.
#
#   . fakeboard.sh
#   fakeboard_enter "$@"        # re-executes the script inside `unshare -m -n` (lo up)
#   fakeboard_up [no-lpc] [no-phy] [one-rx] [no-fir]
#   fakeboard_feed [--rate SPS] [--jump N] [--mark PAIRS]
#   fakeboard_iiod
#   fakeboard_radio "$@"        # FB_URI: local:, or ip: through iiod when the argument is iiod
#   fakeboard_key               # FB_KEY: a new stream key (mode 0600) for --key
#   fakeboard_ctl PORT ARGS...  # zcs-ctl with that key on 127.0.0.1:PORT (JSON)
#   fakeboard_wait_ctl PORT OUT # until zcs-send's control port answers get (the answer in OUT)
#   fakeboard_tuned_pair RATE FREQ  # zcs-send and zcs-recv --control with an rtl_tcp: output
#   ... test ...                # fakeboard_down runs on EXIT
#
# Needs BOARD_BIN: the build directory of tests/board (feed_iq, libexcl_open.so).

FB_SYS=/sys/bus/iio/devices
FB_PHY=$FB_SYS/iio:device0
FB_LPC=$FB_SYS/iio:device1
FB_PIDS=()
FB_IIOD_PORT=30431

fb_die() { echo "fakeboard: $*" >&2; exit 1; }

# Re-executes the calling script in its own mount and network namespace: mounts and the iiod
# port are then invisible to every other test, and all of it vanishes with the last process.
fakeboard_enter() {
	if [ -z "${FAKEBOARD_NS:-}" ]; then
		export FAKEBOARD_NS=$$
		exec unshare -m -n -- "$BASH" "$0" "$@"
	fi
	mount --make-rprivate / || fb_die "cannot make / private"
	ip link set lo up || fb_die "cannot bring lo up"
	FB_TMP=$(mktemp -d "${TMPDIR:-/tmp}/zcs-board.XXXXXX") || fb_die "mktemp"
	trap fakeboard_down EXIT
}

# Writes one attribute file the way sysfs shows it: value and a newline.
fb_attr() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" > "$1"; }

# An attribute file's value as libiio's writers left it (they write a NUL, sysfs a newline).
fakeboard_attr() { tr -d '\0\n' < "$1"; }

# ad9361-phy's tree; the argument 0 leaves out the FIR enable (fakeboard_up no-fir).  Called
# alone too, by the kernels leg's guest (.ci/kernels/guest_lib.sh): the FIR is then there.
fb_phy() {
	local d=$FB_PHY fir=${1:-1}
	fb_attr $d/name ad9361-phy
	fb_attr $d/in_voltage_sampling_frequency 30720000
	fb_attr $d/in_voltage_sampling_frequency_available "[2083333 1 61440000]"
	fb_attr $d/in_voltage_rf_bandwidth 18000000
	fb_attr $d/in_voltage_rf_bandwidth_available "[200000 1 56000000]"
	fb_attr $d/in_voltage_gain_control_mode_available "manual fast_attack slow_attack hybrid"
	fb_attr $d/in_voltage_hardwaregain_available "[-3 1 71]"
	fb_attr $d/in_voltage_rf_port_select A_BALANCED
	fb_attr $d/in_voltage_rf_port_select_available "A_BALANCED B_BALANCED C_BALANCED"
	local c
	for c in 0 1; do
		fb_attr $d/in_voltage${c}_gain_control_mode slow_attack
		fb_attr $d/in_voltage${c}_hardwaregain "71.000000 dB"
		fb_attr $d/in_voltage${c}_rssi "105.25 dB"
	done
	# Several RX_LO_* files: libiio names channel altvoltage0 "RX_LO" only from a common prefix.
	fb_attr $d/out_altvoltage0_RX_LO_frequency 2400000000
	fb_attr $d/out_altvoltage0_RX_LO_frequency_available "[70000000 1 6000000000]"
	fb_attr $d/out_altvoltage0_RX_LO_powerdown 0
	fb_attr $d/out_altvoltage0_RX_LO_external 0
	fb_attr $d/out_altvoltage1_TX_LO_frequency 2450000000
	fb_attr $d/out_altvoltage1_TX_LO_powerdown 0
	fb_attr $d/out_altvoltage1_TX_LO_external 0
	fb_attr $d/out_voltage_sampling_frequency 30720000
	fb_attr $d/out_voltage_rf_bandwidth 18000000
	fb_attr $d/out_voltage0_hardwaregain "-10.000000 dB"
	fb_attr $d/ensm_mode fdd
	fb_attr $d/calib_mode auto
	# The FIR (libad9361's ad9361_set_bb_rate reads and writes these; board_driver.c judges the
	# writes) and the clock chain of 30.72 MS/s as a Pluto reports it
	[ "$fir" = 1 ] && fb_attr $d/in_out_voltage_filter_fir_en 0
	fb_attr $d/filter_fir_config "FIR Rx: 0,0 Tx: 0,0"
	fb_attr $d/trx_rate_governor nominal
	fb_attr $d/rx_path_rates "BBPLL:983040000 ADC:245760000 R2:122880000 R1:61440000 RF:30720000 RXSAMP:30720000"
	fb_attr $d/tx_path_rates "BBPLL:983040000 DAC:122880000 T2:122880000 T1:61440000 TF:30720000 TXSAMP:30720000"
}

fb_lpc() {
	local d=$FB_LPC n=$1 c
	fb_attr $d/name cf-ad9361-lpc
	fb_attr $d/in_voltage_sampling_frequency 30720000
	# the Pluto's FPGA decimator: the AD9361's rate or an eighth of it (board_driver.c)
	fb_attr $d/in_voltage_sampling_frequency_available "30720000 3840000 "
	for ((c = 0; c < n; c++)); do
		fb_attr $d/in_voltage${c}_calibbias 0
		fb_attr $d/scan_elements/in_voltage${c}_en 0
		fb_attr $d/scan_elements/in_voltage${c}_index $c
		fb_attr $d/scan_elements/in_voltage${c}_type 'le:S12/16>>0'
	done
	fb_attr $d/buffer/enable 0
	fb_attr $d/buffer/length 0
	fb_attr $d/buffer/watermark 0
}

# Lays the tree.  Variants: no-lpc / no-phy leave a device out, one-rx gives cf-ad9361-lpc
# only voltage0/1 (an AD9363 board), no-fir leaves ad9361-phy without in_out_voltage_filter_fir_en
# (a driver without the FIR's controls; libad9361 reads it unchecked).
fakeboard_up() {
	local lpc=1 phy=1 nch=4 fir=1 v
	for v in "$@"; do
		case $v in
		no-lpc) lpc=0 ;; no-phy) phy=0 ;; one-rx) nch=2 ;; no-fir) fir=0 ;;
		*) fb_die "unknown variant $v" ;;
		esac
	done
	[ -n "${BOARD_BIN:-}" ] || fb_die "BOARD_BIN not set"
	# libiio's local backend reads /sys/bus/iio/devices/*; a tmpfs over /sys/bus gives it ours.
	mount -t tmpfs -o mode=755 zcs-sysbus /sys/bus || fb_die "cannot mount tmpfs on /sys/bus"
	mkdir -p $FB_SYS
	[ $phy = 1 ] && fb_phy $fir
	[ $lpc = 1 ] && fb_lpc $nch
	# Real hwmon devices would join the local context; hide them so the tree is only ours.
	[ -d /sys/class/hwmon ] && mount -t tmpfs zcs-hwmon /sys/class/hwmon
	# /dev/iio:device1 must exist only in here: an overlay on /dev keeps every real node and
	# takes the FIFO into its upper layer (on the same private tmpfs).
	local ov=/sys/bus/.zcs
	mkdir -p $ov/upper $ov/work
	echo 1 > $ov/lpc_decimation
	mount -t overlay zcs-dev -o lowerdir=/dev,upperdir=$ov/upper,workdir=$ov/work /dev ||
		fb_die "cannot mount an overlay on /dev"
	if [ $lpc = 1 ]; then
		mkfifo /dev/iio:device1 || fb_die "mkfifo"
	fi
	# Every libiio program in here gets the kernel's one-opener rule back, and the drivers'
	# judgement of rates, the FIR and the decimator (README.md).
	export LD_PRELOAD=$BOARD_BIN/libexcl_open.so:$BOARD_BIN/libboard_driver.so${LD_PRELOAD:+:$LD_PRELOAD}
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
}

# Starts the sample generator on the FIFO; its log is $FB_TMP/feed.log.
fakeboard_feed() {
	# The feeder is the kernel side: it must not take the one-opener lock itself.  It plays the
	# radio's DMA, which no load on the CPUs ever delays: a real-time priority (low, and the
	# feeder sleeps between chunks) keeps a busy machine from starving it into the reader's
	# refill time-out, which would be a disable the test did not make (README.md).
	local rt=()
	chrt -f 1 true 2> /dev/null && rt=(chrt -f 1)
	env -u LD_PRELOAD "${rt[@]}" "$BOARD_BIN/feed_iq" "$@" $FB_LPC /dev/iio:device1 \
		2> "$FB_TMP/feed.log" &
	FB_PIDS+=($!)
}

# Starts the real iiod on 127.0.0.1:30431 (this namespace's own loopback) and waits for it.
fakeboard_iiod() {
	iiod "$@" > "$FB_TMP/iiod.log" 2>&1 &
	FB_PIDS+=($!)
	local i
	for ((i = 0; i < 100; i++)); do
		(exec 3<> /dev/tcp/127.0.0.1/$FB_IIOD_PORT) 2> /dev/null && return 0
		sleep 0.05
	done
	cat "$FB_TMP/iiod.log" >&2
	fb_die "iiod did not start listening"
}

# The radio's URI for zcs-send: local:, or with "iiod" as argument (a test run as SCRIPT iiod)
# the real iiod started here and ip:127.0.0.1 through it.  Sets FB_URI.
fakeboard_radio() {
	FB_URI=local:
	if [ "${1:-}" = iiod ]; then
		fakeboard_iiod
		FB_URI=ip:127.0.0.1
	fi
}

# A new 32-byte stream key, hex, in $FB_TMP/key, readable by its owner only.  Sets FB_KEY.
fakeboard_key() {
	FB_KEY=$FB_TMP/key
	(umask 077 && /usr/bin/python3 -c 'import os; print(os.urandom(32).hex())' > "$FB_KEY") ||
		fb_die "cannot write a key"
}

# zcs-ctl with FB_KEY on 127.0.0.1:PORT, JSON out, a time-out a loaded machine meets.
fakeboard_ctl() {
	local port=$1
	shift
	"$ZCS_CTL" --key "$FB_KEY" --timeout 20000 --json 127.0.0.1:$port "$@"
}

# Waits (up to 10 s) until zcs-send's control port on PORT answers get; the answer is in OUT.
# zcs-send opens the port once the radio is open, after its start.
fakeboard_wait_ctl() {
	local i
	for ((i = 0; i < 200; i++)); do
		fakeboard_ctl "$1" get > "$2" 2> /dev/null && return 0
		sleep 0.05
	done
	fb_die "the control port $1 never answered get: $(cat "$2")"
}

# zcs-send on the board (p12 at RATE, RX LO at FREQ, keyed with FB_KEY, its control channel on
# 127.0.0.1:22492, the stream to 127.0.0.1:22411) and zcs-recv forwarding its rtl_tcp: clients
# (127.0.0.1:22412, cu8) to that control channel: the tests that tune the board through
# zcs-recv.  Waits until zcs-recv has started the stream.  Logs send.log and recv.log; sets
# FB_RECV_PID (zcs-recv, a child of the test's shell).
fakeboard_tuned_pair() {
	local rate=$1 freq=$2 i
	"$ZCS_SEND" -u local: -f p12 --rate "$rate" --freq "$freq" --key "$FB_KEY" \
		--control 127.0.0.1:22492 -q --cpus none 127.0.0.1:22411 2> "$FB_TMP/send.log" &
	fakeboard_track $!
	"$ZCS_RECV" --key "$FB_KEY" --control 22492 -o rtl_tcp:127.0.0.1:22412 -F cu8 \
		127.0.0.1:22411 2> "$FB_TMP/recv.log" &
	FB_RECV_PID=$!
	fakeboard_track $FB_RECV_PID
	fakeboard_wait_feed 1 'reader took'
	for ((i = 0; i < 400; i++)); do
		grep -q 'starting at datagram' "$FB_TMP/recv.log" && return 0
		sleep 0.05
	done
	fb_die "zcs-recv never started the stream: $(tail -3 "$FB_TMP/recv.log")"
}

# Adds a background process of the test's own to those fakeboard_down ends.
fakeboard_track() { FB_PIDS+=("$@"); }

fakeboard_down() {
	local rc=$? p
	for p in "${FB_PIDS[@]}"; do
		kill "$p" 2> /dev/null
	done
	# iiod keeps retrying Avahi (there is none in here) for most of a minute after SIGTERM.
	local i
	for ((i = 0; i < 40; i++)); do
		for p in "${FB_PIDS[@]}"; do
			kill -0 "$p" 2> /dev/null && break
		done
		kill -0 "$p" 2> /dev/null || break
		sleep 0.05
	done
	for p in "${FB_PIDS[@]}"; do
		kill -KILL "$p" 2> /dev/null
		wait "$p" 2> /dev/null
	done
	if [ $rc -ne 0 ] && [ -n "${FB_TMP:-}" ]; then
		echo "--- fakeboard logs ($FB_TMP) ---" >&2
		tail -n 20 "$FB_TMP"/*.log >&2 2> /dev/null
	fi
	[ -n "${FB_TMP:-}" ] && [ -z "${FAKEBOARD_KEEP:-}" ] && rm -rf "$FB_TMP"
	exit $rc
}

# Value of a key (a.b for nested) in the last JSON line of a file: fakeboard_json FILE KEY.
fakeboard_json() {
	/usr/bin/python3 -c '
import json, sys
lines = [l for l in open(sys.argv[1]) if l.startswith("{")]
v = json.loads(lines[-1])
for k in sys.argv[2].split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
print(v)' "$1" "$2"
}

# Fails the test unless "$1" == "$2"; $3 names what was compared.
fakeboard_expect() {
	[ "$1" == "$2" ] || fb_die "$3: got '$1', expected '$2'"
	echo "ok: $3 = $2"
}

# Waits (up to 10 s) until the feeder's log has N lines matching REGEX: fakeboard_wait_feed N RE.
fakeboard_wait_feed() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ "$(grep -c -E "$2" "$FB_TMP/feed.log")" -ge "$1" ] && return 0
		sleep 0.05
	done
	fb_die "feeder never logged $1 x '$2'"
}
