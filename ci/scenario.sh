# SPDX-License-Identifier: GPL-2.0
# Look up a scenario of configs/scenarios.  Sourced after lib.sh.
#   scenario_load NAME  sets SC_NAME SC_FRAGMENTS (array) SC_KEY SC_TIER
#                       SC_TIMEOUT SC_MACHINE (array) SC_ARGS,
#                       SC_TOOLCHAIN (gcc or llvm) and SC_KCC (its
#                       compilers as make arguments), SC_DEFCONFIG, the arch
#                       (SC_ARCH and the other values arch_load sets) and
#                       the base tree (TR_*, ci/lib.sh's tree_load), or
#                       dies naming the known ones.  ADD_FRAGMENTS (comma-
#                       separated, e.g. kabi for make kabi) are appended to
#                       the scenario's fragments: their own build folder.
#   scenario_names [TIER]  lists the scenarios (of one tier).
#   scenario_table      prints each scenario's arch, tier, tree, machine,
#                       fragments and command line, as scenario_load
#                       reads them (make help).
#
# The arch: a fragment may name it on a line "# Arch: NAME" (the
# kernel's ARCH); a scenario whose fragments name none is x86.  Each
# arch the pipeline knows has one row here:
#   ARCH  CROSS_COMPILE  compiler-package  libc.a-for-static-guest-programs
#         libc-package  image  QEMU  QEMU-package
# ("-": none; an arch without QEMU is compile-only).  Adding an arch is
# a row here, its fragment and its branch in ci/boot.sh's machine.
#
# The toolchain of the kernel: a fragment may name it on a line
# "# Toolchain: llvm" (clang and lld, LLVM=1 LLVM_IAS=1, as Android's
# kernels are built; configs/llvm.config); otherwise gcc (SC_TOOLCHAIN).
#
# The starting config: a scenario's fragments are merged on allnoconfig,
# or, when a fragment names one on a line "# Defconfig: NAME", on the
# tree's own arch/ARCH/configs/NAME (SC_DEFCONFIG; ACK's gki_defconfig
# for configs/gki.config), the options it leaves unset at their
# defaults (merge_config.sh without -n, as make NAME does).
#
# The base tree: a fragment may name it on a line "# Tree: NAME" (one of
# ci/lib.sh's TREES: the RT fragment names debian-rt, whose kernel has
# PREEMPT_RT); a scenario whose fragments name none has BASE_TREE's
# (default vanilla).  A BASE_TREE that disagrees with the scenario's
# own is an error.

SCENARIOS=$TOP/configs/scenarios
# What a scenario's machine column may add to the guest (ci/boot.sh).
SC_MACHINE_FEATURES="dimm icount"

SC_ARCHES="\
x86   -                   gcc                     /usr/lib/x86_64-linux-gnu/libc.a  libc6-dev               arch/x86/boot/bzImage  qemu-system-x86_64   qemu-system-x86 virtio-blk-pci
arm64 aarch64-linux-gnu-  gcc-aarch64-linux-gnu   /usr/aarch64-linux-gnu/lib/libc.a libc6-dev-arm64-cross   arch/arm64/boot/Image  qemu-system-aarch64  qemu-system-arm virtio-blk-device
arm   arm-linux-gnueabihf- gcc-arm-linux-gnueabihf -                                -                       arch/arm/boot/zImage   -                    -               -
"

# arch_load ARCH: sets SC_ARCH, SC_CROSS (CROSS_COMPILE, may be empty),
# SC_CC_PKG, SC_LIBC, SC_LIBC_PKG, SC_IMAGE, SC_QEMU, SC_QEMU_PKG, SC_BLK
# (the QEMU device of the guest's virtio disks: PCI on x86, virt's
# virtio-mmio transports on arm64) (the last five empty for a
# compile-only arch), or dies naming the known.
arch_load() {
	local row known
	row=$(awk -v a="$1" '$1 == a' <<<"$SC_ARCHES")
	known=$(awk 'NF { printf "%s%s", sep, $1; sep = " " }' <<<"$SC_ARCHES")
	[ -n "$row" ] || die "unknown arch '$1' (scenario ${SC_NAME:-?}); known: $known"
	read -r SC_ARCH SC_CROSS SC_CC_PKG SC_LIBC SC_LIBC_PKG SC_IMAGE SC_QEMU SC_QEMU_PKG SC_BLK <<<"$row"
	local v
	for v in SC_CROSS SC_LIBC SC_LIBC_PKG SC_QEMU SC_QEMU_PKG SC_BLK; do
		[ "${!v}" = - ] && printf -v "$v" ''
	done
	return 0
}

# need_cross: the scenario's compiler (and, to build the guest's static
# programs, its libc), or die with the apt-get command.  The guest's
# programs are built with gcc for every toolchain; a kernel of the llvm
# toolchain needs clang, lld and LLVM's binutils besides.
need_cross() {
	need "${SC_CROSS}gcc" "$SC_CC_PKG"
	if [ "$SC_TOOLCHAIN" = llvm ]; then
		need clang clang
		need ld.lld lld
		need llvm-ar llvm
	fi
	[ -z "$SC_LIBC" ] || [ -e "$SC_LIBC" ] ||
		die "$SC_LIBC not found ($SC_ARCH's static libc, for the guest's programs): install it with 'apt-get install $SC_LIBC_PKG' (or run 'make deps' as root)"
}

