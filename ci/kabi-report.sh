#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kabi-report.sh BASE-OBJ STACK-OBJ TREE BASE-REV TIP-REV PATCHES OUTDIR [SYMBOL-LIST]
#
# What a series changes in the kernel's module interface, and which patch
# changes it.  make kabi (ci/kabi.sh) runs it on the base and the stack
# built with configs/kabi.config; the host test runs it on a synthetic
# pair.
#
#   BASE-OBJ, STACK-OBJ  build folders: vmlinux with DWARF (CONFIG_DEBUG_INFO),
#       Module.symvers with CRCs (CONFIG_MODVERSIONS) and, when built with
#       KBUILD_SYMTYPES=1, the *.symtypes files genksyms wrote (the types
#       each exported symbol's CRC was computed from).
#   TREE BASE-REV TIP-REV  the stack's git tree; BASE-REV..TIP-REV are its
#       commits, one per line of the file PATCHES (the series' file names,
#       in the same order).
#   SYMBOL-LIST  optional: the symbols a user's modules use, as Android's
#       symbol lists are written ("[abi_symbol_list]", then one name per
#       line; "#" comments), or one name per line.
#
# Three sources, each for what it knows:
#   Module.symvers     symbols exported, removed, whose CRC or export type
#                      changed (what modversions refuses a module for);
#   libabigail         the types behind the change: abidw of each vmlinux's
#                      exported interface (with a SYMBOL-LIST, the types
#                      its symbols reach), abidiff's leaf changes of the
#                      two (which members of which structures were added,
#                      removed, renamed or retyped; what changed in an
#                      exported symbol's own type), and the two XML files
#                      compared type by type (sizes, offsets, members
#                      changed in place);
#   *.symtypes         for each symbol whose CRC changed, the type
#                      definitions that differ in its exporting file.
# A changed type is put on the patches that changed its definition in the
# tree (git log -L over the definition's lines, or -S for one that is
# gone), a member on those that changed its line, a CRC on the patches of
# the types it was computed from, an export on those that changed its
# EXPORT_SYMBOL line.
#
# Writes OUTDIR/report.md and, for machines, OUTDIR/symbols.tsv,
# types.tsv, members.tsv, layout.tsv, inplace.tsv, keys.tsv,
# symbol-list.tsv (with a SYMBOL-LIST), and libabigail's base.abi.xml,
# stack.abi.xml and abidiff.txt, all at once: they are made in a
# temporary folder beside OUTDIR and moved in place only when complete.
# libabigail's products are also kept in OUTDIR.abi/ as each is made
# (below), for the next run.
# Exit status: 0; 3 when a symbol of SYMBOL-LIST breaks; 1 on an error
# (bad input: nothing written).

. "$(dirname "$0")/lib.sh"

