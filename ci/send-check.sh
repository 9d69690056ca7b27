#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# send-check.sh DIR N SENDER: check the mails `make send` wrote to DIR
# as a 5.10 backport posting: a cover letter [PATCH 5.10 00/N] and N
# patches [PATCH 5.10 nn/N], every patch a reply to the cover
# (In-Reply-To and References); every mail To: exactly the addresses of
# SEND_TO (environment) and Cc: linux-mm@kvack.org; each patch signed
# off by SENDER ("Name <email>") exactly once, with no other
# Signed-off-by.  A patch with a Git-commit: opens with "commit <id>
# upstream.", <id> the full id upstream.tsv has for it, and is Cc'd to
# the upstream author of it and of each Also-contains: (upstream.tsv's
# authors); a Patch-mainline: Never patch has no such line.  The cover
# letter is Cc'd to every author.  Prints the problems and fails on the
# first kind.

. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || die "usage: SEND_TO=ADDRESSES send-check.sh DIR N 'Name <email>'"
dir=$1 total=$2 sender=$3
[ -n "${SEND_TO:-}" ] || die "no SEND_TO: the addresses the series was written to"
upstream_load >&2 || die "upstream.tsv is missing or malformed (the lines above)"
list_cc=linux-mm@kvack.org
ver=${BASE_VERSION%.*}
mapfile -t mails < <(find "$dir" -maxdepth 1 -type f | sort)
problems=()

# field MAIL NAME: an unfolded header field of a mail.
field() {
	sed -n '1,/^$/p' "$1" | sed -e ':a' -e 'N' -e '$!ba' -e 's/\n[ \t]\+/ /g' |
		sed -n "s/^$2: *//Ip" | head -n 1
}

# addrs: the mail addresses in a list of them on stdin, lower case,
# sorted, one a line (names dropped).
addrs() {
	grep -oE '[^<>[:space:],"]+@[^<>[:space:],"]+' | tr '[:upper:]' '[:lower:]' | sort -u
}

# message MAIL: the commit message a patch mail carries: its body up to
# the "---" line, less an in-body From:/Date: block (b4 writes one when
# the author is not the sender).
message() {
	sed '1,/^$/d' "$1" | awk 'NR == 1 && /^(From|Date): / { h = 1 }
		h { if (/^$/) h = 0; next } /^---$/ { d = 1 } !d { print }'
}

want_to=$(addrs <<<"${SEND_TO//,/ }")
[ ${#mails[@]} -eq $((total + 1)) ] ||
	problems+=("${#mails[@]} mails in $dir, expected $((total + 1)) (cover + $total patches)")

# The numbers are zero-padded to the width of N, as b4 writes them.
w=${#total}
cover_re="^\[PATCH ${ver//./\\.} 0{$w}/$total\] "
patch_re="^\[PATCH ${ver//./\\.} ([0-9]{$w})/$total\] "
cover="" cover_id=""
for m in "${mails[@]}"; do
	subj=$(field "$m" Subject)
	if [[ $subj =~ $cover_re ]]; then
		cover=$m
		cover_id=$(field "$m" Message-Id)
	fi
done
[ -n "$cover" ] || problems+=("no cover letter [PATCH $ver $(printf '%0*d' "$w" 0)/$total]")

seen=() all_authors=()
for m in "${mails[@]}"; do
	[ "$m" = "$cover" ] && continue
	subj=$(field "$m" Subject)
	if [[ $subj =~ $patch_re ]]; then
		seen+=("$((10#${BASH_REMATCH[1]}))")
	else
		problems+=("${m##*/}: subject '$subj' is not [PATCH $ver nn/$total]")
	fi
	[ -n "$cover_id" ] && [ "$(field "$m" In-Reply-To)" = "$cover_id" ] ||
		problems+=("${m##*/}: In-Reply-To is not the cover letter")
	[ -n "$cover_id" ] && grep -qF -- "$cover_id" <<<"$(field "$m" References)" ||
		problems+=("${m##*/}: References does not name the cover letter")
	msg=$(message "$m")
	sobs=$(grep -i '^Signed-off-by:' <<<"$msg" || :)
	[ "$sobs" = "Signed-off-by: $sender" ] ||
		problems+=("${m##*/}: sign-offs are '${sobs//$'\n'/; }', expected only 'Signed-off-by: $sender'")

	# The stable backport's first line, and whom the patch is Cc'd to.
	first=$(head -n 1 <<<"$msg")
	pm=$(sed -n 's/^Patch-mainline: *//p' <<<"$msg" | head -n 1)
	hex=$(sed -n 's/^Git-commit: *//p' <<<"$msg" | head -n 1)
	authors=()
	if [[ $pm == Never,* ]]; then
		[[ ! $first =~ ^commit\ [0-9a-f]+\ upstream\.$ ]] ||
			problems+=("${m##*/}: a Patch-mainline: Never patch opens with '$first'")
	elif [ -n "$hex" ]; then
		if upstream_find "$hex"; then
			[ "$first" = "commit $UP_ID upstream." ] ||
				problems+=("${m##*/}: the message opens with '$first', not 'commit $UP_ID upstream.' (Git-commit: $hex)")
			authors+=("${UP_AUTHOR[$UP_ID]}")
		else
			problems+=("${m##*/}: Git-commit: $UP_WHY")
		fi
	else
		a=$(sed -n 's/^Upstream-author: *//p' <<<"$msg" | head -n 1)
		[ -z "$a" ] || authors+=("$a")
	fi
	if [[ $pm != Never,* ]]; then
		while read -r hex; do
			if upstream_find "$hex"; then
				authors+=("${UP_AUTHOR[$UP_ID]}")
			else
				problems+=("${m##*/}: Also-contains: $UP_WHY")
			fi
		done < <(sed -n 's/^Also-contains: *\([0-9a-f]*\).*/\1/p' <<<"$msg")
	fi
	cc=$(field "$m" Cc | addrs)
	for a in "${authors[@]}" "$list_cc"; do
		grep -qxF -- "$(addrs <<<"$a")" <<<"$cc" ||
			problems+=("${m##*/}: Cc: lacks $a$([ "$a" = "$list_cc" ] || echo ' (upstream author)')")
	done
	all_authors+=("${authors[@]}")
done
if [ -n "$cover" ]; then
	cc=$(field "$cover" Cc | addrs)
	for a in $(printf '%s\n' "${all_authors[@]}" "$list_cc" | addrs); do
		grep -qxF -- "$a" <<<"$cc" ||
			problems+=("${cover##*/}: Cc: lacks $a (the cover letter goes to every author)")
	done
fi
for m in "${mails[@]}"; do
	to=$(field "$m" To | addrs)
	[ "$to" = "$want_to" ] ||
		problems+=("${m##*/}: To: is '$(paste -sd' ' <<<"$to")', not SEND_TO's '$(paste -sd' ' <<<"$want_to")'")
	[ -n "$(field "$m" Cc)" ] || problems+=("${m##*/}: empty Cc:")
done
want=$(seq 1 "$total" | paste -sd' ')
got=$(printf '%s\n' "${seen[@]}" | sort -n | paste -sd' ')
[ "$got" = "$want" ] || problems+=("patch numbers are '$got', expected '$want'")

if [ ${#problems[@]} -gt 0 ]; then
	printf '%s\n' "${problems[@]}" >&2
	die "${problems[0]}"
fi
echo "$total patches and a cover letter in $dir: [PATCH $ver nn/$total], threaded, To: $(paste -sd' ' <<<"$want_to"), each with its 'commit <id> upstream.' line and its authors and $list_cc in Cc:, signed off by $sender"
