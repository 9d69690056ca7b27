#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Apply `series` with `git am`, in order, on a fresh branch from the base.
#
# The base is the tree of SCENARIO (a fragment's "# Tree:", else
# BASE_TREE; ci/lib.sh's tree_load): the vanilla base, or one of
# Debian's (ci/debian.sh), with the series' flavour for it (the RT
# flavour on debian-rt).
# The stack lives in a git worktree of the base repository (ours, or the
# user's KERNEL_TREE), on branch $STACK_BRANCH (with -debian or
# -debian-rt for Debian's trees); the user's checked-out branch and
# working tree are never touched.  A patch that does not apply
# is named with the failing hunk, `git am --abort` runs, the worktree is
# left at the base, and the exit status is non-zero.  When neither the
# base nor the series changed since the last run, nothing is done, so the
# kernel build that follows rebuilds nothing.

. "$(dirname "$0")/lib.sh"
. "$TOP/ci/scenario.sh"

scenario_load "${SCENARIO:-default}"
need git git
lock_build

tree=$(stack_tree)
series=$TOP/series
[ -f "$series" ] || die "$series missing"

if [ -n "${KERNEL_TREE:-}" ]; then
	src=$(cd "$KERNEL_TREE" 2>/dev/null && pwd) ||
		die "KERNEL_TREE=$KERNEL_TREE is not a folder"
	git -C "$src" rev-parse --git-dir >/dev/null 2>&1 ||
		die "KERNEL_TREE=$src is not a git repository"
	version=$(make -s -C "$src" kernelversion 2>/dev/null) ||
		die "KERNEL_TREE=$src: 'make kernelversion' failed; is it a kernel tree?"
	# ACK is named by its branch (its 5.10.y moves with each merge);
	# the other trees by the release.
	if [ "$TR_NAME" = android ]; then
		ack=$(android_branch "$src")
		[ "$ack" = "$ANDROID_BRANCH" ] ||
			die "KERNEL_TREE=$src is not $ANDROID_BRANCH (its build.config names BRANCH=${ack:-nothing}); the android flavour is for $ANDROID_BRANCH"
	else
		[ "$version" = "$BASE_VERSION" ] ||
			die "KERNEL_TREE=$src is at $version; the stack needs $BASE_VERSION"
	fi
	[ -z "$(git -C "$src" status --porcelain)" ] ||
		die "KERNEL_TREE=$src has uncommitted changes; commit or stash them first"
	base=$(git -C "$src" rev-parse HEAD)
	base_name="KERNEL_TREE's HEAD, $(git -C "$src" rev-parse --short HEAD)"
else
	src=$BASE_REPO
	[ -d "$src" ] || die "$src missing: run 'make base' first"
	base=$(git -C "$src" rev-parse -q --verify "$TR_TAG^{commit}") ||
		die "$src has no tag $TR_TAG (tree $TR_NAME): run 'make base' first"
	base_name=$TR_TAG
fi

