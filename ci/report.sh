# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The verdict table of `make check` (ci/check.sh): one line per check,
# the failures repeated at the end, and the "N passed, N failed" line;
# with RESULTS_DIR set, the same verdicts as files a CI reads there:
# check-junit.xml (JUnit, for GitLab's test view) and check-results.json.
# Sourced, never run; ci/tests/host.sh tests it on a canned TAP log.

passed=0
failed=0
warned=0
skipped=0
table=()
fails=()
# Every verdict, "NAME<TAB>STATUS<TAB>REASON<TAB>LOG", for the files.
results=()
# The step table: one row per step of the run, its wall time and what it
# did (prepare, check, compile, boot).  STEPS_FILE, when set, receives a
# copy of it.
steps=()
steps_t0=$EPOCHSECONDS

# record NAME pass|warn|skip|fail REASON LOG: a skipped check is
# counted apart, neither passed nor failed.
record() {
	table+=("$(printf '%-44s %-4s %s  [%s]' "$1" "$2" "$3" "$4")")
	results+=("$(printf '%s\t%s\t%s\t%s' "${1//$'\t'/ }" "$2" "${3//$'\t'/ }" "${4//$'\t'/ }")")
	case $2 in
	pass)	passed=$((passed + 1)) ;;
	warn)	passed=$((passed + 1)); warned=$((warned + 1)) ;;
	skip)	skipped=$((skipped + 1)) ;;
	*)	failed=$((failed + 1))
		fails+=("  $1: $3") ;;
	esac
	printf '%s: %s: %s\n' "$2" "$1" "$3"
}

# results_files DIR: the verdicts as DIR/check-results.json (counts, the
# commit checked, the date, the run's wall seconds so far, the CPUs,
# their model and the memory (MiB),
# each check's name, status, reason and log) and
# DIR/check-junit.xml (a test case per check, named by the part of its
# name after the first ": ", its class the part before; a failure or a
# skip with its reason, a warning in the case's output).
results_files() {
	local dir=$1 commit model mem
	commit=$(git -C "$TOP" rev-parse -q --verify HEAD 2>/dev/null || echo unknown)
	model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | sed -n 1p)
	mem=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
	mkdir -p "$dir"
	printf '%s\n' "${results[@]}" |
		jq -R -s --arg commit "$commit" --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
			--argjson seconds "$((EPOCHSECONDS - steps_t0))" --argjson cpus "$(nproc)" \
			--arg model "${model:-unknown}" --argjson mem_mib "${mem:-0}" '
			split("\n") | map(select(length > 0) | split("\t") |
				{name: .[0], status: .[1], reason: .[2], log: .[3]}) as $c |
			{commit: $commit, date: $date, seconds: $seconds, cpus: $cpus,
			 cpu_model: $model, mem_mib: $mem_mib,
			 passed: ($c | map(select(.status == "pass" or .status == "warn")) | length),
			 failed: ($c | map(select(.status == "fail")) | length),
			 skipped: ($c | map(select(.status == "skip")) | length),
			 warned: ($c | map(select(.status == "warn")) | length),
			 checks: $c}' >"$dir/check-results.json.new"
	jq -r '
		def attr: tostring | @html;
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
		"<testsuites name=\"mm510 make check\" tests=\"\(.checks | length)\" failures=\"\(.failed)\" skipped=\"\(.skipped)\">",
		"  <testsuite name=\"mm510 make check\" tests=\"\(.checks | length)\" failures=\"\(.failed)\" errors=\"0\" skipped=\"\(.skipped)\" timestamp=\"\(.date)\">",
		(.checks[] |
			(.name | index(": ")) as $i |
			(if $i then .name[:$i] else "mm510" end) as $class |
			(if $i then .name[$i + 2:] else .name end) as $case |
			"    <testcase classname=\"\($class | attr)\" name=\"\($case | attr)\" file=\"\(.log | attr)\">" +
			(if .status == "fail" then "<failure message=\"\(.reason | attr)\">\(.reason | attr) [\(.log | attr)]</failure>"
			 elif .status == "skip" then "<skipped message=\"\(.reason | attr)\"/>"
			 elif .status == "warn" then "<system-out>warn: \(.reason | attr)</system-out>"
			 else "" end) + "</testcase>"),
		"  </testsuite>",
		"</testsuites>"' "$dir/check-results.json.new" >"$dir/check-junit.xml.new"
	mv "$dir/check-results.json.new" "$dir/check-results.json"
	mv "$dir/check-junit.xml.new" "$dir/check-junit.xml"
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
	if [ -n "${RESULTS_DIR:-}" ]; then
		if results_files "$RESULTS_DIR"; then
			echo "results: $RESULTS_DIR/check-junit.xml, $RESULTS_DIR/check-results.json"
		else
			record "results files (JUnit, JSON)" fail "could not write them in $RESULTS_DIR" -
		fi
	fi
	# The failures again, last, where a reader of only the output's
	# tail (a CI log) sees them.
	if [ "$failed" -ne 0 ]; then
		echo "failed:"
		printf '%s\n' "${fails[@]}"
	fi
	# Skipped checks apart, on the line before the last, whose form
	# (.ci/run's) stays "N passed, N failed".
	[ "$skipped" -eq 0 ] || echo "$skipped skipped (neither passed nor failed; see the table)"
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
			record "$prefix${name%% # SKIP*}" skip "skipped${name#* # SKIP}" "$log" ;;
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
