#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# boot.sh SCENARIO: boot the scenario's kernel in QEMU (TCG) and run the
# in-guest tests.  Exit status: 0 when every test passed, 1 otherwise.
#
# Two vCPUs, each its own socket and NUMA node (with QEMU's default
# topology the vCPUs share a cache across nodes and 5.10 warns from
# smpboot.c), 2 x 512 MiB of memory: on x86 a q35 machine (ACPI SRAT),
# on arm64 QEMU's virt machine (GICv3, PSCI, the nodes in its device
# tree).  A crash cannot pass: panic=-1 and -no-reboot end QEMU on a
# panic, and the verdict needs the runner's "mm510-runner: PASS" line as
# well as QEMU's exit status (0 after the runner's power-off; on a
# failure, 3 after its isa-debug-exit write on x86, 1 after semihosting's
# SYS_EXIT on arm64).  A hang is ended by the host-side timeout.
#
# Environment: TREE=stack|base|peer, TESTS=a,b (a subset), BOOT_ARGS (more
# kernel arguments), BOOT_TIMEOUT (seconds), BOOT_LOG (serial log file),
# QUIET=1 (verdict only), BOOT_ICOUNT=1 (deterministic mode, see below),
# BOOT_CPUS=N (vCPUs, default 2, see below),
# BOOT_DISKS=0 (no disks),
# BOOT_OBJ (a folder with the kernel image, e.g. arch/x86/boot/bzImage,
# and mm510-initramfs.cpio to boot instead of the tree's build; make
# bench keeps copies), BOOT_DESCRIBE=1 (print the boot, see below).

. "$(dirname "$0")/lib.sh"
. "$TOP/ci/scenario.sh"

[ $# -eq 1 ] || die "usage: boot.sh SCENARIO"
case ${BOOT_ACCEL:-tcg} in
tcg|kvm|auto) ;;
*)	die "BOOT_ACCEL must be tcg, kvm or auto, not '$BOOT_ACCEL'" ;;
esac
scenario_load "$1"
[ -n "$SC_QEMU" ] ||
	die "scenario $SC_NAME is for $SC_ARCH, which this pipeline only compiles (no QEMU machine for it)"
[ "$SC_TIMEOUT" != - ] ||
	die "scenario $SC_NAME is compiled only (configs/scenarios gives it no boot): build it with 'make build SCENARIO=$SC_NAME'"
need "$SC_QEMU" "$SC_QEMU_PKG"
need timeout coreutils

case ${TREE:-stack} in
stack)	tree=$(stack_tree) ;;
base)	tree=$(base_checkout) ;;
peer)	tree=$PEER_TREE ;;
*)	die "TREE must be 'stack', 'base' or 'peer', not '$TREE'" ;;
esac
obj=${BOOT_OBJ:-$BUILD/obj/$(basename "$tree")-$SC_KEY}
kernel=$obj/$SC_IMAGE
initrd=$obj/mm510-initramfs.cpio
[ -f "$kernel" ] && [ -f "$initrd" ] ||
	die "no kernel for $SC_NAME in $obj: run 'make build SCENARIO=$SC_NAME' first"

# What the guest must report as its release: the tree's version (its
# Makefile's: 5.10.262, ACK's own sublevel, or that of your KERNEL_TREE,
# which may be another 5.10) plus its localversion files, read here
# independently of kbuild.
release=$(make -s -C "$tree" kernelversion) ||
	die "$tree: 'make kernelversion' failed"
if [ "${TREE:-stack}" = peer ]; then
	# shellcheck source=ci/peer.pin
	. "$TOP/ci/peer.pin"
	release=$PEER_VERSION
fi
for f in $(cd "$tree" && ls localversion* 2>/dev/null | sort); do
	release=$release$(tr -d '\n' <"$tree/$f")
done

