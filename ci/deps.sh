#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh [TAG|scenario ...]: make sure the host tools of ci/packages are
# there.  As root, install what is missing with apt-get; otherwise print
# the one apt-get command to run and fail.
#
# Without arguments (make deps, make check, .ci/run): every line of
# ci/packages.  With arguments: the lines without tags (what make itself
# needs) and those with one of the TAGs; "scenario" stands for the tags
# of SCENARIO (default: default): its arch (arm64, arm) and its
# toolchain (llvm).  make's own steps (ci/main.sh deps) give "scenario"
# and DEPS_TAGS, which the Makefile sets for the targets that need more
# (make gates: gates; make kabi: kabi; make send: send).
# DEPS_LIST=1: print the missing packages, one a line, and install
# nothing.

. "$(dirname "$0")/lib.sh"

want=()
for a; do
	if [ "$a" = scenario ]; then
		. "$TOP/ci/scenario.sh"
		scenario_load "${SCENARIO:-default}"
		want+=("$SC_ARCH")
		[ "$SC_TOOLCHAIN" = gcc ] || want+=("$SC_TOOLCHAIN")
	else
		want+=("$a")
	fi
done

missing=()
while read -r what pkg tags; do
	case $what in ''|'#'*) continue ;; esac
	if [ $# -gt 0 ] && [ -n "$tags" ]; then
		wanted=
		for t in ${tags//,/ }; do
			in_list "$t" "${want[@]}" && wanted=1
		done
		[ -n "$wanted" ] || continue
	fi
	if [[ $what == /* ]]; then
		[ -e "$what" ] && continue
	else
		command -v "$what" >/dev/null 2>&1 && continue
	fi
	missing+=("$pkg")
done <"$TOP/ci/packages"

[ ${#missing[@]} -eq 0 ] && exit 0
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
if [ "${DEPS_LIST:-}" = 1 ]; then
	printf '%s\n' "${missing[@]}"
	exit 0
fi
cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	die "missing Debian packages; as root run: apt-get update && $cmd"
fi
msg "installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
$cmd -q >/dev/null
