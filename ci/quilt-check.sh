#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The series must also work as a quilt series: `quilt push -a` with no
# fuzz on a plain extract of the base.  Only the files the patches touch
# are extracted, which is all quilt needs.

. "$(dirname "$0")/lib.sh"

need quilt quilt
need git git
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mm510-quilt.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mapfile -t patches < <(series_patches)
[ ${#patches[@]} -gt 0 ] || { echo "empty series"; exit 0; }
mapfile -t files < <(for p in "${patches[@]}"; do
		sed -n 's,^--- a/\([^[:space:]]*\).*,\1,p' "$TOP/patches/$p"
	done | sort -u)
present=()
[ ${#files[@]} -eq 0 ] ||
	mapfile -t present < <(git -C "$BASE_REPO" ls-tree -r --name-only "$BASE_TAG" -- "${files[@]}")
mkdir -p "$tmp/tree"
[ ${#present[@]} -eq 0 ] ||
	git -C "$BASE_REPO" archive "$BASE_TAG" -- "${present[@]}" | tar -x -C "$tmp/tree"
cd "$tmp/tree"
QUILT_PATCHES=$TOP/patches QUILT_SERIES=$TOP/series quilt push -a --fuzz=0 >"$tmp/out" 2>&1 || {
	cat "$tmp/out"
	die "quilt push -a --fuzz=0 failed"
}
if grep -i 'fuzz' "$tmp/out"; then die "a patch applies only with fuzz"; fi
echo "${#patches[@]} patches pushed"
