#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The project's test command (`make check`, what CI runs).
#
# Prepares the tree (deps, fetch, base, apply), runs the host-side tests,
# the fast review gates (ci/gates.sh), then builds and boots every
# scenario of tier "check" (on its base tree: Debian's trees are
# fetched, imported and the series applied first; a scenario without a
# boot timeout is compiled only, and on a tree other than vanilla only
# in the objects the series or the tree's patches change; where ACK's
# tree is, the android flavour's KMI check, ci/kmi-check.sh, beside the
# boots).  With MM510_FULL=1 (`make check-full`) it
# also runs the slow gates (per-patch build with W=1 and sparse, on x86
# and arm64; coccinelle), builds every scenario of tier "full" (and boots those
# with a boot timeout: debug, arm64, rt-debug, slab, slob), compares
# KCSAN's and kmemleak's reports with base's (ci/against-base.sh) and
# checks what `make send` writes.  Prints one line per check (name, pass/warn/fail, reason,
# log), the step table (each step's wall time and kind: prepare, check,
# compile, boot; also in build/logs/check-steps.txt) and the verdicts
# again, and ends with "N passed, N failed",
# counting each TAP test once; a warning counts as passed, a skipped
# check as neither (their number on the line before).  The verdicts are
# also written as build/logs/check-junit.xml (JUnit, GitLab's test view)
# and build/logs/check-results.json (ci/report.sh).

. "$(dirname "$0")/lib.sh"
. "$TOP/ci/scenario.sh"
. "$TOP/ci/report.sh"
# Every boot of make check emulates the CPU (ci/boot.sh, BOOT_ACCEL).
export BOOT_ACCEL=tcg

lock_build
mkdir -p "$BUILD/logs"
logdir=$BUILD/logs
# The step table (ci/report.sh) goes to the end of the output and here.
STEPS_FILE=$logdir/check-steps.txt
rm -f "$STEPS_FILE"
# The verdicts as files (ci/report.sh's summary writes them).
RESULTS_DIR=$logdir
rm -f "$RESULTS_DIR/check-junit.xml" "$RESULTS_DIR/check-results.json"

# step NAME CMD...: a preparation step; the run cannot go on without it.
step() {
	local name=$1 log=$logdir/check-$1.log
	shift
	if timed prepare "$name" "$@" >"$log" 2>&1; then
		record "$name" pass "ok" "$log"
	else
		record "$name" fail "$(grep -m1 'error:' "$log" || tail -n 1 "$log")" "$log"
		summary
		exit 1
	fi
}

# gates LOGNAME GATE...: run review gates, one check per verdict.
# GATE_SCENARIO, when set, is named in the step.
gates() {
	local log=$logdir/check-$1.log name
	shift
	name="gates: $*${GATE_SCENARIO:+ ($GATE_SCENARIO)}"
	timed check "$name" "$TOP/ci/gates.sh" "$@" >"$log" 2>&1 || :
	tap "" "$log"
	grep -qE '^1\.\.[0-9]+' "$log" ||
		record "$name" fail "did not finish: $(tail -n 1 "$log")" "$log"
}

# What runs in the background when the run ends early (an
# interruption): host tests (host_start) and boots (boot_start), each
# the leader of its own process group.
stop_background() {
	local pid
	for pid in "${host_pids[@]}" "${boot_pids[@]}"; do
		kill -TERM -- "-$pid" 2>/dev/null || :
	done
}
declare -A host_pids=()
boot_pids=()
boot_names=()
boots_later=()
trap stop_background EXIT

# host_verdicts PART: the TAP lines of ci/tests/host.sh PART's log, one
# check each; host_tests KIND PART runs it first, as a step of KIND.
host_verdicts() {
	local log=$logdir/check-host-$1.log
	tap "host: " "$log"
	grep -qE '^1\.\.[0-9]+' "$log" || record "host tests ($1)" fail "did not finish" "$log"
}
host_tests() {
	timed "$1" "host tests ($2)" "$TOP/ci/tests/host.sh" "$2" >"$logdir/check-host-$2.log" 2>&1 || :
	host_verdicts "$2"
}

