#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debian.sh debian|debian-rt: import one of Debian's two 5.10 trees into
# the base repository, the way Debian's own build makes them:
#   debian     $BASE_TAG + debian/patches/series, tag debian/REV
#   debian-rt  debian/REV + debian/patches-rt/series (the PREEMPT_RT
#              queue of Debian's -rt flavour), tag debian-rt/REV
# (REV: $DEBIAN_SRC_VERSION of ci/debian.pin).  Each is one commit on
# its parent tree, with fixed dates and identity, so that every machine
# gets the same ids, and `git am`, `git log` and `git range-diff` work as
# on the vanilla base.  The patches are pushed with quilt, as
# debian/rules does (`quilt push -a --fuzz=0`); a Debian patch that does
# not apply stops the import, is named, and nothing is kept.  Done once:
# an existing tag is kept.  With --checkout the tree is also checked out
# (a detached worktree, $BUILD/base-NAME), for TREE=base builds.
#
# DEBIAN_REV=5.10.N-R imports another Debian upload instead (make
# rebase): its tarball is fetched by ci/fetch.sh debian 5.10.N-R (or
# named by DEBIAN_TARBALL), and its parent is the v5.10.N tag that
# ci/rebase.sh imported.

. "$(dirname "$0")/lib.sh"

need git git
need tar tar
need xz xz-utils
need quilt quilt

name=${1:-}
case $name in
debian|debian-rt) ;;
*) die "usage: debian.sh debian|debian-rt [--checkout]" ;;
esac
checkout=
case ${2:-} in
'') ;;
--checkout) checkout=1 ;;
*) die "usage: debian.sh debian|debian-rt [--checkout]" ;;
esac
rev=${DEBIAN_REV:-$DEBIAN_SRC_VERSION}
upstream=${rev%-*}
parent_tag=v$upstream
[ "$rev" != "$DEBIAN_SRC_VERSION" ] || parent_tag=$BASE_TAG
file=linux_$rev.debian.tar.xz
[ -d "$BASE_REPO" ] || die "$BASE_REPO missing: run 'make base' first"
git -C "$BASE_REPO" rev-parse -q --verify "refs/tags/$parent_tag" >/dev/null ||
	die "$BASE_REPO has no tag $parent_tag (the Linux release of Debian $rev)"

has_tag() { git -C "$BASE_REPO" rev-parse -q --verify "refs/tags/$1" >/dev/null; }

# worktree NAME TAG: $BUILD/base-NAME checked out (detached) at TAG.
worktree() {
	worktree_at "$BUILD/base-$1" "$(git -C "$BASE_REPO" rev-parse "$2^{commit}")"
}

tag_debian=debian/$rev
tag_rt=debian-rt/$rev
want=$tag_debian
[ "$name" = debian ] || want=$tag_rt
if has_tag "$want"; then
	[ -z "$checkout" ] || worktree "$name" "$want"
	exit 0
fi

