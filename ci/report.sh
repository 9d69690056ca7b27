# SPDX-License-Identifier: GPL-2.0
# The verdict table of `make check` (ci/check.sh): one line per check,
# the failures repeated at the end, and the "N passed, N failed" line.
# Sourced, never run; ci/tests/host.sh tests it on a canned TAP log.

passed=0
failed=0
warned=0
table=()
fails=()

# record NAME pass|warn|fail REASON LOG
record() {
	table+=("$(printf '%-44s %-4s %s  [%s]' "$1" "$2" "$3" "$4")")
	case $2 in
	pass)	passed=$((passed + 1)) ;;
	warn)	passed=$((passed + 1)); warned=$((warned + 1)) ;;
	*)	failed=$((failed + 1))
		fails+=("  $1: $3") ;;
	esac
	printf '%s: %s: %s\n' "$2" "$1" "$3"
}

summary() {
	echo
	echo "=== mm510 check summary ==="
	printf '%s\n' "${table[@]}"
	echo
	[ "$warned" -eq 0 ] || echo "($warned of the passed checks with warnings)"
	# The failures again, last, where a reader of only the output's
	# tail (a CI log) sees them.
	if [ "$failed" -ne 0 ]; then
		echo "failed:"
		printf '%s\n' "${fails[@]}"
	fi
	echo "$passed passed, $failed failed"
}

# tap PREFIX LOG: count the TAP lines of LOG as checks.  A line may end
# in "# pass|warn|fail: REASON [LOG]" (ci/gates.sh) to give its verdict,
# reason and own log.  Otherwise a failure's reason is the first
# "# FAIL" diagnostic (mmt_fail_at()) printed since the previous verdict,
# or the last diagnostic (the runner's timing line aside) when there is
# none.
tap() {
	local prefix=$1 log=$2 line name status why=
	local re='^(.*) # (pass|warn|fail): (.*) \[([^]]*)\]$'
	while IFS= read -r line; do
		line=${line%$'\r'}	# a serial console ends lines with \r\n
		case $line in
		"not ok "*)
			name=${line#not ok }; name=${name#* }
			if [[ $name =~ $re ]]; then
				record "$prefix${BASH_REMATCH[1]}" fail "${BASH_REMATCH[3]}" "${BASH_REMATCH[4]}"
			else
				record "$prefix$name" fail "${why:-see log}" "$log"
			fi ;;
		"# "*" took "*" s")
			continue ;;	# the runner's timing line
		"# "*)
			case $why in "FAIL "*) ;; *) why=${line:2:200} ;; esac
			continue ;;
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
		*)	continue ;;
		esac
		why=
	done < <(grep -E '^((not )?ok [0-9]+ |# )' "$log")
}
