#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of the harness under bad input (TAP).
#
#   host.sh pre    cases that need only the fetched tarball and base repo
#                  (the review-gate cases build one small object in
#                  BUILD/hosttest-gates, kept between runs)
#   host.sh guest  cases that need a built default kernel (and the arm64
#                  one, which skip without it)
#   host.sh full   cases of make check-full's gates and of make rebase
#                  (minutes of compiling and extracting; not in make check)
#   HOST_CASES=<regex> host.sh ...   only the cases whose function matches
#
# Each case runs the real ci/ scripts in a scratch BUILD/CACHE_DIR (and a
# scratch copy of the project where it must change the series), expects
# one clear error and a non-zero exit, and checks that the base tree and
# the user's tree are as they were.

. "$(dirname "$0")/../lib.sh"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mm510-host.XXXXXX")
# A case that mounted a small file system unmounts it itself; this is
# the fallback should it have died first.
cleanup() {
	local m
	for m in $(findmnt -rn -o TARGET | grep "^$scratch/" | sort -r); do
		umount "$m" || :
	done
	rm -rf "$scratch"
}
trap cleanup EXIT
n=0
failed=0
base_head=$(git -C "$BASE_REPO" rev-parse HEAD)
base_tag=$(git -C "$BASE_REPO" rev-parse "$BASE_TAG^{commit}")

# run_case NAME FUNCTION: one TAP line; the case's output as diagnostics.
# HOST_CASES=<regex> runs only the cases whose function matches.
run_case() {
	local name=$1 out rc=0 t0
	[[ "$2" =~ ${HOST_CASES:-.} ]] || return 0
	n=$((n + 1))
	t0=$SECONDS
	# In the background, so that errexit holds inside the case (it is
	# switched off for anything run on the left of ||).
	("$2") >"$scratch/case.out" 2>&1 &
	wait $! || rc=$?
	out=$(cat "$scratch/case.out")
	if [ "$rc" -eq 0 ]; then
		echo "ok $n $name"
	elif [ "$rc" -eq 4 ]; then
		# A case that cannot run here says why on its last line.
		echo "ok $n $name # SKIP $(tail -n 1 "$scratch/case.out")"
	else
		echo "not ok $n $name"
		failed=$((failed + 1))
	fi
	echo "$out" | sed 's/^/# /'
	echo "# $2 took $((SECONDS - t0)) s"
}

# expect_fail "what the message must say" CMD...: the command must fail
# with that message.
expect_fail() {
	local want=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	echo "$out" | tail -n 3
	[ "$rc" -ne 0 ] || { echo "expected a failure, got exit 0"; return 1; }
	grep -qF -- "$want" <<<"$out" || { echo "message lacks: $want"; return 1; }
}

base_intact() {
	[ "$(git -C "$BASE_REPO" rev-parse HEAD)" = "$base_head" ] &&
		[ -z "$(git -C "$BASE_REPO" status --porcelain)" ] || {
		echo "the base repository changed"; return 1; }
}

# A copy of the project sharing the real base repo and tarball cache.
project_copy() {
	local dst=$scratch/proj
	rm -rf "$dst"
	mkdir -p "$dst"
	(cd "$TOP" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 cp --parents -t "$dst")
	echo "$dst"
}

# --- cases needing only the tarball and the base repo ----------------------

t_truncated_tarball() {
	local c=$scratch/cache-trunc
	mkdir -p "$c"
	head -c 1000000 "$CACHE_DIR/$BASE_FILE" >"$c/$BASE_FILE"
	expect_fail "is corrupt" env CACHE_DIR="$c" "$TOP/ci/fetch.sh"
}

t_wrong_checksum() {
	local c=$scratch/cache-sum
	mkdir -p "$c"
	cp "$CACHE_DIR/$BASE_FILE" "$c/$BASE_FILE"
	printf 'X' | dd of="$c/$BASE_FILE" bs=1 seek=5000000 conv=notrunc status=none
	expect_fail "checksum mismatch" env CACHE_DIR="$c" "$TOP/ci/fetch.sh"
	[ -f "$c/$BASE_FILE" ] || { echo "the cached file vanished"; return 1; }
}

t_corrupt_extract() {
	# A tarball that bypassed fetch (e.g. copied in by hand) is corrupt:
	# base.sh must fail and leave no half-made repository.
	local c=$scratch/cache-extract b=$scratch/build-extract
	mkdir -p "$c" "$b"
	head -c 3000000 "$CACHE_DIR/$BASE_FILE" >"$c/$BASE_FILE"
	expect_fail "corrupt or truncated" env CACHE_DIR="$c" BUILD="$b" \
		BASE_REPO="$b/linux" "$TOP/ci/base.sh"
	[ ! -e "$b/linux" ] && ! ls -d "$b"/.linux.* >/dev/null 2>&1 || {
		echo "a partial repository was left in $b"; return 1; }
}

t_unreachable_archive() {
	local c=$scratch/cache-net
	mkdir -p "$c"
	expect_fail "is the archive reachable" env CACHE_DIR="$c" \
		MM510_ARCHIVE_URI=http://127.0.0.1:9/debian-security "$TOP/ci/fetch.sh"
	[ -z "$(find "$c" -name "$BASE_FILE*")" ] || {
		echo "a partial download was left in $c"; return 1; }
}

# bad_patch FILE: a patch whose context is not in 5.10.262.
bad_patch() {
	cat >"$1" <<'EOP'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Test <test@example.invalid>
Date: Thu, 1 Jan 2026 00:00:00 +0000
Subject: [PATCH] bad: context that is not there

---
 mm/page_alloc.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/mm/page_alloc.c b/mm/page_alloc.c
--- a/mm/page_alloc.c
+++ b/mm/page_alloc.c
@@ -1,3 +1,3 @@
-this line is not in the file
+neither is this one
 nor this
 nor that
-- 
2.39.5
EOP
}

t_patch_does_not_apply() {
	local p b=$scratch/build-am
	p=$(project_copy)
	bad_patch "$p/patches/0001-bad.patch"
	sed -i '1i 0001-bad.patch' "$p/series"
	expect_fail "patches/0001-bad.patch, does not apply" env BUILD="$b" \
		BASE_REPO="$BASE_REPO" STACK_BRANCH=mm510-hosttest "$p/ci/apply.sh"
	[ "$(git -C "$b/stack" rev-parse HEAD)" = "$base_tag" ] &&
		[ -z "$(git -C "$b/stack" status --porcelain)" ] || {
		echo "the worktree is not back at the base"; return 1; }
	git -C "$BASE_REPO" worktree remove --force "$b/stack"
	base_intact
}

t_series_names_missing_patch() {
	local p b=$scratch/build-missing
	p=$(project_copy)
	sed -i '1i 0001-not-there.patch' "$p/series"
	expect_fail "patches/0001-not-there.patch, which does not exist" \
		env BUILD="$b" BASE_REPO="$BASE_REPO" "$p/ci/apply.sh"
	[ ! -e "$b/stack" ] || { echo "a worktree was made anyway"; return 1; }
	base_intact
}

# --- Debian's trees (ci/debian.sh) and the RT flavour ----------------------

t_debian_wrong_checksum() {
	local c=$scratch/cache-debsum f=$scratch/debian-bad.tar.xz
	mkdir -p "$c"
	[ -f "$CACHE_DIR/$DEBIAN_FILE" ] || { echo "no $DEBIAN_FILE fetched"; return 4; }
	cp "$CACHE_DIR/$DEBIAN_FILE" "$f"
	printf 'X' | dd of="$f" bs=1 seek=100000 conv=notrunc status=none
	expect_fail "checksum mismatch" env CACHE_DIR="$c" MM510_DEBIAN_TARBALL="$f" \
		"$TOP/ci/fetch.sh" debian
	[ -z "$(ls -A "$c")" ] || { echo "something was kept in the cache: $(ls -A "$c")"; return 1; }
}

# A Debian packaging tarball like the pinned one, with a patch that does
# not apply put first in debian/patches-rt/series.
bad_rt_tarball() {
	local d=$scratch/debian-src
	rm -rf "$d" && mkdir -p "$d"
	tar -xJf "$CACHE_DIR/$DEBIAN_FILE" -C "$d" debian/changelog debian/patches debian/patches-rt
	bad_patch "$d/debian/patches-rt/0000-hosttest-no-longer-applies.patch"
	sed -i '1i 0000-hosttest-no-longer-applies.patch' "$d/debian/patches-rt/series"
	tar -cJf "$1" -C "$d" debian
}

t_debian_rt_does_not_apply() {
	local c=$scratch/cache-debrt b=$scratch/build-debrt base
	[ -f "$CACHE_DIR/$DEBIAN_FILE" ] || { echo "no $DEBIAN_FILE fetched"; return 4; }
	base=$(scratch_base)
	git -C "$base" rev-parse -q --verify "refs/tags/debian/$DEBIAN_SRC_VERSION" >/dev/null ||
		{ echo "no debian/$DEBIAN_SRC_VERSION tag: run make base SCENARIO=debian"; return 4; }
	git -C "$base" tag -d "debian-rt/$DEBIAN_SRC_VERSION" >/dev/null 2>&1 || :
	mkdir -p "$c" "$b"
	bad_rt_tarball "$c/$DEBIAN_FILE"
	expect_fail "debian/patches-rt/0000-hosttest-no-longer-applies.patch does not apply to debian/$DEBIAN_SRC_VERSION" \
		env -u MM510_LOCKED CACHE_DIR="$c" BUILD="$b" BASE_REPO="$base" \
		"$TOP/ci/debian.sh" debian-rt
	! git -C "$base" rev-parse -q --verify "refs/tags/debian-rt/$DEBIAN_SRC_VERSION" >/dev/null || {
		echo "a debian-rt tag was made anyway"; return 1; }
	! ls -d "$b"/.debian.* >/dev/null 2>&1 || { echo "a temporary tree was left in $b"; return 1; }
	base_intact
}

# make check compiles Debian's tree as the objects either side changed
# (OBJECTS=changed): a file that Debian's patches and the series both
# change stops it before anything is built, with the file's name.
t_debian_overlap() {
	local p b=$scratch/build-overlap base tag=debian/$DEBIAN_SRC_VERSION f=kernel/fork.c
	base=$(scratch_base)
	git -C "$BASE_REPO" rev-parse -q --verify "refs/tags/$tag" >/dev/null ||
		{ echo "no $tag tag: run make base SCENARIO=debian"; return 4; }
	git -C "$base" fetch -q "$BASE_REPO" "refs/tags/$tag:refs/tags/$tag" 2>/dev/null || :
	git -C "$base" diff --quiet "$BASE_TAG" "$tag" -- "$f" && {
		echo "Debian's patches no longer change $f: pick another file"; return 1; }
	p=$(project_copy)
	# A series of one patch that changes a file Debian's patches change.
	git -C "$base" show "$tag:$f" >"$scratch/fork.c"
	sed '0,/^#include <linux\/slab.h>$/s//&\n\/* host test *\//' "$scratch/fork.c" >"$scratch/fork.c.new"
	{
		printf 'From: %s\nDate: Thu, 1 Jan 2026 00:00:00 +0000\nSubject: [PATCH] fork: host test\n\n---\n' "$IDENTITY"
		diff -u --label "a/$f" --label "b/$f" "$scratch/fork.c" "$scratch/fork.c.new" || :
	} >"$p/patches/0001-hosttest-fork.patch"
	echo 0001-hosttest-fork.patch >"$p/series"
	env -u MM510_LOCKED SCENARIO=debian BUILD="$b" BASE_REPO="$base" "$p/ci/apply.sh" >/dev/null 2>&1 || {
		echo "the one-patch series did not apply on $tag"; return 1; }
	expect_fail "the debian tree's own patches and the series both change $f: build the whole kernel" \
		env -u MM510_LOCKED OBJECTS=changed BUILD="$b" BASE_REPO="$base" "$p/ci/build.sh" debian
	[ ! -e "$b/obj" ] || { echo "an object folder was made"; return 1; }
	base_intact
}

t_rt_patch_does_not_apply() {
	local p b=$scratch/build-rtvar base v rt_tag
	base=$(scratch_base)
	rt_tag=debian-rt/$DEBIAN_SRC_VERSION
	git -C "$BASE_REPO" rev-parse -q --verify "refs/tags/$rt_tag" >/dev/null ||
		{ echo "no $rt_tag tag: run make base SCENARIO=rt"; return 4; }
	git -C "$base" fetch -q "$BASE_REPO" "refs/tags/$rt_tag:refs/tags/$rt_tag" 2>/dev/null || :
	p=$(project_copy)
	# The RT flavour's revert of the queue's memcg_stock.lock as if the
	# RT queue had changed a line it restores: its first removed line no
	# longer matches.
	v=$(cd "$p/patches" && ls rt/0095-*.patch)
	sed -i '0,/^-\t/s/^-\t/-\tno longer in the RT queue /' "$p/patches/$v"
	expect_fail "patches/$v, does not apply to debian-rt" env -u MM510_LOCKED \
		SCENARIO=rt BUILD="$b" BASE_REPO="$base" "$p/ci/apply.sh"
	[ "$(git -C "$b/stack-debian-rt" rev-parse HEAD)" = "$(git -C "$base" rev-parse "$rt_tag^{commit}")" ] &&
		[ -z "$(git -C "$b/stack-debian-rt" status --porcelain --untracked-files=no)" ] || {
		echo "the worktree is not back at $rt_tag"; return 1; }
	! git -C "$base" rev-parse -q --verify refs/heads/mm510-debian-rt >/dev/null || {
		echo "a half-made branch mm510-debian-rt was left"; return 1; }
	base_intact
}

t_rt_locks() {
	# The RT lock check must name the vanilla stack's preemption-disabling
	# memcg stock user (get_cpu() in drain_all_stock(), which the RT queue
	# turns into get_cpu_light(): on RT the work it queues takes sleeping
	# locks), and pass the RT flavour.
	local rt
	[ -d "$BUILD/stack" ] || { echo "no vanilla stack applied"; return 4; }
	expect_fail "drain_all_stock: disables preemption around the memcg stock" \
		"$TOP/ci/rt-locks.sh" "$BUILD/stack"
	rt=$BUILD/stack-debian-rt
	[ -d "$rt" ] || { echo "no RT stack applied"; return 4; }
	"$TOP/ci/rt-locks.sh" "$rt"
}

# A minimal git "kernel tree": enough for `make kernelversion`.
fake_tree() {
	local d=$1 sub=$2
	mkdir -p "$d"
	printf 'VERSION = 5\nPATCHLEVEL = 10\nSUBLEVEL = %s\nkernelversion:\n\t@echo 5.10.%s\n' \
		"$sub" "$sub" >"$d/Makefile"
	git -C "$d" init -q
	git -C "$d" add Makefile
	git -C "$d" -c user.name=t -c user.email=t@example.invalid commit -q -m base
}

