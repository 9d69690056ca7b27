# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Host tests of make check's report (ci/report.sh: the verdicts, the
# step table) and an in-guest test's own logic, run on the host.
# Sourced by ci/tests/host.sh, which lists the cases; never run.

# make check's verdicts of a guest log: a failing test's reason is its
# first "# FAIL" line (not a later diagnostic, not the one of an earlier
# test), else its last diagnostic but the runner's timing line, a gate's
# own reason is kept, and the failures are listed again
# just above the last line, where the tail of a CI log shows them; a
# skipped test is counted apart, and the verdicts are written as JUnit
# and JSON files (RESULTS_DIR).
# A failing host case (run_case) is quoted with its own last line, not
# the one of the case before it: with run_case printing a case's output
# after its verdict, as it did, the second check failed, quoting
# "earlier: its last line".
t_check_report() {
	local out
	# shellcheck disable=SC2034 # run_case's own counters, for this subshell
	out=$(n=0 failed=0 HOST_CASES=.
		earlier() { echo "earlier: its last line"; }
		later() { echo "later: its first line"; echo "later: its last line"; return 1; }
		run_case "earlier" earlier
		run_case "later" later)
	echo "$out" >"$scratch/host-tap.log"
	out=$(bash -c '. "$1"; tap "host: " "$2"; summary' _ "$TOP/ci/report.sh" \
		"$scratch/host-tap.log" | tail -n 3)
	[ "$out" = "failed:
  host: later: later: its last line
1 passed, 1 failed" ] || { echo "wrong summary of host cases:"; echo "$out"; return 1; }
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
	out=$(RESULTS_DIR=$scratch/results bash -c '. "$1"; tap "guest x: " "$2"; summary' \
		_ "$TOP/ci/report.sh" "$scratch/tap.log" | tail -n 7)
	[ "$out" = "failed:
  guest x: b: FAIL tests/b.c:12: node 0's bytes not counted on node 0
  guest x: c: c: left module kmalloc_cg loaded
  guest x: d: see log
  guest x: gate: 2 errors
1 skipped (neither passed nor failed; see the table)
1 passed, 4 failed" ] || { echo "wrong summary:"; echo "$out"; return 1; }
	# The same verdicts as files: JUnit that xmllint reads, a case per
	# check with its class, a failure or a skip with its reason, and
	# the JSON's counts.
	xmllint --noout "$scratch/results/check-junit.xml" || { echo "check-junit.xml is not XML"; return 1; }
	[ "$(xmllint --xpath 'count(//testcase)' "$scratch/results/check-junit.xml")" = 6 ] &&
	[ "$(xmllint --xpath 'string(/testsuites/@failures)' "$scratch/results/check-junit.xml")" = 4 ] &&
	[ "$(xmllint --xpath 'string(/testsuites/@skipped)' "$scratch/results/check-junit.xml")" = 1 ] &&
	[ "$(xmllint --xpath 'string(//testcase[@name="b"]/@classname)' "$scratch/results/check-junit.xml")" = "guest x" ] &&
	[ "$(xmllint --xpath 'string(//testcase[@name="b"]/failure/@message)' "$scratch/results/check-junit.xml")" = "FAIL tests/b.c:12: node 0's bytes not counted on node 0" ] &&
	[ "$(xmllint --xpath 'string(//testcase[@name="e"]/skipped/@message)' "$scratch/results/check-junit.xml")" = "skipped no memory controller" ] || {
		echo "check-junit.xml does not hold the verdicts:"; cat "$scratch/results/check-junit.xml"; return 1; }
	[ "$(jq -c '[.passed, .failed, .skipped, (.checks | length), .checks[1].status]' "$scratch/results/check-results.json")" = '[1,4,1,6,"fail"]' ] || {
		echo "check-results.json does not hold the verdicts:"; cat "$scratch/results/check-results.json"; return 1; }
	# ... and the machine it ran on.
	[ "$(jq -c '[.cpus, .cpu_model, .mem_mib > 0]' "$scratch/results/check-results.json")" = \
	  "$(jq -cn --argjson c "$(nproc)" --arg m "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | sed -n 1p)" '[$c, $m, true]')" ] || {
		echo "check-results.json does not name the machine:"; jq -c '[.cpus, .cpu_model, .mem_mib]' "$scratch/results/check-results.json"; return 1; }
}

# make check's step table: a row per timed step with its kind and wall
# seconds (a failing step's too), the sum of each kind, the table kept
# in STEPS_FILE, rows of steps that ran in the background marked as
# such (steps_beside), and the verdicts' last line still last.
t_check_steps() {
	local out
	out=$(STEPS_FILE=$scratch/steps.txt bash -c '. "$1"
		timed check "first step" sleep 1
		timed boot "a failing boot" false || record "a failing boot" fail "exit 1" -
		timed prepare "a function" record "x" pass ok -
		printf "%7d  %-8s %s\n" 5 boot "boot a" 3 check "host tests" >"$2"
		steps_beside "$2" "boot b"
		summary' _ "$TOP/ci/report.sh" "$scratch/beside.steps")
	echo "$out"
	# A second's sleep is 1 or 2 whole seconds of EPOCHSECONDS, and a
	# step of a few milliseconds 0 or 1: on a loaded machine (a make
	# check beside a make bench) "a function" took 1, and this case
	# failed when it wanted 0.
	grep -qE '^ +[12]  check +first step$' <<<"$out" &&
		grep -qE '^ +[01]  boot +a failing boot$' <<<"$out" &&
		grep -qE '^ +[01]  prepare +a function$' <<<"$out" &&
		grep -qE '^ +5  boot +boot a \(beside boot b\)$' <<<"$out" &&
		grep -qE '^ +3  check +host tests \(beside boot b\)$' <<<"$out" &&
		grep -qE '^ +[1-4]  total +prepare [01] s, check [45] s, compile 0 s, boot [56] s$' <<<"$out" &&
		grep -qF '(8 s of the kinds ran beside other steps' <<<"$out" || {
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
	# make check names a failed test by its first "# FAIL" line.
	[[ "$(grep -m1 '^# FAIL' "$scratch/kc.out")" == *'test_kmem: test_kmem_memcg_deletion: not a lag of the stats'* ]] ||
		{ echo "the first FAIL line does not name the subtest"; cat "$scratch/kc.out"; return 1; }
	kmem ':'
	! MM510_KSFT_DIR=$d "$kc" >"$scratch/kc.out" 2>&1 ||
		{ echo "a failure without figures passed"; cat "$scratch/kc.out"; return 1; }
	cp "$d/test_core" "$d/test_kmem"
	printf '#!/bin/sh\necho "not ok 1 test_memcg_subtree_control"\nexit 1\n' >"$d/test_memcontrol"
	! MM510_KSFT_DIR=$d "$kc" >"$scratch/kc.out" 2>&1 ||
		{ echo "an unlisted failure passed"; cat "$scratch/kc.out"; return 1; }
	[[ "$(grep -m1 '^# FAIL' "$scratch/kc.out")" == *'test_memcontrol: test_memcg_subtree_control: not a known failure'* ]] ||
		{ echo "the first FAIL line does not name the subtest"; cat "$scratch/kc.out"; return 1; }
}

# make kcsan and make kmemleak on canned boot logs (REUSE=base,stack):
# a report only the stack has fails until series explains it, one base
# has too does not, whichever order KCSAN names a pair's two sides in and
# whatever allocator frames kmemleak's backtrace starts with; a stack
# boot that failed a test fails the comparison, a base one only when it
# did not finish.
t_against_base() {
	local p b=$scratch/ab-build
	p=$(project_copy)
	mkdir -p "$b/logs"
	printf '%s\r\n' '# kcsan: BUG: KCSAN: data-race in foo+0x1/0x20 / bar+0x2/0x30' \
		'# totals: pass:3 fail:0 skip:0' >"$b/logs/linux-kcsan.log"
	printf '%s\r\n' '# kcsan: BUG: KCSAN: data-race in bar+0x9/0x30 / foo+0x4/0x20' \
		'# kcsan: BUG: KCSAN: data-race in refill_obj_stock+0x10/0x90 / drain_obj_stock+0x3/0x80' \
		'# totals: pass:3 fail:0 skip:0' >"$b/logs/stack-kcsan.log"
	expect_fail "1 report(s) only on the stack, 1 of them not explained in series" \
		env BUILD="$b" REUSE=base,stack "$p/ci/against-base.sh" kcsan
	grep -qxF '| bar / foo | 1 | 1 |  |' "$b/kcsan/report.md" ||
		{ echo "the pair base has too is not one row"; return 1; }
	echo '# kcsan: drain_obj_stock / refill_obj_stock: canned, for the test' >>"$p/series"
	env BUILD="$b" REUSE=base,stack "$p/ci/against-base.sh" kcsan
	grep -qF '| drain_obj_stock / refill_obj_stock | 0 | 1 | new, explained in series |' \
		"$b/kcsan/report.md" || { echo "the explained pair is not marked so"; return 1; }

	printf '%s\r\n' '# kmemleak: t1: size 64: kmem_cache_alloc_trace+0x1/0x2 < memcg_foo+0x3/0x4 < bar+0x5/0x6 < baz+0x1/0x2' \
		'# totals: pass:3 fail:1 skip:0' >"$b/logs/linux-debug.log"
	printf '%s\r\n' '# kmemleak: t2: size 64: kmemleak_alloc+0x1/0x2 < __kmalloc+0x7/0x8 < memcg_foo+0x9/0x4 < bar+0x1/0x6' \
		'# totals: pass:3 fail:1 skip:0' >"$b/logs/stack-debug.log"
	expect_fail "the stack boot failed a test" \
		env BUILD="$b" REUSE=base,stack "$p/ci/against-base.sh" kmemleak
	grep -qxF '| memcg_foo < bar | 1 | 1 |  |' "$b/kmemleak/report.md" ||
		{ echo "the leak base has too is not one row"; cat "$b/kmemleak/report.md"; return 1; }
	# Base fails the stack's own tests: only a boot that did not end counts.
	sed -i 's/fail:1/fail:0/' "$b/logs/stack-debug.log"
	env BUILD="$b" REUSE=base,stack "$p/ci/against-base.sh" kmemleak
	sed -i '/totals/d' "$b/logs/linux-debug.log"
	expect_fail "the base boot did not finish" \
		env BUILD="$b" REUSE=base,stack "$p/ci/against-base.sh" kmemleak
	expect_fail "usage: against-base.sh kcsan|kmemleak" "$p/ci/against-base.sh" kasan
}
