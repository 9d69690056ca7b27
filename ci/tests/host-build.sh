# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Host tests of build and boot: configurations and arches (ci/build.sh,
# ci/scenario.sh), missing tools, make repeat, and the cases that boot a
# built kernel (ci/boot.sh, ci/repeat.sh).  Sourced by ci/tests/host.sh,
# which lists the cases; never run.

# make check compiles Debian's tree as the objects either side changed
# (OBJECTS=changed): a file that Debian's patches and the series both
# change stops it before anything is built, with the file's name.
t_debian_overlap() {
	local p b=$scratch/build-overlap base tag=debian/$DEBIAN_SRC_VERSION f=kernel/fork.c
	base=$(scratch_base)
	git -C "$BASE_REPO" rev-parse -q --verify "refs/tags/$tag" >/dev/null ||
		{ echo "no $tag tag: run make base SCENARIO=debian"; return 4; }
	git -C "$base" fetch -q "$BASE_REPO" "refs/tags/$tag:refs/tags/$tag" 2>/dev/null || :
	git -C "$base" diff --quiet "$BASE_TAG" "$tag" -- "$f" && {
		echo "Debian's patches no longer change $f: pick another file"; return 1; }
	p=$(project_copy)
	# A series of one patch that changes a file Debian's patches change.
	git -C "$base" show "$tag:$f" >"$scratch/fork.c"
	sed '0,/^#include <linux\/slab.h>$/s//&\n\/* host test *\//' "$scratch/fork.c" >"$scratch/fork.c.new"
	{
		printf 'From: %s\nDate: Thu, 1 Jan 2026 00:00:00 +0000\nSubject: [PATCH] fork: host test\n\n---\n' "$IDENTITY"
		diff -u --label "a/$f" --label "b/$f" "$scratch/fork.c" "$scratch/fork.c.new" || :
	} >"$p/patches/0001-hosttest-fork.patch"
	echo 0001-hosttest-fork.patch >"$p/series"
	env -u MM510_LOCKED SCENARIO=debian BUILD="$b" BASE_REPO="$base" "$p/ci/apply.sh" >/dev/null 2>&1 || {
		echo "the one-patch series did not apply on $tag"; return 1; }
	expect_fail "the debian tree's own patches and the series both change $f: build the whole kernel" \
		env -u MM510_LOCKED OBJECTS=changed BUILD="$b" BASE_REPO="$base" "$p/ci/build.sh" debian
	[ ! -e "$b/obj" ] || { echo "an object folder was made"; return 1; }
	base_intact
}

t_missing_tool() {
	local bin=$scratch/bin
	bin_without "$bin" qemu-system-x86_64
	expect_fail "apt-get install qemu-system-x86" env PATH="$bin" \
		"$TOP/ci/boot.sh" default
}

# ccache and the boot image (ci/lib.sh, piggy_fresh): a piggy.o that
# took the compressed kernel's bytes by .incbin is fresh; once the
# kernel is rebuilt to other bytes of the same size (what ccache hands
# back for the same piggy.S), it is not; assembled again, it is.  The
# gcc of the first and last steps stands for build.sh's make.
t_piggy_stale() {
	local o=$scratch/piggy d=arch/x86/boot/compressed
	mkdir -p "$o/$d"
	printf '.section ".rodata..compressed","a",@progbits\n.globl input_data\ninput_data:\n.incbin "%s/vmlinux.bin.gz"\n' \
		"$d" >"$o/$d/piggy.S"
	head -c 8192 /dev/urandom >"$o/$d/vmlinux.bin.gz"
	(cd "$o" && gcc -c "$d/piggy.S" -o "$d/piggy.o") || { echo "piggy.S did not assemble"; return 1; }
	piggy_fresh "$o" /nonexistent x86 || { echo "a piggy.o of the kernel built was called stale"; return 1; }
	head -c 8192 /dev/urandom >"$o/$d/vmlinux.bin.gz"
	if piggy_fresh "$o" /nonexistent x86; then
		echo "a piggy.o of an earlier kernel of the same size was called fresh"; return 1
	fi
	(cd "$o" && gcc -c "$d/piggy.S" -o "$d/piggy.o") || { echo "piggy.S did not assemble"; return 1; }
	piggy_fresh "$o" /nonexistent x86 || { echo "piggy.o assembled again was called stale"; return 1; }
	rm -f "$o/$d/piggy.o"
	piggy_fresh "$o" /nonexistent x86 || { echo "no piggy.o (arm64's Image) was called stale"; return 1; }
}

