#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# gates.sh GATE...: review the series the way netdev's patchwork checks
# and the 0-day robot do, one verdict per patch and gate.
#
#   fast gates (`make check`):
#     series       series and patches/ agree, no duplicates, localversion last
#     provenance   upstream trailers agree with upstream.tsv, author, no
#                  Signed-off-by, Fixes:/Also-contains: form
#     checkpatch   scripts/checkpatch.pl --strict of the pinned tree, with
#                  the project's .checkpatch.conf
#     maintainers  MAINTAINERS-notes is what ci/maintainers-notes.sh makes
#     rt-locks     ci/rt-locks.sh at every position of the applied RT
#                  flavour, outside the window series declares
#   slow gates (`make check-full`; they need the applied stack):
#     build        each patch's touched objects, W=1 and sparse (C=1),
#                  built at the patch and at the position before it
#     cocci        scripts/coccinelle of the tree on each patch's touched
#                  C files, at the patch and at the position before it
#
# Only what a patch adds counts: a warning or report already present
# before the patch is not held against it.  Output is TAP, one line per
# verdict, "ok N NAME # pass|warn: REASON [LOG]" or "not ok N NAME # fail:
# REASON [LOG]"; ci/check.sh turns these into its summary lines.  The
# exit status is non-zero when any gate failed.
#
# Environment: GATE_SCENARIO (default: default) is the configuration of
# the build and cocci gates, and so their arch (make check-full runs the
# build gate for arm64 too, GATE_SCENARIO=arm64-lockdep: its verdicts and
# logs are named after the scenario); GATE_MAX_USERS (default 20) caps how many
# already-built objects that include a touched header are rebuilt;
# GATE_POSITIONS ("N" or "N-M", 1 = the series' first patch; default
# all) limits the build and cocci gates to those patches, so that CI can
# spread them over runners (.gitlab-ci.yml's gates:slow matrix).

. "$(dirname "$0")/lib.sh"
. "$TOP/ci/scenario.sh"

