#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of the harness under bad input (TAP).
#
#   host.sh pre    cases that need only the fetched tarball and base repo
#   host.sh guest  cases that need a built default kernel
#
# Each case runs the real ci/ scripts in a scratch BUILD/CACHE_DIR (and a
# scratch copy of the project where it must change the series), expects
# one clear error and a non-zero exit, and checks that the base tree and
# the user's tree are as they were.

. "$(dirname "$0")/../lib.sh"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mm510-host.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
n=0
failed=0
base_head=$(git -C "$BASE_REPO" rev-parse HEAD)
base_tag=$(git -C "$BASE_REPO" rev-parse "$BASE_TAG^{commit}")

# run_case NAME FUNCTION: one TAP line; the case's output as diagnostics.
run_case() {
	local name=$1 out rc=0
	n=$((n + 1))
	# In the background, so that errexit holds inside the case (it is
	# switched off for anything run on the left of ||).
	("$2") >"$scratch/case.out" 2>&1 &
	wait $! || rc=$?
	out=$(cat "$scratch/case.out")
	if [ "$rc" -eq 0 ]; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
		failed=$((failed + 1))
	fi
	echo "$out" | sed 's/^/# /'
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

t_patch_does_not_apply() {
	local p b=$scratch/build-am
	p=$(project_copy)
	# A patch whose context is not in 5.10.262.
	cat >"$p/patches/0001-bad.patch" <<'EOP'
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

# --- cases needing a built default kernel -----------------------------------

t_guest_panics() {
	expect_fail "kernel panic" env BOOT_ARGS=mm510.selftest=exit \
		BOOT_TIMEOUT=300 QUIET=1 "$TOP/ci/boot.sh" default
}

t_guest_hangs() {
	expect_fail "guest hung" env BOOT_ARGS=mm510.selftest=hang \
		BOOT_TIMEOUT=30 QUIET=1 "$TOP/ci/boot.sh" default
}

t_guest_test_fails() {
	# A test that does not exist must fail the run, not be skipped.
	expect_fail "tests failed" env TESTS=no_such_test BOOT_TIMEOUT=300 \
		QUIET=1 "$TOP/ci/boot.sh" default
}

case ${1:-} in
pre)
	run_case "fetch: truncated cached tarball" t_truncated_tarball
	run_case "fetch: wrong checksum" t_wrong_checksum
	run_case "fetch: archive unreachable" t_unreachable_archive
	run_case "base: corrupt tarball leaves no repository" t_corrupt_extract
	run_case "apply: patch does not apply" t_patch_does_not_apply
	run_case "apply: series names a missing patch" t_series_names_missing_patch
	run_case "apply: KERNEL_TREE dirty" t_kernel_tree_dirty
	run_case "apply: KERNEL_TREE wrong version" t_kernel_tree_wrong_version
	run_case "boot: missing tool names its package" t_missing_tool
	;;
guest)
	run_case "boot: guest panics" t_guest_panics
	run_case "boot: guest hangs" t_guest_hangs
	run_case "boot: failing test fails the run" t_guest_test_fails
	;;
*)
	die "usage: host.sh pre|guest"
	;;
esac
echo "1..$n"
[ "$failed" -eq 0 ]