# bg_step FILE KIND NAME CMD...: `timed KIND NAME CMD...` in the
# background, the leader of its own process group, with its output in
# FILE.log and its step row in FILE.steps (for steps_beside); its pid in
# bg_pid.
bg_step() {
	local file=$1
	shift
	rm -f "$file.steps"
	set -m
	(
		steps=()
		trap - INT TERM
		timed "$@" >"$file.log" 2>&1 || :
		printf '%s\n' "${steps[@]}" >"$file.steps"
	) </dev/null &
	set +m
	bg_pid=$!
}

# host_start PART: ci/tests/host.sh PART in the background, for a step
# that keeps only one of the two cores busy (the host tests run the
# harness's scripts one after another); host_wait PART WHAT waits for
# it and counts its verdicts, its row marked as run beside WHAT.
host_start() {
	bg_step "$logdir/check-host-$1" check "host tests ($1)" "$TOP/ci/tests/host.sh" "$1"
	host_pids[$1]=$bg_pid
}
host_wait() {
	wait "${host_pids[$1]}" || :
	unset "host_pids[$1]"
	steps_beside "$logdir/check-host-$1.steps" "$2"
	host_verdicts "$1"
}

step deps "$TOP/ci/deps.sh"
# The verdicts' JSON file (ci/report.sh) needs jq, which the deps step
# installs: asked for before it, a fresh Debian 12 stopped here.
need jq jq
# From an empty build/: the base repository and the stack worktree
# (1.1 GB each), the gate tests' two copies (2.2 GB), the scenarios'
# objects (0.4 GB), ccache and the tarball.  Short of that, later steps
# fail on a full disk; say so first.
free=$(free_mib "$BUILD")
if [ "$free" -lt 7168 ]; then
	record "free space" warn "$free MiB free on $BUILD's file system; a run from an empty build/ needs about 7 GiB" "-"
fi
step fetch "$TOP/ci/fetch.sh"
step base "$TOP/ci/base.sh"
# The host tests that need no Debian tree (they make their own trees of
# the base repository), beside the vanilla tree's apply, the import of
# Debian's trees and the quilt checks (ci/debian.sh is quilt and git,
# one core too).
host_start pre-vanilla
step apply "$TOP/ci/apply.sh"

declare -A prepared=([vanilla]=pass)
# flavour_checks: what a flavour other than vanilla must also pass, once
# its tree is applied: its quilt series, and for RT the local locks of
# the pcp lists and the memcg stock at each position (ci/rt-locks.sh).
flavour_checks() {
	local log=$logdir/check-quilt-$TR_FLAVOUR.log
	if timed check "quilt push ($TR_FLAVOUR)" "$TOP/ci/quilt-check.sh" "$TR_FLAVOUR" >"$log" 2>&1; then
		record "series ($TR_FLAVOUR): quilt push -a --fuzz=0" pass "$(tail -n 1 "$log")" "$log"
	else
		record "series ($TR_FLAVOUR): quilt push -a --fuzz=0" fail "$(tail -n 1 "$log")" "$log"
	fi
	[ "$TR_FLAVOUR" = rt ] || return 0
	# The local locks at every position of the flavour, its last (the
	# flavour as shipped) among them (ci/gates.sh rt-locks).
	gates gates-rt-locks rt-locks
}

# prepare_tree SCENARIO: the scenario's base tree fetched, imported and
# the series applied to it (once per tree; the vanilla one above).
prepare_tree() {
	local log=$logdir/check-apply-$TR_NAME.log
	# ACK comes from a bundle beside the project (or your checkout), not
	# from a network: where neither is, its scenarios are left out.
	if [ -z "${prepared[$TR_NAME]:-}" ] && [ "$TR_NAME" = android ] &&
	   [ -z "${KERNEL_TREE:-}" ] && [ ! -f "$ANDROID_DIR/$ANDROID_BUNDLE" ]; then
		prepared[$TR_NAME]=skip
		record "apply on $TR_NAME" skip "no $ANDROID_DIR/$ANDROID_BUNDLE and no KERNEL_TREE (Documentation/android.md)" -
	fi
	if [ -z "${prepared[$TR_NAME]:-}" ]; then
		if timed prepare "apply on $TR_NAME" env SCENARIO="$1" \
			"$TOP/ci/main.sh" fetch base apply >"$log" 2>&1; then
			prepared[$TR_NAME]=pass
			record "apply on $TR_NAME" pass "$(grep -m1 'applied' "$log" || tail -n 1 "$log")" "$log"
			[ "$TR_FLAVOUR" = vanilla ] || flavour_checks
		else
			prepared[$TR_NAME]=fail
			record "apply on $TR_NAME" fail "$(grep -m1 'error:' "$log" || tail -n 1 "$log")" "$log"
		fi
	fi
	[ "${prepared[$TR_NAME]}" = pass ]
}

