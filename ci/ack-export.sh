#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ack-export.sh [OUTDIR]: the android flavour as ACK's own review takes
# patches (make ack-export; OUTDIR default build/ack): the same files,
# in the same order, with the subject tags and trailers of the Android
# common kernel's patch rules (seed 002, "Common Kernel patch
# requirements"):
#   - a backport of an upstream commit (a Git-commit: line) is tagged
#     "BACKPORT:", since every patch of the stack differs from upstream
#     (its message is ours, and so is much of its code); its trailers end
#     with "(cherry picked from commit <the full id>)", the id from
#     upstream.tsv;
#   - a patch of the stack's own (no upstream commit) is tagged
#     "ANDROID:";
#   - every patch gets a Change-Id:, "I" and the SHA-1 of "mm510 " and
#     its file name: the same for the same patch on every export, as
#     Gerrit needs to match a new version with the old.
# ACK also asks for a Bug: line where an Android bug is assigned (none
# is) and for the sender's Signed-off-by:, which sending adds.  OUTDIR
# gets the files and a quilt series file, written whole into a
# temporary folder first, then moved in place.

. "$(dirname "$0")/lib.sh"

out=${1:-$BUILD/ack}
need git git
[ -f "$TOP/upstream.tsv" ] || die "$TOP/upstream.tsv missing"
mapfile -t patches < <(series_patches "$TOP/series" android)
[ ${#patches[@]} -gt 0 ] || die "the android flavour of series is empty"

mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d "$(dirname "$out")/.ack.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/out"
for p in "${patches[@]}"; do
	f=$TOP/patches/$p
	[ -f "$f" ] || die "patches/$p missing"
	short=$(sed -n '/^---$/q; s/^Git-commit: \([0-9a-f]*\)$/\1/p' "$f" | head -n 1)
	if [ -n "$short" ]; then
		full=$(awk -F'\t' -v c="$short" '!/^#/ && index($1, c) == 1 { print $1 }' "$TOP/upstream.tsv" | sort -u)
		[ -n "$full" ] || die "patches/$p: Git-commit $short is not in upstream.tsv"
		[ "$(wc -l <<<"$full")" -eq 1 ] || die "patches/$p: Git-commit $short names several commits of upstream.tsv"
		tag=BACKPORT
	else
		full= tag=ANDROID
	fi
	grep -qx -- '---' "$f" || die "patches/$p has no '---' line after its message"
	cid=I$(printf 'mm510 %s' "${p##*/}" | sha1sum | cut -d' ' -f1)
	mkdir -p "$tmp/out/$(dirname "$p")"
	# The subject's first line gets the tag; the trailers go at the end of
	# the message, before the first "---".
	awk -v tag="$tag: " -v full="$full" -v cid="$cid" '
	!subj && /^Subject: / {
		subj = 1
		if (sub(/^Subject: \[PATCH\] /, "&" tag) == 0) sub(/^Subject: /, "&" tag)
	}
	!done && $0 == "---" {
		if (full != "") print "(cherry picked from commit " full ")"
		print "Change-Id: " cid
		done = 1
	}
	{ print }
	END { if (!subj) exit 1 }' "$f" >"$tmp/out/$p" || die "patches/$p has no Subject: line"
done
printf '%s\n' "${patches[@]}" >"$tmp/out/series"
rm -rf "$out.old"
[ ! -e "$out" ] || mv "$out" "$out.old"
mv "$tmp/out" "$out"
rm -rf "$out.old"
msg "$out: ${#patches[@]} patches of the android flavour, $(grep -l '^Subject: \[PATCH\] BACKPORT: ' -r "$out" | wc -l) BACKPORT:, $(grep -l '^Subject: \[PATCH\] ANDROID: ' -r "$out" | wc -l) ANDROID:"
