# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Host tests of make send's mails (ci/send-check.sh), on canned mails.
# Sourced by ci/tests/host.sh, which lists the cases; never run.

# send_rows: the upstream.tsv rows of send_mails' posting.
send_rows() {
	printf '%s\tv5.14-rc1\tAlice Author <alice@example.invalid>\t20260101000000.1-1-alice@example.invalid\tmm: the backported change\thost test\n' \
		"$(gate_id send-a)"
	printf '%s\tv5.15\tBob Builder <bob@example.invalid>\t-\tmm: the folded-in fix\thost test\n' \
		"$(gate_id send-b)"
}

# send_mails DIR: a canned posting of two patches as make send writes it
# (b4 send -o, the author in an in-body From: as b4 writes it when the
# sender is someone else): a cover letter, a backport of an upstream
# commit that folds in a second one, and a Patch-mainline: Never patch.
send_mails() {
	local d=$1 a b id='<20260101-b4-mm510-v1-N-0123456789ab@example.invalid>'
	a=$(gate_id send-a)
	b=$(gate_id send-b)
	mkdir -p "$d"
	cat >"$d/0000-cover.eml" <<EOF
From: Sam Sender <sam@example.invalid>
Subject: [PATCH 5.10 0/2] mm510: mm scalability backports for Linux
 5.10.262
Date: Thu, 01 Jan 2026 00:00:00 +0000
Message-Id: ${id/N/0}
To: stable@vger.kernel.org, downstream@example.invalid
Cc: linux-mm@kvack.org, Alice Author <alice@example.invalid>, 
 Bob Builder <bob@example.invalid>, Sam Sender <sam@example.invalid>

The cover letter.
EOF
	cat >"$d/0001-mm-the-backported-change.eml" <<EOF
From: Sam Sender <sam@example.invalid>
Date: Thu, 01 Jan 2026 00:00:01 +0000
Subject: [PATCH 5.10 1/2] mm: the backported change
Message-Id: ${id/N/1}
References: ${id/N/0}
In-Reply-To: ${id/N/0}
To: stable@vger.kernel.org, downstream@example.invalid
Cc: linux-mm@kvack.org, Alice Author <alice@example.invalid>, 
 Bob Builder <bob@example.invalid>, Sam Sender <sam@example.invalid>

From: $IDENTITY

commit $a upstream.

What the change does.

Differences from upstream:
None beyond context.

Patch-mainline: v5.14-rc1
Git-commit: ${a:0:12}
Upstream-author: Alice Author <alice@example.invalid>
Link: https://lore.kernel.org/r/20260101000000.1-1-alice@example.invalid
Also-contains: ${b:0:12} ("mm: the folded-in fix")
Cc: Alice Author <alice@example.invalid>
Cc: Bob Builder <bob@example.invalid>
Signed-off-by: Sam Sender <sam@example.invalid>
---
 mm/mmzone.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/mm/mmzone.c b/mm/mmzone.c
EOF
	cat >"$d/0002-mm510-add-localversion-mm510.eml" <<EOF
From: Sam Sender <sam@example.invalid>
Date: Thu, 01 Jan 2026 00:00:02 +0000
Subject: [PATCH 5.10 2/2] mm510: add localversion-mm510
Message-Id: ${id/N/2}
References: ${id/N/0}
In-Reply-To: ${id/N/0}
To: stable@vger.kernel.org, downstream@example.invalid
Cc: linux-mm@kvack.org, Sam Sender <sam@example.invalid>

From: $IDENTITY

Name the stack in the kernel release string.

Differences from upstream:
Not an upstream change; it exists only in this stack.

Patch-mainline: Never, stack-local marker
Signed-off-by: Sam Sender <sam@example.invalid>
---
 localversion-mm510 | 1 +
EOF
}

# send_check PROJECT DIR: the project copy's send-check.sh on DIR.
send_check() {
	SEND_TO="stable@vger.kernel.org, downstream@example.invalid" \
		"$1/ci/send-check.sh" "$2" 2 "Sam Sender <sam@example.invalid>"
}