scenario_names() {
	awk -v t="${1:-}" '!/^#/ && NF >= 5 && (t == "" || $3 == t || (t == "full")) { print $1 }' \
		"$SCENARIOS"
}

# scenario_built SCENARIO...: print the first of them whose kernel and
# initramfs are built (ci/boot.sh BOOT_DESCRIBE=1 finds them); fail if
# none is.
scenario_built() {
	local sc
	for sc; do
		if BOOT_DESCRIBE=1 "$TOP/ci/boot.sh" "$sc" >/dev/null 2>&1; then
			echo "$sc"
			return 0
		fi
	done
	return 1
}

scenario_load() {
	local line f
	line=$(awk -v n="$1" '!/^#/ && $1 == n' "$SCENARIOS")
	[ -n "$line" ] ||
		die "unknown scenario '$1'; known: $(scenario_names | tr '\n' ' ')"
	local m
	read -r SC_NAME f SC_TIER SC_TIMEOUT m SC_ARGS <<<"$line"
	[ "$SC_ARGS" = - ] && SC_ARGS=
	SC_MACHINE=()
	[ "$m" = - ] || IFS=, read -r -a SC_MACHINE <<<"$m"
	for m in "${SC_MACHINE[@]}"; do
		[[ " $SC_MACHINE_FEATURES " == *" $m "* ]] ||
			die "scenario $SC_NAME asks for machine feature '$m'; known: $SC_MACHINE_FEATURES"
	done
	IFS=, read -r -a SC_FRAGMENTS <<<"$f${ADD_FRAGMENTS:+,$ADD_FRAGMENTS}"
	for f in "${SC_FRAGMENTS[@]}"; do
		[ -f "$TOP/configs/$f.config" ] ||
			die "scenario $SC_NAME names configs/$f.config, which does not exist"
	done
	SC_KEY=$(IFS=+; echo "${SC_FRAGMENTS[*]}")

	fragment_value Arch arch
	arch_load "${FV_VALUE:-x86}"

	fragment_value Toolchain toolchain
	SC_TOOLCHAIN=${FV_VALUE:-gcc}
	case $SC_TOOLCHAIN in
	gcc|llvm) ;;
	*) die "scenario $SC_NAME: configs/$FV_FROM.config names toolchain '$SC_TOOLCHAIN'; known: gcc llvm" ;;
	esac
	# The kernel's compilers on make's command line, for ci/build.sh's
	# make and the build gate's (ci/gates.sh).
	if [ "$SC_TOOLCHAIN" = llvm ]; then
		SC_KCC=(LLVM=1 LLVM_IAS=1 CC="ccache clang" HOSTCC="ccache clang")
	else
		SC_KCC=(CC="ccache ${SC_CROSS}gcc" HOSTCC="ccache gcc")
	fi

	fragment_value Defconfig defconfig
	SC_DEFCONFIG=$FV_VALUE

	fragment_value Tree tree
	if [ -n "$FV_VALUE" ] && [ -n "${BASE_TREE:-}" ] && [ "$BASE_TREE" != "$FV_VALUE" ]; then
		die "scenario $SC_NAME is for the $FV_VALUE tree (configs/$FV_FROM.config), not BASE_TREE=$BASE_TREE"
	fi
	tree_load "${FV_VALUE:-${BASE_TREE:-vanilla}}"
}

scenario_table() {
	local sc m t bt=${BASE_TREE:-vanilla}
	printf '  %-13s %-5s %-5s %-9s %-7s %s\n' scenario arch tier tree machine \
		'fragments; kernel command line'
	for sc in $(scenario_names); do
		# Without BASE_TREE, which would fail a scenario whose
		# fragments name another tree; FV_VALUE is then the tree its
		# fragments name, if any (scenario_load's last lookup).
		BASE_TREE='' scenario_load "$sc"
		t=${FV_VALUE:-$bt}
		m=$(IFS=,; echo "${SC_MACHINE[*]:--}")
		printf '  %-13s %-5s %-5s %-9s %-7s %s; %s\n' "$SC_NAME" "$SC_ARCH" \
			"$SC_TIER" "$t" "$m" "$(IFS=,; echo "${SC_FRAGMENTS[*]}")" "${SC_ARGS:--}"
	done
}

# fragment_value KEY WHAT: the value of the scenario's fragments' "# KEY:
# VALUE" lines in FV_VALUE (empty: none says) and the fragment that says
# it in FV_FROM; two fragments that disagree are an error.
fragment_value() {
	local f v
	FV_VALUE= FV_FROM=
	for f in "${SC_FRAGMENTS[@]}"; do
		v=$(sed -n "s/^# $1: *\([^ ]*\) *\$/\1/p" "$TOP/configs/$f.config")
		[ -n "$v" ] || continue
		[ -z "$FV_FROM" ] || [ "$v" = "$FV_VALUE" ] ||
			die "scenario $SC_NAME: configs/$FV_FROM.config says $2 $FV_VALUE, configs/$f.config says $v"
		FV_VALUE=$v FV_FROM=$f
	done
}
