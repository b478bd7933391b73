#!/bin/bash
# SPDX-License-Identifier: MIT
# What each of docs/howto-sdrpp.md's routes into SDR++ costs in CPU (#24): the real SDR++ under
# Xvfb, fed by zcs-send's tone (p12) over the loopback of a private network namespace, through
#   net    zcs-recv -o tcp: (cs16), SDR++'s Network source, TCP client, Int16
#   rtl    zcs-recv -F cu8 -o rtl_tcp:, SDR++'s RTL-TCP source
#   soapy  no zcs-recv: SDR++'s SoapySDR source on the zcs module (driver=zcs)
# For each route and rate: SDR++ is started with --autostart, left WARM seconds from its first
# read, then the CPU-seconds (utime+stime in /proc/PID/stat) of zcs-recv, SDR++ and zcs-send over
# SECONDS are divided by SECONDS; SDR++'s also without its main thread, which draws the window
# (under Xvfb's software GL that one takes what CPU it gets, stream or not).  zcs-recv's own
# counters (--json) say whether the stream arrived whole and whether SDR++ kept up (overruns and
# skipped of its output, in all and in the first second after SDR++ connected:
# docs/measurements.md, "The first second after connect"); on the module route, its log's samples
# "not read" (SDR++ fell behind).  A benchmark: nothing asserted.
#
# usage: bench_sdrpp_routes.sh SDRPP ZCS_SEND ZCS_RECV[,ZCS_RECV...] SOAPY_MODULE_DIR [ROUTES]
#                              [RATES] [SECONDS]
#   SDRPP: an installed sdrpp, or the sdrpp of an SDR++ build tree (its core/ and
#   source_modules/ beside it); exit 77 when it is not there.  Several zcs-recv (e.g. an older
#   build) are run one after the other on each route and rate.  ROUTES default net,rtl,soapy;
#   RATES (S/s) default 2048000,10000000,20000000; SECONDS default 10; WARM=5 in the
#   environment; SHOTS=DIR takes a screenshot of SDR++ at the end of each run.
# SDR++'s RTL-TCP source offers only the RTL-SDR's rates (0.25-3.2 MS/s): at a higher rate its
# configured rate is its highest, so its FFT runs more often than for a true rate.
# Needs root (a mount and network namespace), Xvfb, python3, SoapySDRUtil for the soapy route.
set -u
SDRPP=${1:-} SEND=${2:-} RECV=${3:-} MODULE=${4:-}
ROUTES=${5:-net,rtl,soapy} RATES=${6:-2048000,10000000,20000000} SECS=${7:-10} WARM=${WARM:-5}
if [ -z "$MODULE" ]; then
	sed -n '2,24p' "$0" >&2
	exit 2
fi
if [ ! -x "$SDRPP" ]; then
	echo "SKIP: no SDR++ at '$SDRPP'"
	exit 77
fi
if ! command -v Xvfb > /dev/null; then
	echo "SKIP: no Xvfb"
	exit 77
fi
if [ "${ZCS_BENCH_NETNS:-}" != 1 ]; then
	exec unshare -m -n env ZCS_BENCH_NETNS=1 bash "$0" "$@"
fi
mount --make-rprivate / && ip link set lo up || { echo "FAIL: namespace set-up"; exit 1; }
# an X socket directory of our own: the Xvfb of this namespace meets no other
mkdir -p /tmp/.X11-unix && mount -t tmpfs -o mode=1777 zcs-bench-x11 /tmp/.X11-unix ||
	{ echo "FAIL: tmpfs for X"; exit 1; }

tmp=$(mktemp -d /tmp/zcs-bench-sdrpp.XXXXXX)
pids=()
stop_all() { # PIDs: TERM, then KILL what is still there
	local p
	for p in "$@"; do kill "$p" 2> /dev/null; done
	for p in "$@"; do
		for _ in $(seq 30); do kill -0 "$p" 2> /dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2> /dev/null
		wait "$p" 2> /dev/null
	done
}
cleanup() { stop_all "${pids[@]}"; rm -rf "$tmp"; }
trap cleanup EXIT

env -u LD_PRELOAD Xvfb -displayfd 3 -nolisten tcp -screen 0 1280x800x24 3> "$tmp/display" \
	2> "$tmp/xvfb.log" &
pids+=("$!")
for _ in $(seq 100); do [ -s "$tmp/display" ] && break; sleep 0.1; done
DISPLAY=:$(tr -d '\n' < "$tmp/display")
export DISPLAY SOAPY_SDR_PLUGIN_PATH=$MODULE
# no default key (docs/security.md): the tone is not keyed
export HOME=$tmp/home
mkdir -p "$HOME"
unset ZCS_KEY
unset LD_PRELOAD

# SDR++'s modules: a build tree's, or the installed ones
dir=$(cd "$(dirname "$SDRPP")" && pwd)
mkdir -p "$tmp/plugins"
if [ -e "$dir/core/libsdrpp_core.so" ]; then
	export LD_LIBRARY_PATH=$dir/core
	for m in network_source rtl_tcp_source soapy_source; do
		ln -s "$dir/source_modules/$m/$m.so" "$tmp/plugins/"
	done
	res=$dir/../root/res