t_repeat_bad_count() {
	expect_fail "COUNT must be a whole number of boots, not 'ten'" env COUNT=ten \
		"$TOP/ci/repeat.sh" default
}

# The packages each kind of work needs (ci/packages' tags): make's own
# (no tag) for the default scenario, its arch's and toolchain's for
# another, a target's DEPS_TAGS on top, and every one for make deps.
t_deps_per_target() {
	local p
	p=$(project_copy)
	cat >>"$p/ci/packages" <<'EOT'
mm510-no-such-a   mm510-pkg-core
mm510-no-such-b   mm510-pkg-arm64   arm64
mm510-no-such-c   mm510-pkg-llvm    llvm
mm510-no-such-d   mm510-pkg-gates   gates
EOT
	deps_of() { env DEPS_LIST=1 "$@" "$p/ci/deps.sh" "${DEPS_ARGS[@]}" | grep '^mm510-pkg-' | paste -sd' ' -; }
	DEPS_ARGS=(scenario)
	[ "$(deps_of SCENARIO=default)" = "mm510-pkg-core" ] || {
		echo "default scenario: $(deps_of SCENARIO=default)"; return 1; }
	[ "$(deps_of SCENARIO=arm64)" = "mm510-pkg-arm64 mm510-pkg-core" ] || {
		echo "arm64 scenario: $(deps_of SCENARIO=arm64)"; return 1; }
	[ "$(deps_of SCENARIO=arm64-llvm)" = "mm510-pkg-arm64 mm510-pkg-core mm510-pkg-llvm" ] || {
		echo "arm64-llvm scenario: $(deps_of SCENARIO=arm64-llvm)"; return 1; }
	DEPS_ARGS=(scenario gates)
	[ "$(deps_of SCENARIO=default)" = "mm510-pkg-core mm510-pkg-gates" ] || {
		echo "make gates: $(deps_of SCENARIO=default)"; return 1; }
	DEPS_ARGS=()
	[ "$(deps_of SCENARIO=default)" = "mm510-pkg-arm64 mm510-pkg-core mm510-pkg-gates mm510-pkg-llvm" ] || {
		echo "make deps: $(deps_of SCENARIO=default)"; return 1; }
}

