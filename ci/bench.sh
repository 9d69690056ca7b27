#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: `make bench`.  Builds a bench scenario (configs/scenarios:
# bench, guest,mm,bench on x86, or bench-arm64) of the plain base, the
# stack and the 6.1 peer
# (ci/peer.sh), boots each in QEMU with the benchmarks of tools/bench and
# collects their "mm510-bench:" lines into build/bench/results.csv, then
# writes build/bench/report.md and ratios.png (ci/bench-report.sh) and
# prints the report.
#
# Kernels are measured alternately within each repetition (base, stack,
# peer, base, ...), so a change of the host's load spreads over all of
# them.  Each repetition boots every kernel twice per mode: once with kmem
# accounting (every benchmark) and once with cgroup.memory=nokmem (the
# slab benchmark only: the floor its accounting overhead is measured on).
# With IRQSOFF=1 each kernel is built a second time with the irqsoff
# latency tracer (configs/irqsoff.config) and booted once per repetition
# for the page benchmark alone, in icount mode when measured: variant
# "irqsoff", the longest IRQs-off section while each page run goes
# (bench/page prints nothing else on such a kernel: the tracer's hooks
# change every other figure).
# With lat among the benchmarks (BENCHES; the default on the debian-rt
# tree, bench-rt) each kernel is built once more with high-resolution
# timers (configs/lat.config) and booted once per repetition and mode
# for bench/lat alone: variant "lat", Debian's cyclictest (rt-tests),
# one SCHED_FIFO thread per CPU, while the idle guest, then a page, a
# slab and a memcg load run; each load's maximum and 99.9th percentile
# wake-up latency ("mm510-bench:" lines; in icount mode from a histogram
# of nanoseconds, guest instructions, not microseconds) and its histogram
# ("mm510-lathist:" lines, collected into lathist.csv).  x86 only: the
# other arches' guests have no cyclictest, and lat is left out there.
# With PROFILE=1 each kernel is built once more with ftrace's function
# profiler (configs/profile.config) and booted once, in icount mode, for
# the slab and page benchmarks with fewer operations: variant "profile",
# each run's calls and self time per function ("mm510-profile:" lines,
# collected into profile.csv; the report compares the kernels function
# by function).  One boot a kernel: icount figures seldom move between
# boots (compare the ranges of the main tables); its timings are the
# profiler's, not the benchmark's.
#
# With SCALE=1 each kernel is built once more with lock statistics and
# the function profiler (configs/scale.config, configs/profile.config)
# and booted once per repetition for each vCPU count of SCALE_CPUS, in
# tcg mode (QEMU's icount mode runs one vCPU), for bench/scale alone:
# variants "scale1", "scale2", ..., counts per 1000 operations of N tasks
# on N vCPUs (zone->lock and LRU lock acquisitions and contentions,
# IPIs, page_counter updates, per-cpu list refills and drains); the
# report gives them over N and draws scale.png.
#
# Modes: "tcg" (2 vCPUs on 2 NUMA nodes, host clock: the 2-thread
# variants exist only here, the figures move with the host's load) and
# "icount" (-icount shift=0,sleep=off, 1 vCPU, a CPU-less second node:
# time is counted in guest instructions, so the host's load does not
# enter the figures).
#
# Environment (make bench passes them on):
#   QUICK=1       development mode: 1 repetition, tcg only, fewer
#                 operations, no peer (about 10 minutes once built)
#   REPS=N        repetitions (default 5; QUICK: 1)
#   MODES="tcg icount"  (QUICK: tcg)
#   PEER=0|1      measure the 6.1 peer too (default 1; QUICK: 0; no peer
#                 on the debian-rt tree)
#   IRQSOFF=0|1   the irqsoff variant (default 1; QUICK: 0)
#   PROFILE=0|1   the profile variant (default 0)
#   PROFILE_OPS=N operations per profiled run (default 50000)
#   SCALE=0|1     the scale variant (default 0)
#   SCALE_CPUS="1 2 4 8"  its vCPU counts (1 to 16)
#   SCALE_OPS=N   operations per task and load of bench/scale (default
#                 20000; QUICK: 5000)
#   BENCHES="slab page memcg wis"  benchmarks to run (tools/bench/*.c;
#                 on the debian-rt tree the default adds lat)
#   LAT_LOOPS=N   cyclictest's loops per thread and load of bench/lat, one
#                 each LAT_INTERVAL us (default 10000; QUICK: 2000)
#   LAT_INTERVAL=US  cyclictest's interval (default 1000)
#   BENCH_OPS=N   operations per slab/page run (default 1000000)
#   ATTRIB=1      also the stack cut after each group of the series but
#                 the last (kernels g1..g8 for groups 1-9; the full stack
#                 is the last group and the localversion patch)
#   ATTRIB_GROUPS="N ..."  with ATTRIB=1, only the cuts after these groups
#   SCENARIO=name the arch and tree, from a scenario of configs/scenarios:
#                 a bench scenario itself, or any other, whose arch's and
#                 tree's bench scenario is taken (default: default, so
#                 x86's bench; SCENARIO=arm64 gives bench-arm64,
#                 SCENARIO=rt bench-rt: base-rt against the RT flavour)
#   BENCH_OUT=dir where results, report and logs go (default
#                 build/<bench scenario>: build/bench, build/bench-arm64)
#   BENCH_BUILD_ONLY=1  build and keep the kernels, boot nothing
#   BENCH_REUSE=1 boot the kernels kept in BENCH_OUT by an earlier run
#                 as they are (no rebuild: for re-measuring only)
# The build folder's lock is held throughout, like make.

