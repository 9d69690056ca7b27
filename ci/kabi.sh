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
# make kabi fails when any does.  On the android tree it defaults to the
# union of the KMI symbol lists that the tree's build.config.gki.aarch64
# names (ACK's KMI: the symbols of every vendor's list), kept beside the
# report as build/kabi-SCENARIO-symbols.txt.  On GKI's configuration
# (android-gki) both kernels keep only the exports those lists name, as
# a GKI release build does (configs/trim.config), and ci/kmi-modules.sh
# then loads the test modules built against each into the flavour's
# kernel.

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
# On GKI's configuration (the gki fragment: android-gki) both kernels are
# GKI release builds, whose vmlinux exports only what ACK's KMI lists
# name (configs/trim.config), and the end is ci/kmi-modules.sh's: the
# test modules built against each, their imports checked and both sets
# loaded into the flavour's kernel.
gki_release=
if [[ " ${SC_FRAGMENTS[*]} " == *" gki "* ]]; then
	gki_release=1
	export ADD_FRAGMENTS=kabi,trim
	scenario_load "$sc"
fi
lock_build

out=$BUILD/kabi
[ "$sc" = default ] || out=$BUILD/kabi-$sc
stack=$(stack_tree)

# ACK's KMI symbol lists: those its GKI build names in
# build.config.gki.aarch64, KMI_SYMBOL_LIST and
# ADDITIONAL_KMI_SYMBOL_LISTS ("[abi_symbol_list]" files in android/).
if [ "$TR_NAME" = android ] && [ -z "${KABI_SYMBOLS:-}" ]; then
	tree_import --checkout
	kmi_lists=$(kmi_symbols "$(base_checkout)" "$out-symbols.txt")
	KABI_SYMBOLS=$out-symbols.txt
	msg "KABI_SYMBOLS: the union of the $kmi_lists KMI lists of $(base_checkout)/build.config.gki.aarch64, $(wc -l <"$KABI_SYMBOLS") symbols"
fi

t0=$SECONDS
TREE=base "$TOP/ci/build.sh" "$sc"
TREE=stack "$TOP/ci/build.sh" "$sc"
msg "both kernels built in $((SECONDS - t0)) s"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
series_patches >"$tmp/patches"
bobj=$BUILD/obj/$(basename "$(base_checkout)")-$SC_KEY
sobj=$BUILD/obj/$(basename "$stack")-$SC_KEY
header="Scenario \`$sc\` ($SC_ARCH; fragments ${SC_KEY//+/, }), built with KBUILD_SYMTYPES=1."
# ACK's lists name a few symbols that this configuration does not export
# (on android-gki: __cfi_slowpath, with clang's CFI off; and
# __stack_chk_guard, which Debian's clang 14 leaves out by making
# CONFIG_STACKPROTECTOR_PER_TASK possible): neither kernel has a CRC for
# them to compare.  They are left out of the default list, and named.
if [ -n "${kmi_lists:-}" ]; then
	awk 'NF >= 2 { print $2 }' "$bobj/Module.symvers" "$sobj/Module.symvers" | sort -u >"$tmp/exports"
	comm -23 "$KABI_SYMBOLS" "$tmp/exports" >"$out-symbols-unexported.txt"
	comm -12 "$KABI_SYMBOLS" "$tmp/exports" >"$tmp/kmi"
	mv "$tmp/kmi" "$KABI_SYMBOLS"
	if [ -s "$out-symbols-unexported.txt" ]; then
		header="$header Of ACK's $kmi_lists KMI lists, $(wc -l <"$out-symbols-unexported.txt") symbols are exported by neither kernel in this configuration and not checked: $(sed 's/.*/`&`/' "$out-symbols-unexported.txt" | paste -sd' ' -)."
		msg "not exported by either kernel here, left out of KABI_SYMBOLS: $(paste -sd' ' "$out-symbols-unexported.txt")"
	fi
fi
t0=$SECONDS
rc=0
# The base of the scenario's tree (vanilla's, or a downstream tree's:
# Debian's, ACK), and the stack's branch on it.
KABI_HEADER=$header \
	"$TOP/ci/kabi-report.sh" "$bobj" "$sobj" "$stack" "$TR_TAG" "$(stack_branch)" \
	"$tmp/patches" "$out" ${KABI_SYMBOLS:+"$KABI_SYMBOLS"} || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || exit "$rc"
msg "report in $((SECONDS - t0)) s"
cat "$out/report.md"
if [ "$rc" -eq 3 ]; then
	die "$(awk -F'\t' '$2 == "breaks"' "$out/symbol-list.tsv" | wc -l) symbol(s) of $KABI_SYMBOLS break: $(awk -F'\t' '$2 == "breaks" { printf "%s ", $1 }' "$out/symbol-list.tsv")(why: $out/symbol-list.tsv)"
fi
if [ -n "$gki_release" ]; then
	KMI_MODULES_BUILT=1 SCENARIO=$sc "$TOP/ci/kmi-modules.sh"
fi
