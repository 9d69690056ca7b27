#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Turn the pinned tarball into a git repository ($BASE_REPO) whose first
# commit is the base, tagged $BASE_TAG, so that `git am` and
# `git range-diff` work.  Done once: an existing repository with the tag
# is kept as it is.  The extract happens in a temporary folder that only
# takes the final name when complete.

. "$(dirname "$0")/lib.sh"

need git git
need tar tar
need xz xz-utils

if [ -d "$BASE_REPO" ]; then
	git -C "$BASE_REPO" rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null ||
		die "$BASE_REPO exists but has no tag $BASE_TAG; remove it (make distclean) to recreate it"
	exit 0
fi

tarball=$CACHE_DIR/$BASE_FILE
[ -f "$tarball" ] || die "$tarball missing: run 'make fetch' first"

lock_build
tmp=$(mktemp -d "$BUILD/.linux.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

msg "extracting $BASE_FILE"
# tar's messages are kept in memory: with the disk full, a file for them
# could not be written either.
if ! err=$(tar -xJf "$tarball" -C "$tmp" 2>&1 >/dev/null); then
	echo "$err" | tail -n 3 >&2
	grep -q 'No space left on device' <<<"$err" &&
		die "no space left on device in $BUILD while extracting the base (about 1.1 GB needed); nothing was kept"
	die "$tarball is corrupt or truncated (tar failed); remove it and run 'make fetch'"
fi
src=$tmp/$BASE_DIR_IN_TARBALL
[ -f "$src/Makefile" ] || die "$BASE_FILE does not hold $BASE_DIR_IN_TARBALL/"

version=$(make -s -C "$src" kernelversion)
[ "$version" = "$BASE_VERSION" ] ||
	die "$BASE_FILE holds Linux $version, not $BASE_VERSION"

msg "creating the base repository (one commit, tag $BASE_TAG)"
name=${IDENTITY% <*}
email=${IDENTITY##*<}; email=${email%>}
(
	cd "$src"
	git init -q -b base
	git add -A
	# Fixed dates and identity: every machine gets the same commit id.
	GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email \
	GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email \
	GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
		git commit -q -m "Linux $BASE_VERSION" \
			-m "Extracted from Debian's $BASE_FILE (sha256 $BASE_SHA256)."
	git tag "$BASE_TAG"
)
mv "$src" "$BASE_REPO"
msg "base repository ready at $BASE_REPO"