. "$(dirname "$0")/lib.sh"
. "$TOP/ci/scenario.sh"
# The figures are TCG's and icount's (ci/boot.sh, BOOT_ACCEL).
export BOOT_ACCEL=tcg

scenario_load "${SCENARIO:-default}"
if [ "$SC_TIER" != bench ]; then
	arch=$SC_ARCH tree=$TR_NAME sc=
	for s in $(scenario_names bench); do
		scenario_load "$s"
		[ "$SC_ARCH" = "$arch" ] && [ "$TR_NAME" = "$tree" ] && { sc=$s; break; }
	done
	[ -n "$sc" ] || die "no bench scenario in configs/scenarios for $arch on the $tree tree (SCENARIO=${SCENARIO:-default})"
fi
sc=$SC_NAME
msg "$sc: $SC_ARCH kernels, fragments $SC_KEY"
lock_build
quick=${QUICK:-0}
if [ "$quick" = 1 ]; then
	reps=${REPS:-1}
	modes=${MODES:-tcg}
	peer=${PEER:-0}
	irqsoff=${IRQSOFF:-0}
	ops=${BENCH_OPS:-200000}
	wis_secs=${WIS_SECS:-2}
	memcgs=${MEMCGS:-200}
	lat_loops=${LAT_LOOPS:-2000}
else
	reps=${REPS:-5}
	modes=${MODES:-tcg icount}
	peer=${PEER:-1}
	irqsoff=${IRQSOFF:-1}
	ops=${BENCH_OPS:-1000000}
	wis_secs=${WIS_SECS:-5}
	memcgs=${MEMCGS:-1000}
	lat_loops=${LAT_LOOPS:-10000}
fi
lat_interval=${LAT_INTERVAL:-1000}
[[ $lat_loops =~ ^[1-9][0-9]*$ ]] || die "LAT_LOOPS must be a positive number, not '$lat_loops'"
[[ $lat_interval =~ ^[1-9][0-9]*$ ]] || die "LAT_INTERVAL must be a positive number of us, not '$lat_interval'"
# Wake-up latency is what RT users measure: on the RT tree the default
# set has the lat benchmark too (two more kernels and boots; on the
# vanilla tree ask for it in BENCHES).
default_benches="slab page memcg wis"
[ "$TR_NAME" != debian-rt ] || default_benches="$default_benches lat"
benches=${BENCHES:-$default_benches}
for b in $benches; do
	[ -f "$TOP/tools/bench/$b.c" ] || die "no benchmark '$b' (tools/bench/$b.c)"
