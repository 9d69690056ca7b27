#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# send.sh: prepare the applied series for posting as a 5.10 backport,
# and write the mails to build/send/ instead of sending them (there is
# no mail server here).
#
# SEND_TO (comma- or space-separated addresses) says where the series
# goes: the downstream list (or the people) who review it.  It is a
# feature series with messages of our own, not what the stable tree
# takes (Documentation/process/stable-kernel-rules.rst), so not stable@.
# The stack marker (the patch that adds a localversion file, 9901) is
# the stack's own and is not posted.  The patches go
# onto a b4-managed branch (b4 prep) in a worktree of the stack's
# repository, build/send-tree, each written as a stable backport: the
# body opens with "commit <full id> upstream." (the id from upstream.tsv
# for its Git-commit:), and ends with a Cc: of its upstream author(s)
# (of the Git-commit and of each Also-contains:, from upstream.tsv) and
# the sender's own Signed-off-by (`git config user.name`/`user.email` of
# whoever runs this; patches/ never carries one).  Subjects are
# [PATCH 5.10 nn/N].  The cover letter says what the stack is, its base,
# what each group of `series` brings, and the latest benchmark table
# (build/bench/report.md) if there is one; it goes To: SEND_TO, Cc:
# linux-mm, and b4 Cc's it to every author as well.  `b4 send -o` writes
# one mail per patch plus the cover letter, which ci/send-check.sh then
# verifies.

. "$(dirname "$0")/lib.sh"

need git git
need b4 b4

# Where the series goes; the list every mail is copied to.
[ -n "${SEND_TO:-}" ] ||
	die "no SEND_TO: name where the series goes, your review list, e.g. 'make send SEND_TO=kernel-review@example.com' (addresses separated by commas or spaces)"
