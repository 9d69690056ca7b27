#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# repeat.sh SCENARIO: boot the scenario's kernel COUNT times in a row
# (make repeat) and count the verdicts: the check for a failure that
# comes one boot in five or ten, such as a CPU hotplug race, where one
# passing boot proves little.  Each boot is ci/boot.sh with the same
# TREE, TESTS, BOOT_ARGS and BOOT_TIMEOUT; its serial log is kept as
# build/logs/repeat-<tree>-<scenario>/<N>.log (the folder is emptied
# first), and a failing boot's first kernel line of trouble is printed
# beside its verdict.  Ends with "repeat: P of N boots passed" and exits
# 0 only when every boot passed.
#
# COUNT=N (default 10); STOP_ON_FAIL=1 stops at the first failure.

. "$(dirname "$0")/lib.sh"
. "$TOP/ci/scenario.sh"

[ $# -eq 1 ] || die "usage: repeat.sh SCENARIO"
scenario_load "$1"
count=${COUNT:-10}
[[ $count =~ ^[1-9][0-9]*$ ]] || die "COUNT must be a whole number of boots, not '$count'"

case ${TREE:-stack} in
stack)	tree=$(stack_tree) ;;
base)	tree=$(base_checkout) ;;
*)	die "TREE must be 'stack' or 'base', not '$TREE'" ;;
esac
dir=$BUILD/logs/repeat-$(basename "$tree")-$SC_NAME
rm -rf "$dir"
mkdir -p "$dir"

# What a failing boot's log is searched for: the first line that names
# the trouble (the runner's own list is in tools/runner/init.c).
trouble='WARNING:|BUG:|BUG |Oops|Kernel panic|INFO: (possible|inconsistent|task)|Call Trace|Call trace:|not ok '

passed=0
for i in $(seq 1 "$count"); do
	log=$dir/$i.log
	start=$SECONDS
	if out=$(BOOT_LOG=$log QUIET=1 "$TOP/ci/boot.sh" "$SC_NAME" 2>&1); then
		passed=$((passed + 1))
		echo "boot $i/$count: pass ($((SECONDS - start)) s)"
		continue
	fi
	first=$(grep -m1 -E "$trouble" "$log" | sed 's/^\[[^]]*\] //' || :)
	echo "boot $i/$count: FAIL ($((SECONDS - start)) s): $(tail -n 1 <<<"$out")"
	[ -z "$first" ] || echo "  first trouble: $first"
	if [ "${STOP_ON_FAIL:-}" = 1 ]; then
		count=$i
		break
	fi
done
echo "repeat: $passed of $count boots passed ($(basename "$tree")/$SC_NAME${TESTS:+, tests $TESTS}${BOOT_ARGS:+, args $BOOT_ARGS}; logs in $dir)"
[ "$passed" -eq "$count" ]
