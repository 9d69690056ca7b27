#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# figures.sh check|update [FILE.md...]: the figures the README and the
# manuals quote from a result committed under results/.
#
# A quoted figure is marked where it stands, in an HTML comment that a
# rendered page does not show:
#
#   <!--fig results/DIR/FILE KEY-->VALUE<!--/fig-->
#
# KEY says where in FILE the value is:
#   .a.b        a jq filter, for a .json file (".passed", ".seconds / 60
#               | round"; no spaces in it: the filter ends at the first);
#   re:REGEX    for a text file: the first capture group of the first
#               line that matches the Perl REGEX (no spaces: \s);
#   ml:REGEX    the same over the whole file at once, for a value that
#               only a line before it tells apart (a table under its
#               heading): ^ and $ match at each line, . also a newline,
#               so ".*?" skips to the first match after an anchor;
# and an optional third word, "min", turns the seconds it finds into
# whole minutes (rounded).  FILE is relative to the project.
#
# check: every marked figure is the value its result gives; prints each
# one that is not ("FILE:LINE: quotes X, RESULT KEY gives Y"), or a
# missing result, and exits 1.  update: writes each value into the
# documents (make figures), so that a re-measured result changes every
# document that quotes it.  Without FILE.md arguments: README.md and
# Documentation/*.md.

. "$(dirname "$0")/lib.sh"

need jq jq
need perl perl
mode=${1:-}
case $mode in
check|update) shift ;;
*) die "usage: figures.sh check|update [FILE.md...]" ;;
esac
cd "$TOP" || exit 1
if [ $# -eq 0 ]; then
	set -- README.md Documentation/*.md
fi

# value FILE KEY [min]: the figure FILE gives for KEY, or an error
# message on stderr and status 1.
value() {
	local file=$1 key=$2 unit=${3:-} v
	[ -f "$file" ] || { echo "no result file $file" >&2; return 1; }
	case $key in
	.*)	v=$(jq -er "$key" "$file" 2>/dev/null) ||
			{ echo "$file has no $key" >&2; return 1; } ;;
	re:*)	v=$(RE=${key#re:} perl -ne 'if (/$ENV{RE}/) { print "$1\n"; exit }' "$file")
		[ -n "$v" ] || { echo "no line of $file matches ${key#re:}" >&2; return 1; } ;;
	ml:*)	v=$(RE=${key#ml:} perl -0777 -ne 'if (/$ENV{RE}/ms) { print "$1\n" }' "$file")
		[ -n "$v" ] || { echo "$file does not match ${key#ml:}" >&2; return 1; } ;;
	*)	echo "unknown key '$key' (a jq filter .x, re:REGEX or ml:REGEX)" >&2; return 1 ;;
	esac
	case $unit in
	'')	;;
	min)	[[ $v =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
			{ echo "$file $key: '$v' is not a number of seconds" >&2; return 1; }
		v=$(awk -v s="$v" 'BEGIN { printf "%d", s / 60 + 0.5 }') ;;
	*)	echo "unknown unit '$unit' (min)" >&2; return 1 ;;
	esac
	printf '%s\n' "$v"
}

re='<!--fig ([^ >]+) ([^ >]+)( min)?-->([^<]*)<!--/fig-->'
bad=0 n=0
for doc in "$@"; do
	[ -f "$doc" ] || die "$doc: no such document"
	grep -q '<!--fig ' "$doc" || continue
	out=$(mktemp)
	lineno=0
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		rest=$line new=
		while [[ $rest =~ $re ]]; do
			n=$((n + 1))
			m=${BASH_REMATCH[0]} file=${BASH_REMATCH[1]} key=${BASH_REMATCH[2]}
			unit=${BASH_REMATCH[3]# } quoted=${BASH_REMATCH[4]}
			new+=${rest%%"$m"*}
			rest=${rest#*"$m"}
			if v=$(value "$file" "$key" "$unit" 2>"$out.err"); then
				if [ "$v" != "$quoted" ] && [ "$mode" = check ]; then
					echo "$doc:$lineno: quotes '$quoted', $file $key${unit:+ $unit} gives '$v' (make figures)"
					bad=1
				fi
			else
				echo "$doc:$lineno: $(cat "$out.err")"
				bad=1
				v=$quoted
			fi
			new+="<!--fig $file $key${unit:+ $unit}-->$v<!--/fig-->"
		done
		printf '%s\n' "$new$rest" >>"$out"
	done <"$doc"
	if [ "$mode" = update ] && ! cmp -s "$out" "$doc"; then
		cat "$out" >"$doc"
		echo "figures.sh: updated $doc"
	fi
	rm -f "$out" "$out.err"
done
[ "$bad" = 0 ] || exit 1
echo "$n figures, each the value of its result file"
