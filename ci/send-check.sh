#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# send-check.sh DIR N SENDER: check the mails `make send` wrote to DIR:
# a cover letter and N patches, numbered [PATCH n/N], every patch a reply
# to the cover (In-Reply-To and References), To: and Cc: never empty, and
# each patch signed off by SENDER ("Name <email>") exactly once, with no
# other Signed-off-by.  Prints the problems and fails on the first kind.

. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || die "usage: send-check.sh DIR N 'Name <email>'"
dir=$1 total=$2 sender=$3
mapfile -t mails < <(find "$dir" -maxdepth 1 -type f | sort)
problems=()

# field MAIL NAME: an unfolded header field of a mail.
field() {
	sed -n '1,/^$/p' "$1" | sed -e ':a' -e 'N' -e '$!ba' -e 's/\n[ \t]\+/ /g' |
		sed -n "s/^$2: *//Ip" | head -n 1
}

[ ${#mails[@]} -eq $((total + 1)) ] ||
	problems+=("${#mails[@]} mails in $dir, expected $((total + 1)) (cover + $total patches)")

cover="" cover_id=""
for m in "${mails[@]}"; do
	subj=$(field "$m" Subject)
	if [[ $subj =~ ^\[PATCH(\ [^]]*)?\ 0*0/$total\] ]]; then
		cover=$m
		cover_id=$(field "$m" Message-Id)
	fi
done
[ -n "$cover" ] || problems+=("no cover letter [PATCH 0/$total]")

seen=()
for m in "${mails[@]}"; do
	[ "$m" = "$cover" ] && continue
	subj=$(field "$m" Subject)
	if [[ $subj =~ ^\[PATCH(\ [^]]*)?\ 0*([0-9]+)/$total\] ]]; then
		seen+=("$((10#${BASH_REMATCH[2]}))")
	else
		problems+=("${m##*/}: subject '$subj' is not numbered [PATCH n/$total]")
	fi
	[ -n "$cover_id" ] && [ "$(field "$m" In-Reply-To)" = "$cover_id" ] ||
		problems+=("${m##*/}: In-Reply-To is not the cover letter")
	[ -n "$cover_id" ] && grep -qF -- "$cover_id" <<<"$(field "$m" References)" ||
		problems+=("${m##*/}: References does not name the cover letter")
	sobs=$(sed '1,/^$/d' "$m" | sed '/^---$/q' | grep -i '^Signed-off-by:' || :)
	[ "$sobs" = "Signed-off-by: $sender" ] ||
		problems+=("${m##*/}: sign-offs are '${sobs//$'\n'/; }', expected only 'Signed-off-by: $sender'")
done
for m in "${mails[@]}"; do
	[ -n "$(field "$m" To)" ] || problems+=("${m##*/}: empty To:")
	[ -n "$(field "$m" Cc)" ] || problems+=("${m##*/}: empty Cc:")
done
want=$(seq 1 "$total" | paste -sd' ')
got=$(printf '%s\n' "${seen[@]}" | sort -n | paste -sd' ')
[ "$got" = "$want" ] || problems+=("patch numbers are '$got', expected '$want'")

if [ ${#problems[@]} -gt 0 ]; then
	printf '%s\n' "${problems[@]}" >&2
	die "${problems[0]}"
fi
echo "$total patches and a cover letter in $dir: numbered, threaded, To/Cc set, signed off by $sender"
