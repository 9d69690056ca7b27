# SPDX-License-Identifier: GPL-2.0
#
# mm510: mm scalability backports for Linux 5.10.262.
# `make help` lists the targets and the variables in effect.

SCENARIO	?= default
BASE_TREE	?=
# make rebase: BASE=5.10.N (another 5.10.y) or DEBIAN=5.10.N-R (another
# Debian upload, for Debian's two trees).
BASE		?=
DEBIAN		?=
KERNEL_TREE	?=
# The android tree's bundle (ci/android.pin) is looked for here.
ANDROID_DIR	?= $(CURDIR)/../shared/android
TREE		?= stack
TESTS		?=
BUILD		?= $(CURDIR)/build
JOBS		?= $(shell nproc)
# make build of a compile-only scenario on Debian's tree: OBJECTS=changed
# compiles only the objects the series or the tree's patches change
# (what make check does; ci/build.sh says how), all the whole kernel.
OBJECTS		?= all
# make build TREE=stack MODULES_FROM=base: the stack's initramfs takes the
# test modules built against the base (Documentation/android.md).
MODULES_FROM	?=

export SCENARIO BASE_TREE KERNEL_TREE ANDROID_DIR TREE TESTS BUILD JOBS OBJECTS MODULES_FROM

# make send: where the series goes, comma- or space-separated addresses
# (the downstream list that reviews it); make send needs it.
SEND_TO		?=
export SEND_TO

MAIN := ci/main.sh

# make bench (ci/bench.sh): passed on only when given.
BENCH_VARS := QUICK REPS MODES PEER IRQSOFF PROFILE PROFILE_OPS BENCHES BENCH_OPS LAT_LOOPS LAT_INTERVAL \
	ATTRIB ATTRIB_GROUPS BENCH_OUT BENCH_BUILD_ONLY BENCH_REUSE SCALE SCALE_CPUS SCALE_OPS
export $(BENCH_VARS)

# make kabi (ci/kabi.sh): the symbols your modules use, checked by the report.
KABI_SYMBOLS	?=
export KABI_SYMBOLS

# make stress: the stress tests' long form (mm510.stress=long), each
# bounded by its counts and a time budget; `make check` runs the short form.
STRESS_TESTS	?= stress_cpu_hotplug,stress_memcg_churn,stress_memcg_oom,stress_vm_knobs
STRESS_ARGS	:= mm510.stress=long mm510.timeout=2400
STRESS_TIMEOUT	:= 10800

# The main job: fetch, apply, build, boot, test, report.
# make and make boot use KVM where it works (ci/boot.sh, BOOT_ACCEL);
# every other target's boots emulate the CPU.
BOOT_ACCEL	?= auto

all:
	@BOOT_ACCEL=$(BOOT_ACCEL) $(MAIN) deps fetch base apply build boot

