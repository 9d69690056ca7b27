# SPDX-License-Identifier: GPL-2.0
# Shared by the ci/*.sh scripts: paths, the pin, messages, locking.
# Sourced, never run.

set -euo pipefail
# Die on SIGINT/SIGTERM through `exit`, so that each script's EXIT trap
# still removes its temporary files when a run is interrupted.
trap 'exit 130' INT
trap 'exit 143' TERM

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=ci/base.pin
. "$TOP/ci/base.pin"
# shellcheck source=ci/debian.pin
. "$TOP/ci/debian.pin"
# shellcheck source=ci/android.pin
. "$TOP/ci/android.pin"

BUILD=${BUILD:-$TOP/build}
CACHE_DIR=${CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mm510}
BASE_REPO=${BASE_REPO:-$BUILD/linux}
# Where ci/android.sh finds ACK's bundle (ci/android.pin).
ANDROID_DIR=${ANDROID_DIR:-$TOP/../shared/android}
# The peer kernel of make bench (ci/peer.sh, ci/peer.pin).
PEER_TREE=${PEER_TREE:-$BUILD/peer}
STACK_BRANCH=${STACK_BRANCH:-mm510}
IDENTITY=$(head -n 1 "$TOP/ci/identity")
export CCACHE_DIR=${CCACHE_DIR:-$CACHE_DIR/ccache}
# ccache's depend mode: on a miss ccache takes the headers from the
# compiler's own -MD output (kbuild's -Wp,-MMD) instead of running the
# preprocessor a second time to hash them.  On 2026-12-04 (a6a107b, not
# re-measured since) a cold x86 kernel build on the 2-core machine
# took 659 s with ccache's default mode, 498 s in depend mode and 400 s
# without ccache; a warm one (1338 of 1339 hits) 140 s.  Depend mode has
# no preprocessed-mode hits: a cache filled in the default mode is not
# used, and a file compiled in two trees (Debian's) is a hit only where
# its path and headers are the same.
export CCACHE_DEPEND=${CCACHE_DEPEND:-1}

# No background `git gc --auto`: it would outlive the script holding the
# build lock's file descriptor, and it would touch a user's KERNEL_TREE.
export GIT_CONFIG_COUNT=2
export GIT_CONFIG_KEY_0=gc.auto GIT_CONFIG_VALUE_0=0
export GIT_CONFIG_KEY_1=maintenance.auto GIT_CONFIG_VALUE_1=false

# Messages go to stderr so that scripts can print results on stdout.
msg() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# progress_start LABEL LOG CMD...: while a long step runs (a kernel
# build, a boot), say every PROGRESS_EVERY seconds (default 30) how far
# it is, "LABEL: <CMD's output>, N s; log: LOG", on stderr: when stderr
# is a terminal, or with PROGRESS=1; PROGRESS=0 keeps it quiet, and a CI
# log (not a terminal) is quiet unless asked.  progress_stop ends it; it
# also ends by itself when the script that started it is gone.
progress_start() {
	PROGRESS_PID=
	case ${PROGRESS:-} in
	0)	return 0 ;;
	1)	;;
	*)	[ -t 2 ] || return 0 ;;
	esac
	local label=$1 log=$2 t0=$SECONDS parent=$$
	shift 2
	(
		trap - EXIT
		while sleep "${PROGRESS_EVERY:-30}" && kill -0 "$parent" 2>/dev/null; do
			msg "$label: $("$@" 2>/dev/null), $((SECONDS - t0)) s; log: $log"
		done
	) &
	PROGRESS_PID=$!
}
progress_stop() {
	[ -n "${PROGRESS_PID:-}" ] || return 0
	kill "$PROGRESS_PID" 2>/dev/null || :
	wait "$PROGRESS_PID" 2>/dev/null || :
	PROGRESS_PID=
}

# in_list WORD ITEM...: true when WORD is one of the ITEMs.  Not
# `printf '%s\n' ITEM... | grep -qxF WORD`: grep -q exits at its first
# match, and a printf still writing into the closed pipe makes the
# pipeline fail under pipefail, now and then (a false "not in series").
in_list() {
	local w=$1 x
	shift
	for x; do [ "$x" = "$w" ] && return 0; done
	return 1
}