t_kernel_tree_dirty() {
	local d=$scratch/user-dirty
	fake_tree "$d" 262
	echo '# my work' >>"$d/Makefile"
	expect_fail "has uncommitted changes" env BUILD="$scratch/build-dirty" \
		KERNEL_TREE="$d" "$TOP/ci/apply.sh"
	grep -q '# my work' "$d/Makefile" || { echo "the user's change was lost"; return 1; }
	[ "$(git -C "$d" worktree list | wc -l)" -eq 1 ] || {
		echo "a worktree was added to the user's tree"; return 1; }
}

t_kernel_tree_wrong_version() {
	local d=$scratch/user-old
	fake_tree "$d" 261
	expect_fail "is at 5.10.261" env BUILD="$scratch/build-old" \
		KERNEL_TREE="$d" "$TOP/ci/apply.sh"
	[ "$(git -C "$d" branch --list | wc -l)" -eq 1 ] || {
		echo "a branch was added to the user's tree"; return 1; }
}

t_kernel_tree_branch_exists() {
	# The user already has a branch of the stack's name: refuse, and
	# touch neither that branch nor the checked-out one.
	local d=$scratch/user-branch head ref mine
	fake_tree "$d" 262
	git -C "$d" checkout -q -b mm510
	echo '# on mm510' >>"$d/Makefile"
	git -C "$d" -c user.name=t -c user.email=t@example.invalid commit -q -am mine
	git -C "$d" checkout -q -
	ref=$(git -C "$d" symbolic-ref HEAD)
	head=$(git -C "$d" rev-parse HEAD)
	mine=$(git -C "$d" rev-parse mm510)
	expect_fail "already has a branch 'mm510'" env BUILD="$scratch/build-branch" \
		KERNEL_TREE="$d" STACK_BRANCH=mm510 "$TOP/ci/apply.sh"
	[ "$(git -C "$d" rev-parse mm510)" = "$mine" ] &&
		[ "$(git -C "$d" symbolic-ref HEAD)" = "$ref" ] &&
		[ "$(git -C "$d" rev-parse HEAD)" = "$head" ] &&
		[ -z "$(git -C "$d" status --porcelain)" ] || {
		echo "the user's branches or tree changed"; return 1; }
	[ "$(git -C "$d" worktree list | wc -l)" -eq 1 ] || {
		echo "a worktree was added to the user's tree"; return 1; }
}

# A base repository of our own for the cases that make branches and
# worktrees: a clone sharing the real one's objects, so nothing is
# copied and the real base repository gets no branch or worktree.
scratch_base() {
	local r=$scratch/base
	[ -d "$r" ] || git clone -q --shared --no-checkout "$BASE_REPO" "$r"
	echo "$r"
}

# The stack applied in a scratch build folder (made once, reused).
scratch_stack() {
	local b=$scratch/build-lock base
	base=$(scratch_base)
	if [ ! -d "$b/stack" ]; then
		env -u MM510_LOCKED BUILD="$b" BASE_REPO="$base" \
			STACK_BRANCH=mm510 "$TOP/ci/apply.sh" >&2
	fi
	echo "$b"
}

# synthetic_release VERSION TAR [PATCH] [FILE=CONTENT]: a tarball of
# linux-VERSION/ holding the base with PATCH applied (as if 5.10.y had
# taken it) and FILE written, made with git plumbing (no extract).
synthetic_release() {
	local ver=$1 tar=$2 patch=${3:-} extra=${4:-} base idx blob tree
	base=$(scratch_base)
	idx=$scratch/synthetic.index
	rm -f "$idx"
	GIT_INDEX_FILE=$idx git -C "$base" read-tree "$BASE_TAG"
	[ -z "$patch" ] || GIT_INDEX_FILE=$idx git -C "$base" apply --cached "$patch"
	blob=$(git -C "$base" show "$BASE_TAG:Makefile" |
		sed "s/^SUBLEVEL = .*/SUBLEVEL = ${ver##*.}/" |
		git -C "$base" hash-object -w --stdin)
	GIT_INDEX_FILE=$idx git -C "$base" update-index --cacheinfo "100644,$blob,Makefile"
	if [ -n "$extra" ]; then
		blob=$(echo "${extra#*=}" | git -C "$base" hash-object -w --stdin)
		GIT_INDEX_FILE=$idx git -C "$base" update-index --add \
			--cacheinfo "100644,$blob,${extra%%=*}"
	fi
	tree=$(GIT_INDEX_FILE=$idx git -C "$base" write-tree)
	git -C "$base" archive --prefix="linux-$ver/" -o "$tar" "$tree"
}

t_rebase_reports_taken() {
	# 5.10.y took the first patch: the rebase reports it as taken,
	# applies the rest, and prints the range-diff.
	local b base first out
	b=$(scratch_stack)
	base=$(scratch_base)
	first=$(series_patches | sed -n 1p)
	synthetic_release 5.10.263 "$scratch/r263.tar" "$TOP/patches/$first"
	out=$(env -u MM510_LOCKED BUILD="$b" BASE_REPO="$base" STACK_BRANCH=mm510 \
		MM510_REBASE_TARBALL="$scratch/r263.tar" "$TOP/ci/rebase.sh" 5.10.263 2>&1)
	echo "$out" | tail -n 6
	grep -qF "taken upstream (no change left on 5.10.263): $first" <<<"$out" || {
		echo "the taken patch is not reported"; return 1; }
	[ "$(git -C "$base" rev-list --count v5.10.263..mm510-5.10.263)" -eq \
	  "$(( $(series_patches | wc -l) - 1 ))" ] || {
		echo "the new branch lacks patches"; return 1; }
	grep -q '^ *1: *[0-9a-f]* < *-: *-* ' "$b/rebase-5.10.263.range-diff" || {
		echo "the range-diff does not show the taken patch"; return 1; }
	base_intact
}

t_rebase_debian() {
	# A newer Debian upload (5.10.262-2, made here) whose debian/patches
	# took the stack's last patch: make rebase DEBIAN= imports its two
	# trees, carries each tree's flavour of the series there, reports
	# the taken patch for both, and writes both range-diffs.
	local b=$scratch/build-rebdeb base d last out t n rev=5.10.262-2
	[ -f "$CACHE_DIR/$DEBIAN_FILE" ] || { echo "no $DEBIAN_FILE fetched"; return 4; }
	base=$(scratch_base)
	for t in debian debian-rt; do
		git -C "$BASE_REPO" rev-parse -q --verify "refs/tags/$t/$DEBIAN_SRC_VERSION" >/dev/null ||
			{ echo "no $t/$DEBIAN_SRC_VERSION tag: run make check first"; return 4; }
		git -C "$base" fetch -q "$BASE_REPO" "refs/tags/$t/$DEBIAN_SRC_VERSION:refs/tags/$t/$DEBIAN_SRC_VERSION" 2>/dev/null || :
	done
	for t in debian rt; do
		env -u MM510_LOCKED SCENARIO=$t BUILD="$b" BASE_REPO="$base" "$TOP/ci/apply.sh" >&2
	done
	last=$(series_patches | tail -n 1)
	d=$scratch/debian-new
	rm -rf "$d" && mkdir -p "$d"
	tar -xJf "$CACHE_DIR/$DEBIAN_FILE" -C "$d" debian/changelog debian/patches debian/patches-rt
	sed -i "1s/(5.10.262-1)/($rev)/" "$d/debian/changelog"
	cp "$TOP/patches/$last" "$d/debian/patches/mm510-hosttest-localversion.patch"
	echo mm510-hosttest-localversion.patch >>"$d/debian/patches/series"
	tar -cJf "$scratch/linux_$rev.debian.tar.xz" -C "$d" debian
	out=$(env -u MM510_LOCKED BUILD="$b" BASE_REPO="$base" \
		MM510_REBASE_DEBIAN_TARBALL="$scratch/linux_$rev.debian.tar.xz" \
		"$TOP/ci/rebase.sh" debian "$rev" 2>&1)
	echo "$out" | grep -E '^(rebase|  )' | tail -n 12
	for t in debian debian-rt; do
		grep -qF "taken upstream (no change left on $t/$rev): $last" <<<"$out" || {
			echo "the taken patch is not reported for $t"; return 1; }
		[ -s "$b/rebase-$t-$rev.range-diff" ] || { echo "no range-diff for $t"; return 1; }
	done
	n=$(series_patches "$TOP/series" vanilla | wc -l)
	[ "$(git -C "$base" rev-list --count "debian/$rev..mm510-debian-$rev")" -eq $((n - 1)) ] || {
		echo "the new debian branch lacks patches"; return 1; }
	n=$(series_patches "$TOP/series" rt | wc -l)
	[ "$(git -C "$base" rev-list --count "debian-rt/$rev..mm510-debian-rt-$rev")" -eq $((n - 1)) ] || {
		echo "the new debian-rt branch lacks patches"; return 1; }
	base_intact
}

t_rebase_conflict() {
	# The release has a file the last patch creates, with other content:
	# the rebase stops on that patch, keeps nothing half made, and the
	# old stack is untouched.
	local b base last old file
	b=$(scratch_stack)
	base=$(scratch_base)
	last=$(series_patches | tail -n 1)
	file=$(sed -n 's,^+++ b/,,p' "$TOP/patches/$last" | head -n 1)
	old=$(git -C "$b/stack" rev-parse mm510)
	synthetic_release 5.10.264 "$scratch/r264.tar" "" "$file=not ours"
	expect_fail "does not apply on 5.10.264 even with a three-way merge" \
		env -u MM510_LOCKED BUILD="$b" BASE_REPO="$base" STACK_BRANCH=mm510 \
		MM510_REBASE_TARBALL="$scratch/r264.tar" "$TOP/ci/rebase.sh" 5.10.264
	! git -C "$base" rev-parse -q --verify refs/heads/mm510-5.10.264 >/dev/null || {
		echo "a half-made branch was left"; return 1; }
	[ "$(git -C "$b/rebase" rev-parse HEAD)" = "$(git -C "$base" rev-parse 'v5.10.264^{commit}')" ] &&
		[ -z "$(git -C "$b/rebase" status --porcelain)" ] || {
		echo "the rebase worktree is not back at the new base"; return 1; }
	[ "$(git -C "$b/stack" rev-parse mm510)" = "$old" ] || {
		echo "the old stack moved"; return 1; }
	expect_fail "not a 5.10.y release" "$TOP/ci/rebase.sh" 6.1.1
	base_intact
}

t_two_runs_one_build() {
	# Two runs at once on one build folder: each waits for the lock,
	# then both complete and the stack is applied once, cleanly.
	local b=$scratch/build-lock base i r1=0 r2=0 pids=()
	base=$(scratch_base)
	mkdir -p "$b"
	# Hold the lock first, so that both runs must wait whatever the timing.
	exec 8>"$b/.lock"
	flock 8
	for i in 1 2; do
		# 8>&-: an inherited copy of our descriptor would hold our lock.
		env -u MM510_LOCKED BUILD="$b" BASE_REPO="$base" STACK_BRANCH=mm510 \
			"$TOP/ci/main.sh" apply >"$scratch/run$i.out" 2>&1 8>&- &
		pids+=($!)
	done
	for i in $(seq 100); do
		[ "$(cat "$scratch"/run?.out | grep -c 'waiting for it')" -eq 2 ] && break
		sleep 0.1
	done
	cat "$scratch"/run?.out
	[ "$(cat "$scratch"/run?.out | grep -c "another run holds $b/.lock; waiting for it")" -eq 2 ] || {
		echo "the runs did not both wait for the lock"; exec 8>&-; return 1; }
	exec 8>&-
	wait "${pids[0]}" || r1=$?
	wait "${pids[1]}" || r2=$?
	cat "$scratch"/run?.out
	[ "$r1" -eq 0 ] && [ "$r2" -eq 0 ] || {
		echo "exit status $r1 and $r2"; return 1; }
	[ "$(cat "$scratch"/run?.out | grep -c 'applied [0-9]* patch(es)')" -eq 1 ] &&
		[ "$(cat "$scratch"/run?.out | grep -c 'already applied, nothing to do')" -eq 1 ] || {
		echo "expected one run to apply and the other to find it done"; return 1; }
	[ "$(git -C "$b/stack" rev-parse HEAD)" = "$(git -C "$base" rev-parse mm510)" ] &&
		[ "$(git -C "$b/stack" rev-list --count "$BASE_TAG..HEAD")" -eq "$(series_patches | wc -l)" ] &&
		[ -z "$(git -C "$b/stack" status --porcelain)" ] || {
		echo "the stack worktree is not the series on the base, clean"; return 1; }
	base_intact
}

t_am_interrupted() {
	# A run killed during `git am` leaves rebase-apply behind; the next
	# run aborts it, says so, and applies the series.
	local b base gitdir head
	b=$(scratch_stack)
	base=$(scratch_base)
	head=$(git -C "$base" rev-parse mm510)
	bad_patch "$scratch/bad.patch"
	git -C "$b/stack" am -q "$scratch/bad.patch" >/dev/null 2>&1 && {
		echo "the bad patch applied"; return 1; }
	gitdir=$(git -C "$b/stack" rev-parse --absolute-git-dir)
	[ -d "$gitdir/rebase-apply" ] || { echo "no git am in progress to test with"; return 1; }
	out=$(env -u MM510_LOCKED BUILD="$b" BASE_REPO="$base" STACK_BRANCH=mm510 \
		"$TOP/ci/apply.sh" 2>&1) || { echo "$out"; echo "apply failed"; return 1; }
	echo "$out"
	grep -qF "interrupted during 'git am'; aborting it" <<<"$out" || {
		echo "no message about the interrupted git am"; return 1; }
	[ ! -d "$gitdir/rebase-apply" ] &&
		[ "$(git -C "$b/stack" rev-parse HEAD)" = "$head" ] &&
		[ -z "$(git -C "$b/stack" status --porcelain)" ] || {
		echo "the stack worktree is not back at the series"; return 1; }
	base_intact
}

# small_fs DIR SIZE: a tmpfs of SIZE at DIR (exit 4, a skip, if this
# machine does not let us mount).
small_fs() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2" mm510-hosttest "$1" 2>/dev/null || {
		echo "cannot mount a tmpfs here (not root, or no CAP_SYS_ADMIN)"
		exit 4
	}
}

t_full_disk_build() {
	# The build folder's disk fills up while the base is extracted: a
	# clear error, and no half-made repository left behind.
	local b=$scratch/full-build
	small_fs "$b" 32m
	trap 'umount '"$b" EXIT
	expect_fail "no space left on device in $b" env -u MM510_LOCKED BUILD="$b" \
		BASE_REPO="$b/linux" "$TOP/ci/base.sh"
	[ ! -e "$b/linux" ] && ! ls -d "$b"/.linux.* >/dev/null 2>&1 || {
		echo "a partial repository was left in $b"; return 1; }
	base_intact
}

