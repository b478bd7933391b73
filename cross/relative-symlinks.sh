#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Makes a sysroot's absolute symlinks relative to the sysroot.  An unpacked .deb or tarball can
# carry links such as usr/lib/<triplet>/libm.so -> /lib/<triplet>/libm.so.6: in a directory that
# is not / they point at the host, where the linker finds nothing and quietly takes libm.a instead,
# glibc-internal symbols and all.  Idempotent; prints how many it changed.
#
#   cross/relative-symlinks.sh SYSROOT
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 SYSROOT" >&2; exit 2; }
sysroot=$(realpath "$1")
changed=0
while IFS= read -r link; do
	# -s: resolve nothing on the way, or a link through a still-absolute directory link would
	# land on a host path
	ln -sfn "$(realpath -s -m --relative-to="$(dirname "$link")" "$sysroot$(readlink "$link")")" "$link"
	changed=$((changed + 1))
done < <(find "$sysroot" -type l -lname '/*')
echo "relative-symlinks: $changed absolute symlinks made relative in $sysroot"