# The other trees of every scenario (Debian's: the vanilla series on
# debian, the RT flavour on debian-rt, with the flavour's checks), before
# the host tests that use them.
for sc in $(scenario_names full); do
	scenario_load "$sc"
	prepare_tree "$sc" || :
done

log=$logdir/check-quilt.log
if timed check "quilt push (vanilla)" "$TOP/ci/quilt-check.sh" >"$log" 2>&1; then
	record "series: quilt push -a --fuzz=0" pass "$(tail -n 1 "$log")" "$log"
else
	record "series: quilt push -a --fuzz=0" fail "$(tail -n 1 "$log")" "$log"
fi

host_wait pre-vanilla "the trees' apply and Debian's import"

gates gates series provenance checkpatch maintainers

# Scenarios with the same fragments boot one kernel: it is built (and
# checked) once, for the first of them.
declare -A built=()
# build_and_boot SCENARIO: build the scenario's kernel (once per set of
# fragments) and boot it, unless its boot timeout is "-" (compile
# only); the guest's TAP lines count one by one.
build_and_boot() {
	local sc=$1 log glog
	scenario_load "$sc"
	prepare_tree "$sc" || return 0
	log=$logdir/check-build-$sc.log
	# A compile-only scenario on a tree other than vanilla (debian):
	# make check compiles the objects the series or the tree's own
	# patches change (ci/build.sh OBJECTS=changed), check-full the whole
	# kernel.
	local objects=all what="compile only"
	if [ "$SC_TIMEOUT" = - ] && [ "$TR_NAME" != vanilla ] && [ "${MM510_FULL:-}" != 1 ]; then
		objects=changed what="compile only: the objects either side changed"
	fi
	if [ -n "${built[$SC_KEY]:-}" ]; then
		[ "${built[$SC_KEY]}" = fail ] && return 0
	elif ! timed compile "build $sc" env OBJECTS=$objects "$TOP/ci/build.sh" "$sc" >"$log" 2>&1; then
		built[$SC_KEY]=fail
		record "build $sc" fail "$(grep -m1 'error:' "$log" || tail -n 1 "$log")" "$log"
		return 0
	elif [ "$SC_TIMEOUT" = - ]; then
		built[$SC_KEY]=$sc
		record "build $sc ($what)" pass "$(grep -m1 'not compiled, kbuild' "$log" | sed 's/^[^:]*: [^:]*: //' || echo ok)" "$log"
		return 0
	else
		built[$SC_KEY]=$sc
		record "build $sc" pass "ok" "$log"
	fi
	[ "$SC_TIMEOUT" != - ] || return 0

	guest_log[$sc]=$BUILD/logs/$(basename "$(stack_tree)")-$sc.log
	if [[ " ${SC_MACHINE[*]} " == *" icount "* ]]; then
		boot_start "$sc"
	else
		boots_later+=("$sc")
	fi
}

# boot_verdicts SCENARIO: its guest's TAP lines, one check each, and a
# failed check for a boot that ended without a verdict.
declare -A guest_log=()
boot_verdicts() {
	local sc=$1 log=$logdir/check-boot-$1.log glog=${guest_log[$1]}
	tap "guest $sc: " "$glog"
	if ! grep -q "^boot $sc: PASS" "$log"; then
		# A crash or a hang: no TAP verdict covers it.
		grep -q '^mm510-runner: FAIL' "$glog" ||
			record "boot $sc" fail "$(grep -m1 "^boot $sc:" "$log" || tail -n 1 "$log")" "$glog"
	fi
}

