#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of the harness under bad input (TAP).
#
#   host.sh pre    cases that need only the fetched tarballs and base repo
#                  (the review-gate cases build one small object in
#                  BUILD/hosttest-gates, kept between runs); pre-vanilla
#                  those of them that need no Debian tree or tarball,
#                  pre-debian the others
#   host.sh guest  cases that need a built default kernel (and the arm64
#                  one, which skip without it)
#   host.sh full   cases of make check-full's gates and of make rebase
#                  (minutes of compiling and extracting; not in make check)
#   HOST_CASES=<regex> host.sh ...   only the cases whose function matches
#   HOST_LIST=1 host.sh ...   list the cases (group, number, function,
#                  name), run none; needs no base repository
#
# Each case runs the real ci/ scripts in a scratch BUILD/CACHE_DIR (and a
# scratch copy of the project where it must change the series), expects
# one clear error and a non-zero exit, and checks that the base tree and
# the user's tree are as they were.
#
# The cases live by topic in ci/tests/host-<topic>.sh, on the harness of
# ci/tests/lib.sh; this file lists them, group by group, in the order of
# their TAP numbers:
#   host-series.sh  the series and provenance gates, the RT lock check,
#                   make rebase
#   host-gates.sh   checkpatch, the build gate (W=1, sparse), positions
#   host-apply.sh   fetch, base, Debian's trees, apply, KERNEL_TREE, the
#                   build lock, full disks
#   host-build.sh   configurations, arches, missing tools, booted kernels
#   host-check.sh   make check's report, kselftest_cgroup's let-off
#   host-bench.sh   make bench's report and options
#   host-kabi.sh    make kabi's report
#   host-ci.sh      LAVA jobs, gitlab-ci-local
#   host-send.sh    make send's mails
#   host-docs.sh    the README's and the manuals' promises

# shellcheck source=ci/tests/lib.sh
. "$(dirname "$0")/lib.sh"
for topic in series gates apply build check bench kabi ci send docs; do
	# shellcheck source=/dev/null
	. "$TOP/ci/tests/host-$topic.sh"
done

# The cases of group pre, in two parts: those that need only the vanilla
# base repository, and those that need Debian's trees (imported) or its
# tarball (fetched).  make check runs the first beside the import of
# Debian's trees, the second beside its last checks (the CI files, the
# guest group), each on one core.
pre_vanilla() {
	run_case "kselftest_cgroup: a racy subtest is let off only with its race's figures" t_kselftest_lag
	run_case "check: failures listed last, with their reasons" t_check_report
	run_case "check: the step table, each step's time and kind" t_check_steps
	run_case "kcsan, kmemleak: a report only the stack has, unless series explains it" t_against_base
	run_case "bench: report from canned results" t_bench_report
	run_case "bench: summary, per-repetition ratios" t_bench_report_summary
	run_case "bench: every ATTRIB cut in the report, by group number" t_bench_report_cuts
	run_case "bench: the android tree's kernels named, no overhead rows under GKI's nokmem" t_bench_report_android
	run_case "bench: malformed results file" t_bench_report_malformed
	run_case "bench: irqsoff rows and sites" t_bench_report_irqsoff
	run_case "bench: profile tables" t_bench_report_profile
	run_case "bench: scalability counts over N vCPUs" t_bench_report_scale
	run_case "bench: cyclictest histograms to max, p99.9 and their claims" t_bench_report_lat
	run_case "ci: a bad LAVA job or a half-configured lab is named" t_lava_bad_input
	run_case "ci: GATE_POSITIONS that is not a range of patches" t_gate_positions
	run_case "ci: gitlab-ci-local refuses a job the pipeline lacks" t_gitlab_unknown_job
	run_case "ci: the check job's JUnit file, exported by gitlab-ci-local" t_gitlab_check_junit
	run_case "ci: gates:slow's slices cover every patch of the series" t_gitlab_gate_slices
	run_case "kabi: a one-member change is in the report under its patch, and in a symbol list" t_kabi_report
	run_case "kabi: no libabigail, no DWARF, no CRCs, an unknown symbol" t_kabi_bad_input
	run_case "kabi: a reserve taken in place is listed, and breaks nothing" t_kabi_report_inplace
	run_case "kabi: a type abidiff lists but changed in place only breaks nothing" t_kabi_report_inplace_only
	run_case "kmi-check: a scenario of another tree, no libabigail: refused, nothing built" t_kmi_check_bad_input
	run_case "kmi-modules: a scenario of another tree, one that does not trim: refused, nothing built" t_kmi_modules_bad_input
	run_case "bench: peer .deb with a wrong checksum" t_peer_wrong_checksum
	run_case "fetch: truncated cached tarball" t_truncated_tarball
	run_case "fetch: wrong checksum" t_wrong_checksum
	run_case "fetch: archive unreachable" t_unreachable_archive
	run_case "base: corrupt tarball leaves no repository" t_corrupt_extract
	run_case "apply: patch does not apply" t_patch_does_not_apply
	run_case "apply: series names a missing patch" t_series_names_missing_patch
	run_case "apply: KERNEL_TREE dirty" t_kernel_tree_dirty
	run_case "apply: KERNEL_TREE not a 5.10, or another 5.10 sublevel" t_kernel_tree_wrong_version
	run_case "apply: KERNEL_TREE has the stack's branch" t_kernel_tree_branch_exists
	run_case "apply: KERNEL_TREE not android12-5.10 for the android tree" t_kernel_tree_not_android
	run_case "android: the ACK bundle checked and imported once; missing or corrupt, nothing kept" t_android_import
	run_case "android: a patch that meets ACK's code names it, nothing half-applied" t_android_patch_meets_hook
	run_case "apply: two runs on one build folder wait" t_two_runs_one_build
	run_case "apply: interrupted git am is aborted" t_am_interrupted
	run_case "refresh: twice in a row, a hand edit refused" t_refresh_twice
	run_case "base: build folder's disk full" t_full_disk_build
	run_case "fetch: cache disk full" t_full_disk_cache
	run_case "boot: missing tool names its package" t_missing_tool
	run_case "repeat: COUNT that is not a number" t_repeat_bad_count
	run_case "boot: a compile-only scenario is refused, make SCENARIO= builds it and says so" t_boot_compile_only
	run_case "progress: a line every 30 s in a terminal, quiet in a CI log, gone with its script" t_progress
	run_case "deps: make's packages, a scenario's arch and toolchain, a target's tags, all for make deps" t_deps_per_target
	run_case "build: a boot image's piggy.o carrying an earlier kernel is found" t_piggy_stale
	run_case "scenario: an unknown arch is named with the known ones" t_unknown_arch
	run_case "build: another arch's option is left out, an unknown one fails" t_foreign_option
	run_case "build: a fragment's defconfig is the start, one the tree lacks is named" t_defconfig_base
	run_case "boot: TESTS narrows a scenario that has its own subset" t_boot_tests_narrow
	run_case "build/boot: missing cross compiler or QEMU names its package" t_missing_cross
	run_case "build: a missing clang or lld names its package, an unknown toolchain fails" t_missing_llvm
	run_case "bench: an arch without a bench scenario is refused" t_bench_arch
	run_case "gates: an out-of-order series entry must say why" t_gate_series_order
	run_case "gates: a variant differs from its patch in context only, or is a form kept in step" t_gate_series_variant
	run_case "ack-export: ACK's tags and trailers, the same on every export; an unknown commit stops it" t_ack_export
	run_case "gates: checkpatch error fails its patch" t_gate_checkpatch
	run_case "gates: missing Link:/Git-commit: fail provenance" t_gate_provenance
	run_case "gates: provenance checks each patch against upstream.tsv" t_gate_provenance_table
	run_case "gates: a malformed upstream.tsv fails provenance, naming its line" t_gate_provenance_tsv
	run_case "send: send-check.sh on canned mails of a 5.10 backport posting" t_send_check
	run_case "docs: the README's and the manuals' targets, variables, scenarios and links exist" t_docs_promises
	run_case "docs: each figure quoted from results/ is its result file's, a stale one named" t_figures
}

