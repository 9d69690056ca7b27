#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh SCENARIO: configure and build the kernel of a scenario, the
# test modules against it, and its initramfs (runner, tests, modules,
# and the tree's own cgroup selftests), for the scenario's arch
# (ci/scenario.sh: ARCH, CROSS_COMPILE, the image; cross-built with
# Debian's cross compilers for the arches other than x86).
#
# TREE=stack (default) builds the applied stack, TREE=base the plain
# base (the scenario's base tree: vanilla, or Debian's), TREE=peer the
# peer kernel of `make bench` (ci/peer.sh), TREE=cut the stack cut after
# a group of the series (make bench ATTRIB=1 checks out $BUILD/cut).  Out of tree (O=), one folder per (tree, fragments),
# with ccache.
# The .config is regenerated from the fragments every time but replaces
# the old one only when it differs, so an unchanged run rebuilds nothing.
# Every value a fragment asks for must survive; one that does not fails
# the build with its name.  CONFIG_ONLY=1 stops after the .config (the
# cheap half: checks the fragments of a scenario in seconds).
# OBJECTS=listed compiles only the objects named in OBJECT_LIST that the
# configuration builds, and the test modules, against the prepared tree
# (modules_prepare), neither linked nor checked against vmlinux: what
# make kmi-check compares (ci/kmi-check.sh).

. "$(dirname "$0")/lib.sh"
. "$TOP/ci/scenario.sh"

[ $# -eq 1 ] || die "usage: build.sh SCENARIO"
scenario_load "$1"

need make make
need gcc gcc
need_cross
need ccache ccache
need flex flex
need bison bison
need bc bc
lock_build
# A kernel's objects, its modules and initramfs: 170 MB (default) to
# 240 MB (KASAN), more while linking.
need_space "$BUILD" 1024 "a kernel build"

case ${TREE:-stack} in
stack)	tree=$(stack_tree)
	[ -d "$tree" ] || die "$tree missing: run 'make apply' first" ;;
base)	tree=$(base_checkout)
	tree_import --checkout
	[ -d "$tree" ] || die "$tree missing: run 'make base' first" ;;
peer)	tree=$PEER_TREE
	[ -f "$tree/Makefile" ] || die "$tree missing: run 'ci/peer.sh' first" ;;
cut)	tree=$BUILD/cut
	[ -d "$tree" ] || die "$tree missing: make bench ATTRIB=1 checks it out" ;;
*)	die "TREE must be 'stack', 'base', 'peer' or 'cut', not '$TREE'" ;;
esac