# The machine of the arch (adding one is a branch here).  arm64: virt
# with GICv3 (virt's default is a GICv2, which cannot address more than
# 8 CPUs), an ARMv8.0 Cortex-A57 (-cpu max adds pointer authentication,
# slow to emulate under TCG), PSCI through HVC, the PL011 console, and
# semihosting open to user space for the runner's failure exit.  x86:
# q35, not pc.  The disks are PCI devices whose INTx the kernel routes
# through the root bus's _PRT method; Debian 12's QEMU (7.2) builds pc's
# _PRT as an AML While loop over 128 routes (QEMU's 99cb2c6c7b replaced
# it with a table, in a later release), which the debug kernel under TCG
# interprets in more than ACPICA's 30 s loop limit: AE_AML_LOOP_TIMEOUT,
# "PCI INT A: no GSI", and a boot that waits for its disks forever.
# q35's _PRT returns a package built beforehand.
case $SC_ARCH in
x86)	console=ttyS0 qmachine=q35 qcpu=qemu64
	machine_extra=(-device isa-debug-exit,iobase=0xf4,iosize=0x04) ;;
arm64)	console=ttyAMA0 qmachine=virt,gic-version=3 qcpu=cortex-a57
	machine_extra=(-semihosting-config enable=on,target=native,userspace=on) ;;
*)	die "ci/boot.sh has no QEMU machine for $SC_ARCH" ;;
esac
machine=(-machine "$qmachine" -cpu "$qcpu" "${machine_extra[@]}")
args="console=$console panic=-1 loglevel=6 log_buf_len=4M mm510.release=$release"
# TESTS narrows the boot to those tests, also in a scenario that names
# its own subset: the runner takes the last mm510.tests= word, so the
# scenario's gives way (BOOT_ARGS, last, can still name another).
read -ra words <<<"$SC_ARGS"
for w in "${words[@]}"; do
	[ -n "${TESTS:-}" ] && [[ $w == mm510.tests=* ]] && continue
	args="$args $w"
done
[ -n "${TESTS:-}" ] && args="$args mm510.tests=$TESTS"
[ -n "${BOOT_ARGS:-}" ] && args="$args $BOOT_ARGS"
limit=${BOOT_TIMEOUT:-$SC_TIMEOUT}

# BOOT_DESCRIBE=1: print the boot as "key=value" lines and boot nothing
# (ci/lava.sh writes LAVA jobs from it, so both boot the same way).
if [ "${BOOT_DESCRIBE:-}" = 1 ]; then
	printf '%s=%s\n' kernel "$kernel" initrd "$initrd" image "$SC_IMAGE" release "$release" \
		machine "$qmachine" cpu "$qcpu" cmdline "$args" timeout "$limit" \
		blk "$SC_BLK"
	exit 0
fi

mkdir -p "$BUILD/logs"
log=${BOOT_LOG:-$BUILD/logs/$(basename "$tree")-$SC_NAME.log}
msg "booting $(basename "$tree")/$SC_NAME ($release), limit ${limit}s, log $log"

# BOOT_ICOUNT=1 (make bench's deterministic mode): QEMU counts
# instructions instead of reading the host clock (-icount shift=0: one
# instruction is one virtual nanosecond, sleep=off: idle time is skipped),
# so a run does not depend on the host's load.  With one vCPU: the 5.10
# guest stalled at boot under icount with two.  The second NUMA node
# stays, without a CPU.
# The scenario's machine feature "icount" asks for the same.
# The guest's real-time clock then starts at a fixed date and follows
# the virtual clock (-rtc clock=vm).  With the host's date, the boot took
# another number of instructions each time, and the state the benchmarks
# start from took one of two forms: in boots without disks (make bench's,
# BOOT_DISKS=0) the stack's accounted 4 KiB pair (bench/slab) took 741.3
# instructions in 4 of 6 boots and 707.0 or 707.2 in 2; with the clock
# pinned, six boots printed the same bytes (measured 2026-12-05).  Boots
# with disks still vary: QEMU times their I/O by the host (2 of 8 at
# 706.9 with the clock pinned).
[[ " ${SC_MACHINE[*]} " != *" icount "* ]] || BOOT_ICOUNT=1
# BOOT_CPUS=N (make bench's scale variant; TCG only): N vCPUs instead of
# two, each its own socket, the first half on node 0 and the rest on
# node 1 (one vCPU: node 1 has none, as in icount mode).
ncpus=${BOOT_CPUS:-2}
[[ $ncpus =~ ^([1-9]|1[0-6])$ ]] || die "BOOT_CPUS must be 1 to 16, not '$ncpus'"
if [ "${BOOT_ICOUNT:-}" = 1 ]; then
	[ "$ncpus" = 2 ] || [ "$ncpus" = 1 ] || die "BOOT_CPUS=$ncpus: icount mode boots one vCPU"
	cpus=(-icount shift=0,sleep=off -rtc base=2026-01-01T00:00:00,clock=vm -smp 1
	      -numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,memdev=m1)