[ $# -gt 0 ] || die "usage: gates.sh series|provenance|checkpatch|maintainers|rt-locks|build|cocci..."
need git git
need perl perl

logdir=$BUILD/logs/gates
mkdir -p "$logdir"
# The build and cocci gates' configuration; another than the default one
# has its name on their verdicts and logs.
gsc=${GATE_SCENARIO:-default}
gtag=
[ "$gsc" = default ] || gtag="-$gsc"
series=$TOP/series
# The tree's flavour (the commits of its stack branch, for the build
# and cocci gates), and every patch file of every flavour (the series,
# provenance and checkpatch gates read each file once).
mapfile -t patches < <(series_patches "$series")
mapfile -t all_patches < <(series_patches "$series" all)
# The flavours the series marks ("#+rt NAME", "NAME #-rt"), besides vanilla.
mapfile -t flavours < <({ echo vanilla
	sed -n -e 's/^#+\([a-z][a-z]*\)[[:space:]].*/\1/p' \
		-e 's/^[^#].*[[:space:]]#-\([a-z][a-z]*\)\([[:space:]].*\)\{0,1\}$/\1/p' "$series"; } | awk '!seen[$0]++')
scripts=$BASE_REPO/scripts
[ -x "$scripts/checkpatch.pl" ] || die "$scripts/checkpatch.pl missing: run 'make base' first"
n=0
failed=0

# verdict NAME pass|warn|fail REASON LOG
verdict() {
	n=$((n + 1))
	local reason=${3//$'\n'/ }
	if [ "$2" = fail ]; then
		failed=$((failed + 1))
		echo "not ok $n $1 # fail: $reason [$4]"
	else
		echo "ok $n $1 # $2: $reason [$4]"
	fi
}

# The unfolded mail header of a patch file.
header() {
	sed -n '2,/^$/p' "$1" | sed -e ':a' -e 'N' -e '$!ba' -e 's/\n[ \t]\+/ /g'
}

# The commit message: from the first blank line up to the "---" line.
message() {
	awk 'b && /^---$/ { exit } b { print } !b && /^$/ { b = 1 }' "$1"
}

# The file name git format-patch would give a subject (without number).
slug() {
	sed -e 's/[^A-Za-z0-9._]\+/-/g' -e 's/^[-.]*//' -e 's/[-.]*$//' <<<"$1"
}

# --- series -------------------------------------------------------------------

# changed_lines FILE: the lines a patch adds or removes, without the file
# headers, their white space and the blank ones, sorted: what a refresh
# of it for another tree's context keeps, wherever that tree puts the
# hunks and however it indents them.
changed_lines() {
	awk '/^diff --git / { d = 1; next } d && /^(\+\+\+|---) / { next } d && /^[-+]/' "$1" |
		sed 's/[[:space:]]//g' | grep -v '^[-+]$' | LC_ALL=C sort
}

# form_mark FLAVOUR NAME: the "form:<digest>" that series gives on the
# "#+FLAVOUR NAME" line of a form (below), or nothing.
form_mark() {
	awk -v fl="#+$1" -v name="$2" '$1 == fl && $2 == name {
		for (i = 3; i <= NF; i++) if ($i ~ /^form:/) print substr($i, 6) }' "$series"
}

gate_series() {
	local log=$logdir/series.log p last prev num fl note problems=() warns=() fpatches=()
	[ -f "$series" ] || problems+=("$series missing")
	for p in "${all_patches[@]}"; do
		[ -f "$TOP/patches/$p" ] || problems+=("series names patches/$p, which does not exist")
	done
	for p in $(printf '%s\n' "${all_patches[@]}" | sort | uniq -d); do
		problems+=("series names $p more than once")
	done
	# patches/ and the folders of the flavours' own patches (patches/rt/).
	for p in "$TOP"/patches/* "$TOP"/patches/*/*; do
		[ -f "$p" ] || continue
		p=${p#"$TOP"/patches/}
		in_list "$p" "${all_patches[@]}" ||
			problems+=("patches/$p is not in series")
	done
	for p in "$TOP"/patches/*/; do
		[ -d "$p" ] || continue
		p=${p%/}; p=${p##*/}
		in_list "$p" "${flavours[@]}" ||
			problems+=("patches/$p/ is not the folder of a flavour the series marks (${flavours[*]})")
	done
	# Numbers ascend through each flavour's series, except for an entry
	# whose comment block just above has a "# Out of order: <why>" line:
	# it is left out of the comparison (and its reason must be given).
	local line why=0 ooo=()
	while IFS= read -r line; do
		case $line in
		'# Out of order:'?*) why=1 ;;
		'#+'[a-z]*[[:space:]]*)
			[ "$why" = 1 ] && { p=${line#\#+*[[:space:]]}; ooo+=("${p%%[[:space:]]*}"); }
			why=0 ;;
		'#'*) ;;
		'') why=0 ;;
		*)	[ "$why" = 1 ] && ooo+=("${line%%[[:space:]]*}")
			why=0 ;;
		esac
	done <"$series"
	for fl in "${flavours[@]}"; do
		mapfile -t fpatches < <(series_patches "$series" "$fl")
		# The android flavour has no stack marker: a localversion file
		# would break GKI's release string (series says why).
		if [ ${#fpatches[@]} -gt 0 ] && [ "$fl" != android ]; then
			last=${fpatches[-1]}
			grep -q '^+++ b/localversion-' "$TOP/patches/$last" 2>/dev/null ||
				problems+=("the last patch of the $fl series, $last, does not add a localversion file")
		fi
		prev=0 note=
		[ "$fl" = vanilla ] || note=" (the $fl series)"
		for p in "${fpatches[@]}"; do
			num=${p##*/}; num=${num%%-*}
			[[ $num =~ ^[0-9]{4}$ ]] || { problems+=("$p: name does not start with NNNN-"); continue; }
			in_list "$p" "${ooo[@]}" && continue
			[ $((10#$num)) -gt "$prev" ] ||
				warns+=("$p is not after its predecessor in number order${note} (say why on a '# Out of order:' line above it)")
			prev=$((10#$num))
		done
	done
	# A flavour's own file named like a vanilla patch (rt/NAME for NAME)
	# is a variant of it.  A refresh adds and removes the vanilla
	# patch's lines, in another tree's context.  A form changes more,
	# where the tree's own code stands in the way (android/: ACK's vendor
	# hooks), and its "#+FLAVOUR NAME" line carries form:<digest>, the
	# digest of the vanilla patch's changed lines it was made from: a
	# change to the vanilla patch then fails here until its form has it
	# too and the digest is set again.  So neither kind can be left
	# behind by a change to the vanilla patch.
	local base_name fl_name vlines flines ndiff digest mark nvar=0 nform=0
	for p in "${all_patches[@]}"; do
		[[ $p == */* ]] || continue
		base_name=${p#*/} fl_name=${p%%/*}
		[ -f "$TOP/patches/$base_name" ] && [ -f "$TOP/patches/$p" ] || continue
		nvar=$((nvar + 1))
		vlines=$(changed_lines "$TOP/patches/$base_name")
		flines=$(changed_lines "$TOP/patches/$p")
		mark=$(form_mark "$fl_name" "$p")
		if [ "$vlines" = "$flines" ]; then
			[ -z "$mark" ] ||
				problems+=("$p is marked form:$mark but adds and removes what $base_name does: drop the mark")
			continue
		fi
		digest=$(sha256sum <<<"$vlines" | cut -c1-12)
		if [ "$mark" = "$digest" ]; then
			nform=$((nform + 1))
			[ "$(message "$TOP/patches/$p")" != "$(message "$TOP/patches/$base_name")" ] ||
				problems+=("$p is a form of $base_name with the same message: say in it how the form differs, and why")
			continue
		fi
		# diff exits 1 for files that differ, which they do here.
		ndiff=$({ diff <(echo "$vlines") <(echo "$flines") || [ $? -eq 1 ]; } | grep -c '^[<>]')
		if [ -n "$mark" ]; then
			problems+=("$base_name changed since its $fl_name form $p was made (form:$mark, now form:$digest): carry the change into the form, then set form:$digest on its line in series")
		else
			problems+=("$p is a variant of $base_name whose added or removed lines differ from it ($ndiff lines): make it one body, or mark it a form (form:$digest on its line in series, and say why in its message)")
		fi
	done
	{
		echo "series: ${#all_patches[@]} patch files, flavours: ${flavours[*]}"
		echo "  variants of a vanilla patch: $nvar ($((nvar - nform)) refreshes for context, $nform forms)"
		for fl in "${flavours[@]}"; do
			echo "  $fl: $(series_patches "$series" "$fl" | wc -l) patches"
		done
		printf 'fail: %s\n' "${problems[@]}"
		printf 'warn: %s\n' "${warns[@]}"
	} | grep -v '^\(fail\|warn\): $' >"$log"
	if [ ${#problems[@]} -gt 0 ]; then
		verdict "series: files and entries" fail "${problems[0]}" "$log"
	elif [ ${#warns[@]} -gt 0 ]; then
		verdict "series: files and entries" warn "${warns[0]}" "$log"
	else
		verdict "series: files and entries" pass "${#all_patches[@]} patch files (${flavours[*]}), all present and listed" "$log"
	fi
}

# --- provenance -----------------------------------------------------------------

# provenance_of FILE: prints "fail: ..." and "warn: ..." lines, in the
# order of the checks (the first "fail: " is the verdict's reason).  A
# patch that names an upstream release must agree with its row of
# upstream.tsv (loaded by gate_provenance into the UP_* arrays).
provenance_of() {
	local f=$1 hdr msg from subject pm release rel line id="" mid ua url
	hdr=$(header "$f")
	msg=$(message "$f")
	from=$(sed -n 's/^From: //p' <<<"$hdr" | head -n 1)
	subject=$(sed -n 's/^Subject: //p' <<<"$hdr" | head -n 1 | sed 's/^\[[^]]*\] *//')
	[ "$from" = "$IDENTITY" ] ||
		echo "fail: From: is '$from', not the stack identity of ci/identity"
	[ -n "$subject" ] || echo "fail: no Subject:"
	if grep -qi '^Signed-off-by:' <<<"$msg"; then
		echo "fail: carries a Signed-off-by: (the sender adds theirs at 'make send')"
	fi
	while IFS= read -r line; do
		[[ $line =~ ^Fixes:\ [0-9a-f]{12,40}\ \(\".+\"\)$ ]] ||
			echo "fail: '$line' is not 'Fixes: <12+ hex> (\"subject\")'"
	done < <(grep -i '^Fixes:' <<<"$msg" || :)
	pm=$(sed -n 's/^Patch-mainline: *//p' <<<"$msg")
	case $(grep -c '^Patch-mainline:' <<<"$msg") in
	0) echo "fail: no Patch-mainline:"; return 0 ;;
	1) ;;
	*) echo "fail: more than one Patch-mainline:" ;;
	esac
	pm=$(head -n 1 <<<"$pm")
	if [[ $pm =~ ^Never,\ .+ ]]; then
		return 0
	elif [[ $pm =~ ^v([0-9]+\.[0-9]+)(-rc[0-9]+)?$ ]]; then
		release=${BASH_REMATCH[1]}
		line=$(sed -n 's/^Git-commit: *//p' <<<"$msg")
		if [ -z "$line" ]; then
			echo "fail: no 'Git-commit: <12+ hex>' (the upstream commit)"
		elif [ "$(wc -l <<<"$line")" -gt 1 ]; then
			echo "fail: more than one Git-commit: (name folded-in commits with Also-contains:)"
		elif [[ ! $line =~ ^[0-9a-f]{12,40}$ ]]; then
			echo "fail: 'Git-commit: $line' is not 'Git-commit: <12-40 lower-case hex>'"
		elif upstream_find "$line"; then
			id=$UP_ID
		else
			echo "fail: Git-commit: $UP_WHY"
		fi
		if [ -n "$id" ] && [ "$pm" != "${UP_RELEASE[$id]}" ]; then
			echo "fail: Patch-mainline: is $pm, upstream.tsv says ${UP_RELEASE[$id]} for ${id:0:12}"
		fi
		rel=$(basename "$f" | cut -d- -f2)
		[ "$rel" = "v$release" ] ||
			echo "fail: file name says '$rel', Patch-mainline: says v$release"
		if [ -n "$id" ] && [ "$subject" != "${UP_SUBJECT[$id]}" ]; then
			echo "fail: Subject: is '$subject', upstream.tsv has '${UP_SUBJECT[$id]}' for ${id:0:12}"
		fi
	elif [[ ! $pm =~ ^Not\ yet,\ .+ ]]; then
		echo "fail: 'Patch-mainline: $pm' is not vX.Y[-rcN], 'Not yet, <why>' or 'Never, <why>'"
	fi
	ua=$(sed -n 's/^Upstream-author: *//p' <<<"$msg")
	if ! grep -qE '^Upstream-author: [^<]+ <[^>]+@[^>]+>$' <<<"$msg"; then
		echo "fail: no 'Upstream-author: Name <email>'"
	elif [ "$(wc -l <<<"$ua")" -gt 1 ]; then
		echo "fail: more than one Upstream-author: (the author of the Git-commit)"
	elif [ -n "$id" ] && [ "$ua" != "${UP_AUTHOR[$id]}" ]; then
		echo "fail: Upstream-author: is '$ua', upstream.tsv has '${UP_AUTHOR[$id]}' for ${id:0:12}"
	fi
	# Link: the posting of the commit (a search is not one).
	while IFS= read -r url; do
		case $url in
		*'?q='*|*'/?q'*)
			echo "fail: 'Link: $url' is a lore search, not the posting: give https://lore.kernel.org/r/<message-id>" ;;
		esac
	done < <(sed -n 's/^Link: *//p' <<<"$msg")
	if [ -n "$id" ]; then
		mid=${UP_MSGID[$id]}
		url=$(sed -n 's/^Link: *//p' <<<"$msg" | head -n 1)
		if [ "$mid" = - ]; then
			grep -qE '^Link: none, .+' <<<"$msg" ||
				echo "fail: upstream.tsv names no posting of ${id:0:12} ('-'): say 'Link: none, <why>'"
			! grep -q '^Link: .*lore\.kernel\.org' <<<"$msg" ||
				echo "fail: a lore Link:, but upstream.tsv names no posting of ${id:0:12} ('-')"
		elif [ -z "$url" ]; then
			echo "fail: no 'Link: https://lore.kernel.org/r/$mid' (the posting upstream.tsv names)"
		elif [ "$url" != "https://lore.kernel.org/r/$mid" ]; then
			echo "fail: the first Link: is '$url', not the posting https://lore.kernel.org/r/$mid of upstream.tsv"
		elif grep -q '^Link: none' <<<"$msg"; then
			echo "fail: 'Link: none', but upstream.tsv names the posting of ${id:0:12}"
		fi
	elif ! grep -qE '^Link: https://lore\.kernel\.org/[^ ]+$' <<<"$msg"; then
		echo "fail: no 'Link: https://lore.kernel.org/...'"
	fi
	awk '/^Differences from upstream:/ {
		d = 1; sub(/^Differences from upstream: */, ""); if ($0 != "") t = 1; next }
	     d && /^$/ { exit } d { t = 1 }
	     END { exit !t }' <<<"$msg" ||
		echo "fail: no non-empty 'Differences from upstream:' paragraph"
	# Also-contains: and Fixes: name commits of upstream.tsv, with
	# their upstream subjects (optional for Also-contains:, whose line
	# checkpatch would find too long with it: the table has it).
	local tag hex subj
	while IFS= read -r line; do
		if [[ $line =~ ^(Also-contains):\ ([0-9a-f]{12,40})$ ]]; then
			subj=
		elif [[ $line =~ ^(Also-contains|Fixes):\ ([0-9a-f]{12,40})\ \(\"(.+)\"\)$ ]]; then
			subj=${BASH_REMATCH[3]}
		else
			# A malformed Fixes: failed above already.
			[[ $line =~ ^[Ff][Ii][Xx][Ee][Ss]: ]] ||
				echo "fail: '$line' is not 'Also-contains: <12+ hex> [(\"subject\")]'"
			continue
		fi
		tag=${BASH_REMATCH[1]} hex=${BASH_REMATCH[2]}
		if ! upstream_find "$hex"; then
			echo "fail: $tag: $UP_WHY"
		elif [ -n "$subj" ] && [ "$subj" != "${UP_SUBJECT[$UP_ID]}" ]; then
			echo "fail: $tag: $hex (\"$subj\"): upstream.tsv has the subject '${UP_SUBJECT[$UP_ID]}'"
		fi
	done < <(grep -iE '^(Also-contains|Fixes):' <<<"$msg" || :)
	# The name is the subject's format-patch slug (git cuts it short).
	local name s
	name=$(basename "$f" .patch | cut -d- -f3-)
	s=$(slug "$subject")
	[ -n "$name" ] && [[ $s == "$name"* ]] ||
		echo "warn: file name does not match the subject (expected ...-$s.patch)"
}

gate_provenance() {
	local p f log out reason
	mkdir -p "$logdir/provenance"
	# The table first: without it no patch can be judged.
	log=$logdir/provenance/upstream.tsv.log
	if ! upstream_load >"$log"; then
		verdict "provenance: upstream.tsv" fail "$(head -n 1 "$log") (patches not checked)" "$log"
		return 0
	fi
	echo "${#UP_IDS[@]} rows, well-formed" >"$log"
	verdict "provenance: upstream.tsv" pass "${#UP_IDS[@]} rows, well-formed" "$log"
	for p in "${all_patches[@]}"; do
		f=$TOP/patches/$p
		log=$logdir/provenance/$p.log
		mkdir -p "${log%/*}"
		[ -f "$f" ] || { echo "missing" >"$log"; verdict "provenance: $p" fail "patches/$p does not exist" "$log"; continue; }
		out=$(provenance_of "$f")
		echo "${out:-all trailers present, agreeing with upstream.tsv}" >"$log"
		if grep -q '^fail: ' <<<"$out"; then
			reason=$(grep -m1 '^fail: ' <<<"$out")
			verdict "provenance: $p" fail "${reason#fail: }" "$log"
		elif grep -q '^warn: ' <<<"$out"; then
			reason=$(grep -m1 '^warn: ' <<<"$out")
			verdict "provenance: $p" warn "${reason#warn: }" "$log"
		else
			verdict "provenance: $p" pass "$(sed -n 's/^Patch-mainline: //p' "$f" | head -n 1)" "$log"
		fi
	done
}

# --- checkpatch -----------------------------------------------------------------

gate_checkpatch() {
	local p log e w c first
	mkdir -p "$logdir/checkpatch"
	# checkpatch.pl first, one process per patch and as many at a time
	# as there are CPUs (a patch's verdict is its log's), from the top,
	# so that checkpatch reads ./.checkpatch.conf; no git repository, so
	# that it does not look upstream ids up in the project's history
	# (the pinned tree has none either).  Then the verdicts, in order.
	for p in "${all_patches[@]}"; do
		log=$logdir/checkpatch/$p.log
		mkdir -p "${log%/*}"
		rm -f "$log"
		[ ! -f "$TOP/patches/$p" ] || printf '%s\0' "$p"
	done | (cd "$TOP" && GIT_DIR=/nonexistent xargs -0 -r -P "$(nproc)" -I{} \
		sh -c 'perl "$1" --strict --show-types "patches/$2" >"$3/$2.log" 2>&1; :' \
		_ "$scripts/checkpatch.pl" {} "$logdir/checkpatch")
	for p in "${all_patches[@]}"; do
		log=$logdir/checkpatch/$p.log
		[ -f "$TOP/patches/$p" ] || continue
		e=$(grep -c '^ERROR:' "$log" || :)
		w=$(grep -c '^WARNING:' "$log" || :)
		c=$(grep -c '^CHECK:' "$log" || :)
		first=$(grep -m1 -E '^(ERROR|WARNING|CHECK):' "$log" || :)
		if [ "$e" -gt 0 ]; then
			verdict "checkpatch: $p" fail "$e errors, $w warnings, $c checks: $first" "$log"
		elif [ $((w + c)) -gt 0 ]; then
			verdict "checkpatch: $p" warn "$w warnings, $c checks: $first" "$log"
		elif grep -q 'has no obvious style problems' "$log"; then
			verdict "checkpatch: $p" pass "clean (--strict)" "$log"
		else
			verdict "checkpatch: $p" fail "checkpatch.pl did not run: $(head -n 1 "$log")" "$log"
		fi
	done
}

# --- MAINTAINERS-notes ------------------------------------------------------------

gate_maintainers() {
	local log=$logdir/maintainers-notes.log new
	new=$(mktemp "$logdir/maintainers-notes.XXXXXX")
	if ! "$TOP/ci/maintainers-notes.sh" >"$new" 2>"$log"; then
		verdict "MAINTAINERS-notes up to date" fail "ci/maintainers-notes.sh failed: $(tail -n 1 "$log")" "$log"
	elif diff -u "$TOP/MAINTAINERS-notes" "$new" >"$log" 2>&1; then
		verdict "MAINTAINERS-notes up to date" pass "matches the series" "$log"
	else
		verdict "MAINTAINERS-notes up to date" fail "stale: run 'make maintainers-notes' and commit it" "$log"
	fi
	rm -f "$new"
}

# --- per-patch positions (build, cocci) ------------------------------------------

# Set up the checkout the slow gates walk: a detached worktree of the
# stack's repository, and the commits of the applied stack, one a patch.
# The positions the build and cocci gates look at (GATE_POSITIONS).
positions_selected() {
	local n=${#patches[@]} from to
	case ${GATE_POSITIONS:-} in
	'')	from=1 to=$n ;;
	*-*)	from=${GATE_POSITIONS%-*} to=${GATE_POSITIONS#*-} ;;
	*)	from=$GATE_POSITIONS to=$GATE_POSITIONS ;;
	esac
	[[ $from =~ ^[1-9][0-9]*$ && $to =~ ^[1-9][0-9]*$ ]] && [ "$from" -le "$to" ] ||
		die "GATE_POSITIONS must be N or N-M with 1 <= N <= M, not '${GATE_POSITIONS:-}'"
	[ "$to" -le "$n" ] ||
		die "GATE_POSITIONS=$GATE_POSITIONS: the series has $n patches"
	seq "$from" "$to"
}

positions_init() {
	[ -n "${gtree:-}" ] && return 0
	local stack base
	need ccache ccache
	lock_build
	stack=$(stack_tree)
	[ -d "$stack" ] || die "$stack missing: run 'make apply' first"
	# apply.sh makes one commit a patch on the base.
	base=$(git -C "$stack" rev-parse -q --verify "$STACK_BRANCH~${#patches[@]}") ||
		die "branch $STACK_BRANCH has fewer commits than series has patches: run 'make apply'"
	mapfile -t commits < <(git -C "$stack" rev-list --reverse "$base..$STACK_BRANCH")
	[ "$(git -C "$stack" log -1 --format=%s "$STACK_BRANCH")" = \
	  "$(header "$TOP/patches/${patches[-1]}" | sed -n 's/^Subject: \(\[[^]]*\] *\)\?//p' | head -n 1)" ] ||
		die "branch $STACK_BRANCH does not end with the series' last patch: run 'make apply'"
	commits=("$base" "${commits[@]}")
	gtree=$BUILD/gates-tree
	if [ ! -d "$gtree" ]; then
		git -C "$stack" worktree prune
		git -C "$stack" worktree add -q --detach "$gtree" "$base"
	fi
	[ -z "$(git -C "$gtree" status --porcelain --untracked-files=no)" ] ||
		die "$gtree has uncommitted changes; remove it (git worktree remove --force $gtree)"
	scenario_load "$gsc"
	need_cross
	# The scenario's .config, checked for lost values by build.sh.
	TREE=base CONFIG_ONLY=1 "$TOP/ci/build.sh" "$SC_NAME" >"$logdir/config.log" 2>&1 ||
		die "configuring $SC_NAME failed: $(tail -n 1 "$logdir/config.log")"
	gobj=$BUILD/obj/gates-$SC_KEY
	mkdir -p "$gobj"
	cmp -s "$BUILD/obj/$(basename "$BASE_REPO")-$SC_KEY/.config" "$gobj/.config" ||
		cp "$BUILD/obj/$(basename "$BASE_REPO")-$SC_KEY/.config" "$gobj/.config"
	gmake=(make -C "$gtree" O="$gobj" ARCH="$SC_ARCH" CROSS_COMPILE="$SC_CROSS"
	       "${SC_KCC[@]}" LOCALVERSION= -j"${JOBS:-$(nproc)}")
	[ "$SC_TOOLCHAIN" != llvm ] || export LLVM=1 LLVM_IAS=1
	at=-1
}

goto_position() {
	[ "$at" = "$1" ] && return 0
	git -C "$gtree" checkout -q --detach "${commits[$1]}"
	at=$1
}

# touched_c I: the C files patch I adds or changes.
touched_c() {
	git -C "$gtree" diff --name-only --diff-filter=AM "${commits[$1 - 1]}" "${commits[$1]}" -- '*.c'
}

# objects_of I: the objects to build for patch I: its C files, and up to
# GATE_MAX_USERS objects that include its headers, as the dependency
# files of the scenario's full build (make build) and of earlier gate
# builds tell.
objects_of() {
	local i=$1 h stack sobj
	stack=$(stack_tree)
	sobj=$BUILD/obj/$(basename "$stack")-$SC_KEY
	local own
	own=$(touched_c "$i" | sed 's/\.c$/.o/')
	[ -z "$own" ] || echo "$own"
	git -C "$gtree" diff --name-only --diff-filter=M "${commits[$i - 1]}" "${commits[$i]}" -- '*.h' |
	while read -r h; do
		grep -rlF --include='.*.o.cmd' "$gtree/$h" "$gobj" 2>/dev/null || :
		grep -rlF --include='.*.o.cmd' "$stack/$h" "$sobj" 2>/dev/null || :
	done | sed -e "s,^\($gobj\|$sobj\)/,," -e 's,\(.*\)/\.\(.*\)\.cmd$,\1/\2,' |
		grep -v '^\(scripts\|tools\|arch/[a-z0-9]*/kernel/asm-offsets\|kernel/bounds\)' |
		sort -u | grep -vxF "${own:-/}" | sed -n "1,${GATE_MAX_USERS:-20}p"
}

# Normalise compiler and checker messages: no line numbers, tree-relative;
# sorted, not made unique, so that comm(1) counts a second instance.
normalise() {
	grep -E ': (warning|error): ' | sed -e "s,$gtree/,,g" -e 's/:[0-9]\+:[0-9]\+: /: /' \
		-e 's/:[0-9]\+: /: /' | sort
}

# build_at POS OBJ: build one object with W=1 and sparse at a position;
# leaves DIR/rc, DIR/log and DIR/msgs under the position's log folder.
build_at() {
	local d=$logdir/build$gtag/pos-$1/${2//\//_}
	[ -f "$d/rc" ] && return 0
	goto_position "$1"
	mkdir -p "$d"
	rm -f "$gobj/$2"
	local rc=0
	"${gmake[@]}" W=1 C=1 CHECK=sparse "$2" >"$d/log" 2>&1 || rc=$?
	normalise <"$d/log" >"$d/msgs" || :
	echo "$rc" >"$d/rc"
}

# source_at POS OBJ: the tree holds OBJ's C or assembler source at POS.
source_at() {
	git -C "$gtree" cat-file -e "${commits[$1]}:${2%.o}.c" 2>/dev/null ||
		git -C "$gtree" cat-file -e "${commits[$1]}:${2%.o}.S" 2>/dev/null
}

gate_build() {
	local i k p o log objs b a new fresh status reason skipped sel gen
	# The positions first: a wrong GATE_POSITIONS is named whatever
	# tools this machine has.
	sel=$(positions_selected)
	need sparse sparse
	need ccache ccache
	positions_init
	# What every object's build first makes (arm64's vDSO among it)
	# made once, at the base, with the objects' flags: its warnings are
	# then no patch's.
	goto_position 0
	"${gmake[@]}" W=1 C=1 CHECK=sparse prepare >"$logdir/build$gtag-prepare.log" 2>&1 ||
		die "make prepare failed; see $logdir/build$gtag-prepare.log"
	rm -rf "$logdir/build$gtag"
	for i in $sel; do
		p=${patches[$((i - 1))]}
		log=$logdir/build$gtag-$p.log
		mapfile -t objs < <(objects_of "$i")
		: >"$log"
		status=pass skipped=()
		for o in "${objs[@]}"; do
			b=$logdir/build$gtag/pos-$((i - 1))/${o//\//_}
			a=$logdir/build$gtag/pos-$i/${o//\//_}
			build_at "$i" "$o"
			if [ "$(cat "$a/rc")" != 0 ] &&
			   grep -qF "No rule to make target '$o'" "$a/log"; then
				# Kbuild's answer for an object this configuration
				# does not build (mm/slab.o under SLUB).
				echo "$o: not built in $SC_NAME, skipped" >>"$log"
				skipped+=("$o")
				continue
			fi
			if [ "$(cat "$a/rc")" != 0 ]; then
				{ echo "$o: build FAILS at this patch:"; grep -E 'error|Error' "$a/log" | sed -n 1,20p; } >>"$log"
				status=fail
				reason="breaks the build of $o: $(grep -m1 ' error: ' "$a/log" | sed "s,$gtree/,," || tail -n 1 "$a/log")"
				continue
			fi
			# Compare with the last earlier position where the object
			# built (a patch that fixes an earlier break is judged
			# against the tree before the break).
			# An object whose source the tree does not hold (a
			# generated one: x86's vdso-image-64.c) is built at
			# every position.
			k=$((i - 1))
			[ -s "$a/msgs" ] || k=-1	# no messages: none new
			gen=0
			source_at "$i" "$o" || gen=1
			while [ "$k" -ge 0 ] &&
			      { [ $gen = 1 ] || source_at "$k" "$o"; }; do
				build_at "$k" "$o"
				b=$logdir/build$gtag/pos-$k/${o//\//_}
				[ "$(cat "$b/rc")" != 0 ] || break
				k=$((k - 1))
			done
			if [ "$k" -lt 0 ] || [ "$(cat "$b/rc")" != 0 ]; then
				b=$logdir/build$gtag/none; mkdir -p "$b"; : >"$b/msgs"
			fi
			new=$(comm -13 "$b/msgs" "$a/msgs")
			# A message not there before fails the patch; one more
			# copy of a message already there (a header's warning
			# reached from one more call site) is a warning: the
			# count grew, the cause is older than the patch.
			fresh=$(comm -13 <(sort -u "$b/msgs") <(sort -u "$a/msgs"))
			if [ -n "$fresh" ]; then
				{ echo "$o: new warnings:"; echo "$fresh"; } >>"$log"
				if [ $status != fail ]; then
					status=fail
					reason="$(wc -l <<<"$fresh") new warning(s) in $o: $(head -n 1 <<<"$fresh" | sed 's/ \[-W/ (W=1) [-W/; /(W=1)/! s/$/ (sparse)/')"
				fi
			elif [ -n "$new" ]; then
				{ echo "$o: more copies of warnings already there:"; echo "$new"; } >>"$log"
				if [ $status = pass ]; then
					status=warn
					reason="$(wc -l <<<"$new") more copy(ies) of a warning $o already had: $(head -n 1 <<<"$new" | sed 's/ \[-W/ (W=1) [-W/; /(W=1)/! s/$/ (sparse)/')"
				fi
			else
				echo "$o: builds, no new warnings ($(wc -l <"$a/msgs") already there)" >>"$log"
			fi
		done
		if [ $status = pass ]; then
			reason="$((${#objs[@]} - ${#skipped[@]})) objects built, no new warnings"
			[ ${#objs[@]} -gt 0 ] || reason="no C object touched"
			[ ${#skipped[@]} -eq 0 ] || reason+=" (not in $SC_NAME: ${skipped[*]})"
		fi
		verdict "build W=1 C=1${gtag:+ ($gsc)}: $p" "$status" "$reason" "$log"
	done
}

# cocci_at POS FILE: the reports of the tree's semantic patches on one
# file, run as scripts/coccicheck runs them (report mode, each script's
# own "// Options:", the kernel's include paths).  Scripts with OCaml
# parts are left out: Debian's spatch has no OCaml scripting.
cocci_at() {
	local d=$logdir/cocci$gtag/pos-$1/${2//\//_} c opt rc
	[ -f "$d/msgs" ] && return 0
	goto_position "$1"
	mkdir -p "$d"
	: >"$d/log"
	local inc=(-I "$gtree/arch/$SC_ARCH/include" -I "./arch/$SC_ARCH/include/generated"
		   -I "$gtree/include" -I ./include -I "$gtree/arch/$SC_ARCH/include/uapi"
		   -I "./arch/$SC_ARCH/include/generated/uapi" -I "$gtree/include/uapi"
		   -I ./include/generated/uapi --include "$gtree/include/linux/kconfig.h")
	for c in $(find "$gtree/scripts/coccinelle" -name '*.cocci' | sort); do
		if grep -q '^@.*ocaml' "$c"; then
			echo "skipped (OCaml): ${c#$gtree/}" >>"$d/log"
			continue
		fi
		opt=$(sed -n 's|^// Options:||p' "$c" | head -n 1)
		rc=0
		# shellcheck disable=SC2086
		(cd "$gobj" && timeout "${GATE_COCCI_TIMEOUT:-300}" spatch -D report --no-show-diff \
			--very-quiet --cocci-file "$c" $opt "${inc[@]}" "$gtree/$2") >"$d/out" 2>&1 || rc=$?
		[ "$rc" = 0 ] || echo "exit $rc: ${c#$gtree/}" >>"$d/log"
		sed "s|^|${c#$gtree/scripts/coccinelle/}: |" "$d/out" >>"$d/log"
	done
	rm -f "$d/out"
	grep -E ': [^ ]+\.[ch]:[0-9]+:' "$d/log" | sed -e "s,$gtree/,,g" \
		-e 's/:[0-9]\+:[0-9-]\+:/:/' -e 's/line [0-9]\+/line N/g' | sort >"$d/msgs" || :
}

gate_cocci() {
	local i p f log files new status reason b a sel
	sel=$(positions_selected)
	need spatch coccinelle
	positions_init
	goto_position 0
	"${gmake[@]}" prepare >"$logdir/cocci$gtag-prepare.log" 2>&1 ||
		die "make prepare failed; see $logdir/cocci$gtag-prepare.log"
	rm -rf "$logdir/cocci$gtag"
	for i in $sel; do
		p=${patches[$((i - 1))]}
		log=$logdir/cocci$gtag-$p.log
		mapfile -t files < <(touched_c "$i")
		: >"$log"
		status=pass reason="${#files[@]} C files, no new reports"
		[ ${#files[@]} -gt 0 ] || reason="no C file touched"
		for f in "${files[@]}"; do
			a=$logdir/cocci$gtag/pos-$i/${f//\//_}
			b=$logdir/cocci$gtag/pos-$((i - 1))/${f//\//_}
			cocci_at "$i" "$f"
			# Nothing reported after the patch: nothing new either.
			if [ -s "$a/msgs" ] &&
			   git -C "$gtree" cat-file -e "${commits[$((i - 1))]}:$f" 2>/dev/null; then
				cocci_at $((i - 1)) "$f"
			else
				mkdir -p "$b"; : >"$b/msgs"
			fi
			new=$(comm -13 "$b/msgs" "$a/msgs")
			if [ -n "$new" ]; then
				{ echo "$f: new reports:"; echo "$new"; } >>"$log"
				status=fail reason="$(wc -l <<<"$new") new coccinelle report(s): $(head -n 1 <<<"$new")"
			else
				echo "$f: no new reports ($(wc -l <"$a/msgs") already there)" >>"$log"
			fi
		done
		verdict "coccinelle${gtag:+ ($gsc)}: $p" "$status" "$reason" "$log"
	done
}

# --- rt-locks: every position of the RT flavour -------------------------------

# The RT flavour's local locks at each of its positions: ci/rt-locks.sh
# on mm/page_alloc.c and mm/memcontrol.c as each patch of the applied RT
# stack leaves them (and as the RT base has them).  A bisect of the RT
# flavour may land on any position, and one that runs the pcp lists or
# the memcg stock with interrupts disabled alone is no PREEMPT_RT
# kernel.  The positions where that is known and said (series: Group
# 0) are the window of the "# rt-locks-window: FIRST LAST" line; the
# gate fails on any other position, and on a window whose first or last
# patch passes (a window wider than it is).
gate_rt_locks() {
	local log=$logdir/rt-locks.log rt rt_tag base stamp win first last
	local i c key prev_key='' res='' st p npos in_win=0 failed_in=0 problems=() wfirst=-1 wlast=-1
	local -a rtp commits_rt
	rt=$BUILD/stack-debian-rt
	rt_tag=$(tree_load debian-rt && echo "$TR_TAG")
	mapfile -t rtp < <(series_patches "$series" rt)
	: >"$log"
	win=$(sed -n 's/^# rt-locks-window:[[:space:]]*//p' "$series")
	read -r first last <<<"$win"
	for i in "${!rtp[@]}"; do
		[ "${rtp[$i]}" != "${first:-}" ] || wfirst=$((i + 1))
		[ "${rtp[$i]}" != "${last:-}" ] || wlast=$((i + 1))
	done
	if [ -n "$win" ] && { [ "$wfirst" -lt 1 ] || [ "$wlast" -lt "$wfirst" ]; }; then
		verdict "rt-locks: every position of the RT flavour" fail "series' rt-locks-window '$win' does not name two patches of the RT series, in order" "$log"
		return 0
	fi
	if [ ! -d "$rt" ] || ! base=$(git -C "$rt" rev-parse -q --verify "$rt_tag^{commit}"); then
		verdict "rt-locks: every position of the RT flavour" fail "no RT stack: run 'make apply SCENARIO=rt'" "$log"
		return 0
	fi
	# The stack must be the series as it stands, and its branch where
	# ci/apply.sh left it (the stamp's HEAD).
	stamp=$(series_stamp "$base" "$STACK_BRANCH-debian-rt" "${rtp[@]}")
	if ! stamp_current "$BUILD/stack-debian-rt.applied" "$stamp" \
	     "$(git -C "$rt" rev-parse "$STACK_BRANCH-debian-rt")"; then
		verdict "rt-locks: every position of the RT flavour" fail "the RT stack is not the series as it stands: run 'make apply SCENARIO=rt'" "$log"
		return 0
	fi
	mapfile -t commits_rt < <(git -C "$rt" rev-list --reverse "$base..$STACK_BRANCH-debian-rt")
	commits_rt=("$base" "${commits_rt[@]}")
	st=$(mktemp -d)
	mkdir -p "$st/tree/mm"
	for i in "${!commits_rt[@]}"; do
		c=${commits_rt[$i]}
		p=base
		[ "$i" = 0 ] || p=${rtp[$((i - 1))]}
		key=$(git -C "$rt" rev-parse "$c:mm/page_alloc.c" "$c:mm/memcontrol.c" | tr '\n' ' ')
		# A position that changes neither file has its predecessor's result.
		if [ "$key" != "$prev_key" ]; then
			git -C "$rt" cat-file blob "$c:mm/page_alloc.c" >"$st/tree/mm/page_alloc.c"
			git -C "$rt" cat-file blob "$c:mm/memcontrol.c" >"$st/tree/mm/memcontrol.c"
			if "$TOP/ci/rt-locks.sh" "$st/tree" >"$st/out" 2>&1; then res=pass; else res=fail; fi
		fi
		prev_key=$key
		if [ "$i" -ge "$wfirst" ] && [ "$i" -le "$wlast" ]; then
			in_win=$((in_win + 1))
			[ $res = pass ] || failed_in=$((failed_in + 1))
			{ [ "$i" != "$wfirst" ] && [ "$i" != "$wlast" ]; } || [ $res = fail ] ||
				problems+=("$i ($p) passes, but the rt-locks-window of series names it as its first or last: narrow the window")
			echo "$i $p: $res (in the window)" >>"$log"
		else
			echo "$i $p: $res" >>"$log"
			[ $res = pass ] || problems+=("$i ($p): $(head -n 1 "$st/out")")
		fi
		[ $res = pass ] || sed 's/^/    /' "$st/out" >>"$log"
	done
	npos=${#commits_rt[@]}
	rm -rf "$st"
	if [ ${#problems[@]} -gt 0 ]; then
		verdict "rt-locks: every position of the RT flavour" fail "position ${problems[0]}" "$log"
	else
		verdict "rt-locks: every position of the RT flavour" pass "$npos positions (base and ${#rtp[@]} patches): $((npos - in_win)) under local locks, $failed_in of the $in_win in series' window without" "$log"
	fi
}

for gate in "$@"; do
	case $gate in
	series|provenance|checkpatch|maintainers|build|cocci) "gate_$gate" ;;
	rt-locks) gate_rt_locks ;;
	*) die "unknown gate '$gate'" ;;
	esac
done
echo "1..$n"
[ "$failed" -eq 0 ]
