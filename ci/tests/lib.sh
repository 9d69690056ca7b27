# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared by the host tests (ci/tests/host.sh and the ci/tests/host-*.sh
# it sources): the scratch folder and its cleanup, run_case and its TAP
# numbering, expect_fail, the base repository's state, a project copy,
# and the fixtures more than one topic uses.  Sourced, never run.

. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

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
# What base_intact compares with (not needed to list the cases).
if [ -z "${HOST_LIST:-}" ]; then
	base_head=$(git -C "$BASE_REPO" rev-parse HEAD)
	base_tag=$(git -C "$BASE_REPO" rev-parse "$BASE_TAG^{commit}")
fi

# run_case NAME FUNCTION: one TAP line; the case's output as diagnostics.
# HOST_CASES=<regex> runs only the cases whose function matches; with
# HOST_LIST=1 the case is listed (group, number, function, name, tab-
# separated), not run.
run_case() {
	local name=$1 out rc=0 t0
	[[ "$2" =~ ${HOST_CASES:-.} ]] || return 0
	n=$((n + 1))
	if [ -n "${HOST_LIST:-}" ]; then
		printf '%s\t%s\t%s\t%s\n' "$group" "$n" "$2" "$name"
		return 0
	fi
	t0=$SECONDS
	# In the background, so that errexit holds inside the case (it is
	# switched off for anything run on the left of ||).
	("$2") >"$scratch/case.out" 2>&1 &
	wait $! || rc=$?
	out=$(cat "$scratch/case.out")
	# The case's output before its verdict, as the guest's tests print
	# theirs: make check's report quotes, as a failure's reason, the
	# diagnostics printed since the verdict before it.
	echo "$out" | sed 's/^/# /'
	echo "# $2 took $((SECONDS - t0)) s"
	if [ "$rc" -eq 0 ]; then
		echo "ok $n $name"
	elif [ "$rc" -eq 4 ]; then
		# A case that cannot run here says why on its last line.
		echo "ok $n $name # SKIP $(tail -n 1 "$scratch/case.out")"
	else
		echo "not ok $n $name"
		failed=$((failed + 1))
	fi
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

# --- fixtures of more than one topic -----------------------------------------

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

# short_project: a project copy whose series is the first three patches
# of the vanilla one.  For the cases that show how a step of the harness
# behaves (a lock, an interrupted git am), not what the series does: the
# whole series takes about 40 s to apply here.
short_project() {
	local p
	p=$(project_copy)
	series_patches "$TOP/series" vanilla | head -n 3 >"$p/series"
	echo "$p"
}

# short_stack: short_project's series applied in a scratch build folder,
# on the branch mm510-short (made once, reused; what scratch_stack is to
# the whole series).  Prints the build folder; the project copy is
# short_project's, made again.
short_stack() {
	local b=$scratch/build-short base p
	base=$(scratch_base)
	p=$(short_project)
	if [ ! -d "$b/stack" ]; then
		env -u MM510_LOCKED BUILD="$b" BASE_REPO="$base" \
			STACK_BRANCH=mm510-short "$p/ci/apply.sh" >&2
	fi
	echo "$b"
}

# bin_without DIR NAME...: DIR with a link to each program of /bin and
# /usr/bin but the NAMEs, for a PATH that lacks them.  One ln for all
# (a loop of one ln each took 15 s here).
bin_without() {
	local dir=$1 name
	shift
	mkdir -p "$dir"
	# /usr/bin last: where both have a name, its program is the one.
	find /bin/ /usr/bin/ -mindepth 1 -maxdepth 1 ! -type d -print0 |
		xargs -0 ln -sf -t "$dir"
	for name; do
		rm -f "$dir/$name"
	done
}

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

# gate_series_only PROJECT FILE...: the series is the test patches and
# the stack marker (9901, a patch the gates must pass), so that a gate
# case judges a few patches, not the whole series.
gate_series_only() {
	local p=$1
	shift
	{ printf '%s\n' "$@"; grep '^9901-' "$p/series"; } >"$p/series.new"
	mv "$p/series.new" "$p/series"
}