# need TOOL PACKAGE: a missing host tool names the Debian package.
# sha256_ok FILE WANT: true when FILE's sha256 is WANT; otherwise says
# what was expected and what was found, and is false.
sha256_ok() {
	local sum
	sum=$(sha256sum "$1" | cut -d' ' -f1)
	[ "$sum" = "$2" ] && return 0
	msg "checksum mismatch for $1"
	msg "  expected $2"
	msg "  got      $sum"
	return 1
}

# free_mib DIR: the MiB free on DIR's file system (DIR, or the nearest
# folder above it that exists).
free_mib() {
	local d=$1
	while [ ! -d "$d" ]; do d=$(dirname "$d"); done
	df -Pm "$d" | awk 'NR == 2 { print $4 }'
}

# need_space DIR MIB WHAT: stop before WHAT when DIR's file system has
# less than MIB free, rather than fail half-way with a full disk.
need_space() {
	local free
	free=$(free_mib "$1")
	[ "$free" -ge "$2" ] ||
		die "only $free MiB free on $1's file system; $3 needs about $2 MiB: free some space (make distclean removes build/)"
}

need() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: install it with 'apt-get install $2' (or run 'make deps' as root)"
}

# guest_disks DIR: the guest's two disks, as sparse files in DIR:
# data.img, an empty ext4 file system of 1 GiB that the runner mounts
# on /mnt/disk (page cache for the tests, backed by a disk as on a
# user's machine), and swap.img, a swap area of 512 MiB that a test
# turns on for itself (tools/lib: MMT_SWAP_DEV).  The runner finds each
# by its contents, in whatever order the machine numbers them.  Under a
# second.
guest_disks() {
	local dir=$1
	[ -x /sbin/mkfs.ext4 ] ||
		die "/sbin/mkfs.ext4 not found (the guest's disk): install it with 'apt-get install e2fsprogs' (or run 'make deps' as root)"
	[ -x /sbin/mkswap ] ||
		die "/sbin/mkswap not found (the guest's swap): install it with 'apt-get install util-linux' (or run 'make deps' as root)"
	rm -f "$dir/data.img" "$dir/swap.img"
	truncate -s 1G "$dir/data.img"
	truncate -s 512M "$dir/swap.img"
	/sbin/mkfs.ext4 -q -F -L mm510-data "$dir/data.img" >"$dir/mkfs.log" 2>&1 || {
		cat "$dir/mkfs.log" >&2; die "mkfs.ext4 failed on $dir/data.img"; }
	/sbin/mkswap -L mm510-swap "$dir/swap.img" >"$dir/mkswap.log" 2>&1 || {
		cat "$dir/mkswap.log" >&2; die "mkswap failed on $dir/swap.img"; }
	rm -f "$dir/mkfs.log" "$dir/mkswap.log"
}

