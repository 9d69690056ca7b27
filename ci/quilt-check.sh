#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# quilt-check.sh [FLAVOUR]: the series must also work as a quilt series:
# `quilt push -a` with no fuzz on a plain extract of its base (vanilla,
# the default: the pinned base; rt: Debian's debian-rt tree; android:
# ACK android12-5.10, as ci/android.sh imports it; a flavour through the
# series ci/series.sh prints for it).  Only the files the patches touch are
# extracted, which is all quilt needs.

. "$(dirname "$0")/lib.sh"

need quilt quilt
need git git
fl=${1:-vanilla}
case $fl in
vanilla) tag=$BASE_TAG ;;
rt)	tree_load debian-rt
	tag=$TR_TAG ;;
android) tree_load android
	tag=$TR_TAG ;;
*)	die "usage: quilt-check.sh [vanilla|rt|android]" ;;
esac
git -C "$BASE_REPO" rev-parse -q --verify "refs/tags/$tag" >/dev/null ||
	die "$BASE_REPO has no tag $tag: run 'make base' (SCENARIO=rt for rt, BASE_TREE=android for android) first"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mm510-quilt.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mapfile -t patches < <(series_patches "$TOP/series" "$fl")
[ ${#patches[@]} -gt 0 ] || { echo "empty series"; exit 0; }
mapfile -t files < <(for p in "${patches[@]}"; do
		sed -n 's,^--- a/\([^[:space:]]*\).*,\1,p' "$TOP/patches/$p"
	done | sort -u)
present=()
[ ${#files[@]} -eq 0 ] ||
	mapfile -t present < <(git -C "$BASE_REPO" ls-tree -r --name-only "$tag" -- "${files[@]}")
mkdir -p "$tmp/tree"
[ ${#present[@]} -eq 0 ] ||
	git -C "$BASE_REPO" archive "$tag" -- "${present[@]}" | tar -x -C "$tmp/tree"
series=$TOP/series
if [ "$fl" != vanilla ]; then
	series=$tmp/series-$fl
	"$TOP/ci/series.sh" "$fl" >"$series"
fi
cd "$tmp/tree"
QUILT_PATCHES=$TOP/patches QUILT_SERIES=$series quilt push -a --fuzz=0 >"$tmp/out" 2>&1 || {
	cat "$tmp/out"
	die "quilt push -a --fuzz=0 failed"
}
if grep -i 'fuzz' "$tmp/out"; then die "a patch applies only with fuzz"; fi
echo "${#patches[@]} patches pushed ($fl series on $tag)"
