#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# main.sh STEP...: run pipeline steps in order under one hold of the
# build folder's lock, so that a second `make` on the same build folder
# waits instead of interleaving with this one.
#   deps fetch base apply build boot
# build and boot take the scenario from SCENARIO (default: default).

. "$(dirname "$0")/lib.sh"

lock_build
scenario=${SCENARIO:-default}
for step in "$@"; do
	case $step in
	deps|fetch|base|apply)
		"$TOP/ci/$step.sh" ;;
	build|boot)
		"$TOP/ci/$step.sh" "$scenario" ;;
	*)	die "unknown step '$step'" ;;
	esac
done
