#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The board's own kernels: the armhf zcs-send on a booted ARM Linux, Debian's bookworm 6.1 (the
# series of PlutoSDR firmware v0.39) and bullseye's 5.10 (older than v0.38's 5.15: the old bound),
# under qemu-system-arm -M vexpress-a9 (a Cortex-A9 with NEON; TCG, no KVM).  qemu-user hands
# every system call to the host's kernel; this leg is where the send paths meet the boards' ones.
#
#   [ZCS_NATIVE_BUILD=build-ci] .ci/kernels.sh [ARMHF_BUILD]   (default build-armhf; root)
#
# Needs .ci/armhf.sh's build (ARMHF_BUILD: zcs-send, zcs-recv, feed_iq for armhf) and its sysroot
# (ZCS_ARMHF_CACHE, default /var/cache/zcs-armhf), and a native build of this tree for the host
# side (check_board, zcs-recv, zcs-tone-expect).  Per kernel: an initramfs of busybox, bash-static,
# the virtio modules, the armhf programs with their libraries from the sysroot, the emulated board
# (tests/board/fakeboard.sh's IIO tree, feed_iq) and .ci/kernels/guest.sh; two virtio NICs on tap
# devices in a network namespace of this run (eth0 with checksum offload, eth1 csum=off), the
# receivers on the host side of them.  The cases are .ci/kernels/cases.txt; what each kernel must
# show is judged here (judge()).  Writes ARMHF_BUILD/kernels.json (one line per case and kernel,
# for tests/summary.py) and ARMHF_BUILD/kernels-table.md, and ends with one line
# "kernels: PASS ..." or "kernels: FAIL ...".  No figure of time from here is a performance claim:
# TCG does not time like a Cortex-A9.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=$(realpath -m "${1:-build-armhf}")
native=$(realpath -m "${ZCS_NATIVE_BUILD:-build-ci}")
armhf_cache=${ZCS_ARMHF_CACHE:-/var/cache/zcs-armhf}
cache=${ZCS_KERNELS_CACHE:-/var/cache/zcs-kernels}
sysroot=$armhf_cache/sysroot
results=$build/kernels.json
table=$build/kernels-table.md
export DEBIAN_FRONTEND=noninteractive
t0=$(date +%s)
current=start
summary_line=
work=
ns=zcs-kernels-$$
pids=()
rm -f "$results" "$table"

cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	ip netns del "$ns" 2>/dev/null
	[ -n "$work" ] && [ -z "${ZCS_KERNELS_KEEP:-}" ] && rm -rf "$work"
}
result() {
	local rc=$? el=$(($(date +%s) - t0))
	cleanup
	if [ $rc -eq 0 ]; then
		printf '\nkernels: PASS in %ss: %s\n' "$el" "$summary_line"
	else
		printf '\nkernels: FAIL at "%s" after %ss (exit %s)%s\n' "$current" "$el" "$rc" \
			"${summary_line:+: $summary_line}"
		rc=1
	fi
	exit $rc
}
trap result EXIT
trap 'exit 130' INT TERM
step() {
	current=$*
	printf '\n=== kernels: %s (%ss)\n' "$*" "$(($(date +%s) - t0))"
}
die() {
	echo "kernels: $*" >&2
	exit 1
}

step "host packages"
# (debian-archive-keyring: the signed-by of the private apt indexes below)
host_pkgs=(qemu-system-arm cpio gzip iproute2 binutils-arm-linux-gnueabihf python3 debian-archive-keyring)
missing=()
for p in "${host_pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	apt-get update -q || true
	apt-get install -y -q --no-install-recommends "${missing[@]}" || die "cannot install ${missing[*]}"
fi
for f in "$build/sender/zcs-send" "$build/receiver/zcs-recv" "$build/tests/board/feed_iq" \
	"$native/tests/board/check_board" "$native/receiver/zcs-recv" \
	"$native/tests/recv/zcs-tone-expect" "$sysroot/lib/ld-linux-armhf.so.3"; do
	[ -e "$f" ] || die "$f is missing (run .ci/armhf.sh and a native build with -Dtests=enabled first)"
