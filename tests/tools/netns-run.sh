#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs one test in a network namespace of its own with only loopback up: the suites use fixed
# ports, so two runs on one host (another build directory, meson test --repeat N with several
# processes) would otherwise bind the same ports and take each other's datagrams and connections.
# Usage: netns-run.sh CMD [ARGS...]   (the meson test's exe; the real test command as arguments)
# unshare -n does not fork: the test stays this process, with its exit status and signals.  Without
# the right to create a namespace (not root, no user namespaces) the test runs on the host, said on
# standard error, like tests/recv/recvlib.py isolate(); ZCS_TEST_NETNS=1 marks a run already inside.
if [ "$#" -eq 0 ]; then
	echo "usage: netns-run.sh CMD [ARGS...]" >&2
	exit 2
fi
if [ "${ZCS_TEST_NETNS:-}" = 1 ]; then
	exec "$@"
fi
export ZCS_TEST_NETNS=1
# root: a plain network namespace; otherwise one inside a user namespace mapping us to root
for mode in -n "-r -n"; do
	# shellcheck disable=SC2086  # mode is one or two options
	if unshare $mode -- ip link set lo up 2>/dev/null; then
		# shellcheck disable=SC2016  # expanded by the inner shell
		exec unshare $mode -- /bin/sh -c 'ip link set lo up && exec "$@"' sh "$@"
	fi
done
echo "netns-run.sh: cannot create a network namespace (needs root or user namespaces);" \
	"running on the host's loopback, where a parallel run of the same test may collide" >&2
exec "$@"