read -r -a send_to <<<"${SEND_TO//,/ }"
[ ${#send_to[@]} -gt 0 ] || die "SEND_TO='$SEND_TO' names no address"
for a in "${send_to[@]}"; do
	[[ $a =~ ^[^@\<\>\"[:space:]]+@[^@\<\>\"[:space:]]+\.[^@\<\>\"[:space:]]+$ ]] ||
		die "SEND_TO: '$a' is not a bare mail address (user@host, no name or <>)"
done
export SEND_TO
list_cc=linux-mm@kvack.org

lock_build

sender_name=$(git -C "$TOP" config user.name || :)
sender_email=$(git -C "$TOP" config user.email || :)
[ -n "$sender_name" ] && [ -n "$sender_email" ] ||
	die "no sender: set 'git config user.name' and 'git config user.email' (they sign off the mails)"
upstream_load >&2 || die "upstream.tsv is missing or malformed (the lines above); make send takes the full ids and the authors from it"

stack=$(stack_tree)
[ -d "$stack" ] || die "$stack missing: run 'make apply' first"
mapfile -t patches < <(series_patches)
[ ${#patches[@]} -gt 0 ] || die "the series is empty"
base=$(git -C "$stack" rev-parse -q --verify "$STACK_BRANCH~${#patches[@]}") ||
	die "branch $STACK_BRANCH has fewer commits than series has patches: run 'make apply'"
name=${SEND_NAME:-$STACK_BRANCH}
out=$BUILD/send
tree=$BUILD/send-tree
work=$BUILD/.send
rm -rf "$out" "$work"
mkdir -p "$out" "$work"

# --- the cover letter -----------------------------------------------------------

# subject FILE: the patch subject, without its [PATCH] prefix.
subject() {
	sed -n '2,/^$/p' "$1" | sed -e ':a' -e 'N' -e '$!ba' -e 's/\n[ \t]\+/ /g' |
		sed -n 's/^Subject: \(\[[^]]*\] *\)\?//p' | head -n 1
}

# marker FILE: the patch is the stack marker (adds a localversion file),
# which no posting carries.
marker() {
	grep -q '^+++ b/localversion-' "$1"
}

# The groups of `series`: each banner's first line, its where-from
# lines, and the subjects of the patches under it (the marker's group,
# with no patch posted, is left out).
groups() {
	local line title="" from="" count=0 list="" in_banner=0
	flush() {
		[ "$count" -gt 0 ] || return 0
		printf '%s (%d patch%s)\n' "$title" "$count" "$([ "$count" = 1 ] && echo || echo es)"
		[ -z "$from" ] || printf '%s\n' "$from" | fold -s -w 70 | sed 's/^/  /'
		printf '%s' "$list"
		echo
	}
	while IFS= read -r line; do
		if [[ $line =~ ^#{20,}$ ]]; then
			if [ $in_banner = 0 ]; then
				flush
				title="" from="" count=0 list=""
				in_banner=1
			else
				in_banner=0
			fi
		elif [ $in_banner = 1 ]; then
			line=${line#\#}; line=${line# }
			if [ -z "$title" ]; then title=$line; else from="${from:+$from }$line"; fi
		elif [[ $line =~ ^[^#[:space:]] ]]; then
			line=${line%%[[:space:]]*}
			marker "$TOP/patches/$line" && continue
			count=$((count + 1))
			list+="  - $(subject "$TOP/patches/$line")"$'\n'
		fi
	done <"$TOP/series"
	flush
}

cover=$work/cover
{
	echo "mm510: mm scalability backports for Linux $BASE_VERSION"
	echo
	cat <<EOF
mm510 carries the per-cpu page allocator and memory-cgroup work that
landed upstream between v5.11 and v6.16 as a patch series on a pinned
5.10.y release, for users who cannot leave 5.10.  Each patch is written
as a 5.10 stable backport: it opens with the upstream commit it comes
from ("commit <id> upstream."), names that commit's release, lore link
and author, who is Cc'd, and says how it differs from upstream.

Base: Linux $BASE_VERSION ($BASE_TAG), Debian's $BASE_FILE
($BASE_SRC_PACKAGE $BASE_SRC_VERSION, $BASE_SRC_SUITE), sha256
$BASE_SHA256.
The series applies with git am and with quilt push -a, without fuzz,
and builds at every patch.

EOF
	groups
	echo "Benchmarks:"
	if [ -f "$BUILD/bench/report.md" ]; then
		echo
		cat "$BUILD/bench/report.md"
	else
		echo "None yet (no build/bench/report.md)."
	fi
	# The series' own recipients, as b4 reads them from the cover's
	# last paragraph: To: SEND_TO, Cc: the list.
	echo
	printf 'To: %s\n' "${send_to[@]}"
	echo "Cc: $list_cc"
} >"$cover"

# --- the mails' commit messages ----------------------------------------------------

# backport_message COMMIT PATCH OUT: the commit message of COMMIT (the
# stack's commit of patches/PATCH) as a stable backport: subject, then
# "commit <full id> upstream." for a patch of an upstream release, the
# message, and a Cc: of each upstream author and the sender's
# Signed-off-by at the end of its trailer block.
backport_message() {
	local c=$1 p=$2 subj body pm hex a authors=() line=""
	subj=$(git -C "$stack" log -1 --format=%s "$c")
	body=$(git -C "$stack" log -1 --format=%b "$c")
	pm=$(sed -n 's/^Patch-mainline: *//p' <<<"$body" | head -n 1)
	if [[ $pm != Never,* ]]; then
		hex=$(sed -n 's/^Git-commit: *//p' <<<"$body" | head -n 1)
		if [ -n "$hex" ]; then
			upstream_find "$hex" ||
				die "patches/$p: Git-commit: $UP_WHY; make send needs its row for the 'commit <id> upstream.' line and the author's Cc"
			line="commit $UP_ID upstream."
			authors+=("${UP_AUTHOR[$UP_ID]}")
		else
			# Not yet upstream: no commit line; its author from the patch.
			a=$(sed -n 's/^Upstream-author: *//p' <<<"$body" | head -n 1)
			[ -z "$a" ] || authors+=("$a")
		fi
		while read -r hex; do
			upstream_find "$hex" ||
				die "patches/$p: Also-contains: $UP_WHY; make send needs its row for the author's Cc"
			authors+=("${UP_AUTHOR[$UP_ID]}")
		done < <(sed -n 's/^Also-contains: *\([0-9a-f]*\).*/\1/p' <<<"$body")
	fi
	{
		printf '%s\n\n' "$subj"
		[ -z "$line" ] || printf '%s\n\n' "$line"
		printf '%s\n' "$body"
		[ ${#authors[@]} -eq 0 ] || printf 'Cc: %s\n' "${authors[@]}" | awk '!seen[$0]++'
		printf 'Signed-off-by: %s <%s>\n' "$sender_name" "$sender_email"
	} >"$3"
}

# --- the b4 branch ------------------------------------------------------------------

if [ -d "$tree" ]; then
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
		die "$tree has uncommitted changes; remove it (git worktree remove --force $tree)"
else
	git -C "$stack" worktree prune
	git -C "$stack" worktree add -q --detach "$tree" "$base"
fi
# The b4 branch is made anew from the series each time: the stack's
# commits, same trees and authors, with the messages of
# backport_message (on this branch only), then enrolled with b4 on the
# base.
mapfile -t commits < <(git -C "$stack" rev-list --reverse "$base..$STACK_BRANCH")
[ ${#commits[@]} -eq ${#patches[@]} ] ||
	die "branch $STACK_BRANCH has ${#commits[@]} commits on the base, series has ${#patches[@]} patches: run 'make apply'"
export GIT_COMMITTER_NAME=$sender_name GIT_COMMITTER_EMAIL=$sender_email
head=$base
posted=0
for i in "${!commits[@]}"; do
	c=${commits[$i]}
	marker "$TOP/patches/${patches[$i]}" && continue
	posted=$((posted + 1))
	backport_message "$c" "${patches[$i]}" "$work/msg"
	head=$(GIT_AUTHOR_NAME=$(git -C "$stack" log -1 --format=%an "$c") \
		GIT_AUTHOR_EMAIL=$(git -C "$stack" log -1 --format=%ae "$c") \
		GIT_AUTHOR_DATE=$(git -C "$stack" log -1 --format=%ad --date=raw "$c") \
		git -C "$stack" commit-tree "$c^{tree}" -p "$head" -F "$work/msg")
done
git -C "$tree" checkout -q -B "b4/$name" "$head"
(cd "$tree" && b4 prep -e "$base") >"$work/prep.log" 2>&1 || {
	cat "$work/prep.log" >&2
	die "b4 prep -e $base failed"
}
# [PATCH 5.10 nn/N], as 5.10 stable backports are posted.
(cd "$tree" && b4 prep --set-prefixes "${BASE_VERSION%.*}") >>"$work/prep.log" 2>&1 ||
	{ cat "$work/prep.log" >&2; die "b4 prep --set-prefixes ${BASE_VERSION%.*} failed"; }
# b4 opens the cover letter in an editor: ours writes the text made above.
printf '#!/bin/sh\ncp %q "$1"\n' "$cover" >"$work/editor"
chmod +x "$work/editor"
(cd "$tree" && EDITOR=$work/editor GIT_EDITOR=$work/editor b4 prep --edit-cover) \
	>>"$work/prep.log" 2>&1 || { cat "$work/prep.log" >&2; die "b4 prep --edit-cover failed"; }
# Without a sendemail setup b4 would pick its web endpoint, which wants
# signed mails; name an SMTP command that is never run (-o only writes).
export GIT_CONFIG_COUNT=$((GIT_CONFIG_COUNT + 1))
export "GIT_CONFIG_KEY_$((GIT_CONFIG_COUNT - 1))=sendemail.smtpServer"
export "GIT_CONFIG_VALUE_$((GIT_CONFIG_COUNT - 1))=/bin/false"
(cd "$tree" && b4 send -o "$out" --no-sign) >"$work/send.log" 2>&1 ||
	{ cat "$work/send.log" >&2; die "b4 send -o $out failed"; }

"$TOP/ci/send-check.sh" "$out" "$posted" "$sender_name <$sender_email>"