done
for m in $modes; do
	case $m in tcg|icount) ;; *) die "unknown mode '$m' (tcg, icount)" ;; esac
done
# lat and scale run in variants of their own (high-resolution timers,
# the guest's cyclictest; lock statistics and vCPU counts); the others
# share the kmem boot.  BENCHES=scale is SCALE=1.
scale=${SCALE:-0}
case $scale in 0|1) ;; *) die "SCALE must be 0 or 1, not '$scale'" ;; esac
lat=0
rest=
for b in $benches; do
	if [ "$b" = lat ]; then
		lat=1
	elif [ "$b" = scale ]; then
		scale=1
	else
		rest=${rest:+$rest }$b
	fi
done
benches=$rest
scale_cpus=${SCALE_CPUS:-1 2 4 8}
scale_ops=${SCALE_OPS:-$([ "$quick" = 1 ] && echo 5000 || echo 20000)}
[[ $scale_ops =~ ^[1-9][0-9]*$ ]] || die "SCALE_OPS must be a positive number, not '$scale_ops'"
scale_variants=
if [ "$scale" = 1 ]; then
	for n in $scale_cpus; do
		[[ $n =~ ^([1-9]|1[0-6])$ ]] || die "SCALE_CPUS: '$n' is not a vCPU count from 1 to 16"
		scale_variants="$scale_variants scale$n"
	done
	[ -n "$scale_variants" ] || die "SCALE=1 with no vCPU count in SCALE_CPUS"
fi
lat_note=
if [ "$lat" = 1 ] && [ "$SC_ARCH" != x86 ]; then
	lat_note="lat skipped: the $SC_ARCH guests have no cyclictest (Debian's rt-tests is copied into x86 guests only)"
	msg "$lat_note"
	lat=0
fi
[ -n "$benches" ] || [ "$lat" = 1 ] || [ "$scale" = 1 ] || die "no benchmark left to run (BENCHES=${BENCHES:-})"
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "REPS must be a positive number, not '$reps'"
case $irqsoff in 0|1) ;; *) die "IRQSOFF must be 0 or 1, not '$irqsoff'" ;; esac
profile=${PROFILE:-0}
case $profile in 0|1) ;; *) die "PROFILE must be 0 or 1, not '$profile'" ;; esac
profile_ops=${PROFILE_OPS:-50000}
[[ $profile_ops =~ ^[1-9][0-9]*$ ]] || die "PROFILE_OPS must be a positive number, not '$profile_ops'"
# The peer is a plain 6.1 (ci/peer.sh): the RT tree's benchmarks have none.
if [ "$TR_NAME" != vanilla ] && [ "$peer" = 1 ]; then
	[ -z "${PEER:-}" ] || die "PEER=1: the $TR_NAME tree has no 6.1 peer (ci/peer.sh's 6.1 is not an RT kernel); run with PEER=0"
	peer=0
fi
# The irqsoff variant runs the page benchmark only, in icount mode when
# that is measured (its figures are then instructions), else in the first.
if [ "$irqsoff" = 1 ] && [[ " $benches " != *" page "* ]]; then
	msg "IRQSOFF=1 needs the page benchmark (BENCHES); no irqsoff variant"
	irqsoff=0
fi
irqsoff_mode=
if [ "$irqsoff" = 1 ]; then
	irqsoff_mode=${modes%% *}
	[[ " $modes " != *" icount "* ]] || irqsoff_mode=icount
fi
# The profile variant: the slab and page benchmarks of BENCHES, icount
# mode when measured (else the first mode), the first repetition only.
profile_tests=
if [ "$profile" = 1 ]; then
	for b in slab page; do
		[[ " $benches " != *" $b "* ]] || profile_tests=${profile_tests:+$profile_tests,}bench/$b
	done
	[ -n "$profile_tests" ] || die "PROFILE=1 needs the slab or page benchmark (BENCHES)"
	profile_mode=${modes%% *}
	[[ " $modes " != *" icount "* ]] || profile_mode=icount
fi

