# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Host tests of fetch, base and apply: the tarballs (ci/fetch.sh), the
# base repository and Debian's trees (ci/base.sh, ci/debian.sh), the
# series applied (ci/apply.sh) on the base, on Debian's RT tree and on a
# user's KERNEL_TREE, the build lock, full disks.  Sourced by
# ci/tests/host.sh, which lists the cases; never run.

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

t_patch_does_not_apply() {
	local p b=$scratch/build-am
	p=$(project_copy)
	bad_patch "$p/patches/0001-bad.patch"
	# Third, after two that apply: one `git am` takes the whole series,
	# and the patch it stopped at is named by its position.
	awk '!done && /^[0-9]/ && ++n == 2 { print; print "0001-bad.patch"; done = 1; next } 1' \
		"$p/series" >"$p/series.new" && mv "$p/series.new" "$p/series"
	expect_fail "patch 3, patches/0001-bad.patch, does not apply" env BUILD="$b" \
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

t_rt_patch_does_not_apply() {
	local p b=$scratch/build-rtvar base v rt_tag
	base=$(scratch_base)
	rt_tag=debian-rt/$DEBIAN_SRC_VERSION
	git -C "$BASE_REPO" rev-parse -q --verify "refs/tags/$rt_tag" >/dev/null ||
		{ echo "no $rt_tag tag: run make base SCENARIO=rt"; return 4; }
	git -C "$base" fetch -q "$BASE_REPO" "refs/tags/$rt_tag:refs/tags/$rt_tag" 2>/dev/null || :
	p=$(project_copy)
	# The RT flavour's revert of the queue's pa_lock as if the RT queue
	# had changed a line it restores: its first removed line no longer
	# matches.  It is the series' only patch (it applies on the RT queue
	# without the others): the case is about the message and the tree
	# left behind, not the patches before it.
	v=$(cd "$p/patches" && ls rt/0091-*.patch)
	sed -i '0,/^-\t/s/^-\t/-\tno longer in the RT queue /' "$p/patches/$v"
	printf '#+rt %s\n' "$v" >"$p/series"
	expect_fail "patches/$v, does not apply to debian-rt" env -u MM510_LOCKED \
		SCENARIO=rt BUILD="$b" BASE_REPO="$base" "$p/ci/apply.sh"
	[ "$(git -C "$b/stack-debian-rt" rev-parse HEAD)" = "$(git -C "$base" rev-parse "$rt_tag^{commit}")" ] &&
		[ -z "$(git -C "$b/stack-debian-rt" status --porcelain --untracked-files=no)" ] || {
		echo "the worktree is not back at $rt_tag"; return 1; }
	! git -C "$base" rev-parse -q --verify refs/heads/mm510-debian-rt >/dev/null || {
		echo "a half-made branch mm510-debian-rt was left"; return 1; }
	base_intact
}

# android_bundle: the pinned ACK bundle (ci/android.pin) in $ANDROID_DIR,
# or status 4 (skip) where this machine has none.
android_bundle() {
	local f=$ANDROID_DIR/$ANDROID_BUNDLE
	[ -f "$f" ] || { echo "no $f: the android cases need ../shared/android" >&2; return 4; }
	echo "$f"
}

t_android_import() {
	# Missing, then corrupt: a clear error each time, and neither a tag
	# nor a ref kept.  Then the real bundle: tagged at the pinned head,
	# and a second run keeps the tag.
	local f base d=$scratch/android-bad tag=$ANDROID_BRANCH/$ANDROID_VERSION
	f=$(android_bundle) || return
	base=$(scratch_base)
	git -C "$base" tag -d "$tag" >/dev/null 2>&1 || :
	mkdir -p "$d"
	expect_fail "no Android common kernel: $d/$ANDROID_BUNDLE is missing.  Give your own $ANDROID_BRANCH checkout with KERNEL_TREE=" \
		env -u MM510_LOCKED BUILD="$scratch/build-android" BASE_REPO="$base" \
		ANDROID_DIR="$d" "$TOP/ci/android.sh"
	cp "$f" "$d/$ANDROID_BUNDLE"
	printf 'X' | dd of="$d/$ANDROID_BUNDLE" bs=1 seek=1000000 conv=notrunc status=none
	expect_fail "checksum mismatch" env -u MM510_LOCKED BUILD="$scratch/build-android" \
		BASE_REPO="$base" ANDROID_DIR="$d" "$TOP/ci/android.sh"
	[ -z "$(git -C "$base" for-each-ref "refs/tags/$ANDROID_BRANCH" refs/mm510-import)" ] || {
		echo "a tag or ref was kept: $(git -C "$base" for-each-ref "refs/tags/$ANDROID_BRANCH" refs/mm510-import)"; return 1; }
	env -u MM510_LOCKED BUILD="$scratch/build-android" BASE_REPO="$base" \
		ANDROID_DIR="$(dirname "$f")" "$TOP/ci/android.sh"
	[ "$(git -C "$base" rev-parse "$tag^{commit}")" = "$ANDROID_HEAD" ] || {
		echo "$tag is not at $ANDROID_HEAD"; return 1; }
	env -u MM510_LOCKED BUILD="$scratch/build-android" BASE_REPO="$base" \
		ANDROID_DIR="$d" "$TOP/ci/android.sh" || {
		echo "a second run did not keep the tag (it read the corrupt bundle)"; return 1; }
	[ -z "$(git -C "$base" for-each-ref refs/mm510-import)" ] || {
		echo "the import ref was left"; return 1; }
	base_intact
}

t_android_patch_meets_hook() {
	# A patch of the android flavour whose hunk no longer matches ACK,
	# in pageset_update(), where ACK calls its vendor hook: the message
	# names the patch and the hook, the worktree is back at ACK's tag,
	# and no branch is left.
	local f base p b=$scratch/build-android-am t=$scratch/android-hunk tag=$ANDROID_BRANCH/$ANDROID_VERSION
	f=$(android_bundle) || return
	base=$(scratch_base)
	env -u MM510_LOCKED BUILD="$b" BASE_REPO="$base" ANDROID_DIR="$(dirname "$f")" "$TOP/ci/android.sh"
	p=$(project_copy)
	rm -rf "$t" && mkdir -p "$t/a/mm" "$t/b/mm"
	git -C "$base" show "$tag:mm/page_alloc.c" >"$t/a/mm/page_alloc.c"
	grep -q '^	pcp->high = high;$' "$t/a/mm/page_alloc.c" || {
		echo "ACK's pageset_update() has no 'pcp->high = high;' line: the case needs another hunk"; return 1; }
	sed 's/^	pcp->high = high;$/	WRITE_ONCE(pcp->high, high);/' "$t/a/mm/page_alloc.c" >"$t/b/mm/page_alloc.c"
	{
		printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
		printf 'From: Test <test@example.invalid>\nDate: Thu, 1 Jan 2026 00:00:00 +0000\n'
		printf 'Subject: [PATCH] test: a hunk ACK has moved on from\n\n---\n'
		(cd "$t" && git diff --no-index --no-prefix a/mm/page_alloc.c b/mm/page_alloc.c || [ $? -eq 1 ]) |
			sed 's/^-	pcp->high = high;$/-	pcp->high = high_before_ack;/'
	} >"$p/patches/0001-ack-moved.patch"
	grep -q '^@@ .* @@ static void pageset_update(' "$p/patches/0001-ack-moved.patch" || {
		echo "the made hunk does not name pageset_update(): $(grep '^@@' "$p/patches/0001-ack-moved.patch")"; return 1; }
	echo 0001-ack-moved.patch >"$p/series"
	expect_fail "patches/0001-ack-moved.patch, does not apply to android ($tag; hunk above), where it meets trace_android_vh_pageset_update in pageset_update() of mm/page_alloc.c" \
		env -u MM510_LOCKED BASE_TREE=android BUILD="$b" BASE_REPO="$base" "$p/ci/apply.sh"
	[ "$(git -C "$b/stack-android" rev-parse HEAD)" = "$ANDROID_HEAD" ] &&
		[ -z "$(git -C "$b/stack-android" status --porcelain --untracked-files=no)" ] || {
		echo "the worktree is not back at $tag"; return 1; }
	! git -C "$base" rev-parse -q --verify refs/heads/mm510-android >/dev/null || {
		echo "a half-made branch mm510-android was left"; return 1; }
	git -C "$base" worktree remove --force "$b/stack-android"
	base_intact
}

t_kernel_tree_not_android() {
	# BASE_TREE=android with a KERNEL_TREE of another Android branch,
	# and with one that is no Android tree at all.
	local d=$scratch/user-android13 e=$scratch/user-plain
	fake_tree "$d" 252
	echo 'BRANCH=android13-5.10' >"$d/build.config.common"
	git -C "$d" add build.config.common
	git -C "$d" -c user.name=t -c user.email=t@example.invalid commit -q -m ack13
	expect_fail "is not $ANDROID_BRANCH (its build.config names BRANCH=android13-5.10)" \
		env BASE_TREE=android BUILD="$scratch/build-android13" KERNEL_TREE="$d" "$TOP/ci/apply.sh"
	fake_tree "$e" 252
	expect_fail "is not $ANDROID_BRANCH (its build.config names BRANCH=nothing)" \
		env BASE_TREE=android BUILD="$scratch/build-plain" KERNEL_TREE="$e" "$TOP/ci/apply.sh"
	[ "$(git -C "$d" worktree list | wc -l)" -eq 1 ] && [ "$(git -C "$d" branch --list | wc -l)" -eq 1 ] || {
		echo "a worktree or branch was added to the user's tree"; return 1; }
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

# make fit on a vendor-like tree made here: 5.10.262 with two commits of
# a vendor's in mm/page_alloc.c, one beside the lines 0101 changes (a
# context line: 0101, 0103 and 0121 then apply only three-way), one on a
# line 0102 removes (a conflict, where the vanilla flavour stops).  The report names
# both, the file and the vendor's commit; without the second commit the
# vanilla flavour fits.  The user's branch, HEAD and working tree stay as
# they were, and no worktree is left.
t_fit_vendor_tree() {
	local d=$scratch/vendor f head refs tsv=$scratch/build-fit/fit/fit.tsv
	git clone -q --shared --no-checkout "$BASE_REPO" "$d"
	git -C "$d" checkout -q -b vendor "$BASE_TAG"
	f=$d/mm/page_alloc.c
	sed -i 's/^\( \* not check if the processor is online before following the pageset pointer\)\.$/\1 (vendor)./' "$f"
	git -C "$d" -c user.name=v -c user.email=v@example.invalid commit -q -am "vendor: a comment of page_alloc.c"
	sed -i 's/^static void __zone_pcp_update(struct zone \*zone)$/static noinline void __zone_pcp_update(struct zone *zone)/' "$f"
	git -C "$d" -c user.name=v -c user.email=v@example.invalid commit -q -am "vendor: __zone_pcp_update() out of line"
	[ "$(git -C "$d" diff --stat "$BASE_TAG" HEAD | tail -n 1)" = " 1 file changed, 2 insertions(+), 2 deletions(-)" ] || {
		echo "the vendor's commits did not change the lines they should"; return 1; }
	head=$(git -C "$d" rev-parse HEAD)
	refs=$(git -C "$d" for-each-ref refs/heads)
	expect_fail "no flavour of the series applies whole" \
		env BUILD="$scratch/build-fit" FIT_FLAVOURS="vanilla rt" KERNEL_TREE="$d" "$TOP/ci/fit.sh"
	awk -F'\t' '$1 == "vanilla" && $2 == 1 && $4 == "three-way"' "$tsv" | grep -q . || {
		echo "0101 is not reported three-way"; cat "$tsv"; return 1; }
	awk -F'\t' '$1 == "vanilla" && $2 == 2 && $4 == "conflict"' "$tsv" |
		grep -F "in mm/page_alloc.c" | grep -qF "vendor: __zone_pcp_update() out of line" || {
		echo "0102's conflict does not name the file and the vendor's commit"; cat "$tsv"; return 1; }
	[ "$(awk -F'\t' '$1 == "vanilla"' "$tsv" | wc -l)" -eq 2 ] || {
		echo "the vanilla flavour went on past its conflict"; return 1; }
	awk -F'\t' '$1 == "rt" && $2 == 1 && $4 == "conflict"' "$tsv" | grep -q . || {
		echo "the RT flavour's first patch is not a conflict on a tree without PREEMPT_RT"; return 1; }
	git -C "$d" reset -q --hard HEAD~1
	env BUILD="$scratch/build-fit" FIT_FLAVOURS=vanilla KERNEL_TREE="$d" "$TOP/ci/fit.sh" >"$scratch/fit.out" 2>&1 || {
		tail -n 5 "$scratch/fit.out"; echo "make fit failed where the vanilla flavour fits"; return 1; }
	grep -qF "Fits best: **vanilla** ($(series_patches "$TOP/series" vanilla | wc -l) patches, 3 of them three-way)" "$scratch/build-fit/fit/report.md" || {
		cat "$scratch/build-fit/fit/report.md"; echo "the report does not say the vanilla flavour fits"; return 1; }
	[ "$(git -C "$d" rev-parse HEAD)" = "$(git -C "$d" rev-parse "$head~1")" ] &&
		[ "$(git -C "$d" symbolic-ref --short HEAD)" = vendor ] &&
		[ -z "$(git -C "$d" status --porcelain)" ] &&
		[ "$(git -C "$d" worktree list | wc -l)" -eq 1 ] &&
		[ "$(git -C "$d" for-each-ref refs/heads)" = "$(sed "s/$head/$(git -C "$d" rev-parse "$head~1")/" <<<"$refs")" ] || {
		echo "the user's tree was changed, or a worktree or branch left in it"; return 1; }
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

# A tree that is not a 5.10 is refused; another 5.10 sublevel is taken,
# said, and here fails at the first patch (the fake tree has no mm/),
# leaving the user's branches as they were.
t_kernel_tree_wrong_version() {
	local d=$scratch/user-old e=$scratch/user-261
	fake_tree "$d" 261
	sed -i 's/^PATCHLEVEL = 10/PATCHLEVEL = 4/; s/5\.10\.261/5.4.261/' "$d/Makefile"
	git -C "$d" -c user.name=t -c user.email=t@example.invalid commit -q -am 5.4
	expect_fail "is at 5.4.261; the series is for 5.10 trees" env BUILD="$scratch/build-old" \
		KERNEL_TREE="$d" "$TOP/ci/apply.sh"
	fake_tree "$e" 261
	expect_fail "is at 5.10.261, not $BASE_VERSION" env BUILD="$scratch/build-261" \
		KERNEL_TREE="$e" "$TOP/ci/apply.sh"
	expect_fail "patch 1, patches/" env BUILD="$scratch/build-261" \
		KERNEL_TREE="$e" "$TOP/ci/apply.sh"
	[ "$(git -C "$d" branch --list | wc -l)" -eq 1 ] &&
		[ "$(git -C "$e" branch --list | wc -l)" -eq 1 ] || {
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

t_two_runs_one_build() {
	# Two runs at once on one build folder: each waits for the lock,
	# then both complete and the stack is applied once, cleanly.  The
	# series of short_stack, in its build folder, which the next case
	# takes over.
	local b=$scratch/build-short base p i r1=0 r2=0 pids=()
	base=$(scratch_base)
	p=$(short_project)
	mkdir -p "$b"
	# Hold the lock first, so that both runs must wait whatever the timing.
	exec 8>"$b/.lock"
	flock 8
	for i in 1 2; do
		# 8>&-: an inherited copy of our descriptor would hold our lock.
		env -u MM510_LOCKED BUILD="$b" BASE_REPO="$base" STACK_BRANCH=mm510-short \
			"$p/ci/main.sh" apply >"$scratch/run$i.out" 2>&1 8>&- &
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
	[ "$(git -C "$b/stack" rev-parse HEAD)" = "$(git -C "$base" rev-parse mm510-short)" ] &&
		[ "$(git -C "$b/stack" rev-list --count "$BASE_TAG..HEAD")" -eq "$(series_patches "$p/series" | wc -l)" ] &&
		[ -z "$(git -C "$b/stack" status --porcelain)" ] || {
		echo "the stack worktree is not the series on the base, clean"; return 1; }
	base_intact
}

t_am_interrupted() {
	# A run killed during `git am` leaves rebase-apply behind; the next
	# run aborts it, says so, and applies the series (short_project's).
	local b base gitdir head p
	b=$(short_stack)
	base=$(scratch_base)
	p=$scratch/proj
	head=$(git -C "$base" rev-parse mm510-short)
	bad_patch "$scratch/bad.patch"
	# A committer of its own: a fresh host's git has no identity, and
	# git am would stop before it starts.
	GIT_COMMITTER_NAME=mm510-test GIT_COMMITTER_EMAIL=test@example.invalid \
		git -C "$b/stack" am -q "$scratch/bad.patch" >/dev/null 2>&1 && {
		echo "the bad patch applied"; return 1; }
	gitdir=$(git -C "$b/stack" rev-parse --absolute-git-dir)
	[ -d "$gitdir/rebase-apply" ] || { echo "no git am in progress to test with"; return 1; }
	# No committer of the caller's (an empty name, which git refuses):
	# apply.sh's own identity must abort the git am, as on a fresh host.
	out=$(env -u MM510_LOCKED GIT_COMMITTER_NAME= BUILD="$b" BASE_REPO="$base" STACK_BRANCH=mm510-short \
		"$p/ci/apply.sh" 2>&1) || { echo "$out"; echo "apply failed"; return 1; }
	echo "$out"
	grep -qF "interrupted during 'git am'; aborting it" <<<"$out" || {
		echo "no message about the interrupted git am"; return 1; }
	[ ! -d "$gitdir/rebase-apply" ] &&
		[ "$(git -C "$b/stack" rev-parse HEAD)" = "$head" ] &&
		[ -z "$(git -C "$b/stack" status --porcelain)" ] || {
		echo "the stack worktree is not back at the series"; return 1; }
	base_intact
}

t_refresh_twice() {
	# make refresh, more commits, make refresh again: each writes the
	# branch's patch and records the series as applied, so the second is
	# not refused as a hand edit and make apply has nothing to redo; a
	# file edited by hand is still refused, with nothing written.  Own
	# build folder (short_project's series): the branch is changed.
	local b=$scratch/build-refresh base p last word out
	base=$(scratch_base)
	p=$(short_project)
	last=$(sed -n 3p "$p/series")
	in_build() {
		env -u MM510_LOCKED BUILD="$b" BASE_REPO="$base" \
			STACK_BRANCH=mm510-refresh "$p/ci/$1.sh"
	}
	in_build apply >/dev/null 2>&1 || { echo "apply failed"; return 1; }
	for word in first second; do
		git -C "$b/stack" log -1 --format=%B >"$scratch/msg"
		echo "Refresh test: $word" >>"$scratch/msg"
		git -C "$b/stack" -c user.name=t -c user.email=t@example.org \
			commit -q --amend -F "$scratch/msg"
		out=$(in_build refresh 2>&1) || {
			echo "$out"; echo "refresh $word refused"; return 1; }
		grep -q "Refresh test: $word" "$p/patches/$last" || {
			echo "$out"; echo "refresh $word did not write $last"; return 1; }
	done
	out=$(in_build apply 2>&1)
	grep -qF "series already applied, nothing to do" <<<"$out" || {
		echo "$out"; echo "make apply redid the refreshed series"; return 1; }
	echo "hand edit" >>"$p/patches/$last"
	cp "$p/patches/$last" "$scratch/edited"
	! in_build refresh >"$scratch/out" 2>&1 &&
		grep -q "changed since 'make apply'" "$scratch/out" &&
		cmp -s "$p/patches/$last" "$scratch/edited" || {
		cat "$scratch/out"; echo "a hand edit was not refused, or was lost"; return 1; }
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
