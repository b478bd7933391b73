# SPDX-License-Identifier: MIT
# Shared parts of the sender benchmarks (bench_send.sh, bench_mtu.sh), sourced: the CPU counters
# from /proc/stat and the background load of the machine.  Needs scpu and rcpu set (the sender's
# CPU and the receiving work's CPU).

hz=$(getconf CLK_TCK)

# "busy softirq" of a CPU from /proc/stat in USER_HZ ticks: busy = user + nice + system + irq +
# softirq (tick-sampled: everything that ran there, ours or not; steal is not ours).
cpu_stat() {
	awk -v c="cpu$1" '$1 == c { print $2 + $3 + $4 + $7 + $8, $8 }' /proc/stat
}

# Background load (other jobs on the machine): busy fraction of rcpu and scpu over 2 s of nothing.
background() {
	local a0 a1 b0 b1
	a0=$(cpu_stat "$rcpu"); a1=$(cpu_stat "$scpu")
	sleep 2
	b0=$(cpu_stat "$rcpu"); b1=$(cpu_stat "$scpu")
	awk -v a="${a0% *}" -v b="${b0% *}" -v c="${a1% *}" -v d="${b1% *}" -v hz="$hz" \
		'BEGIN { printf "%.3f %.3f\n", (b - a) / hz / 2, (d - c) / hz / 2 }'
}