# The groups of the series: a patch's group is the first two digits of
# its file name (00 for the RT flavour's own groups, 99 for the stack
# marker, left out).
series_groups() {
	local p
	for p in $(series_patches); do
		p=${p##*/}
		echo $((10#${p:0:2}))
	done | sort -nu | grep -vx 99
}
attrib=${ATTRIB:-0}
kernels=base
if [ "$attrib" = 1 ]; then
	cuts=$(series_groups | sed '$d')
	if [ -n "${ATTRIB_GROUPS:-}" ]; then
		for g in $ATTRIB_GROUPS; do
			grep -qx "$g" <<<"$cuts" ||
				die "ATTRIB_GROUPS: no cut after group '$g' (the cuts: $(echo $cuts))"
		done
		cuts=$ATTRIB_GROUPS
	fi
	for g in $cuts; do kernels="$kernels g$g"; done
fi
kernels="$kernels stack"
[ "$peer" = 1 ] && kernels="$kernels peer"

out=${BENCH_OUT:-$BUILD/$sc}
mkdir -p "$out"
csv=$out/results.csv

# --- build ------------------------------------------------------------------
SCENARIO=$sc DEPS_TAGS=bench "$TOP/ci/main.sh" deps fetch base apply
[ "$peer" = 1 ] && "$TOP/ci/peer.sh"

# Each kernel with its initramfs is kept in $out/kernels/<name>, so that
# the stack's cuts (ATTRIB=1), built one after another in one tree and
# one object folder, can be booted alternately.
keep() {
	local obj=$1-$SC_KEY${extra:++${extra//,/+}} dst=$out/kernels/$2
	mkdir -p "$dst/${SC_IMAGE%/*}"
	cp "$obj/$SC_IMAGE" "$dst/$SC_IMAGE"
	cp "$obj/mm510-initramfs.cpio" "$dst/mm510-initramfs.cpio"
}
# Release names, for the report's header: the banner of an uncompressed
# Image (arm64), else bzImage's kernel_version string.
release_of() {
	local img=$out/kernels/$1/$SC_IMAGE r v
	# A kernel built only as a variant (BENCHES=lat) has the same release.
	for v in irqsoff profile lat scale; do
		[ -f "$img" ] || img=$out/kernels/$1-$v/$SC_IMAGE
	done
	r=$(strings "$img" | sed -n 's/^Linux version \([0-9][^ ]*\) (.*/\1/p' | sed -n 1p)
	[ -n "$r" ] || r=$(strings "$img" | sed -n 's/^\([0-9][0-9.]*[^ ]*\) (.*/\1/p' | sed -n 1p)
	echo "$r"
}

# ATTRIB=1: the stack cut after a group of the series (see
# series_groups).
cut_commit() {
	local g=$1 stack last=0 i=0 p
	stack=$(stack_tree)
	for p in $(series_patches); do
		i=$((i + 1))
		p=${p##*/}
		[ $((10#${p:0:2})) -le "$g" ] && last=$i
	done
	[ "$last" -gt 0 ] || die "series has no patch of group $g"
	git -C "$stack" rev-list --reverse "$TR_TAG..HEAD" | sed -n "${last}p"
}

# build_kernel KERNEL NAME [FRAGMENT]: build KERNEL (base, g<N>, stack,
# peer), with one more config fragment if given, and keep it as
# $out/kernels/NAME.
build_kernel() {
	local k=$1 sha extra=${3:-}
	local -x ADD_FRAGMENTS=${ADD_FRAGMENTS:-}
	[ -z "$extra" ] || ADD_FRAGMENTS=${ADD_FRAGMENTS:+$ADD_FRAGMENTS,}$extra
	case $k in
	g[0-9]*) sha=$(cut_commit "${k#g}")
		if [ -d "$BUILD/cut" ]; then
			git -C "$BUILD/cut" checkout -q --detach "$sha"
		else
			git -C "$(stack_tree)" worktree add -q --detach "$BUILD/cut" "$sha"
		fi
		msg "$k: the stack cut after group ${k#g} ($(git -C "$BUILD/cut" log -1 --format=%s))"
		TREE=cut "$TOP/ci/build.sh" "$sc"
		keep "$BUILD/obj/cut" "$2" ;;
	base)	TREE=base "$TOP/ci/build.sh" "$sc"
		keep "$BUILD/obj/$(basename "$(base_checkout)")" "$2" ;;
	stack)	TREE=stack "$TOP/ci/build.sh" "$sc"
		keep "$BUILD/obj/$(basename "$(stack_tree)")" "$2" ;;
	peer)	TREE=peer "$TOP/ci/build.sh" "$sc"
		keep "$BUILD/obj/$(basename "$PEER_TREE")" "$2" ;;
	esac
}

for k in $kernels; do
	# The kernel itself only when a benchmark besides lat boots it.
	names=
	[ -z "$benches" ] || names=$k
	[ "$irqsoff" = 1 ] && names="$names $k-irqsoff"
	[ "$profile" = 1 ] && names="$names $k-profile"
	[ "$lat" = 1 ] && names="$names $k-lat"
	[ "$scale" = 1 ] && names="$names $k-scale"
	for n in $names; do
		if [ "${BENCH_REUSE:-}" = 1 ] && [ -f "$out/kernels/$n/mm510-initramfs.cpio" ]; then
			msg "$n: reusing $out/kernels/$n (BENCH_REUSE=1)"
			continue
		fi
		# A variant's fragment is its name: irqsoff, profile, lat;
		# scale counts calls with the profiler as well.
		frag=
		[ "$n" = "$k" ] || frag=${n#"$k"-}
		[ "$frag" != scale ] || frag=profile,scale
		build_kernel "$k" "$n" "$frag"
	done
done

if [ "${BENCH_BUILD_ONLY:-}" = 1 ]; then
	msg "kernels built and kept in $out/kernels (BENCH_BUILD_ONLY=1: no boots)"
	exit 0
fi

# --- measure ----------------------------------------------------------------
tests_of() {
	local b list=
	for b in $1; do list=${list:+$list,}bench/$b; done
	echo "$list"
}
all_tests=$(tests_of "$benches")
# The nokmem boots give the floor of the accounting overhead, and what a
# memory cgroup costs without kmem accounting (no kmem id, so no
# per-cgroup list_lru lists).  GKI's built-in command line already has
# cgroup.memory=nokmem: on the android tree every boot is one, and a
# second set would measure the same.
floor_tests=
if [ "$TR_NAME" != android ]; then
	[[ " $benches " != *" slab "* ]] || floor_tests=bench/slab
	[[ " $benches " != *" memcg "* ]] || floor_tests=${floor_tests:+$floor_tests,}bench/memcg
fi

# The logs of an earlier run would mix with this one's.
rm -rf "$out/logs"
mkdir -p "$out/logs"
echo "kernel,mode,variant,rep,name,metric,value,unit" >"$csv.part"
echo "kernel,row,ops,function,calls,ns" >"$out/profile.csv.part"
echo "kernel,mode,rep,load,us,count" >"$out/lathist.csv.part"
failed=0
runs=0
start=$(date +%s)
for rep in $(seq 1 "$reps"); do
	for mode in $modes; do
		for variant in kmem nokmem irqsoff profile lat $scale_variants; do
			kdir=
			vops=$ops
			cpus=2
			rmode=$mode
			case $variant in
			kmem)	tests=$all_tests
				args= ;;
			nokmem)	tests=$floor_tests
				args=cgroup.memory=nokmem ;;
			irqsoff) tests=
				[ "$mode" = "$irqsoff_mode" ] && tests=bench/page
				args=
				kdir=-irqsoff ;;
			profile) tests=
				[ "$profile" = 1 ] && [ "$mode" = "$profile_mode" ] &&
					[ "$rep" = 1 ] && tests=$profile_tests
				args=mm510.bench_profile=1
				vops=$profile_ops
				kdir=-profile ;;
			lat)	tests=
				[ "$lat" = 1 ] && tests=bench/lat
				# Guest instructions: a histogram of ns.
				args=
				[ "$mode" = icount ] && args=mm510.bench_lat_ns=1
				kdir=-lat ;;
			scale*)	# tcg, in the first mode of each repetition.
				tests=
				[ "$mode" = "${modes%% *}" ] && tests=bench/scale
				args=mm510.bench_scale_ops=$scale_ops
				cpus=${variant#scale}
				rmode=tcg
				kdir=-scale ;;
			esac
			[ -n "$tests" ] || continue
			for k in $kernels; do
				log=$out/logs/$k-$rmode-$variant-$rep.log
				icount=0
				[ "$rmode" = icount ] && icount=1
				msg "rep $rep/$reps, $rmode, $variant: $k"
				runs=$((runs + 1))
				tree=$k
				case $k in g[0-9]*) tree=stack ;; esac
				if ! TREE=$tree BOOT_OBJ=$out/kernels/$k$kdir TESTS=$tests BOOT_LOG=$log BOOT_ICOUNT=$icount BOOT_CPUS=$cpus BOOT_DISKS=0 QUIET=1 \
					BOOT_TIMEOUT=${BENCH_TIMEOUT:-3600} \
					BOOT_ARGS="$args mm510.bench_ops=$vops mm510.bench_secs=$wis_secs mm510.bench_memcgs=$memcgs mm510.bench_lat_loops=$lat_loops mm510.bench_lat_interval=$lat_interval mm510.timeout=3000" \
					"$TOP/ci/boot.sh" "$sc" >"$log.verdict" 2>&1; then
					msg "FAILED: $(tail -n 1 "$log.verdict")"
					failed=$((failed + 1))
				fi
				# Whatever the run printed counts, even from a
				# failed boot; the report lists the failures.
				# A profiled run's timings are the profiler's.
				if [ "$variant" != profile ]; then
					sed -n 's/\r$//; s/^mm510-bench: //p' "$log" |
						awk -v k="$k" -v m="$rmode" -v v="$variant" -v r="$rep" \
						'NF == 4 { printf "%s,%s,%s,%s,%s,%s,%s,%s\n", k, m, v, r, $1, $2, $3, $4 }' \
						>>"$csv.part"
				fi
				sed -n 's/\r$//; s/^mm510-profile: //p' "$log" |
					awk -v k="$k" 'NF == 5 { printf "%s,%s,%s,%s,%s,%s\n", k, $1, $2, $3, $4, $5 }' \
					>>"$out/profile.csv.part"
				sed -n 's/\r$//; s/^mm510-lathist: //p' "$log" |
					awk -v k="$k" -v m="$mode" -v r="$rep" \
					'NF == 3 { printf "%s,%s,%s,%s,%s,%s\n", k, m, r, $1, $2, $3 }' \
					>>"$out/lathist.csv.part"
			done
		done
	done
done
mv "$csv.part" "$csv"
if [ "$profile" = 1 ]; then
	mv "$out/profile.csv.part" "$out/profile.csv"
else
	rm -f "$out/profile.csv.part" "$out/profile.csv"
fi
if [ "$lat" = 1 ]; then
	mv "$out/lathist.csv.part" "$out/lathist.csv"
else
	rm -f "$out/lathist.csv.part" "$out/lathist.csv"
fi
msg "$runs boots in $(( $(date +%s) - start )) s, $failed failed; raw results: $csv"

# --- report -----------------------------------------------------------------
for k in $kernels; do
	echo "$k $(release_of "$k")"
done >"$out/kernels.txt"
BENCH_KERNELS=$out/kernels.txt BENCH_FAILED=$failed BENCH_RUNS=$runs BENCH_QUICK=$quick BENCH_NOTE=$lat_note \
	BENCH_ARCH=$SC_ARCH BENCH_TREE=$TR_NAME BENCH_FRAGMENTS="${SC_KEY//+/, }" \
	"$TOP/ci/bench-report.sh" "$csv" "$out"
cat "$out/report.md"
[ "$failed" -eq 0 ] || die "$failed of $runs benchmark boots failed (logs in $out/logs)"