done

# --- the kernels and busybox, as .debs through apt: a private index per suite (as .ci/armhf.sh
# does for the sysroot), so the machine's own apt state is never touched (.ci/kernels/lib.sh)
# shellcheck source=kernels/lib.sh
. .ci/kernels/lib.sh
step "Debian armhf kernels, busybox-static, bash-static in $cache"
kernels_fetch_suite bookworm
kernels_fetch_suite bullseye

work=$(mktemp -d /tmp/zcs-kernels.XXXXXX)

# --- the initramfs: what the armhf programs load, found by their DT_NEEDED in the sysroot
step "initramfs"
progs=("$build/sender/zcs-send" "$build/receiver/zcs-recv" "$build/tests/board/feed_iq")
kernels_add_libs "${progs[@]}"
for suite in bookworm bullseye; do
	kernels_make_initramfs $suite "$work/$suite.gz" .ci/kernels/guest.sh .ci/kernels/guest_lib.sh \
		tests/board/fakeboard.sh .ci/kernels/cases.txt
done

# --- the host side: one namespace, two taps (eth0's and eth1's), the receivers there
step "network namespace $ns"
kernels_netns
# receivers are started with ip netns exec itself, not through a function: $! must be the
# receiver (ip netns exec execs it), or cleanup would stop a subshell and leave it running

N=200000
RATE=1000000 TONE=123456 AMP=0.7 SEED=5
mapfile -t cases < <(grep -Ev '^[[:space:]]*(#|$)' .ci/kernels/cases.txt)

# wait_listening LOG...: until each zcs-recv log says it listens
wait_listening() {
	local l
	for l in "$@"; do
		for _ in $(seq 400); do
			grep -q 'listening on' "$l" 2>/dev/null && break
			sleep 0.05
		done
		grep -q 'listening on' "$l" || die "a receiver did not start: $(cat "$l")"
	done
}

# Starts the receivers of every case that runs on kernel KV (6.1 or 5.10), outputs under DIR.
start_receivers() { # KV DIR
	local kv=$1 dir=$2 i=0 line name kernels check net host logs=()
	rpids=()
	for line in "${cases[@]}"; do
		read -r name kernels check net _ <<<"$line"
		i=$((i + 1))
		[ "$kernels" = all ] || [ "$kernels" = "$kv" ] || continue
		local port=$((25000 + i))
		case $net in eth0 | mcast) host=198.18.90.1 ;; eth1) host=198.18.91.1 ;; *) host= ;; esac
		case $check in
		tone:*)
			ip netns exec "$ns" "$native/receiver/zcs-recv" --json -F cs16 -o "file:$dir/$name.cs16" \
				--exit-on-eos "$host:$port" 2>"$dir/$name.recv.log" &
			rpids+=($!)
			logs+=("$dir/$name.recv.log")
			;;
		board:*)
			ip netns exec "$ns" "$native/tests/board/check_board" --bind "$host" --port "$port" \
				--out "$dir/$name.board.json" --timeout 1200 2>"$dir/$name.board.log" &
			rpids+=($!)
			;;
		mcast:*)
			local r
			for r in a b; do
				ip netns exec "$ns" "$native/receiver/zcs-recv" --json -F cs16 -o "file:$dir/$name.$r.cs16" \
					--exit-on-eos --iface tap0 "239.18.90.1:$port" \
					2>"$dir/$name.$r.recv.log" &
				rpids+=($!)
				logs+=("$dir/$name.$r.recv.log")
			done
			;;
		esac
	done
	pids+=("${rpids[@]}")
	wait_listening "${logs[@]}"
}

