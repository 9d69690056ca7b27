#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The project's test command (`make check`, what CI runs).
#
# Prepares the tree (deps, fetch, base, apply), runs the host-side tests,
# the fast review gates (ci/gates.sh), then builds and boots every
# scenario of tier "check".  With MM510_FULL=1 (`make check-full`) it
# also runs the slow gates (per-patch build with W=1 and sparse,
# coccinelle), builds every scenario of tier "full" (compile only) and
# checks what `make send` writes.  Prints one line per check (name,
# pass/warn/fail, reason, log), and ends with "N passed, N failed",
# counting each TAP test once; a warning counts as passed.

. "$(dirname "$0")/lib.sh"
. "$TOP/ci/scenario.sh"

lock_build
mkdir -p "$BUILD/logs"
logdir=$BUILD/logs
passed=0
failed=0
warned=0
table=()

# record NAME pass|warn|fail REASON LOG
record() {
	table+=("$(printf '%-44s %-4s %s  [%s]' "$1" "$2" "$3" "$4")")
	case $2 in
	pass)	passed=$((passed + 1)) ;;
	warn)	passed=$((passed + 1)); warned=$((warned + 1)) ;;
	*)	failed=$((failed + 1)) ;;
	esac
	printf '%s: %s: %s\n' "$2" "$1" "$3"
}

summary() {
	echo
	echo "=== mm510 check summary ==="
	printf '%s\n' "${table[@]}"
	echo
	[ "$warned" -eq 0 ] || echo "($warned of the passed checks with warnings)"
	echo "$passed passed, $failed failed"
}

# step NAME CMD...: a preparation step; the run cannot go on without it.
step() {
	local name=$1 log=$logdir/check-$1.log
	shift
	if "$@" >"$log" 2>&1; then
		record "$name" pass "ok" "$log"
	else
		record "$name" fail "$(grep -m1 'error:' "$log" || tail -n 1 "$log")" "$log"
		summary
		exit 1
	fi
}

# tap PREFIX LOG: count the TAP lines of LOG as checks.  A line may end
# in "# pass|warn|fail: REASON [LOG]" (ci/gates.sh) to give its verdict,
# reason and own log.
tap() {
	local prefix=$1 log=$2 line name status
	local re='^(.*) # (pass|warn|fail): (.*) \[([^]]*)\]$'
	while IFS= read -r line; do
		case $line in
		"not ok "*)
			name=${line#not ok }; name=${name#* }
			if [[ $name =~ $re ]]; then
				record "$prefix${BASH_REMATCH[1]}" fail "${BASH_REMATCH[3]}" "${BASH_REMATCH[4]}"
			else
				record "$prefix$name" fail "see log" "$log"
			fi ;;
		*" # SKIP"*)
			name=${line#ok }; name=${name#* }
			record "$prefix${name%% # SKIP*}" pass "skipped${name#* # SKIP}" "$log" ;;
		"ok "*)
			name=${line#ok }; name=${name#* }
			if [[ $name =~ $re ]]; then
				status=${BASH_REMATCH[2]}; [ "$status" = fail ] && status=warn
				record "$prefix${BASH_REMATCH[1]}" "$status" "${BASH_REMATCH[3]}" "${BASH_REMATCH[4]}"
			else
				record "$prefix$name" pass "ok" "$log"
			fi ;;
		esac
	done < <(grep -E '^(not )?ok [0-9]+ ' "$log")
}

# gates LOGNAME GATE...: run review gates, one check per verdict.
gates() {
	local log=$logdir/check-$1.log
	shift
	"$TOP/ci/gates.sh" "$@" >"$log" 2>&1 || :
	tap "" "$log"
	grep -qE '^1\.\.[0-9]+' "$log" ||
		record "gates: $*" fail "did not finish: $(tail -n 1 "$log")" "$log"
}

step deps "$TOP/ci/deps.sh"
step fetch "$TOP/ci/fetch.sh"
step base "$TOP/ci/base.sh"
step apply "$TOP/ci/apply.sh"

log=$logdir/check-host-pre.log
"$TOP/ci/tests/host.sh" pre >"$log" 2>&1 || :
tap "host: " "$log"
grep -qE '^1\.\.[0-9]+' "$log" || record "host tests (pre)" fail "did not finish" "$log"

log=$logdir/check-quilt.log
if "$TOP/ci/quilt-check.sh" >"$log" 2>&1; then
	record "series: quilt push -a --fuzz=0" pass "$(tail -n 1 "$log")" "$log"
else
	record "series: quilt push -a --fuzz=0" fail "$(tail -n 1 "$log")" "$log"
fi

gates gates series provenance checkpatch maintainers

for sc in $(scenario_names check); do
	log=$logdir/check-build-$sc.log
	if ! "$TOP/ci/build.sh" "$sc" >"$log" 2>&1; then
		record "build $sc" fail "$(grep -m1 'error:' "$log" || tail -n 1 "$log")" "$log"
		continue
	fi
	record "build $sc" pass "ok" "$log"

	log=$logdir/check-boot-$sc.log
	QUIET=1 "$TOP/ci/boot.sh" "$sc" >"$log" 2>&1 || :
	glog=$BUILD/logs/$(basename "$(stack_tree)")-$sc.log
	tap "guest $sc: " "$glog"
	if ! grep -q "^boot $sc: PASS" "$log"; then
		# A crash or a hang: no TAP verdict covers it.
		grep -q '^mm510-runner: FAIL' "$glog" ||
			record "boot $sc" fail "$(grep -m1 "^boot $sc:" "$log")" "$glog"
	fi

	if [ "$sc" = default ]; then
		log=$logdir/check-host-guest.log
		"$TOP/ci/tests/host.sh" guest >"$log" 2>&1 || :
		tap "host: " "$log"
		grep -qE '^1\.\.[0-9]+' "$log" || record "host tests (guest)" fail "did not finish" "$log"
	fi
done

if [ "${MM510_FULL:-}" = 1 ]; then
	gates gates-full build cocci
	for sc in $(scenario_names full); do
		scenario_load "$sc"
		[ "$SC_TIER" = full ] || continue
		log=$logdir/check-build-$sc.log
		if "$TOP/ci/build.sh" "$sc" >"$log" 2>&1; then
			record "build $sc (compile only)" pass "ok" "$log"
		else
			record "build $sc (compile only)" fail "$(grep -m1 'error:' "$log" || tail -n 1 "$log")" "$log"
		fi
	done
	log=$logdir/check-send.log
	if "$TOP/ci/send.sh" >"$log" 2>&1; then
		record "send: b4 mails of the series" pass "$(tail -n 1 "$log")" "$log"
	else
		record "send: b4 mails of the series" fail "$(grep -m1 'error:' "$log" || tail -n 1 "$log")" "$log"
	fi
fi

summary
[ "$failed" -eq 0 ]