# MODULES_FROM=base (the initramfs, below): the base's modules must be
# there, and CRCs that a module's load checks.
case ${MODULES_FROM:-} in
"")	;;
base)	[ "${TREE:-stack}" = stack ] || die "MODULES_FROM=base is for the stack's kernel, not TREE=$TREE"
	[ "$SC_TIMEOUT" != - ] || die "MODULES_FROM=base: $SC_NAME is compiled only, no initramfs takes modules"
	bobj=$BUILD/obj/$(basename "$(base_checkout)")-$SC_KEY
	grep -qs '^CONFIG_MODVERSIONS=y' "$bobj/.config" ||
		die "MODULES_FROM=base needs CONFIG_MODVERSIONS in $SC_KEY (ADD_FRAGMENTS=kabi adds it): without it nothing checks a module against the kernel"
	ls "$bobj"/mm510-modules/*.ko >/dev/null 2>&1 ||
		die "no test modules in $bobj/mm510-modules: build the base first (TREE=base, the same scenario and fragments)" ;;
*)	die "MODULES_FROM must be empty or 'base', not '$MODULES_FROM'" ;;
esac

# OBJECTS=changed (below): first, that the tree's own patches and the
# series change no file in common.
case ${OBJECTS:-all} in
all)	;;
changed)
	[ "${TREE:-stack}" = stack ] && [ "$TR_NAME" != vanilla ] && [ "$SC_TIMEOUT" = - ] ||
		die "OBJECTS=changed is for a compile-only scenario of the stack on a tree other than vanilla"
	ours=$(git -C "$tree" diff --name-only "$TR_TAG" HEAD)
	theirs=$(git -C "$tree" diff --name-only "$BASE_TAG" "$TR_TAG")
	both=$(comm -12 <(sort <<<"$ours") <(sort <<<"$theirs"))
	[ -z "$both" ] ||
		die "the $TR_NAME tree's own patches and the series both change ${both//$'\n'/ }: build the whole kernel (OBJECTS=all, as make check-full does)" ;;
listed)	[ -n "${OBJECT_LIST:-}" ] || die "OBJECTS=listed needs OBJECT_LIST, the objects to compile" ;;
*)	die "OBJECTS must be 'all', 'changed' or 'listed', not '$OBJECTS'" ;;
esac

obj=$BUILD/obj/$(basename "$tree")-$SC_KEY
jobs=${JOBS:-$(nproc)}
mkdir -p "$obj"
# LOCALVERSION= (set, empty): the release is the version plus the tree's
# localversion* files, without the "+" setlocalversion adds for a git
# tree that is not at a tag.
# ARCH and CROSS_COMPILE in the environment too: merge_config.sh's own
# make (allnoconfig) must see the scenario's arch and compiler.
export ARCH=$SC_ARCH CROSS_COMPILE=$SC_CROSS
# Reproducible images (Documentation/kbuild/reproducible-builds.rst): no
# build date, user, host or build count in the kernel.  Two builds of the
# same tree and config are then the same bytes, so that make bench's
# instruction counts (icount mode) can be compared across runs, not only
# within one.
export KBUILD_BUILD_TIMESTAMP=${KBUILD_BUILD_TIMESTAMP:-'Thu Jan  1 00:00:00 UTC 1970'}
export KBUILD_BUILD_USER=${KBUILD_BUILD_USER:-mm510}
export KBUILD_BUILD_HOST=${KBUILD_BUILD_HOST:-mm510}
export KBUILD_BUILD_VERSION=${KBUILD_BUILD_VERSION:-1}
kmake=(make -C "$tree" O="$obj" ARCH="$SC_ARCH" CROSS_COMPILE="$SC_CROSS"
       "${SC_KCC[@]}" LOCALVERSION= -j"$jobs")
# The llvm toolchain as ACK's build.config.aarch64 has it: clang, lld,
# LLVM's binutils and its integrated assembler; CROSS_COMPILE then only
# gives clang its target.  In the environment too, for merge_config.sh's
# make, whose Kconfig asks the compiler (CC_IS_CLANG, LLD_VERSION).
[ "$SC_TOOLCHAIN" != llvm ] || export LLVM=1 LLVM_IAS=1

# build_modules [MAKE-ARG...]: the test modules of tools/modules built
# against the tree in $obj/mm510-modules.
moddir=$obj/mm510-modules
build_modules() {
	local f
	mkdir -p "$moddir"
	# Drop modules whose source is gone (not kbuild's generated *.mod.c).
	for f in "$moddir"/*.c; do
		case $f in *.mod.c) continue ;; esac
		if [ -e "$f" ] && [ ! -e "$TOP/tools/modules/${f##*/}" ]; then
			rm -f "$f" "${f%.c}.o" "${f%.c}.ko" "${f%.c}.mod" "${f%.c}.mod.c" "${f%.c}.mod.o"
		fi
	done
	for f in "$TOP"/tools/modules/Kbuild "$TOP"/tools/modules/*.c; do
		[ -e "$f" ] || continue
		cmp -s "$f" "$moddir/${f##*/}" || cp -p "$f" "$moddir/"
	done
	ls "$moddir"/*.c >/dev/null 2>&1 && grep -q '^CONFIG_MODULES=y' "$obj/.config" || return 0
	"${kmake[@]}" M="$moddir" "$@" modules >"$moddir/build.log" 2>&1 || {
		grep -E 'error|warning' "$moddir/build.log" | head -n 20 >&2 || :
		die "test modules failed to build for $SC_KEY; log: $moddir/build.log"
	}
	! grep -q 'warning:' "$moddir/build.log" || {
		grep 'warning:' "$moddir/build.log" >&2
		die "test modules build with warnings for $SC_KEY"
	}
}

# --- configuration --------------------------------------------------------
frags=()
for f in "${SC_FRAGMENTS[@]}"; do frags+=("$TOP/configs/$f.config"); done
cfgtmp=$(mktemp -d "$BUILD/.config.XXXXXX")
trap 'rm -rf "$cfgtmp"' EXIT
# On allnoconfig (-n), or on the tree's defconfig that a fragment names
# (ci/scenario.sh, SC_DEFCONFIG) with what it leaves unset at defaults.
mopts=(-n) base_cfg=()
if [ -n "$SC_DEFCONFIG" ]; then
	mopts=() base_cfg=("$tree/arch/$SC_ARCH/configs/$SC_DEFCONFIG")
	[ -f "${base_cfg[0]}" ] ||
		die "$SC_KEY starts from $SC_DEFCONFIG, which $tree does not have (arch/$SC_ARCH/configs/)"
fi
(cd "$tree" && scripts/kconfig/merge_config.sh "${mopts[@]}" -O "$cfgtmp" "${base_cfg[@]}" "${frags[@]}") \
	>"$cfgtmp/merge.log" 2>&1 || {
	cat "$cfgtmp/merge.log" >&2
	die "merge_config.sh failed for $SC_KEY"
}
# The options the tree's Kconfig files define for this arch (every file
# but those of the other arch/*/ folders), and those only other arches
# define.  A fragment's option of another arch (X86_64_ACPI_NUMA on
# arm64) does not apply here and is only reported; an option no Kconfig
# file defines is a mistake and fails the build.
(cd "$tree" && find . -name 'Kconfig*' -type f) |
	awk -v own="$cfgtmp/own" -v other="$cfgtmp/other" -v a="./arch/$SC_ARCH/" \
		'{ print > ((!/^\.\/arch\/[^\/]+\// || index($0, a) == 1) ? own : other) }'
