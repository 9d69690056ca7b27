#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kabi.sh: make kabi.  Builds the base and the stack of SCENARIO (default:
# default) with configs/kabi.config added (DWARF and MODVERSIONS, in
# their own object folders) and with KBUILD_SYMTYPES=1 (genksyms writes
# the types behind each CRC), then compares the two with
# ci/kabi-report.sh: build/kabi/ (build/kabi-SCENARIO/ for another
# scenario) gets report.md and the tables and libabigail files that
# script names.
#
# KABI_SYMBOLS=FILE: the symbols your modules use (an Android symbol
# list, or one name per line); the report says which of them break, and
# make kabi fails when any does.

. "$(dirname "$0")/lib.sh"
. "$TOP/ci/scenario.sh"

sc=${SCENARIO:-default}
need abidiff abigail-tools
if [ -n "${KABI_SYMBOLS:-}" ]; then
	[ -f "$KABI_SYMBOLS" ] || die "KABI_SYMBOLS=$KABI_SYMBOLS: no such file"
	KABI_SYMBOLS=$(realpath "$KABI_SYMBOLS")
fi
export ADD_FRAGMENTS=kabi KBUILD_SYMTYPES=1
scenario_load "$sc"
lock_build

out=$BUILD/kabi
[ "$sc" = default ] || out=$BUILD/kabi-$sc
stack=$(stack_tree)

t0=$SECONDS
TREE=base "$TOP/ci/build.sh" "$sc"
TREE=stack "$TOP/ci/build.sh" "$sc"
msg "both kernels built in $((SECONDS - t0)) s"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
series_patches >"$tmp/patches"
t0=$SECONDS
rc=0
# The base of the scenario's tree (vanilla's, or a downstream tree's:
# Debian's, ACK), and the stack's branch on it.
KABI_HEADER="Scenario \`$sc\` ($SC_ARCH; fragments ${SC_KEY//+/, }), built with KBUILD_SYMTYPES=1." \
	"$TOP/ci/kabi-report.sh" "$BUILD/obj/$(basename "$(base_checkout)")-$SC_KEY" \
	"$BUILD/obj/$(basename "$stack")-$SC_KEY" "$stack" "$TR_TAG" "$(stack_branch)" \
	"$tmp/patches" "$out" ${KABI_SYMBOLS:+"$KABI_SYMBOLS"} || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || exit "$rc"
msg "report in $((SECONDS - t0)) s"
cat "$out/report.md"
if [ "$rc" -eq 3 ]; then
	die "$(awk -F'\t' '$2 == "breaks"' "$out/symbol-list.tsv" | wc -l) symbol(s) of $KABI_SYMBOLS break: $(awk -F'\t' '$2 == "breaks" { printf "%s ", $1 }' "$out/symbol-list.tsv")(why: $out/symbol-list.tsv)"
fi
