#!/bin/bash
# SPDX-License-Identifier: MIT
# soak.sh: the soak of issue 22 part 6 (docs/measurements.md, "Soak").  A keyed zcs-send multicasts
# p12 to two zcs-recv in their own namespaces, one of them behind zcs-impair (drops, reorders and
# duplicates), for MINUTES; the sender is restarted every RUN-MINUTES, each receiver's consumer is
# killed and reattached, the sender is retuned through the control channel every 10 s.  At the
# end every receiver's counts are reconciled exactly with what the sender sent and what the relay
# did, run by run, and the memory and descriptors of every process are shown over time.
#
# The lab (tests/lab/lab.sh, namespaces soak-PID-*), on one bridge:
#   tx  198.18.0.1   zcs-send --key --control 198.18.0.1:24701 -> 239.18.7.1:24700
#   rx1 198.18.0.11  zcs-recv 239.18.7.1:24700 (direct), consumer on tcp:127.0.0.1:24710
#   rx3 198.18.0.13  zcs-impair 239.18.7.1:24700 -> 239.18.7.2:24702 (the relay)
#   rx2 198.18.0.12  zcs-recv 239.18.7.2:24702 (behind the relay), consumer on tcp:24710
# Offloads are off on every link, so every skb the relay sees is one datagram.
#
# usage: soak.sh ZCS-SEND ZCS-RECV ZCS-CTL ZCS-IMPAIR [soak.py options]
#   e.g. soak.sh ... --minutes 30 --run-minutes 5 --rate 30.72M   (the hand-run soak)
#        soak.sh ... --ci                                          (2 minutes, 2 MS/s, asserted)
# Needs root, iproute2, ethtool.  SOAK_KEEP=1 keeps the logs in /tmp/zcs-soak-*.
# Exit status 0 when everything reconciled (and, with --ci, memory and descriptors stayed
# bounded), 1 otherwise.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 4 ]; then
	sed -n '2,21p' "$0" >&2
	exit 2
fi
SEND=$1 RECV=$2 CTL=$3 IMPAIR=$4
shift 4
# shellcheck source=../lab/lab.sh
source "$HERE/../lab/lab.sh"

TMP=$(mktemp -d /tmp/zcs-soak-XXXXXX)
lab_up soak 3 || { echo "FAIL: lab_up failed" >&2; exit 1; }
[ "${SOAK_KEEP:-0}" = 1 ] || lab_on_exit rm -rf "$TMP"
lab_offload off || { echo "FAIL: lab_offload off failed" >&2; exit 1; }
/usr/bin/python3 "$HERE/soak.py" --lab "$LAB" --tmp "$TMP" --send "$SEND" --recv "$RECV" \
	--ctl "$CTL" --impair "$IMPAIR" "$@"
rc=$?
[ "${SOAK_KEEP:-0}" = 1 ] && echo "logs kept in $TMP"
exit "$rc"