# piggy_fresh OBJ TREE ARCH: true unless the boot image's compressed
# kernel is an earlier build's.  x86's bzImage and arm's zImage link
# arch/ARCH/boot/compressed/piggy.o, which takes the compressed kernel
# in by `.incbin "FILE"` from piggy.S (generated in OBJ on x86, a source
# file of TREE on arm).  ccache hashes piggy.S, which names FILE and on
# x86 its sizes, never its bytes: a kernel whose compressed size is the
# same as an earlier one's gets that kernel's piggy.o from the cache and
# boots it (2026-12-05: a bench kernel whose one changed constant left
# the gzip size as it was booted the kernel before the change).  This
# compares FILE with the section of piggy.o of FILE's size, byte for
# byte.  No piggy.o (arm64's Image): true.
piggy_fresh() {
	local dir=$1/arch/$3/boot/compressed s inc data size off sz
	[ -f "$dir/piggy.o" ] || return 0
	s=$dir/piggy.S
	[ -f "$s" ] || s=$2/arch/$3/boot/compressed/piggy.S
	inc=$(sed -n 's/^[[:space:]]*\.incbin[[:space:]]*"\([^"]*\)".*/\1/p' "$s" | head -n 1)
	[ -n "$inc" ] || die "no .incbin in $s: cannot check $dir/piggy.o"
	data=$1/$inc
	[ -f "$data" ] || die "$data (named by $s's .incbin) not found"
	size=$(stat -c %s "$data")
	# readelf -SW rows, after "[Nr]": name, type, address, offset, size.
	while read -r _ _ _ off sz _; do
		[[ $off$sz =~ ^[0-9a-f]+$ ]] && [ $((16#$sz)) -eq "$size" ] || continue
		cmp -s -i "$((16#$off)):0" -n "$size" "$dir/piggy.o" "$data"
		return
	done < <(readelf -SW "$dir/piggy.o" | sed -n 's/^[[:space:]]*\[[[:space:]]*[0-9]*\][[:space:]]*//p')
	return 1
}

# Hold an exclusive lock on the build folder for the rest of the script,
# so that two runs on one build folder wait for each other instead of
# corrupting the trees.  A run that already holds it (the Makefile
# calling several steps) passes MM510_LOCKED=1 down.
lock_build() {
	[ "${MM510_LOCKED:-}" = 1 ] && return 0
	mkdir -p "$BUILD"
	exec 9>"$BUILD/.lock"
	if ! flock -n 9; then
		msg "another run holds $BUILD/.lock; waiting for it"
		flock 9
	fi
	export MM510_LOCKED=1
}

# --- base trees ------------------------------------------------------------
# The trees the stack applies to (the one place that names them):
#   vanilla    the pinned tarball, tag $BASE_TAG of $BASE_REPO
#   debian     vanilla + Debian's debian/patches (ci/debian.sh)
#   debian-rt  debian + debian/patches-rt, the PREEMPT_RT queue of
#              Debian's -rt flavour: the RT flavour of the series
#   android    ACK android12-5.10 (ci/android.pin, ci/android.sh), or
#              the user's own checkout of it (KERNEL_TREE): the
#              android flavour of the series
# A scenario names its tree on a fragment's "# Tree: NAME" line
# (ci/scenario.sh); otherwise BASE_TREE (default vanilla) names it.
# tree_load NAME sets TR_NAME, TR_TAG (its tag in $BASE_REPO),
# TR_FLAVOUR (the series flavour: vanilla, rt or android, see
# series_patches) and
# TR_SUFFIX ("" or "-NAME": of its stack worktree, branch and checkout).
TREES="vanilla debian debian-rt android"
tree_load() {
	# shellcheck disable=SC2034  # read by the scripts sourcing this
	case $1 in
	vanilla)   TR_TAG=$BASE_TAG TR_FLAVOUR=vanilla TR_SUFFIX= ;;
	debian)    TR_TAG=debian/$DEBIAN_SRC_VERSION TR_FLAVOUR=vanilla TR_SUFFIX=-debian ;;
	debian-rt) TR_TAG=debian-rt/$DEBIAN_SRC_VERSION TR_FLAVOUR=rt TR_SUFFIX=-debian-rt ;;
	android)   TR_TAG=$ANDROID_BRANCH/$ANDROID_VERSION TR_FLAVOUR=android TR_SUFFIX=-android ;;
	*) die "unknown base tree '$1'; known: $TREES" ;;
	esac
	TR_NAME=$1
}
tree_load "${BASE_TREE:-vanilla}"

# tree_import [--checkout]: the tree's tag in $BASE_REPO, made once
# (vanilla's is ci/base.sh's), and with --checkout its worktree
# (base_checkout).
tree_import() {
	case $TR_NAME in
	vanilla) ;;
	android) "$TOP/ci/android.sh" "$@" ;;
	*)	"$TOP/ci/debian.sh" "$TR_NAME" "$@" ;;
	esac
}

# android_branch DIR|COMMIT: the BRANCH= an Android common kernel names
# in its build.config.constants (newer trees) or build.config.common,
# read from folder DIR or from COMMIT of $BASE_REPO; empty for a tree
# that has neither (not ACK).
android_branch() {
	local f
	for f in build.config.constants build.config.common; do
		if [ -d "$1" ]; then
			[ -f "$1/$f" ] && cat "$1/$f"
		else
			git -C "$BASE_REPO" show "$1:$f" 2>/dev/null
		fi | sed -n 's/^BRANCH=//p' | head -n 1 | grep . && return 0
	done
	return 0
}

