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
		# Another 5.10 sublevel, or a vendor's 5.10: the series is kept
		# on the pinned release, and goes where it applies.
		case $version in
		"$BASE_VERSION") ;;
		5.10.*)	msg "KERNEL_TREE=$src is at $version, not $BASE_VERSION, the release the series is kept and tested on: applying it there ('make fit KERNEL_TREE=$src' reports how each patch meets the tree)" ;;
		*)	die "KERNEL_TREE=$src is at $version; the series is for 5.10 trees (kept on $BASE_VERSION)" ;;
		esac
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

# The stack's identity commits (git am) and aborts an interrupted git am,
# which also needs a committer: a fresh host's git has none.
name=${IDENTITY% <*}
email=${IDENTITY##*<}; email=${email%>}
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email

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
	die "patch $n, patches/${patches[$((n - 1))]}, does not apply to $TR_NAME ($base_name; hunk above)$(tree_marks "$TOP/patches/${patches[$((n - 1))]}" "$out" "$src" "$base"); $tree is back at the base"
fi

git -C "$tree" checkout -q -B "$branch"
# The stamp, the HEAD made, and each file's hash as applied (for
# ci/refresh.sh, which must not write over a file edited since).
stamp_applied "$stamp_file" "$base" "$branch" "$(git -C "$tree" rev-parse HEAD)" \
	"${patches[@]}"
msg "$tree: applied ${#patches[@]} patch(es) of the $TR_FLAVOUR series on $TR_TAG, branch $branch"
