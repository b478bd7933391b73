# SPDX-License-Identifier: MIT
# lab.sh: a sourced bash library that builds a private multicast LAN out of network namespaces:
# one switch namespace holding a bridge, one sender and N receivers, each on a veth port.
# Nothing touches the host's interfaces; everything is removed by lab_down (run from a trap).
#
# Usage (needs root, iproute2; ethtool only for lab_offload):
#   source tests/lab/lab.sh
#   lab_up smoke 3              # lab "smoke-$$": namespaces smoke-$$-br, -tx, -rx1 .. -rx3
#                               # and an EXIT/INT/TERM trap that calls lab_down
#   lab_exec tx zcs-udptool send 239.18.0.1:24500
#   lab_exec rx2 ip addr        # HOST is br (the switch), tx, rx1 .. rxN
#   lab_down                    # also runs from the trap; safe to call twice
#
# Addresses (interface eth0 in every host):
#   tx   198.18.0.1/24   fd00:5a::1/64
#   rxI  198.18.0.(10+I) fd00:5a::(10+I)   e.g. rx1 = 198.18.0.11, fd00:5a::11
#   txJ  198.18.0.J      fd00:5a::J        J = 2..9: extra senders added by lab_add_host
# Routes in every host: 224.0.0.0/4 (so 239/8 and the SSM range 232/8) and ff00::/8 via eth0.
# IPv6 duplicate address detection is off (accept_dad=0, nodad): v6 works at once.
# The bridge br0 floods multicast (mcast_snooping 0) unless LAB_SNOOPING=1, which turns
# snooping on with the bridge as IGMPv3/MLDv2 querier.  The optional third argument of lab_up
# ("v6") is accepted for clarity: every lab is dual-stack.
#
# Functions:
#   lab_up NAME NRECV [v6]    build the lab; sets LAB (the unique prefix) and LAB_NRECV
#   lab_down [LAB]            kill processes left in the lab's namespaces, delete them
#   lab_add_host HOST         after lab_up: one more host on the switch, tx2 .. tx9 (a second
#                             sender, e.g. for source-specific joins) or rxI with I > NRECV
#   lab_exec HOST CMD...      run CMD in HOST's namespace (ip netns exec)
#   lab_ns HOST               print HOST's namespace name
#   lab_addr HOST [4|6]       print HOST's address (no prefix length)
#   lab_offload off|on [HOST...]  TSO, GSO, GRO and UDP GSO off (or on) on every eth0
#                             and bridge port, or only the HOSTs given; needs ethtool.  Off,
#                             every skb on the lab's links is one datagram
#   lab_mtu MTU               set the MTU of every interface of the lab
#   lab_on_exit CMD...        register a command to run (before lab_down) when the script exits
#   lab_bg HOST LOGFILE CMD...  start CMD in HOST in the background, output to LOGFILE; its pid
#                             is left in LAB_BG_PID (not printed: a $(...) subshell would own the
#                             child, and `wait` could not reap it).  lab_down kills leftovers.

LAB=""
LAB_NRECV=0
LAB_HOSTS=()
LAB_EXIT_CMDS=()
LAB_BG_PID=""

lab_ns() {
	echo "$LAB-$1"
}

lab_exec() {
	local host=$1
	shift
	ip netns exec "$LAB-$host" "$@"
}

