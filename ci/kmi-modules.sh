#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmi-modules.sh: make kmi-modules, the android flavour as a partner
# ships it: a GKI release build, whose vmlinux exports only the symbols
# of ACK's KMI lists (configs/trim.config, as TRIM_NONLISTED_KMI=1 in
# build.config.gki.aarch64), with vendor modules built against plain
# ACK and against the flavour, both loaded into the flavour's kernel.
#
# SCENARIO (default android-gki-trim) must be a scenario of the android
# tree with the trim fragment; make kabi adds that fragment on the
# android tree and ends with this script (KMI_MODULES_BUILT=1: both
# kernels are built already).  Otherwise plain ACK and the flavour are
# built first (TREE=base, TREE=stack: each with the test modules of
# tools/modules built against it; a module that needs a symbol the
# trimmed kernel does not export fails modpost there, and the build
# with it).  Then, in $BUILD/kmi-modules-SCENARIO/report.txt:
#
#   strict   ACK's KMI_SYMBOL_LIST_STRICT_MODE: the flavour's vmlinux
#            exports nothing outside the whitelist that plain ACK's
#            does not (ACK's build compares the two and fails on a
#            difference);
#   modules  each module of both sets: every symbol it imports is
#            exported by the trimmed flavour kernel, with the CRC of
#            the tree it was built against (modversions refuses a
#            module otherwise);
#   boots    the flavour's kernel booted with the scenario's tests
#            (modules_load loads every module), once with the modules
#            built against plain ACK (MODULES_FROM=base) and once with
#            its own.
#
# Fails when anything breaks.

. "$(dirname "$0")/lib.sh"
. "$TOP/ci/scenario.sh"

need nm binutils
export LC_ALL=C
sc=${SCENARIO:-android-gki-trim}
scenario_load "$sc"
[ "$TR_NAME" = android ] ||
	die "SCENARIO=$sc is on the $TR_NAME tree: make kmi-modules loads vendor modules into the android flavour, give a scenario of the android tree (android-gki-trim)"
[[ ",$(IFS=,; echo "${SC_FRAGMENTS[*]}")," == *,trim,* ]] ||
	die "SCENARIO=$sc does not trim the exports to ACK's KMI lists: add the trim fragment (ADD_FRAGMENTS=trim) or use android-gki-trim"
lock_build

out=$BUILD/kmi-modules-$sc
rm -rf "$out"
mkdir -p "$out"
t0=$SECONDS
if [ "${KMI_MODULES_BUILT:-}" != 1 ]; then
	TREE=base "$TOP/ci/build.sh" "$sc"
	TREE=stack "$TOP/ci/build.sh" "$sc"
	msg "both GKI release kernels built in $((SECONDS - t0)) s"
fi
sobj=$BUILD/obj/$(basename "$(stack_tree)")-$SC_KEY
bobj=$BUILD/obj/$(basename "$(base_checkout)")-$SC_KEY
for d in "$bobj" "$sobj"; do
	[ -s "$d/Module.symvers" ] || die "$d/Module.symvers missing: the kernel of $SC_KEY was not built there"
	[ -s "$d/abi_symbollist.raw" ] || die "$d/abi_symbollist.raw missing: $SC_KEY was built without the trim fragment's list"
done
wl=$sobj/abi_symbollist.raw
cmp -s "$wl" "$bobj/abi_symbollist.raw" ||
	die "$bobj and $sobj were trimmed to different lists: build both again"

fails=0
report=$out/report.txt
{
	echo "make kmi-modules SCENARIO=$sc: plain ACK ($TR_TAG) and the android flavour, GKI release builds"
	echo "whitelist: $(wc -l <"$wl") symbols (ACK's KMI lists, ci/kmi-new-api and ci/kmi-vendor-list), $wl"
} >"$report"

# exports TREE-OBJ: "SYMBOL CRC" of each export (Module.symvers: CRC,
# symbol, object, export type, namespace), and vmlinux's own names.
for t in base stack; do
	d=$bobj
	[ $t = base ] || d=$sobj
	awk -F'\t' '{ print $2, $1 }' "$d/Module.symvers" | sort -u >"$out/exports-$t.txt"
	awk -F'\t' '$3 == "vmlinux" { print $2 }' "$d/Module.symvers" | sort -u >"$out/vmlinux-$t.txt"
	comm -23 "$out/vmlinux-$t.txt" "$wl" >"$out/unlisted-$t.txt"
done