# --- judging
# field FILE KEY: a key of the JSON object on one line of FILE (or of a string), "" if absent
jget() {
	/usr/bin/python3 -c '
import json, sys
try:
    v = json.loads(sys.argv[1])
    for k in sys.argv[2].split("."):
        v = v[k]
    print(v)
except Exception:
    print("")' "$1" "$2"
}
recv_summary() { grep '^{"type":"summary"' "$1" 2>/dev/null | tail -n 1; }
report() { sed -n "s/^@$1 $2 //p" "$3" | tr -d '\r' | tail -n 1; }

declare -A expect_sha=()
tone_sha() { # FMT: sha256 of what zcs-recv -F cs16 must write for the tone
	if [ -z "${expect_sha[$1]:-}" ]; then
		expect_sha[$1]=$("$native/tests/recv/zcs-tone-expect" "$RATE" "$TONE" "$AMP" "$SEED" 0 \
			"$1" cs16 0 "$N" | sha256sum | cut -d' ' -f1)
	fi
	echo "${expect_sha[$1]}"
}

# the tone's output against zcs-tone-expect, with zcs-recv's counters
check_tone_out() { # FMT OUT RECVLOG -> problems on stdout
	local fmt=$1 out=$2 s
	s=$(recv_summary "$3")
	[ -n "$s" ] || { echo "no summary from zcs-recv"; return; }
	local v
	for v in samples:$N lost:0 gap_samples:0 pre_meta:0 late_joins:0 invalid:0; do
		[ "$(jget "$s" "${v%%:*}")" = "${v#*:}" ] ||
			echo "receiver ${v%%:*} $(jget "$s" "${v%%:*}"), want ${v#*:}"
	done
	[ "$(sha256sum <"$out" 2>/dev/null | cut -d' ' -f1)" = "$(tone_sha "$fmt")" ] ||
		echo "output differs from the tone from sample 0 ($(stat -c %s "$out" 2>/dev/null) bytes)"
}