t_full_disk_cache() {
	# The cache's disk is too small for the tarball: a clear error, and
	# neither a partial file nor one under the final name.
	local c=$scratch/full-cache
	small_fs "$c" 1m
	trap 'umount '"$c" EXIT
	expect_fail "no space left on device in $c" env CACHE_DIR="$c" \
		MM510_TARBALL="$CACHE_DIR/$BASE_FILE" "$TOP/ci/fetch.sh"
	[ -z "$(find "$c" -name "$BASE_FILE*")" ] || {
		echo "a partial copy was left in $c"; return 1; }
}

t_missing_tool() {
	local bin=$scratch/bin f
	mkdir -p "$bin"
	for f in /usr/bin/* /bin/*; do
		case ${f##*/} in qemu-system-x86_64) continue ;; esac
		[ -e "$bin/${f##*/}" ] || ln -s "$f" "$bin/${f##*/}"
	done
	expect_fail "apt-get install qemu-system-x86" env PATH="$bin" \
		"$TOP/ci/boot.sh" default
}

t_repeat_bad_count() {
	expect_fail "COUNT must be a whole number of boots, not 'ten'" env COUNT=ten \
		"$TOP/ci/repeat.sh" default
}

# An arch: a fragment naming one the pipeline does not know fails with
# the known ones, before anything is made; two fragments naming two
# arches fail too.
t_unknown_arch() {
	local p b=$scratch/b-arch
	p=$(project_copy)
	printf '# Help: test\n# Arch: mips\n' >"$p/configs/mips.config"
	printf '# Arch: arm\n' >"$p/configs/arm32.config"
	printf 'mipsy guest,mm,mips full - - -\nmixed guest,arm64,arm32 full - - -\n' \
		>>"$p/configs/scenarios"
	expect_fail "unknown arch 'mips' (scenario mipsy); known: x86 arm64 arm" \
		env BUILD="$b" BASE_REPO="$BASE_REPO" TREE=base "$p/ci/build.sh" mipsy
	expect_fail "configs/arm64.config says arch arm64, configs/arm32.config says arm" \
		env BUILD="$b" BASE_REPO="$BASE_REPO" TREE=base "$p/ci/build.sh" mixed
	[ ! -e "$b/obj" ] || { echo "an object folder was made"; return 1; }
}

# A fragment's option of another arch is left out (and said), where the
# same fragment's option that no Kconfig file defines fails the build.
t_foreign_option() {
	local p b=$scratch/b-foreign out
	p=$(project_copy)
	out=$(BUILD="$b" BASE_REPO="$BASE_REPO" TREE=base CONFIG_ONLY=1 \
		"$p/ci/build.sh" arm64 2>&1) || { echo "$out"; return 1; }
	grep -qF 'CONFIG_X86_64_ACPI_NUMA: not an option of arm64, left out' <<<"$out" ||
		{ echo "$out"; echo "the x86 option was not reported"; return 1; }
	echo 'CONFIG_MM510_NO_SUCH_OPTION=y' >>"$p/configs/arm64.config"
	expect_fail "CONFIG_MM510_NO_SUCH_OPTION=y (no Kconfig file of the tree defines CONFIG_MM510_NO_SUCH_OPTION)" \
		env BUILD="$b" BASE_REPO="$BASE_REPO" TREE=base CONFIG_ONLY=1 "$p/ci/build.sh" arm64
}

# A missing cross compiler, static libc or QEMU names its package, and
# nothing is made; an arch without a QEMU machine says it only compiles.
t_missing_cross() {
	local bin=$scratch/bin-cross b=$scratch/b-cross f
	mkdir -p "$bin"
	for f in /usr/bin/* /bin/*; do
		case ${f##*/} in aarch64-linux-gnu-gcc|qemu-system-aarch64) continue ;; esac
		[ -e "$bin/${f##*/}" ] || ln -s "$f" "$bin/${f##*/}"
	done
	expect_fail "install it with 'apt-get install gcc-aarch64-linux-gnu'" \
		env PATH="$bin" BUILD="$b" BASE_REPO="$BASE_REPO" TREE=base "$TOP/ci/build.sh" arm64
	[ ! -e "$b/obj" ] || { echo "an object folder was made"; return 1; }
	expect_fail "install it with 'apt-get install qemu-system-arm'" \
		env PATH="$bin" BUILD="$b" "$TOP/ci/boot.sh" arm64
	expect_fail "scenario arm is for arm, which this pipeline only compiles" \
		env BUILD="$b" "$TOP/ci/boot.sh" arm
}

# make bench takes its kernels' arch from SCENARIO: an arch without a
# bench scenario is refused before anything is built.
t_bench_arch() {
	local b=$scratch/b-bench
	expect_fail "no bench scenario in configs/scenarios for arm on the vanilla tree (SCENARIO=arm)" \
		env SCENARIO=arm BUILD="$b" "$TOP/ci/bench.sh"
	[ ! -e "$b/obj" ] || { echo "an object folder was made"; return 1; }
}

# The RT tree's benchmarks (bench-rt) have no 6.1 peer, IRQSOFF and
# PROFILE are switches, LAT_LOOPS a number, and lat has no arm64 guest:
# all refused before anything is fetched or built.
t_bench_bad_options() {
	local b=$scratch/b-bench
	expect_fail "the debian-rt tree has no 6.1 peer" \
		env SCENARIO=rt PEER=1 BUILD="$b" "$TOP/ci/bench.sh"
	expect_fail "IRQSOFF must be 0 or 1, not 'yes'" \
		env IRQSOFF=yes BUILD="$b" "$TOP/ci/bench.sh"
	expect_fail "PROFILE must be 0 or 1, not 'yes'" \
		env PROFILE=yes BUILD="$b" "$TOP/ci/bench.sh"
	expect_fail "LAT_LOOPS must be a positive number, not 'many'" \
		env SCENARIO=rt LAT_LOOPS=many BUILD="$b" "$TOP/ci/bench.sh"
	# lat alone on arm64: its guests have no cyclictest, nothing is left.
	expect_fail "lat skipped: the arm64 guests have no cyclictest" \
		env SCENARIO=arm64 BENCHES=lat BUILD="$b" "$TOP/ci/bench.sh"
	[ ! -e "$b/obj" ] && [ ! -e "$b/linux" ] || { echo "something was built"; return 1; }
}

# --- the CI engine (.gitlab-ci.yml, ci/lava) ---------------------------------

# A malformed or schema-breaking LAVA job is named with LAVA's reason; a
# lab half configured is an error naming the missing variable, no lab at
# all a message and success; nothing is submitted anywhere.
t_lava_bad_input() {
	printf 'device_type: qemu\njob_name: x\nactions: [\n' >"$scratch/broken.yaml"
	expect_fail "$scratch/broken.yaml: invalid:" "$TOP/ci/lava.sh" validate "$scratch/broken.yaml"
	printf 'device_type: qemu\njob_name: x\ntimeouts: {job: {minutes: 1}}\nvisibility: public\nactions:\n- deploy: {to: nowhere}\n' \
		>"$scratch/schema.yaml"
	expect_fail "unknown action type" "$TOP/ci/lava.sh" validate "$scratch/schema.yaml"
	expect_fail "LAVA_URL is set but LAVA_TOKEN is not" \
		env LAVA_URL=https://lava.invalid LAVA_TOKEN= "$TOP/ci/lava.sh" submit "$scratch/schema.yaml"
	local out
	out=$(env -u LAVA_URL "$TOP/ci/lava.sh" submit "$scratch/schema.yaml" 2>&1) ||
		{ echo "no lab configured should pass: $out"; return 1; }
	grep -q "no LAVA lab configured" <<<"$out" || { echo "$out"; return 1; }
}

# The slow gates' split by patch position refuses what is not one.
t_gate_positions() {
	expect_fail "GATE_POSITIONS must be N or N-M" env GATE_POSITIONS=5-2 "$TOP/ci/gates.sh" build
	expect_fail "the series has" env GATE_POSITIONS=999 "$TOP/ci/gates.sh" cocci
}

# gitlab-ci-local runs only a job the pipeline defines.
t_gitlab_unknown_job() {
	command -v npm >/dev/null || { echo "npm missing"; return 4; }
	expect_fail "no job 'no-such-job' in .gitlab-ci.yml" "$TOP/ci/gitlab-local.sh" no-such-job
}

# A board job needs the board's device tree; the QEMU job of a built
# kernel passes LAVA's schema.
t_lava_render() {
	expect_fail "LAVA_DTB_URL is not set" env -u LAVA_DTB_URL "$TOP/ci/lava.sh" render default some-board
	local f
	f=$("$TOP/ci/lava.sh" render default) || return 1
	grep -q ': valid$' <<<"$("$TOP/ci/lava.sh" validate "$f")" || return 1
	grep -q 'mm510.release=' "$f" || { echo "no kernel command line in $f"; return 1; }
}

# --- review gates (ci/gates.sh): a bad patch is caught by its gate -----------

# gate_patch OUT SUBJECT SED [TRAILER]: a patch of mm/mmzone.c made by SED
# on the file as the previous gate_patch left it (the base's at first),
# with the provenance the gates want, less the TRAILER line named, and
# its row in the upstream.tsv of the project copy OUT is in (a made-up
# commit id, the sha1 of SUBJECT; gate_id SUBJECT gives it).
gate_patch() {
	local out=$1 subject=$2 cur=$scratch/mmzone.c id
	id=$(gate_id "$subject")
	[ -f "$cur" ] || git -C "$BASE_REPO" show "$BASE_TAG:mm/mmzone.c" >"$cur"
	sed "$3" "$cur" >"$cur.new"
	printf '%s\tv5.14-rc1\tTest Author <author@example.invalid>\t%s\t%s\t%s\n' "$id" \
		20260101000000.1-1-author@example.invalid "$subject" "host test" \
		>>"${out%/patches/*}/upstream.tsv"
	{
		grep -v "^${4:-NOTHING}:" <<EOF
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: $IDENTITY
Date: Thu, 1 Jan 2026 00:00:00 +0000
Subject: [PATCH] $subject

A patch of the host tests, for the review gates to judge.

Differences from upstream:
None beyond context.

Patch-mainline: v5.14-rc1
Git-commit: ${id:0:12}
Upstream-author: Test Author <author@example.invalid>
Link: https://lore.kernel.org/r/20260101000000.1-1-author@example.invalid
---
 mm/mmzone.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/mm/mmzone.c b/mm/mmzone.c
EOF
		diff -u --label a/mm/mmzone.c --label b/mm/mmzone.c "$cur" "$cur.new" || [ $? -eq 1 ]
		printf -- '-- \n2.39.5\n'
	} >"$out"
	mv "$cur.new" "$cur"
}

gate_id() {
	printf '%s' "$1" | sha1sum | cut -c1-40
}

# gate_series PROJECT NAME...: put patches first in a copy's series.
gate_series() {
	local p=$1
	shift
	printf '%s\n' "$@" | cat - "$p/series" >"$p/series.new"
	mv "$p/series.new" "$p/series"
}

# gate_series_only PROJECT FILE...: the series is the test patches and
# the stack marker (9901, a patch the gates must pass), so that a gate
# case judges a few patches, not the whole series.
gate_series_only() {
	local p=$1
	shift
	{ printf '%s\n' "$@"; grep '^9901-' "$p/series"; } >"$p/series.new"
	mv "$p/series.new" "$p/series"
}

t_gate_checkpatch() {
	local p out rc=0 f=0001-v5.14-mm-gate-test-trailing-whitespace.patch
	p=$(project_copy)
	rm -f "$scratch/mmzone.c"
	gate_patch "$p/patches/$f" "mm: gate test trailing whitespace" \
		'/^#include <linux\/mmzone.h>$/a /* trailing blank */ '
	gate_series_only "$p" "$f"
	out=$(env BUILD="$scratch/build-gcp" BASE_REPO="$BASE_REPO" "$p/ci/gates.sh" checkpatch 2>&1) || rc=$?
	grep -E "checkpatch: (0001|9901)" <<<"$out" | cut -c1-200
	[ "$rc" -ne 0 ] || { echo "the checkpatch gate passed"; return 1; }
	grep -q "^not ok [0-9]* checkpatch: $f # fail: .*TRAILING_WHITESPACE" <<<"$out" || {
		echo "no checkpatch failure naming $f"; return 1; }
	grep -q "^ok [0-9]* checkpatch: 9901-" <<<"$out" || {
		echo "the good patch did not pass"; return 1; }
}

# The series gate: an entry out of number order draws a warning unless
# a "# Out of order: <why>" line in the comment block above it says why.
t_gate_series_order() {
	local p out e
	p=$(project_copy)
	# Move the first entry of group 3's v5.14 series (0301) to the end of
	# group 1.
	e=$(grep -m1 '^030[0-9]-' "$p/series")
	sed -i "/^$e\$/d" "$p/series"
	sed -i "/^0138-/a $e" "$p/series"
	out=$(env BUILD="$scratch/build-gso" BASE_REPO="$BASE_REPO" "$p/ci/gates.sh" series 2>&1)
	echo "$out" | head -n 1 | cut -c1-160
	grep -q "^ok 1 series: files and entries # warn: .* is not after its predecessor in number order" <<<"$out" || {
		echo "no warning for $e out of number order"; return 1; }
	sed -i "/^$e\$/i # Out of order: a host test moved it here" "$p/series"
	out=$(env BUILD="$scratch/build-gso" BASE_REPO="$BASE_REPO" "$p/ci/gates.sh" series 2>&1)
	echo "$out" | head -n 1 | cut -c1-160
	grep -q '^ok 1 series: files and entries # pass:' <<<"$out" || {
		echo "the annotated entry still drew a warning"; return 1; }
}

# The series gate: a flavour file named like a vanilla patch is a
# variant of it and may differ from it in context only.  Checked once
# with the variant's change dropped from the gate (the old gate): the
# changed variant passed.
t_gate_series_variant() {
	local p out rc=0 v
	p=$(project_copy)
	v=$(cd "$p/patches" && ls 0302-*.patch)
	mkdir -p "$p/patches/rt"
	# A context-only refresh: another index line, the same changes.
	sed 's/^index [0-9a-f]*\.\.[0-9a-f]*/index 000000000..111111111/' \
		"$p/patches/$v" >"$p/patches/rt/$v"
	sed -i "s|^$v\$|$v\t#-rt\n#+rt rt/$v|" "$p/series"
	out=$(env BUILD="$scratch/build-gsv" BASE_REPO="$BASE_REPO" "$p/ci/gates.sh" series 2>&1) || rc=$?
	echo "$out" | head -n 1 | cut -c1-160
	[ "$rc" -eq 0 ] && grep -q '^ok 1 series: files and entries # pass:' <<<"$out" || {
		echo "a context-only variant did not pass"; return 1; }
	# A variant that takes another lock than its vanilla patch.
	sed -i 's/memcg_stock\.stock_lock/memcg_stock.lock/' "$p/patches/rt/$v"
	rc=0
	out=$(env BUILD="$scratch/build-gsv" BASE_REPO="$BASE_REPO" "$p/ci/gates.sh" series 2>&1) || rc=$?
	echo "$out" | head -n 1 | cut -c1-200
	[ "$rc" -ne 0 ] || { echo "the series gate passed a variant with other changes"; return 1; }
	grep -q "^not ok 1 series: files and entries # fail: rt/$v is a variant of $v whose added or removed lines differ" <<<"$out" || {
		echo "no failure naming rt/$v"; return 1; }
}

