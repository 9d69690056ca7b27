# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Host tests of make kabi's report (ci/kabi-report.sh) on a synthetic
# kernel (ci/tests/data/kabi).  Sourced by ci/tests/host.sh, which lists
# the cases; never run.

# syn_pair D BASE-SED CHANGE-SED SUBJECT: the synthetic tree in D/tree
# (syn.h edited by BASE-SED, when not empty, in its first commit, then
# by CHANGE-SED in a commit of SUBJECT, then a commit that changes
# nothing exported), and the two "kernels" built from its base and its
# tip with DWARF, in D/base and D/stack.
syn_pair() {
	local d=$1 bsed=$2 csed=$3 subj=$4
	mkdir -p "$d/tree" "$d/base" "$d/stack"
	cp "$TOP"/ci/tests/data/kabi/syn.[ch] "$d/tree/"
	(
		cd "$d/tree" || exit 1
		[ -z "$bsed" ] || sed -i "$bsed" syn.h
		git init -q -b master
		git add syn.h syn.c
		git -c user.name=t -c user.email=t@t commit -qm base
		git tag base
		sed -i "$csed" syn.h
		git -c user.name=t -c user.email=t@t commit -qam "$subj"
		echo '/* nothing exported changes */' >>syn.c
		git -c user.name=t -c user.email=t@t commit -qam 'syn: a comment'
		gcc -g -gdwarf-4 -O1 -fno-pic -no-pie -nostdlib -static -o ../stack/vmlinux syn.c
		git checkout -q base
		gcc -g -gdwarf-4 -O1 -fno-pic -no-pie -nostdlib -static -o ../base/vmlinux syn.c
		git checkout -q master
	)
}