# The progress lines of a long step: every PROGRESS_EVERY seconds with
# PROGRESS=1, none after progress_stop; none where stderr is not a
# terminal (a CI log) unless asked; and none once the script that
# started them is gone.
t_progress() {
	local out t0
	out=$(bash -c '. "$1/ci/lib.sh"; PROGRESS=1 PROGRESS_EVERY=1
		progress_start "step" /x/build.log echo "3 objects"; sleep 2.5; progress_stop; sleep 1.5' _ "$TOP" 2>&1)
	[ "$(grep -cE '^_: step: 3 objects, [0-9]+ s; log: /x/build.log$' <<<"$out")" -ge 2 ] || {
		echo "$out"; echo "no progress line every second with PROGRESS=1"; return 1; }
	[ "$(grep -c 'step:' <<<"$out")" -le 3 ] || {
		echo "$out"; echo "progress lines went on after progress_stop"; return 1; }
	out=$(bash -c '. "$1/ci/lib.sh"; PROGRESS_EVERY=1
		progress_start "step" /x/build.log echo "3 objects"; sleep 2.5; progress_stop' _ "$TOP" 2>&1)
	[ -z "$out" ] || { echo "$out"; echo "progress lines where stderr is not a terminal"; return 1; }
	t0=$SECONDS
	out=$(bash -c '. "$1/ci/lib.sh"; PROGRESS=1 PROGRESS_EVERY=1
		progress_start "step" /x/build.log echo "3 objects"; exit 0' _ "$TOP" 2>&1)
	[ -z "$out" ] && [ $((SECONDS - t0)) -le 5 ] || {
		echo "$out"; echo "the progress lines outlived their script"; return 1; }
}

# A compile-only scenario (no boot time in configs/scenarios): boot.sh
# refuses it naming make build, and make's boot step (make
# SCENARIO=debian) says it was built, not booted, and succeeds.
t_boot_compile_only() {
	local out
	expect_fail "scenario debian is compiled only (configs/scenarios gives it no boot): build it with 'make build SCENARIO=debian'" \
		env BUILD="$scratch/b-co" "$TOP/ci/boot.sh" debian
	out=$(env BUILD="$scratch/b-co" SCENARIO=debian "$TOP/ci/main.sh" boot 2>&1) || {
		echo "$out"; echo "the boot step failed on a compile-only scenario"; return 1; }
	grep -qF "scenario debian is compiled only (configs/scenarios gives it no boot): built, not booted" <<<"$out" || {
		echo "$out"; echo "the boot step did not say the scenario is not booted"; return 1; }
}

# An arch: a fragment naming one the pipeline does not know fails with
# the known ones, before anything is made; two fragments naming two
# arches fail too.
t_unknown_arch() {
	local p b=$scratch/b-arch
	p=$(project_copy)
	printf '# Help: test\n# Arch: mips\n' >"$p/configs/mips.config"
	printf '# Arch: arm\n' >"$p/configs/arm32.config"
	printf 'mipsy guest,mm,mips full - - -\nmixed guest,arm64,arm32 full - - -\n' \
		>>"$p/configs/scenarios"
	expect_fail "unknown arch 'mips' (scenario mipsy); known: x86 arm64 arm" \
		env BUILD="$b" BASE_REPO="$BASE_REPO" TREE=base "$p/ci/build.sh" mipsy
	expect_fail "configs/arm64.config says arch arm64, configs/arm32.config says arm" \
		env BUILD="$b" BASE_REPO="$BASE_REPO" TREE=base "$p/ci/build.sh" mixed
	[ ! -e "$b/obj" ] || { echo "an object folder was made"; return 1; }
}

# A fragment's option of another arch is left out (and said), where the
# same fragment's option that no Kconfig file defines fails the build.
t_foreign_option() {
	local p b=$scratch/b-foreign out
	p=$(project_copy)
	out=$(BUILD="$b" BASE_REPO="$BASE_REPO" TREE=base CONFIG_ONLY=1 \
		"$p/ci/build.sh" arm64 2>&1) || { echo "$out"; return 1; }
	grep -qF 'CONFIG_X86_64_ACPI_NUMA: not an option of arm64, left out' <<<"$out" ||
		{ echo "$out"; echo "the x86 option was not reported"; return 1; }
	echo 'CONFIG_MM510_NO_SUCH_OPTION=y' >>"$p/configs/arm64.config"
	expect_fail "CONFIG_MM510_NO_SUCH_OPTION=y (no Kconfig file of the tree defines CONFIG_MM510_NO_SUCH_OPTION)" \
		env BUILD="$b" BASE_REPO="$BASE_REPO" TREE=base CONFIG_ONLY=1 "$p/ci/build.sh" arm64
}

# A fragment's "# Defconfig:" line: the scenario's .config starts from
# that defconfig of the tree (arm64's defconfig turns NUMA on, which
# allnoconfig leaves off), the fragments' own values on top; a defconfig
# the tree does not have stops the build, naming it.
t_defconfig_base() {
	local p b=$scratch/b-defconfig out
	p=$(project_copy)
	printf '# Arch: arm64\n# Defconfig: defconfig\n# CONFIG_SWAP is not set\n' >"$p/configs/mm510defc.config"
	echo 'mm510defc mm510defc full - - -' >>"$p/configs/scenarios"
	out=$(BUILD="$b" BASE_REPO="$BASE_REPO" TREE=base CONFIG_ONLY=1 \
		"$p/ci/build.sh" mm510defc 2>&1) || { echo "$out"; return 1; }
	grep -qx 'CONFIG_NUMA=y' "$b"/obj/*-mm510defc/.config ||
		{ echo "$out"; echo "the .config did not start from arm64's defconfig"; return 1; }
	grep -qx '# CONFIG_SWAP is not set' "$b"/obj/*-mm510defc/.config ||
		{ echo "the fragment's value was lost"; return 1; }
	sed -i 's/^# Defconfig: defconfig$/# Defconfig: mm510_no_such_defconfig/' "$p/configs/mm510defc.config"
	expect_fail "mm510defc starts from mm510_no_such_defconfig, which" \
		env BUILD="$b" BASE_REPO="$BASE_REPO" TREE=base CONFIG_ONLY=1 "$p/ci/build.sh" mm510defc
}

# TESTS narrows a boot to those tests, also in a scenario with its own
# subset (pageowner's mm510.tests=): the kernel command line that
# BOOT_DESCRIBE prints has one mm510.tests=, TESTS's, and keeps the
# scenario's other words.  Checked once to fail on 099be11's boot.sh,
# where the scenario's came after TESTS's and the runner, which takes
# the last, ran the scenario's seven tests.
t_boot_tests_narrow() {
	local b=$scratch/b-narrow o=$scratch/obj-narrow out cmdline
	mkdir -p "$b/stack" "$o/arch/arm64/boot"
	# boot.sh reads the release from the tree's Makefile.
	printf 'kernelversion:\n\t@echo %s\n' "$BASE_VERSION" >"$b/stack/Makefile"
	: >"$o/arch/arm64/boot/Image"
	: >"$o/mm510-initramfs.cpio"
	out=$(BUILD="$b" BOOT_OBJ="$o" BOOT_DESCRIBE=1 TESTS=bulk_alloc \
		"$TOP/ci/boot.sh" pageowner 2>&1) || { echo "$out"; return 1; }
	cmdline=$(sed -n 's/^cmdline=//p' <<<"$out")
	echo "cmdline: $cmdline"
	[ "$(grep -o 'mm510\.tests=[^ ]*' <<<"$cmdline")" = mm510.tests=bulk_alloc ] || {
		echo "not one mm510.tests=, TESTS's"; return 1; }
	grep -q ' slub_debug=FZPU ' <<<"$cmdline " || {
		echo "the scenario's other words were lost"; return 1; }
	out=$(BUILD="$b" BOOT_OBJ="$o" BOOT_DESCRIBE=1 "$TOP/ci/boot.sh" pageowner 2>&1) ||
		{ echo "$out"; return 1; }
	grep -q '^cmdline=.* mm510\.tests=bulk_alloc,slab_kmalloc_cg_caches,' <<<"$out" || {
		echo "without TESTS the scenario's subset is gone: $out"; return 1; }
}

# A missing cross compiler, static libc or QEMU names its package, and
# nothing is made; an arch without a QEMU machine says it only compiles.
t_missing_cross() {
	local bin=$scratch/bin-cross b=$scratch/b-cross
	bin_without "$bin" aarch64-linux-gnu-gcc qemu-system-aarch64
	expect_fail "install it with 'apt-get install gcc-aarch64-linux-gnu'" \
		env PATH="$bin" BUILD="$b" BASE_REPO="$BASE_REPO" TREE=base "$TOP/ci/build.sh" arm64
	[ ! -e "$b/obj" ] || { echo "an object folder was made"; return 1; }
	expect_fail "install it with 'apt-get install qemu-system-arm'" \
		env PATH="$bin" BUILD="$b" "$TOP/ci/boot.sh" arm64
	expect_fail "scenario arm is for arm, which this pipeline only compiles" \
		env BUILD="$b" "$TOP/ci/boot.sh" arm
}

t_missing_llvm() {
	# A scenario of the llvm toolchain without clang, then without lld:
	# each named with its package before anything is built; and a
	# fragment naming a toolchain that does not exist.
	local bin=$scratch/bin-llvm b=$scratch/b-llvm p
	bin_without "$bin" clang
	expect_fail "'clang' not found: install it with 'apt-get install clang'" \
		env PATH="$bin" BUILD="$b" BASE_REPO="$BASE_REPO" TREE=base "$TOP/ci/build.sh" arm64-llvm
	bin_without "$bin" ld.lld
	expect_fail "'ld.lld' not found: install it with 'apt-get install lld'" \
		env PATH="$bin" BUILD="$b" BASE_REPO="$BASE_REPO" TREE=base "$TOP/ci/build.sh" arm64-llvm
	[ ! -e "$b/obj" ] || { echo "an object folder was made"; return 1; }
	p=$(project_copy)
	sed -i 's/^# Toolchain: llvm$/# Toolchain: icc/' "$p/configs/llvm.config"
	expect_fail "configs/llvm.config names toolchain 'icc'; known: gcc llvm" \
		env BUILD="$b" BASE_REPO="$BASE_REPO" TREE=base "$p/ci/build.sh" arm64-llvm
}

t_guest_panics() {
	expect_fail "kernel panic" env BOOT_LOG="$scratch/boot.log" BOOT_ARGS=mm510.selftest=exit \
		BOOT_TIMEOUT=300 QUIET=1 "$TOP/ci/boot.sh" default
}

# make boot's BOOT_ACCEL=auto: with the KVM probe's verdict kept as a
# failure (or no usable /dev/kvm), the boot says why and passes under
# TCG, without probing again; an unknown BOOT_ACCEL is refused.
t_boot_kvm_fallback() {
	local key out
	key="$(qemu-system-x86_64 --version | head -n 1); host $(uname -r)"
	printf 'failed: a verdict kept from an earlier probe\n%s\n' "$key" >"$scratch/kvm-probe"
	out=$(env BOOT_ACCEL=auto KVM_PROBE_FILE="$scratch/kvm-probe" TESTS=boot_release BOOT_DISKS=0 \
		BOOT_LOG="$scratch/boot.log" QUIET=1 "$TOP/ci/boot.sh" default 2>&1) || {
		echo "$out"; echo "the boot failed"; return 1; }
	grep -qE "TCG, not KVM: (the KVM probe failed: a verdict kept from an earlier probe|no usable /dev/kvm)" <<<"$out" || {
		echo "$out"; echo "the fallback to TCG was not said"; return 1; }
	! grep -q "probing KVM" <<<"$out" || { echo "$out"; echo "probed again"; return 1; }
	expect_fail "BOOT_ACCEL must be tcg, kvm or auto, not 'fast'" \
		env BOOT_ACCEL=fast "$TOP/ci/boot.sh" default
	expect_fail "BOOT_CPUS must be 1 to 16, not '32'" \
		env BOOT_CPUS=32 "$TOP/ci/boot.sh" default
	expect_fail "BOOT_CPUS=4: icount mode boots one vCPU" \
		env BOOT_CPUS=4 BOOT_ICOUNT=1 "$TOP/ci/boot.sh" default
}

t_guest_hangs() {
	# The verdict names the runner's last line: CI keeps no guest log.
	expect_fail "guest hung: no verdict within 15s, last: TAP version 13" env BOOT_LOG="$scratch/boot.log" \
		BOOT_ARGS=mm510.selftest=hang BOOT_TIMEOUT=15 QUIET=1 "$TOP/ci/boot.sh" default
}

t_guest_test_timeout() {
	# A test past mm510.timeout: the kernel's blocked tasks are printed
	# (sysrq w and l), the test is killed and failed by name, and the
	# boot ends with a verdict before the host's limit.
	expect_fail "tests failed: 1 of 2 (QEMU exit status 0): kselftest_cgroup" \
		env BOOT_LOG="$scratch/boot.log" TESTS=kselftest_cgroup BOOT_ARGS=mm510.timeout=1 \
		BOOT_TIMEOUT=300 QUIET=1 "$TOP/ci/boot.sh" default
	grep -q '^# kselftest_cgroup: timed out after 1 s, killing it' "$scratch/boot.log" &&
		grep -q 'sysrq: Show Blocked State' "$scratch/boot.log" || {
		echo "no timeout line or no blocked tasks in the log"
		grep -E '^(ok|not ok|# )|sysrq' "$scratch/boot.log"
		return 1
	}
}

t_build_interrupted() {
	# SIGTERM to the process group (a CI job cancelled; SIGINT would be
	# ignored by a background job) while the kernel's make runs; a
	# second run completes and leaves a kernel and an initramfs.
	local obj start pid rc=0 i tmp_before tmp_after
	obj=$BUILD/obj/stack-$(. "$TOP/ci/scenario.sh"; scenario_load default; echo "$SC_KEY")
	[ -f "$obj/arch/x86/boot/bzImage" ] || { echo "no default kernel built"; return 1; }
	# Another build of this folder may hold its own temporary folder.
	tmp_before=$(ls -d "$BUILD"/.config.* 2>/dev/null || :)
	start=$(date +%s.%N)
	sleep 0.1
	setsid "$TOP/ci/build.sh" default >"$scratch/build1.out" 2>&1 &
	pid=$!
	# build.log is rewritten when the kernel's make starts.
	for i in $(seq 600); do
		[ "$(stat -c %.9Y "$obj/build.log" 2>/dev/null || echo 0)" \> "$start" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	sleep 2
	kill -TERM -- "-$pid" 2>/dev/null || { echo "build.sh ended before it could be interrupted"; return 1; }
	wait "$pid" || rc=$?
	cat "$scratch/build1.out"
	[ "$rc" -ne 0 ] || { echo "the interrupted build exited 0"; return 1; }
	echo "interrupted build: exit $rc"
	"$TOP/ci/build.sh" default 2>&1 | tail -n 2
	[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "the resumed build failed"; return 1; }
	[ -s "$obj/arch/x86/boot/bzImage" ] && [ -s "$obj/mm510-initramfs.cpio" ] || {
		echo "no kernel or initramfs after the resumed build"; return 1; }
	tmp_after=$(ls -d "$BUILD"/.config.* 2>/dev/null || :)
	[ "$tmp_after" = "$tmp_before" ] || {
		echo "temporary folders left in $BUILD: $tmp_after"; return 1; }
}

t_guest_test_fails() {
	# A test that does not exist must fail the run, not be skipped.
	expect_fail "tests failed" env BOOT_LOG="$scratch/boot.log" TESTS=no_such_test BOOT_TIMEOUT=300 \
		QUIET=1 "$TOP/ci/boot.sh" default
}

# On arm64 the same failure ends QEMU with status 1 (the runner's
# semihosting SYS_EXIT), and a pass needs the PASS line as on x86.  On
# whichever arm64 kernel is built: make check builds arm64-lockdep's.
t_guest_arm64_fails() {
	local sc
	sc=$(. "$TOP/ci/scenario.sh"; scenario_built arm64 arm64-lockdep arm64-debug) ||
		{ echo "no arm64 kernel built"; return 4; }
	expect_fail "tests failed: 1 of 2 (QEMU exit status 1)" env BOOT_LOG="$scratch/boot.log" \
		TESTS=no_such_test BOOT_TIMEOUT=300 QUIET=1 "$TOP/ci/boot.sh" "$sc"
}

t_guest_leftover() {
	# What a test leaves behind fails that test, is removed, and does
	# not fail the next one.
	expect_fail "tests failed: 1 of 3" env BOOT_LOG="$scratch/boot.log" \
		TESTS=boot_release,boot_release BOOT_ARGS=mm510.selftest=leftover \
		BOOT_TIMEOUT=300 QUIET=1 "$TOP/ci/boot.sh" default
	grep -q '^# boot_release: left cgroup /sys/fs/cgroup/mm510-drill' "$scratch/boot.log" &&
		grep -q '^not ok 2 boot_release' "$scratch/boot.log" &&
		grep -q '^ok 3 boot_release' "$scratch/boot.log" || {
		echo "leftover not blamed on the first test, or not removed"
		grep -E '^(ok|not ok|# )' "$scratch/boot.log"
		return 1
	}
}

t_repeat_counts() {
	# make repeat: every boot counted, a log each; a failing boot is
	# named with its first trouble, and STOP_ON_FAIL stops there.
	local dir=$BUILD/logs/repeat-stack-default
	env COUNT=2 TESTS=boot_release QUIET=1 "$TOP/ci/repeat.sh" default >"$scratch/r1.out" 2>&1 || {
		cat "$scratch/r1.out"; echo "two passing boots did not pass"; return 1; }
	cat "$scratch/r1.out"
	grep -qx 'boot 2/2: pass ([0-9]* s)' "$scratch/r1.out" &&
		grep -q '^repeat: 2 of 2 boots passed' "$scratch/r1.out" &&
		[ -s "$dir/1.log" ] && [ -s "$dir/2.log" ] || {
		echo "two passes not counted, or their logs missing"; return 1; }
	expect_fail "repeat: 0 of 1 boots passed" env COUNT=3 STOP_ON_FAIL=1 TESTS=no_such_test \
		BOOT_TIMEOUT=300 "$TOP/ci/repeat.sh" default >"$scratch/r2.out" || return 1
	grep -q '^  first trouble: not ok 2 no_such_test' "$scratch/r2.out" &&
		[ -s "$dir/1.log" ] && [ ! -e "$dir/2.log" ] || {
		cat "$scratch/r2.out"; echo "the failing boot is not named, or repeat went on"; return 1; }
}

t_boot_interrupted() {
	# QEMU runs under timeout(1) in a process group of its own: a
	# cancelled boot must end it, not leave it running to its limit.
	# Checked once against boot.sh without its EXIT trap: QEMU still
	# ran 15 s after the cancel, and this case failed.
	local pid tpid i
	setsid env BOOT_LOG="$scratch/boot.log" BOOT_ARGS=mm510.selftest=hang BOOT_TIMEOUT=300 QUIET=1 \
		"$TOP/ci/boot.sh" default >"$scratch/boot.out" 2>&1 &
	pid=$!
	for i in $(seq 100); do
		tpid=$(pgrep -P "$pid" -x timeout || :)
		[ -n "$tpid" ] && break
		sleep 0.1
	done
	[ -n "$tpid" ] || { cat "$scratch/boot.out"; echo "no QEMU started"; return 1; }
	sleep 2
	kill -TERM -- "-$pid"
	for i in $(seq 150); do
		kill -0 "$tpid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$tpid" 2>/dev/null; then
		kill "$tpid"
		wait "$pid" || :
		echo "QEMU (under timeout $tpid) still ran 15 s after boot.sh was cancelled"
		return 1
	fi
	wait "$pid" || :
}