# The boots run in the background, two at a time (boot_pids,
# boot_names): the next starts as soon as either ends (one of them is
# counted before a third starts), and each is counted when it ends.
# An icount boot (one vCPU, one host thread) starts as soon as its
# kernel is built, beside the next build.  The others have two vCPUs
# but keep only about 60 % of the two cores busy (here rt's boot took
# 104 s of wall and 129 s of CPU, arm64-lockdep's 68 and 81): they wait
# in boots_later until every kernel is built, then boots_run runs them
# two at a time.
boot_start() {
	local sc=$1
	[ "${#boot_pids[@]}" -lt 2 ] || boot_wait_one
	bg_step "$logdir/check-boot-$sc" boot "boot $sc" env QUIET=1 "$TOP/ci/boot.sh" "$sc"
	boot_pids+=("$bg_pid")
	boot_names+=("$sc")
}
boot_wait_one() {
	local done_pid='' i sc
	wait -n -p done_pid "${boot_pids[@]}" || :
	for i in "${!boot_pids[@]}"; do
		[ "${boot_pids[$i]}" = "$done_pid" ] || continue
		sc=${boot_names[$i]}
		unset "boot_pids[$i]" "boot_names[$i]"
		boot_pids=("${boot_pids[@]}")
		boot_names=("${boot_names[@]}")
		steps_beside "$logdir/check-boot-$sc.steps" "other steps"
		boot_verdicts "$sc"
		return 0
	done
	die "wait -n: no boot ended (pids ${boot_pids[*]})"
}
boots_drain() {
	while [ "${#boot_pids[@]}" -ne 0 ]; do
		boot_wait_one
	done
}
# boots_run: the boots of boots_later, those of the whole suite first
# (no mm510.tests= subset: the longest), so that the short ones fill
# the end; then every boot is waited for.
boots_run() {
	local sc first=() then=()
	for sc in "${boots_later[@]}"; do
		scenario_load "$sc"
		if [[ " $SC_ARGS " == *" mm510.tests="* ]]; then
			then+=("$sc")
		else
			first+=("$sc")
		fi
	done
	boots_later=()
	for sc in "${first[@]}" "${then[@]}"; do
		boot_start "$sc"
	done
	boots_drain
}

for sc in $(scenario_names check); do
	build_and_boot "$sc"
done
# The android flavour's KMI against plain ACK's, where ACK's tree is
# (ci/kmi-check.sh): on GKI's configuration, with clang, the objects the
# flavour changes (CRCs, the layout of the KMI's types) and the test
# modules built against both trees (no symbol outside ACK's KMI lists).
# A change to a shared patch that breaks the KMI fails here.  It
# compiles (about 290 s from a cold ccache, on both cores alone) beside
# the boots, which keep some 60 % of the two cores busy, and the last
# checks (one core); kmi_wait counts it.
kmi_wait() {
	local log=$logdir/check-kmi.log
	[ -n "${host_pids[kmi]:-}" ] || return 0
	wait "${host_pids[kmi]}" || :
	unset "host_pids[kmi]"
	steps_beside "$logdir/check-kmi.steps" "the boots and the last checks"
	if grep -q "^kmi-check.sh: ACK's KMI kept" "$log"; then
		record "android: ACK's KMI kept (make kmi-check)" pass "$(tail -n 1 "$log" | sed 's/^kmi-check\.sh: //')" "$log"
	else
		record "android: ACK's KMI kept (make kmi-check)" fail "$(grep -m1 'error:' "$log" || tail -n 1 "$log")" "$log"
	fi
}
if [ "${prepared[android]:-}" = pass ]; then
	bg_step "$logdir/check-kmi" compile "kmi-check (android-gki)" env SCENARIO=android-gki "$TOP/ci/kmi-check.sh"
	host_pids[kmi]=$bg_pid
fi
timed boot "boots, two at a time" boots_run
# The host tests that need Debian's trees, beside the checks of the CI
# engine's files and the host tests that boot a guest (one core each).
host_start pre-debian
# The CI engine's files: a LAVA job for each booted scenario's kernel,
# checked against LAVA's own schema (lava-common), and the pipeline's
# fast-gates job run end to end by gitlab-ci-local in shell mode, with
# its series gate only (GATES=series): the gates themselves ran above.
log=$logdir/check-lava.log
if timed check "LAVA jobs" "$TOP/ci/lava.sh" check >"$log" 2>&1; then
	record "ci: LAVA jobs valid (lava-common schema)" pass "$(grep -c ': valid$' "$log") job files" "$log"