lab_addr() {
	local host=$1 fam=${2:-4} n
	case $host in
	tx) n=1 ;;
	tx[2-9]) n=${host#tx} ;;
	rx*) n=$((10 + ${host#rx})) ;;
	*) echo "lab_addr: no address for '$host'" >&2; return 1 ;;
	esac
	if [ "$fam" = 6 ]; then echo "fd00:5a::$n"; else echo "198.18.0.$n"; fi
}

_lab_log() {
	echo "lab: $*" >&2
}

_lab_host_up() {
	local host=$1 ns="$LAB-$1" a4 a6
	a4=$(lab_addr "$host" 4) && a6=$(lab_addr "$host" 6) || return 1
	ip netns add "$ns" || return 1
	LAB_HOSTS+=("$host")
	# before the veth end arrives, so it inherits "no DAD"
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0 || return 1
	ip -n "$ns" link set lo up &&
	ip -n "$LAB-br" link add "p-$host" type veth peer name eth0 netns "$ns" &&
	ip -n "$LAB-br" link set "p-$host" master br0 up &&
	ip -n "$ns" link set eth0 up &&
	ip -n "$ns" addr add "$a4/24" dev eth0 &&
	ip -n "$ns" -6 addr add "$a6/64" dev eth0 nodad &&
	ip -n "$ns" route add 224.0.0.0/4 dev eth0 &&
	ip -n "$ns" -6 route add ff00::/8 dev eth0
}

_lab_on_exit() {
	local i
	for ((i = ${#LAB_EXIT_CMDS[@]} - 1; i >= 0; i--)); do
		eval "${LAB_EXIT_CMDS[i]}" || true
	done
	LAB_EXIT_CMDS=()
	lab_down
}

lab_on_exit() {
	LAB_EXIT_CMDS+=("$(printf '%q ' "$@")")
}

lab_up() {
	local name=$1 nrecv=$2 i snoop=0
	if [ -z "$name" ] || ! [[ "$nrecv" =~ ^[0-9]+$ ]] || [ "$nrecv" -lt 1 ] || [ "$nrecv" -gt 200 ]; then
		echo "usage: lab_up NAME NRECV(1-200) [v6]" >&2
		return 2
	fi
	if [ -n "$LAB" ]; then
		echo "lab_up: lab $LAB is already up" >&2
		return 2
	fi
	LAB="$name-$$"
	LAB_NRECV=$nrecv
	LAB_HOSTS=()
	trap _lab_on_exit EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	# a closed terminal or output pipe must still tear the lab down
	trap 'exit 129' HUP
	trap 'exit 141' PIPE
	[ "${LAB_SNOOPING:-0}" = 1 ] && snoop=1
	ip netns add "$LAB-br" || { _lab_log "cannot create namespaces (root needed)"; return 1; }
	LAB_HOSTS+=(br)
	ip netns exec "$LAB-br" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0 &&
	ip -n "$LAB-br" link set lo up &&
	# The querier speaks IGMPv3 and MLDv2 (the bridge's default is IGMPv2): hosts that hear a v2
	# query fall back to v2, where a host that hears another's report for its group keeps its
	# own quiet, and in the first 10 s (before the bridge trusts its own querier) it floods
	# reports to every port: a late joiner then stays out of the switch's table.
	ip -n "$LAB-br" link add br0 type bridge mcast_snooping "$snoop" mcast_querier "$snoop" \
		mcast_igmp_version 3 mcast_mld_version 2 &&
	ip -n "$LAB-br" link set br0 up || { _lab_log "bridge set-up failed"; return 1; }
	_lab_host_up tx || { _lab_log "set-up of tx failed"; return 1; }
	for ((i = 1; i <= nrecv; i++)); do
		_lab_host_up "rx$i" || { _lab_log "set-up of rx$i failed"; return 1; }
	done
	return 0
}

lab_add_host() {
	local host=$1
	if [ -z "$LAB" ]; then
		echo "lab_add_host: no lab is up" >&2
		return 2
	fi
	if ! [[ "$host" =~ ^(tx[2-9]|rx[0-9]+)$ ]] || [ -e "/run/netns/$LAB-$host" ]; then
		echo "lab_add_host: '$host' is not a new tx2..tx9 or rxI" >&2
		return 2
	fi
	_lab_host_up "$host" || { _lab_log "set-up of $host failed"; return 1; }
}

lab_down() {
	local lab=${1:-$LAB} ns pids
	[ -n "$lab" ] || return 0
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$lab-(br|tx[0-9]*|rx[0-9]+)$"); do
		# processes we started in the lab; a namespace lives on while one remains
		pids=$(ip netns pids "$ns" 2>/dev/null)
		if [ -n "$pids" ]; then
			kill $pids 2>/dev/null
			sleep 0.2
			pids=$(ip netns pids "$ns" 2>/dev/null)
			[ -n "$pids" ] && kill -9 $pids 2>/dev/null
		fi
		ip netns delete "$ns" 2>/dev/null
	done
	if [ "$lab" = "$LAB" ]; then
		LAB=""
		LAB_HOSTS=()
	fi
	return 0
}

lab_bg() {
	local host=$1 log=$2
	shift 2
	ip netns exec "$LAB-$host" "$@" >"$log" 2>&1 &
	LAB_BG_PID=$!
}

# UDP GSO ("tx-udp-segmentation") is a feature of its own, not covered by "gso"; a kernel or an
# ethtool without it has nothing to turn off
_lab_udp_gso() { # NS DEV on|off
	ip netns exec "$1" ethtool -K "$2" tx-udp-segmentation "$3" >/dev/null 2>&1 || true
}

lab_offload() {
	local state=$1 host dev
	shift
	if ! command -v ethtool >/dev/null; then
		_lab_log "lab_offload: ethtool is not installed"
		return 1
	fi
	local hosts=("$@")
	[ ${#hosts[@]} -eq 0 ] && hosts=("${LAB_HOSTS[@]}")
	for host in "${hosts[@]}"; do
		if [ "$host" = br ]; then
			for dev in $(ip -n "$LAB-br" -o link show type veth | awk -F': ' '{print $2}' | cut -d@ -f1); do
				ip netns exec "$LAB-br" ethtool -K "$dev" tso "$state" gso "$state" gro "$state" \
					>/dev/null 2>&1 || { _lab_log "ethtool -K $dev failed"; return 1; }
				_lab_udp_gso "$LAB-br" "$dev" "$state"
			done
		else
			ip netns exec "$LAB-$host" ethtool -K eth0 tso "$state" gso "$state" gro "$state" \
				>/dev/null 2>&1 || { _lab_log "ethtool -K eth0 in $host failed"; return 1; }
			_lab_udp_gso "$LAB-$host" eth0 "$state"
		fi
	done
}

lab_mtu() {
	local mtu=$1 host dev
	for host in "${LAB_HOSTS[@]}"; do
		if [ "$host" = br ]; then
			for dev in $(ip -n "$LAB-br" -o link show type veth | awk -F': ' '{print $2}' | cut -d@ -f1); do
				ip -n "$LAB-br" link set "$dev" mtu "$mtu" || return 1
			done
			ip -n "$LAB-br" link set br0 mtu "$mtu" || return 1
		else
			ip -n "$LAB-$host" link set eth0 mtu "$mtu" || return 1
		fi
	done
}