elif [ "$ncpus" = 1 ]; then
	cpus=(-smp 1 -numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,memdev=m1)
else
	half=$(( (ncpus + 1) / 2 ))
	cpu_range() { if [ "$1" = "$2" ]; then echo "$1"; else echo "$1-$2"; fi; }
	cpus=(-smp "$ncpus,sockets=$ncpus,cores=1,threads=1"
	      -numa "node,nodeid=0,cpus=$(cpu_range 0 $((half - 1))),memdev=m0"
	      -numa "node,nodeid=1,cpus=$(cpu_range "$half" $((ncpus - 1))),memdev=m1")
fi

# The scenario's machine features (configs/scenarios).  dimm: a 256 MiB
# DIMM on node 1, present from boot; the guest finds it through ACPI
# memory hotplug and onlines it as the command line says
# (memhp_default_state=online_movable puts it in ZONE_MOVABLE, so that
# its memory blocks can be offlined).  x86 only: virt booted with a
# device tree has no memory hotplug.
mem=(-m 1G)
extra=()
for feature in "${SC_MACHINE[@]}"; do
	case $SC_ARCH:$feature in
	*:icount) ;;
	arm64:dimm)
		die "scenario $SC_NAME: machine feature dimm needs ACPI memory hotplug (x86 only)" ;;
	x86:dimm)
		mem=(-m 1G,slots=2,maxmem=2G)
		extra+=(-object memory-backend-ram,id=dimm0,size=256M
			-device pc-dimm,id=dimm0,memdev=dimm0,node=1) ;;
	esac
done

# The guest's disks (ci/lib.sh: guest_disks), new for every boot so
# that no boot sees another's files, removed with it; none with
# BOOT_DISKS=0 (make bench: no benchmark uses them, see BOOT_ICOUNT).
disk_args=()
disks=
cleanup() { [ -z "$disks" ] || rm -rf "$disks"; }
trap cleanup EXIT
if [ "${BOOT_DISKS:-1}" != 0 ]; then
	mkdir -p "$BUILD/disks"
	disks=$(mktemp -d "$BUILD/disks/boot.XXXXXX")
	guest_disks "$disks"
	disk_args=(-drive "if=none,id=vda,format=raw,file=$disks/data.img"
		   -device "$SC_BLK,drive=vda"
		   -drive "if=none,id=vdb,format=raw,file=$disks/swap.img"
		   -device "$SC_BLK,drive=vdb")
fi

