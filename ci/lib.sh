# SPDX-License-Identifier: GPL-2.0
# Shared by the ci/*.sh scripts: paths, the pin, messages, locking.
# Sourced, never run.

set -euo pipefail
# Die on SIGINT/SIGTERM through `exit`, so that each script's EXIT trap
# still removes its temporary files when a run is interrupted.
trap 'exit 130' INT
trap 'exit 143' TERM

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=ci/base.pin
. "$TOP/ci/base.pin"

BUILD=${BUILD:-$TOP/build}
CACHE_DIR=${CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mm510}
BASE_REPO=${BASE_REPO:-$BUILD/linux}
# The peer kernel of make bench (ci/peer.sh, ci/peer.pin).
PEER_TREE=${PEER_TREE:-$BUILD/peer}
STACK_BRANCH=${STACK_BRANCH:-mm510}
IDENTITY=$(head -n 1 "$TOP/ci/identity")
export CCACHE_DIR=${CCACHE_DIR:-$CACHE_DIR/ccache}

# No background `git gc --auto`: it would outlive the script holding the
# build lock's file descriptor, and it would touch a user's KERNEL_TREE.
export GIT_CONFIG_COUNT=2
export GIT_CONFIG_KEY_0=gc.auto GIT_CONFIG_VALUE_0=0
export GIT_CONFIG_KEY_1=maintenance.auto GIT_CONFIG_VALUE_1=false

# Messages go to stderr so that scripts can print results on stdout.
msg() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# need TOOL PACKAGE: a missing host tool names the Debian package.
# sha256_ok FILE WANT: true when FILE's sha256 is WANT; otherwise says
# what was expected and what was found, and is false.
sha256_ok() {
	local sum
	sum=$(sha256sum "$1" | cut -d' ' -f1)
	[ "$sum" = "$2" ] && return 0
	msg "checksum mismatch for $1"
	msg "  expected $2"
	msg "  got      $sum"
	return 1
}

# free_mib DIR: the MiB free on DIR's file system (DIR, or the nearest
# folder above it that exists).
free_mib() {
	local d=$1
	while [ ! -d "$d" ]; do d=$(dirname "$d"); done
	df -Pm "$d" | awk 'NR == 2 { print $4 }'
}

# need_space DIR MIB WHAT: stop before WHAT when DIR's file system has
# less than MIB free, rather than fail half-way with a full disk.
need_space() {
	local free
	free=$(free_mib "$1")
	[ "$free" -ge "$2" ] ||
		die "only $free MiB free on $1's file system; $3 needs about $2 MiB: free some space (make distclean removes build/)"
}

need() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: install it with 'apt-get install $2' (or run 'make deps' as root)"
}

# Hold an exclusive lock on the build folder for the rest of the script,
# so that two runs on one build folder wait for each other instead of
# corrupting the trees.  A run that already holds it (the Makefile
# calling several steps) passes MM510_LOCKED=1 down.
lock_build() {
	[ "${MM510_LOCKED:-}" = 1 ] && return 0
	mkdir -p "$BUILD"
	exec 9>"$BUILD/.lock"
	if ! flock -n 9; then
		msg "another run holds $BUILD/.lock; waiting for it"
		flock 9
	fi
	export MM510_LOCKED=1
}

# The patch files named by a quilt series file, in order.
series_patches() {
	local series=${1:-$TOP/series}
	sed -e 's/#.*//' -e 's/[[:space:]].*//' "$series" | grep -v '^$' || :
}

# The tree the stack is applied in: ours, or a worktree of KERNEL_TREE.
stack_tree() {
	if [ -n "${KERNEL_TREE:-}" ]; then
		echo "$BUILD/stack-user"
	else
		echo "$BUILD/stack"
	fi
}
