#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Kernel-headers-4.10 check: every kernel constant newer than 4.10 (the PlutoSDR toolchain's headers)
# that the code uses must come with a guarded fallback in common/util/compat.h, and the file using it must
# include compat.h itself; io_uring code must sit behind ZCS_HAVE_URING.  Exit 1 on any finding.
#
# Why a list and not a compile against old headers: the 4.10 UAPI headers are not installable here,
# and glibc >= 2.27/2.28 defines several of these itself (MSG_ZEROCOPY, UDP_SEGMENT in
# netinet/udp.h), so a Debian build can never notice a missing fallback.  The list below is the set
# of socket/UDP/zero-copy ABI constants introduced after 4.10 (version in the second column);
# extend it when code starts using another one.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
compat="$top/common/util/compat.h"

# name  first-kernel  (all introduced after Linux 4.10)
newer_than_4_10='
SO_ZEROCOPY 4.14
MSG_ZEROCOPY 4.14
SO_EE_ORIGIN_ZEROCOPY 4.14
SO_EE_CODE_ZEROCOPY_COPIED 4.14
SO_INCOMING_NAPI_ID 4.12
UDP_SEGMENT 4.18
TCP_ZEROCOPY_RECEIVE 4.18
TCP_INQ 4.18
SO_TXTIME 4.19
SCM_TXTIME 4.19
SOF_TIMESTAMPING_OPT_TX_SWHW 4.13
UDP_GRO 5.0
IPV6_MULTICAST_ALL 4.20
IPV6_ROUTER_ALERT_ISOLATE 4.20
SO_TIMESTAMP_NEW 5.1
SO_TIMESTAMPNS_NEW 5.1
SO_TIMESTAMPING_NEW 5.1
SO_RCVTIMEO_NEW 5.1
SO_SNDTIMEO_NEW 5.1
SO_DETACH_REUSEPORT_BPF 5.2
IP_RECVERR_RFC4884 5.9
IPV6_RECVERR_RFC4884 5.9
SO_PREFER_BUSY_POLL 5.11
SO_BUSY_POLL_BUDGET 5.11
SO_NETNS_COOKIE 5.14
SO_BUF_LOCK 5.16
SO_RESERVE_MEM 5.16
SO_TXREHASH 6.0
SO_RCVMARK 6.0
IP_LOCAL_PORT_RANGE 6.3
MSG_SOCK_DEVMEM 6.12
'

# Sources that go into the board binary or its libraries (tests may use anything).
mapfile -t srcs < <(cd "$top" && find common formats sender receiver -name '*.[ch]' ! -name compat.h | sort)
# Search code, not comments: a copy of each source with comments stripped (the preprocessor's
# -fpreprocessed mode removes comments without expanding anything)...
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "${srcs[@]}"; do
	mkdir -p "$tmp/$(dirname "$f")"
	gcc -fpreprocessed -dD -E -P -x c "$top/$f" 2>/dev/null >"$tmp/$f.nc" || cp "$top/$f" "$tmp/$f.nc"
	# and string literals ("UDP_SEGMENT (GSO, Linux 4.18+): %s" is a message, not a use)
	sed -E 's/"([^"\\]|\\.)*"/""/g' "$tmp/$f.nc" >"$tmp/$f"
	rm -f "$tmp/$f.nc"
done
fail=0
checked=0
used_list=()
while read -r name since; do
	[ -n "$name" ] || continue
	users=$(cd "$tmp" && grep -lw -- "$name" "${srcs[@]}" 2>/dev/null || true)
	[ -n "$users" ] || continue
	checked=$((checked + 1))
	used_list+=("$name")
	if grep -Eq "^[[:space:]]*#[[:space:]]*ifndef[[:space:]]+$name\b" "$compat" &&
	   grep -Eq "^[[:space:]]*#[[:space:]]*define[[:space:]]+$name\b" "$compat"; then
		status=guarded
	else
		status=MISSING
		fail=1
	fi
	printf '  %-28s Linux %-5s %-8s used in: %s\n' "$name" "$since" "$status" "$(paste -sd' ' <<<"$users")"
	for f in $users; do
		if ! grep -Eq '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](common/)?compat\.h[>"]' "$top/$f"; then
			echo "  FAIL $f uses $name but does not include compat.h itself (include order must not matter)"
			fail=1
		fi
	done