# BOOT_ACCEL: tcg (the default: make check, make bench and every test
# boot emulate the CPU, so that their figures and timeouts hold
# anywhere), kvm, or auto (make boot and make): KVM where it works.  An
# x86 guest on an x86-64 host with a usable /dev/kvm is first booted
# under KVM with boot_release alone for at most 90 s; it must pass, or
# the boot falls back to TCG and says why (on this project's own machine
# a guest under KVM stops on an emulation failure in SLUB's
# cmpxchg16b).  The probe's verdict is kept in $BUILD/kvm-probe
# (KVM_PROBE_FILE) for this QEMU and host kernel (remove the file to
# probe again).
accel=tcg
case ${BOOT_ACCEL:-tcg} in
tcg)	;;
kvm)	accel=kvm ;;
auto)	why=
	if [ "$SC_ARCH" != x86 ] || [ "$(uname -m)" != x86_64 ]; then
		why="an $SC_ARCH guest on an $(uname -m) host"
	elif [ "${BOOT_ICOUNT:-}" = 1 ] || [[ " ${SC_MACHINE[*]} " == *" icount "* ]]; then
		why="icount needs TCG"
	elif [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		why="no usable /dev/kvm"
	else
		key="$("$SC_QEMU" --version | head -n 1); host $(uname -r)"
		probe=${KVM_PROBE_FILE:-$BUILD/kvm-probe}
		if [ ! -f "$probe" ] || [ "$(sed -n 2p "$probe")" != "$key" ]; then
			msg "probing KVM: $SC_NAME's kernel with boot_release, at most 90 s"
			if env BOOT_ACCEL=kvm TESTS=boot_release BOOT_TIMEOUT=90 BOOT_DISKS=0 QUIET=1 \
				BOOT_LOG="$BUILD/logs/kvm-probe.log" "$0" "$SC_NAME" >/dev/null 2>&1; then
				printf 'ok\n%s\n' "$key" >"$probe"
			else
				printf 'failed: %s\n%s\n' "$(grep -m1 -E 'KVM internal error|emulation failure|Kernel panic|FAIL' \
					"$BUILD/logs/kvm-probe.log" | sed 's/^\[[^]]*\] //' | cut -c1-100 || echo 'the guest did not pass')" \
					"$key" >"$probe"
			fi
		fi
		if [ "$(head -n 1 "$probe")" = ok ]; then
			accel=kvm
		else
			why="the KVM probe $(head -n 1 "$probe") (log $BUILD/logs/kvm-probe.log; remove $probe to probe again)"
		fi
	fi
	[ -z "$why" ] || msg "TCG, not KVM: $why" ;;
esac

# QEMU runs under timeout(1), which puts itself in a process group of its
# own: a Ctrl-C or a kill of this script would not reach it.  Run it in
# the background and end it with the script.
rc=0
timeout -k 10 "$limit" "$SC_QEMU" \
	-accel "$accel" "${machine[@]}" "${mem[@]}" \
	-object memory-backend-ram,id=m0,size=512M \
	-object memory-backend-ram,id=m1,size=512M \
	"${cpus[@]}" "${extra[@]}" "${disk_args[@]}" \
	-kernel "$kernel" -initrd "$initrd" -append "$args" \
	-display none -serial stdio -monitor none -no-reboot \
	</dev/null >"$log" 2>&1 &
qemu=$!
trap 'kill "$qemu" 2>/dev/null || :; cleanup' EXIT
# In a terminal, every 30 s: the tests done so far and the last verdict.
boot_progress() {
	printf '%s test(s) done%s' "$(grep -cE '^(not )?ok ' "$log")" \
		"$(grep -E '^(not )?ok ' "$log" | tail -n 1 | sed 's/^/, last: /')"
}
progress_start "boot $SC_NAME" "$log" boot_progress
wait "$qemu" || rc=$?
progress_stop
trap cleanup EXIT

# The report: TAP lines and the runner's diagnostics, kernel lines left out.
if [ "${QUIET:-}" != 1 ]; then
	grep -E '^(TAP version|1\.\.|ok |not ok |# |mm510-runner:)' "$log" || :
fi

verdict=
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	# Where it stopped: the runner's last line (a test's verdict or its
	# diagnostics), so that a log CI does not keep still names the test.
	last=$(grep -E '^(TAP version|ok |not ok |# )' "$log" | tail -n 1 | cut -c1-120) ||
		last='nothing from the runner'
	verdict="guest hung: no verdict within ${limit}s, last: $last"
elif grep -q '^mm510-runner: PASS' "$log" && [ "$rc" -eq 0 ]; then
	echo "boot $SC_NAME: PASS ($(grep -c '^ok ' "$log") passed)"
	exit 0
elif grep -q '^mm510-runner: FAIL' "$log"; then
	verdict="tests failed: $(grep -c '^not ok ' "$log") of $(grep -cE '^(not )?ok ' "$log") (QEMU exit status $rc): $(
		grep '^not ok ' "$log" | sed 's/^not ok [0-9]* //' | head -n 4 | paste -sd ' ')"
elif grep -q 'Kernel panic' "$log"; then
	verdict="kernel panic: $(grep -m1 'Kernel panic' "$log" | sed 's/^\[[^]]*\] //')"
else
	verdict="guest ended without a verdict (QEMU exit status $rc)"
fi
echo "boot $SC_NAME: FAIL: $verdict (log: $log)"
exit 1