# make kabi's report on a synthetic pair (ci/tests/data/kabi): a git
# tree whose first commit adds a member to struct syn_zone and whose
# second touches nothing exported, the two "kernels" built from it with
# DWARF, their Module.symvers (syn_count's CRC changes) and symtypes.
kabi_fixture() {
	local d=$1 v
	syn_pair "$d" '' 's/^\tint count;$/\tint count;\n\tlong high;/' 'syn: add a member to struct syn_zone'
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
	grep -qxF "$(printf 'struct syn_zone\t128\t192\t0,64\t0,64,128')" "$d/out/layout.tsv" ||
		{ echo "layout.tsv lacks struct syn_zone's new size and offset"; cat "$d/out/layout.tsv"; return 1; }
	grep -qF '| types whose size or member offsets changed (the two XML files, type by type) | 1 |' "$r" ||
		{ echo "the summary does not count struct syn_zone's layout"; cat "$r"; return 1; }

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
	local d=$scratch/kabi-bad bin=$scratch/bin-noabi
	command -v abidiff >/dev/null || { echo "abidiff not installed (apt-get install abigail-tools)"; return 4; }
	kabi_fixture "$d"
	kabi_run "$d"
	cp "$d/out/report.md" "$d/good.md"
	bin_without "$bin" abidiff
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

# make kmi-check: a scenario of another tree than ACK's, and no
# libabigail, each refused with its reason before anything is built.
t_kmi_check_bad_input() {
	local bin=$scratch/bin-noabidw
	command -v abidw >/dev/null || { echo "abidw not installed (apt-get install abigail-tools)"; return 4; }
	expect_fail "SCENARIO=default is on the vanilla tree: make kmi-check compares ACK's KMI" \
		env SCENARIO=default "$TOP/ci/kmi-check.sh"
	bin_without "$bin" abidw
	expect_fail "'abidw' not found: install it with 'apt-get install abigail-tools'" \
		env PATH="$bin" SCENARIO=android-gki "$TOP/ci/kmi-check.sh"
	[ ! -e "$BUILD/kmi-check-default" ] || { echo "a report folder was made for the refused scenario"; return 1; }
}

# make kmi-modules: a scenario of another tree than ACK's, and one of
# ACK's that does not trim the exports, each refused with its reason
# before anything is built.
t_kmi_modules_bad_input() {
	expect_fail "SCENARIO=default is on the vanilla tree: make kmi-modules loads vendor modules into the android flavour" \
		env SCENARIO=default "$TOP/ci/kmi-modules.sh"
	expect_fail "SCENARIO=android-gki does not trim the exports to ACK's KMI lists" \
		env SCENARIO=android-gki "$TOP/ci/kmi-modules.sh"
	[ ! -e "$BUILD/kmi-modules-default" ] && [ ! -e "$BUILD/kmi-modules-android-gki" ] ||
		{ echo "a report folder was made for a refused scenario"; return 1; }
}

# kabi_reserve_pair D EXPORT: the synthetic pair whose first commit takes
# a reserve of struct syn_zone in place (a union of a new member and the
# reserve, as ANDROID_KABI_USE does), its patch list, and a
# Module.symvers for both with syn_count and the line EXPORT (printf
# escapes), the same CRCs in both.
kabi_reserve_pair() {
	local d=$1 v
	syn_pair "$d" 's/^\tint count;$/\tint count;\n\tunsigned long long android_kabi_reserved1;/' \
		's/^\tunsigned long long android_kabi_reserved1;$/\tunion { long high; struct { unsigned long long android_kabi_reserved1; }; };/' \
		'syn: use a reserve'
	printf '0001-syn-use-a-reserve.patch\n0002-syn-a-comment.patch\n' >"$d/patches"
	for v in base stack; do
		printf '0x11111111\tsyn_count\tvmlinux\tEXPORT_SYMBOL\t\n%b' "$2" >"$d/$v/Module.symvers"
	done
}

# A reserve taken in place, as Android's ANDROID_KABI_USE takes one: a
# union of the new member and the old one, the same size at the same
# offset.  abidiff calls that harmless, so the leaf report has no type
# change; the report lists it among the members changed in place, no
# layout changes, and a symbol list naming the function that reaches it
# passes (its CRC is the same, as genksyms sees the reserve).  With the
# list, the XML has only what its symbols reach.  Checked once against
# the report without the in-place table: it had no line for the reserve;
# and against the report before the type-by-type comparison (in-place
# members from abidiff --harmless): it fails on the reserve's line.
t_kabi_report_inplace() {
	local d=$scratch/kabi-inplace r
	command -v abidiff >/dev/null || { echo "abidiff not installed (apt-get install abigail-tools)"; return 4; }
	kabi_reserve_pair "$d" \
		'0x22222222\tsyn_other_get\tvmlinux\tEXPORT_SYMBOL_GPL\t\n'
	printf '[abi_symbol_list]\n  syn_count\n' >"$d/mine"
	kabi_run "$d" "$d/mine" || { echo "a reserve taken in place breaks syn_count"; return 1; }
	r=$d/out/report.md
	grep -qF '| types changed (abidiff leaf changes) | 0 |' "$r" || { echo "the reserve is a leaf type change"; cat "$r"; return 1; }
	grep -qF '| members replaced in place by a union of the same size (ANDROID_KABI_USE, _ANDROID_KABI_REPLACE) | 1 |' "$r" ||
		{ echo "the summary does not count the reserve"; cat "$r"; return 1; }
	grep -qxF "$(printf 'syn_zone::android_kabi_reserved1\treserve used\tunion {high, android_kabi_reserved1}\t128')" \
		"$d/out/inplace.tsv" || { echo "inplace.tsv lacks the reserve"; cat "$d/out/inplace.tsv"; return 1; }
	grep -qF '| types whose size or member offsets changed (the two XML files, type by type) | 0 |' "$r" ||
		{ echo "the reserve is counted as a layout change"; cat "$r"; return 1; }
	! grep -q "name='syn_other_get'" "$d/out/stack.abi.xml" ||
		{ echo "the XML has syn_other_get, which the list does not name"; return 1; }
}

# abidiff's leaf report can still list a type whose changes are all in
# place (on the GKI pair, libabigail 2.2 pairs struct zone's zero-sized
# vm_numa_stat with the reserve at its offset, and so lists init_task,
# a variable of struct task_struct).  Such a symbol, with the same CRC,
# is ok when no type changed layout and every type abidiff lists has its
# changes in inplace.tsv; with one more type listed it breaks.  The
# leaf report is written into the report's cache, as abidiff words it
# for init_task (a small pair of this shape is one libabigail filters).
# Checked once against 2a42eee's parent: syn_zone0 broke.
t_kabi_report_inplace_only() {
	local d=$scratch/kabi-inplace-only rc=0 leaf
	command -v abidiff >/dev/null || { echo "abidiff not installed (apt-get install abigail-tools)"; return 4; }
	kabi_reserve_pair "$d" '0x44444444\tsyn_zone0\tvmlinux\tEXPORT_SYMBOL\t\n'
	printf 'syn_count\nsyn_zone0\n' >"$d/mine"
	kabi_run "$d" "$d/mine" || { echo "the first run failed"; return 1; }
	[ -f "$d/out.abi/abidiff.txt" ] || { echo "no abidiff.txt kept in out.abi/"; return 1; }
	leaf="Leaf changes summary: 2 artifacts changed
Changed leaf types summary: 1 leaf type changed
Removed/Changed/Added functions summary: 0 Removed, 0 Changed, 0 Added function
Removed/Changed/Added variables summary: 0 Removed, 1 Changed, 0 Added variable

1 Changed variable:

  [C] 'syn_zone syn_zone0' was changed at syn.c:40:1:
    type of variable changed:
      type size hasn't changed

'struct syn_zone at syn.h:7:1' changed:
  details were reported earlier
"
	echo "$leaf" >"$d/out.abi/abidiff.txt"
	kabi_run "$d" "$d/mine" >"$d/run.out" 2>&1 || { cat "$d/run.out"; echo "a change in place only breaks"; return 1; }
	grep -qF 'abidiff: reusing' "$d/run.out" || { cat "$d/run.out"; echo "the kept abidiff.txt was not used"; return 1; }
	grep -q '^syn_zone0	ok	same CRC; abidiff finds its type changed (type of variable changed: type size hasn.t changed), in place only' \
		"$d/out/symbol-list.tsv" || { cat "$d/out/symbol-list.tsv"; echo "syn_zone0 is not ok in place only"; return 1; }
	printf "%s\n'struct syn_other at syn.h:12:1' changed:\n  details were reported earlier\n" "$leaf" >"$d/out.abi/abidiff.txt"
	kabi_run "$d" "$d/mine" >"$d/run.out" 2>&1 || rc=$?
	[ "$rc" -eq 3 ] || { cat "$d/run.out"; echo "a type changed not in place: exit $rc, not 3"; return 1; }
	grep -q '^  syn_zone0: same CRC, but abidiff finds its type changed' "$d/run.out" ||
		{ cat "$d/run.out"; echo "syn_zone0 not named as breaking"; return 1; }
}
