#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the pinned base tarball from Debian's source archive and verify it.
#
# The archive's address comes from this machine's own apt configuration
# (the deb.debian.org mirror it already uses); the source index is read
# into a private apt state folder, so the system's sources and lists are
# never touched.  The tarball lands in $CACHE_DIR; a second run downloads
# nothing.  A partial or corrupt download never takes the final name.
#
# `fetch.sh 5.10.N` fetches another 5.10.y release for `make rebase`:
# there is no pin for it, so its sha256 is the one the archive's signed
# source index gives (apt verifies the index's signature), searched in
# the security suite, then the release and updates suites of the same
# archive.
#
# `fetch.sh debian [5.10.N-R]` fetches Debian's packaging tarball
# (linux_5.10.N-R.debian.tar.xz: debian/patches and debian/patches-rt,
# the two Debian trees of ci/debian.sh) of the pinned upload
# (ci/debian.pin), or of another revision for `make rebase`, checked the
# same way.
#
# Overrides (for tests, mirrors and machines offline): MM510_ARCHIVE_URI,
# MM510_TARBALL (a local copy of the pinned base tarball),
# MM510_DEBIAN_TARBALL (a local copy of the pinned Debian tarball); a
# local copy is verified against its pin and copied into the cache.

. "$(dirname "$0")/lib.sh"

all_suites="$BASE_SRC_SUITE ${BASE_SRC_SUITE%-security} ${BASE_SRC_SUITE%-security}-updates"
src_version=
if [ "${1:-}" = debian ]; then
	# Debian's packaging tarball (debian/patches, debian/patches-rt).
	rev=${2:-$DEBIAN_SRC_VERSION}
	[[ "$rev" =~ ^5\.10\.[0-9]+-[0-9A-Za-z.+~]+$ ]] ||
		die "'$rev' is not a Debian revision of a 5.10.y release (5.10.N-R)"
	file=linux_$rev.debian.tar.xz
	src_version=$rev
	override_var=MM510_DEBIAN_TARBALL
	if [ "$rev" = "$DEBIAN_SRC_VERSION" ]; then
		want_sum=$DEBIAN_SHA256
		suites=$BASE_SRC_SUITE
	else
		[ -z "${MM510_DEBIAN_TARBALL:-}" ] ||
			die "MM510_DEBIAN_TARBALL names the pinned $DEBIAN_FILE; it cannot stand for $rev"
		want_sum=
		suites=$all_suites
	fi
else
	version=${1:-$BASE_VERSION}
	override_var=MM510_TARBALL
	if [ "$version" = "$BASE_VERSION" ]; then
		file=$BASE_FILE
		want_sum=$BASE_SHA256
		suites=$BASE_SRC_SUITE
		src_version=$BASE_SRC_VERSION
	else
		[[ "$version" =~ ^5\.10\.[0-9]+$ ]] ||
			die "'$version' is not a 5.10.y release (5.10.N)"
		[ -z "${MM510_TARBALL:-}" ] ||
			die "MM510_TARBALL names the pinned base; it cannot stand for $version"
		file=linux_$version.orig.tar.xz
		want_sum=
		suites=$all_suites
	fi
fi
override=${!override_var:-}
unpinned=
[ -n "$want_sum" ] || unpinned=1
tarball=$CACHE_DIR/$file

# Every archive URI in this machine's apt sources (deb822 and one-line).
apt_uris() {
	{
		sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null
		sed -n 's/^deb\(-src\)\?[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*\).*/\3/p' \
			/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null
	} | tr ' ' '\n' | sed -e '/^$/d' -e 's,/*$,,'
}

# The security archive this machine's apt uses; failing that, the same
# host's debian-security beside its main archive.
security_uri() {
	local uri
	uri=$(apt_uris | grep -E '/debian-security$' | head -n 1 || :)
	if [ -z "$uri" ]; then
		uri=$(apt_uris | grep -E '/debian$' | head -n 1 || :)
		[ -n "$uri" ] && uri=$uri-security
	fi
	[ -n "$uri" ] ||
		die "no Debian archive found in /etc/apt/sources.list*; set MM510_ARCHIVE_URI"
	echo "$uri"
}

if [ -n "$override" ]; then
	# A file the user already has: verify it, then use it as the cache.
	[ -f "$override" ] || die "$override_var=$override does not exist"
	sha256_ok "$override" "$want_sum" || die "$override_var is not the pinned $file"
	mkdir -p "$CACHE_DIR"
	if [ "$(realpath "$override")" != "$(realpath -m "$tarball")" ]; then
		trap 'rm -f "$tarball.part"' EXIT
		if ! err=$(cp "$override" "$tarball.part" 2>&1); then
			echo "$err" >&2
			grep -q 'No space left on device' <<<"$err" &&
				die "no space left on device in $CACHE_DIR for $file; nothing was kept"
			die "cannot copy $override into $CACHE_DIR; nothing was kept"
		fi
		mv -f "$tarball.part" "$tarball"
	fi
	exit 0
