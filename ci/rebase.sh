#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rebase.sh 5.10.N: carry the stack to another 5.10.y release and show
# what moved.
# rebase.sh debian 5.10.N-R: carry the stacks of Debian's two trees
# (ci/debian.sh: debian and debian-rt) to another Debian upload.
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
#     aborted, the worktree left at the new base, and the hunk named;
#   - `git range-diff` of the old stack ($STACK_BRANCH on the base) and
#     the new one goes to stdout and $BUILD/rebase-5.10.N.range-diff.
# For a Debian upload, its packaging tarball (ci/fetch.sh debian
# 5.10.N-R; v5.10.N imported first as above when it is another release)
# becomes the tags debian/5.10.N-R and debian-rt/5.10.N-R
# (ci/debian.sh), and each tree's flavour of the series is carried from
# its applied stack (build/stack-debian, build/stack-debian-rt) the same
# way: worktree $BUILD/rebase-<tree>, branch mm510-<tree>-5.10.N-R,
# range-diff in $BUILD/rebase-<tree>-5.10.N-R.range-diff.  A Debian
# patch that no longer applies stops the import, named.
# patches/ and series are not touched: exporting the new stack is the
# maintainer's decision.
#
# MM510_REBASE_TARBALL=<file> uses a tarball the user has (any format
# tar reads, holding linux-5.10.N/) instead of the archive's, and
# MM510_REBASE_DEBIAN_TARBALL=<file> a Debian packaging tarball; they
# are not checked against a checksum.

. "$(dirname "$0")/lib.sh"

need git git
need tar tar

usage="usage: make rebase BASE=5.10.N, or make rebase DEBIAN=5.10.N-R"
if [ "${1:-}" = debian ]; then
	rev=${2:-}
	[ -n "$rev" ] || die "$usage"
	[[ "$rev" =~ ^5\.10\.[0-9]+-[0-9A-Za-z.+~]+$ ]] ||
		die "DEBIAN=$rev is not a Debian revision of a 5.10.y release (5.10.N-R)"
	[ "$rev" != "$DEBIAN_SRC_VERSION" ] || die "the stack is already on Debian's $rev"
	new=${rev%-*}
	trees=(debian debian-rt)
else
	new=${1:-}
	rev=
	[ -n "$new" ] || die "$usage"
	[[ "$new" =~ ^5\.10\.[0-9]+$ ]] || die "BASE=$new is not a 5.10.y release (5.10.N)"
	[ "$new" != "$BASE_VERSION" ] || die "the stack is already on $BASE_VERSION"
	trees=(vanilla)
fi
[ -z "${KERNEL_TREE:-}" ] ||
	die "make rebase works on the stack's own base repository; unset KERNEL_TREE"
new_tag=v$new

lock_build
# Every tree's old stack must be there to compare with.
for t in "${trees[@]}"; do
	tree_load "$t"
	case $t in
	vanilla)   how="make apply" ;;
	debian)    how="make apply SCENARIO=debian" ;;
	debian-rt) how="make apply SCENARIO=rt" ;;
	esac
	git -C "$(stack_tree)" rev-parse -q --verify "refs/heads/$(stack_branch)" >/dev/null ||
		die "no applied stack in $(stack_tree): run '$how' first"
done

# --- the new base, as a tagged root commit of the base repository --------
if [ "$new" != "$BASE_VERSION" ] &&
   ! git -C "$BASE_REPO" rev-parse -q --verify "refs/tags/$new_tag" >/dev/null; then
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

# --- Debian's trees of the new upload --------------------------------------
if [ -n "$rev" ]; then
	if [ -n "${MM510_REBASE_DEBIAN_TARBALL:-}" ]; then
		[ -f "$MM510_REBASE_DEBIAN_TARBALL" ] ||
			die "MM510_REBASE_DEBIAN_TARBALL=$MM510_REBASE_DEBIAN_TARBALL does not exist"
		msg "using $MM510_REBASE_DEBIAN_TARBALL (not checked against a checksum)"
		export DEBIAN_TARBALL=$MM510_REBASE_DEBIAN_TARBALL
	else
		"$TOP/ci/fetch.sh" debian "$rev"
	fi
	DEBIAN_REV=$rev "$TOP/ci/debian.sh" debian-rt
fi

# rebase_tree NAME: carry the stack of base tree NAME (its flavour of the
# series, from its applied stack) to the new base, and show what moved.
rebase_tree() {
	local tname=$1 tag tree branch report old_tree old_range base p n before out where
	local patches=() taken=() merged=()
	tree_load "$tname"
	old_tree=$(stack_tree)
	old_range=$TR_TAG..$(git -C "$old_tree" rev-parse "refs/heads/$(stack_branch)")
	if [ "$tname" = vanilla ]; then
		tag=$new_tag tree=$BUILD/rebase branch=$STACK_BRANCH-$new
		report=$BUILD/rebase-$new.range-diff where=$new
	else
		tag=$tname/$rev tree=$BUILD/rebase-$tname branch=$(stack_branch)-$rev
		report=$BUILD/rebase-$tname-$rev.range-diff where=$tag
	fi
	base=$(git -C "$BASE_REPO" rev-parse "$tag^{commit}")

	mapfile -t patches < <(series_patches "$TOP/series")
	for p in "${patches[@]}"; do
		[ -f "$TOP/patches/$p" ] || die "series names patches/$p, which does not exist"
	done

	worktree_at "$tree" "$base"

	# Leave the worktree at the new base and remove the branch half made.
	undo_tree=$tree undo_base=$base
	trap undo EXIT

	n=0
	for p in "${patches[@]}"; do
		n=$((n + 1))
		before=$(git -C "$tree" rev-parse HEAD)
		if ! out=$(git -C "$tree" am -3 --committer-date-is-author-date \
				"$TOP/patches/$p" 2>&1); then
			echo "$out" | grep -vE '^(hint|Applying):|^(When you have resolved|If you prefer|To restore)' >&2 || :
			die "patch $n, patches/$p, does not apply on $where even with a three-way merge; refresh it (nothing was kept)"
		fi
		if [ "$(git -C "$tree" rev-parse HEAD)" = "$before" ]; then
			msg "patch $n, $p: taken upstream (no change left on $where)"
			taken+=("$p")
		elif grep -q 'Falling back to' <<<"$out"; then
			msg "patch $n, $p: applied with a three-way merge"
			merged+=("$p")
		fi
	done
	trap - EXIT
	git -C "$tree" checkout -q -B "$branch"

	git -C "$tree" range-diff --no-color "$old_range" "$tag..$branch" >"$report"
	cat "$report"
	echo
	echo "rebase of ${#patches[@]} patch(es) of the $TR_FLAVOUR series from $TR_TAG to $tag:" \
		"branch $branch in $tree"
	echo "  applied: $(( ${#patches[@]} - ${#taken[@]} )), of which" \
		"${#merged[@]} needed a three-way merge"
	for p in "${merged[@]}"; do
		echo "  refresh (context moved): $p"
	done
	for p in "${taken[@]}"; do
		echo "  taken upstream (no change left on $where): $p"
	done
	echo "  range-diff: $report"
}

undo() {
	local gitdir
	gitdir=$(git -C "$undo_tree" rev-parse --absolute-git-dir)
	[ ! -d "$gitdir/rebase-apply" ] || git -C "$undo_tree" am --abort
	git -C "$undo_tree" checkout -q --detach "$undo_base"
}

name=${IDENTITY% <*}
email=${IDENTITY##*<}; email=${email%>}
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email

for t in "${trees[@]}"; do
	rebase_tree "$t"
done