for f in own other; do
	(cd "$tree" && xargs sed -n 's/^[[:space:]]*\(menu\)\{0,1\}config[[:space:]]\{1,\}\([A-Za-z0-9_]*\).*/CONFIG_\2/p' <"$cfgtmp/$f") |
		sort -u >"$cfgtmp/syms.$f"
done
comm -23 "$cfgtmp/syms.other" "$cfgtmp/syms.own" >"$cfgtmp/syms.foreign"
# Last fragment wins, as in merge_config.sh.
lost=$(cat "${frags[@]}" | sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=.*/&/p; s/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/&/p' |
	awk '{ k = $0; sub(/=.*/, "", k); sub(/^# /, "", k); sub(/ is not set$/, "", k); want[k] = $0 }
	     END { for (k in want) print want[k] }' |
	while read -r want; do
		k=${want#\# }; k=${k%%=*}; k=${k% is not set}
		if ! grep -qxF "$k" "$cfgtmp/syms.own"; then
			grep -qxF "$k" "$cfgtmp/syms.foreign" || {
				echo "$want (no Kconfig file of the tree defines $k)"; continue; }
			echo "$k: not an option of $SC_ARCH, left out" >>"$cfgtmp/foreign.log"
			continue
		fi
		if [[ $want == "# "* ]]; then
			grep -q "^$k=" "$cfgtmp/.config" && echo "$want (got $(grep "^$k=" "$cfgtmp/.config"))"
		else
			grep -qxF "$want" "$cfgtmp/.config" ||
				echo "$want (got $(grep -E "^(# )?${want%%=*}[= ]" "$cfgtmp/.config" || echo 'not present'))"
		fi
	done || :)
[ -z "$lost" ] || {
	echo "$lost" | sed 's/^/  /' >&2
	die "requested config values did not survive for $SC_KEY (dependencies missing?)"
}
[ ! -s "$cfgtmp/foreign.log" ] || sed "s/^/${0##*/}: $SC_KEY: /" "$cfgtmp/foreign.log" >&2
# ACK's GKI release build (configs/trim.config): the exports kept are
# those of the KMI lists, flattened into one file as ACK's build.sh does
# (abi_symbollist.raw), with the lists a partner adds: the flavour's new
# interfaces (ci/kmi-new-api) and the plain ACK exports the project's
# test modules call that ACK's lists lack (ci/kmi-vendor-list).  The
# fragment names the android tree, whose lists these are.
if grep -q '^CONFIG_TRIM_UNUSED_KSYMS=y' "$cfgtmp/.config"; then
	kmi_symbols "$tree" "$cfgtmp/kmi" >/dev/null
	sed -e 's/#.*//' -e '/^[[:space:]]*\[.*\][[:space:]]*$/d' "$TOP/ci/kmi-new-api" "$TOP/ci/kmi-vendor-list" |
		awk 'NF { print $1 }' | LC_ALL=C sort -u - "$cfgtmp/kmi" >"$cfgtmp/whitelist"
	cmp -s "$cfgtmp/whitelist" "$obj/abi_symbollist.raw" ||
		cp "$cfgtmp/whitelist" "$obj/abi_symbollist.raw"
	"$tree/scripts/config" --file "$cfgtmp/.config" \
		--set-str UNUSED_KSYMS_WHITELIST "$obj/abi_symbollist.raw"
	grep -qxF "CONFIG_UNUSED_KSYMS_WHITELIST=\"$obj/abi_symbollist.raw\"" "$cfgtmp/.config" ||
		die "$SC_KEY: CONFIG_UNUSED_KSYMS_WHITELIST did not take $obj/abi_symbollist.raw"
fi
if ! cmp -s "$cfgtmp/.config" "$obj/.config"; then
	msg "$SC_KEY: new .config"
	cp "$cfgtmp/.config" "$obj/.config"
fi
if [ "${CONFIG_ONLY:-}" = 1 ]; then
	msg "$SC_KEY: $obj/.config (CONFIG_ONLY=1: not built)"
	exit 0
fi

# --- OBJECTS=changed: the objects either side of the stack changed ----------
# For a compile-only scenario on a tree other than vanilla (make check's
# debian): the vanilla stack's build of the same config (the same
# fragments without the one naming the tree, which sets no option)
# compiles every other object from the same sources, so here only the
# files that differ from it are compiled: the C files the series changes
# (the stack's code against the tree's headers) and those the tree's own
# patches change (the tree's code against the series' headers), each
# where that vanilla build compiled it.  Neither a link nor a header
# included only elsewhere is checked (make check-full builds the whole
# kernel).  A file both change failed above: its merge needs a whole
# build.
if [ "${OBJECTS:-all}" = changed ]; then
	fragment_value Tree tree
	rfrags=()
	for f in "${SC_FRAGMENTS[@]}"; do [ "$f" = "$FV_FROM" ] || rfrags+=("$f"); done
	ref=$BUILD/obj/$(basename "$(tree_load vanilla; stack_tree)")-$(IFS=+; echo "${rfrags[*]}")
	[ -f "$ref/.config" ] && [ -f "$ref/vmlinux" ] ||
		die "OBJECTS=changed needs the vanilla stack built with the same fragments first ($ref)"
	cmp -s <(grep "^CONFIG_" "$ref/.config") <(grep "^CONFIG_" "$obj/.config") ||
		die "$ref/.config and $obj/.config differ: OBJECTS=changed needs the same config"
	objs=()
	while read -r f; do
		o=${f%.c}.o
		[ -f "$ref/$(dirname "$o")/.$(basename "$o").cmd" ] && objs+=("$o")
	done < <(printf '%s\n%s\n' "$ours" "$theirs" | grep '\.c$' | sort -u)
	[ ${#objs[@]} -gt 0 ] || die "no C file of the series or of the $TR_NAME tree is built in $SC_KEY"
	msg "building $(basename "$tree") for $SC_KEY in $obj: the ${#objs[@]} objects of the C files the series or the $TR_NAME tree changes"
	make_objects "$obj/build.log" "${objs[@]}"
	[ ${#MO_ALONE[@]} -eq 0 ] ||
		msg "$SC_KEY: not compiled, kbuild cannot build them alone: ${MO_ALONE[*]}"
	objs=("${MO_BUILT[@]}")
	msg "$SC_KEY: compiled ${objs[*]} (OBJECTS=changed: not linked)"
	exit 0
fi

# --- OBJECTS=listed: the objects of OBJECT_LIST and the test modules ---------
# On the prepared tree (modules_prepare: the generated headers, genksyms
# and modpost), without vmlinux: modpost cannot check the modules'
# symbols against it, and KBUILD_MODPOST_WARN=1 lets it say so and go on.
if [ "${OBJECTS:-all}" = listed ]; then
	read -r -a objs <<<"$OBJECT_LIST"
	objects_in_config "$obj/.config" "$tree" "${objs[@]}"
	[ ${#OC_SKIPPED[@]} -eq 0 ] || msg "$SC_KEY: not built in this configuration: ${OC_SKIPPED[*]}"
	objs=("${OC_BUILT[@]}")
	[ ${#objs[@]} -gt 0 ] || die "OBJECT_LIST: none of its objects is built in $SC_KEY"
	msg "preparing $(basename "$tree") for $SC_KEY in $obj: ${#objs[@]} objects and the test modules"
	"${kmake[@]}" modules_prepare >"$obj/build.log" 2>&1 || {
		grep -E 'error|Error' "$obj/build.log" | head -n 20 >&2 || :
		die "modules_prepare failed for $SC_KEY; full log: $obj/build.log"
	}
	make_objects "$obj/build-objects.log" "${objs[@]}"
	[ ${#MO_ALONE[@]} -eq 0 ] ||
		msg "$SC_KEY: not compiled, kbuild cannot build them alone: ${MO_ALONE[*]}"
	build_modules KBUILD_MODPOST_WARN=1
	msg "$SC_KEY: compiled ${MO_BUILT[*]} and the test modules (OBJECTS=listed: not linked)"
	exit 0
fi

# --- kernel -----------------------------------------------------------------
msg "building $(basename "$tree") kernel for $SC_KEY in $obj"
targets=("${SC_IMAGE##*/}")
grep -q '^CONFIG_MODULES=y' "$obj/.config" && targets+=(modules)
# In a terminal, every 30 s: the objects compiled so far, of the number
# the last complete build of this folder had ($obj/.mm510-objects).
touch "$obj/.mm510-progress"
build_progress() {
	local n total
	n=$(find "$obj" -name '*.o' -newer "$obj/.mm510-progress" | wc -l)
	total=$(cat "$obj/.mm510-objects" 2>/dev/null) || total=
	printf '%s object(s) compiled%s' "$n" "${total:+ (the last whole build had $total)}"
}
progress_start "$SC_KEY" "$obj/build.log" build_progress
"${kmake[@]}" "${targets[@]}" >"$obj/build.log" 2>&1 || {
	progress_stop
	grep -E 'error|Error' "$obj/build.log" | head -n 20 >&2 || :
	die "kernel build failed for $SC_KEY; full log: $obj/build.log"
}
# With the exports trimmed (configs/trim.config), a changed whitelist
# makes kbuild's autoksyms_recursive rebuild the exporting objects in a
# make of its own, after the outer make had judged vmlinux's archives up
# to date: vmlinux was not linked again (seen with kmem_cache_alloc_bulk
# added: slub.o rebuilt, Module.symvers without it).  A second make links
# what the first rebuilt; it does nothing when nothing changed.
if grep -q '^CONFIG_TRIM_UNUSED_KSYMS=y' "$obj/.config"; then
	"${kmake[@]}" "${targets[@]}" >>"$obj/build.log" 2>&1 || {
		progress_stop
		die "kernel build failed for $SC_KEY (second make, trimmed exports); full log: $obj/build.log"
	}
fi
progress_stop
find "$obj" -name '*.o' ! -name '*.mod.o' | wc -l >"$obj/.mm510-objects"
# A piggy.o from ccache may carry an earlier kernel (ci/lib.sh,
# piggy_fresh): then assemble it and link the image again without ccache.
if ! piggy_fresh "$obj" "$tree" "$SC_ARCH"; then
	msg "$SC_KEY: ccache gave the image an earlier kernel's piggy.o; linking it again without ccache"
	rm -f "$obj/arch/$SC_ARCH/boot/compressed/piggy.o"
	CCACHE_DISABLE=1 "${kmake[@]}" "${SC_IMAGE##*/}" >>"$obj/build.log" 2>&1 ||
		die "the image's second link failed for $SC_KEY; full log: $obj/build.log"
	piggy_fresh "$obj" "$tree" "$SC_ARCH" ||
		die "$obj/arch/$SC_ARCH/boot/compressed/piggy.o still does not carry the kernel just built"
fi

# --- test modules -------------------------------------------------------------
build_modules

# --- guest user space and initramfs -------------------------------------------
# Static programs for the scenario's arch: in $BUILD/tools for x86, in
# $BUILD/tools-ARCH for the others.  A compile-only scenario (no boot
# timeout) stops here: nothing boots its kernel.
if [ "$SC_TIMEOUT" = - ]; then
	msg "$SC_KEY: $obj/$SC_IMAGE (compile only: no initramfs)"
	exit 0
fi
tools=$BUILD/tools
[ "$SC_ARCH" = x86 ] || tools=$BUILD/tools-$SC_ARCH
make -s -C "$TOP/tools" OUT="$tools" CC="${SC_CROSS}gcc" >"$tools.log" 2>&1 || {
	cat "$tools.log" >&2
	die "the in-guest runner or tests failed to build for $SC_ARCH (log: $tools.log)"
}
# The tree's own cgroup selftests, built from the tree under test; not
# for the benchmark kernels, which run no tests.
ksft=$tools/kselftest-$(basename "$tree")
[ "$SC_TIER" = bench ] || make -s -C "$TOP/tools" kselftest KSFT_SRC="$tree/tools/testing/selftests" \
	KSFT_OUT="$ksft" CC="${SC_CROSS}gcc" >"$tools-kselftest.log" 2>&1 || {
	cat "$tools-kselftest.log" >&2
	die "the tree's cgroup selftests failed to build for $SC_ARCH (log: $tools-kselftest.log)"
}
# make bench's lat variant (configs/lat.config) runs Debian's cyclictest
# (rt-tests) in the guest, the one dynamically linked program there: its
# x86 kernels' initramfs carries /usr/bin/cyclictest, the shared
# libraries ldd names and the ELF interpreter, each at the path the host
# has it (the loader finds them in its default folders, without
# ld.so.cache).  Other arches go without, and bench/lat says so.
dyn=()
if [ "$SC_TIER" = bench ] && [ "$SC_ARCH" = x86 ] && in_list lat "${SC_FRAGMENTS[@]}"; then
	need cyclictest rt-tests
	need readelf binutils
	ct=/usr/bin/cyclictest
	[ -x "$ct" ] || die "$ct not found: install it with 'apt-get install rt-tests'"
	interp=$(readelf -l "$ct" | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]$/\1/p')
	[ -n "$interp" ] || die "$ct has no ELF interpreter: not the dynamically linked program of Debian's rt-tests"
	ldd "$ct" >"$cfgtmp/ldd.out" 2>&1 || {
		cat "$cfgtmp/ldd.out" >&2; die "ldd $ct failed"; }
	! grep -q 'not found' "$cfgtmp/ldd.out" || {
		cat "$cfgtmp/ldd.out" >&2; die "$ct: a shared library it needs is missing on this host"; }
	# ldd's lines: "name => /path (address)", "/path (address)" (the
	# interpreter), and the vDSO, which has no file.
	mapfile -t dyn < <({ echo "$ct"; echo "$interp"
		awk '$2 == "=>" { print $3; next } $1 ~ /^\// { print $1 }' "$cfgtmp/ldd.out"; } |
		awk '!seen[$0]++')
	for f in "${dyn[@]}"; do
		[ -f "$f" ] || die "$f (cyclictest's, from ldd) is not a file on this host"
	done
fi
# MODULES_FROM=base: the initramfs takes the test modules that the base
# tree's build of this scenario compiled, not those compiled here: modules
# built against the plain tree, as a vendor's are, loaded into the
# stack's kernel, where modversions refuses one whose CRCs disagree.
modsrc=$moddir
if [ "${MODULES_FROM:-}" = base ]; then
	modsrc=$bobj/mm510-modules
	msg "$SC_KEY: the initramfs takes the base's test modules ($modsrc)"
fi
list=$cfgtmp/initramfs.list
{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	for d in proc sys tmp mnt mnt/disk tests tests/bench modules kselftest kselftest/cgroup etc; do
		echo "dir /$d 0755 0 0"
	done
	echo "file /etc/hosts $TOP/tools/runner/hosts 0644 0 0"
	for t in "$ksft"/cgroup/*; do
		[ -e "$t" ] || continue
		echo "file /kselftest/cgroup/${t##*/} $t 0755 0 0"
	done
	echo "file /init $tools/init 0755 0 0"
	for t in "$tools"/tests/*; do
		[ -e "$t" ] || continue
		# Only tests whose source still exists.
		[ -f "$TOP/tools/tests/${t##*/}.c" ] || continue
		echo "file /tests/${t##*/} $t 0755 0 0"
	done
	# Benchmarks (make bench) run as mm510.tests=bench/<name>.
	for t in "$tools"/bench/*; do
		[ -e "$t" ] || continue
		[ -f "$TOP/tools/bench/${t##*/}.c" ] || continue
		echo "file /tests/bench/${t##*/} $t 0755 0 0"
	done
	# cyclictest and its libraries (lat variant, above): the folders
	# of their paths, parents first, then the files.
	if [ ${#dyn[@]} -gt 0 ]; then
		for f in "${dyn[@]}"; do
			d=${f%/*}
			while [ -n "$d" ]; do echo "$d"; d=${d%/*}; done
		done | sort -u | awk '!/^\/(dev|proc|sys|tmp|mnt|tests|modules|kselftest|etc)$/ {
			print "dir " $0 " 0755 0 0" }'
		for f in "${dyn[@]}"; do
			echo "file $f $(readlink -f "$f") 0755 0 0"
		done
	fi
	for m in "$modsrc"/*.ko; do
		[ -e "$m" ] || continue
		[ -f "$TOP/tools/modules/$(basename "$m" .ko).c" ] || continue
		echo "file /modules/${m##*/} $m 0644 0 0"
	done
} >"$list"
"$obj/usr/gen_init_cpio" "$list" >"$cfgtmp/initramfs.cpio"
cmp -s "$cfgtmp/initramfs.cpio" "$obj/mm510-initramfs.cpio" ||
	cp "$cfgtmp/initramfs.cpio" "$obj/mm510-initramfs.cpio"
msg "$SC_KEY: $obj/$SC_IMAGE, $obj/mm510-initramfs.cpio"
