#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rebase.sh 5.10.N: carry the stack to another 5.10.y release and show
# what moved.
#
# The release's tarball comes from the same Debian archive as the base
# (ci/fetch.sh 5.10.N) and becomes a root commit of the base repository,
# tagged v5.10.N (the pinned base and its tag are left alone).  The
# series is applied there with `git am -3`, one patch at a time, on
# branch $STACK_BRANCH-5.10.N of the worktree $BUILD/rebase.  Then:
#   - a patch whose change the release already has (5.10.y took it, or
#     an equivalent) leaves no commit: it is reported as taken, never
#     dropped silently;
#   - a patch that needed the three-way merge is reported: refresh it;
#   - a patch that does not apply even so stops the run: `git am` is
#     aborted, the worktree removed, and the hunk named;
#   - `git range-diff` of the old stack ($STACK_BRANCH on the base) and
#     the new one goes to stdout and $BUILD/rebase-5.10.N.range-diff.
# patches/ and series are not touched: exporting the new stack is the
# maintainer's decision.
#
# MM510_REBASE_TARBALL=<file> uses a tarball the user has (any format
# tar reads, holding linux-5.10.N/) instead of the archive's; it is not
# checked against a checksum.

. "$(dirname "$0")/lib.sh"

need git git
need tar tar

new=${1:-}
[ -n "$new" ] || die "usage: make rebase BASE=5.10.N"
[[ "$new" =~ ^5\.10\.[0-9]+$ ]] || die "BASE=$new is not a 5.10.y release (5.10.N)"
[ "$new" != "$BASE_VERSION" ] || die "the stack is already on $BASE_VERSION"
[ -z "${KERNEL_TREE:-}" ] ||
	die "make rebase works on the stack's own base repository; unset KERNEL_TREE"
new_tag=v$new
new_branch=$STACK_BRANCH-$new
tree=$BUILD/rebase
report=$BUILD/rebase-$new.range-diff

lock_build
old_tree=$(stack_tree)
git -C "$old_tree" rev-parse -q --verify "refs/heads/$STACK_BRANCH" >/dev/null ||
	die "no applied stack in $old_tree: run 'make apply' first"

# --- the new base, as a tagged root commit of the base repository --------
if ! git -C "$BASE_REPO" rev-parse -q --verify "refs/tags/$new_tag" >/dev/null; then
	if [ -n "${MM510_REBASE_TARBALL:-}" ]; then
		tarball=$MM510_REBASE_TARBALL
		[ -f "$tarball" ] || die "MM510_REBASE_TARBALL=$tarball does not exist"
		msg "using $tarball (not checked against a checksum)"
	else
		"$TOP/ci/fetch.sh" "$new"
		tarball=$CACHE_DIR/linux_$new.orig.tar.xz
	fi

	tmp=$(mktemp -d "$BUILD/.rebase.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	msg "extracting ${tarball##*/}"
	if ! err=$(tar -xf "$tarball" -C "$tmp" 2>&1 >/dev/null); then
		echo "$err" | tail -n 3 >&2
		die "${tarball##*/} is corrupt or truncated (tar failed); nothing was kept"
	fi
	src=$tmp/linux-$new
	[ -f "$src/Makefile" ] || die "${tarball##*/} does not hold linux-$new/"
	got=$(make -s -C "$src" kernelversion)
	[ "$got" = "$new" ] || die "${tarball##*/} holds Linux $got, not $new"

	msg "importing Linux $new into $BASE_REPO as $new_tag"
	name=${IDENTITY% <*}
	email=${IDENTITY##*<}; email=${email%>}
	export GIT_INDEX_FILE=$tmp/index
	git -C "$BASE_REPO" --work-tree="$src" add -A
	treeid=$(git -C "$BASE_REPO" write-tree)
	unset GIT_INDEX_FILE
	commit=$(GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email \
		GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email \
		GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' \
		GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
		git -C "$BASE_REPO" commit-tree "$treeid" -m "Linux $new" \
			-m "Extracted from ${tarball##*/}.")
	git -C "$BASE_REPO" tag "$new_tag" "$commit"
	rm -rf "$tmp"
	trap - EXIT
fi
base=$(git -C "$BASE_REPO" rev-parse "$new_tag^{commit}")

# --- the series on the new base -------------------------------------------
mapfile -t patches < <(series_patches "$TOP/series")
for p in "${patches[@]}"; do
	[ -f "$TOP/patches/$p" ] || die "series names patches/$p, which does not exist"
done

if [ -d "$tree" ]; then
	gitdir=$(git -C "$tree" rev-parse --absolute-git-dir)
	[ ! -d "$gitdir/rebase-apply" ] || git -C "$tree" am --abort
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
		die "$tree has uncommitted changes; keep them elsewhere or discard them first"
	git -C "$tree" checkout -q --detach "$base"
else
	git -C "$BASE_REPO" worktree prune
	git -C "$BASE_REPO" worktree add -q --detach "$tree" "$base"
fi

# Leave the worktree at the new base and remove the branch half made.
undo() {
	local gitdir
	gitdir=$(git -C "$tree" rev-parse --absolute-git-dir)
	[ ! -d "$gitdir/rebase-apply" ] || git -C "$tree" am --abort
	git -C "$tree" checkout -q --detach "$base"
}
trap undo EXIT

name=${IDENTITY% <*}
email=${IDENTITY##*<}; email=${email%>}
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email

taken=()
merged=()
n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	before=$(git -C "$tree" rev-parse HEAD)
	if ! out=$(git -C "$tree" am -3 --committer-date-is-author-date \
			"$TOP/patches/$p" 2>&1); then
		echo "$out" | grep -vE '^(hint|Applying):|^(When you have resolved|If you prefer|To restore)' >&2 || :
		die "patch $n, patches/$p, does not apply on $new even with a three-way merge; refresh it (nothing was kept)"
	fi
	if [ "$(git -C "$tree" rev-parse HEAD)" = "$before" ]; then
		msg "patch $n, $p: taken upstream (no change left on $new)"
		taken+=("$p")
	elif grep -q 'Falling back to' <<<"$out"; then
		msg "patch $n, $p: applied with a three-way merge"
		merged+=("$p")
	fi
done
trap - EXIT
git -C "$tree" checkout -q -B "$new_branch"

# --- what moved --------------------------------------------------------------
old_range=$BASE_TAG..$(git -C "$old_tree" rev-parse "refs/heads/$STACK_BRANCH")
new_range=$new_tag..$new_branch
git -C "$tree" range-diff --no-color "$old_range" "$new_range" >"$report"
cat "$report"
echo
echo "rebase of ${#patches[@]} patch(es) from $BASE_VERSION to $new:" \
	"branch $new_branch in $tree"
echo "  applied: $(( ${#patches[@]} - ${#taken[@]} )), of which" \
	"${#merged[@]} needed a three-way merge"
for p in "${merged[@]}"; do
	echo "  refresh (context moved): $p"
done
for p in "${taken[@]}"; do
	echo "  taken upstream (no change left on $new): $p"
done
echo "  range-diff: $report"
