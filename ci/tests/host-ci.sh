# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Host tests of the CI engines: LAVA jobs (ci/lava.sh) and the GitLab
# pipeline run by gitlab-ci-local (ci/gitlab-local.sh).  Sourced by
# ci/tests/host.sh, which lists the cases; never run.

# A malformed or schema-breaking LAVA job is named with LAVA's reason; a
# lab half configured is an error naming the missing variable, no lab at
# all a message and success; nothing is submitted anywhere.
t_lava_bad_input() {
	printf 'device_type: qemu\njob_name: x\nactions: [\n' >"$scratch/broken.yaml"
	expect_fail "$scratch/broken.yaml: invalid:" "$TOP/ci/lava.sh" validate "$scratch/broken.yaml"
	printf 'device_type: qemu\njob_name: x\ntimeouts: {job: {minutes: 1}}\nvisibility: public\nactions:\n- deploy: {to: nowhere}\n' \
		>"$scratch/schema.yaml"
	expect_fail "unknown action type" "$TOP/ci/lava.sh" validate "$scratch/schema.yaml"
	expect_fail "LAVA_URL is set but LAVA_TOKEN is not" \
		env LAVA_URL=https://lava.invalid LAVA_TOKEN= "$TOP/ci/lava.sh" submit "$scratch/schema.yaml"
	local out
	out=$(env -u LAVA_URL "$TOP/ci/lava.sh" submit "$scratch/schema.yaml" 2>&1) ||
		{ echo "no lab configured should pass: $out"; return 1; }
	grep -q "no LAVA lab configured" <<<"$out" || { echo "$out"; return 1; }
}

# gitlab-ci-local runs only a job the pipeline defines.
t_gitlab_unknown_job() {
	command -v npm >/dev/null || { echo "npm missing"; return 4; }
	expect_fail "no job 'no-such-job' in .gitlab-ci.yml" "$TOP/ci/gitlab-local.sh" no-such-job
}

# The check job's verdicts reach GitLab's test view: the job as
# .gitlab-ci.yml defines it (its artifacts, reports:junit), with its
# script replaced by ci/report.sh writing two verdicts, run by
# gitlab-ci-local, which exports the JUnit file as a GitLab runner
# uploads it.
t_gitlab_check_junit() {
	command -v npm >/dev/null || { echo "npm missing"; return 4; }
	local proj=$scratch/proj xml
	mkdir -p "$proj/ci"
	cp "$TOP/ci/report.sh" "$proj/ci/"
	cat >"$proj/job.sh" <<-'EOF'
	set -euo pipefail
	TOP=$PWD RESULTS_DIR=build/logs
	. ci/report.sh
	record "host: a" pass "" -
	record "guest x: b" skip "no memory controller" -
	summary
	EOF
	# The stages, and the check job with its script lines replaced.
	awk '/^[^ #]/ { on = ($0 == "stages:" || $0 == "check:") }
	     on && /^  script:/ { print; print "    - bash job.sh"; skip = 1; next }
	     on && skip && /^    - / { next }
	     on { skip = 0; print }' "$TOP/.gitlab-ci.yml" >"$proj/.gitlab-ci.yml"
	grep -q 'junit: build/logs/check-junit.xml' "$proj/.gitlab-ci.yml" ||
		{ echo "the check job publishes no JUnit file:"; cat "$proj/.gitlab-ci.yml"; return 1; }
	git -C "$proj" init -q && git -C "$proj" add -A &&
		git -C "$proj" -c user.name=t -c user.email=t@t commit -qm t || return 1
	GITLAB_LOCAL_DIR=$proj "$TOP/ci/gitlab-local.sh" check || return 1
	xml=$proj/.gitlab-ci-local/artifacts/check/build/logs/check-junit.xml
	[ -f "$xml" ] || { echo "gitlab-ci-local exported no $xml"; find "$proj/.gitlab-ci-local" -type f; return 1; }
	[ "$(xmllint --xpath 'count(//testcase)' "$xml")" = 2 ] &&
	[ "$(xmllint --xpath 'string(//testcase[@name="b"]/skipped/@message)' "$xml")" = "no memory controller" ] ||
		{ echo "the exported JUnit file does not hold the verdicts:"; cat "$xml"; return 1; }
}

# A board job needs the board's device tree; the QEMU job of a built
# kernel passes LAVA's schema.
t_lava_render() {
	expect_fail "LAVA_DTB_URL is not set" env -u LAVA_DTB_URL "$TOP/ci/lava.sh" render default some-board
	local f
	f=$("$TOP/ci/lava.sh" render default) || return 1
	grep -q ': valid$' <<<"$("$TOP/ci/lava.sh" validate "$f")" || return 1
	grep -q 'mm510.release=' "$f" || { echo "no kernel command line in $f"; return 1; }
}

# The gates:slow job's slices of the series, for each of its matrix
# entries, cover every position of the series once: a patch added past
# the last slice would never meet the slow gates in CI.
t_gitlab_gate_slices() {
	local n lists list want
	n=$(series_patches "$TOP/series" | wc -l)
	lists=$(sed -n '/^gates:slow:/,/^[a-z]/s/^ *- GATE_POSITIONS: *\[\(.*\)\]$/\1/p' "$TOP/.gitlab-ci.yml")
	[ -n "$lists" ] || { echo "no GATE_POSITIONS matrix in gates:slow"; return 1; }
	want=$(seq 1 "$n")
	while read -r list; do
		tr -d ' "' <<<"$list" | tr ',' '\n' | while IFS=- read -r from to; do
			seq "$from" "${to:-$from}"
		done | sort -n >"$scratch/slices"
		[ "$(cat "$scratch/slices")" = "$want" ] ||
			{ echo "gates:slow's slices [$list] do not cover positions 1-$n once each"; return 1; }
	done <<<"$lists"
}