else
	for m in network_source rtl_tcp_source soapy_source; do
		ln -s "$dir/../lib/sdrpp/plugins/$m.so" "$tmp/plugins/"
	done
	res=$dir/../share/sdrpp
fi

# SDR++ writes its default configuration at its first start; each run edits a copy
stdbuf -oL "$SDRPP" -r "$tmp/base" > "$tmp/base.log" 2>&1 &
p=$!
for _ in $(seq 100); do [ -s "$tmp/base/config.json" ] && break; sleep 0.1; done
sleep 1
stop_all $p

# 5391: the port the SoapySDR module listens on when SDR++ opens it with no arguments
PORT=5391 OUT=22291
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2> /dev/null || echo 0; }
# SDR++'s CPU besides its main thread's: the main thread draws the window (under Xvfb with
# Mesa's software GL, as often as it can); the others receive and process the stream
cpu_rest() {
	cat /proc/"$1"/task/*/stat 2> /dev/null |
		awk -v main="$1" '$1 != main { n += $14 + $15 } END { print n + 0 }'
}
hz=$(getconf CLK_TCK)

# configure ROUTE RATE LABEL: the configuration directory of one run, in $tmp/run
configure() {
	rm -rf "$tmp/run"
	cp -r "$tmp/base" "$tmp/run"
	python3 - "$tmp/run" "$1" "$2" "$tmp/plugins" "$res" "$OUT" "${3:-}" << 'EOF'
import json, sys
d, route, rate, plugins, res, port, label = sys.argv[1:]
rate, port = float(rate), int(port)
c = json.load(open(d + '/config.json'))
names = {'net': ('Network', 'Network Source', 'network_source'),
         'rtl': ('RTL-TCP', 'RTL-TCP Source', 'rtl_tcp_source'),
         'soapy': ('SoapySDR', 'SoapySDR Source', 'soapy_source')}
src, inst, mod = names[route]
c.update(modulesDirectory=plugins, resourcesDirectory=res, source=src, frequency=433920000.0,
         moduleInstances={inst: {'module': mod, 'enabled': True}})
json.dump(c, open(d + '/config.json', 'w'), indent=2)
if route == 'net':
    json.dump({'Network Source': {'host': '127.0.0.1', 'port': port, 'protocol': 'TCP (Client)',
                                  'sampleType': 'Int16', 'samplerate': rate}},
              open(d + '/network_source_config.json', 'w'))
elif route == 'rtl':
    rates = [250e3, 1.024e6, 1.536e6, 1.792e6, 1.92e6, 2.048e6, 2.16e6, 2.56e6, 2.88e6, 3.2e6]
    sr = max([r for r in rates if r <= rate] or rates[:1])
    json.dump({'host': '127.0.0.1', 'port': port, 'sampleRate': sr, 'gainIndex': 14,
               'tunerAGC': False}, open(d + '/rtl_tcp_config.json', 'w'))
else:
    json.dump({'device': label, 'devices': {label: {'sampleRate': rate, 'antenna': 0,
                                                    'gains': {}, 'agc': False}}},
              open(d + '/soapy_source_config.json', 'w'))
EOF
}

# first_second FILE: the output's overruns and skipped in the first second after its consumer
# connected, from zcs-recv's statistics lines (--interval 0.1)
first_second() {
	python3 - "$1" << 'EOF'
import json, sys
st = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
def out(s):
    return (s.get('outputs') or [{}])[0]
def on(s):  # connected: an older zcs-recv has no 'connects', only the bytes it wrote
    o = out(s)
    return o.get('connects', 0) >= 1 or o.get('bytes', 0) > 0
i = next((k for k, s in enumerate(st) if on(s)), None)
if i is None:
    print('- -')
    sys.exit()
before = out(st[i - 1]) if i > 0 else {}
t1 = st[i]['seconds'] + 1.0
after = out([s for s in st[i:] if s['seconds'] <= t1 + 0.05][-1])
print(' '.join(str(after[k] - before.get(k, 0)) if k in after else '-'
               for k in ('overruns', 'skipped')))
EOF
}

# last_json FILE KEY...: from zcs-recv's last JSON line, the values of KEYs (output counters
# by the name of the output in the form out.KEY)
last_json() {
	python3 - "$@" << 'EOF'
import json, sys
lines = [l for l in open(sys.argv[1]) if l.startswith('{')]
s = json.loads(lines[-1]) if lines else {}
o = (s.get('outputs') or [{}])[0]
print(' '.join(str(o.get(k[4:], '-') if k.startswith('out.') else s.get(k, '-'))
               for k in sys.argv[2:]))
EOF
}

echo "SDR++ $SDRPP; load average $(cut -d' ' -f1-3 /proc/loadavg) at start; $(nproc) CPUs"
echo "CPU-seconds per second of stream, over $SECS s after $WARM s"
echo
echo '| route | MS/s | zcs-recv | SDR++ | SDR++ but its UI thread | zcs-send | zcs-recv got MS/s | lost | overruns | skipped | overruns in 1st s | skipped in 1st s |'
echo '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'
RECVS=$RECV
for route in ${ROUTES//,/ }; do
	for rate in ${RATES//,/ }; do
		n=0
		for RECV in ${RECVS//,/ }; do
			n=$((n + 1))
			# one run of the module route however many zcs-recv
			[ "$route" = soapy ] && [ $n -gt 1 ] && continue
			name=$route
			[ "$RECVS" != "${RECVS//,/}" ] && [ "$route" != soapy ] && name="$route ($RECV)"
			run=()
			"$SEND" -q -s tone --tone 1000000 -f p12 -r "$rate" "127.0.0.1:$PORT" \
				> /dev/null 2> "$tmp/send.log" &
			sp=$!
			run+=("$sp")
			rp=
			case $route in
			net) "$RECV" --json --interval 0.1 -o "tcp:127.0.0.1:$OUT" "127.0.0.1:$PORT" \
					2> "$tmp/recv.log" &
				rp=$! ;;
			rtl) "$RECV" --json --interval 0.1 -F cu8 -o "rtl_tcp:127.0.0.1:$OUT" "127.0.0.1:$PORT" \
					2> "$tmp/recv.log" &
				rp=$! ;;
			esac
			[ -n "$rp" ] && run+=("$rp")
			sleep 1
			label=
			if [ "$route" = soapy ]; then
				label=$(SoapySDRUtil --find=driver=zcs 2> /dev/null |
					sed -n 's/^ *label = //p' | head -1)
			fi
			configure "$route" "$rate" "$label"
			stdbuf -oL "$SDRPP" -r "$tmp/run" --autostart > "$tmp/sdrpp.log" 2>&1 &
			gp=$!
			run=("$gp" "${run[@]}")
			# SDR++ takes seconds to come up on a loaded machine: WARM counts from its first read
			for _ in $(seq 600); do
				if [ -n "$rp" ]; then
					[ "$(last_json "$tmp/recv.log" out.connects)" = 1 ] && break
				else
					grep -q 'starting at datagram' "$tmp/sdrpp.log" && break
				fi
				sleep 0.1
			done
			sleep "$WARM"
			g0=$(cpu $gp) s0=$(cpu $sp) h0=$(cpu_rest $gp) r0=0
			[ -n "$rp" ] && r0=$(cpu $rp)
			sleep "$SECS"
			g1=$(cpu $gp) s1=$(cpu $sp) h1=$(cpu_rest $gp) r1=0
			[ -n "$rp" ] && r1=$(cpu $rp)
			[ -n "${SHOTS:-}" ] && mkdir -p "$SHOTS" &&
				import -window root "$SHOTS/sdrpp-$route-$rate-$n.png" 2> /dev/null
			stop_all "${run[@]}"
			if [ -n "$rp" ]; then
				read -r samples secs lost ovr skp <<< \
					"$(last_json "$tmp/recv.log" samples seconds lost out.overruns out.skipped)"
				got=$(awk -v n="$samples" -v s="$secs" 'BEGIN { printf "%.2f", n / s / 1e6 }')
				read -r o1 k1 <<< "$(first_second "$tmp/recv.log")"
				rc=$(awk -v a="$r0" -v b="$r1" -v t="$SECS" -v hz="$hz" \
					'BEGIN { printf "%.3f", (b - a) / hz / t }')
			else
				got=- lost=- skp=- rc=- o1=- k1=-
				# the module says what SDR++ did not read in time (the samples, not blocks)
				ovr=$(grep -o '[0-9]* samples from index [0-9]* not read' "$tmp/sdrpp.log" |
					awk '{ n += $1 } END { printf "%d samples not read", n }')
			fi
			awk -v route="$name" -v o1="$o1" -v k1="$k1" -v rate="$rate" -v rc="$rc" -v g0="$g0" -v g1="$g1" -v s0="$s0" \
				-v s1="$s1" -v h0="$h0" -v h1="$h1" -v t="$SECS" -v hz="$hz" -v got="$got" -v lost="$lost" -v o="$ovr" \
				-v k="$skp" 'BEGIN { printf "| %s | %g | %s | %.3f | %.3f | %.3f | %s | %s | %s | %s | %s | %s |\n",
					route, rate / 1e6, rc, (g1 - g0) / hz / t, (h1 - h0) / hz / t,
					(s1 - s0) / hz / t, got, lost, o, k, o1, k1 }'
			if [ "${BENCH_KEEP_LOGS:-}" ]; then
				mkdir -p "$BENCH_KEEP_LOGS"
				cp "$tmp/sdrpp.log" "$BENCH_KEEP_LOGS/sdrpp-$route-$rate-$n.log"
				[ -n "$rp" ] && cp "$tmp/recv.log" "$BENCH_KEEP_LOGS/recv-$route-$rate-$n.log"
			fi
		done
	done
done
echo
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
