#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmi-check.sh: make kmi-check, the fast guard of the android flavour's
# kernel module interface (KMI), which make check runs where ACK's tree
# is.  On GKI's configuration (scenario android-gki, with
# configs/kabi.config: DWARF and MODVERSIONS), plain ACK and the flavour
# on it are prepared (modules_prepare), not built whole, and compared in
# what a vendor module meets:
#
#   crc      the C files the flavour changes, compiled on both with
#            genksyms: each symbol of ACK's KMI lists that they export
#            keeps its CRC (modversions refuses a module otherwise);
#   layout   the same objects read by libabigail (abidw --kmi-whitelist,
#            ci/abi-layout.awk): each struct and union the listed
#            symbols reach keeps its size and its members' offsets;
#   modules  the test modules (tools/modules) built against each tree:
#            a module built against the flavour needs no symbol outside
#            ACK's KMI lists that it did not need against plain ACK.  A
#            GKI release build keeps only the listed exports
#            (build.config.gki.aarch64: TRIM_NONLISTED_KMI), so such a
#            module would not build or load there.  The flavour's new
#            interfaces (ci/kmi-new-api: a module that calls one by name
#            needs it added to its list) are named, not failed.
#
# The whole kernels' comparison is make kabi SCENARIO=android-gki (over
# two hours on two cores); this one takes minutes, and covers what a
# change to a shared patch most often breaks: the frozen types, the
# CRCs of what the flavour's files export, and what slab.h's and the
# other headers' inline code makes a module reference.
#
# Writes $BUILD/kmi-check-SCENARIO/report.txt (and the tables it is made
# from); fails when anything breaks.  SCENARIO (default android-gki) must
# be a scenario of the android tree.

. "$(dirname "$0")/lib.sh"
. "$TOP/ci/scenario.sh"

need abidw abigail-tools
need nm binutils
# sort, comm and join of the symbol lists, in one collation.
export LC_ALL=C
sc=${SCENARIO:-android-gki}
export ADD_FRAGMENTS=kabi KBUILD_SYMTYPES=1
scenario_load "$sc"
[ "$TR_NAME" = android ] ||
	die "SCENARIO=$sc is on the $TR_NAME tree: make kmi-check compares ACK's KMI, give a scenario of the android tree (android-gki)"
lock_build

stack=$(stack_tree)
[ -d "$stack" ] || die "$stack missing: run 'make apply SCENARIO=$sc' first"
tree_import --checkout
base=$(base_checkout)
out=$BUILD/kmi-check-$sc
rm -rf "$out"
mkdir -p "$out"
t0=$SECONDS

nlists=$(kmi_symbols "$base" "$out/kmi-symbols.txt")
msg "ACK's KMI: $(wc -l <"$out/kmi-symbols.txt") symbols in the $nlists lists of build.config.gki.aarch64"
new_api=$out/new-api.txt
sed -e 's/#.*//' "$TOP/ci/kmi-new-api" | awk 'NF { print $1 }' | sort -u >"$new_api"

