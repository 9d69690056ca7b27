#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The project's test command (`make check`, what CI runs).
#
# Prepares the tree (deps, fetch, base, apply), runs the host-side tests,
# the series gates, then builds and boots every scenario of tier
# "check".  Prints one line per check (name, pass/fail, reason, log), and
# ends with "N passed, N failed", counting each TAP test once.

. "$(dirname "$0")/lib.sh"
. "$TOP/ci/scenario.sh"

lock_build
mkdir -p "$BUILD/logs"
logdir=$BUILD/logs
passed=0
failed=0
table=()

# record NAME pass|fail REASON LOG
record() {
	table+=("$(printf '%-44s %-4s %s  [%s]' "$1" "$2" "$3" "$4")")
	if [ "$2" = pass ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
	printf '%s: %s: %s\n' "$2" "$1" "$3"
}

summary() {
	echo
	echo "=== mm510 check summary ==="
	printf '%s\n' "${table[@]}"
	echo
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

# tap PREFIX LOG: count the TAP lines of LOG as checks.
tap() {
	local prefix=$1 log=$2 line name
	while IFS= read -r line; do
		case $line in
		"not ok "*)
			name=${line#not ok }; name=${name#* }
			record "$prefix$name" fail "see log" "$log" ;;
		"ok "*)
			name=${line#ok }; name=${name#* }
			record "$prefix$name" pass "${name##*# }" "$log" ;;
		esac
	done < <(grep -E '^(not )?ok [0-9]+ ' "$log")
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

summary
[ "$failed" -eq 0 ]