# --- strict: vmlinux exports outside the list ------------------------------
comm -23 "$out/unlisted-stack.txt" "$out/unlisted-base.txt" >"$out/strict-breaks.txt"
{
	echo
	echo "strict: vmlinux exports $(wc -l <"$out/vmlinux-base.txt") symbols on plain ACK, $(wc -l <"$out/vmlinux-stack.txt") on the flavour"
	echo "  outside the whitelist (kept for GKI's own modules): $(wc -l <"$out/unlisted-base.txt") on plain ACK, $(wc -l <"$out/unlisted-stack.txt") on the flavour"
	echo "  listed but not exported by the flavour: $(comm -13 "$out/vmlinux-stack.txt" "$wl" | paste -sd' ' - | sed 's/^$/none/')"
	sed 's/^/  breaks: exported by the flavour only, in no list: /' "$out/strict-breaks.txt"
} >>"$report"
fails=$((fails + $(wc -l <"$out/strict-breaks.txt")))

# --- modules: imports against the trimmed flavour's exports ----------------
echo >>"$report"
echo "modules: the test modules' imports, against the trimmed flavour kernel's exports" >>"$report"
nmods=0
for t in base stack; do
	d=$bobj
	[ $t = base ] || d=$sobj
	what="built against plain ACK"
	[ $t = base ] || what="built against the flavour"
	for k in "$d"/mm510-modules/*.ko; do
		[ -e "$k" ] || continue
		m=$(basename "$k")
		nmods=$((nmods + 1))
		nm -u "$k" | awk '{ print $2 }' | sort -u >"$out/$t-$m.imports"
		# SYMBOL CRC-built-against CRC-flavour; "-" where absent.
		join -a1 -e - -o 0,2.2 "$out/$t-$m.imports" "$out/exports-$t.txt" |
			join -a1 -e - -o 0,1.2,2.2 - "$out/exports-stack.txt" >"$out/$t-$m.crcs"
		awk '$3 == "-"' "$out/$t-$m.crcs" >"$out/$t-$m.missing"
		awk '$3 != "-" && $2 != $3' "$out/$t-$m.crcs" >"$out/$t-$m.crc-changed"
		line="  $m $what: $(wc -l <"$out/$t-$m.imports") imports"
		if [ -s "$out/$t-$m.missing" ] || [ -s "$out/$t-$m.crc-changed" ]; then
			echo "$line" >>"$report"
			awk '{ print "  breaks: " $1 ", not exported by the trimmed flavour kernel" }' "$out/$t-$m.missing" >>"$report"
			awk '{ print "  breaks: " $1 ", CRC " $2 " built against, " $3 " in the flavour" }' "$out/$t-$m.crc-changed" >>"$report"
			fails=$((fails + $(cat "$out/$t-$m.missing" "$out/$t-$m.crc-changed" | wc -l)))
		else
			echo "$line, all exported with the same CRC" >>"$report"
		fi
	done
	ls "$d"/mm510-modules/*.ko >/dev/null 2>&1 ||
		die "no test module was built in $d/mm510-modules"
done

# --- boots: the flavour's kernel with each module set -----------------------
# The modules built against plain ACK first; the flavour's own last, so
# that the object folder's initramfs is its own again afterwards.
echo >>"$report"
echo "boots: the flavour's trimmed kernel, tests ${SC_ARGS#*mm510.tests=}" >>"$report"
if [ "$fails" -gt 0 ]; then
	echo "  not booted: $fails break(s) above" >>"$report"
else
	for from in base stack; do
		what="the modules built against plain ACK" mf=base
		[ $from = base ] || what="the modules built against the flavour" mf=
		MODULES_FROM=$mf TREE=stack "$TOP/ci/build.sh" "$sc"
		b0=$SECONDS
		if TREE=stack BOOT_LOG=$out/boot-$from-modules.log "$TOP/ci/boot.sh" "$sc"; then
			echo "  with $what: passed ($((SECONDS - b0)) s; log $out/boot-$from-modules.log)" >>"$report"
		else
			echo "  breaks: with $what: failed (log $out/boot-$from-modules.log)" >>"$report"
			fails=$((fails + 1))
		fi
	done
fi

echo >>"$report"
echo "$fails break(s); $nmods module builds checked; $((SECONDS - t0)) s" >>"$report"
cat "$report"
[ "$fails" -eq 0 ] || die "$fails break(s) of the GKI release build (report: $report)"
msg "both module sets load and pass on the trimmed flavour kernel"