else
	record "ci: LAVA jobs valid (lava-common schema)" fail "$(grep -m1 -E 'invalid|error' "$log" || tail -n 1 "$log")" "$log"
fi
log=$logdir/check-gitlab-ci-local.log
if timed check "gitlab-ci-local gates:fast" env GATES=series "$TOP/ci/gitlab-local.sh" gates:fast >"$log" 2>&1; then
	record "ci: .gitlab-ci.yml job gates:fast (gitlab-ci-local)" pass "$(grep -m1 '^gates:fast finished in' "$log" || echo ok)" "$log"
else
	record "ci: .gitlab-ci.yml job gates:fast (gitlab-ci-local)" fail "$(grep -m1 -E 'FAIL|error' "$log" || tail -n 1 "$log")" "$log"
fi

# The host tests that boot a guest: after the scenarios, so that the
# kernels they boot (default's, an arm64 one) are built.
scenario_load default
[ "${built[$SC_KEY]:-fail}" = fail ] || host_tests boot guest
host_wait pre-debian "the CI files' checks and the guest host tests"
kmi_wait

if [ "${MM510_FULL:-}" = 1 ]; then
	host_tests compile full
	gates gates-full build cocci
	# Every position of the series builds on arm64 too (W=1, sparse).
	GATE_SCENARIO=arm64-lockdep gates gates-full-arm64 build
	# The default scenario's LAVA job, run here by lava-dispatcher.
	log=$logdir/check-lava-run.log
	if [ -f "$BUILD/lava/default-qemu.yaml" ] &&
	   timed boot "lava-run default-qemu" "$TOP/ci/lava.sh" run "$BUILD/lava/default-qemu.yaml" >"$log" 2>&1; then
		record "ci: LAVA job default-qemu under lava-run" pass "$(tail -n 1 "$log")" "$log"
	else
		record "ci: LAVA job default-qemu under lava-run" fail "$(tail -n 1 "$log" 2>/dev/null || echo 'no job file: make lava')" "$log"
	fi
	# The full tier: booted where it has a boot timeout (debug, arm64, the -ksft ones, ...),
	# compiled only where it has none.
	for sc in $(scenario_names full); do
		scenario_load "$sc"
		[ "$SC_TIER" = full ] || continue
		# ci/against-base.sh below boots it, and base's too.
		[ "$sc" != kcsan ] || continue
		if [ "$SC_TIMEOUT" != - ] || [ "$TR_NAME" != vanilla ]; then
			build_and_boot "$sc"
			continue
		fi
		log=$logdir/check-build-$sc.log
		if timed compile "build $sc" "$TOP/ci/build.sh" "$sc" >"$log" 2>&1; then
			record "build $sc (compile only)" pass "ok" "$log"
		else
			record "build $sc (compile only)" fail "$(grep -m1 'error:' "$log" || tail -n 1 "$log")" "$log"
		fi
	done
	timed boot "boots, two at a time" boots_run
	# KCSAN's data races and kmemleak's leaks on the stack against
	# base's (make kcsan, make kmemleak): the stack's debug boot above
	# is compared again, base's kernels are built and booted here.
	for kind in kcsan kmemleak; do
		log=$logdir/check-$kind.log
		reuse=
		[ "$kind" = kcsan ] || reuse=stack
		if timed boot "$kind: base and stack" env REUSE="$reuse" "$TOP/ci/against-base.sh" "$kind" >"$log" 2>&1; then
			record "$kind: nothing only the stack has, unexplained" pass "$(grep -m1 'only on the stack' "$log")" "$log"
		else
			record "$kind: nothing only the stack has, unexplained" fail "$(grep -m1 -E 'error:|only on the stack' "$log" || tail -n 1 "$log")" "$log"
		fi
	done
	# An example recipient: b4 send -o only writes the mails.
	log=$logdir/check-send.log
	if timed check "b4 send -o" env SEND_TO="${SEND_TO:-kernel-review@example.com}" "$TOP/ci/send.sh" >"$log" 2>&1; then
		record "send: b4 mails of the series" pass "$(tail -n 1 "$log")" "$log"
	else
		record "send: b4 mails of the series" fail "$(grep -m1 'error:' "$log" || tail -n 1 "$log")" "$log"
	fi
fi

summary
[ "$failed" -eq 0 ]