t_gate_provenance() {
	local p out rc=0 nolink=0001-v5.14-mm-gate-test-no-link.patch
	local nocommit=0002-v5.14-mm-gate-test-no-git-commit.patch
	p=$(project_copy)
	rm -f "$scratch/mmzone.c"
	gate_patch "$p/patches/$nolink" "mm: gate test no link" \
		'/^#include <linux\/mmzone.h>$/a /* no link */' Link
	gate_patch "$p/patches/$nocommit" "mm: gate test no git commit" \
		'/^#include <linux\/mmzone.h>$/a /* no commit */' Git-commit
	gate_series_only "$p" "$nolink" "$nocommit"
	out=$(env BUILD="$scratch/build-gpr" BASE_REPO="$BASE_REPO" "$p/ci/gates.sh" provenance 2>&1) || rc=$?
	echo "$out" | cut -c1-160
	[ "$rc" -ne 0 ] || { echo "the provenance gate passed"; return 1; }
	grep -q "^not ok [0-9]* provenance: $nolink # fail: no 'Link: " <<<"$out" || {
		echo "no failure for the missing Link:"; return 1; }
	grep -q "^not ok [0-9]* provenance: $nocommit # fail: no 'Git-commit: " <<<"$out" || {
		echo "no failure for the missing Git-commit:"; return 1; }
	grep -q "^ok [0-9]* provenance: 9901-" <<<"$out" || {
		echo "the good patch did not pass"; return 1; }
}

# A patch of a project copy changed after gate_patch wrote it:
# gate_edit PROJECT FILE SED edits the patch, gate_row PROJECT SUBJECT SED
# the row of upstream.tsv that gate_patch added for SUBJECT.
gate_edit() {
	sed -i "$3" "$1/patches/$2"
}
gate_row() {
	local id
	id=$(gate_id "$2")
	sed -i "/^$id\t/ $3" "$1/upstream.tsv"
}

# expect_verdict OUT FILE ok|fail [REASON]: the gate's line for FILE is
# that verdict, and starts its reason with REASON (a fixed string).
expect_verdict() {
	local line
	line=$(grep -E "^(not )?ok [0-9]+ provenance: $2 # " <<<"$1") || {
		echo "no verdict for $2"; return 1; }
	case $3 in
	ok)	[[ $line == ok\ * ]] || { echo "expected $2 to pass: $line"; return 1; } ;;
	fail)	[[ $line == "not ok "*" # fail: $4"* ]] || {
			echo "expected $2 to fail with: $4"; echo "got: $line"; return 1; } ;;
	esac
}

t_gate_provenance_table() {
	# Each patch disagrees with its row of upstream.tsv in one fact; the
	# good ones (one with a posting, one whose row has none) pass.
	local p out rc=0 f s files=()
	local -a names=(good good-no-posting wrong-author lore-search release-vs-name
		release-vs-table subject-vs-table unknown-commit fixes-not-in-table
		fixes-subject also-contains-subject no-posting-but-link)
	p=$(project_copy)
	rm -f "$scratch/mmzone.c"
	for s in "${names[@]}"; do
		f=0001-v5.14-mm-gate-test-$s.patch
		[ "$s" != release-vs-name ] || f=0001-v5.15-mm-gate-test-$s.patch
		gate_patch "$p/patches/$f" "mm: gate test $s" \
			"/^#include <linux\/mmzone.h>\$/a /* $s */"
		files+=("$f")
	done
	gate_series_only "$p" "${files[@]}"
	local good=0001-v5.14-mm-gate-test-good.patch gid
	gid=$(gate_id "mm: gate test good")
	gate_row "$p" "mm: gate test good-no-posting" 's/\t20260101[^\t]*\t/\t-\t/'
	gate_edit "$p" 0001-v5.14-mm-gate-test-good-no-posting.patch \
		's|^Link: .*|Link: none, posted only as a pull request|'
	gate_edit "$p" 0001-v5.14-mm-gate-test-wrong-author.patch \
		's/^Upstream-author: .*/Upstream-author: Other Author <other@example.invalid>/'
	gate_edit "$p" 0001-v5.14-mm-gate-test-lore-search.patch \
		's|^Link: .*|Link: https://lore.kernel.org/all/?q=s%3A%22mm%3A%20gate%20test%22|'
	gate_edit "$p" 0001-v5.14-mm-gate-test-release-vs-table.patch \
		's/^Patch-mainline: .*/Patch-mainline: v5.14/'
	gate_row "$p" "mm: gate test subject-vs-table" \
		's/\tmm: gate test subject-vs-table\t/\tmm: gate test subject as upstream has it\t/'
	gate_edit "$p" 0001-v5.14-mm-gate-test-unknown-commit.patch \
		's/^Git-commit: .*/Git-commit: ffffffffffff/'
	gate_edit "$p" 0001-v5.14-mm-gate-test-fixes-not-in-table.patch \
		'/^Link: /a Fixes: 0123456789ab ("mm: a commit the table lacks")'
	gate_edit "$p" 0001-v5.14-mm-gate-test-fixes-subject.patch \
		"/^Link: /a Fixes: ${gid:0:12} (\"mm: gate test not good\")"
	gate_edit "$p" 0001-v5.14-mm-gate-test-also-contains-subject.patch \
		"/^Link: /a Also-contains: ${gid:0:12} (\"mm: gate test not good\")"
	gate_row "$p" "mm: gate test no-posting-but-link" 's/\t20260101[^\t]*\t/\t-\t/'
	# A Fixes: and an Also-contains: that agree with the table pass.
	gate_edit "$p" "$good" "/^Link: /a Also-contains: $gid (\"mm: gate test good\")"
	gate_edit "$p" "$good" "/^Link: /a Fixes: ${gid:0:16} (\"mm: gate test good\")"
	out=$(env BUILD="$scratch/build-gpt" BASE_REPO="$BASE_REPO" "$p/ci/gates.sh" provenance 2>&1) || rc=$?
	grep -F 'gate-test' <<<"$out" | cut -c1-220
	[ "$rc" -ne 0 ] || { echo "the provenance gate passed"; return 1; }
	expect_verdict "$out" "$good" ok
	expect_verdict "$out" 0001-v5.14-mm-gate-test-good-no-posting.patch ok
	expect_verdict "$out" 0001-v5.14-mm-gate-test-wrong-author.patch fail \
		"Upstream-author: is 'Other Author <other@example.invalid>', upstream.tsv has 'Test Author <author@example.invalid>'"
	expect_verdict "$out" 0001-v5.14-mm-gate-test-lore-search.patch fail \
		"'Link: https://lore.kernel.org/all/?q=s%3A%22mm%3A%20gate%20test%22' is a lore search, not the posting"
	expect_verdict "$out" 0001-v5.15-mm-gate-test-release-vs-name.patch fail \
		"file name says 'v5.15', Patch-mainline: says v5.14"
	expect_verdict "$out" 0001-v5.14-mm-gate-test-release-vs-table.patch fail \
		"Patch-mainline: is v5.14, upstream.tsv says v5.14-rc1"
	expect_verdict "$out" 0001-v5.14-mm-gate-test-subject-vs-table.patch fail \
		"Subject: is 'mm: gate test subject-vs-table', upstream.tsv has 'mm: gate test subject as upstream has it'"
	expect_verdict "$out" 0001-v5.14-mm-gate-test-unknown-commit.patch fail \
		"Git-commit: ffffffffffff is not in upstream.tsv"
	expect_verdict "$out" 0001-v5.14-mm-gate-test-fixes-not-in-table.patch fail \
		"Fixes: 0123456789ab is not in upstream.tsv"
	expect_verdict "$out" 0001-v5.14-mm-gate-test-fixes-subject.patch fail \
		"Fixes: ${gid:0:12} (\"mm: gate test not good\"): upstream.tsv has the subject 'mm: gate test good'"
	expect_verdict "$out" 0001-v5.14-mm-gate-test-also-contains-subject.patch fail \
		"Also-contains: ${gid:0:12} (\"mm: gate test not good\"): upstream.tsv has the subject 'mm: gate test good'"
	expect_verdict "$out" 0001-v5.14-mm-gate-test-no-posting-but-link.patch fail \
		"upstream.tsv names no posting of"
	expect_verdict "$out" 9901-mm510-add-localversion.patch ok
}

t_gate_provenance_tsv() {
	# A malformed table fails the gate on its own line, naming the line.
	local p out rc=0 id
	p=$(project_copy)
	id=$(gate_id x)
	printf '%s\tv5.14-rc1\tA <a@example.invalid>\t-\tmm: x\tsource\n' "$id" >>"$p/upstream.tsv"
	printf '%s\tv5.14-rc1\tA <a@example.invalid>\t-\tmm: x again\tsource\n' "$id" >>"$p/upstream.tsv"
	out=$(env BUILD="$scratch/build-gpt2" BASE_REPO="$BASE_REPO" "$p/ci/gates.sh" provenance 2>&1) || rc=$?
	echo "$out" | cut -c1-200
	[ "$rc" -ne 0 ] || { echo "the provenance gate passed"; return 1; }
	local n
	n=$(wc -l <"$p/upstream.tsv")
	grep -qF "not ok 1 provenance: upstream.tsv # fail: upstream.tsv:$n: commit $id is already on line $((n - 1))" <<<"$out" || {
		echo "no failure naming the duplicate's line"; return 1; }
	sed -i '$d' "$p/upstream.tsv"
	printf '%s\tv5.14\tA <a@example.invalid>\t-\tmm: x again\n' "$(gate_id y)" >>"$p/upstream.tsv"
	expect_fail "upstream.tsv:$n: 5 columns, expected 6" env BUILD="$scratch/build-gpt2" \
		BASE_REPO="$BASE_REPO" "$p/ci/gates.sh" provenance
	sed -i '$d' "$p/upstream.tsv"
	printf '%s\t5.14\tA <a@example.invalid>\t-\tmm: y\tsource\n' "$(gate_id y | cut -c1-39)G" >>"$p/upstream.tsv"
	expect_fail "upstream.tsv:$n: commit '$(gate_id y | cut -c1-39)G' is not 40 lower-case hex digits" \
		env BUILD="$scratch/build-gpt2" BASE_REPO="$BASE_REPO" "$p/ci/gates.sh" provenance
	sed -i '$d' "$p/upstream.tsv"
	printf '%s\t5.14\tA <a@example.invalid>\t-\tmm: y\tsource\n' "$(gate_id y)" >>"$p/upstream.tsv"
	expect_fail "upstream.tsv:$n: release '5.14' is not vX.Y or vX.Y-rcN" \
		env BUILD="$scratch/build-gpt2" BASE_REPO="$BASE_REPO" "$p/ci/gates.sh" provenance
	rm "$p/upstream.tsv"
	expect_fail "upstream.tsv: missing" env BUILD="$scratch/build-gpt2" \
		BASE_REPO="$BASE_REPO" "$p/ci/gates.sh" provenance
}

# One run of the build gate on a series that breaks mm/mmzone.o at its
# first patch, mends it at the second and adds a sparse warning at the
# third.  Its build folder stays (prepared objects, ccache), so a later
# run builds only mm/mmzone.o at each position.
gate_build_run() {
	local p hb=$BUILD/hosttest-gates
	[ -f "$scratch/gate-build.out" ] && return 0
	p=$(project_copy)
	rm -f "$scratch/mmzone.c"
	gate_patch "$p/patches/0001-v5.14-mm-gate-test-break.patch" "mm: gate test break" \
		'/^#include <linux\/mmzone.h>$/a static int mm510_gate_test = ;'
	gate_patch "$p/patches/0002-v5.14-mm-gate-test-mend.patch" "mm: gate test mend" \
		'/^static int mm510_gate_test = ;$/d'
	gate_patch "$p/patches/0003-v5.14-mm-gate-test-sparse.patch" "mm: gate test sparse" \
		'/^#include <linux\/mmzone.h>$/a static int __maybe_unused mm510_gate_test(void) { int *p = 0; return p != NULL; }'
	gate_series "$p" 0001-v5.14-mm-gate-test-break.patch 0002-v5.14-mm-gate-test-mend.patch \
		0003-v5.14-mm-gate-test-sparse.patch
	env BUILD="$hb" BASE_REPO="$BASE_REPO" STACK_BRANCH=mm510-hosttest-gates \
		"$p/ci/apply.sh" >"$scratch/gate-build.out" 2>&1 || {
		cat "$scratch/gate-build.out"; rm -f "$scratch/gate-build.out"; return 1; }
	env BUILD="$hb" BASE_REPO="$BASE_REPO" STACK_BRANCH=mm510-hosttest-gates \
		"$p/ci/gates.sh" build >>"$scratch/gate-build.out" 2>&1 || :
	base_intact
}

t_gate_build_breaks() {
	gate_build_run
	grep -E 'gate-test|error' "$scratch/gate-build.out" | cut -c1-200
	grep -q '^not ok [0-9]* build W=1 C=1: 0001-v5.14-mm-gate-test-break.patch # fail: breaks the build of mm/mmzone.o' \
		"$scratch/gate-build.out" || { echo "the broken build was not caught"; return 1; }
	grep -q '^ok [0-9]* build W=1 C=1: 0002-v5.14-mm-gate-test-mend.patch # pass' \
		"$scratch/gate-build.out" || { echo "the mending patch did not pass"; return 1; }
}

t_gate_sparse_warning() {
	gate_build_run
	grep -E 'gate-test' "$scratch/gate-build.out" | cut -c1-200
	grep -q '^not ok [0-9]* build W=1 C=1: 0003-v5.14-mm-gate-test-sparse.patch # fail: 1 new warning(s) in mm/mmzone.o: .*plain integer as NULL pointer (sparse)' \
		"$scratch/gate-build.out" || { echo "the new sparse warning was not caught"; return 1; }
}

# --- make send's mails (ci/send-check.sh), on canned mails --------------------

