#!/bin/bash
# SPDX-License-Identifier: MIT
# The armhf zcs-send on the emulated board: the send_* scenarios of this directory, with the
# board's helpers from a native build and ZCS_SEND = the cross build's zcs-send under
# qemu-arm -cpu cortex-a9 -L SYSROOT, i.e. with that sysroot's glibc and libiio (local backend).
# send_iiod is left out: it needs libiio's network backend, which a board sysroot may lack, and
# on the board zcs-send reads the radio through local:.
#
#   tests/board/cross_send.sh NATIVE_BUILD CROSS_BUILD SYSROOT [RESULTS.json]
#
# RESULTS gets one JSON line per scenario in meson's testlog format (name, result), for
# tests/summary.py.  Run by .ci/armhf.sh and cross/sysroot-recipe-check.sh; exits 1 if any failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 3 ] || { sed -n '9p' "$0" | sed 's/^#  *//' >&2; exit 2; }
native=$(realpath "$1")
cross=$(realpath "$2")
sysroot=$(realpath "$3")
results=${4:-/dev/null}
board_bin=$native/tests/board
shim=$cross/tests/board/libexcl_open.so
driver=$cross/tests/board/libboard_driver.so

for need in "$board_bin/check_board" "$shim" "$driver" "$cross/sender/zcs-send"; do
	[ -e "$need" ] || { echo "cross_send: $need is missing (built with -Diio=enabled -Dtests=enabled?)" >&2; exit 1; }
done
# The emulated board preloads its exclusive-open shim and its drivers' store handlers
# (board_driver.c) into every process; the armhf program gets the armhf builds of them, given to
# its own loader with qemu's -E (the x86 ones stay with qemu).
wrapper=$cross/zcs-send-qemu
printf '#!/bin/bash\nexec qemu-arm -cpu cortex-a9 -L %q -E LD_PRELOAD=%q %q "$@"\n' \
	"$sysroot" "$shim:$driver" "$cross/sender/zcs-send" >"$wrapper"
chmod +x "$wrapper"

: >"$results"
failed=0
scenarios=(send_local send_keyed send_settings send_disable send_errors)
# send_low_rates: rtl_433's 250 kS/s and 1 MS/s through the sysroot's libad9361 (the AD9361's
# FIR) and the capture core's /8, when the cross build has libad9361 (a sysroot may lack it)
grep -q '^#define ZCS_HAVE_AD9361 1' "$cross/zcs_config.h" && scenarios+=(send_low_rates)
for t in "${scenarios[@]}"; do
	log=$cross/board-cross-$t.log
	start=$(date +%s)
	# the PC's programs (zcs-recv, zcs-ctl) are the native build's: only zcs-send is the board's
	if BOARD_BIN=$board_bin ZCS_SEND=$wrapper ZCS_RECV=$native/receiver/zcs-recv \
		ZCS_CTL=$native/ctl/zcs-ctl timeout 600 bash "$here/$t.sh" >"$log" 2>&1; then
		result=OK
	else
		result=FAIL
		failed=$((failed + 1))
		tail -30 "$log" >&2
	fi
	printf '{"name": "board-cross/%s", "result": "%s", "duration": %d}\n' "$t" "$result" \
		"$(($(date +%s) - start))" >>"$results"
	echo "$t (armhf under qemu): $result"
done
exit $((failed > 0))
