#!/bin/bash
# SPDX-License-Identifier: MIT
# A shell on the emulated board, for exploring by hand (not a test): the tree, the feeder at
# RATE pairs/s (default 1000000) and iiod on 127.0.0.1 are up; exit the shell to tear it down.
#   sudo BOARD_BIN=build/tests/board tests/board/fakeboard_shell.sh [RATE]
. "$(dirname "$0")/fakeboard.sh"
fakeboard_enter "$@"
fakeboard_up
fakeboard_feed --rate "${1:-1000000}"
fakeboard_iiod
echo "emulated board up: try iio_info -u local:, iio_info -u ip:127.0.0.1; logs in $FB_TMP"
"${SHELL:-/bin/bash}" -i
