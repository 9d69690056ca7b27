#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make sure the host tools of ci/packages are there.  As root, install
# what is missing with apt-get; otherwise print the one apt-get command
# to run and fail.

. "$(dirname "$0")/lib.sh"

missing=()
while read -r what pkg; do
	case $what in ''|'#'*) continue ;; esac
	if [[ $what == /* ]]; then
		[ -e "$what" ] && continue
	else
		command -v "$what" >/dev/null 2>&1 && continue
	fi
	missing+=("$pkg")
done <"$TOP/ci/packages"

[ ${#missing[@]} -eq 0 ] && exit 0
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	die "missing Debian packages; as root run: apt-get update && $cmd"
fi
msg "installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
$cmd -q >/dev/null
