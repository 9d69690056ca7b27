# SPDX-License-Identifier: GPL-2.0
# The verdict table of `make check` (ci/check.sh): one line per check,
# the failures repeated at the end, and the "N passed, N failed" line.
# Sourced, never run; ci/tests/host.sh tests it on a canned TAP log.

passed=0
failed=0
warned=0
table=()
fails=()
# The step table: one row per step of the run, its wall time and what it
# did (prepare, check, compile, boot).  STEPS_FILE, when set, receives a
# copy of it.
steps=()
steps_t0=$EPOCHSECONDS

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

# ccache_counts: "MISSES HITS" of ccache's statistics so far.
ccache_counts() {
	ccache --print-stats 2>/dev/null | awk -F'\t' '
		$1 == "cache_miss" { m = $2 }
		$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { h += $2 }
		END { print m + 0, h + 0 }'
}

# timed KIND NAME CMD...: run CMD (a command or a function of the
# caller's shell) and add a row for it to the step table; returns CMD's
# status.  A compile row says how many objects ccache did not have.
timed() {
	local kind=$1 name=$2 t0=$EPOCHSECONDS rc=0 c0='' c1 what=$1
	shift 2
	[ "$kind" != compile ] || c0=$(ccache_counts)
	"$@" || rc=$?
	if [ -n "$c0" ]; then
		c1=$(ccache_counts)
		# shellcheck disable=SC2086
		set -- $c0 $c1
		what="compile ($(($3 - $1)) compiled, $(($4 - $2)) from ccache)"
	fi
	steps+=("$(printf '%7d  %-8s %s' "$((EPOCHSECONDS - t0))" "$kind" "$name")${what#"$kind"}")
	return "$rc"
}

# steps_beside FILE WHAT: add the rows that a part of the run which ran
# in the background wrote to FILE (its own step rows, one per line),
# each marked as run beside WHAT.  The table's total is wall time, so
# with such rows the kinds add up to more than it.
steps_beside() {
	local row
	[ -s "$1" ] || return 0
	while IFS= read -r row; do
		steps+=("$row (beside $2)")
	done <"$1"
}

# steps_table: the step table with the run's total and the sum of each
# kind, also written to STEPS_FILE.
steps_table() {
	[ "${#steps[@]}" -ne 0 ] || return 0
	local row kind sec beside=0
	local -A sum=()
	for row in "${steps[@]}"; do
		read -r sec kind _ <<<"$row"
		sum[$kind]=$((${sum[$kind]:-0} + sec))
		[[ "$row" != *" (beside "*")" ]] || beside=$((beside + sec))
	done
	{
		echo "=== where the time went (wall seconds) ==="
		printf '%7s  %-8s %s\n' seconds kind step
		printf '%s\n' "${steps[@]}"
		printf '%7d  %-8s %s\n' "$((EPOCHSECONDS - steps_t0))" total \
			"$(for kind in prepare check compile boot; do
				printf '%s %d s, ' "$kind" "${sum[$kind]:-0}"
			done | sed 's/, $//')"
		[ "$beside" -eq 0 ] ||
			printf '%7s  %-8s %s\n' "" "" "($beside s of the kinds ran beside other steps, so they add up to more than the total)"
	} | if [ -n "${STEPS_FILE:-}" ]; then tee "$STEPS_FILE"; else cat; fi
	echo
}

summary() {
	echo
	steps_table
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