t_send_check() {
	local p d=$scratch/send m1=0001-mm-the-backported-change.eml
	local m2=0002-mm510-add-localversion-mm510.eml a
	p=$(project_copy)
	send_rows >>"$p/upstream.tsv"
	a=$(gate_id send-a)
	send_mails "$d/good"
	send_check "$p" "$d/good" || { echo "a correct posting failed the check"; return 1; }
	# No "commit <id> upstream." line.
	send_mails "$d/no-commit-line"
	sed -i '/^commit [0-9a-f]* upstream\.$/,+1d' "$d/no-commit-line/$m1"
	expect_fail "$m1: the message opens with 'What the change does.', not 'commit $a upstream.'" \
		send_check "$p" "$d/no-commit-line"
	# The line with an id that is not the patch's Git-commit.
	send_mails "$d/wrong-id"
	sed -i "s/^commit [0-9a-f]* upstream\.\$/commit $(gate_id send-b) upstream./" "$d/wrong-id/$m1"
	expect_fail "not 'commit $a upstream.'" send_check "$p" "$d/wrong-id"
	# The author of the folded-in commit not in the patch's Cc:.
	send_mails "$d/no-author-cc"
	sed -i '/^Cc: linux-mm/,/^$/ s/Bob Builder <bob@example.invalid>, //' "$d/no-author-cc/$m1"
	expect_fail "$m1: Cc: lacks Bob Builder <bob@example.invalid> (upstream author)" \
		send_check "$p" "$d/no-author-cc"
	# No linux-mm, and the cover without an author.
	send_mails "$d/no-list"
	sed -i 's/^Cc: linux-mm@kvack.org, /Cc: /' "$d/no-list/$m1"
	sed -i 's/Alice Author <alice@example.invalid>, //' "$d/no-list/0000-cover.eml"
	expect_fail "$m1: Cc: lacks linux-mm@kvack.org" send_check "$p" "$d/no-list"
	expect_fail "0000-cover.eml: Cc: lacks alice@example.invalid" send_check "$p" "$d/no-list"
	# Subjects without the 5.10 prefix, To: other than SEND_TO.
	send_mails "$d/prefix"
	sed -i 's/^Subject: \[PATCH 5.10 /Subject: [PATCH /' "$d/prefix/$m1"
	expect_fail "$m1: subject '[PATCH 1/2] mm: the backported change' is not [PATCH 5.10 nn/2]" \
		send_check "$p" "$d/prefix"
	send_mails "$d/to"
	sed -i 's/^To: .*/To: stable@vger.kernel.org/' "$d/to/$m2"
	expect_fail "$m2: To: is 'stable@vger.kernel.org', not SEND_TO's 'downstream@example.invalid stable@vger.kernel.org'" \
		send_check "$p" "$d/to"
	# A second sign-off; a Never patch with a commit line.
	send_mails "$d/sob"
	sed -i '/^Signed-off-by: /i Signed-off-by: Alice Author <alice@example.invalid>' "$d/sob/$m1"
	sed -i "/^Name the stack/i commit $a upstream.\n" "$d/sob/$m2"
	expect_fail "$m1: sign-offs are 'Signed-off-by: Alice Author <alice@example.invalid>; Signed-off-by: Sam Sender <sam@example.invalid>'" \
		send_check "$p" "$d/sob"
	expect_fail "$m2: a Patch-mainline: Never patch opens with 'commit $a upstream.'" \
		send_check "$p" "$d/sob"
	# A Git-commit: the table does not have.
	send_mails "$d/unknown"
	sed -i 's/^Git-commit: .*/Git-commit: ffffffffffff/' "$d/unknown/$m1"
	expect_fail "$m1: Git-commit: ffffffffffff is not in upstream.tsv" send_check "$p" "$d/unknown"
	expect_fail "no SEND_TO" env -u SEND_TO "$p/ci/send-check.sh" "$d/good" 2 \
		"Sam Sender <sam@example.invalid>"
}