pre_debian() {
	run_case "build: OBJECTS=changed stops on a file Debian and the series both change" t_debian_overlap
	run_case "fetch: Debian tarball with a wrong checksum keeps nothing" t_debian_wrong_checksum
	run_case "base: a patches-rt patch that no longer applies is named, nothing kept" t_debian_rt_does_not_apply
	run_case "apply: an RT flavour patch that no longer matches the RT queue" t_rt_patch_does_not_apply
	run_case "rt: pcp lists and memcg stock under local locks, vanilla named" t_rt_locks
	run_case "bench: no RT peer, IRQSOFF a switch" t_bench_bad_options
}

group=${1:-}
case $group in
pre)	pre_vanilla
	pre_debian ;;
pre-vanilla)
	pre_vanilla ;;
pre-debian)
	pre_debian ;;
guest)
	run_case "ci: a LAVA job for a built kernel, a board job without its DTB" t_lava_render
	run_case "boot: guest panics" t_guest_panics
	run_case "boot: guest hangs" t_guest_hangs
	run_case "boot: a test past its time: blocked tasks shown, killed" t_guest_test_timeout
	run_case "boot: make boot's KVM probe kept as failed: TCG, said, no second probe; BOOT_ACCEL, BOOT_CPUS checked" t_boot_kvm_fallback
	run_case "boot: failing test fails the run" t_guest_test_fails
	run_case "boot: a failing test on arm64 ends QEMU with status 1" t_guest_arm64_fails
	run_case "boot: a test's leftover cgroup fails it, not the next" t_guest_leftover
	run_case "build: interrupted, then resumed" t_build_interrupted
	run_case "repeat: boots counted, a failure named, STOP_ON_FAIL" t_repeat_counts
	run_case "boot: a cancelled boot ends its QEMU" t_boot_interrupted
	;;
full)
	# The tools of make check-full and make rebase, which make check
	# does not run: minutes of compiling and extracting.
	run_case "gates: build broken mid-series fails that patch" t_gate_build_breaks
	run_case "gates: new sparse warning fails its patch" t_gate_sparse_warning
	run_case "rebase: a patch 5.10.y took is reported" t_rebase_reports_taken
	run_case "rebase: a conflict keeps nothing half made" t_rebase_conflict
	run_case "rebase: a Debian upload that took a patch, both trees" t_rebase_debian
	# Two checkouts of the kernel tree and three runs of make fit on
	# it: about 2 minutes.
	run_case "fit: a vendor-like tree, a patch three-way and one in conflict" t_fit_vendor_tree
	;;
*)
	die "usage: host.sh pre|pre-vanilla|pre-debian|guest|full (HOST_LIST=1: list the cases, run none)"
	;;
esac
[ -n "${HOST_LIST:-}" ] || echo "1..$n"
[ "$failed" -eq 0 ]
