#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# send.sh: prepare the applied series for posting, and write the mails
# to build/send/ instead of sending them (there is no mail server here).
#
# The patches go onto a b4-managed branch (b4 prep) in a worktree of the
# stack's repository, build/send-tree, each with the sender's own
# Signed-off-by (the sender is `git config user.name`/`user.email` of
# whoever runs this; patches/ never carries one).  The cover letter says
# what the stack is, its base, what each group of `series` brings, and
# the latest benchmark table (build/bench/report.md) if there is one.
# To/Cc come from scripts/get_maintainer.pl (b4 prep --auto-to-cc), and
# `b4 send -o` writes one mail per patch plus the cover letter, which
# ci/send-check.sh then verifies.

. "$(dirname "$0")/lib.sh"

need git git
need b4 b4
need perl perl
lock_build

sender_name=$(git -C "$TOP" config user.name || :)
sender_email=$(git -C "$TOP" config user.email || :)
[ -n "$sender_name" ] && [ -n "$sender_email" ] ||
	die "no sender: set 'git config user.name' and 'git config user.email' (they sign off the mails)"

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

# The groups of `series`: each banner's first line, its where-from
# lines, and the subjects of the patches under it.
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
landed upstream between v5.14 and v6.16 as a patch series on a pinned
5.10.y release, for users who cannot leave 5.10.  This posting is for
review of the backports: each patch names its upstream commit, release,
lore link and author, and says how it differs from upstream.

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
} >"$cover"

# --- the b4 branch ------------------------------------------------------------------

if [ -d "$tree" ]; then
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
		die "$tree has uncommitted changes; remove it (git worktree remove --force $tree)"
else
	git -C "$stack" worktree prune
	git -C "$stack" worktree add -q --detach "$tree" "$base"
fi
# The b4 branch is made anew from the series each time: the stack's
# commits, each with the sender's sign-off (on this branch only), then
# enrolled with b4 on the base.
git -C "$tree" checkout -q -B "b4/$name" "$base"
export GIT_COMMITTER_NAME=$sender_name GIT_COMMITTER_EMAIL=$sender_email
git -C "$tree" cherry-pick -s --allow-empty "$base..$STACK_BRANCH" >"$work/pick.log" 2>&1 || {
	cat "$work/pick.log" >&2
	git -C "$tree" cherry-pick --abort || :
	die "could not put the stack onto b4/$name"
}
(cd "$tree" && b4 prep -e "$base") >"$work/prep.log" 2>&1 || {
	cat "$work/prep.log" >&2
	die "b4 prep -e $base failed"
}
# b4 opens the cover letter in an editor: ours writes the text made above.
printf '#!/bin/sh\ncp %q "$1"\n' "$cover" >"$work/editor"
chmod +x "$work/editor"
(cd "$tree" && EDITOR=$work/editor GIT_EDITOR=$work/editor b4 prep --edit-cover) \
	>>"$work/prep.log" 2>&1 || { cat "$work/prep.log" >&2; die "b4 prep --edit-cover failed"; }
(cd "$tree" && b4 prep --auto-to-cc) >>"$work/prep.log" 2>&1 ||
	{ cat "$work/prep.log" >&2; die "b4 prep --auto-to-cc failed"; }
# Without a sendemail setup b4 would pick its web endpoint, which wants
# signed mails; name an SMTP command that is never run (-o only writes).
export GIT_CONFIG_COUNT=$((GIT_CONFIG_COUNT + 1))
export "GIT_CONFIG_KEY_$((GIT_CONFIG_COUNT - 1))=sendemail.smtpServer"
export "GIT_CONFIG_VALUE_$((GIT_CONFIG_COUNT - 1))=/bin/false"
(cd "$tree" && b4 send -o "$out" --no-sign) >"$work/send.log" 2>&1 ||
	{ cat "$work/send.log" >&2; die "b4 send -o $out failed"; }

"$TOP/ci/send-check.sh" "$out" "${#patches[@]}" "$sender_name <$sender_email>"