# The checked-out base of the tree (TREE=base builds): $BASE_REPO itself
# for vanilla, a worktree (ci/debian.sh --checkout) for the others.
base_checkout() {
	if [ "$TR_NAME" = vanilla ]; then
		echo "$BASE_REPO"
	else
		echo "$BUILD/base$TR_SUFFIX"
	fi
}

# The patch files of a quilt series file, in order, for one flavour
# (default: the tree's).  Besides quilt's own lines, the series marks
# the patches of one flavour, in comments that quilt and `git am` of the
# files in order do not see (they get the vanilla series):
#   "#+rt NAME"        a patch of the RT flavour only, at this position
#   "NAME ... #-rt"    a patch the RT flavour leaves out
# Flavour "all" lists every patch file the series names.
series_patches() {
	local series=${1:-$TOP/series} fl=${2:-$TR_FLAVOUR}
	awk -v fl="$fl" '
		/^#\+[a-z]+[ \t]/ {
			f = substr($1, 3)
			if (fl == f || fl == "all") print $2
			next
		}
		{ sub(/^[ \t]+/, "") }
		/^#/ || NF == 0 { next }
		{
			for (i = 2; i <= NF; i++)
				if ($i == "#-" fl) next
			print $1
		}' "$series"
}

# series_stamp BASE-COMMIT BRANCH PATCH...: what `make apply` applied (the
# base, the identity, the branch, each patch's name and contents) as one
# hash; ci/apply.sh keeps it in $BUILD/<tree>.applied with the HEAD it
# made, and ci/refresh.sh compares it with patches/ before writing.
series_stamp() {
	local base=$1 branch=$2 p
	shift 2
	{ echo "$base"; echo "$IDENTITY"; echo "$branch"
	  for p in "$@"; do echo "$p"; cat "$TOP/patches/$p"; done
	} | sha256sum | cut -d' ' -f1
}

# stamp_applied FILE BASE-COMMIT BRANCH HEAD PATCH...: record in FILE that
# the patches are applied as branch BRANCH, at HEAD: their series_stamp,
# HEAD, and each file's hash (which ci/refresh.sh checks before it writes
# over a file).  Written whole, then moved into place.
stamp_applied() {
	local file=$1 base=$2 branch=$3 head=$4
	shift 4
	{ printf '%s\n%s\n' "$(series_stamp "$base" "$branch" "$@")" "$head"
	  (cd "$TOP/patches" && sha256sum -- "$@")
	} >"$file.new"
	mv "$file.new" "$file"
}

# stamp_current FILE STAMP HEAD: FILE (stamp_applied's) records STAMP
# (series_stamp's) applied, ending at HEAD: the stack is the series as
# it stands, where ci/apply.sh left it.
stamp_current() {
	[ -f "$1" ] && [ "$(head -n 1 "$1")" = "$2" ] && [ "$(sed -n 2p "$1")" = "$3" ]
}

# worktree_at DIR COMMIT: DIR, a worktree of $BASE_REPO, checked out
# (detached) at COMMIT: made when missing; moved there when it exists, after
# aborting a `git am` left in it, unless it has uncommitted changes.
worktree_at() {
	local wt=$1 want=$2 gitdir
	if [ -d "$wt" ]; then
		gitdir=$(git -C "$wt" rev-parse --absolute-git-dir)
		[ ! -d "$gitdir/rebase-apply" ] || git -C "$wt" am --abort
		[ "$(git -C "$wt" rev-parse HEAD)" != "$want" ] || return 0
		[ -z "$(git -C "$wt" status --porcelain --untracked-files=no)" ] ||
			die "$wt has uncommitted changes; keep them elsewhere or discard them (git -C $wt checkout -- .) first"
		git -C "$wt" checkout -q --detach "$want"
	else
		git -C "$BASE_REPO" worktree prune
		git -C "$BASE_REPO" worktree add -q --detach "$wt" "$want"
	fi
}

