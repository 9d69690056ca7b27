# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Host tests of the README's and the manuals' promises (README.md,
# Documentation/).  Sourced by ci/tests/host.sh, which lists the cases;
# never run.

# docs_check TOP: what README.md and Documentation/*.md name, checked
# against the project at TOP.  Names are taken from code spans and code
# blocks (indented or fenced; a "#" comment in a block is left out),
# and from links anywhere:
#   - `make TARGET ...`: each TARGET is a target `make help` lists
#     ("  make TARGET ..." lines), or the kernel tree's own
#     `make kernelversion`, which a KERNEL_TREE must answer;
#   - VAR=value, on a make command line, before one, or alone in a span:
#     VAR is listed under `make help`'s "Variables in effect", or is an
#     environment variable of the ci/ scripts, which the docs name
#     MM510_* (Documentation/troubleshooting.md says so), or is the
#     kernel's own (CONFIG_*, KBUILD_*, ARCH, CROSS_COMPILE, LLVM,
#     LLVM_IAS).  A
#     VAR=value before another command (`LAVA_URL=... ci/lava.sh`,
#     `CONFIG_ONLY=1 ci/build.sh`) is that program's, and not checked;
#   - SCENARIO=NAME, and the first column of a table headed "scenario"
#     (names separated by commas): NAME is a scenario of
#     configs/scenarios (a placeholder, <it> or ..., is not a name);
#   - [text](path#anchor), not a URL: path, relative to the file, is a
#     file or folder of the project, and an anchor into a .md file is
#     one of its headings (GitHub's slug: lower case, punctuation but
#     "-" and "_" dropped, spaces as "-").
# Prints each broken promise as FILE:LINE: what, and fails if any.
docs_check() {
	local top=$1 help targets vars scenarios kind f l v where bad=0 r
	local -A heading=()
	help=$(cd "$top" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory help) ||
		{ echo "make help failed"; return 1; }
	targets=" kernelversion $(awk '$1 == "make" && $2 ~ /^[a-z][a-z0-9-]*$/ { printf "%s ", $2 }' <<<"$help")"
	vars=" $(sed -n '/^Variables in effect:/,$p' <<<"$help" |
		grep -oE '\b[A-Z][A-Z0-9_]*=' | tr -d = | tr '\n' ' ')"
	scenarios=" $(awk '!/^#/ && NF >= 5 { printf "%s ", $1 }' "$top/configs/scenarios")"
	(cd "$top" && ls README.md Documentation/*.md) >/dev/null || return 1
	r=$(cd "$top" && awk '
	function slug(h) {
		h = tolower(h)
		gsub(/[^a-z0-9 _-]/, "", h)
		gsub(/ /, "-", h)
		return h
	}
	function emit(kind, v, where) { printf "%s\t%s\t%s\t%s\t%s\n", kind, at_file, at_line, v, where }
	# One command line (of a code block, or a code span).
	function command(t,    cmds, nc, c, w, n, i, j, name) {
		gsub(/"[^"]*"/, "Q", t)
		nc = split(t, cmds, /&&|\|\||;|\|/)
		for (c = 1; c <= nc; c++) {
			n = split(cmds[c], w, /[ \t]+/)
			i = 1
			while (i <= n && w[i] == "") i++
			j = i
			while (j <= n && w[j] ~ /^[A-Z][A-Z0-9_]*=/) j++
			if (j <= n && w[j] != "make")
				continue	# the environment of another program
			for (; i < j; i++)
				var(w[i], j > n ? "alone" : "before make")
			for (j++; j <= n; j++) {
				if (w[j] ~ /^[A-Z][A-Z0-9_]*=/)
					var(w[j], "on the make command line")
				else if (w[j] ~ /^[a-z][a-z0-9-]*$/)
					emit("target", w[j])
			}
		}
	}
	function var(a, where,    name, val) {
		name = a; sub(/=.*/, "", name)
		val = a; sub(/^[^=]*=/, "", val)
		emit("var", name, where)
		if (name == "SCENARIO")
			emit("scenario", val, "SCENARIO=")
	}
	# Code spans and links of prose (a paragraph, a table row, a heading).
	function prose(t,    s) {
		s = t
		while (match(s, /`[^`]+`/)) {
			command(substr(s, RSTART + 1, RLENGTH - 2))
			s = substr(s, RSTART + RLENGTH)
		}
		s = t
		while (match(s, /\]\([^) ]+\)/)) {
			emit("link", substr(s, RSTART + 2, RLENGTH - 3))
			s = substr(s, RSTART + RLENGTH)
		}
	}
	function flush() {
		if (para != "") { at_file = pfile; at_line = pline; prose(para) }
		para = ""
	}
	FNR == 1 { flush(); fence = 0; code = 0; blank = 1; scen = 0; cont = "" }
	{ at_file = FILENAME; at_line = FNR }
	/^```/ { flush(); fence = !fence; next }
	fence || (/^(    |\t)/ && (blank || code)) {
		flush()
		code = 1; blank = 0
		l = $0
		sub(/^[ \t]+/, "", l)
		if (l ~ /^#/) next
		sub(/[ \t]+#.*$/, "", l)
		if (l ~ /\\$/) { cont = cont substr(l, 1, length(l) - 1) " "; next }
		command(cont l)
		cont = ""
		next
	}
	{ code = 0 }
	/^[ \t]*$/ { flush(); blank = 1; scen = 0; next }
	{ blank = 0 }
	/^#+ / {
		flush()
		h = $0; sub(/^#+ /, "", h)
		emit("heading", slug(h))
		prose(h)
		next
	}
	/^\|/ {
		flush()
		n = split($0, cell, "|")
		first = cell[2]; gsub(/[` ]/, "", first)
		if (first == "scenario") scen = 1
		else if (scen && first !~ /^-+$/) {
			m = split(first, names, ",")
			for (k = 1; k <= m; k++) emit("scenario", names[k], "scenario table")
		}
		prose($0)
		next
	}
	/^[ \t]*([-*]|[0-9]+\.) / { flush() }
	{
		scen = 0
		if (para == "") { pfile = FILENAME; pline = FNR }
		para = para " " $0
	}
	END { flush() }
	' README.md Documentation/*.md) || return 1
	while IFS=$'\t' read -r kind f l v where; do
		[ "$kind" = heading ] && heading[$f#$v]=1
	done <<<"$r"
	while IFS=$'\t' read -r kind f l v where; do
		case $kind in
		target)
			[[ "$targets" == *" $v "* ]] ||
				{ echo "$f:$l: make $v: no such target in make help"; bad=1; } ;;
		var)
			case $v in MM510_*|CONFIG_*|KBUILD_*|ARCH|CROSS_COMPILE|LLVM|LLVM_IAS) continue ;; esac
			[[ "$vars" == *" $v "* ]] ||
				{ echo "$f:$l: $v= ($where): not a variable make help lists"; bad=1; } ;;
		scenario)
			[[ "$v" =~ ^[a-z0-9][a-z0-9-]*$ ]] || continue
			[[ "$scenarios" == *" $v "* ]] ||
				{ echo "$f:$l: scenario $v ($where): not in configs/scenarios"; bad=1; } ;;
		link)
			case $v in http://*|https://*|mailto:*) continue ;; esac
			local path=${v%%#*} anchor='' to
			[[ "$v" == *"#"* ]] && anchor=${v#*#}
			if [ -z "$path" ]; then
				to=$f
			else
				to=$(realpath -m --relative-to="$top" "$top/$(dirname "$f")/$path")
			fi
			[ -e "$top/$to" ] ||
				{ echo "$f:$l: link $v: no file $to"; bad=1; continue; }
			[ -z "$anchor" ] || [[ "$to" != *.md ]] || [ -n "${heading[$to#$anchor]:-}" ] ||
				{ echo "$f:$l: link $v: no heading #$anchor in $to"; bad=1; }
			;;
		esac
	done <<<"$r"
	[ "$bad" -eq 0 ]
}

# The README's and the manuals' promises hold (docs_check), and a broken
# one fails: a project copy whose README gains a link to a manual that is
# not there, a make target, a scenario and a variable that do not exist
# must fail, each named.  Checked once failing on the real README too:
# with the link to Documentation/series.md spelt Documentation/serie.md
# and `make build SCENARIO=debian` spelt `make bulid`, this case failed,
# naming README.md's line of each.
t_docs_promises() {
	local p out
	out=$(docs_check "$TOP") || {
		echo "$out"
		echo "README.md or Documentation/ break $(grep -c . <<<"$out") promise(s), first $(head -n 1 <<<"$out")"
		return 1
	}
	p=$(project_copy)
	printf '%s\n' '' 'See [a manual](Documentation/no-such-manual.md) and' \
		'[a section](Documentation/testing.md#no-such-section), then run' '' \
		'    make no-such-target SCENARIO=no-such-scenario NO_SUCH_VARIABLE=1' >>"$p/README.md"
	out=$(docs_check "$p") && { echo "$out"; echo "the broken promises passed"; return 1; }
	echo "$out"
	grep -qF 'link Documentation/no-such-manual.md: no file Documentation/no-such-manual.md' <<<"$out" &&
		grep -qF 'link Documentation/testing.md#no-such-section: no heading #no-such-section' <<<"$out" &&
		grep -qF 'make no-such-target: no such target in make help' <<<"$out" &&
		grep -qF 'scenario no-such-scenario (SCENARIO=): not in configs/scenarios' <<<"$out" &&
		grep -qF 'NO_SUCH_VARIABLE= (on the make command line): not a variable make help lists' <<<"$out" || {
		echo "a broken promise was not named"; return 1; }
}

# The figures README.md and the manuals quote from results/ are their
# result files' (ci/figures.sh check, each marked <!--fig FILE KEY-->).
# A copy whose README quotes its first marked figure otherwise, as a
# figure copied by hand and left stale would, fails, naming the line;
# make figures (ci/figures.sh update) puts the result's value back.
t_figures() {
	local p line
	"$TOP/ci/figures.sh" check || return 1
	p=$(project_copy)
	line=$(grep -n -m1 '<!--fig ' "$p/README.md" | cut -d: -f1)
	[ -n "$line" ] || { echo "README.md quotes no figure from results/"; return 1; }
	sed -i "${line}s|\(<!--fig [^>]*-->\)[^<]*<!--/fig-->|\1999999<!--/fig-->|" "$p/README.md"
	expect_fail "README.md:$line: quotes '999999'" "$p/ci/figures.sh" check || return 1
	"$p/ci/figures.sh" update >/dev/null
	"$p/ci/figures.sh" check || return 1
	cmp -s "$p/README.md" "$TOP/README.md" || { echo "make figures did not put README.md back"; return 1; }
	# ml: finds a row under its heading; re: the first row of that name.
	mkdir -p "$p/results/t"
	printf '### tcg\n\n| x | 1 (0..2) |\n\n### icount\n\n| x | 7 |\n' >"$p/results/t/r.md"
	printf '%s\n' 'x <!--fig results/t/r.md ml:^###\sicount$.*?^\|\sx\s\|\s(\S+)\s\|-->7<!--/fig-->' \
		'x <!--fig results/t/r.md re:^\|\sx\s\|\s(\S+)-->1<!--/fig-->' >"$p/Documentation/t.md"
	(cd "$p" && ci/figures.sh check Documentation/t.md) || return 1
	sed -i 's/###\\sicount/###\\sirqsoff/' "$p/Documentation/t.md"
	expect_fail "does not match" "$p/ci/figures.sh" check "$p/Documentation/t.md"
}
