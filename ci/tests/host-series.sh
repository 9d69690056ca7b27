# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Host tests of the series and its provenance: the series gate (entry
# order, RT variants), the provenance gate against upstream.tsv, the RT
# flavour's lock check, and make rebase (ci/rebase.sh).  Sourced by
# ci/tests/host.sh, which lists the cases; never run.

t_rt_locks() {
	# The RT lock check must name the vanilla stack's preemption-disabling
	# memcg stock user (get_cpu() in drain_all_stock(), which the RT queue
	# turns into get_cpu_light(): on RT the work it queues takes sleeping
	# locks), and pass the RT flavour.  Its gate over every position
	# (ci/gates.sh rt-locks) failed, once, on the RT flavour as it was
	# before rt/0311 and rt/0312: positions 46 and 47 (the queue's lock
	# reverted, then 0311) ran the stock under local_irq_save() alone.
	local rt
	[ -d "$BUILD/stack" ] || { echo "no vanilla stack applied"; return 4; }
	expect_fail "drain_all_stock: disables preemption around the memcg stock" \
		"$TOP/ci/rt-locks.sh" "$BUILD/stack"
	rt=$BUILD/stack-debian-rt
	[ -d "$rt" ] || { echo "no RT stack applied"; return 4; }
	"$TOP/ci/rt-locks.sh" "$rt"
	# The gate that walks the flavour's positions (make check runs it)
	# refuses a window of series that names no two patches of the RT
	# series, before it looks at a stack (a scratch BUILD: no log of
	# make check's is written over).
	local p
	p=$(project_copy)
	sed -i 's/^# rt-locks-window: .*/# rt-locks-window: rt\/0091-none.patch 0121-none.patch/' "$p/series"
	expect_fail "does not name two patches of the RT series" \
		env BUILD="$scratch/build-rtlocks" BASE_REPO="$BASE_REPO" "$p/ci/gates.sh" rt-locks
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
# variant of it and may differ from it in context only, unless series
# marks it a form of it (form:<digest>), and its message says how.  Then
# a change to the vanilla patch fails until the form is redone.  Checked
# once with the variant's change dropped from the gate (the old gate):
# the changed variant passed; and with the digest check dropped: the
# form left behind passed.
t_gate_series_variant() {
	local p out rc=0 v d
	p=$(project_copy)
	# series_gate: the series gate on the copy, its verdict in out, its
	# status in rc, its first line shown.
	series_gate() {
		rc=0
		out=$(env BUILD="$scratch/build-gsv" BASE_REPO="$BASE_REPO" "$p/ci/gates.sh" series 2>&1) || rc=$?
		echo "$out" | head -n 1 | cut -c1-200
	}
	v=$(cd "$p/patches" && ls 0302-*.patch)
	mkdir -p "$p/patches/rt"
	# A context-only refresh: another index line, the same changes.
	sed 's/^index [0-9a-f]*\.\.[0-9a-f]*/index 000000000..111111111/' \
		"$p/patches/$v" >"$p/patches/rt/$v"
	sed -i "s|^$v\$|$v\t#-rt\n#+rt rt/$v|" "$p/series"
	series_gate
	[ "$rc" -eq 0 ] && grep -q '^ok 1 series: files and entries # pass:' <<<"$out" || {
		echo "a context-only variant did not pass"; return 1; }
	# A variant that takes another lock than its vanilla patch.
	sed -i 's/memcg_stock\.stock_lock/memcg_stock.lock/' "$p/patches/rt/$v"
	series_gate
	[ "$rc" -ne 0 ] || { echo "the series gate passed a variant with other changes"; return 1; }
	grep -q "^not ok 1 series: files and entries # fail: rt/$v is a variant of $v whose added or removed lines differ" <<<"$out" || {
		echo "no failure naming rt/$v"; return 1; }
	# Marked a form, with the digest the gate asks for: it still fails
	# while its message is the vanilla one, and passes once it says why.
	d=$(sed -n 's/.*mark it a form (form:\([0-9a-f]*\) .*/\1/p' <<<"$out")
	[ -n "$d" ] || { echo "the failure gave no form digest"; return 1; }
	sed -i "s|^#+rt rt/$v\$|&\tform:$d|" "$p/series"
	series_gate
	grep -q "^not ok 1 series: files and entries # fail: rt/$v is a form of $v with the same message" <<<"$out" || {
		echo "a form without its own message passed"; return 1; }
	sed -i '0,/^$/!{0,/^---$/s/^---$/A host test: this form takes another lock.\n\n---/}' "$p/patches/rt/$v"
	series_gate
	[ "$rc" -eq 0 ] && grep -q '^ok 1 series: files and entries # pass:' <<<"$out" || {
		echo "a marked form with its own message did not pass"; return 1; }
	# The vanilla patch changes a line: its form is behind, and says so.
	sed -i '0,/^+.*memcg_stock/s/memcg_stock/memcg_stock_changed/' "$p/patches/$v"
	series_gate
	grep -q "^not ok 1 series: files and entries # fail: $v changed since its rt form rt/$v was made (form:$d, now form:" <<<"$out" || {
		echo "a change to the vanilla patch left its form behind unnoticed"; return 1; }
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

# make ack-export: every patch of the android flavour tagged as ACK's
# rules ask, a backport with the full id of its upstream commit
# (upstream.tsv) in its cherry-pick line, the same Change-Id on a second
# export, the patch bodies as they were; a Git-commit that upstream.tsv
# lacks stops the export with the patch's name, and the last export is
# left as it was.
t_ack_export() {
	local p out=$scratch/ack f n c id
	"$TOP/ci/ack-export.sh" "$out" || return 1
	n=$(grep -cv '^#' <<<"$("$TOP/ci/series.sh" android)")
	[ "$(wc -l <"$out/series")" -eq "$n" ] || { echo "$out/series does not list the flavour's $n patches"; return 1; }
	while read -r f; do
		grep -q '^Subject: \[PATCH\] \(BACKPORT\|ANDROID\): ' "$out/$f" || { echo "$f: no ACK tag"; return 1; }
		grep -q '^Change-Id: I[0-9a-f]\{40\}$' "$out/$f" || { echo "$f: no Change-Id"; return 1; }
		c=$(sed -n '/^---$/q; s/^Git-commit: //p' "$TOP/patches/$f")
		if [ -n "$c" ]; then
			id=$(sed -n 's/^(cherry picked from commit \([0-9a-f]\{40\}\))$/\1/p' "$out/$f")
			[[ $id == "$c"* ]] || { echo "$f: cherry-pick line '$id' is not Git-commit $c"; return 1; }
			grep -q "^$id	" "$TOP/upstream.tsv" || { echo "$f: $id is not in upstream.tsv"; return 1; }
		fi
		cmp -s <(sed '1,/^---$/d' "$TOP/patches/$f") <(sed '1,/^---$/d' "$out/$f") ||
			{ echo "$f: the diff differs from patches/$f"; return 1; }
	done <"$out/series"
	cp -r "$out" "$out.first"
	"$TOP/ci/ack-export.sh" "$out" || return 1
	diff -r "$out.first" "$out" >/dev/null || { echo "a second export differs from the first"; return 1; }
	p=$(project_copy)
	f=$(cd "$p/patches" && ls 0105-*.patch)
	sed -i 's/^\(Git-commit: \)[0-9a-f]*$/\1000000000000/' "$p/patches/$f"
	sed -i "s|^#+android android/$f.*||; s|^$f.*|$f|" "$p/series"
	expect_fail "patches/$f: Git-commit 000000000000 is not in upstream.tsv" env BUILD="$scratch/build-ack" "$p/ci/ack-export.sh" "$out"
	diff -r "$out.first" "$out" >/dev/null || { echo "a failed export changed the last one"; return 1; }
}
