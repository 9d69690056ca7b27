#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fit.sh: make fit KERNEL_TREE=DIR.  How each flavour of the series
# (vanilla, rt, android) meets a user's 5.10 git tree, at any sublevel or
# on a vendor's branch: every patch of a flavour is applied in order with
# `git am` on a throwaway worktree of DIR's HEAD, and reported as
#
#   clean      it applies as it is;
#   three-way  it applies only with `git am -3` (the tree moved the
#              lines it changes; git merged them: read the result);
#   conflict   it does not apply: the files left in conflict, what of
#              the tree's own stands there (its functions that the
#              vanilla 5.10 base does not have, as make apply reports on
#              a downstream tree) and the tree's last commits on those
#              files.  The flavour stops there: the patches after it
#              build on it and are not tried.
#
# Then which flavour fits the tree best (the most patches applied, then
# the fewest three-way).  DIR's branches, HEAD and working tree are never
# touched (uncommitted changes are not part of what is tried); the
# worktree is removed at the end, also on an interrupt.  Writes
# $BUILD/fit/report.md and fit.tsv (flavour, number, patch, verdict,
# detail).  Exit status 0 when a flavour applies whole, 1 otherwise.
#
# FIT_FLAVOURS (default "vanilla rt android"): the flavours to try.

. "$(dirname "$0")/lib.sh"

need git git
[ -n "${KERNEL_TREE:-}" ] ||
	die "make fit needs KERNEL_TREE=<folder>: your 5.10 git tree (any sublevel or vendor branch)"
src=$(cd "$KERNEL_TREE" 2>/dev/null && pwd) || die "KERNEL_TREE=$KERNEL_TREE is not a folder"
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || die "KERNEL_TREE=$src is not a git repository"
version=$(make -s -C "$src" kernelversion 2>/dev/null) ||
	die "KERNEL_TREE=$src: 'make kernelversion' failed; is it a kernel tree?"
case $version in
5.10.*) ;;
*) die "KERNEL_TREE=$src is at $version; the series is for 5.10 trees" ;;
esac
flavours=${FIT_FLAVOURS:-vanilla rt android}
for fl in $flavours; do
	case $fl in
	vanilla|rt|android) ;;
	*) die "FIT_FLAVOURS: unknown flavour '$fl'; known: vanilla rt android" ;;
	esac
done
head=$(git -C "$src" rev-parse HEAD)
series=$TOP/series
[ -f "$series" ] || die "$series missing"
lock_build
out=$BUILD/fit
mkdir -p "$out"

# What the tree says it is.
kind="Linux $version"
ack=$(android_branch "$src")
[ -z "$ack" ] || kind="$kind, Android common kernel $ack"
[ ! -f "$src/localversion-rt" ] || kind="$kind, PREEMPT_RT ($(tr -d '\n' <"$src/localversion-rt"))"
[ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ] ||
	kind="$kind; its uncommitted changes are not part of this"

wt=$(mktemp -d "$BUILD/fit-tree.XXXXXX")
rmdir "$wt"
cleanup() {
	git -C "$src" worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
	git -C "$src" worktree prune
}
trap cleanup EXIT
trap 'exit 130' INT TERM
msg "a throwaway worktree of $src at $(git -C "$src" rev-parse --short HEAD) ($kind)"
git -C "$src" worktree add -q --detach "$wt" "$head"

