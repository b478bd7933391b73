#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""docs/packaging.md's install line names every package the package build needs: debian/control's
Build-Depends (debhelper-compat is debhelper's) and build-essential, which dpkg-checkbuilddeps
adds to every source package; and quickstart.sh's lists, which CI installs, name them too.
A newcomer's dpkg-buildpackage on a fresh machine otherwise stops at "Unmet build dependencies".

Usage: check_build_deps.py SOURCE_ROOT.  Exit 0 when they agree; 1 with each missing name."""
import re
import sys
from pathlib import Path

# Packages that debian/control names by a virtual name another package provides.
PROVIDED_BY = {"debhelper-compat": "debhelper"}
# What dpkg-checkbuilddeps requires of every build (dpkg-dev comes with build-essential, but
# the doc names it for dpkg-buildpackage itself).
IMPLICIT = {"build-essential", "dpkg-dev"}


def build_depends(control: str) -> set[str]:
    """The package names of the source stanza's Build-Depends (alternatives: each of them)."""
    source = control.split("\n\n", 1)[0]
    m = re.search(r"^Build-Depends:(.*?)(?=^\S|\Z)", source, re.M | re.S)
    if not m:
        raise SystemExit("debian/control: no Build-Depends in the source stanza")
    names = set()
    for dep in m.group(1).replace("\n", " ").split(","):
        for alt in dep.split("|"):
            name = re.sub(r"\(.*?\)|\[.*?\]|<.*?>|:\w+", "", alt).strip()
            if name:
                names.add(PROVIDED_BY.get(name, name))
    return names


def doc_install_line(md: str) -> set[str]:
    """The names of the first `apt-get install` in a sh block of docs/packaging.md (joined over
    its backslash-continued lines)."""
    for block in re.findall(r"```sh\n(.*?)```", md, re.S):
        text = block.replace("\\\n", " ")
        for line in text.splitlines():
            words = line.split("#", 1)[0].split()
            if words[:2] == ["apt-get", "install"]:
                return {w for w in words[2:] if not w.startswith("-")}
    raise SystemExit("docs/packaging.md: no `apt-get install` line in a ```sh block")


def quickstart_lists(sh: str) -> set[str]:
    names = set()
    for body in re.findall(r"^[A-Z_]+_PKGS=\((.*?)\)", sh, re.M | re.S):
        names.update(body.split())
    return names


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    need = build_depends((root / "debian/control").read_text())
    doc = doc_install_line((root / "docs/packaging.md").read_text())
    quick = quickstart_lists((root / "quickstart.sh").read_text())
    fails = 0
    for name in sorted((need | IMPLICIT) - doc):
        print(f"docs/packaging.md's apt-get install line lacks {name} (debian/control)")
        fails += 1
    # g++ comes with quickstart's build-essential
    for name in sorted(need - quick - {"g++"}):
        print(f"quickstart.sh's package lists lack {name} (debian/control's Build-Depends)")
        fails += 1
    print(f"{len(need)} build dependencies; doc names {len(doc)} packages: "
          f"{'agree' if not fails else f'{fails} missing'}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
