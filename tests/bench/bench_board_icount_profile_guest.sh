# SPDX-License-Identifier: MIT
# The profile mode of bench_board_icount_guest.sh (ZCS_ICOUNT_PROFILE=1), sourced by it when the
# initramfs holds this file: every cell whose name ends in "-prof" runs with icount_sampler
# sampling CPU 0 (perf's cpu-clock, every PERIOD instructions of the guest's -icount clock) over
# its window, and its profile goes to the host on the report port as
#   @prof NAME REP BASE64...   (the sampler's output, gzip'd; bench_board_icount_profile.py)
# with /proc/kallsyms once, before the first profiled cell, as "@kallsyms BASE64...".
# Needs, from the host: icount_sampler in /zcs, /zcs/profile.conf (PROF_PERIOD, in ns).

. /zcs/profile.conf

# perf's limits are for real CPUs: a sample every PERIOD instructions is 1e9 / PERIOD a second of
# guest time, more than perf_event_max_sample_rate's default allows a tick on a CPU whose tick
# stops in idle, and the interrupt-time check would lower that rate under emulation
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent 2>/dev/null
echo 1000000 >/proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null

prof_on=
prof_syms=

# The sampler brackets the cell's own window: it starts before the window's first reading and
# stops after its last, so its CPU is inside the profiled cells' figures, which is how the
# tables show what it costs.  (window_open and window_close are the counting script's; they are
# wrapped here rather than edited there, so the counts of the mode without profile are its own.)
eval "prof_counted_window_open() $(declare -f window_open | tail -n +2)"
eval "prof_counted_window_close() $(declare -f window_close | tail -n +2)"
window_open() {
	prof_begin
	prof_counted_window_open
}
window_close() {
	prof_counted_window_close
	prof_end
}

prof_begin() {
	local st=
	prof_on=
	case $name in *-prof) ;; *) return 0 ;; esac
	if [ -z "$prof_syms" ]; then
		gzip -c /proc/kallsyms | base64 | sed 's/^/@kallsyms /' >"$out"
		prof_syms=1
	fi
	rm -f /tmp/prof.ready /tmp/prof.out
	mkfifo /tmp/prof.ready
	icount_sampler -p "$PROF_PERIOD" /tmp/prof.ready /tmp/prof.out 2>/tmp/prof.log &
	prof_pid=$!
	# read and write: the open cannot block, and a sampler that never starts times out
	exec 7<>/tmp/prof.ready
	read -r -t 60 st <&7
	exec 7<&-
	if [ "$st" != ready ]; then
		say "@error profile $name $rep: ${st:-no answer} $(tr '\n' ' ' </tmp/prof.log)"
		kill "$prof_pid" 2>/dev/null
		wait "$prof_pid"
		return 0
	fi
	prof_on=1
}

prof_end() {
	[ -n "$prof_on" ] || return 0
	prof_on=
	kill -INT "$prof_pid"
	wait "$prof_pid" || say "@error profile $name $rep: the sampler exited $? $(tr '\n' ' ' </tmp/prof.log)"
	gzip -c /tmp/prof.out | base64 | sed "s/^/@prof $name $rep /" >"$out"
}