done <<<"$newer_than_4_10"

# io_uring: Linux 5.1+ and liburing; only ever compiled when meson found liburing >= 2.3.
for f in $(cd "$tmp" && grep -lE '\bIORING_|\bio_uring_|liburing\.h' "${srcs[@]}" 2>/dev/null || true); do
	checked=$((checked + 1))
	if grep -q 'ZCS_HAVE_URING' "$top/$f"; then
		printf '  %-28s Linux 5.1+  guarded  by ZCS_HAVE_URING in %s\n' 'IORING_* / io_uring_*' "$f"
	else
		echo "  FAIL $f uses io_uring without an #if ZCS_HAVE_URING guard (builds with -During=disabled must not see it)"
		fail=1
	fi
done

# Part 2, a compile with those constants taken away: copies of the system headers that define any
# name on the list, minus those definitions, shadow the real ones (-I comes before the system dirs);
# every C file of common/, sender/ and receiver/ must still compile, as on the board's 4.10 headers
# and glibc 2.25 (which had none of them).  zcs_config.h as for a board build without liburing
# (nor avahi, which the board builds leave out).
cc=${CC:-cc}
shadow=$tmp/shadow
mkdir -p "$shadow/config"
names=$(awk 'NF == 2 { print $1 }' <<<"$newer_than_4_10" | paste -sd'|')
multiarch=$($cc -print-multiarch 2>/dev/null || true)
for dir in /usr/include${multiarch:+ /usr/include/$multiarch}; do
	for h in $(grep -rlE "^[[:space:]]*#[[:space:]]*define[[:space:]]+($names)\b" "$dir" 2>/dev/null); do
		rel=${h#"$dir"/}
		case "$rel" in "$multiarch"/*) continue ;; esac
		mkdir -p "$shadow/$(dirname "$rel")"
		# drop "#define NAME ..." and glibc's enum members "NAME = value," alike
		sed -E "/^[[:space:]]*#[[:space:]]*define[[:space:]]+($names)\b/d; /^[[:space:]]*($names)[[:space:]]*=/d" \
			"$h" >"$shadow/$rel"
	done
done
# every optional feature the sources ask about (ZCS_HAVE_*) is off, so a feature added later
# needs no edit here
{
	echo '#pragma once'
	grep -rhoE '\bZCS_HAVE_[A-Z0-9_]+\b' "$top/common" "$top/sender" "$top/receiver" |
		sort -u | sed 's/$/ 0/; s/^/#define /'
	cat <<'EOF2'
#define ZCS_SIMD_NEON 0
#define ZCS_SIMD_X86 0
#define ZCS_VERSION "compat-check"
EOF2
} >"$shadow/config/zcs_config.h"
nshadow=$(find "$shadow" -name '*.h' ! -path '*/config/*' | wc -l)
ncomp=0
# every folder of common/, sender/ and receiver/ that holds a header is an include directory of some seam
mapfile -t seam_incs < <(cd "$top" && find common sender receiver -name '*.h' -printf '-I'"$top"'/%h\n' | sort -u)
# (NEON files, *_neon.c, are compiled for ARM only and use no kernel constant: this is the host's
# compiler, which has no arm_neon.h)
for f in $(cd "$top" && find common sender receiver -name '*.c' ! -name '*_neon.c' | sort); do
	ncomp=$((ncomp + 1))
	if ! out=$($cc -std=gnu11 -D_GNU_SOURCE -fsyntax-only -I"$shadow" -I"$shadow/config" \
		-I"$top/formats" "${seam_incs[@]}" "$top/$f" 2>&1); then
		echo "  FAIL $f does not compile without the post-4.10 constants:"
		grep -E 'error' <<<"$out" | head -5 | sed 's/^/       /'
		fail=1
	fi
done
echo "  compiled $ncomp files of common/ sender/ receiver/ against $nshadow shadowed headers" \
	"(-During=disabled, no libiio/zstd)"

echo "kernel-compat-check: $checked constants/families newer than Linux 4.10 in use" \
	"(${used_list[*]:-none}): $([ $fail = 0 ] && echo passed || echo FAILED)"
exit $fail
