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
# Refuses (and writes nothing) when the branch and the series do not
# have the same number of patches.  The match is by position, the name
# comes from `series`; a commit whose subject is not its file's says so
# (a subject changed on purpose, or a series out of the branch's order).

. "$(dirname "$0")/lib.sh"

need git git
lock_build
stack=$(stack_tree)
[ -d "$stack" ] || die "$stack missing: run 'make apply' first"
mapfile -t patches < <(series_patches)
[ ${#patches[@]} -gt 0 ] || die "the series is empty"

base=$(git -C "$stack" rev-parse -q --verify "$BASE_TAG^{commit}") ||
	die "$stack has no tag $BASE_TAG"
mapfile -t commits < <(git -C "$stack" rev-list --reverse "$base..$STACK_BRANCH")
[ ${#commits[@]} -eq ${#patches[@]} ] ||
	die "branch $STACK_BRANCH has ${#commits[@]} commits on $BASE_TAG, series names ${#patches[@]} patches: add or remove series entries first"

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
	--no-numbered -o "$tmp/out" "$base..$STACK_BRANCH"
mapfile -t made < <(find "$tmp/out" -name '*.patch' | sort)
[ ${#made[@]} -eq ${#patches[@]} ] || die "git format-patch wrote ${#made[@]} files, expected ${#patches[@]}"

changed=0
for i in "${!patches[@]}"; do
	p=${patches[$i]} f=${made[$i]}
	cmp -s "$f" "$TOP/patches/$p" && continue
	if [ -f "$TOP/patches/$p" ] &&
	   [ "$(subject_of "$f")" != "$(subject_of "$TOP/patches/$p")" ]; then
		msg "note: patches/$p had the subject '$(subject_of "$TOP/patches/$p")', commit $((i + 1)) has '$(subject_of "$f")'"
	fi
	cp "$f" "$TOP/patches/$p"
	msg "refreshed patches/$p"
	changed=$((changed + 1))
done
msg "$changed of ${#patches[@]} patch files rewritten from $STACK_BRANCH"
