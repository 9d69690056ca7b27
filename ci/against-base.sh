#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# against-base.sh KIND: what one of the kernel's own checkers reports on
# the stack, against what it reports on base 5.10.262 (make kcsan,
# make kmemleak; make check-full).
#
#   kcsan     the kcsan scenario (configs/kcsan.config): KCSAN's data
#             races, each named by its two functions, "A / B" (sorted,
#             offsets dropped)
#   kmemleak  the debug scenario (configs/kmemleak.config beside lockdep
#             and KASAN): kmemleak's leaks, each named by the first two
#             frames of its allocation's backtrace below the allocator,
#             "CALLER < ITS CALLER"
#
# Builds the scenario on both trees and boots each (the runner echoes and
# counts the reports, mm510.kcsan or mm510.kmemleak, and fails no test
# for them), then compares.  Both checkers can miss on one boot what the
# next one sees (KCSAN samples; a leaked pointer can still sit in stale
# memory), so a name is new only when base never reported it.
#
# Each new name must be fixed, or explained in `series` by a comment line
# "# KIND: NAME: why".  Writes BUILD/KIND/report.md, prints it, and exits
# 1 when a new name has no such line, the stack's boot failed a test, or
# base's did not finish; 0 otherwise.  On base, the tests of what the
# stack brings fail (no kmalloc-cg caches, no bulk allocator): there only
# the end of the boot counts.
#
# REUSE=base,stack (either or both) compares the last boot of those trees
# again (BUILD/logs/linux-SCENARIO.log, stack-SCENARIO.log) without
# building or booting them: check-full boots the stack's debug kernel
# with the other scenarios, then compares with REUSE=stack.

. "$(dirname "$0")/lib.sh"
. "$TOP/ci/scenario.sh"

usage="usage: against-base.sh kcsan|kmemleak (REUSE=base,stack to compare the last boots again)"
[ $# -eq 1 ] || die "$usage"
kind=$1
case $kind in
kcsan)		sc=kcsan ;;
kmemleak)	sc=debug ;;
*)		die "$usage" ;;
esac
scenario_load "$sc"
case " $SC_ARGS " in
*" mm510.$kind "*) ;;
*)	die "scenario $sc does not boot with mm510.$kind (configs/scenarios)" ;;
esac
out=$BUILD/$kind
mkdir -p "$out"

declare -A log=([base]="$BUILD/logs/$(basename "$BASE_REPO")-$sc.log"
		[stack]="$BUILD/logs/$(basename "$(stack_tree)")-$sc.log")
# totals LOG: the runner's totals line of a boot, "pass: ..." when no
# test failed, "fail: ..." otherwise (or without one: a crash, a hang).
totals() {
	local t
	t=$(grep -m1 -a '^# totals:' "$1" | tr -d '\r' || :)
	case $t in
	*" fail:0 "*)	echo "pass: ${t#\# totals: }" ;;
	'')		echo "fail: no totals line" ;;
	*)		echo "fail: ${t#\# totals: }" ;;
	esac
}

declare -A verdict=()
for tree in base stack; do
	case ",${REUSE:-}," in
	*",$tree,"*) ;;
	*)
		msg "$tree: building the $sc scenario"
		TREE=$tree "$TOP/ci/build.sh" "$sc" >&2 ||
			die "the $sc kernel of $tree did not build"
		msg "$tree: booting it"
		# Its verdict is the totals line below.
		TREE=$tree QUIET=1 "$TOP/ci/boot.sh" "$sc" >&2 || :
		;;
	esac
	[ -s "${log[$tree]}" ] ||
		die "no ${log[$tree]}: run it without REUSE=$tree"
	verdict[$tree]=$(totals "${log[$tree]}")
done

# names LOG: the name of each report the runner echoed, one a line.
names() {
	case $kind in
	kcsan)
		sed -n 's/^# kcsan: BUG: KCSAN: data-race in \(.*\)$/\1/p' "$1" |
			tr -d '\r' | awk -F' / ' '{
				a = $1; b = $2
				sub(/\+0x[0-9a-f]+\/0x[0-9a-f]+$/, "", a)
				sub(/\+0x[0-9a-f]+\/0x[0-9a-f]+$/, "", b)
				if (b == "") b = "?"	# a race of unknown origin
				if (a <= b) print a " / " b; else print b " / " a
			}'
		;;
	kmemleak)
		# "# kmemleak: WHEN: size N: FRAME < FRAME ...", innermost first.
		sed -n 's/^# kmemleak: [^:]*: size [0-9]*: \(.*\)$/\1/p' "$1" |
			tr -d '\r' | awk -F' < ' '{
				n = 0; name = ""
				for (i = 1; i <= NF && n < 2; i++) {
					f = $i
					sub(/^ +/, "", f)
					sub(/\+0x[0-9a-f]+\/0x[0-9a-f]+$/, "", f)
					if (f ~ /^(kmemleak_|kmem_cache_alloc|__?kmalloc|kv?[mz]alloc|kcalloc|__kvmalloc|krealloc|kmemdup|kstrdup|__do_kmalloc|_*slab_|__kmem_cache|__vmalloc|vmalloc|__?alloc_pages|__get_free_pages|pcpu_alloc|__alloc_percpu)/)
						continue
					name = n ? name " < " f : f
					n++
				}
				print name == "" ? "?" : name
			}'
		;;
	esac
}
names "${log[base]}" | sort >"$out/base.names"
names "${log[stack]}" | sort >"$out/stack.names"
sed -n "s/^# $kind: \([^:]*\): .*/\1/p" "$TOP/series" | sort -u >"$out/known.names"

new=0 unexplained=0
{
	echo "# $kind: stack against base $BASE_VERSION ($sc scenario)"
	echo
	echo "| tree | boot | reports | distinct |"
	echo "| --- | --- | --- | --- |"
	for tree in base stack; do
		printf '| %s | %s | %d | %d |\n' "$tree" "${verdict[$tree]}" \
			"$(wc -l <"$out/$tree.names")" "$(sort -u "$out/$tree.names" | wc -l)"
	done
	echo
	echo "| report | base | stack | |"
	echo "| --- | --- | --- | --- |"
	while read -r _ name; do
		b=$(grep -cxF "$name" "$out/base.names" || :)
		s=$(grep -cxF "$name" "$out/stack.names" || :)
		what=
		if [ "$b" -eq 0 ]; then
			new=$((new + 1))
			if grep -qxF "$name" "$out/known.names"; then
				what="new, explained in series"
			else
				what="**new, not explained**"
				unexplained=$((unexplained + 1))
			fi
		fi
		printf '| %s | %d | %d | %s |\n' "$name" "$b" "$s" "$what"
	done < <(sort -u "$out/base.names" "$out/stack.names" | sed 's/^/x /')
	echo
	echo "$new report(s) only on the stack, $unexplained of them not explained in series."
	echo "Logs: ${log[base]}, ${log[stack]}"
} >"$out/report.md"
cat "$out/report.md"

status=0
case ${verdict[base]} in
"fail: no totals line")	msg "the base boot did not finish: ${log[base]}"; status=1 ;;
esac
case ${verdict[stack]} in
fail*)	msg "the stack boot failed a test: ${log[stack]}"; status=1 ;;
esac
if [ "$unexplained" -ne 0 ]; then
	msg "$unexplained $kind report(s) on the stack and not on base, not explained in series (# $kind: NAME: why)"
	status=1
fi
exit "$status"
