#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# peer.sh: fetch, verify and extract the peer kernel of `make bench`
# (ci/peer.pin: Debian's linux-source-6.1) into $PEER_TREE.
#
# The .deb comes from `apt-get download` of the pinned version into
# $CACHE_DIR/peer: apt reads this machine's package lists and writes
# nothing but the .deb (its sources and lists are never changed).  A
# cached .deb is used as it is after its sha256 is checked; a mismatch is
# an error, never a silent re-download.  MM510_PEER_DEB=/path uses a .deb
# you already have (verified the same way).  The extract happens in a
# temporary folder that takes the final name only when complete.

. "$(dirname "$0")/lib.sh"
# shellcheck source=ci/peer.pin
. "$TOP/ci/peer.pin"

deb=${MM510_PEER_DEB:-$CACHE_DIR/peer/$PEER_DEB}

need tar tar
need xz xz-utils
need dpkg-deb dpkg

if [ -f "$PEER_TREE/Makefile" ]; then
	exit 0
fi

if [ ! -f "$deb" ]; then
	[ -z "${MM510_PEER_DEB:-}" ] || die "MM510_PEER_DEB=$deb does not exist"
	need apt-get apt
	mkdir -p "$CACHE_DIR/peer"
	msg "downloading $PEER_PACKAGE=$PEER_PKG_VERSION"
	# apt-get download writes into the current folder; a failed download
	# leaves no file under the final name.
	(cd "$CACHE_DIR/peer" && apt-get download -q "$PEER_PACKAGE=$PEER_PKG_VERSION") >&2 ||
		die "apt-get download $PEER_PACKAGE=$PEER_PKG_VERSION failed (is that version still in this machine's apt lists? 'apt-cache policy $PEER_PACKAGE')"
	[ -f "$deb" ] || die "apt-get download did not produce $deb"
fi
sha256_ok "$deb" "$PEER_SHA256" || die "$deb is not the pinned $PEER_DEB; remove it to download it again"

lock_build
mkdir -p "$(dirname "$PEER_TREE")"
tmp=$(mktemp -d "$(dirname "$PEER_TREE")/.peer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
msg "extracting $PEER_TARBALL_IN_DEB of $PEER_DEB"
dpkg-deb --fsys-tarfile "$deb" | tar -xO "$PEER_TARBALL_IN_DEB" | tar -xJ -C "$tmp" ||
	die "extracting $PEER_DEB failed"
src=$tmp/$PEER_DIR_IN_TARBALL
[ -f "$src/Makefile" ] || die "$PEER_DEB does not hold $PEER_DIR_IN_TARBALL/"
version=$(make -s -C "$src" kernelversion)
[ "$version" = "$PEER_VERSION" ] ||
	die "$PEER_DEB holds Linux $version, not $PEER_VERSION"
rm -rf "$PEER_TREE"
mv "$src" "$PEER_TREE"
msg "peer tree: $PEER_TREE (Linux $version)"