fi

# A cached release without a pin keeps the checksum it was fetched with.
[ -n "$want_sum" ] || [ ! -f "$tarball.sha256" ] || want_sum=$(cat "$tarball.sha256")
if [ -f "$tarball" ] && [ -n "$want_sum" ]; then
	sha256_ok "$tarball" "$want_sum" ||
		die "cached $tarball is corrupt; remove it and run 'make fetch' again"
	msg "using cached $tarball"
	exit 0
fi

need apt-get apt
need sha256sum coreutils
mkdir -p "$CACHE_DIR"
apt_dir=$(mktemp -d "$CACHE_DIR/apt.XXXXXX")
trap 'rm -rf "$apt_dir" "$tarball.part"' EXIT

uri=${MM510_ARCHIVE_URI:-$(security_uri)}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || die "$keyring missing: apt-get install debian-archive-keyring"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
for suite in $suites; do
	# The security suite lives in its own archive, the others beside it.
	case $suite in
	*-security) suri=$uri ;;
	*) suri=${MM510_ARCHIVE_URI:-${uri%-security}} ;;
	esac
	echo "deb-src [signed-by=$keyring] $suri $suite $BASE_SRC_COMPONENT"
done >"$apt_dir/sources.list"
apt_opts=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list"
	  -o "Dir::Etc::sourceparts=/dev/null"
	  -o "Dir::State::Lists=$apt_dir/lists"
	  -o "Dir::Cache=$apt_dir/cache"
	  -o "Acquire::Retries=2")

msg "reading ${suites// /, } sources from $uri"
apt-get -q "${apt_opts[@]}" update >"$apt_dir/update.log" 2>&1 || {
	cat "$apt_dir/update.log" >&2
	die "cannot read the source index at $uri ($suites): is the archive reachable?"
}
if grep -qE '^(W|E): Failed to fetch' "$apt_dir/update.log"; then
	cat "$apt_dir/update.log" >&2
	die "cannot read the source index at $uri ($suites): is the archive reachable?"
fi

if [ -z "$src_version" ]; then
	# The first Debian revision of $BASE_SRC_PACKAGE that ships the file.
	src_version=$(apt-cache "${apt_opts[@]}" showsrc "$BASE_SRC_PACKAGE" 2>/dev/null |
		awk -v f="$file" '/^Version:/ { v = $2 }
			$NF == f && v && !first { first = v } END { print first }')
	[ -n "$src_version" ] ||
		die "no $BASE_SRC_PACKAGE source in $uri ($suites) ships $file; is $version in Debian's archive?"
fi

# The archive names the file and its checksum; a pin must match it.
line=$(apt-get -q "${apt_opts[@]}" --print-uris source \
	"$BASE_SRC_PACKAGE=$src_version" 2>/dev/null | grep "' $file " || :)
[ -n "$line" ] ||
	die "$BASE_SRC_PACKAGE $src_version ($file) not found in $uri ($suites)"
file_uri=$(echo "$line" | sed "s/^'\([^']*\)'.*/\1/")
archive_sum=$(echo "$line" | sed -n 's/.*SHA256:\([0-9a-f]*\).*/\1/p')
if [ -z "$want_sum" ]; then
	[ -n "$archive_sum" ] || die "the archive gives no sha256 for $file"
	msg "$file is not pinned; using the archive's sha256 $archive_sum"
	want_sum=$archive_sum
fi
[ "$archive_sum" = "$want_sum" ] ||
	die "the archive lists $file with sha256 $archive_sum, the pin says $want_sum"

msg "downloading $file_uri"
# apt's own downloader checks the hash before the file is complete.
/usr/lib/apt/apt-helper download-file "$file_uri" "$tarball.part" \
	"SHA256:$want_sum" >"$apt_dir/download.log" 2>&1 || {
	cat "$apt_dir/download.log" >&2
	die "download of $file_uri failed; nothing was kept"
}
sha256_ok "$tarball.part" "$want_sum" || die "downloaded file does not match the pin; nothing was kept"
[ -z "$unpinned" ] || echo "$want_sum" >"$tarball.sha256"
mv -f "$tarball.part" "$tarball"
msg "fetched $tarball"
