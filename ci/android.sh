#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# android.sh [--checkout]: import the Android common kernel of the
# android flavour (ci/android.pin: ACK android12-5.10 at 5.10.252) into
# the base repository, tag $ANDROID_BRANCH/$ANDROID_VERSION, as
# ci/debian.sh imports Debian's trees.  The tree comes from the git
# bundle in $ANDROID_DIR (default ../shared/android), whose sha256 is
# checked before git reads it; nothing is fetched from a network.  The
# bundle holds one commit whose parent is the pinned base commit, so
# `make base` comes first.  A bundle that is missing, has the wrong
# checksum, or holds another commit or branch stops the import, and no
# ref is kept.  Done once: an existing tag is kept.  With --checkout the
# tree is also checked out (a detached worktree, $BUILD/base-android,
# for TREE=base builds).
#
# A user's own checkout of android12-5.10 (KERNEL_TREE=, checked by
# ci/apply.sh) needs no import: ci/main.sh does not call this then.

. "$(dirname "$0")/lib.sh"

need git git
need sha256sum coreutils

checkout=
case ${1:-} in
'') ;;
--checkout) checkout=1 ;;
*) die "usage: android.sh [--checkout]" ;;
esac

tag=$ANDROID_BRANCH/$ANDROID_VERSION
[ -d "$BASE_REPO" ] || die "$BASE_REPO missing: run 'make base' first"
if git -C "$BASE_REPO" rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
	[ -z "$checkout" ] || worktree_at "$BUILD/base-android" "$(git -C "$BASE_REPO" rev-parse "$tag^{commit}")"
	exit 0
fi

bundle=$ANDROID_DIR/$ANDROID_BUNDLE
[ -f "$bundle" ] ||
	die "no Android common kernel: $bundle is missing.  Give your own $ANDROID_BRANCH checkout with KERNEL_TREE=<folder>, or set ANDROID_DIR to the folder that holds $ANDROID_BUNDLE"
git -C "$BASE_REPO" rev-parse -q --verify "$ANDROID_PARENT^{commit}" >/dev/null ||
	die "$BASE_REPO lacks $ANDROID_PARENT ($BASE_TAG), the commit $ANDROID_BUNDLE is made on: run 'make base' first"

lock_build
sum=$(sha256sum "$bundle" | cut -d' ' -f1)
[ "$sum" = "$ANDROID_BUNDLE_SHA256" ] ||
	die "$bundle: checksum mismatch (sha256 $sum, ci/android.pin says $ANDROID_BUNDLE_SHA256); it was not read, nothing was imported"

# Fetched to a ref of our own, checked, then tagged: a check that fails
# leaves no ref behind (the objects, unreachable, go at the next gc).
ref=refs/mm510-import/android
trap 'git -C "$BASE_REPO" update-ref -d "$ref" 2>/dev/null || :' EXIT
msg "importing $ANDROID_BRANCH $ANDROID_VERSION from $ANDROID_BUNDLE"
if ! err=$(git -C "$BASE_REPO" fetch -q --no-tags "$bundle" "+$ANDROID_BUNDLE_REF:$ref" 2>&1); then
	echo "$err" | tail -n 3 >&2
	die "$bundle: git could not read $ANDROID_BUNDLE_REF from it (output above); nothing was imported"
fi
head=$(git -C "$BASE_REPO" rev-parse "$ref^{commit}")
[ "$head" = "$ANDROID_HEAD" ] ||
	die "$ANDROID_BUNDLE holds commit $head, ci/android.pin says $ANDROID_HEAD; nothing was imported"
branch=$(android_branch "$ref")
[ "$branch" = "$ANDROID_BRANCH" ] ||
	die "$ANDROID_BUNDLE is not $ANDROID_BRANCH (its build.config names BRANCH=${branch:-nothing}); nothing was imported"
git -C "$BASE_REPO" tag "$tag" "$head"
msg "tagged $tag ($(git -C "$BASE_REPO" rev-parse --short "$head"): $ANDROID_BRANCH at $ANDROID_VERSION, $(git -C "$BASE_REPO" diff --shortstat "$BASE_TAG" "$head" | sed "s/^ *//"))"
[ -z "$checkout" ] || worktree_at "$BUILD/base-android" "$head"