help:
	@echo 'mm510: mm scalability backports for Linux 5.10.262'
	@echo
	@echo 'Main targets:'
	@echo '  make help         this list'
	@echo '  make              fetch, apply, build, boot and test SCENARIO, print the report'
	@echo '  make check        the test suite (what CI runs): host tests, then build and'
	@echo '                    boot every "check" scenario of configs/scenarios'
	@echo '  make stress       build SCENARIO, boot it with the stress tests'"'"' long form'
	@echo '                    (mm510.stress=long; thousands of cgroups, hundreds of'
	@echo '                    hotplug cycles; each test stopped after 40 min, the boot'
	@echo '                    after 3 hours)'
	@echo '  make check-full   check, plus the slow review gates (each patch built with'
	@echo '                    W=1 and sparse, coccinelle) and their host tests and'
	@echo '                    make rebase'"'"'s, every "full" scenario built and booted'
	@echo '                    where it boots, and the mails of make send checked (hours'
	@echo '                    on 2 cores; never timed end to end)'
	@echo '  make bench        build base 5.10.262, the stack and Debian'"'"'s 6.1 (bench'
	@echo '                    scenario), boot each alternately (tcg and icount modes,'
	@echo '                    5 repetitions), run tools/bench; writes build/bench/'
	@echo '                    report.md, results.csv, ratios.png and prints the report'
	@echo '  make bench QUICK=1  the quick development form (1 repetition, tcg, no peer)'
	@echo '  make bench PROFILE=1  also where the instructions go: each kernel built with'
	@echo '                    ftrace'"'"'s function profiler, profile.csv and a per-function'
	@echo '                    comparison in the report'
	@echo '  make bench SCALE=1  also what makes work scale: each kernel built with lock'
	@echo '                    statistics and booted with 1, 2, 4 and 8 vCPUs (SCALE_CPUS),'
	@echo '                    counts per 1000 operations over N in the report and scale.png'
	@echo '  make bench SCENARIO=arm64  the same on arm64 (the arch of SCENARIO picks the'
	@echo '                    bench scenario: bench-arm64); writes build/bench-arm64/'
	@echo '  make bench SCENARIO=rt  the RT base against the RT flavour (bench-rt), with'
	@echo '                    cyclictest'"'"'s wake-up latency under mm loads (BENCHES lat)'
	@echo '  make repeat       build SCENARIO and boot it COUNT times in a row (default 10;'
	@echo '                    TESTS, BOOT_ARGS and TREE as for make boot), for a failure'
	@echo '                    that comes one boot in several; prints "P of N boots passed"'
	@echo '  make kabi         build base and stack of SCENARIO with DWARF and MODVERSIONS'
	@echo '                    (configs/kabi.config), compare their module interface with'
	@echo '                    libabigail and Module.symvers; writes build/kabi/report.md'
	@echo '                    (each change under its patch), symbols.tsv, types.tsv'
	@echo '  make kcsan        build and boot the kcsan scenario (KCSAN) on base and stack,'
	@echo '                    compare the data races each reports; writes build/kcsan/'
	@echo '                    report.md, fails on a race only the stack has that series'
	@echo '                    does not explain (# kcsan: A / B: why)'
	@echo '  make kmemleak     the same with the debug scenario and the leaks kmemleak'
	@echo '                    finds after each test (build/kmemleak/report.md)'
	@echo '  make gates        the review gates on the applied stack (GATES, default the'
	@echo '                    fast ones; GATE_POSITIONS=N-M splits build and cocci)'
	@echo '  make gates GATES=rt-locks SCENARIO=rt  the RT flavour'"'"'s local locks at every'
	@echo '                    position (ci/rt-locks.sh), outside the window series names'
	@echo '  make lava         a LAVA job per booted, built scenario, checked against'
	@echo '                    LAVA'"'"'s schema (build/lava/; ci/lava.sh submits one to a lab)'
	@echo '  make kabi KABI_SYMBOLS=<file>  also say which of your symbols (an Android'
	@echo '                    symbol list) break, and fail when one does'
	@echo '  make kmi-check    the android flavour against plain ACK on GKI'"'"'s config, in'
	@echo '                    minutes: CRCs and KMI types of the objects it changes, and'
	@echo '                    the symbols the test modules need outside ACK'"'"'s KMI lists'
	@echo '                    (build/kmi-check-android-gki/report.txt; in make check)'
	@echo '  make kmi-modules  the android flavour as a GKI release build (exports trimmed'
	@echo '                    to ACK'"'"'s KMI lists, scenario android-gki-trim): the test'
	@echo '                    modules built against plain ACK and against the flavour,'
	@echo '                    their imports checked, both sets loaded into the flavour'"'"'s'
	@echo '                    kernel (build/kmi-modules-android-gki-trim/report.txt)'
	@echo
	@echo 'Review and sending:'
	@echo '  make maintainers-notes  regenerate MAINTAINERS-notes (make check fails when stale)'
	@echo '  make figures      write into README.md and Documentation/ the figures they quote'
	@echo '                    from results/ (ci/figures.sh; make check fails on a stale one)'
	@echo '  make send SEND_TO=<addresses>  the series as a 5.10 backport posting: a b4'
	@echo '                    branch with a cover letter, [PATCH 5.10 nn/N], each patch'
	@echo '                    opening "commit <id> upstream." (upstream.tsv); To: SEND_TO,'
	@echo '                    Cc: its upstream authors and linux-mm; writes the mails to'
	@echo '                    build/send/ (no mail sent)'
	@echo '  make ack-export   the android flavour as ACK'"'"'s Gerrit takes patches: BACKPORT:'
	@echo '                    or ANDROID: subjects, the cherry-pick line and a Change-Id'
	@echo '                    (build/ack/, with a quilt series)'
	@echo '  make refresh      write patches/ back from the stack branch (after git rebase -i'
	@echo '                    or a new commit in build/stack; names from series)'
	@echo '  make rebase BASE=5.10.N  apply the series on another 5.10.y from the same archive'
	@echo '                    (git am -3), report patches 5.10.y has taken, print git range-diff'
	@echo '  make rebase DEBIAN=5.10.N-R  the same for Debian'"'"'s two trees of another Debian'
	@echo '                    upload (debian: the series, debian-rt: its RT flavour)'
	@echo '  make fit KERNEL_TREE=<dir>  each flavour of the series on your 5.10 tree (any'
	@echo '                    sublevel, a vendor branch), on a throwaway worktree: per patch'
	@echo '                    clean, three-way or conflict (with what of the tree it meets),'
	@echo '                    and which flavour fits best (build/fit/report.md)'
	@echo
	@echo 'Steps on their own:'
	@echo '  make deps         install every missing Debian package of ci/packages (root), or'
	@echo '                    name them; the other targets install what they need'
	@echo '  make fetch        download and verify the pinned tarball into ~/.cache/mm510'
	@echo '  make base         extract it into a git repository, tagged v5.10.262'
	@echo '  make apply        git am the series onto branch mm510 of a worktree'
	@echo '  make build        build SCENARIO'"'"'s kernel, test modules and initramfs'
	@echo '  make boot         boot SCENARIO in QEMU and run the in-guest tests'
	@echo '  make clean        remove kernel objects and logs (keeps trees and tarball)'
	@echo '  make distclean    remove all of build/ (the tarball cache stays)'
	@echo
	@echo 'Config topics (configs/*.config):'
	@for f in configs/*.config; do \
		printf '  %-22s %s\n' "$$(basename $$f)" "$$(sed -n '1s/^# Help: //p' $$f)"; done
	@echo
	@echo 'Scenarios (configs/scenarios; the arch and the tree are those its fragments'"'"''
	@echo 'name on a "# Arch:" or "# Tree:" line, else x86 and BASE_TREE'"'"'s, default vanilla):'
	@bash -c '. ci/lib.sh && . ci/scenario.sh && scenario_table'
	@echo
	@echo 'Variables in effect:'
	@echo '  SCENARIO=$(SCENARIO)    scenario for build/boot/stress (and the arch of bench)'
	@echo '  BASE_TREE=$(BASE_TREE)    vanilla, debian, debian-rt or android, for a scenario whose'
	@echo '                    fragments name no tree (empty: vanilla; rt names debian-rt)'
	@echo '  KERNEL_TREE=$(KERNEL_TREE)    your own 5.10 git tree (another sublevel is said, make fit), or of android12-5.10 for'
	@echo '                    BASE_TREE=android (empty: the pinned tarball, or bundle)'
	@echo '  ANDROID_DIR=$(ANDROID_DIR)    where the android tree'"'"'s bundle'
	@echo '                    (ci/android.pin) is'
	@echo '  TREE=$(TREE)    stack (the series applied) or base (plain 5.10.262)'
	@echo '  MODULES_FROM=$(MODULES_FROM)    base: the stack'"'"'s initramfs takes the test modules built'
	@echo '                    against the base, loaded as a vendor'"'"'s are (empty: its own)'
	@echo '  TESTS=$(TESTS)    comma-separated subset of tools/tests (empty: all, or those the scenario names)'
	@echo '  OBJECTS=$(OBJECTS)    all, or changed: for a compile-only scenario on Debian'"'"'s tree,'
	@echo '                    only the objects the series or Debian'"'"'s patches change;'
	@echo '                    listed: the objects of OBJECT_LIST and the test modules (kmi-check)'
	@echo '  BUILD=$(BUILD)'
	@echo '  CACHE_DIR=$(CACHE_DIR)    the tarballs and ccache (empty: ~/.cache/mm510)'
	@echo '  JOBS=$(JOBS)'
	@echo '  STRESS_TESTS=$(STRESS_TESTS)'
	@echo '  BOOT_ARGS=$(BOOT_ARGS)    more kernel arguments for make boot, stress and repeat'
	@echo '  BOOT_ACCEL=$(BOOT_ACCEL)    make and make boot: auto (KVM where a short probe boot passes,'
	@echo '                    else TCG, said), kvm or tcg; every other target uses TCG'
	@echo '  BOOT_OBJ=$(BOOT_OBJ)    make boot: a folder with the kernel image and'
	@echo '                    mm510-initramfs.cpio to boot instead of the tree'"'"'s build'
	@echo '  ADD_FRAGMENTS=$(ADD_FRAGMENTS)    more fragments for SCENARIO'"'"'s kernel, comma-separated'
	@echo '                    (e.g. hangcheck): a build folder of their own'
	@echo '  COUNT=$(COUNT)    make repeat: the boots in a row'
	@echo '  GATES=$(GATES)    make gates: the gates to run'
	@echo '  GATE_POSITIONS=$(GATE_POSITIONS)    make gates: N or N-M, the patches the slow gates'
	@echo '                    (build, cocci) judge (empty: all)'
	@echo '  GATE_SCENARIO=$(GATE_SCENARIO)    make gates: the configuration of the build and'
	@echo '                    cocci gates (empty: default)'
	@echo '  BASE=$(BASE) DEBIAN=$(DEBIAN)    make rebase: another 5.10.y (BASE=5.10.N) or another'
	@echo '                    Debian upload (DEBIAN=5.10.N-R)'
	@echo '  KABI_SYMBOLS=$(KABI_SYMBOLS)    make kabi: your modules'"'"' symbol list (empty: none)'
	@echo '  SEND_TO=$(SEND_TO)    make send: where the series goes (comma- or space-separated;'
	@echo '                    required; make check-full uses kernel-review@example.com)'
	@echo '  make bench: QUICK=$(QUICK) REPS=$(REPS) MODES=$(MODES) PEER=$(PEER) IRQSOFF=$(IRQSOFF) PROFILE=$(PROFILE)'
	@echo '              PROFILE_OPS=$(PROFILE_OPS) BENCHES=$(BENCHES) BENCH_OPS=$(BENCH_OPS) ATTRIB=$(ATTRIB)'
	@echo '              ATTRIB_GROUPS=$(ATTRIB_GROUPS) LAT_LOOPS=$(LAT_LOOPS) LAT_INTERVAL=$(LAT_INTERVAL)'
	@echo '              BENCH_OUT=$(BENCH_OUT) BENCH_BUILD_ONLY=$(BENCH_BUILD_ONLY) BENCH_REUSE=$(BENCH_REUSE)'
	@echo '              SCALE=$(SCALE) SCALE_CPUS=$(SCALE_CPUS) SCALE_OPS=$(SCALE_OPS)'
	@echo '              (empty: the defaults of ci/bench.sh)'

# make deps: every package of ci/packages; the deps step of the other
# targets (ci/main.sh) only what their scenario and DEPS_TAGS need.
deps:
	@ci/deps.sh

fetch base apply:
	@$(MAIN) $@

# make gates: the review gates (ci/gates.sh) on the applied stack: GATES
# (default the fast ones), GATE_POSITIONS (N or N-M) to split the slow
# ones (build, cocci) by patch, as CI's gates:slow matrix does.
GATES		?= series provenance checkpatch maintainers
export GATE_POSITIONS GATE_SCENARIO

gates:
	@DEPS_TAGS=gates $(MAIN) deps fetch base apply
	@ci/gates.sh $(GATES)

# make lava: a LAVA job per booted scenario of make check whose kernel
# is built, checked against LAVA's schema (ci/lava.sh; build/lava/).
lava:
	@ci/lava.sh check

build:
	@$(MAIN) deps fetch base apply build

boot:
	@BOOT_ACCEL=$(BOOT_ACCEL) $(MAIN) boot

check:
	@ci/check.sh

check-full:
	@MM510_FULL=1 ci/check.sh

maintainers-notes:
	@$(MAIN) deps fetch base
	@ci/maintainers-notes.sh --write

# make figures: the documents' quoted figures rewritten from their
# result files (ci/figures.sh; a host test of make check checks them).
figures:
	@ci/figures.sh update

send:
	@[ -n "$${SEND_TO}" ] || { echo 'make send: error: no SEND_TO: name where the series goes, your review list, e.g. make send SEND_TO=kernel-review@example.com' >&2; exit 1; }
	@DEPS_TAGS=send $(MAIN) deps fetch base apply
	@ci/send.sh

bench:
	@ci/bench.sh

kabi:
	@DEPS_TAGS=kabi $(MAIN) deps fetch base apply
	@ci/kabi.sh

# make kmi-check: the android flavour's KMI against plain ACK's on GKI's
# configuration, object by object and module by module (ci/kmi-check.sh;
# make check runs it where ACK's tree is).
kmi-check:
	@SCENARIO=$(if $(filter default,$(SCENARIO)),android-gki,$(SCENARIO)) DEPS_TAGS=kabi $(MAIN) deps fetch base apply
	@SCENARIO=$(if $(filter default,$(SCENARIO)),android-gki,$(SCENARIO)) ci/kmi-check.sh

# make fit KERNEL_TREE=DIR: how each flavour of the series meets a 5.10
# tree of the user's (ci/fit.sh); needs only git.
fit:
	@ci/fit.sh

# make kmi-modules: the android flavour as a GKI release build, with
# vendor modules built against plain ACK and against it (ci/kmi-modules.sh).
kmi-modules:
	@SCENARIO=$(if $(filter default,$(SCENARIO)),android-gki-trim,$(SCENARIO)) DEPS_TAGS=kabi $(MAIN) deps fetch base apply
	@SCENARIO=$(if $(filter default,$(SCENARIO)),android-gki-trim,$(SCENARIO)) ci/kmi-modules.sh

ack-export:
	@ci/ack-export.sh

kcsan kmemleak:
	@$(MAIN) deps fetch base apply
	@ci/against-base.sh $@

rebase:
	@if [ -n "$(DEBIAN)" ]; then \
		SCENARIO=rt $(MAIN) deps fetch base apply && \
		SCENARIO=debian $(MAIN) apply && ci/rebase.sh debian $(DEBIAN); \
	else \
		$(MAIN) deps fetch base apply && ci/rebase.sh $(BASE); \
	fi

refresh:
	@ci/refresh.sh

stress:
	@$(MAIN) deps fetch base apply build
	@TESTS=$(or $(TESTS),$(STRESS_TESTS)) \
		BOOT_ARGS="$(STRESS_ARGS) $(BOOT_ARGS)" \
		BOOT_TIMEOUT=$(or $(BOOT_TIMEOUT),$(STRESS_TIMEOUT)) $(MAIN) boot

# make repeat: boot SCENARIO COUNT times in a row (ci/repeat.sh), for a
# failure that comes one boot in several.
COUNT		?= 10
export COUNT

repeat:
	@$(MAIN) deps fetch base apply build
	@ci/repeat.sh $(SCENARIO)

clean:
	rm -rf $(BUILD)/obj $(BUILD)/logs $(BUILD)/tools $(BUILD)/tools-* $(BUILD)/tools.log $(BUILD)/*.applied

distclean:
	@if [ -d $(BUILD)/linux ]; then git -C $(BUILD)/linux worktree prune; fi
	rm -rf $(BUILD)

.PHONY: all help deps fetch base apply build boot check check-full stress repeat bench kabi kmi-check kmi-modules fit ack-export kcsan kmemleak \
	gates lava \
	maintainers-notes figures send rebase refresh clean distclean
