# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Host tests of the other review gates (ci/gates.sh): checkpatch, the
# build gate with W=1 and sparse, and the slow gates' split by patch
# position.  Sourced by ci/tests/host.sh, which lists the cases; never
# run.

# The slow gates' split by patch position refuses what is not one.
t_gate_positions() {
	expect_fail "GATE_POSITIONS must be N or N-M" env GATE_POSITIONS=5-2 "$TOP/ci/gates.sh" build
	expect_fail "the series has" env GATE_POSITIONS=999 "$TOP/ci/gates.sh" cocci
}

# gate_series PROJECT NAME...: put patches first in a copy's series.
gate_series() {
	local p=$1
	shift
	printf '%s\n' "$@" | cat - "$p/series" >"$p/series.new"
	mv "$p/series.new" "$p/series"
}

t_gate_checkpatch() {
	local p out rc=0 f=0001-v5.14-mm-gate-test-trailing-whitespace.patch
	p=$(project_copy)
	rm -f "$scratch/mmzone.c"
	gate_patch "$p/patches/$f" "mm: gate test trailing whitespace" \
		'/^#include <linux\/mmzone.h>$/a /* trailing blank */ '
	gate_series_only "$p" "$f"
	out=$(env BUILD="$scratch/build-gcp" BASE_REPO="$BASE_REPO" "$p/ci/gates.sh" checkpatch 2>&1) || rc=$?
	grep -E "checkpatch: (0001|9901)" <<<"$out" | cut -c1-200
	[ "$rc" -ne 0 ] || { echo "the checkpatch gate passed"; return 1; }
	grep -q "^not ok [0-9]* checkpatch: $f # fail: .*TRAILING_WHITESPACE" <<<"$out" || {
		echo "no checkpatch failure naming $f"; return 1; }
	grep -q "^ok [0-9]* checkpatch: 9901-" <<<"$out" || {
		echo "the good patch did not pass"; return 1; }
}

# One run of the build gate on a series that breaks mm/mmzone.o at its
# first patch, mends it at the second and adds a sparse warning at the
# third.  Its build folder stays (prepared objects, ccache), so a later
# run builds only mm/mmzone.o at each position.
gate_build_run() {
	local p hb=$BUILD/hosttest-gates
	[ -f "$scratch/gate-build.out" ] && return 0
	p=$(project_copy)
	rm -f "$scratch/mmzone.c"
	gate_patch "$p/patches/0001-v5.14-mm-gate-test-break.patch" "mm: gate test break" \
		'/^#include <linux\/mmzone.h>$/a static int mm510_gate_test = ;'
	gate_patch "$p/patches/0002-v5.14-mm-gate-test-mend.patch" "mm: gate test mend" \
		'/^static int mm510_gate_test = ;$/d'
	gate_patch "$p/patches/0003-v5.14-mm-gate-test-sparse.patch" "mm: gate test sparse" \
		'/^#include <linux\/mmzone.h>$/a static int __maybe_unused mm510_gate_test(void) { int *p = 0; return p != NULL; }'
	gate_series "$p" 0001-v5.14-mm-gate-test-break.patch 0002-v5.14-mm-gate-test-mend.patch \
		0003-v5.14-mm-gate-test-sparse.patch
	env BUILD="$hb" BASE_REPO="$BASE_REPO" STACK_BRANCH=mm510-hosttest-gates \
		"$p/ci/apply.sh" >"$scratch/gate-build.out" 2>&1 || {
		cat "$scratch/gate-build.out"; rm -f "$scratch/gate-build.out"; return 1; }
	env BUILD="$hb" BASE_REPO="$BASE_REPO" STACK_BRANCH=mm510-hosttest-gates \
		"$p/ci/gates.sh" build >>"$scratch/gate-build.out" 2>&1 || :
	base_intact
}

t_gate_build_breaks() {
	gate_build_run
	grep -E 'gate-test|error' "$scratch/gate-build.out" | cut -c1-200
	grep -q '^not ok [0-9]* build W=1 C=1: 0001-v5.14-mm-gate-test-break.patch # fail: breaks the build of mm/mmzone.o' \
		"$scratch/gate-build.out" || { echo "the broken build was not caught"; return 1; }
	grep -q '^ok [0-9]* build W=1 C=1: 0002-v5.14-mm-gate-test-mend.patch # pass' \
		"$scratch/gate-build.out" || { echo "the mending patch did not pass"; return 1; }
}

t_gate_sparse_warning() {
	gate_build_run
	grep -E 'gate-test' "$scratch/gate-build.out" | cut -c1-200
	grep -q '^not ok [0-9]* build W=1 C=1: 0003-v5.14-mm-gate-test-sparse.patch # fail: 1 new warning(s) in mm/mmzone.o: .*plain integer as NULL pointer (sparse)' \
		"$scratch/gate-build.out" || { echo "the new sparse warning was not caught"; return 1; }
}
