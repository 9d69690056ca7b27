#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# main.sh STEP...: run pipeline steps in order under one hold of the
# build folder's lock, so that a second `make` on the same build folder
# waits instead of interleaving with this one.
#   deps fetch base apply build boot
# Every step takes the scenario from SCENARIO (default: default): its
# base tree for fetch, base and apply, its kernel for build and boot.

. "$(dirname "$0")/lib.sh"
. "$TOP/ci/scenario.sh"

lock_build
scenario=${SCENARIO:-default}
# The scenario's base tree: fetch and base make Debian's or Android's
# too when it is one of them.
scenario_load "$scenario"
for step in "$@"; do
	case $step in
	# What the scenario needs, and what the target adds (DEPS_TAGS).
	deps)	# shellcheck disable=SC2086
		"$TOP/ci/deps.sh" scenario ${DEPS_TAGS:-} ;;
	apply)	"$TOP/ci/apply.sh" ;;
	# Android's tree is a local bundle (ci/android.sh): nothing to
	# fetch, and nothing to import where the user gives a checkout.
	fetch)	"$TOP/ci/fetch.sh"
		case $TR_NAME in
		debian|debian-rt) "$TOP/ci/fetch.sh" debian ;;
		esac ;;
	base)	"$TOP/ci/base.sh"
		[ "$TR_NAME" = android ] && [ -n "${KERNEL_TREE:-}" ] || tree_import ;;
	build)	"$TOP/ci/build.sh" "$scenario" ;;
	# make SCENARIO=debian: a compile-only scenario is built, and said so.
	boot)	if [ "$SC_TIMEOUT" = - ]; then
			msg "scenario $scenario is compiled only (configs/scenarios gives it no boot): built, not booted"
		else
			"$TOP/ci/boot.sh" "$scenario"
		fi ;;
	*)	die "unknown step '$step'" ;;
	esac
done
