#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# refresh.sh: write patches/ back from the stack's branch, OpenWrt's
# refresh loop for a git-based queue.  Edit the stack as commits (git
# rebase -i in build/stack, git commit --fixup, a new commit where a
# new patch goes), name every commit's file in `series` in the same
# order, then run `make refresh`: each commit becomes its series file
# again, as `git format-patch` writes it, so every hunk's context and
# offsets are those of its real position.  Files the series no longer
# names are left for you to `git rm`.
#
# BASE_TREE=debian-rt refreshes the RT flavour's own files (patches/rt/)
# from its stack (build/stack-debian-rt, branch mm510-debian-rt); the
# patches it shares with the vanilla series keep the vanilla context and
# are refreshed from the vanilla stack only.
#
# Refuses (and writes nothing) when a patch file was edited since
# `make apply` (the edit would be lost), or when the branch and the
# series do not have the same number of patches.  The match is by
# position, the name comes from `series`; a commit whose subject is not
# its file's says so (a subject changed on purpose, or a series out of
# the branch's order).

. "$(dirname "$0")/lib.sh"

need git git
lock_build
stack=$(stack_tree)
branch=$(stack_branch)
[ -d "$stack" ] || die "$stack missing: run 'make apply' first"
mapfile -t patches < <(series_patches)
[ ${#patches[@]} -gt 0 ] || die "the series is empty"

base=$(git -C "$stack" rev-parse -q --verify "$TR_TAG^{commit}") ||
	die "$stack has no tag $TR_TAG"
mapfile -t commits < <(git -C "$stack" rev-list --reverse "$base..$branch")
[ ${#commits[@]} -eq ${#patches[@]} ] ||
	die "branch $branch has ${#commits[@]} commits on $TR_TAG, series names ${#patches[@]} patches: add or remove series entries first"

# subject_of FILE: the unfolded Subject of a patch file, without [PATCH].
subject_of() {
	sed -n '2,/^$/p' "$1" | sed -e ':a' -e 'N' -e '$!ba' -e 's/\n[ \t]\+/ /g' |
		sed -n 's/^Subject: \(\[[^]]*\] *\)\?//p' | head -n 1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The format of the files in patches/: zero From hash, no signature,
# no [PATCH n/m], index lines of 9 hex digits.
git -C "$stack" -c core.abbrev=9 format-patch -q --zero-commit --no-signature \
	--no-numbered -o "$tmp/out" "$base..$branch"
mapfile -t made < <(find "$tmp/out" -name '*.patch' | sort)
[ ${#made[@]} -eq ${#patches[@]} ] || die "git format-patch wrote ${#made[@]} files, expected ${#patches[@]}"

# A patch file edited since `make apply` would lose the edit: refuse,
# naming them, before writing anything.
stamp_file=$BUILD/$(basename "$stack").applied
edited=()
if [ -f "$stamp_file" ]; then
	for p in "${patches[@]}"; do
		[ -f "$TOP/patches/$p" ] || continue
		was=$(awk -v f="$p" 'NR > 2 && substr($0, 67) == f { print $1 }' "$stamp_file")
		[ -n "$was" ] || continue
		[ "$(sha256sum <"$TOP/patches/$p" | cut -d' ' -f1)" = "$was" ] || edited+=("$p")
	done
fi
[ ${#edited[@]} -eq 0 ] || {
	printf '  patches/%s\n' "${edited[@]}" >&2
	die "${#edited[@]} patch file(s) above changed since 'make apply'; refreshing would lose those edits: apply them first (make apply, then redo the branch's changes) or undo them; nothing was written"
}

# A flavour's refresh leaves the shared patches to the vanilla one.
shared=()
[ "$TR_FLAVOUR" = vanilla ] || mapfile -t shared < <(series_patches "$TOP/series" vanilla)
changed=0
for i in "${!patches[@]}"; do
	p=${patches[$i]} f=${made[$i]}
	if [ ${#shared[@]} -gt 0 ] && in_list "$p" "${shared[@]}"; then
		continue
	fi
	cmp -s "$f" "$TOP/patches/$p" && continue
	if [ -f "$TOP/patches/$p" ] &&
	   [ "$(subject_of "$f")" != "$(subject_of "$TOP/patches/$p")" ]; then
		msg "note: patches/$p had the subject '$(subject_of "$TOP/patches/$p")', commit $((i + 1)) has '$(subject_of "$f")'"
	fi
	cp "$f" "$TOP/patches/$p"
	msg "refreshed patches/$p"
	changed=$((changed + 1))
done
msg "$changed of ${#patches[@]} patch files rewritten from $branch"

# When every file now is what the branch makes, record the series as
# applied, as ci/apply.sh does: the next refresh, after more commits,
# then takes these files as its starting point instead of refusing them
# as edited, and `make apply` has nothing to redo.  A flavour's shared
# patches keep the vanilla context: each must be the file the branch
# was applied from (its hash in the old record).
for i in "${!patches[@]}"; do
	p=${patches[$i]}
	if [ ${#shared[@]} -gt 0 ] && in_list "$p" "${shared[@]}"; then
		[ -f "$stamp_file" ] || exit 0
		was=$(awk -v f="$p" 'NR > 2 && substr($0, 67) == f { print $1 }' "$stamp_file")
		[ -n "$was" ] && [ "$(sha256sum <"$TOP/patches/$p" | cut -d' ' -f1)" = "$was" ] || exit 0
		continue
	fi
	cmp -s "${made[$i]}" "$TOP/patches/$p" || exit 0
done
stamp_applied "$stamp_file" "$base" "$branch" "$(git -C "$stack" rev-parse "$branch")" \
	"${patches[@]}"