# What kernel KV must show for case NAME; prints problems, nothing when it passes.  Sets `seen`
# to the table's cell text.
judge() { # KV NAME CHECK NET ARGS DIR
	local kv=$1 name=$2 check=$3 net=$4 args=$5 dir=$6 rep=$6/report.txt
	local fmt=${check#*:} rc json start asked=auto
	rc=$(sed -n "s/^@case $name rc=//p" "$rep" | tr -d '\r' | tail -n 1)
	# zcs-send writes its JSON summary with its news (standard error): one of the @log lines
	json=$(sed -n "s/^@log $name \({\"type\":\"summary\".*\)/\1/p" "$rep" | tr -d '\r' | tail -n 1)
	[ -n "$json" ] || json=$(report json "$name" "$rep")

	start=$(sed -n "s/^@log $name zcs-send: \(send path: .*\)/\1/p" "$rep" | tr -d '\r' | head -n 1)
	case $args in *--send-path\ *) asked=${args##*--send-path }; asked=${asked%% *} ;; esac
	seen=
	[ -n "$rc" ] || { echo "the guest never ran it"; return; }
	# refusals: io_uring SEND_ZC is Linux 6.0+, so 5.10 must refuse a uring-zc asked for by name
	if [ "$asked" = uring-zc ] && [ "$kv" = 5.10 ]; then
		local why
		# the cell is the line that says why (not the first line zcs-send wrote, which may be
		# anything before the refusal); without one, the last line it wrote
		why=$(sed -n "s/^@log $name zcs-send: \(.*\(io_uring\|SEND_ZC\).*\)/\1/p" "$rep" |
			tr -d '\r' | head -n 1)
		[ -n "$why" ] ||
			echo "the refusal does not say io_uring: $(sed -n "s/^@log $name //p" "$rep" | tr -d '\r' | tail -n 1)"
		seen="refused, exit $rc: ${why:-?}"
		[ "$rc" != 0 ] || echo "uring-zc was not refused on 5.10"
		return
	fi
	[ "$rc" = 0 ] || { echo "zcs-send exited $rc: $(sed -n "s/^@log $name //p" "$rep" | tail -n 3 | tr '\n' ' ')"; return; }
	local path dem drop zcs zcc zcp errs
	path=$(jget "$json" send_path) dem=$(jget "$json" demotions)
	drop=$(jget "$json" dropped_datagrams) errs=$(jget "$json" send_errors)
	zcs=$(jget "$json" zc_sends) zcc=$(jget "$json" zc_completions) zcp=$(jget "$json" zc_copied)
	[ "$drop" = 0 ] || echo "the sender dropped $drop datagrams"
	# two send threads: the second sent every other train (at 1 MS/s a paced train is 21
	# datagrams, three of which a receiver's window of 64 holds)
	case $args in *--send-threads\ 2*)
		local t2
		t2=$(jget "$json" send2_trains)
		[ "${t2:-0}" -gt 0 ] || echo "the second send thread sent ${t2:-no} trains"
		;;
	esac
	# what the start-up line and the demotions must be
	case $net:$asked in
	eth0:auto | mcast:auto | lo:auto)
		if [ "$kv" = 6.1 ]; then
			[ "$start" = "send path: uring-zc" ] || echo "auto chose '$start', want uring-zc"
		else
			case $start in "send path: msg-zc (uring-zc unavailable: "*) ;;
			*) echo "auto chose '$start', want msg-zc with the reason" ;; esac
		fi
		[ "$dem" = 0 ] || echo "$dem demotions"
		;;
	eth1:auto)
		[ "$start" = "send path: plain (no checksum offload on eth1: GSO off)" ] ||
			echo "start-up line '$start', want plain for want of checksum offload"
		[ "$dem" = 0 ] || echo "$dem demotions"
		;;
	eth1:plain) [ "$dem" = 0 ] || echo "$dem demotions" ;;
	eth1:*)
		# before Linux 6.10 GSO without checksum offload fails with EIO: one demotion to plain
		[ "$dem" = 1 ] || echo "demotions $dem, want 1 (GSO on a NIC without checksum offload)"
		grep -q "^@log $name zcs-send: send path: $asked failed (Input/output error), now plain" \
			"$rep" || echo "no line 'send path: $asked failed (Input/output error), now plain'"
		[ "$path" = plain ] || echo "ended on $path, want plain"
		;;
	eth0:*)
		[ "$dem" = 0 ] || echo "$dem demotions"
		[ "$path" = "$asked" ] || echo "ended on $path, want $asked"
		;;
	esac
	# zero-copy goes only on whole trains of 16 KB and more: the tone's are (the board's
	# trains are cut where a radio read ends, so they may all go by copy)
	case $check:$path in tone:*:uring-zc | tone:*:msg-zc)
		[ "${zcs:-0}" -gt 0 ] || echo "no zero-copy send on $path"
		[ "$zcc" = "$zcs" ] || echo "zero-copy completions $zcc of $zcs sends"
		;;
	esac
	# the bytes
	case $check in
	tone:*) check_tone_out "$fmt" "$dir/$name.cs16" "$dir/$name.recv.log" ;;
	mcast:*)
		local r
		for r in a b; do
			check_tone_out "$fmt" "$dir/$name.$r.cs16" "$dir/$name.$r.recv.log" | sed "s/^/receiver $r: /"
		done
		;;
	board:*)
		local b=$dir/$name.board.json v
		[ -s "$b" ] || { echo "no result from check_board"; return; }
		for v in pairs:$N bad:0 lost:0 eos:1 first_k:0 flagged:0; do
			[ "$(jget "$(cat "$b")" "${v%%:*}")" = "${v#*:}" ] ||
				echo "board ${v%%:*} $(jget "$(cat "$b")" "${v%%:*}"), want ${v#*:}"
		done
		;;
	guest:*)
		local s sha
		s=$(report recvjson "$name" "$rep") sha=$(report sha "$name" "$rep")
		for v in samples:$N lost:0 pre_meta:0; do
			[ "$(jget "$s" "${v%%:*}")" = "${v#*:}" ] ||
				echo "guest receiver ${v%%:*} $(jget "$s" "${v%%:*}"), want ${v#*:}"
		done
		[ "$sha" = "$(tone_sha "$fmt")" ] || echo "the guest receiver's output differs from the tone"
		;;
	esac
	seen="$path"
	[ "$dem" = 0 ] || seen="$asked → $path (EIO, $dem demotion$([ "$dem" = 1 ] || echo s), $errs send error$([ "$errs" = 1 ] || echo s))"
	case $path in uring-zc | msg-zc) seen="$seen; zero-copy $zcs sent, $zcc completed, $zcp copied" ;; esac
}