# The objects of the C files the flavour changes that this configuration
# builds (objects_in_config: build.sh leaves the others out, and says so).
mapfile -t cands < <(git -C "$stack" diff --name-only "$TR_TAG" HEAD -- '*.c' | sed 's/\.c$/.o/')
[ ${#cands[@]} -gt 0 ] || die "the flavour changes no C file of $stack"
for t in base stack; do
	TREE=$t OBJECTS=listed OBJECT_LIST="${cands[*]}" "$TOP/ci/build.sh" "$sc"
done
sobj=$BUILD/obj/$(basename "$stack")-$SC_KEY
bobj=$BUILD/obj/$(basename "$base")-$SC_KEY
objects_in_config "$sobj/.config" "$stack" "${cands[@]}"
objs=("${OC_BUILT[@]}") skipped=("${OC_SKIPPED[@]}")
cmp -s <(grep '^CONFIG_' "$bobj/.config") <(grep '^CONFIG_' "$sobj/.config") ||
	die "$bobj/.config and $sobj/.config differ: the two trees must be compared on one configuration"
msg "both trees prepared and compiled in $((SECONDS - t0)) s"

fails=0
report=$out/report.txt
{
	echo "make kmi-check SCENARIO=$sc: plain ACK ($TR_TAG) against the android flavour"
	echo "KMI: $(wc -l <"$out/kmi-symbols.txt") symbols, the union of the $nlists lists of build.config.gki.aarch64"
	echo "objects: ${objs[*]}"
	[ ${#skipped[@]} -eq 0 ] || echo "not built in this configuration: ${skipped[*]}"
} >"$report"

# --- crc: genksyms' CRC of each export, "SYMBOL CRC" per tree ----------------
for t in base stack; do
	d=$bobj
	[ $t = base ] || d=$sobj
	for o in "${objs[@]}"; do
		[ -f "$d/$o" ] || continue
		nm "$d/$o" | awk '$3 ~ /^__crc_/ { print substr($3, 7), $1 }'
	done | sort -u >"$out/crc-$t.txt"
done
join "$out/crc-base.txt" "$out/crc-stack.txt" | awk '$2 != $3' >"$out/crc-changed.txt"
join "$out/crc-changed.txt" "$out/kmi-symbols.txt" >"$out/crc-changed-kmi.txt"
added=$(join -v2 "$out/crc-base.txt" "$out/crc-stack.txt" | awk '{ print $1 }' | paste -sd' ')
removed=$(join -v1 "$out/crc-base.txt" "$out/crc-stack.txt" | awk '{ print $1 }' | paste -sd' ')
{
	echo
	echo "crc: $(wc -l <"$out/crc-base.txt") exports of plain ACK's objects, $(wc -l <"$out/crc-stack.txt") of the flavour's"
	echo "  CRC changed: $(wc -l <"$out/crc-changed.txt"), $(wc -l <"$out/crc-changed-kmi.txt") of them in the KMI lists"
	sed 's/^/  breaks: /' "$out/crc-changed-kmi.txt"
	echo "  exports added: ${added:-none}"
	echo "  exports removed: ${removed:-none}"
} >>"$report"
for s in $removed; do
	if grep -qxF "$s" "$out/kmi-symbols.txt"; then
		echo "  breaks: $s, in the KMI lists, is no longer exported" >>"$report"
		fails=$((fails + 1))
	fi
done
fails=$((fails + $(wc -l <"$out/crc-changed-kmi.txt")))

# --- layout: the types the listed symbols reach, object by object ---------
# abidw's whitelist for an object: the listed symbols it exports (the
# whole list, for the same types, takes abidw 12 s an object on
# page_alloc.o where this takes 0.2 s).
for o in "${objs[@]}"; do
	[ -f "$bobj/$o" ] && [ -f "$sobj/$o" ] || continue
	n=${o//\//_}
	{ echo '[abi_whitelist]'
	  nm "$bobj/$o" | awk '$3 ~ /^__crc_/ { print substr($3, 7) }' | sort -u |
		comm -12 - "$out/kmi-symbols.txt" | sed 's/^/  /'
	} >"$out/$n.whitelist"
	pids=()
	for t in base stack; do
		d=$bobj
		[ $t = base ] || d=$sobj
		abidw --exported-interfaces-only --kmi-whitelist "$out/$n.whitelist" \
			--out-file "$out/$n.$t.xml" "$d/$o" >"$out/$n.$t.abidw.log" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || die "abidw failed on $o (logs: $out/$n.*.abidw.log)"
	done
	for t in base stack; do
		# name, size, offsets: the members' names may change in place.
		awk -f "$TOP/ci/abi-layout.awk" "$out/$n.$t.xml" | cut -f1-3 | sort -u >"$out/$n.$t.layout"
	done
	# A type whose layout lines differ, among those both objects have.
	comm -3 "$out/$n.base.layout" "$out/$n.stack.layout" | sed 's/^\t//' | cut -f1 | sort -u |
		comm -12 - <(comm -12 <(cut -f1 "$out/$n.base.layout" | sort -u) \
				      <(cut -f1 "$out/$n.stack.layout" | sort -u)) |
		sed "s|\$| ($o)|" >>"$out/layout-changed.txt"
	rm -f "$out/$n".*.xml
done
touch "$out/layout-changed.txt"
ntypes=$(cat "$out"/*.base.layout 2>/dev/null | cut -f1 | sort -u | wc -l)
{
	echo
	echo "layout: $ntypes named structs and unions reached by the listed symbols these objects export"
	echo "  size or member offsets changed: $(wc -l <"$out/layout-changed.txt")"
	sed 's/^/  breaks: /' "$out/layout-changed.txt"
} >>"$report"
fails=$((fails + $(wc -l <"$out/layout-changed.txt")))

# --- modules: what a module built against each tree needs ------------------
# undef KO: the symbols module KO leaves to the kernel.
undef() { nm -u "$1" | awk '{ print $2 }' | sort -u; }
{
	echo
	echo "modules: the test modules, built against each tree (symbols outside the KMI lists)"
} >>"$report"
for k in "$sobj"/mm510-modules/*.ko; do
	[ -e "$k" ] || continue
	m=$(basename "$k")
	undef "$k" | comm -23 - "$out/kmi-symbols.txt" >"$out/$m.unlisted"
	: >"$out/$m.base-unlisted"
	if [ -e "$bobj/mm510-modules/$m" ]; then
		undef "$bobj/mm510-modules/$m" | comm -23 - "$out/kmi-symbols.txt" >"$out/$m.base-unlisted"
	fi
	comm -23 "$out/$m.unlisted" "$out/$m.base-unlisted" >"$out/$m.new"
	comm -12 "$out/$m.new" "$new_api" >"$out/$m.api"
	comm -23 "$out/$m.new" "$new_api" >"$out/$m.breaks"
	line="  $m: $(wc -l <"$out/$m.unlisted") unlisted"
	[ -s "$out/$m.base-unlisted" ] && line="$line; against plain ACK too: $(paste -sd' ' "$out/$m.base-unlisted")"
	[ -e "$bobj/mm510-modules/$m" ] || line="$line; not built against plain ACK"
	[ -s "$out/$m.api" ] && line="$line; the flavour's new interfaces (ci/kmi-new-api): $(paste -sd' ' "$out/$m.api")"
	echo "$line" >>"$report"
	if [ -s "$out/$m.breaks" ]; then
		echo "  breaks: $m built against the flavour needs $(paste -sd' ' "$out/$m.breaks"), in no KMI list: a GKI release build does not export it" >>"$report"
		fails=$((fails + $(wc -l <"$out/$m.breaks")))
	fi
done
ls "$sobj"/mm510-modules/*.ko >/dev/null 2>&1 || die "no test module was built against the flavour in $sobj/mm510-modules"

echo >>"$report"
echo "$fails break(s); $((SECONDS - t0)) s" >>"$report"
cat "$report"
[ "$fails" -eq 0 ] || die "$fails break(s) of ACK's KMI (report: $report)"
msg "ACK's KMI kept: CRCs and layout of ${#objs[@]} objects, $(ls "$sobj"/mm510-modules/*.ko | wc -l) modules' symbols"