# send_rows: the upstream.tsv rows of send_mails' posting.
send_rows() {
	printf '%s\tv5.14-rc1\tAlice Author <alice@example.invalid>\t20260101000000.1-1-alice@example.invalid\tmm: the backported change\thost test\n' \
		"$(gate_id send-a)"
	printf '%s\tv5.15\tBob Builder <bob@example.invalid>\t-\tmm: the folded-in fix\thost test\n' \
		"$(gate_id send-b)"
}

# send_mails DIR: a canned posting of two patches as make send writes it
# (b4 send -o, the author in an in-body From: as b4 writes it when the
# sender is someone else): a cover letter, a backport of an upstream
# commit that folds in a second one, and a Patch-mainline: Never patch.
send_mails() {
	local d=$1 a b id='<20260101-b4-mm510-v1-N-0123456789ab@example.invalid>'
	a=$(gate_id send-a)
	b=$(gate_id send-b)
	mkdir -p "$d"
	cat >"$d/0000-cover.eml" <<EOF
From: Sam Sender <sam@example.invalid>
Subject: [PATCH 5.10 0/2] mm510: mm scalability backports for Linux
 5.10.262
Date: Thu, 01 Jan 2026 00:00:00 +0000
Message-Id: ${id/N/0}
To: stable@vger.kernel.org, downstream@example.invalid
Cc: linux-mm@kvack.org, Alice Author <alice@example.invalid>, 
 Bob Builder <bob@example.invalid>, Sam Sender <sam@example.invalid>

The cover letter.
EOF
	cat >"$d/0001-mm-the-backported-change.eml" <<EOF
From: Sam Sender <sam@example.invalid>
Date: Thu, 01 Jan 2026 00:00:01 +0000
Subject: [PATCH 5.10 1/2] mm: the backported change
Message-Id: ${id/N/1}
References: ${id/N/0}
In-Reply-To: ${id/N/0}
To: stable@vger.kernel.org, downstream@example.invalid
Cc: linux-mm@kvack.org, Alice Author <alice@example.invalid>, 
 Bob Builder <bob@example.invalid>, Sam Sender <sam@example.invalid>

From: $IDENTITY

commit $a upstream.

What the change does.

Differences from upstream:
None beyond context.

Patch-mainline: v5.14-rc1
Git-commit: ${a:0:12}
Upstream-author: Alice Author <alice@example.invalid>
Link: https://lore.kernel.org/r/20260101000000.1-1-alice@example.invalid
Also-contains: ${b:0:12} ("mm: the folded-in fix")
Cc: Alice Author <alice@example.invalid>
Cc: Bob Builder <bob@example.invalid>
Signed-off-by: Sam Sender <sam@example.invalid>
---
 mm/mmzone.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/mm/mmzone.c b/mm/mmzone.c
EOF
	cat >"$d/0002-mm510-add-localversion-mm510.eml" <<EOF
From: Sam Sender <sam@example.invalid>
Date: Thu, 01 Jan 2026 00:00:02 +0000
Subject: [PATCH 5.10 2/2] mm510: add localversion-mm510
Message-Id: ${id/N/2}
References: ${id/N/0}
In-Reply-To: ${id/N/0}
To: stable@vger.kernel.org, downstream@example.invalid
Cc: linux-mm@kvack.org, Sam Sender <sam@example.invalid>

From: $IDENTITY

Name the stack in the kernel release string.

Differences from upstream:
Not an upstream change; it exists only in this stack.

Patch-mainline: Never, stack-local marker
Signed-off-by: Sam Sender <sam@example.invalid>
---
 localversion-mm510 | 1 +
EOF
}

# send_check PROJECT DIR: the project copy's send-check.sh on DIR.
send_check() {
	SEND_TO="stable@vger.kernel.org, downstream@example.invalid" \
		"$1/ci/send-check.sh" "$2" 2 "Sam Sender <sam@example.invalid>"
}

t_send_check() {
	local p d=$scratch/send m1=0001-mm-the-backported-change.eml
	local m2=0002-mm510-add-localversion-mm510.eml a
	p=$(project_copy)
	send_rows >>"$p/upstream.tsv"
	a=$(gate_id send-a)
	send_mails "$d/good"
	send_check "$p" "$d/good" || { echo "a correct posting failed the check"; return 1; }
	# No "commit <id> upstream." line.
	send_mails "$d/no-commit-line"
	sed -i '/^commit [0-9a-f]* upstream\.$/,+1d' "$d/no-commit-line/$m1"
	expect_fail "$m1: the message opens with 'What the change does.', not 'commit $a upstream.'" \
		send_check "$p" "$d/no-commit-line"
	# The line with an id that is not the patch's Git-commit.
	send_mails "$d/wrong-id"
	sed -i "s/^commit [0-9a-f]* upstream\.\$/commit $(gate_id send-b) upstream./" "$d/wrong-id/$m1"
	expect_fail "not 'commit $a upstream.'" send_check "$p" "$d/wrong-id"
	# The author of the folded-in commit not in the patch's Cc:.
	send_mails "$d/no-author-cc"
	sed -i '/^Cc: linux-mm/,/^$/ s/Bob Builder <bob@example.invalid>, //' "$d/no-author-cc/$m1"
	expect_fail "$m1: Cc: lacks Bob Builder <bob@example.invalid> (upstream author)" \
		send_check "$p" "$d/no-author-cc"
	# No linux-mm, and the cover without an author.
	send_mails "$d/no-list"
	sed -i 's/^Cc: linux-mm@kvack.org, /Cc: /' "$d/no-list/$m1"
	sed -i 's/Alice Author <alice@example.invalid>, //' "$d/no-list/0000-cover.eml"
	expect_fail "$m1: Cc: lacks linux-mm@kvack.org" send_check "$p" "$d/no-list"
	expect_fail "0000-cover.eml: Cc: lacks alice@example.invalid" send_check "$p" "$d/no-list"
	# Subjects without the 5.10 prefix, To: other than SEND_TO.
	send_mails "$d/prefix"
	sed -i 's/^Subject: \[PATCH 5.10 /Subject: [PATCH /' "$d/prefix/$m1"
	expect_fail "$m1: subject '[PATCH 1/2] mm: the backported change' is not [PATCH 5.10 nn/2]" \
		send_check "$p" "$d/prefix"
	send_mails "$d/to"
	sed -i 's/^To: .*/To: stable@vger.kernel.org/' "$d/to/$m2"
	expect_fail "$m2: To: is 'stable@vger.kernel.org', not SEND_TO's 'downstream@example.invalid stable@vger.kernel.org'" \
		send_check "$p" "$d/to"
	# A second sign-off; a Never patch with a commit line.
	send_mails "$d/sob"
	sed -i '/^Signed-off-by: /i Signed-off-by: Alice Author <alice@example.invalid>' "$d/sob/$m1"
	sed -i "/^Name the stack/i commit $a upstream.\n" "$d/sob/$m2"
	expect_fail "$m1: sign-offs are 'Signed-off-by: Alice Author <alice@example.invalid>; Signed-off-by: Sam Sender <sam@example.invalid>'" \
		send_check "$p" "$d/sob"
	expect_fail "$m2: a Patch-mainline: Never patch opens with 'commit $a upstream.'" \
		send_check "$p" "$d/sob"
	# A Git-commit: the table does not have.
	send_mails "$d/unknown"
	sed -i 's/^Git-commit: .*/Git-commit: ffffffffffff/' "$d/unknown/$m1"
	expect_fail "$m1: Git-commit: ffffffffffff is not in upstream.tsv" send_check "$p" "$d/unknown"
	expect_fail "no SEND_TO" env -u SEND_TO "$p/ci/send-check.sh" "$d/good" 2 \
		"Sam Sender <sam@example.invalid>"
}

# --- the README's and the manuals' promises (README.md, Documentation/) -------