declare -A cell=()
fails=0 total=0
for suite in bookworm bullseye; do
	case $suite in bookworm) kv=6.1 ;; bullseye) kv=5.10 ;; esac
	dir=$work/$suite
	mkdir -p "$dir"
	step "$suite's kernel ($kv): receivers"
	start_receivers "$kv" "$dir"
	step "$suite's kernel ($kv): boot and stream (qemu-system-arm -M vexpress-a9, TCG)"
	kernels_boot "$suite" "$dir" "$work/$suite.gz" || echo "kernels: qemu exited $?"
	grep -q '^@done' "$dir/report.txt" || {
		echo "kernels: the guest did not finish; its console:"
		tail -n 40 "$dir/console.log"
	}
	echo "kernels: running $(sed -n 's/^@kernel //p' "$dir/report.txt" | tr -d '\r')"
	grep '^@error' "$dir/report.txt" && fails=$((fails + 1))
	# receivers of cases that sent nothing (refused) or lost their end: stopped now, their
	# summaries are still written
	for p in "${rpids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${rpids[@]}"; do wait "$p" 2>/dev/null; done
	step "$suite's kernel ($kv): judging"
	i=0
	for line in "${cases[@]}"; do
		read -r name kernels check net args <<<"$line"
		i=$((i + 1))
		[ "$kernels" = all ] || [ "$kernels" = "$kv" ] || continue
		total=$((total + 1))
		# once, in this shell (it sets the cell's text, $seen), its problems through a file: a
		# $(judge) subshell would lose $seen, and judging twice cost about 12 s a kernel
		judge "$kv" "$name" "$check" "$net" "$args" "$dir" >"$dir/$name.problems"
		problems=$(cat "$dir/$name.problems")
		cell[$kv:$name]=$seen
		if [ -z "$problems" ]; then
			res=OK
			echo "ok: $kv $name: $seen"
		else
			res=FAIL
			fails=$((fails + 1))
			cell[$kv:$name]="FAIL: $(head -n 1 <<<"$problems")"
			echo "FAIL: $kv $name:"
			sed 's/^/    /' <<<"$problems"
			sed -n "s/^@log $name /    | /p" "$dir/report.txt" | tr -d '\r'
		fi
		printf '{"name": "kernels/%s/%s", "result": "%s"}\n' "$kv" "$name" "$res" >>"$results"
	done
done

# the table for docs/board.md
{
	echo "| case | zcs-send arguments | Linux 6.1 ($(sed -n 's/^@kernel //p' "$work/bookworm/report.txt" | tr -d '\r')) | Linux 5.10 ($(sed -n 's/^@kernel //p' "$work/bullseye/report.txt" | tr -d '\r')) |"
	echo "|---|---|---|---|"
	for line in "${cases[@]}"; do
		read -r name kernels check net args <<<"$line"
		printf '| %s | `%s` (%s) | %s | %s |\n' "$name" "$args" "$net" "${cell[6.1:$name]:-}" \
			"${cell[5.10:$name]:--}"
	done
} >"$table"
cat "$table"
summary_line="$((total - fails)) of $total cases ok on Linux 6.1 and 5.10 (table: $table)"
[ "$fails" -eq 0 ]