[ $# -eq 7 ] || [ $# -eq 8 ] ||
	die "usage: kabi-report.sh BASE-OBJ STACK-OBJ TREE BASE-REV TIP-REV PATCHES OUTDIR [SYMBOL-LIST]"
bobj=$1 sobj=$2 tree=$3 brev=$4 trev=$5 plist=$6 out=$7 slist=${8:-}
for d in "$bobj" "$sobj" "$tree"; do [ -d "$d" ] || die "$d: no such folder"; done
bobj=$(realpath "$bobj") sobj=$(realpath "$sobj")

need abidiff abigail-tools
need readelf binutils
need git git

# --- inputs -------------------------------------------------------------------
for d in "$bobj" "$sobj"; do
	[ -f "$d/vmlinux" ] || die "$d/vmlinux missing: the kernel is not built there"
	grep -q ' \.debug_info ' <<<"$(readelf -S --wide "$d/vmlinux")" ||
		die "$d/vmlinux has no DWARF (.debug_info): built without CONFIG_DEBUG_INFO; make kabi builds with configs/kabi.config"
	[ -f "$d/Module.symvers" ] ||
		die "$d/Module.symvers missing: the kernel was built without modules (CONFIG_MODULES)"
	awk -F'\t' 'NF >= 4 && $1 ~ /^0x/ && $1 != "0x00000000" { ok = 1; exit } END { exit !ok }' \
		"$d/Module.symvers" ||
		die "$d/Module.symvers has no CRCs: built without CONFIG_MODVERSIONS; make kabi builds with configs/kabi.config"
done
[ -f "$plist" ] || die "$plist missing"
git -C "$tree" rev-parse -q --verify "$brev^{commit}" >/dev/null || die "$tree has no revision $brev"
git -C "$tree" rev-parse -q --verify "$trev^{commit}" >/dev/null || die "$tree has no revision $trev"
mapfile -t patches <"$plist"
mapfile -t commits < <(git -C "$tree" rev-list --reverse "$brev..$trev")
[ ${#commits[@]} -eq ${#patches[@]} ] ||
	die "$tree has ${#commits[@]} commits in $brev..$trev, $plist names ${#patches[@]} patches"
declare -A patch_of
for i in "${!commits[@]}"; do patch_of[${commits[$i]}]=${patches[$i]%.patch}; done

out=${out%/}
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d "$(dirname "$out")/.kabi.XXXXXX")
pids=()
# An interrupted run stops the abidw runs it started, and leaves nothing.
trap 'for p in ${pids[@]+"${pids[@]}"}; do kill "$p" 2>/dev/null || :; done; rm -rf "$tmp"' EXIT
mkdir "$tmp/out"

# --- exported symbols: Module.symvers -----------------------------------------
# symvers.tsv: symbol, base CRC, stack CRC, base export, stack export, module
# ("-" where the kernel does not export it).
awk -F'\t' '
FNR == 1 { f++ }
NF < 4 { next }
f == 1 { bc[$2] = $1; be[$2] = $4; m[$2] = $3 }
f == 2 { sc[$2] = $1; se[$2] = $4; m[$2] = $3 }
END {
	for (s in m)
		printf "%s\t%s\t%s\t%s\t%s\t%s\n", s, (s in bc) ? bc[s] : "-", (s in sc) ? sc[s] : "-",
			(s in be) ? be[s] : "-", (s in se) ? se[s] : "-", m[s]
}' "$bobj/Module.symvers" "$sobj/Module.symvers" | sort >"$tmp/symvers.tsv"

# The user's symbols: every one must be exported by the base or the stack.
if [ -n "$slist" ]; then
	[ -f "$slist" ] || die "symbol list $slist missing"
	sed -e 's/#.*//' -e '/^[[:space:]]*\[.*\][[:space:]]*$/d' "$slist" |
		awk 'NF == 1 { print $1 } NF > 1 { bad = 1; print "kabi-report.sh: '"$slist"': not one symbol a line: " $0 > "/dev/stderr" }
		     END { exit bad }' | sort -u >"$tmp/user" || die "$slist is not a symbol list"
	[ -s "$tmp/user" ] || die "symbol list $slist names no symbol"
	unknown=$(cut -f1 "$tmp/symvers.tsv" | sort | comm -13 - "$tmp/user")
	[ -z "$unknown" ] ||
		die "symbol list $slist names $(wc -l <<<"$unknown") symbol(s) neither kernel exports: $(head -n 10 <<<"$unknown" | tr '\n' ' ')"
fi

# --- types: abidiff -----------------------------------------------------------
# Each vmlinux's exported interface as libabigail's XML (abidw, both at
# once), then the two compared (abidiff: minutes; on a GKI kernel half
# an hour, about 15 minutes on the types of ACK's KMI lists).  With a SYMBOL-LIST, abidw keeps only the types its
# symbols reach (--kmi-whitelist, as Android's own ABI tooling does; the
# list in the "[abi_whitelist]" form, the section name libabigail 2.2
# reads: it ignores ACK's "[abi_symbol_list]").  Each product is kept in
# OUTDIR.abi/ with the checksums it came from as soon as it is made, and
# reused while those are the same: a run stopped or failed after abidw
# or abidiff does not have to make them again.
abiver=$(abidiff --version)
cache=$out.abi
mkdir -p "$cache"
# keep NAME: copy $tmp/out/NAME into the cache, atomically.
keep() {
	cp "$tmp/out/$1" "$cache/.$1.new" && mv "$cache/.$1.new" "$cache/$1"
}
abidw_opts=(--exported-interfaces-only)
wl=
if [ -n "$slist" ]; then
	{ echo '[abi_whitelist]'; sed 's/^/  /' "$tmp/user"; } >"$tmp/kmi.whitelist"
	abidw_opts+=(--kmi-whitelist "$tmp/kmi.whitelist")
	wl="whitelist $(sha256sum <"$tmp/user" | cut -d' ' -f1)"
fi
abidw_key() { echo "$abiver ${abidw_opts[0]} $wl $(sha256sum "$1/vmlinux" | cut -d' ' -f1)"; }
for v in base stack; do
	d=$bobj
	[ $v = base ] || d=$sobj
	abidw_key "$d" >"$tmp/out/$v.abi.key"
	if [ -f "$cache/$v.abi.xml" ] && cmp -s "$cache/$v.abi.key" "$tmp/out/$v.abi.key"; then
		cp "$cache/$v.abi.xml" "$tmp/out/$v.abi.xml"
	else
		msg "abidw: $d/vmlinux"
		abidw "${abidw_opts[@]}" --out-file "$tmp/out/$v.abi.xml" "$d/vmlinux" \
			>"$tmp/abidw-$v.log" 2>&1 &
		pids+=($!)
	fi
done
for p in ${pids[@]+"${pids[@]}"}; do
	wait "$p" || { cat "$tmp"/abidw-*.log >&2; die "abidw failed"; }
done
pids=()
for v in base stack; do keep $v.abi.xml; keep $v.abi.key; done
# Sizes in bits, abidiff's default: with --show-bytes, abidiff 2.2 also
# divides a symbol's size, which ELF gives in bytes.
abiopts="--leaf-changes-only"
key="$abiver $abiopts $(cat "$tmp/out/base.abi.key" "$tmp/out/stack.abi.key" | paste -sd' ' -)"
echo "$key" >"$tmp/out/abidiff.key"
if [ -f "$cache/abidiff.txt" ] && cmp -s "$cache/abidiff.key" "$tmp/out/abidiff.key"; then
	msg "abidiff: reusing $cache/abidiff.txt (the same two vmlinux files)"
	cp "$cache/abidiff.txt" "$tmp/out/abidiff.txt"
else
	msg "abidiff: base.abi.xml against stack.abi.xml (minutes)"
	rc=0
	# shellcheck disable=SC2086
	abidiff $abiopts "$tmp/out/base.abi.xml" "$tmp/out/stack.abi.xml" \
		>"$tmp/out/abidiff.txt" 2>"$tmp/abidiff.err" || rc=$?
	# abidiff's status is a bit field: 1 error, 2 usage, 4 change, 8 incompatible.
	if (( rc & 3 )); then
		cat "$tmp/abidiff.err" "$tmp/out/abidiff.txt" | tail -n 20 >&2
		die "abidiff failed (status $rc)"
	fi
	keep abidiff.txt
	keep abidiff.key
fi

# --- layout: the two XML files, type by type --------------------------------
# What the leaf report leaves out as harmless, and what the KMI's rule is
# about: whether a type keeps its size and its members' offsets.  Each
# named struct or union of the XML as one line (ci/abi-layout.awk), the
# two compared: layout.tsv has the types whose size or offsets differ;
# inplace.tsv the members that changed at the same offset of a type that
# kept its layout: a reserve taken by ANDROID_KABI_USE, a member kept in
# a union with its replacement (_ANDROID_KABI_REPLACE), a rename.
# (abidiff --harmless says the same in its way, but libabigail 2.2 dies
# of a NULL dereference printing it for a GKI kernel.)
for v in base stack; do
	awk -f "$TOP/ci/abi-layout.awk" "$tmp/out/$v.abi.xml" | sort -u >"$tmp/$v.layout"
done
awk -F'\t' '
function items(str, arr) { return str == "" ? 0 : split(str, arr, ";") }
FNR == 1 { f++ }
# The input is sorted: the lines of one type are together, in order.
{ sig = $2 "\t" $3
  sigs[f, $1] = sigs[f, $1] "|" sig; n[f, $1]++; s1[f, $1] = sig; mem[f, $1] = $4
  names[$1] = 1 }
END {
	for (t in names) {
		if (!n[1, t] || !n[2, t]) continue
		if (sigs[1, t] != sigs[2, t]) {
			split(s1[1, t], b, "\t"); split(s1[2, t], s, "\t")
			printf "L\t%s\t%s\t%s\t%s\t%s\n", t, b[1], s[1], b[2], s[2]
			continue
		}
		if (n[1, t] != 1 || mem[1, t] == mem[2, t]) continue
		nb = items(mem[1, t], bm); ns = items(mem[2, t], sm)
		for (i = 1; i <= nb && i <= ns; i++) {
			if (bm[i] == sm[i]) continue
			bo = bm[i]; sub(/=.*/, "", bo); bn = bm[i]; sub(/^[^=]*=/, "", bn)
			sn = sm[i]; sub(/^[^=]*=/, "", sn)
			c = t; sub(/^(struct|union) /, "", c)
			if (sn ~ /^[{]/) {
				inner = ", " substr(sn, 2, length(sn) - 2) ", "
				if (index(inner, ", " bn ", "))
					how = bn ~ /^android_kabi_reserved[0-9]+$/ ? "reserve used" : "union with the old member"
				else
					how = "replaced by a union"
				now = "union {" substr(sn, 2)
			} else {
				how = "renamed"; now = sn
			}
			printf "I\t%s::%s\t%s\t%s\t%s\n", c, bn, how, now, bo
		}
	}
}' "$tmp/base.layout" "$tmp/stack.layout" >"$tmp/layout.out"
# layout.tsv: type, base size, stack size (bits), base offsets, stack offsets.
{
	printf 'type\tbase_size\tstack_size\tbase_offsets\tstack_offsets\n'
	awk -F'\t' '$1 == "L" { print $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6 }' "$tmp/layout.out" | sort
} >"$tmp/out/layout.tsv"
# inplace.tsv: member ("struct::member"), how ("reserve used", "union
# with the old member", "replaced by a union" or "renamed"), what it is
# now, its offset in bits.
{
	printf 'member\thow\tnow\toffset\n'
	awk -F'\t' '$1 == "I" { print $2 "\t" $3 "\t" $4 "\t" $5 }' "$tmp/layout.out" | sort -u
} >"$tmp/out/inplace.tsv"

# leaf.tsv: "type", name, location, summary.  A leaf block opens with
# "'struct zone at mmzone.h:428:1' changed:" and lists its changes
# indented: the size, then members (or enumerators) inserted, deleted and
# changed, one a line.
awk -v q="'" '
function quoted(str, n,   i, j) {	# the n-th quoted string of str
	while (n-- > 0) {
		i = index(str, q); if (!i) return ""
		str = substr(str, i + 1)
		j = index(str, q); if (!j) return ""
		if (n == 0) return substr(str, 1, j - 1)
		str = substr(str, j + 1)
	}
}
function ident(str) {		# "unsigned long int x[4]" -> x, "zone::pageset" -> pageset
	while (sub(/\[[0-9]*\]$/, "", str)) ;
	sub(/.*[^A-Za-z0-9_]/, "", str)
	return str
}
function at(str) {		# the "FILE:LINE" of "... at mmzone.h:460:1", or "-"
	if (str !~ / at [^ ]+:[0-9]+:[0-9]+:?$/) return "-"
	sub(/.* at /, "", str); sub(/:[0-9]+:?$/, "", str)
	return str
}
# One "member" line per member (or enumerator) added, removed, renamed or
# retyped: type, how, name, new name, where abidiff says it is.
function pendfl() { if (pend != "") mem("type changed", pend, "-", "-"); pend = "" }
function mem(how, m, nm, where) { printf "member\t%s\t%s\t%s\t%s\t%s\n", name, how, m, nm, where }
function part(label, list) { if (list != "") sum = sum (sum == "" ? "" : "; ") label list }
function flush() {
	pendfl()
	if (name != "") {
		sum = size
		part("members added: ", added); part("members removed: ", removed)
		part("", renamed); part("type changed: ", typed); part("changed: ", other)
		if (moved) part("", moved " members moved")
		part("enumerators added: ", eadded); part("enumerators removed: ", eremoved)
		part("enumerator values changed: ", echanged)
		printf "type\t%s\t%s\t%s\n", name, loc, sum == "" ? "-" : sum
	}
	name = ""
}
function app(list, x) { return list == "" ? x : list ", " x }
/^'\''(struct|union|enum|class|typedef) .* at [^ ]+'\'' changed:$/ {
	flush()
	s = quoted($0, 1)
	loc = s; sub(/.* at /, "", loc); name = s; sub(/ at [^ ]+$/, "", name)
	size = sec = added = removed = renamed = typed = other = eadded = eremoved = echanged = ""
	moved = 0
	next
}
name == "" { next }
/^[^ ]/ { flush(); next }
/^  type size changed from / {
	a = $5; b = $7
	if ($9 ~ /bits/) { a /= 8; b /= 8 }
	size = "size " a " -> " b " bytes"
	next
}
/^  type size hasn.t changed/ { size = "size unchanged"; next }
/^  [^ ].*enumerator insertion/ { sec = "eadd"; next }
/^  [^ ].*enumerator deletion/ { sec = "edel"; next }
/^  [^ ].*enumerator change/ { sec = "echg"; next }
/^  [^ ].*data member insertion/ { sec = "add"; next }
/^  [^ ].*data member deletion/ { sec = "del"; next }
/^  [^ ].*data member change/ { sec = "chg"; next }
/^  [^ ]/ { sec = ""; s = $0; sub(/^  /, "", s); other = app(other, s); next }
!/^    [^ ]/ { if (!/^      /) pendfl(); next }
!/^    and name of / { pendfl() }
sec == "add" { m = ident(quoted($0, 1)); added = app(added, m); mem("added", m, "-", at($0)); next }
sec == "del" { m = ident(quoted($0, 1)); removed = app(removed, m); mem("removed", m, "-", at($0)); next }
sec == "eadd" { m = ident(quoted($0, 1)); eadded = app(eadded, m); mem("enumerator added", m, "-", "-"); next }
sec == "edel" { m = ident(quoted($0, 1)); eremoved = app(eremoved, m); mem("enumerator removed", m, "-", "-"); next }
sec == "echg" { echanged = app(echanged, ident(quoted($0, 1))); next }
sec == "chg" && /^    type .* of .* changed/ {
	# No place on this line: a rename of the same member that follows
	# gives it (pend).
	pendfl(); pend = ident(quoted($0, 2)); typed = app(typed, pend)
	next
}
sec == "chg" && /^    and name of / {
	m = ident(quoted($0, 1)); n2 = ident(quoted($0, 2))
	renamed = app(renamed, m " renamed " n2)
	mem(m == pend ? "renamed, type changed" : "renamed", m, n2, at($0))
	if (m == pend) pend = ""
	next
}
sec == "chg" && /offset changed/ { moved++; next }
sec == "chg" { other = app(other, ident(quoted($0, 1))); next }
END { flush() }' "$tmp/out/abidiff.txt" >"$tmp/leafall.tsv"
awk -F'\t' '$1 == "type"' "$tmp/leafall.tsv" >"$tmp/leaf.tsv"
awk -F'\t' '$1 == "member"' "$tmp/leafall.tsv" >"$tmp/members.tsv"

# abichanged.tsv: the exported functions and variables abidiff finds
# changed ("  [C] 'function int foo(bar*)' at f.c:1:1 has some sub-type
# changes:", "  [C] 'long int baz' was changed at ..."), with what changed
# besides the CRC (the lines under it, "-" when only the CRC did).
awk -v q="'" '
function flush() { if (sym != "") printf "%s\t%s\n", sym, det == "" ? "-" : det; sym = "" }
/^  \[C\] / {
	flush()
	i = index($0, q); s = substr($0, i + 1); s = substr(s, 1, index(s, q) - 1)
	if (s ~ /^function /) { sub(/^function /, "", s); sub(/\(.*/, "", s) }
	while (sub(/\[[0-9]*\]$/, "", s)) ;
	sub(/.*[^A-Za-z0-9_]/, "", s)
	sym = s; det = ""
	next
}
sym != "" && /^    / {
	s = $0; sub(/^ +/, "", s)
	if (s !~ /^CRC \(modversions\) changed/) det = det == "" ? s : det " " s
	next
}
{ flush() }
END { flush() }' "$tmp/out/abidiff.txt" | sort -u >"$tmp/abichanged.tsv"

# --- CRCs: the symtypes of each exporting file --------------------------------
# crcwhy.tsv: symbol, the genksyms types ("s#zone", "e#node_stat_item",
# "t#pg_data_t", or the symbol's own declaration) that differ between the
# base's and the stack's definition in the file exporting it and that its
# CRC was computed from.  Only with *.symtypes in both build folders.
: >"$tmp/crcwhy.tsv"
have_symtypes=0
if [ -n "$(find "$bobj" -name '*.symtypes' -print -quit)" ] &&
   [ -n "$(find "$sobj" -name '*.symtypes' -print -quit)" ]; then
	have_symtypes=1
	for d in "$sobj" "$bobj"; do
		(cd "$d" && find . -name '*.symtypes') | sed 's|^\./||'
	done | sort -u >"$tmp/stfiles"
	while read -r f; do
		b=$bobj/$f s=$sobj/$f
		[ -f "$b" ] || b=/dev/null
		[ -f "$s" ] || s=/dev/null
		cmp -s "$b" "$s" && continue
		# Both versions' definitions; the keys whose definitions differ; from
		# each, back along the references to the exported symbols (keys
		# without "#") that reach it.
		# A file only one build has is read against /dev/null.
		awk -v tu="${f%.symtypes}" -v bf="$b" '
		{
			k = $1; d = substr($0, length($1) + 2)
			if (FILENAME == bf) B[k] = d; else S[k] = d
			K[k] = 1
			n = split(d, t, " ")
			for (i = 1; i <= n; i++)
				if (t[i] ~ /^[a-zA-Z]#/ && !((t[i], k) in E)) {
					E[t[i], k] = 1; R[t[i]] = R[t[i]] " " k
				}
		}
		END {
			for (k in K) {
				if ((k in B) && (k in S) && B[k] == S[k]) continue
				# Only a symbol both kernels export has a CRC to compare.
				if (k !~ /#/ && !((k in B) && (k in S))) continue
				split("", seen); q[1] = k; qh = 1; qt = 1; seen[k] = 1
				while (qh <= qt) {
					x = q[qh++]
					if (x !~ /#/) why[x] = why[x] " " k
					n = split(R[x], t, " ")
					for (i = 1; i <= n; i++)
						if (!(t[i] in seen)) { seen[t[i]] = 1; q[++qt] = t[i] }
				}
			}
			for (x in why)
				if ((x in B) && (x in S))
					printf "%s\t%s\t%s\n", x, substr(why[x], 2), tu
		}' "$b" "$s" >>"$tmp/crcwhy.tsv"
	done <"$tmp/stfiles"
	sort -o "$tmp/crcwhy.tsv" "$tmp/crcwhy.tsv"
fi

# --- attribution: which patches changed a definition --------------------------
declare -A attr_cache
# git_grep REV ERE PATHSPEC...: "FILE:LINE" of each line of the tree at
# REV matching ERE; nothing when none does (git grep's status 1).
git_grep() {
	local rev=$1 re=$2 rc=0 hits
	shift 2
	hits=$(git -C "$tree" grep -n -E -e "$re" "$rev" -- "$@") || rc=$?
	[ "$rc" -le 1 ] || die "git grep failed in $tree (status $rc)"
	[ -z "$hits" ] || sed "s|^$rev:||" <<<"$hits" | cut -d: -f1,2
}
# def_range FILE LINE REV: "START END" of the definition at LINE of FILE
# at REV: to the brace that closes it when it opens one, from the brace
# that opens it when it closes one ("} pg_data_t;"), else LINE alone.
def_range() {
	local text
	text=$(git -C "$tree" show "$3:$1") || die "git show $3:$1 failed in $tree"
	awk -v at="$2" '
	{ l[NR] = $0 }
	END {
		s = at; e = at
		if (l[at] ~ /\{/ && l[at] !~ /\}[^{]*;/) {
			d = 0
			for (i = at; i <= NR; i++) {
				t = l[i]; d += gsub(/\{/, "{", t); d -= gsub(/\}/, "}", t)
				if (d <= 0) { e = i; break }
			}
		} else if (l[at] ~ /^\}/) {
			d = 0
			for (i = at; i >= 1; i--) {
				t = l[i]; d += gsub(/\}/, "}", t); d -= gsub(/\{/, "{", t)
				if (d <= 0) { s = i; break }
			}
		}
		print s, e
	}' <<<"$text"
}
# find_def REV KIND NAME [FILE]: "FILE:LINE" of each definition of the
# type (or enumerator) in the tree at REV; with FILE (a base name, as
# abidiff gives it), only those in a file of that name when there are.
find_def() {
	local re hits
	case $2 in
	struct|union|enum) re="^[[:space:]]*(typedef[[:space:]]+)?$2[[:space:]]+$3[[:space:]]*\\{" ;;
	typedef) re="^(typedef[[:space:]].*[^A-Za-z0-9_]$3[[:space:]]*(\\[.*\\])?;|\\}[[:space:]]*$3[[:space:]]*;)" ;;
	enumerator) re="^[[:space:]]+$3[[:space:]]*(=[^,]*)?,?([[:space:]].*)?\$" ;;
	*) return 0 ;;
	esac
	hits=$(git_grep "$1" "$re" '*.h')
	[ -n "$hits" ] || hits=$(git_grep "$1" "$re" '*.c')
	if [ -n "${4:-}" ] && grep -q "\\(^\\|/\\)$4:" <<<"$hits"; then
		grep "\\(^\\|/\\)$4:" <<<"$hits"
	elif [ -n "$hits" ]; then
		echo "$hits"
	fi
}
# enclosing_enum REV FILE LINE: the line opening the enum that holds the
# enumerator at LINE, or nothing.
enclosing_enum() {
	git -C "$tree" show "$1:$2" | awk -v at="$3" '
	NR < at && /^[[:space:]]*(typedef[[:space:]]+)?enum[^;]*\{/ { s = NR }
	NR < at && /(^\}|;[[:space:]]*(\/\*.*)?$)/ { s = "" }
	NR == at { if (s != "") print s; exit }'
}
# commits_patches: the series names of the commits (40-hex lines of
# "commit:HASH") on stdin.
commits_patches() {
	sed -n 's/^commit://p' | sort -u | while read -r c; do echo "${patch_of[$c]:-?}"; done
}
# attribute KIND NAME [TU|FILE]: sets ATTR to the patches behind a change
# of the type, comma-separated, "-" when none is found.  KIND "symbol":
# of the symbol's export line, and of its definition in TU.c (the file
# genksyms computed its CRC in).  Cached: call it in this shell.
attribute() {
	local key="$1 $2 ${3:-}" defs f l s e r
	if [ -n "${attr_cache[$key]+x}" ]; then ATTR=${attr_cache[$key]}; return; fi
	ATTR=$(
		if [ "$1" = symbol ]; then
			git -C "$tree" log --format='commit:%H' -G"EXPORT_SYMBOL(_GPL)?\\($2\\)" "$brev..$trev"
			f=${3:-}.c
			if [ -n "${3:-}" ] && git -C "$tree" cat-file -e "$trev:$f" 2>/dev/null; then
				l=$(git_grep "$trev" "^[^[:space:]#].*(^|[^A-Za-z0-9_])$2[[:space:]]*(\\(|\\[|=|;)" "$f" | sed -n 1p)
				if [ -n "$l" ]; then
					l=${l#*:}
					e=$(git -C "$tree" show "$trev:$f" | awk -v at="$l" '!e && NR >= at && /[{;]/ { print NR; e = 1 }')
					git -C "$tree" log --format='commit:%H' -L"$l,${e:-$l}:$f" "$brev..$trev"
				fi
			fi
		else
			defs=$(find_def "$trev" "$1" "$2" "${3:-}")
			if [ -n "$defs" ]; then
				while IFS=: read -r f l; do
					if [ "$1" = enumerator ]; then
						l=$(enclosing_enum "$trev" "$f" "$l")
						[ -n "$l" ] || continue
					fi
					read -r s e <<<"$(def_range "$f" "$l" "$trev")"
					git -C "$tree" log --format='commit:%H' -L"$s,$e:$f" "$brev..$trev"
				done <<<"$defs"
			else
				# Gone in the stack: the patches that removed its definition.
				defs=$(find_def "$brev" "$1" "$2" "${3:-}")
				[ -z "$defs" ] || while IFS=: read -r f l; do
					r=$(git -C "$tree" show "$brev:$f" | sed -n "${l}p")
					git -C "$tree" log --format='commit:%H' -S"$r" "$brev..$trev" -- "$f"
				done <<<"$defs"
			fi
		fi | commits_patches | sort -u | paste -sd, -)
	ATTR=${ATTR:--}
	attr_cache[$key]=$ATTR
}

# attribute_key KEY [TU]: attribute for a genksyms type ("s#zone" is
# struct zone, "E#NR_KMALLOC_TYPES" an enumerator's value) or, for a key
# without "#", the symbol's own declaration in TU.c.
attribute_key() {
	case $1 in
	s\#*) attribute struct "${1#s#}" ;;
	u\#*) attribute union "${1#u#}" ;;
	e\#*) attribute enum "${1#e#}" ;;
	E\#*) attribute enumerator "${1#E#}" ;;
	t\#*) attribute typedef "${1#t#}" ;;
	*)     attribute symbol "$1" "${2:-}" ;;
	esac
}

declare -A why_types why_tu abi_changed
while IFS=$'\t' read -r s t f; do why_types[$s]=$t why_tu[$s]=$f; done <"$tmp/crcwhy.tsv"
while IFS=$'\t' read -r s t; do abi_changed[$s]=$t; done <"$tmp/abichanged.tsv"

# symbols.tsv: one line per exported symbol the stack changes.
#   change: added, removed, crc (its CRC differs), export (EXPORT_SYMBOL
#   <-> _GPL), abi (same CRC, but abidiff finds a type it reaches changed).
#   types: the genksyms types its CRC changed through (crc), or "-".
#   abidiff: what abidiff finds changed in its own type besides the CRC
#   (a function's parameter, a variable's array bounds), or "-".
{
	printf 'symbol\tchange\tmodule\tbase_crc\tstack_crc\tbase_export\tstack_export\ttypes\tpatches\tabidiff\n'
	while IFS=$'\t' read -r s bc sc be se mod; do
		types=- ATTR=-
		if [ "$bc" = - ]; then
			ch=added; attribute symbol "$s"
		elif [ "$sc" = - ]; then
			ch=removed; attribute symbol "$s"
		elif [ "$bc" != "$sc" ]; then
			ch=crc
			if [ -n "${why_types[$s]:-}" ]; then
				types=${why_types[$s]} p=
				for k in $types; do
					attribute_key "$k" "${why_tu[$s]}"
					[ "$ATTR" = - ] || p=$p,$ATTR
				done
				ATTR=$(tr ',' '\n' <<<"${p#,}" | sed '/^$/d' | sort -u | paste -sd, -)
				ATTR=${ATTR:--}
				types=${types// /,}
			fi
		elif [ "$be" != "$se" ]; then
			ch="export"; attribute symbol "$s"
		elif [ "${abi_changed[$s]:--}" != - ]; then
			ch=abi
		else
			continue
		fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$ch" "$mod" "$bc" "$sc" "$be" "$se" "$types" "$ATTR" "${abi_changed[$s]:--}"
	done <"$tmp/symvers.tsv"
} >"$tmp/out/symbols.tsv"

# types.tsv: type, location, summary, the CRC changes it is behind (the
# symbols whose genksyms types include it), patches.
{
	printf 'type\tlocation\tchange\tcrcs\tpatches\n'
	while IFS=$'\t' read -r _ name loc sum; do
		read -r kind tname <<<"$name"
		attribute "$kind" "$tname" "${loc%%:*}"
		case $kind in
		struct) k=s#$tname ;; union) k=u#$tname ;; enum) k=e#$tname ;; typedef) k=t#$tname ;; *) k= ;;
		esac
		n=$(awk -F'\t' -v k="$k" 'NR > 1 && $2 == "crc" && ("," $8 ",") ~ ("," k ",")' "$tmp/out/symbols.tsv" | wc -l)
		printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$loc" "$sum" "$n" "$ATTR"
	done <"$tmp/leaf.tsv"
} >"$tmp/out/types.tsv"

# members.tsv: type, how, member, new name, patches: each member (or
# enumerator) change abidiff lists, put on the patches that changed its
# line (for one removed: that removed it).
# member_line FILE REV START END NAME: the line of member NAME in lines
# START..END of FILE at REV, or nothing.
member_line() {
	git -C "$tree" show "$2:$1" | awk -v s="$3" -v e="$4" -v m="$5" '
	NR >= s && NR <= e {
		t = " " $0 " "
		if (t ~ ("[^A-Za-z0-9_]" m "[[:space:]]*(\\[[^]]*\\])*[[:space:]]*(:[^;]*)?[;,=]") ||
		    t ~ ("^[[:space:]]+" m "[[:space:]]*(=[^,]*)?,?[[:space:]]*(/[*].*)?$")) { print NR; exit }
	}'
}
{
	printf 'type\thow\tmember\tnew\tpatches\n'
	while IFS=$'\t' read -r _ name how m nm where; do
		read -r kind tname <<<"$name"
		p=
		if [[ $how == *removed ]]; then rev=$brev; else rev=$trev; fi
		base=-
		[ "$where" = - ] || base=${where%%:*}
		defs=$(find_def "$rev" "$kind" "$tname" "${base#-}")
		while IFS=: read -r f l; do
			[ -n "$f" ] || continue
			read -r ds de <<<"$(def_range "$f" "$l" "$rev")"
			ml=
			if [ "$where" != - ] && [ "${f##*/}" = "$base" ] && [ "$rev" = "$trev" ]; then
				ml=${where##*:}
			else
				want=$m
				[ "$nm" = - ] || [ "$rev" = "$brev" ] || want=$nm
				ml=$(member_line "$f" "$rev" "$ds" "$de" "$want")
			fi
			[ -n "$ml" ] || continue
			if [ "$rev" = "$trev" ]; then
				p=$p$'\n'$(git -C "$tree" log --format='commit:%H' -L"$ml,$ml:$f" "$brev..$trev" | commits_patches)
			else
				r=$(git -C "$tree" show "$brev:$f" | sed -n "${ml}p")
				p=$p$'\n'$(git -C "$tree" log --format='commit:%H' -S"$r" "$brev..$trev" -- "$f" | commits_patches)
			fi
		done <<<"$defs"
		p=$(sed '/^$/d' <<<"$p" | sort -u | paste -sd, -)
		printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$how" "$m" "$nm" "${p:--}"
	done <"$tmp/members.tsv"
} >"$tmp/out/members.tsv"

# keys.tsv: each genksyms type a CRC change was computed through, with the
# number of CRCs and the patches that changed its definition.
{
	printf 'key\tcrcs\tpatches\n'
	awk -F'\t' 'NR > 1 && $2 == "crc" && $8 != "-" { n = split($8, kk, ","); for (i = 1; i <= n; i++) c[kk[i]]++ }
		END { for (k in c) print c[k] "\t" k }' "$tmp/out/symbols.tsv" | sort -k1,1nr -k2,2 |
	while IFS=$'\t' read -r n k; do
		case $k in
		*\#*) attribute_key "$k" ;;
		*)    ATTR="(the symbol's own declaration)" ;;
		esac
		printf '%s\t%s\t%s\n' "$k" "$n" "$ATTR"
	done
} >"$tmp/out/keys.tsv"

# --- the user's symbols -------------------------------------------------------
# A symbol whose CRC is the same but whose own type abidiff finds changed
# (a variable of struct task_struct, say) breaks, unless what changed is
# in place only: the XML files have no type whose size or member offsets
# changed, every type abidiff's leaf report lists has its changes in
# inplace.tsv, and abidiff says of the symbol's own type only that its
# size has not changed.  A module built on the base then finds every
# member where it was; the members taken in place are the stack's.
in_place_only=0
if [ "$(($(wc -l <"$tmp/out/layout.tsv") - 1))" -eq 0 ] &&
   ! awk -F'\t' 'FNR == 1 { f++; next }
		f == 1 { t = $1; sub(/::.*/, "", t); inplace[t] = 1; next }
		{ t = $1; sub(/^(struct|union|enum) /, "", t); if (!(t in inplace)) bad = 1 }
		END { exit !bad }' "$tmp/out/inplace.tsv" "$tmp/out/types.tsv"; then
	in_place_only=1
fi
breaks=0
if [ -n "$slist" ]; then
	{
		printf 'symbol\tverdict\twhy\n'
		while read -r s; do
			line=$(awk -F'\t' -v s="$s" 'NR > 1 && $1 == s' "$tmp/out/symbols.tsv")
			if [ -z "$line" ]; then
				printf '%s\tok\tunchanged\n' "$s"; continue
			fi
			IFS=$'\t' read -r _ ch _ bc sc be se types p abi <<<"$line"
			case $ch in
			added)	 printf '%s\tnew\tonly the stack exports it (%s)\n' "$s" "$p" ;;
			removed) printf '%s\tbreaks\tthe stack no longer exports it (%s)\n' "$s" "$p" ;;
			crc)	 printf '%s\tbreaks\tCRC %s -> %s: a module built on the base is refused (types %s; %s)%s\n' \
					"$s" "$bc" "$sc" "$types" "$p" "$([ "$abi" = - ] || echo "; abidiff: $abi")" ;;
			export)	 printf '%s\tbreaks\texport %s -> %s (%s)\n' "$s" "$be" "$se" "$p" ;;
			abi)
				if [ "$in_place_only" = 1 ] &&
				   [[ $abi =~ ^(type\ of\ variable\ changed:\ )?type\ size\ hasn\'t\ changed$ ]]; then
					printf '%s\tok\tsame CRC; abidiff finds its type changed (%s), in place only: no type changed size or offsets (layout.tsv), each one abidiff lists is in inplace.tsv\n' "$s" "$abi"
				else
					printf '%s\tbreaks\tsame CRC, but abidiff finds its type changed: %s\n' "$s" "$abi"
				fi ;;
			esac
		done <"$tmp/user"
	} >"$tmp/out/symbol-list.tsv"
	breaks=$(awk -F'\t' '$2 == "breaks"' "$tmp/out/symbol-list.tsv" | wc -l)
fi

# --- report.md ----------------------------------------------------------------
count() { awk -F'\t' -v c="$1" 'NR > 1 && $2 == c' "$tmp/out/symbols.tsv" | wc -l; }
nbase=$(awk -F'\t' '$2 != "-"' "$tmp/symvers.tsv" | wc -l)
nstack=$(awk -F'\t' '$3 != "-"' "$tmp/symvers.tsv" | wc -l)
nadd=$(count added) nrem=$(count removed) ncrc=$(count crc) nexp=$(count export) nabi=$(count abi)
ntypes=$(($(wc -l <"$tmp/out/types.tsv") - 1))
nlayout=$(($(wc -l <"$tmp/out/layout.tsv") - 1))
{
	echo "# kABI report"
	echo
	echo "Base: \`$brev\` ($bobj), stack: \`$trev\` ($sobj), ${#patches[@]} patches."
	[ -z "${KABI_HEADER:-}" ] || { echo; echo "$KABI_HEADER"; }
	echo
	echo "## Summary"
	echo
	echo "| | count |"
	echo "| --- | ---: |"
	echo "| symbols the base exports | $nbase |"
	echo "| symbols the stack exports | $nstack |"
	echo "| exports added | $nadd |"
	echo "| exports removed | $nrem |"
	echo "| CRC changed (modversions refuses a module built on the base) | $ncrc |"
	echo "| export type changed (GPL) | $nexp |"
	echo "| same CRC, a type they reach changed (abidiff) | $nabi |"
	echo "| types changed (abidiff leaf changes) | $ntypes |"
	echo "| types whose size or member offsets changed (the two XML files, type by type) | $nlayout |"
	echo "| members replaced in place by a union of the same size (ANDROID_KABI_USE, _ANDROID_KABI_REPLACE) | $(awk -F'\t' 'NR > 1 && $2 != "renamed"' "$tmp/out/inplace.tsv" | wc -l) |"
	echo "| members renamed in place | $(awk -F'\t' 'NR > 1 && $2 == "renamed"' "$tmp/out/inplace.tsv" | wc -l) |"
	echo
	if [ "$have_symtypes" = 0 ]; then
		echo "No \*.symtypes in both build folders (KBUILD_SYMTYPES=1): CRC changes are not put on patches."
		echo
	fi
	echo "## By patch"
	echo
	echo "Each change under the patches that made it (a type: the patches that changed its"
	echo "definition; a CRC: the patches of the types it was computed from, so one CRC"
	echo "can count under several)."
	for p in "${patches[@]}"; do
		p=${p%.patch}
		t=$(awk -F'\t' -v p="$p" 'NR > 1 && ("," $5 ",") ~ ("," p ",")' "$tmp/out/types.tsv")
		a=$(awk -F'\t' -v p="$p" 'NR > 1 && $2 == "added" && ("," $9 ",") ~ ("," p ",") { print $1 }' "$tmp/out/symbols.tsv")
		r=$(awk -F'\t' -v p="$p" 'NR > 1 && $2 == "removed" && ("," $9 ",") ~ ("," p ",") { print $1 }' "$tmp/out/symbols.tsv")
		x=$(awk -F'\t' -v p="$p" 'NR > 1 && $2 == "export" && ("," $9 ",") ~ ("," p ",") { print $1 }' "$tmp/out/symbols.tsv")
		c=$(awk -F'\t' -v p="$p" 'NR > 1 && $2 == "crc" && ("," $9 ",") ~ ("," p ",")' "$tmp/out/symbols.tsv" | wc -l)
		[ -n "$t$a$r$x" ] || [ "$c" -gt 0 ] || continue
		echo
		echo "### $p"
		echo
		mm=$(awk -F'\t' -v p="$p" 'NR > 1 && ("," $5 ",") ~ ("," p ",")' "$tmp/out/members.tsv")
		[ -z "$mm" ] || awk -F'\t' '
			{ d = $2 == "renamed" ? $3 " renamed " $4 : $2 == "renamed, type changed" ? $3 " renamed " $4 " (and its type changed)" : $2 ~ /^enumerator/ ? $2 " " $3 : "member " $3 " " $2
			  l[$1] = l[$1] == "" ? d : l[$1] "; " d; if (!($1 in o)) o[$1] = ++n; t[n] = $1 }
			END { for (i = 1; i <= n; i++) printf "- changes `%s`: %s\n", t[i], l[t[i]] }' <<<"$mm"
		[ -z "$t" ] || while IFS=$'\t' read -r name _ sum n _; do
			awk -F'\t' -v t="$name" '$1 == t { f = 1 } END { exit !f }' <<<"$mm" && continue
			echo "- changes lines of \`$name\`'s definition, none of the member changes abidiff lists"
		done <<<"$t"
		[ -z "$a" ] || echo "- exports added: $(sed 's/.*/`&`/' <<<"$a" | paste -sd' ' -)"
		[ -z "$r" ] || echo "- exports removed: $(sed 's/.*/`&`/' <<<"$r" | paste -sd' ' -)"
		[ -z "$x" ] || echo "- export type changed: $(sed 's/.*/`&`/' <<<"$x" | paste -sd' ' -)"
		[ "$c" -eq 0 ] || echo "- $c exported symbols' CRCs change through its types"
	done
	u=$(awk -F'\t' 'NR > 1 && $5 == "-"' "$tmp/out/types.tsv")
	uc=$(awk -F'\t' 'NR > 1 && $2 == "crc" && $9 == "-"' "$tmp/out/symbols.tsv" | wc -l)
	if [ -n "$u" ] || [ "$uc" -gt 0 ]; then
		echo
		echo "### Not put on a patch"
		echo
		[ -z "$u" ] || while IFS=$'\t' read -r name loc sum _; do
			echo "- \`$name\` ($loc): $sum"
		done <<<"$u"
		[ "$uc" -eq 0 ] || echo "- $uc CRC changes whose types were not found (symbols.tsv, patches \"-\")"
	fi
	echo
	echo "## Types (abidiff)"
	echo
	echo "| type | change | CRCs through it | patches |"
	echo "| --- | --- | ---: | --- |"
	awk -F'\t' 'NR > 1 { printf "| `%s` | %s | %s | %s |\n", $1, $3, $4, $5 }' "$tmp/out/types.tsv"
	echo
	echo "## Layout (abidw's XML, type by type)"
	echo
	echo "The $(wc -l <"$tmp/stack.layout") named structs and unions of the stack's XML$([ -z "$slist" ] || echo " (those the symbols of $(basename "$slist") reach)"),"
	echo "each against the base's of the same name: its size in bits and the"
	echo "offsets of its members."
	echo
	if [ "$nlayout" -eq 0 ]; then
		echo "None changed size or member offsets."
	else
		echo "| type | size (bits) | offsets |"
		echo "| --- | --- | --- |"
		awk -F'\t' 'NR > 1 { printf "| `%s` | %s -> %s | %s -> %s |\n", $1, $2, $3, $4, $5 }' "$tmp/out/layout.tsv"
	fi
	echo
	echo "## Members changed in place"
	echo
	echo "What the leaf report leaves out as harmless: a member of a type that kept"
	echo "its layout, changed at the same offset: a reserve taken by ANDROID_KABI_USE,"
	echo "a member kept in a union with its replacement (_ANDROID_KABI_REPLACE), a"
	echo "member renamed."
	echo
	echo "| member | how | now | offset (bits) |"
	echo "| --- | --- | --- | ---: |"
	awk -F'\t' 'NR > 1 { printf "| `%s` | %s | `%s` | %s |\n", $1, $2, $3, $4 }' "$tmp/out/inplace.tsv"
	echo
	echo "## Types behind the CRC changes (genksyms)"
	echo
	echo "The type definitions that differ in the files exporting the symbols whose"
	echo 'CRC changed (`s#` struct, `u#` union, `e#` enum, `E#` enumerator value,'
	echo '`t#` typedef), as genksyms sees them.'
	echo
	echo "| type | CRCs through it | patches |"
	echo "| --- | ---: | --- |"
	awk -F'\t' 'NR > 1 { printf "| `%s` | %s | %s |\n", $1, $2, $3 }' "$tmp/out/keys.tsv"
	echo
	echo "## Symbols"
	echo
	for ch in added removed export; do
		l=$(awk -F'\t' -v c="$ch" 'NR > 1 && $2 == c { printf "`%s` (%s)\n", $1, $9 }' "$tmp/out/symbols.tsv")
		[ -z "$l" ] || echo "- $ch: $(paste -sd' ' - <<<"$l")"
	done
	echo "- CRC changed: $ncrc symbols, each with its types and patches in symbols.tsv"
	if [ -n "$slist" ]; then
		echo
		echo "## Your symbols ($(basename "$slist"))"
		echo
		echo "$(wc -l <"$tmp/user") listed, $breaks break."
		echo
		echo "| symbol | verdict | why |"
		echo "| --- | --- | --- |"
		awk -F'\t' 'NR > 1 { printf "| `%s` | %s | %s |\n", $1, $2, $3 }' "$tmp/out/symbol-list.tsv"
	fi
} >"$tmp/out/report.md"

rm -rf "$out.old"
[ ! -e "$out" ] || mv "$out" "$out.old"
mv "$tmp/out" "$out"
rm -rf "$out.old"
msg "$out/report.md: $nadd added, $nrem removed, $ncrc CRCs changed, $nexp export types changed, $ntypes types changed, $nlayout layouts changed"
if [ -n "$slist" ]; then
	if [ "$breaks" -gt 0 ]; then
		awk -F'\t' '$2 == "breaks" { print "  " $1 ": " $3 }' "$out/symbol-list.tsv" >&2
		msg "$breaks of the $(wc -l <"$tmp/user") symbols of $slist break (see $out/symbol-list.tsv)"
		exit 3
	fi
	msg "none of the $(wc -l <"$tmp/user") symbols of $slist breaks"
fi