lock_build
tarball=${DEBIAN_TARBALL:-$CACHE_DIR/$file}
[ -f "$tarball" ] || die "$tarball missing: run 'make fetch' (ci/fetch.sh debian $rev) first"
need_space "$BUILD" 1536 "importing Debian's $name tree"
tmp=$(mktemp -d "$BUILD/.debian.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if ! err=$(tar -xJf "$tarball" -C "$tmp" debian/patches debian/patches-rt debian/changelog 2>&1); then
	echo "$err" | tail -n 3 >&2
	die "$tarball is corrupt or not a Debian linux packaging tarball (tar failed); remove it and run 'make fetch'"
fi
head -n 1 "$tmp/debian/changelog" | grep -qF "linux ($rev)" ||
	die "$file is not Debian's linux $rev (its changelog starts: $(head -n 1 "$tmp/debian/changelog"))"

ident_name=${IDENTITY% <*}
ident_email=${IDENTITY##*<}; ident_email=${ident_email%>}
tree=$tmp/tree
tree_at=

# push QUEUE FROM-TAG: the tree at FROM-TAG with debian/QUEUE/series
# pushed on it, as Debian's build does; dies naming the patch that does
# not apply.
push() {
	local queue=$1 from=$2 n bad
	# The tree is extracted once: a queue on the one just pushed goes on.
	if [ "$tree_at" != "$from" ]; then
		rm -rf "$tree" && mkdir -p "$tree"
		git -C "$BASE_REPO" archive "$from" | tar -x -C "$tree"
	fi
	tree_at=
	n=$(series_patches "$tmp/debian/$queue/series" | wc -l)
	msg "pushing Debian's $queue ($n patches) on $from"
	if ! (cd "$tree" && QUILT_PATCHES=$tmp/debian/$queue QUILT_PC=.pc \
		quilt push --quiltrc /dev/null -a -q --fuzz=0) >"$tmp/$queue.log" 2>&1; then
		bad=$(sed -n 's/^Applying patch //p' "$tmp/$queue.log" | tail -n 1)
		grep -vE '^(Applying patch|Now at patch)' "$tmp/$queue.log" | tail -n 8 >&2
		die "Debian $rev: debian/$queue/$bad does not apply to $from (quilt push --fuzz=0, output above); nothing was kept"
	fi
	# The files the queue touched, for commit below: those quilt backed
	# up in .pc/PATCH/ before each patch changed them, PATCH a name of
	# .pc/applied-patches (what `quilt files -a` lists, read there: it
	# took 33 s for patches-rt here).
	(cd "$tree/.pc" && find . -mindepth 2 \( -type f -o -type l \) ! -name .timestamp) |
		awk 'NR == FNR { p[n++] = "./" $0 "/"; next }
		     {
			for (i = 0; i < n; i++)
				if (index($0, p[i]) == 1) {
					print substr($0, length(p[i]) + 1)
					next
				}
			print "a file of no applied patch in .pc: " $0 >"/dev/stderr"
			exit 1
		     }' "$tree/.pc/applied-patches" - | sort -u >"$tmp/touched" ||
		die "Debian $rev: could not list the files debian/$queue changed"
	[ -s "$tmp/touched" ] || die "Debian $rev: debian/$queue changed no file (no backups in .pc)"
	rm -rf "$tree/.pc"
}

# commit TAG FROM-TAG SUBJECT BODY: commit FROM-TAG's tree with the
# files push touched taken from $tree, tag it.  Only those files: the
# rest is FROM-TAG's as it is, and Debian's .gitignore (which ignores
# the whole top level, for its packaging repository) has no say.
commit() {
	local tag=$1 from=$2 treeid c idx=$tmp/index
	GIT_INDEX_FILE=$idx git -C "$BASE_REPO" read-tree "$from"
	# A path a patch added and a later one removed is in neither.
	while IFS= read -r f; do
		[ -e "$tree/$f" ] || [ -L "$tree/$f" ] ||
			GIT_INDEX_FILE=$idx git -C "$BASE_REPO" ls-files --error-unmatch -- "$f" >/dev/null 2>&1 ||
			continue
		printf '%s\n' "$f"
	done <"$tmp/touched" >"$tmp/paths"
	(cd "$tree" && GIT_INDEX_FILE=$idx git --git-dir="$(git -C "$BASE_REPO" rev-parse --absolute-git-dir)" \
		--work-tree=. add -A -f --pathspec-from-file="$tmp/paths")
	treeid=$(GIT_INDEX_FILE=$idx git -C "$BASE_REPO" write-tree)
	rm -f "$idx"
	c=$(GIT_AUTHOR_NAME=$ident_name GIT_AUTHOR_EMAIL=$ident_email \
		GIT_COMMITTER_NAME=$ident_name GIT_COMMITTER_EMAIL=$ident_email \
		GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
		git -C "$BASE_REPO" commit-tree "$treeid" -p "$(git -C "$BASE_REPO" rev-parse "$from^{commit}")" \
			-m "$3" -m "$4")
	git -C "$BASE_REPO" tag "$tag" "$c"
	tree_at=$tag
	msg "tagged $tag ($(git -C "$BASE_REPO" rev-parse --short "$c"): $(git -C "$BASE_REPO" diff --shortstat "$from" "$c"))"
}

sum=$(sha256sum "$tarball" | cut -d' ' -f1)
if ! has_tag "$tag_debian"; then
	push patches "$parent_tag"
	commit "$tag_debian" "$parent_tag" "Debian linux $rev: debian/patches" \
		"Linux $upstream with debian/patches/series of Debian's $file
(sha256 $sum), pushed with quilt --fuzz=0 as debian/rules does."
fi
if [ "$name" = debian-rt ]; then
	push patches-rt "$tag_debian"
	# The queue's last patch sets localversion-rt: the queue we expect.
	lv=$(cat "$tree/localversion-rt" 2>/dev/null || :)
	if [ "$rev" = "$DEBIAN_SRC_VERSION" ] && [ "$lv" != "-${DEBIAN_RT_VERSION##*-}" ]; then
		die "Debian $rev's patches-rt is the RT queue ${lv:-(no localversion-rt)}, ci/debian.pin says $DEBIAN_RT_VERSION; nothing was kept"
	fi
	commit "$tag_rt" "$tag_debian" "Debian linux $rev: debian/patches-rt (PREEMPT_RT ${lv#-})" \
		"debian/patches-rt/series of Debian's $file (sha256 $sum) on
$tag_debian, pushed with quilt --fuzz=0 as debian/rules does for the
rt featureset."
fi
[ -z "$checkout" ] || worktree "$name" "$want"