name=${IDENTITY% <*}
email=${IDENTITY##*<}; email=${email%>}
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email

tsv=$out/fit.tsv.new
: >"$tsv"
summary=()
best='' best_ok=-1 best_3=0
for fl in $flavours; do
	mapfile -t patches < <(series_patches "$series" "$fl")
	git -C "$wt" checkout -q --detach "$head"
	clean=0 three=0 stop='' i=0 total=${#patches[@]}
	for p in "${patches[@]}"; do
		[ -f "$TOP/patches/$p" ] || die "series names patches/$p, which does not exist"
	done
	# One `git am` for the rest of the flavour at a time (git refreshes
	# the tree's index once a call: 0.5 s): the patches it applies are
	# clean; where it stops, that patch alone again with -3.
	while [ "$i" -lt "$total" ]; do
		from=$(git -C "$wt" rev-parse HEAD)
		rest=("${patches[@]:$i}")
		if o=$(git -C "$wt" am -q --committer-date-is-author-date "${rest[@]/#/$TOP/patches/}" 2>&1); then
			k=$total
		else
			k=$((i + $(git -C "$wt" rev-list --count "$from..HEAD")))
			git -C "$wt" am --quit
		fi
		for ((; i < k; i++)); do
			clean=$((clean + 1))
			printf '%s\t%d\t%s\tclean\t\n' "$fl" $((i + 1)) "${patches[$i]}" >>"$tsv"
		done
		[ "$i" -lt "$total" ] || break
		p=${patches[$i]} f=$TOP/patches/${patches[$i]}
		# Where plain git am stopped: "file:line ...".
		at=$(sed -n 's/^error: patch failed: //p' <<<"$o" | paste -sd' ' -)
		if git -C "$wt" am -q -3 --committer-date-is-author-date "$f" >/dev/null 2>&1; then
			three=$((three + 1))
			printf '%s\t%d\t%s\tthree-way\t%s\n' "$fl" $((i + 1)) "$p" "$at" >>"$tsv"
			i=$((i + 1))
			continue
		fi
		files=$(git -C "$wt" diff --name-only --diff-filter=U | paste -sd' ' -)
		git -C "$wt" am --abort
		detail="in ${files:-$at}$(tree_marks "$f" "$o" "$src" "$head")"
		for file in $files; do
			detail="$detail; $file's last commits here: $(git -C "$src" log -3 --format='%h %s' HEAD -- "$file" | sed -z 's/\n$//; s/\n/, /g')"
		done
		printf '%s\t%d\t%s\tconflict\t%s\n' "$fl" $((i + 1)) "$p" "$detail" >>"$tsv"
		stop=$((i + 1))
		break
	done
	if [ -n "$stop" ]; then
		summary+=("| $fl | $total | $clean | $three | patch $stop | $((total - stop)) |")
	else
		summary+=("| $fl | $total | $clean | $three | none | 0 |")
	fi
	ok=$((clean + three))
	if [ -z "$stop" ] && { [ "$ok" -gt "$best_ok" ] || { [ "$ok" -eq "$best_ok" ] && [ "$three" -lt "$best_3" ]; }; }; then
		best=$fl best_ok=$ok best_3=$three
	fi
	msg "$fl: $clean clean, $three three-way of $total${stop:+; conflict at patch $stop}"
done
mv "$tsv" "$out/fit.tsv"

{
	echo "# make fit: the series on $src"
	echo
	echo "$kind; HEAD $(git -C "$src" log -1 --format='%h %s' HEAD); the series at $(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u +%Y-%m-%d)."
	echo
	echo "| flavour | patches | clean | three-way | conflict | not tried |"
	echo "| --- | --- | --- | --- | --- | --- |"
	printf '%s\n' "${summary[@]}"
	echo
	if [ -n "$best" ]; then
		case $best in
		vanilla) how= ;;
		*) how=" SCENARIO=$best" ;;
		esac
		echo "Fits best: **$best** ($best_ok patches, $best_3 of them three-way).  Apply it with \`make apply KERNEL_TREE=$src$how\`, or with \`git am\` as the README says."
	else
		echo "No flavour applies whole: each stops at the conflict below."
	fi
	echo
	echo "Patches that did not apply as they are:"
	echo
	awk -F'\t' '$4 != "clean" { printf "- %s %d %s: %s%s\n", $1, $2, $3, $4, ($5 == "" ? "" : " (" $5 ")") }' "$out/fit.tsv"
	awk -F'\t' '$4 != "clean" { n++ } END { if (!n) print "- none" }' "$out/fit.tsv"
} >"$out/report.md"
cat "$out/report.md"
[ -n "$best" ] || die "no flavour of the series applies whole to $src (report: $out/report.md)"