# Every file named by the series must exist before anything is touched.
mapfile -t patches < <(series_patches "$series")
[ ${#patches[@]} -gt 0 ] || die "$series names no patch for flavour $TR_FLAVOUR"
branch=$(stack_branch)
for p in "${patches[@]}"; do
	[ -f "$TOP/patches/$p" ] || die "series names patches/$p, which does not exist"
done

stamp_file=$BUILD/$(basename "$tree").applied
stamp=$(series_stamp "$base" "$branch" "${patches[@]}")

if [ -d "$tree" ]; then
	common=$(cd "$tree" && cd "$(git rev-parse --git-common-dir)" && pwd) ||
		die "$tree exists but is not a git worktree; remove it"
	[ "$common" = "$(cd "$src" && cd "$(git rev-parse --git-common-dir)" && pwd)" ] ||
		die "$tree is a worktree of another repository; remove it (git worktree remove) or use another BUILD"
	gitdir=$(git -C "$tree" rev-parse --absolute-git-dir)
	if [ -d "$gitdir/rebase-apply" ]; then
		msg "an earlier run was interrupted during 'git am'; aborting it"
		git -C "$tree" am --abort
	fi
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
		die "$tree has uncommitted changes; commit them elsewhere or discard them (git -C $tree checkout -- .) first"
	if stamp_current "$stamp_file" "$stamp" "$(git -C "$tree" rev-parse HEAD)"; then
		msg "$tree: series already applied, nothing to do"
		exit 0
	fi
else
	if [ -n "${KERNEL_TREE:-}" ] &&
	   git -C "$src" rev-parse -q --verify "refs/heads/$branch" >/dev/null; then
		die "$src already has a branch '$branch' that this stack did not make; delete it or set STACK_BRANCH=<name>"
	fi
	git -C "$src" worktree prune
	git -C "$src" worktree add -q --detach "$tree" "$base"
fi

rm -f "$stamp_file"
# Only files that differ move, so an unchanged series rebuilds little.
git -C "$tree" checkout -q --detach "$base"

name=${IDENTITY% <*}
email=${IDENTITY##*<}; email=${email%>}
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email

# tree_marks PATCH: what of a downstream tree's own stands where `git
# am` (its output in $out) failed in PATCH, as ", where it meets ...",
# or nothing: the calls (vendor hooks, KABI reserves, its own helpers)
# in the base's lines there that the file of the vanilla base
# ($BASE_TAG) does not have.  The lines are those of the function or
# struct that the failing hunk names in its @@ line (found by its name:
# the downstream tree moves it and may change its arguments), else
# those around the hunk's position.
tree_marks() {
	local at file line what re from to text vanilla marks
	at=$(sed -n 's/^error: patch failed: //p' <<<"$out" | head -n 1)
	[ -n "$at" ] || return 0
	file=${at%:*} line=${at##*:}
	[[ $line =~ ^[0-9]+$ ]] || return 0
	text=$(git -C "$src" show "$base:$file" 2>/dev/null) || return 0
	vanilla=$(git -C "$BASE_REPO" show "$BASE_TAG:$file" 2>/dev/null) || return 0
	# The hunk's @@ line: "NAME" for a function (a line that does not
	# end in ";"), "struct NAME" for a type.
	what=$(awk -v f="+++ b/$file" -v l="$line" '
		$0 == f { in_file = 1; next }
		/^\+\+\+ / { in_file = 0 }
		in_file && index($0, "@@ -" l ",") == 1 {
			sub(/^@@ [^@]* @@ ?/, "")
			if (match($0, /^(struct|union|enum) [A-Za-z_][A-Za-z0-9_]* \{/))
				print substr($0, RSTART, RLENGTH - 2)
			else if ($0 !~ /;[ \t]*$/ && match($0, /[A-Za-z_][A-Za-z0-9_]*\(/))
				print substr($0, RSTART, RLENGTH - 1)
			exit
		}' "$1")
	case $what in
	'') re= ;;
	*' '*) re="^$what \\{" ;;
	*) re="^[^[:space:]#].*\\<$what\\(" ;;
	esac
	from=
	[ -z "$re" ] || from=$(grep -nE "$re" <<<"$text" | head -n 1 | cut -d: -f1)
	if [ -n "$from" ]; then
		to=$(awk -v a="$from" 'NR > a && /^}/ { print NR; exit }' <<<"$text")
	else
		what='' from=$((line > 20 ? line - 20 : 1)) to=$((line + 40))
	fi
	marks=$(sed -n "$from,${to:-\$}p" <<<"$text" |
		grep -oE '\<[A-Za-z_][A-Za-z0-9_]*\(' | tr -d '(' | awk '!seen[$0]++' |
		while IFS= read -r id; do
			grep -qw -- "$id" <<<"$vanilla" || printf '%s\n' "$id"
		done | paste -sd, - | sed 's/,/, /g') || :
	[[ -z $what || $what == *' '* ]] || what="$what()"
	[ -z "$marks" ] || echo ", where it meets $marks in ${what:+$what of }$file"
}

# One `git am` for the whole series: git refreshes the index of the
# 70000-file tree once per call, so one call per patch took 26.6 s for
# the 53 vanilla patches here, one call for all of them 3.3 s.  On a
# failure, the commits it made tell which patch it stopped at.
if ! out=$(git -C "$tree" am -q --committer-date-is-author-date \
		"${patches[@]/#/$TOP/patches/}" 2>&1); then
	n=$(( $(git -C "$tree" rev-list --count "$base..HEAD") + 1 ))
	echo "$out" | grep -E '^(error|Patch failed|Applying)|patch failed' >&2 || echo "$out" >&2
	git -C "$tree" am --abort
	git -C "$tree" checkout -q --detach "$base"
	[ "$n" -le "${#patches[@]}" ] ||
		die "git am failed after the last patch; $tree is back at the base"
	die "patch $n, patches/${patches[$((n - 1))]}, does not apply to $TR_NAME ($base_name; hunk above)$(tree_marks "$TOP/patches/${patches[$((n - 1))]}"); $tree is back at the base"
fi

git -C "$tree" checkout -q -B "$branch"
# The stamp, the HEAD made, and each file's hash as applied (for
# ci/refresh.sh, which must not write over a file edited since).
stamp_applied "$stamp_file" "$base" "$branch" "$(git -C "$tree" rev-parse HEAD)" \
	"${patches[@]}"
msg "$tree: applied ${#patches[@]} patch(es) of the $TR_FLAVOUR series on $TR_TAG, branch $branch"
