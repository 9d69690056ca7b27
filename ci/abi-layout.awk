# SPDX-License-Identifier: GPL-2.0
#
# abi-layout.awk: libabigail's XML (abidw) of a kernel, one line per
# named struct or union, for ci/kabi-report.sh to compare two kernels
# type by type.  Tab-separated: "struct NAME" or "union NAME", its size
# in bits, its members' offsets in bits (sorted, comma-separated), and
# its members in order, ";"-separated, as OFFSET=NAME; an anonymous
# member (the union of ANDROID_KABI_USE, _ANDROID_KABI_REPLACE) as
# OFFSET={the names it holds, anonymous structs and unions in it
# included}.  Declarations without a body are left out; a type the XML
# has twice gives two lines (sort -u makes identical ones one).
function attr(s, a,   i, r) {
	i = index(s, " " a "='"); if (!i) return ""
	r = substr(s, i + length(a) + 3)
	return substr(r, 1, index(r, "'") - 1)
}
function flat(id, depth,   i, s, n) {	# the names an anonymous type holds
	if (depth > 8) return ""
	s = ""
	for (i = 1; i <= nm[id]; i++) {
		n = mname[id, i]
		if (n == "") n = flat(mtype[id, i], depth + 1)
		if (n != "") s = s == "" ? n : s ", " n
	}
	return s
}
/<(class|union)-decl / {
	if ($0 ~ /is-declaration-only='yes'/ || $0 ~ /\/>[[:space:]]*$/) next
	id = attr($0, "id")
	st[++sp] = id
	kind[id] = $0 ~ /<union-decl/ ? "union" : "struct"
	tname[id] = attr($0, "name"); tsize[id] = attr($0, "size-in-bits")
	anon[id] = $0 ~ /is-anonymous='yes'/
	order[++nt] = id
	next
}
/<\/(class|union)-decl>/ { sp--; next }
sp > 0 && /<data-member / { off = attr($0, "layout-offset-in-bits"); if (off == "") off = 0; next }
sp > 0 && /<var-decl / {
	id = st[sp]; i = ++nm[id]
	mname[id, i] = attr($0, "name"); mtype[id, i] = attr($0, "type-id"); moff[id, i] = off
	next
}
END {
	for (t = 1; t <= nt; t++) {
		id = order[t]
		if (anon[id] || tname[id] == "") continue
		offs = ""; mem = ""
		for (i = 1; i <= nm[id]; i++) {
			o[i] = moff[id, i] + 0
			n = mname[id, i] == "" ? "{" flat(mtype[id, i], 0) "}" : mname[id, i]
			mem = mem (i > 1 ? ";" : "") moff[id, i] "=" n
		}
		# offsets sorted numerically (insertion sort: few members)
		for (i = 2; i <= nm[id]; i++) { v = o[i]; for (j = i - 1; j >= 1 && o[j] > v; j--) o[j + 1] = o[j]; o[j + 1] = v }
		for (i = 1; i <= nm[id]; i++) offs = offs (i > 1 ? "," : "") o[i]
		printf "%s %s\t%s\t%s\t%s\n", kind[id], tname[id], tsize[id], offs, mem
	}
}