# docs_check TOP: what README.md and Documentation/*.md name, checked
# against the project at TOP.  Names are taken from code spans and code
# blocks (indented or fenced; a "#" comment in a block is left out),
# and from links anywhere:
#   - `make TARGET ...`: each TARGET is a target `make help` lists
#     ("  make TARGET ..." lines), or the kernel tree's own
#     `make kernelversion`, which a KERNEL_TREE must answer;
#   - VAR=value, on a make command line, before one, or alone in a span:
#     VAR is listed under `make help`'s "Variables in effect", or is an
#     environment variable of the ci/ scripts, which the docs name
#     MM510_* (Documentation/troubleshooting.md says so), or is the
#     kernel's own (CONFIG_*, KBUILD_*, ARCH, CROSS_COMPILE).  A
#     VAR=value before another command (`LAVA_URL=... ci/lava.sh`,
#     `CONFIG_ONLY=1 ci/build.sh`) is that program's, and not checked;
#   - SCENARIO=NAME, and the first column of a table headed "scenario"
#     (names separated by commas): NAME is a scenario of
#     configs/scenarios (a placeholder, <it> or ..., is not a name);
#   - [text](path#anchor), not a URL: path, relative to the file, is a
#     file or folder of the project, and an anchor into a .md file is
#     one of its headings (GitHub's slug: lower case, punctuation but
#     "-" and "_" dropped, spaces as "-").
# Prints each broken promise as FILE:LINE: what, and fails if any.
docs_check() {
	local top=$1 help targets vars scenarios kind f l v where bad=0 r
	local -A heading=()
	help=$(cd "$top" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory help) ||
		{ echo "make help failed"; return 1; }
	targets=" kernelversion $(awk '$1 == "make" && $2 ~ /^[a-z][a-z0-9-]*$/ { printf "%s ", $2 }' <<<"$help")"
	vars=" $(sed -n '/^Variables in effect:/,$p' <<<"$help" |
		grep -oE '\b[A-Z][A-Z0-9_]*=' | tr -d = | tr '\n' ' ')"
	scenarios=" $(awk '!/^#/ && NF >= 5 { printf "%s ", $1 }' "$top/configs/scenarios")"
	(cd "$top" && ls README.md Documentation/*.md) >/dev/null || return 1
	r=$(cd "$top" && awk '
	function slug(h) {
		h = tolower(h)
		gsub(/[^a-z0-9 _-]/, "", h)
		gsub(/ /, "-", h)
		return h
	}
	function emit(kind, v, where) { printf "%s\t%s\t%s\t%s\t%s\n", kind, at_file, at_line, v, where }
	# One command line (of a code block, or a code span).
	function command(t,    cmds, nc, c, w, n, i, j, name) {
		gsub(/"[^"]*"/, "Q", t)
		nc = split(t, cmds, /&&|\|\||;|\|/)
		for (c = 1; c <= nc; c++) {
			n = split(cmds[c], w, /[ \t]+/)
			i = 1
			while (i <= n && w[i] == "") i++
			j = i
			while (j <= n && w[j] ~ /^[A-Z][A-Z0-9_]*=/) j++
			if (j <= n && w[j] != "make")
				continue	# the environment of another program
			for (; i < j; i++)
				var(w[i], j > n ? "alone" : "before make")
			for (j++; j <= n; j++) {
				if (w[j] ~ /^[A-Z][A-Z0-9_]*=/)
					var(w[j], "on the make command line")
				else if (w[j] ~ /^[a-z][a-z0-9-]*$/)
					emit("target", w[j])
			}
		}
	}
	function var(a, where,    name, val) {
		name = a; sub(/=.*/, "", name)
		val = a; sub(/^[^=]*=/, "", val)
		emit("var", name, where)
		if (name == "SCENARIO")
			emit("scenario", val, "SCENARIO=")
	}
	# Code spans and links of prose (a paragraph, a table row, a heading).
	function prose(t,    s) {
		s = t
		while (match(s, /`[^`]+`/)) {
			command(substr(s, RSTART + 1, RLENGTH - 2))
			s = substr(s, RSTART + RLENGTH)
		}
		s = t
		while (match(s, /\]\([^) ]+\)/)) {
			emit("link", substr(s, RSTART + 2, RLENGTH - 3))
			s = substr(s, RSTART + RLENGTH)
		}
	}
	function flush() {
		if (para != "") { at_file = pfile; at_line = pline; prose(para) }
		para = ""
	}
	FNR == 1 { flush(); fence = 0; code = 0; blank = 1; scen = 0; cont = "" }
	{ at_file = FILENAME; at_line = FNR }
	/^```/ { flush(); fence = !fence; next }
	fence || (/^(    |\t)/ && (blank || code)) {
		flush()
		code = 1; blank = 0
		l = $0
		sub(/^[ \t]+/, "", l)
		if (l ~ /^#/) next
		sub(/[ \t]+#.*$/, "", l)
		if (l ~ /\\$/) { cont = cont substr(l, 1, length(l) - 1) " "; next }
		command(cont l)
		cont = ""
		next
	}
	{ code = 0 }
	/^[ \t]*$/ { flush(); blank = 1; scen = 0; next }
	{ blank = 0 }
	/^#+ / {
		flush()
		h = $0; sub(/^#+ /, "", h)
		emit("heading", slug(h))
		prose(h)
		next
	}
	/^\|/ {
		flush()
		n = split($0, cell, "|")
		first = cell[2]; gsub(/[` ]/, "", first)
		if (first == "scenario") scen = 1
		else if (scen && first !~ /^-+$/) {
			m = split(first, names, ",")
			for (k = 1; k <= m; k++) emit("scenario", names[k], "scenario table")
		}
		prose($0)
		next
	}
	/^[ \t]*([-*]|[0-9]+\.) / { flush() }
	{
		scen = 0
		if (para == "") { pfile = FILENAME; pline = FNR }
		para = para " " $0
	}
	END { flush() }
	' README.md Documentation/*.md) || return 1
	while IFS=$'\t' read -r kind f l v where; do
		[ "$kind" = heading ] && heading[$f#$v]=1
	done <<<"$r"
	while IFS=$'\t' read -r kind f l v where; do
		case $kind in
		target)
			[[ "$targets" == *" $v "* ]] ||
				{ echo "$f:$l: make $v: no such target in make help"; bad=1; } ;;
		var)
			case $v in MM510_*|CONFIG_*|KBUILD_*|ARCH|CROSS_COMPILE) continue ;; esac
			[[ "$vars" == *" $v "* ]] ||
				{ echo "$f:$l: $v= ($where): not a variable make help lists"; bad=1; } ;;
		scenario)
			[[ "$v" =~ ^[a-z0-9][a-z0-9-]*$ ]] || continue
			[[ "$scenarios" == *" $v "* ]] ||
				{ echo "$f:$l: scenario $v ($where): not in configs/scenarios"; bad=1; } ;;
		link)
			case $v in http://*|https://*|mailto:*) continue ;; esac
			local path=${v%%#*} anchor= to
			[[ "$v" == *"#"* ]] && anchor=${v#*#}
			if [ -z "$path" ]; then
				to=$f
			else
				to=$(realpath -m --relative-to="$top" "$top/$(dirname "$f")/$path")
			fi
			[ -e "$top/$to" ] ||
				{ echo "$f:$l: link $v: no file $to"; bad=1; continue; }
			[ -z "$anchor" ] || [[ "$to" != *.md ]] || [ -n "${heading[$to#$anchor]:-}" ] ||
				{ echo "$f:$l: link $v: no heading #$anchor in $to"; bad=1; }
			;;
		esac
	done <<<"$r"
	[ "$bad" -eq 0 ]
}

# The README's and the manuals' promises hold (docs_check), and a broken
# one fails: a project copy whose README gains a link to a manual that is
# not there, a make target, a scenario and a variable that do not exist
# must fail, each named.  Checked once failing on the real README too:
# with the link to Documentation/series.md spelt Documentation/serie.md
# and `make build SCENARIO=debian` spelt `make bulid`, this case failed,
# naming README.md's line of each.
t_docs_promises() {
	local p out
	docs_check "$TOP" || { echo "README.md or Documentation/ break a promise (above)"; return 1; }
	p=$(project_copy)
	printf '%s\n' '' 'See [a manual](Documentation/no-such-manual.md) and' \
		'[a section](Documentation/testing.md#no-such-section), then run' '' \
		'    make no-such-target SCENARIO=no-such-scenario NO_SUCH_VARIABLE=1' >>"$p/README.md"
	out=$(docs_check "$p") && { echo "$out"; echo "the broken promises passed"; return 1; }
	echo "$out"
	grep -qF 'link Documentation/no-such-manual.md: no file Documentation/no-such-manual.md' <<<"$out" &&
		grep -qF 'link Documentation/testing.md#no-such-section: no heading #no-such-section' <<<"$out" &&
		grep -qF 'make no-such-target: no such target in make help' <<<"$out" &&
		grep -qF 'scenario no-such-scenario (SCENARIO=): not in configs/scenarios' <<<"$out" &&
		grep -qF 'NO_SUCH_VARIABLE= (on the make command line): not a variable make help lists' <<<"$out" || {
		echo "a broken promise was not named"; return 1; }
}

# --- cases needing a built default kernel -----------------------------------

t_guest_panics() {
	expect_fail "kernel panic" env BOOT_LOG="$scratch/boot.log" BOOT_ARGS=mm510.selftest=exit \
		BOOT_TIMEOUT=300 QUIET=1 "$TOP/ci/boot.sh" default
}

t_guest_hangs() {
	expect_fail "guest hung" env BOOT_LOG="$scratch/boot.log" BOOT_ARGS=mm510.selftest=hang \
		BOOT_TIMEOUT=30 QUIET=1 "$TOP/ci/boot.sh" default
}

t_build_interrupted() {
	# SIGTERM to the process group (a CI job cancelled; SIGINT would be
	# ignored by a background job) while the kernel's make runs; a
	# second run completes and leaves a kernel and an initramfs.
	local obj start pid rc=0 i tmp_before tmp_after
	obj=$BUILD/obj/stack-$(. "$TOP/ci/scenario.sh"; scenario_load default; echo "$SC_KEY")
	[ -f "$obj/arch/x86/boot/bzImage" ] || { echo "no default kernel built"; return 1; }
	# Another build of this folder may hold its own temporary folder.
	tmp_before=$(ls -d "$BUILD"/.config.* 2>/dev/null || :)
	start=$(date +%s.%N)
	sleep 0.1
	setsid "$TOP/ci/build.sh" default >"$scratch/build1.out" 2>&1 &
	pid=$!
	# build.log is rewritten when the kernel's make starts.
	for i in $(seq 600); do
		[ "$(stat -c %.9Y "$obj/build.log" 2>/dev/null || echo 0)" \> "$start" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	sleep 2
	kill -TERM -- "-$pid" 2>/dev/null || { echo "build.sh ended before it could be interrupted"; return 1; }
	wait "$pid" || rc=$?
	cat "$scratch/build1.out"
	[ "$rc" -ne 0 ] || { echo "the interrupted build exited 0"; return 1; }
	echo "interrupted build: exit $rc"
	"$TOP/ci/build.sh" default 2>&1 | tail -n 2
	[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "the resumed build failed"; return 1; }
	[ -s "$obj/arch/x86/boot/bzImage" ] && [ -s "$obj/mm510-initramfs.cpio" ] || {
		echo "no kernel or initramfs after the resumed build"; return 1; }
	tmp_after=$(ls -d "$BUILD"/.config.* 2>/dev/null || :)
	[ "$tmp_after" = "$tmp_before" ] || {
		echo "temporary folders left in $BUILD: $tmp_after"; return 1; }
}

t_guest_test_fails() {
	# A test that does not exist must fail the run, not be skipped.
	expect_fail "tests failed" env BOOT_LOG="$scratch/boot.log" TESTS=no_such_test BOOT_TIMEOUT=300 \
		QUIET=1 "$TOP/ci/boot.sh" default
}

# On arm64 the same failure ends QEMU with status 1 (the runner's
# semihosting SYS_EXIT), and a pass needs the PASS line as on x86.
t_guest_arm64_fails() {
	local obj
	obj=$BUILD/obj/stack-$(. "$TOP/ci/scenario.sh"; scenario_load arm64; echo "$SC_KEY")
	[ -f "$obj/mm510-initramfs.cpio" ] || { echo "no arm64 kernel built"; return 4; }
	expect_fail "tests failed: 1 of 2 (QEMU exit status 1)" env BOOT_LOG="$scratch/boot.log" \
		TESTS=no_such_test BOOT_TIMEOUT=300 QUIET=1 "$TOP/ci/boot.sh" arm64
}

t_guest_leftover() {
	# What a test leaves behind fails that test, is removed, and does
	# not fail the next one.
	expect_fail "tests failed: 1 of 3" env BOOT_LOG="$scratch/boot.log" \
		TESTS=boot_release,boot_release BOOT_ARGS=mm510.selftest=leftover \
		BOOT_TIMEOUT=300 QUIET=1 "$TOP/ci/boot.sh" default
	grep -q '^# boot_release: left cgroup /sys/fs/cgroup/mm510-drill' "$scratch/boot.log" &&
		grep -q '^not ok 2 boot_release' "$scratch/boot.log" &&
		grep -q '^ok 3 boot_release' "$scratch/boot.log" || {
		echo "leftover not blamed on the first test, or not removed"
		grep -E '^(ok|not ok|# )' "$scratch/boot.log"
		return 1
	}
}

t_repeat_counts() {
	# make repeat: every boot counted, a log each; a failing boot is
	# named with its first trouble, and STOP_ON_FAIL stops there.
	local dir=$BUILD/logs/repeat-stack-default
	env COUNT=2 TESTS=boot_release QUIET=1 "$TOP/ci/repeat.sh" default >"$scratch/r1.out" 2>&1 || {
		cat "$scratch/r1.out"; echo "two passing boots did not pass"; return 1; }
	cat "$scratch/r1.out"
	grep -qx 'boot 2/2: pass ([0-9]* s)' "$scratch/r1.out" &&
		grep -q '^repeat: 2 of 2 boots passed' "$scratch/r1.out" &&
		[ -s "$dir/1.log" ] && [ -s "$dir/2.log" ] || {
		echo "two passes not counted, or their logs missing"; return 1; }
	expect_fail "repeat: 0 of 1 boots passed" env COUNT=3 STOP_ON_FAIL=1 TESTS=no_such_test \
		BOOT_TIMEOUT=300 "$TOP/ci/repeat.sh" default >"$scratch/r2.out" || return 1
	grep -q '^  first trouble: not ok 2 no_such_test' "$scratch/r2.out" &&
		[ -s "$dir/1.log" ] && [ ! -e "$dir/2.log" ] || {
		cat "$scratch/r2.out"; echo "the failing boot is not named, or repeat went on"; return 1; }
}

t_boot_interrupted() {
	# QEMU runs under timeout(1) in a process group of its own: a
	# cancelled boot must end it, not leave it running to its limit.
	# Checked once against boot.sh without its EXIT trap: QEMU still
	# ran 15 s after the cancel, and this case failed.
	local pid tpid i
	setsid env BOOT_LOG="$scratch/boot.log" BOOT_ARGS=mm510.selftest=hang BOOT_TIMEOUT=300 QUIET=1 \
		"$TOP/ci/boot.sh" default >"$scratch/boot.out" 2>&1 &
	pid=$!
	for i in $(seq 100); do
		tpid=$(pgrep -P "$pid" -x timeout || :)
		[ -n "$tpid" ] && break
		sleep 0.1
	done
	[ -n "$tpid" ] || { cat "$scratch/boot.out"; echo "no QEMU started"; return 1; }
	sleep 2
	kill -TERM -- "-$pid"
	for i in $(seq 150); do
		kill -0 "$tpid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$tpid" 2>/dev/null; then
		kill "$tpid"
		wait "$pid" || :
		echo "QEMU (under timeout $tpid) still ran 15 s after boot.sh was cancelled"
		return 1
	fi
	wait "$pid" || :
}

# make bench's report generator on a canned results file (no timing is
# asserted: the figures are made up): medians with min..max, the change
# against base, n/a where the base lacks a figure (no bulk allocator),
# the accounting overhead and its ratio, and the plot when gnuplot is here.
t_bench_report() {
	local out=$scratch/bench r=$scratch/bench/report.md
	"$TOP/ci/bench-report.sh" "$TOP/ci/tests/data/bench-results.csv" "$out"
	grep -qF '| slab-32-t1 | kmem | ns_op (ns) | 3 | 310 (300..320) | 255 (250..260) | -17.7% | 235 (230..240) | -24.2% |' "$r" ||
		{ echo "slab row wrong"; cat "$r"; return 1; }
	grep -qF '| page-bulk-8 | kmem | ns_page (ns) | 1 | n/a | 50 |  | 45 |  |' "$r" ||
		{ echo "n/a row wrong"; cat "$r"; return 1; }
	grep -qF '| slab-32-t1 | 210.0 | 150.0 | 0.71 | 115.0 | 0.55 |' "$r" ||
		{ echo "overhead row wrong"; cat "$r"; return 1; }
	[ "$(grep -n '^## Mode' "$r" | cut -d' ' -f3 | tr '\n' ' ')" = "tcg icount " ] ||
		{ echo "modes not in order tcg, icount"; return 1; }
	if command -v gnuplot >/dev/null; then
		[ -s "$out/ratios.png" ] || { echo "no ratios.png"; return 1; }
	fi
}

# The irqsoff variant: its rows (median of the longest section) and the
# sites table from the logs beside the results, the longest per kernel.
t_bench_report_irqsoff() {
	local d=$scratch/bench-irq r=$scratch/bench-irq/report.md
	mkdir -p "$d/logs"
	{ echo 'kernel,mode,variant,rep,name,metric,value,unit'
	  for rep in 1 2; do
		echo "base,icount,irqsoff,$rep,page-single,irqsoff_max_us,$((30 + rep)),us"
		echo "stack,icount,irqsoff,$rep,page-single,irqsoff_max_us,$((20 + rep)),us"
	  done; } >"$d/results.csv"
	printf 'mm510-irqsoff: page-single 31 started=free_unref_page ended=free_unref_page stack=free_unref_page<bench_run<param_attr_store\r\n' \
		>"$d/logs/base-icount-irqsoff-1.log"
	printf 'noise\nmm510-irqsoff: page-single 32 started=rmqueue ended=_raw_spin_unlock_irqrestore stack=rmqueue<get_page_from_freelist\n' \
		>"$d/logs/base-icount-irqsoff-2.log"
	printf 'mm510-irqsoff: page-single 22 started=__do_softirq ended=__do_softirq stack=irq_exit_rcu\n' \
		>"$d/logs/stack-icount-irqsoff-1.log"
	NO_PLOT=1 "$TOP/ci/bench-report.sh" "$d/results.csv" "$d" >/dev/null
	grep -qF '| page-single | irqsoff | irqsoff_max_us (us) | 2 | 31.5 (31..32) | 21.5 (21..22) | -31.7% |' "$r" ||
		{ echo "irqsoff row wrong"; cat "$r"; return 1; }
	grep -qF '| base | page-single | 32 | rmqueue | _raw_spin_unlock_irqrestore | rmqueue < get_page_from_freelist |' "$r" ||
		{ echo "base site wrong (not the longest?)"; cat "$r"; return 1; }
	grep -qF '| stack | page-single | 22 | __do_softirq | __do_softirq | irq_exit_rcu |' "$r" ||
		{ echo "stack site wrong"; cat "$r"; return 1; }
	grep -qF '| longest IRQs-off section under the page benchmark (us) | 2 | 31.5 (31..32) | 21.5 (21..22) | 0.682 (0.677..0.688) |' "$r" ||
		{ echo "irqsoff summary row wrong"; cat "$r"; return 1; }
}

# The profile variant (make bench PROFILE=1): per row, the functions
# whose self ns per operation differ most between base and stack come
# first, "-" where a kernel's run did not list the function, and the
# sum of what each run listed.
t_bench_report_profile() {
	local d=$scratch/bench-prof r=$scratch/bench-prof/report.md
	mkdir -p "$d"
	printf 'kernel,mode,variant,rep,name,metric,value,unit\nbase,icount,kmem,1,slab-32-t1,ns_op,300,ns\n' \
		>"$d/results.csv"
	{ echo 'kernel,row,ops,function,calls,ns'
	  echo 'base,slab-32-t1,1000,kmem_cache_alloc,1000,50000'
	  echo 'base,slab-32-t1,1000,get_obj_cgroup_from_current,1000,40000'
	  echo 'base,slab-32-t1,1000,percpu_ref_put,2000,10000'
	  echo 'stack,slab-32-t1,1000,kmem_cache_alloc,1000,49000'
	  echo 'stack,slab-32-t1,1000,current_objcg_update,1,500'
	  echo 'base,page-single,1000,rmqueue,1000,9000'; } >"$d/profile.csv"
	NO_PLOT=1 "$TOP/ci/bench-report.sh" "$d/results.csv" "$d" >/dev/null
	grep -qF '## Function profile (variant profile)' "$r" ||
		{ echo "no profile section"; cat "$r"; return 1; }
	[ "$(sed -n '/^### slab-32-t1$/,/^### /p' "$r" | grep '^| [a-z_]* | [0-9-]' | cut -d' ' -f2 | tr '\n' ' ')" = \
		"get_obj_cgroup_from_current percpu_ref_put kmem_cache_alloc current_objcg_update " ] ||
		{ echo "functions not by the size of their difference"; cat "$r"; return 1; }
	grep -qF '| get_obj_cgroup_from_current | 1.00 | 40.0 | - | - | -40.0 |' "$r" ||
		{ echo "a function the stack does not list is wrong"; cat "$r"; return 1; }
	grep -qF '| (the 40 listed, in all) | | 100.0 | | 49.5 | -50.5 |' "$r" ||
		{ echo "totals wrong"; cat "$r"; return 1; }
	grep -qF '### page-single' "$r" ||
		{ echo "no page-single table"; cat "$r"; return 1; }
}

# The summary: each figure and its ratio to base are computed within a
# repetition, then given as median (min..max); the overhead ratio is the
# median of the per-repetition ratios, not the ratio of the medians
# (150/206 = 0.728 here), and a row no kernel has is left out.
t_bench_report_summary() {
	local out=$scratch/bench-sum r=$scratch/bench-sum/report.md
	NO_PLOT=1 "$TOP/ci/bench-report.sh" "$TOP/ci/tests/data/bench-results.csv" "$out" >/dev/null
	sed -n '/^## Summary$/,/^## Mode/p' "$r" >"$scratch/summary.md"
	grep -qF '| slab accounting overhead, 32 B (ns per pair, kmem - nokmem) | 3 | 206 (200..220) | 150 (140..160) | 0.727 (0.700..0.728) | 114 (110..120) | 0.553 (0.500..0.600) |' \
		"$scratch/summary.md" || { echo "overhead row wrong"; cat "$r"; return 1; }
	grep -qF '| bulk of 8, per page, / single page (of the same kernel) |' "$scratch/summary.md" &&
		{ echo "a bulk row without page-single figures"; cat "$r"; return 1; }
	grep -qF 'the root memory cgroup' "$scratch/summary.md" &&
		{ echo "a root row without root figures"; cat "$r"; return 1; }
	:
}

# A histogram file as cyclictest --histfile writes it: cyc_hist FILE
# BUCKETS "MAX..." "OVERFLOWS..." THREAD:US:COUNT..., one MAX and one
# OVERFLOWS a thread (its Max Latencies and Histogram Overflows lines).
cyc_hist() {
	local f=$1 size=$2 maxes=$3 ovf=$4
	shift 4
	awk -v size="$size" -v maxes="$maxes" -v ovf="$ovf" -v spec="$*" 'BEGIN {
		nt = split(maxes, mx, " "); split(ovf, ov, " ")
		ns = split(spec, sp, " ")
		for (i = 1; i <= ns; i++) {
			split(sp[i], x, ":")
			c[x[1], x[2]] += x[3]; t[x[1]] += x[3]; sum[x[1]] += x[2] * x[3]
		}
		print "# Histogram"
		for (b = 0; b < size; b++) {
			printf "%06d", b
			for (j = 0; j < nt; j++) printf " %06d", c[j, b]
			printf "\n"
		}
		printf "# Total:"; for (j = 0; j < nt; j++) printf " %09d", t[j]; printf "\n"
		printf "# Min Latencies:"; for (j = 0; j < nt; j++) printf " %05d", 1; printf "\n"
		printf "# Avg Latencies:"
		for (j = 0; j < nt; j++) printf " %05d", int(sum[j] / (t[j] + ov[j + 1])); printf "\n"
		printf "# Max Latencies:"; for (j = 0; j < nt; j++) printf " %05d", mx[j + 1]; printf "\n"
		printf "# Histogram Overflows:"; for (j = 0; j < nt; j++) printf " %05d", ov[j + 1]; printf "\n"
		printf "# Histogram Overflow at cycle number:\n"
		for (j = 0; j < nt; j++) printf "# Thread %d:\n", j
	}' >"$f"
}

# The lat variant (cyclictest): bench/lat, built here, reads canned
# histogram files (--parse): the p99.9 is the smallest bucket with 99.9%
# of the wake-ups at or below it, overflows counted (past the histogram:
# its limit, a lower bound), the maximum is cyclictest's own.  The
# report gives each load's max and p99.9 with their per-repetition
# ratios, says "no worse" or "worse" only where every ratio is on one
# side of 1, nothing on one repetition or a lower bound, and tabulates
# the histograms.  2 threads of 1000 wake-ups: rank 1998.
t_bench_report_lat() {
	local d=$scratch/bench-lat r=$scratch/bench-lat/report.md lat=$scratch/lat h=$scratch/lat.hist
	mkdir -p "$d"
	gcc -O2 -Wall -I"$TOP/tools/lib" -o "$lat" "$TOP/tools/bench/lat.c" "$TOP/tools/lib/mmt.c" -lpthread
	echo 'kernel,mode,variant,rep,name,metric,value,unit' >"$d/results.csv"
	echo 'kernel,mode,rep,load,us,count' >"$d/lathist.csv"
	# KERNEL MODE REP LOAD: the figures of $h, collected as bench.sh does.
	collect() {
		"$lat" --parse "$4" "$h" >"$h.out"
		sed -n 's/^mm510-bench: //p' "$h.out" |
			awk -v k="$1" -v m="$2" -v r="$3" \
			'NF == 4 { printf "%s,%s,lat,%s,%s,%s,%s,%s\n", k, m, r, $1, $2, $3, $4 }' >>"$d/results.csv"
		sed -n 's/^mm510-lathist: //p' "$h.out" |
			awk -v k="$1" -v m="$2" -v r="$3" \
			'NF == 3 { printf "%s,%s,%s,%s,%s,%s\n", k, m, r, $1, $2, $3 }' >>"$d/lathist.csv"
	}
	# page: lower p99.9 on the stack in both repetitions, max either way.
	cyc_hist "$h" 100 "40 6" "0 0" 0:5:997 0:9:2 0:40:1 1:6:1000
	"$lat" --parse page "$h" >"$h.out"
	grep -qx 'mm510-bench: lat-page p99_9_us 9.000 us' "$h.out" &&
		grep -qx 'mm510-bench: lat-page max_us 40.000 us' "$h.out" &&
		grep -qx 'mm510-bench: lat-page samples 2000.000 samples' "$h.out" &&
		grep -qx 'mm510-lathist: page 6 1000' "$h.out" ||
		{ echo "lat --parse: wrong figures"; cat "$h.out"; return 1; }
	# In nanoseconds (-N, icount mode): figures in us, histogram lines in
	# steps of 10 ns.
	cyc_hist "$h.ns" 100000 "45000 2500" "0 1" 0:2400:997 0:2405:1 0:3100:1 0:45000:1 1:2500:999
	"$lat" --parse page "$h.ns" ns >"$h.out"
	grep -qx 'mm510-bench: lat-page p99_9_us 3.100 us' "$h.out" &&
		grep -qx 'mm510-bench: lat-page max_us 45.000 us' "$h.out" &&
		grep -qx 'mm510-lathist: page 2.40 998' "$h.out" &&
		grep -qx 'mm510-lathist: page 45.00 1' "$h.out" &&
		grep -qx 'mm510-lathist: page >=100 1' "$h.out" ||
		{ echo "lat --parse ns: wrong figures"; cat "$h.out"; return 1; }
	collect base icount 1 page
	cyc_hist "$h" 100 "42 6" "0 0" 0:5:997 0:10:2 0:42:1 1:6:1000; collect base icount 2 page
	cyc_hist "$h" 100 "30 6" "0 0" 0:5:997 0:8:2 0:30:1 1:6:1000; collect stack icount 1 page
	cyc_hist "$h" 100 "45 6" "0 0" 0:5:997 0:8:2 0:45:1 1:6:1000; collect stack icount 2 page
	# slab: 1997 wake-ups at 4 us are one short of the rank.
	for rep in 1 2; do
		cyc_hist "$h" 100 "4 12" "0 0" 0:4:1000 1:4:999 1:12:1; collect base icount $rep slab
		cyc_hist "$h" 100 "20 4" "0 0" 0:4:997 0:20:3 1:4:1000; collect stack icount $rep slab
	done
	# idle: the stack's second repetition has its rank past the histogram.
	for rep in 1 2; do
		cyc_hist "$h" 100 "3 3" "0 0" 0:2:1000 1:3:1000; collect base icount $rep idle
	done
	cyc_hist "$h" 100 "3 3" "0 0" 0:2:1000 1:3:1000; collect stack icount 1 idle
	cyc_hist "$h" 100 "250 3" "3 0" 0:2:997 1:3:1000; collect stack icount 2 idle
	grep -qx 'mm510-bench: lat-idle p99_9_us 100.000 us' "$h.out" &&
		grep -qx 'mm510-lathist: idle >=100 3' "$h.out" ||
		{ echo "lat --parse: overflows wrong"; cat "$h.out"; return 1; }
	# tcg: one repetition only.
	cyc_hist "$h" 100 "40 6" "0 0" 0:5:997 0:9:2 0:40:1 1:6:1000; collect base tcg 1 page
	cyc_hist "$h" 100 "30 6" "0 0" 0:5:997 0:8:2 0:30:1 1:6:1000; collect stack tcg 1 page
	NO_PLOT=1 "$TOP/ci/bench-report.sh" "$d/results.csv" "$d" >/dev/null
	sed -n '/^## Summary$/,/^## Mode/p' "$r" >"$scratch/summary.md"
	grep -qF '| cyclictest p99.9 (us), page load | 2 | 9.5 (9..10) | 8 | 0.844 (0.800..0.889) |' "$scratch/summary.md" &&
		grep -qF '| cyclictest max (us), page load | 2 | 41 (40..42) | 37.5 (30..45) | 0.911 (0.750..1.071) |' "$scratch/summary.md" ||
		{ echo "summary rows wrong"; cat "$r"; return 1; }
	sed -n '/^## Wake-up latency/,$p' "$r" >"$scratch/lat.md"
	grep -qF '| page | p99.9 (us) | 2 | 9.5 (9..10) | 8 | 0.844 (0.800..0.889) | no worse than base (lower in every repetition) |' "$scratch/lat.md" &&
		grep -qF '| page | max (us) | 2 | 41 (40..42) | 37.5 (30..45) | 0.911 (0.750..1.071) | within the spread: no claim |' "$scratch/lat.md" &&
		grep -qF '| slab | p99.9 (us) | 2 | 4 | 20 | 5.000 | worse than base in every repetition |' "$scratch/lat.md" &&
		grep -qF '| idle | p99.9 (us) | 2 | 3 | 51.5 (3..100) | 17.167 (1.000..33.333) | past the histogram: no claim |' "$scratch/lat.md" &&
		grep -qF -- '- stack, idle load, repetition 2: the p99.9 lies past the histogram (100 us or more)' "$scratch/lat.md" &&
		grep -qF '| page | p99.9 (us) | 1 | 9 | 8 | 0.889 | one repetition: no claim |' "$scratch/lat.md" ||
		{ echo "latency rows or claims wrong"; cat "$r"; return 1; }
	grep -qF '| load | kernel | n | wake-ups | 2 | 2.828 | 4 | 5.657 | 8 | 11.31 | 16 | 22.63 | 32 | >=100 |' "$scratch/lat.md" &&
		grep -qF '| idle | stack | 2 | 4000 | 1997 | 2000 |  |  |  |  |  |  |  | 3 |' "$scratch/lat.md" &&
		grep -qF '| page | base | 2 | 4000 |  |  | 1994 | 2000 | 4 |  |  |  | 2 |  |' "$scratch/lat.md" &&
		grep -qF '| slab | stack | 2 | 4000 |  |  | 3994 |  |  |  | 6 |  |  |  |' "$scratch/lat.md" ||
		{ echo "histogram table wrong"; cat "$r"; return 1; }
	[ "$(grep '^### ' "$scratch/lat.md" | tr '\n' '/')" = \
		"### tcg/### icount/### Histogram, tcg: wake-ups per latency bin, the repetitions summed/### Histogram, icount: wake-ups per latency bin, the repetitions summed/" ] ||
		{ echo "modes not in order tcg, icount"; cat "$r"; return 1; }
}

t_bench_report_malformed() {
	printf 'kernel,mode,variant,rep,name,metric,value,unit\nbase,tcg,kmem,1,x,ns_op,fast,ns\n' \
		>"$scratch/bad.csv"
	expect_fail "malformed" "$TOP/ci/bench-report.sh" "$scratch/bad.csv" "$scratch/bad"
}

t_peer_wrong_checksum() {
	echo "not the package" >"$scratch/fake.deb"
	expect_fail "is not the pinned" env BUILD="$scratch/b" MM510_PEER_DEB="$scratch/fake.deb" \
		"$TOP/ci/peer.sh"
	[ ! -e "$scratch/b/peer" ] || { echo "a peer tree was left"; return 1; }
}

# make kabi's report on a synthetic pair (ci/tests/data/kabi): a git
# tree whose first commit adds a member to struct syn_zone and whose
# second touches nothing exported, the two "kernels" built from it with
# DWARF, their Module.symvers (syn_count's CRC changes) and symtypes.
kabi_fixture() {
	local d=$1 v
	mkdir -p "$d/tree" "$d/base" "$d/stack"
	cp "$TOP"/ci/tests/data/kabi/syn.[ch] "$d/tree/"
	(
		cd "$d/tree" || exit 1
		git init -q -b master
		git add syn.h syn.c
		git -c user.name=t -c user.email=t@t commit -qm base
		git tag base
		sed -i 's/^\tint count;$/\tint count;\n\tlong high;/' syn.h
		git -c user.name=t -c user.email=t@t commit -qam 'syn: add a member to struct syn_zone'
		echo '/* nothing exported changes */' >>syn.c
		git -c user.name=t -c user.email=t@t commit -qam 'syn: a comment'
		gcc -g -gdwarf-4 -O1 -fno-pic -no-pie -nostdlib -static -o ../stack/vmlinux syn.c
		git checkout -q base
		gcc -g -gdwarf-4 -O1 -fno-pic -no-pie -nostdlib -static -o ../base/vmlinux syn.c
		git checkout -q master
	)
	printf '0001-syn-add-a-member.patch\n0002-syn-a-comment.patch\n' >"$d/patches"
	printf '0x%s\tsyn_count\tvmlinux\tEXPORT_SYMBOL\t\n0x22222222\tsyn_other_get\tvmlinux\tEXPORT_SYMBOL_GPL\t\n' \
		11111111 >"$d/base/Module.symvers"
	printf '0x%s\tsyn_count\tvmlinux\tEXPORT_SYMBOL\t\n0x22222222\tsyn_other_get\tvmlinux\tEXPORT_SYMBOL_GPL\t\n' \
		33333333 >"$d/stack/Module.symvers"
	for v in base stack; do
		{
			if [ $v = base ]; then
				echo 's#syn_zone struct syn_zone { unsigned long flags ; int count ; } '
			else
				echo 's#syn_zone struct syn_zone { unsigned long flags ; int count ; long high ; } '
			fi
			echo 'syn_count int syn_count ( s#syn_zone * ) '
			echo 's#syn_other struct syn_other { int a ; } '
			echo 'syn_other_get int syn_other_get ( s#syn_other * ) '
		} >"$d/$v/syn.symtypes"
	done
}

kabi_run() {
	local d=$1
	shift
	"$TOP/ci/kabi-report.sh" "$d/base" "$d/stack" "$d/tree" base master "$d/patches" "$d/out" "$@"
}

# The one-member change is in the report under the patch that made it,
# with the CRC it changes; a symbol list naming the changed symbol fails
# with its name, one naming only an untouched symbol passes.
t_kabi_report() {
	local d=$scratch/kabi r rc=0
	command -v abidiff >/dev/null || { echo "abidiff not installed (apt-get install abigail-tools)"; return 4; }
	kabi_fixture "$d"
	kabi_run "$d"
	r=$d/out/report.md
	grep -qF '### 0001-syn-add-a-member' "$r" || { echo "no section for 0001"; cat "$r"; return 1; }
	sed -n '/^### 0001-syn-add-a-member/,/^##/p' "$r" | grep -F 'changes `struct syn_zone`: member high added' ||
		{ echo "0001 does not change struct syn_zone"; cat "$r"; return 1; }
	sed -n '/^### 0001-syn-add-a-member/,/^##/p' "$r" | grep -F "1 exported symbols' CRCs change" ||
		{ echo "0001 changes no CRC"; cat "$r"; return 1; }
	! grep -qF '### 0002' "$r" || { echo "0002, which changes nothing exported, is in the report"; return 1; }
	grep -qxF "$(printf 'syn_count\tcrc\tvmlinux\t0x11111111\t0x33333333\tEXPORT_SYMBOL\tEXPORT_SYMBOL\ts#syn_zone\t0001-syn-add-a-member\t-')" \
		"$d/out/symbols.tsv" || { echo "symbols.tsv lacks syn_count's CRC change"; cat "$d/out/symbols.tsv"; return 1; }
	! grep -q '^syn_other_get' "$d/out/symbols.tsv" || { echo "syn_other_get is listed as changed"; return 1; }
	grep -q '^struct syn_zone	syn.h:[0-9]*:1	size 16 -> 24 bytes' "$d/out/types.tsv" ||
		{ echo "types.tsv lacks struct syn_zone"; cat "$d/out/types.tsv"; return 1; }

	printf '[abi_symbol_list]\n  syn_count\n  syn_other_get\n' >"$d/mine"
	kabi_run "$d" "$d/mine" >"$d/run.out" 2>&1 || rc=$?
	cat "$d/run.out"
	[ "$rc" -eq 3 ] || { echo "a symbol list with a broken symbol exits $rc, not 3"; return 1; }
	grep -q '^  syn_count: CRC 0x11111111 -> 0x33333333' "$d/run.out" || { echo "syn_count not named"; return 1; }
	grep -qF '1 of the 2 symbols' "$d/run.out" || return 1
	grep -qxF "$(printf 'syn_other_get\tok\tunchanged')" "$d/out/symbol-list.tsv" || return 1

	printf '# only what is untouched\nsyn_other_get\n' >"$d/mine"
	kabi_run "$d" "$d/mine" || { echo "a symbol list of untouched symbols failed"; return 1; }
}

# Bad input: no libabigail, a kernel without DWARF or without CRCs, a
# symbol list naming a symbol neither kernel exports.  Each a clear
# message, and the report of the last good run is left as it was.
t_kabi_bad_input() {
	local d=$scratch/kabi-bad bin=$scratch/bin-noabi f
	command -v abidiff >/dev/null || { echo "abidiff not installed (apt-get install abigail-tools)"; return 4; }
	kabi_fixture "$d"
	kabi_run "$d"
	cp "$d/out/report.md" "$d/good.md"
	mkdir -p "$bin"
	for f in /usr/bin/* /bin/*; do
		case ${f##*/} in abidiff) continue ;; esac
		[ -e "$bin/${f##*/}" ] || ln -s "$f" "$bin/${f##*/}"
	done
	expect_fail "'abidiff' not found: install it with 'apt-get install abigail-tools'" \
		env PATH="$bin" "$TOP/ci/kabi-report.sh" "$d/base" "$d/stack" "$d/tree" base master "$d/patches" "$d/out"
	printf 'syn_other_get\nsyn_gone\n' >"$d/mine"
	expect_fail "names 1 symbol(s) neither kernel exports: syn_gone" kabi_run "$d" "$d/mine"
	cp -r "$d/stack" "$d/stack.good"
	strip --strip-debug "$d/stack/vmlinux"
	expect_fail "stack/vmlinux has no DWARF (.debug_info): built without CONFIG_DEBUG_INFO" kabi_run "$d"
	rm -rf "$d/stack" && cp -r "$d/stack.good" "$d/stack"
	sed -i 's/^0x[0-9a-f]*/0x00000000/' "$d/stack/Module.symvers"
	expect_fail "stack/Module.symvers has no CRCs: built without CONFIG_MODVERSIONS" kabi_run "$d"
	cmp -s "$d/out/report.md" "$d/good.md" || { echo "the last good report was changed"; return 1; }
	[ -z "$(find "$d" -maxdepth 1 -name '.kabi.*')" ] || { echo "a half-written report was left"; return 1; }
}

# make check's verdicts of a guest log: a failing test's reason is its
# first "# FAIL" line (not a later diagnostic, not the one of an earlier
# test), else its last diagnostic but the runner's timing line, a gate's
# own reason is kept, and the failures are listed again
# just above the last line, where the tail of a CI log shows them.
t_check_report() {
	local out
	cat >"$scratch/tap.log" <<-'EOF'
	TAP version 13
	# FAIL tests/a.c:1: printed before a test that passes
	ok 1 a
	# FAIL tests/b.c:12: node 0's bytes not counted on node 0
	# FAIL tests/b.c:40: a second failure of the same test
	# b took 0.2 s
	not ok 2 b
	# c: left module kmalloc_cg loaded
	# c took 0.1 s
	not ok 3 c
	not ok 4 d
	not ok 5 gate # fail: 2 errors [gate.log]
	ok 6 e # SKIP no memory controller
	EOF
	# As from the guest's serial console.
	sed -i 's/$/\r/' "$scratch/tap.log"
	out=$(bash -c '. "$1"; tap "guest x: " "$2"; summary' _ "$TOP/ci/report.sh" \
		"$scratch/tap.log" | tail -n 6)
	[ "$out" = "failed:
  guest x: b: FAIL tests/b.c:12: node 0's bytes not counted on node 0
  guest x: c: c: left module kmalloc_cg loaded
  guest x: d: see log
  guest x: gate: 2 errors
2 passed, 4 failed" ] || { echo "wrong summary:"; echo "$out"; return 1; }
}

# make check's step table: a row per timed step with its kind and wall
# seconds (a failing step's too), the sum of each kind, the table kept
# in STEPS_FILE, and the verdicts' last line still last.
t_check_steps() {
	local out
	out=$(STEPS_FILE=$scratch/steps.txt bash -c '. "$1"
		timed check "first step" sleep 1
		timed boot "a failing boot" false || record "a failing boot" fail "exit 1" -
		timed prepare "a function" record "x" pass ok -
		summary' _ "$TOP/ci/report.sh")
	echo "$out"
	grep -qE '^ +1  check +first step$' <<<"$out" &&
		grep -qE '^ +0  boot +a failing boot$' <<<"$out" &&
		grep -qE '^ +0  prepare +a function$' <<<"$out" &&
		grep -qE '^ +[12]  total +prepare 0 s, check 1 s, compile 0 s, boot 0 s$' <<<"$out" || {
		echo "wrong step table"; return 1; }
	[ "$(tail -n 1 <<<"$out")" = "1 passed, 1 failed" ] || { echo "the verdicts are not last"; return 1; }
	grep -q 'first step' "$scratch/steps.txt" || { echo "no table in STEPS_FILE"; return 1; }
}

# kselftest_cgroup's racy entry, on the host with stand-in programs: a
# failing test_kmem_memcg_deletion is let off when its figures show the
# stats lagging memory.current, and fails the test when the stats exceed
# it or when it printed no figures.
t_kselftest_lag() {
	local d=$scratch/ksft kc=$scratch/kselftest_cgroup
	mkdir -p "$d"
	gcc -O2 -Wall -I"$TOP/tools/lib" -o "$kc" "$TOP/tools/tests/kselftest_cgroup.c" \
		"$TOP/tools/lib/mmt.c" -lpthread
	printf '#!/bin/sh\necho "ok 1 a"\n' >"$d/test_core"
	cp "$d/test_core" "$d/test_memcontrol"
	kmem() {
		printf '#!/bin/sh\n%s\necho "not ok 2 test_kmem_memcg_deletion"\nexit 1\n' \
			"$1" >"$d/test_kmem"
		chmod +x "$d"/test_*
	}
	kmem 'echo "memory.current = 600000"; echo "slab + anon + file + kernel_stack = 3008"'
	MM510_KSFT_DIR=$d "$kc" >"$scratch/kc.out" 2>&1 ||
		{ echo "a lag failed the test"; cat "$scratch/kc.out"; return 1; }
	kmem 'echo "memory.current = 3008"; echo "slab + anon + file + kernel_stack = 600000"'
	! MM510_KSFT_DIR=$d "$kc" >"$scratch/kc.out" 2>&1 ||
		{ echo "stats above memory.current passed"; cat "$scratch/kc.out"; return 1; }
	grep -q 'not a lag of the stats' "$scratch/kc.out" || { cat "$scratch/kc.out"; return 1; }
	kmem ':'
	! MM510_KSFT_DIR=$d "$kc" >"$scratch/kc.out" 2>&1 ||
		{ echo "a failure without figures passed"; cat "$scratch/kc.out"; return 1; }
}

case ${1:-} in
pre)
	run_case "kselftest_cgroup: a racy subtest is let off only with its race's figures" t_kselftest_lag
	run_case "check: failures listed last, with their reasons" t_check_report
	run_case "check: the step table, each step's time and kind" t_check_steps
	run_case "build: OBJECTS=changed stops on a file Debian and the series both change" t_debian_overlap
	run_case "bench: report from canned results" t_bench_report
	run_case "bench: summary, per-repetition ratios" t_bench_report_summary
	run_case "bench: malformed results file" t_bench_report_malformed
	run_case "bench: irqsoff rows and sites" t_bench_report_irqsoff
	run_case "bench: profile tables" t_bench_report_profile
	run_case "bench: cyclictest histograms to max, p99.9 and their claims" t_bench_report_lat
	run_case "ci: a bad LAVA job or a half-configured lab is named" t_lava_bad_input
	run_case "ci: GATE_POSITIONS that is not a range of patches" t_gate_positions
	run_case "ci: gitlab-ci-local refuses a job the pipeline lacks" t_gitlab_unknown_job
	run_case "kabi: a one-member change is in the report under its patch, and in a symbol list" t_kabi_report
	run_case "kabi: no libabigail, no DWARF, no CRCs, an unknown symbol" t_kabi_bad_input
	run_case "bench: peer .deb with a wrong checksum" t_peer_wrong_checksum
	run_case "fetch: truncated cached tarball" t_truncated_tarball
	run_case "fetch: wrong checksum" t_wrong_checksum
	run_case "fetch: archive unreachable" t_unreachable_archive
	run_case "base: corrupt tarball leaves no repository" t_corrupt_extract
	run_case "apply: patch does not apply" t_patch_does_not_apply
	run_case "apply: series names a missing patch" t_series_names_missing_patch
	run_case "apply: KERNEL_TREE dirty" t_kernel_tree_dirty
	run_case "apply: KERNEL_TREE wrong version" t_kernel_tree_wrong_version
	run_case "apply: KERNEL_TREE has the stack's branch" t_kernel_tree_branch_exists
	run_case "apply: two runs on one build folder wait" t_two_runs_one_build
	run_case "apply: interrupted git am is aborted" t_am_interrupted
	run_case "fetch: Debian tarball with a wrong checksum keeps nothing" t_debian_wrong_checksum
	run_case "base: a patches-rt patch that no longer applies is named, nothing kept" t_debian_rt_does_not_apply
	run_case "apply: an RT flavour patch that no longer matches the RT queue" t_rt_patch_does_not_apply
	run_case "rt: pcp lists and memcg stock under local locks, vanilla named" t_rt_locks
	run_case "base: build folder's disk full" t_full_disk_build
	run_case "fetch: cache disk full" t_full_disk_cache
	run_case "boot: missing tool names its package" t_missing_tool
	run_case "repeat: COUNT that is not a number" t_repeat_bad_count
	run_case "scenario: an unknown arch is named with the known ones" t_unknown_arch
	run_case "build: another arch's option is left out, an unknown one fails" t_foreign_option
	run_case "build/boot: missing cross compiler or QEMU names its package" t_missing_cross
	run_case "bench: an arch without a bench scenario is refused" t_bench_arch
	run_case "bench: no RT peer, IRQSOFF a switch" t_bench_bad_options
	run_case "gates: an out-of-order series entry must say why" t_gate_series_order
	run_case "gates: an RT variant may differ from its patch in context only" t_gate_series_variant
	run_case "gates: checkpatch error fails its patch" t_gate_checkpatch
	run_case "gates: missing Link:/Git-commit: fail provenance" t_gate_provenance
	run_case "gates: provenance checks each patch against upstream.tsv" t_gate_provenance_table
	run_case "gates: a malformed upstream.tsv fails provenance, naming its line" t_gate_provenance_tsv
	run_case "send: send-check.sh on canned mails of a 5.10 backport posting" t_send_check
	run_case "docs: the README's and the manuals' targets, variables, scenarios and links exist" t_docs_promises
	;;
guest)
	run_case "ci: a LAVA job for a built kernel, a board job without its DTB" t_lava_render
	run_case "boot: guest panics" t_guest_panics
	run_case "boot: guest hangs" t_guest_hangs
	run_case "boot: failing test fails the run" t_guest_test_fails
	run_case "boot: a failing test on arm64 ends QEMU with status 1" t_guest_arm64_fails
	run_case "boot: a test's leftover cgroup fails it, not the next" t_guest_leftover
	run_case "build: interrupted, then resumed" t_build_interrupted
	run_case "repeat: boots counted, a failure named, STOP_ON_FAIL" t_repeat_counts
	run_case "boot: a cancelled boot ends its QEMU" t_boot_interrupted
	;;
full)
	# The tools of make check-full and make rebase, which make check
	# does not run: minutes of compiling and extracting.
	run_case "gates: build broken mid-series fails that patch" t_gate_build_breaks
	run_case "gates: new sparse warning fails its patch" t_gate_sparse_warning
	run_case "rebase: a patch 5.10.y took is reported" t_rebase_reports_taken
	run_case "rebase: a conflict keeps nothing half made" t_rebase_conflict
	run_case "rebase: a Debian upload that took a patch, both trees" t_rebase_debian
	;;
*)
	die "usage: host.sh pre|guest|full"
	;;
esac
echo "1..$n"
[ "$failed" -eq 0 ]