# kmi_symbols TREE OUT: the union of the KMI symbol lists that an
# Android common kernel's GKI build names (TREE's build.config.gki.aarch64:
# KMI_SYMBOL_LIST and ADDITIONAL_KMI_SYMBOL_LISTS, "[abi_symbol_list]"
# files in android/), one symbol a line, sorted, written to OUT; prints
# the number of lists.  What the GKI build keeps exported when it trims
# (TRIM_NONLISTED_KMI): every other export is dropped.
kmi_symbols() {
	local tree=$1 out=$2 bc=$1/build.config.gki.aarch64 f lists
	[ -f "$bc" ] || die "$bc missing: no KMI symbol lists to check (give KABI_SYMBOLS=FILE)"
	mapfile -t lists < <(sed -n '/^KMI_SYMBOL_LIST=/p; /^ADDITIONAL_KMI_SYMBOL_LISTS="/,/"/p' "$bc" |
		grep -o 'android/[A-Za-z0-9_.-]*' | sort -u)
	[ ${#lists[@]} -gt 0 ] || die "$bc names no KMI symbol list"
	for f in "${lists[@]}"; do
		[ -f "$tree/$f" ] || die "$bc names $f, which the tree does not have"
	done
	sed -e 's/#.*//' -e '/^[[:space:]]*\[.*\][[:space:]]*$/d' "${lists[@]/#/$tree/}" |
		awk 'NF == 1 { print $1 }' | sort -u >"$out.new"
	mv "$out.new" "$out"
	echo "${#lists[@]}"
}

# tree_marks PATCH OUTPUT REPO COMMIT: what of a downstream tree's own
# (COMMIT of git repository REPO) stands where `git am` (its OUTPUT)
# failed in PATCH, as ", where it meets ...", or nothing: the calls (vendor hooks, KABI reserves, its own helpers)
# in the base's lines there that the file of the vanilla base
# ($BASE_TAG) does not have.  The lines are those of the function or
# struct that the failing hunk names in its @@ line (found by its name:
# the downstream tree moves it and may change its arguments), else
# those around the hunk's position.
tree_marks() {
	local patch=$1 out=$2 src=$3 base=$4 at file line what re from to text vanilla marks
	at=$(sed -n 's/^error: patch failed: //p' <<<"$out" | head -n 1)
	[ -n "$at" ] || return 0
	file=${at%:*} line=${at##*:}
	[[ $line =~ ^[0-9]+$ ]] || return 0
	text=$(git -C "$src" show "$base:$file" 2>/dev/null) || return 0
	vanilla=$(git -C "$BASE_REPO" show "$BASE_TAG:$file" 2>/dev/null) || return 0
	# The hunk's @@ line: "NAME" for a function (a line that does not
	# end in ";"), "struct NAME" for a type.
	what=$(awk -v f="+++ b/$file" -v l="$line" '
		$0 == f { in_file = 1; next }
		/^\+\+\+ / { in_file = 0 }
		in_file && index($0, "@@ -" l ",") == 1 {
			sub(/^@@ [^@]* @@ ?/, "")
			if (match($0, /^(struct|union|enum) [A-Za-z_][A-Za-z0-9_]* \{/))
				print substr($0, RSTART, RLENGTH - 2)
			else if ($0 !~ /;[ \t]*$/ && match($0, /[A-Za-z_][A-Za-z0-9_]*\(/))
				print substr($0, RSTART, RLENGTH - 1)
			exit
		}' "$patch")
	case $what in
	'') re= ;;
	*' '*) re="^$what \\{" ;;
	*) re="^[^[:space:]#].*\\<$what\\(" ;;
	esac
	from=
	[ -z "$re" ] || from=$(grep -nE "$re" <<<"$text" | head -n 1 | cut -d: -f1)
	if [ -n "$from" ]; then
		to=$(awk -v a="$from" 'NR > a && /^}/ { print NR; exit }' <<<"$text")
	else
		what='' from=$((line > 20 ? line - 20 : 1)) to=$((line + 40))
	fi
	marks=$(sed -n "$from,${to:-\$}p" <<<"$text" |
		grep -oE '\<[A-Za-z_][A-Za-z0-9_]*\(' | tr -d '(' | awk '!seen[$0]++' |
		while IFS= read -r id; do
			grep -qw -- "$id" <<<"$vanilla" || printf '%s\n' "$id"
		done | paste -sd, - | sed 's/,/, /g') || :
	[[ -z $what || $what == *' '* ]] || what="$what()"
	[ -z "$marks" ] || echo ", where it meets $marks in ${what:+$what of }$file"
}

# objects_in_config CONFIG TREE OBJECT...: which OBJECTs (paths of TREE)
# a kernel of .config CONFIG builds, in OC_BUILT; OC_SKIPPED names the
# others, each as "OBJECT (CONFIG_X)": those that the folder's Makefile
# adds under an option (obj-$(CONFIG_X)) CONFIG does not set.  An object
# added otherwise (obj-y, a composite's list) counts as built.
objects_in_config() {
	local config=$1 tree=$2 o opt
	shift 2
	OC_BUILT=() OC_SKIPPED=()
	for o; do
		opt=$(sed -e ':a' -e '/\\$/N' -e 's/\\\n//' -e 'ta' "$tree/$(dirname "$o")/Makefile" 2>/dev/null |
			awk -v o="$(basename "$o")" '{ for (i = 2; i <= NF; i++) if ($i == o) print $1 }' |
			sed -n 's/^obj-\$(\(CONFIG_[A-Za-z0-9_]*\)).*/\1/p' | head -n 1)
		if [ -n "$opt" ] && ! grep -q "^$opt=[ym]" "$config"; then
			OC_SKIPPED+=("$o ($opt)")
		else
			OC_BUILT+=("$o")
		fi
	done
}

# make_objects LOG OBJECT...: build each OBJECT with the caller's
# "${kmake[@]}", the output in LOG.  Kbuild builds one object only when
# it can reach its folder from the folder above (5.10 cannot reach
# arch/x86/pci/, which arch/x86's Makefile adds at the top): such an
# object is left out, in MO_ALONE; MO_BUILT holds the others.  Any other
# failure dies, naming LOG.
make_objects() {
	local log=$1 o
	shift
	MO_BUILT=("$@") MO_ALONE=()
	while ! "${kmake[@]}" "${MO_BUILT[@]}" >"$log" 2>&1; do
		o=$(sed -n "s/^make\[[0-9]*\]: \*\*\* No rule to make target '\([^']*\.o\)'.  Stop\.\$/\1/p" \
			"$log" | head -n 1)
		if [ -z "$o" ] || ! in_list "$o" "${MO_BUILT[@]}"; then
			grep -E 'error|Error' "$log" | head -n 20 >&2 || :
			die "build of ${MO_BUILT[*]} failed; full log: $log"
		fi
		MO_ALONE+=("$o")
		mapfile -t MO_BUILT < <(printf '%s\n' "${MO_BUILT[@]}" | grep -vxF "$o")
		[ ${#MO_BUILT[@]} -gt 0 ] || break
	done
}

# The tree the stack is applied in: ours, or a worktree of KERNEL_TREE.
stack_tree() {
	if [ -n "${KERNEL_TREE:-}" ]; then
		echo "$BUILD/stack-user$TR_SUFFIX"
	else
		echo "$BUILD/stack$TR_SUFFIX"
	fi
}

# The stack's branch in it.
stack_branch() {
	echo "$STACK_BRANCH$TR_SUFFIX"
}

# --- upstream.tsv: the upstream facts the patch headers must agree with ------
#
# One row per upstream commit a patch backports, folds in (Also-contains:)
# or fixes (Fixes:), six tab-separated columns: commit (40 lower-case
# hex), release (vX.Y or vX.Y-rcN), author ("Name <email>"), message-id
# of the commit's own posting (bare, or "-" when none can be named),
# subject (exact upstream subject), source (where the facts were
# confirmed).  Lines starting with '#' and blank lines are ignored.
UPSTREAM_TSV=$TOP/upstream.tsv

# upstream_load: read UPSTREAM_TSV into UP_IDS (the commits, in order)
# and UP_RELEASE, UP_AUTHOR, UP_MSGID, UP_SUBJECT (by commit).  A missing
# or malformed table prints "upstream.tsv:LINE: problem" lines on stdout,
# one per problem, and returns 1.
upstream_load() {
	local line no=0 tabs c rel author mid subj src i bad=0
	declare -gA UP_RELEASE=() UP_AUTHOR=() UP_MSGID=() UP_SUBJECT=()
	declare -gA up_line=()
	UP_IDS=()
	if [ ! -f "$UPSTREAM_TSV" ]; then
		echo "upstream.tsv: missing ($UPSTREAM_TSV): the table of upstream facts must be committed"
		return 1
	fi
	while IFS= read -r line || [ -n "$line" ]; do
		no=$((no + 1))
		[[ $line == \#* || $line =~ ^[[:space:]]*$ ]] && continue
		local at="upstream.tsv:$no:"
		if [[ $line == *$'\r'* ]]; then
			echo "$at has a carriage return (DOS line ends)"; bad=1; continue
		fi
		tabs=${line//[!$'\t']/}
		if [ ${#tabs} -ne 5 ]; then
			echo "$at $((${#tabs} + 1)) columns, expected 6 tab-separated (commit, release, author, message-id, subject, source)"
			bad=1; continue
		fi
		if [[ $line == $'\t'* || $line == *$'\t' || $line == *$'\t\t'* ]]; then
			echo "$at an empty column (write '-' for a message-id that cannot be named)"
			bad=1; continue
		fi
		IFS=$'\t' read -r c rel author mid subj src <<<"$line"
		for i in "$c" "$rel" "$author" "$mid" "$subj" "$src"; do
			[[ $i =~ ^[[:space:]]|[[:space:]]$ ]] || continue
			echo "$at column '$i' has leading or trailing blanks"; bad=1; continue 2
		done
		if [[ ! $c =~ ^[0-9a-f]{40}$ ]]; then
			echo "$at commit '$c' is not 40 lower-case hex digits"; bad=1; continue
		fi
		if [ -n "${up_line[$c]:-}" ]; then
			echo "$at commit $c is already on line ${up_line[$c]}"; bad=1; continue
		fi
		up_line[$c]=$no
		if [[ ! $rel =~ ^v[0-9]+\.[0-9]+(-rc[0-9]+)?$ ]]; then
			echo "$at release '$rel' is not vX.Y or vX.Y-rcN"; bad=1
		fi
		if [[ ! $author =~ ^[^\<\>@]+\ \<[^\<\>@[:space:]]+@[^\<\>@[:space:]]+\>$ ]]; then
			echo "$at author '$author' is not 'Name <email>'"; bad=1
		fi
		if [ "$mid" != - ] && [[ ! $mid =~ ^[^\<\>@/[:space:]]+@[^\<\>@/[:space:]]+$ ]]; then
			echo "$at message-id '$mid' is not a bare message-id (no <>, no URL) or '-'"; bad=1
		fi
		if [[ $subj =~ ^\[ ]]; then
			echo "$at subject '$subj' has a [...] prefix: give the upstream subject only"; bad=1
		fi
		UP_IDS+=("$c")
		# shellcheck disable=SC2034  # read by the scripts sourcing this
		UP_RELEASE[$c]=$rel UP_AUTHOR[$c]=$author UP_MSGID[$c]=$mid UP_SUBJECT[$c]=$subj
	done <"$UPSTREAM_TSV"
	return "$bad"
}

# upstream_find HEX: set UP_ID to the one commit of the table that HEX
# (12 to 40 hex digits) is a prefix of; otherwise set UP_WHY and fail.
upstream_find() {
	local c hits=()
	UP_ID="" UP_WHY=""
	if [[ ! $1 =~ ^[0-9a-f]{12,40}$ ]]; then
		UP_WHY="'$1' is not 12 to 40 lower-case hex digits"
		return 1
	fi
	for c in "${UP_IDS[@]}"; do
		[[ $c == "$1"* ]] && hits+=("$c")
	done
	# shellcheck disable=SC2034  # read by the scripts sourcing this
	case ${#hits[@]} in
	1) UP_ID=${hits[0]}; return 0 ;;
	0) UP_WHY="$1 is not in upstream.tsv" ;;
	*) UP_WHY="$1 is ambiguous in upstream.tsv (${#hits[@]} rows: ${hits[*]})" ;;
	esac
	return 1
}
