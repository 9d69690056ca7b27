#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-report.sh RESULTS.CSV OUTDIR: turn make bench's raw results into
# OUTDIR/report.md (Markdown tables) and OUTDIR/ratios.png (gnuplot; left
# out with a note when gnuplot is missing or NO_PLOT=1).
#
# RESULTS.CSV: "kernel,mode,variant,rep,name,metric,value,unit", one line
# per figure a guest printed (kernel base|stack|peer, mode tcg|icount,
# variant kmem|nokmem|irqsoff|profile|lat).  Every figure is given as
# the median of its repetitions with min..max, and for stack and peer
# the change against base in percent (compare-kernels style: base is
# the first column).
# The slab benchmark's accounting overhead is the median with kmem
# accounting minus the median with cgroup.memory=nokmem, per kernel;
# its ratio to base's overhead is what upstream quotes (0.58 for 32-byte
# and 0.43 for 4 KiB objects with Waiman Long's series).  A summary
# comes first: the headline figures (overheads, single page, bulk of 8,
# bytes per cgroup, longest IRQs-off section, cyclictest's maximum and
# 99.9th percentile wake-up latency per load, will-it-scale) and their
# ratios to base, each computed within a repetition and given with its
# range over the repetitions.  With the lat variant, a section of its
# own: those latencies with what their ratios allow to be said, and the
# histograms of lathist.csv, beside the results (table, latency.png).
#
# Environment: BENCH_RUNS, BENCH_FAILED, BENCH_QUICK, BENCH_ARCH,
# BENCH_FRAGMENTS and BENCH_NOTE (a line for the header).

. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || die "usage: bench-report.sh RESULTS.CSV OUTDIR"
csv=$1
out=$2
[ -f "$csv" ] || die "$csv does not exist"
head -n 1 "$csv" | grep -qx 'kernel,mode,variant,rep,name,metric,value,unit' ||
	die "$csv: not a make bench results file (wrong header)"
mkdir -p "$out"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# awk functions the programs below share: num() prints a figure with
# four significant digits (no exponent for large ones), rnum() a ratio
# with three decimals, sortn() sorts a[1..n] in place (insertion sort: n
# is small), median() of a sorted a[1..n], spread() gives a[1..n] (sorted
# on the way) as "median (min..max)", one figure where they agree,
# kernels() fills kern[1..] with the kernels of have[] in report order
# (base, the cuts of ATTRIB=1, stack, peer) and returns their number.
awk_lib='
function num(x) {
	return (x >= 10000 || x <= -10000) ? sprintf("%.0f", x) : sprintf("%.4g", x)
}
function sortn(a, n,   i, j, x) {
	for (i = 2; i <= n; i++) {
		x = a[i]
		for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]
		a[j + 1] = x
	}
}
function median(a, n) {
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function rnum(x) { return sprintf("%.3f", x) }
# median (min..max) of the n values in a[1..n], fmt "r" for ratios
function spread(a, n, fmt,   med, lo, hi) {
	if (n == 0)
		return "n/a"
	sortn(a, n)
	med = median(a, n)
	if (fmt == "r") {
		lo = rnum(a[1]); hi = rnum(a[n]); med = rnum(med)
	} else {
		lo = num(a[1]); hi = num(a[n]); med = num(med)
	}
	return lo == hi ? med : med " (" lo ".." hi ")"
}
function kernels(have, kern,   k, g, ng, i, nk) {
	nk = ng = 0
	if ("base" in have)
		kern[++nk] = "base"
	# The cuts by group number, however many groups the series has.
	for (k in have)
		if (k ~ /^g[0-9]+$/)
			g[++ng] = substr(k, 2) + 0
	sortn(g, ng)
	for (i = 1; i <= ng; i++)
		kern[++nk] = "g" g[i]
	if ("stack" in have)
		kern[++nk] = "stack"
	if ("peer" in have)
		kern[++nk] = "peer"
	return nk
}
'

# --- statistics: one line per (kernel mode variant name metric) -------------
# "kernel mode variant name metric unit n median min max", sorted by key.
tail -n +2 "$csv" | awk -F, "$awk_lib"'
NF != 8 || $7 !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/ {
	printf "bench-report.sh: line %d: malformed: %s\n", NR + 1, $0 > "/dev/stderr"
	bad = 1; next
}
{
	k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $5 SUBSEP $6
	n[k]++; v[k, n[k]] = $7 + 0; unit[k] = $8
}
END {
	if (bad)
		exit 1
	for (k in n) {
		m = n[k]
		for (i = 1; i <= m; i++) s[i] = v[k, i]
		sortn(s, m)
		med = median(s, m)
		split(k, f, SUBSEP)
		printf "%s %s %s %s %s %s %d %.6g %.6g %.6g\n", f[1], f[2], f[3], f[4], f[5], unit[k], m, med, s[1], s[m]
	}
}' | sort -k2,2r -k3,3 -k4,4V -k5,5 -k1,1 >"$tmp/stats" || die "$csv has malformed lines"

[ -s "$tmp/stats" ] || die "$csv holds no results"

# --- report.md --------------------------------------------------------------
{
	echo "# mm510 benchmarks"
	echo
	echo "Generated $(date -u '+%Y-%m-%d %H:%M UTC') from \`${csv##*/}\`$([ "${BENCH_QUICK:-0}" = 1 ] && echo ' (QUICK=1: development figures, few operations and repetitions)')."
	[ -n "${BENCH_RUNS:-}" ] && echo "${BENCH_RUNS} boots, ${BENCH_FAILED:-0} failed."
	echo
	if [ "${BENCH_TREE:-vanilla}" = debian-rt ]; then
		echo "Kernels: **base** = the RT base, 5.10.262 with Debian's debian/patches and"
		echo "patches-rt (the debian-rt tree), **stack** = that with the RT flavour of the"
		echo "mm510 series; PREEMPT_RT, no peer;"
	elif [ "${BENCH_TREE:-vanilla}" = android ]; then
		echo "Kernels: **base** = Android's common kernel android12-5.10 (the android tree),"
		echo "**stack** = that with the android flavour of the mm510 series; no peer."
		echo "GKI's config builds \`cgroup.memory=nokmem\` into its command line, so both"
		echo "variants run without kernel memory accounting, as Android ships: the"
		echo "accounting overhead rows (kmem - nokmem) are left out of the summary;"
	else
		echo "Kernels: **base** = plain 5.10.262, **stack** = 5.10.262 with the mm510 series,"
		echo "**peer** = Debian's 6.1 (linux-source-6.1), **g<N>** (ATTRIB=1) = the stack cut after"
		echo "that group of \`series\`;"
	fi
	echo "the same config fragments (${BENCH_FRAGMENTS:-guest, mm, bench}), built for ${BENCH_ARCH:-x86}."
	if [ -n "${BENCH_KERNELS:-}" ] && [ -f "$BENCH_KERNELS" ]; then
		echo "Releases: $(awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }' "$BENCH_KERNELS")."
	fi
	echo "Each cell: median (min..max) over the repetitions, n = their number;"
	echo "Δ = change against base.  Modes: **tcg** = 2 vCPUs on 2 NUMA nodes, host"
	echo "clock (figures move with the host's load); **icount** = QEMU"
	echo "\`-icount shift=0,sleep=off\`, 1 vCPU, a CPU-less second node: 1 ns is"
	echo "one guest instruction, the figures do not depend on the host's load."
	echo "Lower is better for ns_*, cycles_*, *_B and *_us; higher for ops_s (will-it-scale)."
	echo "Variant **irqsoff**: the same kernels built again with the irqsoff latency tracer"
	echo "(\`configs/irqsoff.config\`), page benchmark only; irqsoff_max_us is the longest"
	echo "IRQs-off section anywhere in the guest while each page run went (the tracer's"
	echo "microseconds: instructions/1000 in icount mode), its sites are listed below."
	if awk -F, '$3 == "lat" { found = 1; exit } END { exit !found }' "$csv"; then
		echo "Variant **lat**: the same kernels built again with high-resolution timers"
		echo "(\`configs/lat.config\`), bench/lat alone: Debian's cyclictest, one SCHED_FIFO"
		echo "thread per CPU, wake-up latency (us) while no load, then a page, a slab and a"
		echo "memcg load ran on every CPU (see \"Wake-up latency\" below)."
	fi
	[ -z "${BENCH_NOTE:-}" ] || echo "Note: ${BENCH_NOTE}."
} >"$tmp/report.md"

# --- summary: the headline figures, per repetition -------------------------
# Each figure is computed within one repetition (the kernels of a
# repetition boot one after the other), its ratio to base likewise, and
# both are given as median (min..max) over the repetitions: a ratio is
# only as good as its range.
tail -n +2 "$csv" | awk -F, "$awk_lib"'
function has(k) { return k in v }
# The figure id of kernel k, mode m, repetition r; "" when not measured.
function fig(k, m, r, id,   row, a, b, i, x, best) {
	if (id ~ /^ovh:/) {
		row = substr(id, 5)
		a = k SUBSEP m SUBSEP "kmem" SUBSEP r SUBSEP row SUBSEP "ns_op"
		b = k SUBSEP m SUBSEP "nokmem" SUBSEP r SUBSEP row SUBSEP "ns_op"
		return (has(a) && has(b)) ? v[a] - v[b] : ""
	}
	if (id == "bulk8") {
		a = k SUBSEP m SUBSEP "kmem" SUBSEP r SUBSEP "page-bulk-8" SUBSEP "ns_page"
		b = k SUBSEP m SUBSEP "kmem" SUBSEP r SUBSEP "page-single" SUBSEP "ns_page"
		return (has(a) && has(b) && v[b] > 0) ? v[a] / v[b] : ""
	}
	if (id == "irqsoff") {
		best = ""
		for (i = 1; i <= nrowsof; i++) {
			a = k SUBSEP m SUBSEP "irqsoff" SUBSEP r SUBSEP irqrows[i] SUBSEP "irqsoff_max_us"
			if (has(a) && (best == "" || v[a] > best))
				best = v[a]
		}
		return best
	}
	split(id, x, ":")	# variant:row:metric
	a = k SUBSEP m SUBSEP x[1] SUBSEP r SUBSEP x[2] SUBSEP x[3]
	return has(a) ? v[a] : ""
}
NF == 8 {
	v[$1, $2, $3, $4, $5, $6] = $7 + 0
	have[$1] = 1
	if (!($2 in seenmode)) { seenmode[$2] = 1; modes[++nmodes] = $2 }
	if (!(($2, $4) in seenrep)) { seenrep[$2, $4] = 1; reps[$2, ++nrep[$2]] = $4 }
	if ($3 == "irqsoff" && !($5 in seenirq)) { seenirq[$5] = 1; irqrows[++nrowsof] = $5 }
}
END {
	nk = kernels(have, kern)
	nf = 0
	f_id[++nf] = "ovh:slab-32-t1";		f_name[nf] = "slab accounting overhead, 32 B (ns per pair, kmem - nokmem)"
	f_id[++nf] = "ovh:slab-4096-t1";	f_name[nf] = "slab accounting overhead, 4 KiB"
	f_id[++nf] = "ovh:slab-root-32-t1";	f_name[nf] = "the same in the root memory cgroup, 32 B"
	f_id[++nf] = "ovh:slab-root-4096-t1";	f_name[nf] = "the same in the root memory cgroup, 4 KiB"
	# Under GKI (nokmem) the pairs themselves stand for the overhead rows.
	f_id[++nf] = "kmem:slab-32-t1:ns_op";	f_name[nf] = "slab 32 B alloc+free (ns per pair, no kmem accounting)"
	f_id[++nf] = "kmem:slab-4096-t1:ns_op";	f_name[nf] = "slab 4 KiB alloc+free"
	f_id[++nf] = "kmem:page-single:ns_page"; f_name[nf] = "single page alloc+free (ns)"
	f_id[++nf] = "bulk8";			f_name[nf] = "bulk of 8, per page, / single page (of the same kernel)"
	f_id[++nf] = "kmem:memcg:slab_B";	f_name[nf] = "Slab bytes per memory cgroup"
	f_id[++nf] = "kmem:memcg:percpu_B";	f_name[nf] = "Percpu bytes per memory cgroup"
	f_id[++nf] = "irqsoff";			f_name[nf] = "longest IRQs-off section under the page benchmark (us)"
	nl = split("idle page slab memcg", lload, " ")
	split("no load|page load|slab load|memcg load", lname, "|")
	for (i = 1; i <= nl; i++) {
		f_id[++nf] = "lat:lat-" lload[i] ":max_us";	f_name[nf] = "cyclictest max (us), " lname[i]
		f_id[++nf] = "lat:lat-" lload[i] ":p99_9_us";	f_name[nf] = "cyclictest p99.9 (us), " lname[i]
	}
	f_id[++nf] = "kmem:wis-unix1-t1:ops_s";	f_name[nf] = "will-it-scale unix1, 1 task (ops/s, higher is better)"
	f_id[++nf] = "kmem:wis-unix1-t2:ops_s";	f_name[nf] = "will-it-scale unix1, 2 tasks"
	f_id[++nf] = "kmem:wis-page_fault-t1:ops_s"; f_name[nf] = "will-it-scale page_fault, 1 task"
	f_id[++nf] = "kmem:wis-page_fault-t2:ops_s"; f_name[nf] = "will-it-scale page_fault, 2 tasks"
	printf "\n## Summary\n\n"
	printf "The headline figures.  Each is computed within one repetition, and so is\n"
	printf "its ratio to base; a cell gives the median (min..max) over the n\n"
	printf "repetitions (one figure where they agree).  A ratio is claimed only where\n"
	printf "its range stays on one side of 1.  Bulk of 8: the ratio of the kernel to\n"
	printf "itself (base has no bulk call).\n"
	for (mi = 1; mi <= nmodes; mi++) {
		m = modes[mi]
		printf "\n### %s\n\n| figure | n | base |", m
		for (i = 2; i <= nk; i++) printf " %s | %s/base |", kern[i], kern[i]
		printf "\n| --- | --- | --- |"
		for (i = 2; i <= nk; i++) printf " --- | --- |"
		printf "\n"
		for (fi = 1; fi <= nf; fi++) {
			# The built-in nokmem of GKI: no kmem variant to compare with.
			if (ENVIRON["BENCH_TREE"] == "android" && f_id[fi] ~ /^ovh:/)
				continue
			if (ENVIRON["BENCH_TREE"] != "android" && f_id[fi] ~ /^kmem:slab-/)
				continue
			any = 0
			for (i = 1; i <= nk && !any; i++)
				for (ri = 1; ri <= nrep[m]; ri++)
					if (fig(kern[i], m, reps[m, ri], f_id[fi]) != "") { any = 1; break }
			if (!any)
				continue
			line = ""
			maxn = 0
			for (i = 1; i <= nk; i++) {
				nv = 0; nr = 0
				delete val; delete rat
				for (ri = 1; ri <= nrep[m]; ri++) {
					r = reps[m, ri]
					x = fig(kern[i], m, r, f_id[fi])
					if (x == "")
						continue
					val[++nv] = x
					if (nv > maxn)
						maxn = nv
					b = fig("base", m, r, f_id[fi])
					if (i > 1 && b != "" && b != 0 && f_id[fi] != "bulk8")
						rat[++nr] = x / b
				}
				line = line " " spread(val, nv, "v") " |"
				if (i > 1)
					line = line " " (nr ? spread(rat, nr, "r") : "-") " |"
			}
			print "| " f_name[fi] " | " maxn " |" line
		}
	}
}' >"$tmp/summary.md" || die "$csv: summary failed"
cat "$tmp/summary.md" >>"$tmp/report.md"

awk -v tmpd="$tmp" "$awk_lib"'
function cell(k,   s) {
	if (!(k in med))
		return "n/a"
	s = num(med[k])
	if (cnt[k] > 1)
		s = s " (" num(lo[k]) ".." num(hi[k]) ")"
	return s
}
function delta(k, b) {
	if (!(k in med) || !(b in med) || med[b] == 0)
		return ""
	return sprintf("%+.1f%%", (med[k] / med[b] - 1) * 100)
}
function ratio(a, b) {
	return b > 0 ? sprintf("%.2f", a / b) : "n/a"
}
# The scale variant (counts over N vCPUs) has a section of its own below.
$3 ~ /^scale[0-9]+$/ { next }
{
	k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4 SUBSEP $5
	med[k] = $8; lo[k] = $9; hi[k] = $10; cnt[k] = $7; unit[$4 SUBSEP $5] = $6
	r = $2 SUBSEP $3 SUBSEP $4 SUBSEP $5
	if (!(r in seenrow)) { seenrow[r] = 1; rows[++nrows] = r }
	if (!($2 in seenmode)) { seenmode[$2] = 1; modes[++nmodes] = $2 }
	have[$1] = 1
	if ($1 == "base" && !(r in nrep)) nrep[r] = $7
}
END {
	nk = kernels(have, kern)
	# tcg first, then icount
	for (mi = 1; mi <= nmodes; mi++)
		if (modes[mi] == "tcg" && mi > 1) { modes[mi] = modes[1]; modes[1] = "tcg" }
	for (mi = 1; mi <= nmodes; mi++) {
		m = modes[mi]
		printf "\n## Mode %s\n\n", m
		if (m == "tcg")
			printf "Host clock, 2 vCPUs: ratios from this mode move with the host'"'"'s load.\n\n"
		else if (m == "icount")
			printf "Guest instructions, 1 vCPU (no 2-thread variants): the host'"'"'s load does not enter, the state of each boot can (see the ranges).\n\n"
		printf "| benchmark | variant | metric | n | base |"
		for (i = 2; i <= nk; i++) printf " %s | Δ |", kern[i]
		printf "\n| --- | --- | --- | --- | --- |"
		for (i = 2; i <= nk; i++) printf " --- | --- |"
		printf "\n"
		for (ri = 1; ri <= nrows; ri++) {
			split(rows[ri], f, SUBSEP)
			if (f[1] != m)
				continue
			b = "base" SUBSEP rows[ri]
			n = "-"	# repetitions: of the first kernel that has the figure
			for (i = nk; i >= 1; i--)
				if ((kern[i] SUBSEP rows[ri]) in cnt)
					n = cnt[kern[i] SUBSEP rows[ri]]
			printf "| %s | %s | %s (%s) | %s | %s |", f[3], f[2], f[4], unit[f[3] SUBSEP f[4]], n, cell(b)
			for (i = 2; i <= nk; i++) {
				k = kern[i] SUBSEP rows[ri]
				printf " %s | %s |", cell(k), delta(k, b)
				# The plot: ns figures only (cycles say the same).
				if (f[2] == "kmem" && f[4] !~ /^cycles/ && (k in med) && (b in med) && med[b] > 0)
					printf "%s:%s-%s %s %.4f\n", m, f[3], f[4], kern[i], (med[k] / med[b]) >> (tmpd "/ratios")
			}
			printf "\n"
		}

		# Accounting overhead of the slab benchmark: kmem minus nokmem.
		hdr = 0
		for (ri = 1; ri <= nrows; ri++) {
			split(rows[ri], f, SUBSEP)
			if (f[1] != m || f[2] != "kmem" || f[3] !~ /^slab-/ || f[4] != "ns_op")
				continue
			bk = "base" SUBSEP m SUBSEP "kmem" SUBSEP f[3] SUBSEP "ns_op"
			bf = "base" SUBSEP m SUBSEP "nokmem" SUBSEP f[3] SUBSEP "ns_op"
			if (!(bk in med) || !(bf in med))
				continue
			if (!hdr) {
				printf "\n### Accounting overhead (%s): ns per alloc+free pair, kmem minus nokmem (medians)\n\n", m
				printf "| objects | base |"
				for (i = 2; i <= nk; i++) printf " %s | %s/base |", kern[i], kern[i]
				printf "\n| --- | --- |"
				for (i = 2; i <= nk; i++) printf " --- | --- |"
				printf "\n"
				hdr = 1
			}
			ob = med[bk] - med[bf]
			printf "| %s | %.1f |", f[3], ob
			for (i = 2; i <= nk; i++) {
				kk = kern[i] SUBSEP m SUBSEP "kmem" SUBSEP f[3] SUBSEP "ns_op"
				kf = kern[i] SUBSEP m SUBSEP "nokmem" SUBSEP f[3] SUBSEP "ns_op"
				if ((kk in med) && (kf in med)) {
					o = med[kk] - med[kf]
					printf " %.1f | %s |", o, ratio(o, ob)
					printf "%s:%s-overhead %s %.4f\n", m, f[3], kern[i], (ob > 0 ? o / ob : 0) >> (tmpd "/ratios")
				} else {
					printf " n/a | n/a |"
				}
			}
			printf "\n"
		}
		if (hdr)
			printf "\nUpstream reached an overhead ratio of 0.58 for 32 B and 0.43 for 4 KiB objects (Waiman Long'"'"'s table in the cover letter of \"mm/memcg: Reduce kmemcache memory accounting overhead\" v6, whose patches are 20210506150007.16288-2..5-longman@redhat.com on lore).  Rows slab-root-*: the same loop in the root memory cgroup, where nothing is charged.  For v6.7, Roman Gushchin'"'"'s cover letter of \"mm: improve performance of accounted kernel memory allocations\" v5 (lore 20231019225346.1822282-1-roman.gushchin@linux.dev) gives 1M kmalloc(64) in 84548 -> 59078 us in a user cgroup, 48342 -> 31501 us in the root one, 29764 us with kmem accounting off: overhead ratios of 0.54 and 0.09.\n"
	}
}' "$tmp/stats" >>"$tmp/report.md"

# --- scalability counts (variant scale) ----------------------------------------
# bench/scale, booted with N vCPUs (variants scale1, scale2, ...): per
# load, each count per 1000 operations for each kernel over N, and
# scale.png, the counts of scale_plot over N, one line per kernel.
scale_plot="zone_lock_acq zone_lock_con page_counter_try_charge ipi_call"
rm -f "$out/scale.png"
awk -v tmpd="$tmp" -v plot="$scale_plot" "$awk_lib"'
function cell(k,   s) {
	if (!(k in med))
		return "n/a"
	s = num(med[k])
	if (cnt[k] > 1 && lo[k] != hi[k])
		s = s " (" num(lo[k]) ".." num(hi[k]) ")"
	return s
}
$3 ~ /^scale[0-9]+$/ {
	split($4, p, "-")	# scale-<load>-n<N>
	load = p[2]; n = substr(p[3], 2) + 0
	k = $1 SUBSEP load SUBSEP $5 SUBSEP n
	med[k] = $8; lo[k] = $9; hi[k] = $10; cnt[k] = $7
	have[$1] = 1
	if (!(load in seenl)) { seenl[load] = 1; loads[++nl] = load }
	if (!((load, $5) in seenm)) { seenm[load, $5] = 1; mets[load, ++nm[load]] = $5 }
	if (!(n in seenn)) { seenn[n] = 1; ns[++nn] = n }
}
END {
	if (!nl)
		exit
	nk = kernels(have, kern)
	sortn(ns, nn)
	printf "\n## Scalability counts (variant scale)\n\n"
	printf "bench/scale on the kernels built again with lock statistics and the function\n"
	printf "profiler (`configs/scale.config`, `configs/profile.config`), booted in tcg mode\n"
	printf "with N vCPUs (half on each NUMA node), one task per vCPU in one memory cgroup,\n"
	printf "each doing the same number of operations: **fault** = a page fault on anonymous\n"
	printf "memory (a page allocated, charged, freed), **pipe** = a pipe made and closed\n"
	printf "(charged slab objects).  Each cell: count per 1000 operations of all tasks,\n"
	printf "median (min..max) over the repetitions.  A count that stays flat as N grows is\n"
	printf "work that scales; one that grows is shared state the tasks meet.  Contentions\n"
	printf "are upper bounds (a vCPU is a host thread the host can deschedule while it\n"
	printf "holds a lock); acquisitions, page_counter updates and drains depend little on\n"
	printf "timing.  These are counts on an emulated machine, not timings of a real one.\n"
	# One table, every cell filled (load, count and kernel on each
	# row), so that a document can quote a row by what it holds.
	printf "\n| load | count per 1000 ops | kernel |"
	for (i = 1; i <= nn; i++) printf " N=%d |", ns[i]
	printf "\n| --- | --- | --- |"
	for (i = 1; i <= nn; i++) printf " --- |"
	printf "\n"
	for (li = 1; li <= nl; li++) {
		l = loads[li]
		for (mi = 1; mi <= nm[l]; mi++) {
			m = mets[l, mi]
			for (ki = 1; ki <= nk; ki++) {
				printf "| %s | %s | %s |", l, m, kern[ki]
				for (i = 1; i <= nn; i++)
					printf " %s |", cell(kern[ki] SUBSEP l SUBSEP m SUBSEP ns[i])
				printf "\n"
			}
		}
	}
	for (li = 1; li <= nl; li++) {
		l = loads[li]
		# The plot data: "N median-of-each-kernel", "-" where missing.
		np = split(plot, pm, " ")
		for (pi = 1; pi <= np; pi++) {
			if (!((l, pm[pi]) in seenm))
				continue	# not counted on these kernels
			f = tmpd "/scale-" l "-" pm[pi] ".dat"
			for (i = 1; i <= nn; i++) {
				line = ns[i]
				for (ki = 1; ki <= nk; ki++) {
					k = kern[ki] SUBSEP l SUBSEP pm[pi] SUBSEP ns[i]
					line = line " " ((k in med) ? med[k] : "-")
				}
				print line > f
			}
			close(f)
			print l, pm[pi] > (tmpd "/scale-panels")
		}
	}
	for (ki = 1; ki <= nk; ki++) print kern[ki] > (tmpd "/scale-kernels")
}' "$tmp/stats" >>"$tmp/report.md"
if [ -s "$tmp/scale-panels" ]; then
	if [ "${NO_PLOT:-}" = 1 ] || ! command -v gnuplot >/dev/null 2>&1; then
		printf '\n(scale.png not drawn: %s)\n' \
			"$([ "${NO_PLOT:-}" = 1 ] && echo NO_PLOT=1 || echo 'gnuplot missing: apt-get install gnuplot-nox')" \
			>>"$tmp/report.md"
	else
		# One panel per load and count, four to a row.
		mapfile -t skern <"$tmp/scale-kernels"
		panels=$(wc -l <"$tmp/scale-panels")
		cols=$((panels < 4 ? panels : 4))
		prows=$(( (panels + cols - 1) / cols ))
		{
			echo "set terminal pngcairo size $((320 * cols)),$((300 * prows)) noenhanced"
			echo "set output \"$out/scale.png\""
			echo 'set datafile missing "-"'
			echo 'set logscale x 2'
			echo 'set xlabel "vCPUs (N)"'
			echo 'set grid'
			echo 'set key top left font ",8"'
			echo "set multiplot layout $prows,$cols title \"mm510 make bench: counts per 1000 operations over N vCPUs (median)\""
			while read -r l m; do
				echo "set title \"$l: $m\""
				echo 'set yrange [0:*]'
				plot="plot"
				for i in "${!skern[@]}"; do
					plot="$plot \"$tmp/scale-$l-$m.dat\" using 1:$((i + 2)) with linespoints title \"${skern[$i]}\","
				done
				echo "${plot%,}"
			done <"$tmp/scale-panels"
			echo 'unset multiplot'
		} >"$tmp/scale.gp"
		gnuplot "$tmp/scale.gp" >"$tmp/gnuplot-scale.log" 2>&1 ||
			{ cat "$tmp/gnuplot-scale.log" >&2; die "gnuplot failed on scale.png"; }
		printf '\n![scalability counts](scale.png)\n' >>"$tmp/report.md"
	fi
fi

# --- wake-up latency (variant lat) ---------------------------------------------
# bench/lat prints each load's cyclictest figures (results.csv, variant
# lat: max_us, p99_9_us, ...) and its histogram, which bench.sh collects
# into lathist.csv beside the results: "kernel,mode,rep,load,us,count",
# one line per non-empty step (1 us; 10 ns in icount mode, "us" then
# with decimals; all CPUs summed) and one "us" of ">=N" for the wake-ups
# past the histogram's N us.  Per mode: the maximum and the 99.9th
# percentile of each load, each with its ratio to base computed within a
# repetition, and what those ratios allow to be said; then the
# histograms, the repetitions summed, in log-scale bins (a table, as many
# bins to an octave as keep it within 12 columns), and latency.png when
# gnuplot is here: per mode and load, the share of wake-ups at least x us
# late.
lathist=${csv%/*}/lathist.csv
lat_png=$out/latency.png
rm -f "$lat_png"
if awk -F, '$3 == "lat" { found = 1; exit } END { exit !found }' "$csv"; then
	{
		printf '\n## Wake-up latency (variant lat)\n\n'
		printf 'cyclictest (Debian'"'"'s rt-tests), one SCHED_FIFO thread per CPU at priority 95,\n'
		printf 'each waking every interval with an absolute clock_nanosleep(); a figure is how\n'
		printf 'late it woke, in us, while each load ran on every CPU at normal priority (idle:\n'
		printf 'none).  p99.9: the smallest bucket (1 us; in icount mode 1 ns, an instruction)\n'
		printf 'with at least 99.9%% of the wake-ups, the overflows counted, at or below it.\n'
		printf 'The histograms below are in whole us.  Each figure and its ratio to base are\n'
		printf 'computed within a repetition; "no worse than base" is said only where the ratio\n'
		printf 'is at most 1 in every repetition (two or more), "worse" only where it is above 1\n'
		printf 'in every one; otherwise the ranges overlap and nothing is claimed.  Nor is\n'
		printf 'anything claimed where every repetition gave the same ratio: in icount mode a\n'
		printf 'boot replays one schedule exactly, so its repetitions are one sample of where\n'
		printf 'the timer lands, which another image of the same kernel moves.  In tcg mode\n'
		printf 'the host'"'"'s scheduling of the vCPU threads is part of every figure.\n'
	} >>"$tmp/report.md"
	tail -n +2 "$csv" | awk -F, "$awk_lib"'
	function verdict(r, n,   i, lo, hi) {
		if (n < 2)
			return "one repetition: no claim"
		lo = hi = r[1]
		for (i = 2; i <= n; i++) {
			if (r[i] < lo) lo = r[i]
			if (r[i] > hi) hi = r[i]
		}
		if (lo == hi)
			return "the same in every repetition, one schedule: no claim"
		if (hi < 1)
			return "no worse than base (lower in every repetition)"
		if (hi <= 1)
			return "no worse than base"
		if (lo > 1)
			return "worse than base in every repetition"
		return "within the spread: no claim"
	}
	# A p99.9 whose rank lies past the histogram is its limit, a lower
	# bound (bench/lat): then no claim is made of that row.
	NF == 8 && $3 == "lat" && ($6 == "samples" || $6 == "overflows") {
		cnt[$1, $2, $4, $5, $6] = $7 + 0
		next
	}
	NF == 8 && $3 == "lat" && ($6 == "max_us" || $6 == "p99_9_us") {
		v[$1, $2, $4, $5, $6] = $7 + 0
		have[$1] = 1
		if (!($2 in seenmode)) { seenmode[$2] = 1; modes[++nmodes] = $2 }
		if (!(($2, $4) in seenrep)) { seenrep[$2, $4] = 1; reps[$2, ++nrep[$2]] = $4 }
		if (!($5 in seenrow)) { seenrow[$5] = 1; rows[++nrows] = $5 }
	}
	END {
		nk = kernels(have, kern)
		# The loads in bench/lat order, others after them.
		n = split("lat-idle lat-page lat-slab lat-memcg", order, " ")
		nr = 0
		for (i = 1; i <= n; i++)
			if (order[i] in seenrow) { row[++nr] = order[i]; placed[order[i]] = 1 }
		for (i = 1; i <= nrows; i++)
			if (!(rows[i] in placed)) row[++nr] = rows[i]
		for (k in v) {
			split(k, f, SUBSEP)
			if (f[5] != "p99_9_us")
				continue
			c = f[1] SUBSEP f[2] SUBSEP f[3] SUBSEP f[4]
			if (!((c, "samples") in cnt) || !((c, "overflows") in cnt))
				continue
			n = cnt[c, "samples"]
			if (n - cnt[c, "overflows"] < int((n * 999 + 999) / 1000))
				lbound[k] = 1
		}
		split("max_us p99_9_us", met, " ")
		fname["max_us"] = "max (us)"; fname["p99_9_us"] = "p99.9 (us)"
		# tcg first, as in the tables above
		for (mi = 2; mi <= nmodes; mi++)
			if (modes[mi] == "tcg") { modes[mi] = modes[1]; modes[1] = "tcg" }
		for (mi = 1; mi <= nmodes; mi++) {
			m = modes[mi]
			printf "\n### %s\n\n| load | figure | n | base |", m
			for (i = 2; i <= nk; i++) printf " %s | %s/base | %s against base |", kern[i], kern[i], kern[i]
			printf "\n| --- | --- | --- | --- |"
			for (i = 2; i <= nk; i++) printf " --- | --- | --- |"
			printf "\n"
			for (ri = 1; ri <= nr; ri++) {
				for (q = 1; q <= 2; q++) {
					line = ""
					maxn = 0
					for (i = 1; i <= nk; i++) {
						nv = 0; nrat = 0; nlb = 0
						delete val; delete rat
						for (j = 1; j <= nrep[m]; j++) {
							r = reps[m, j]
							k = kern[i] SUBSEP m SUBSEP r SUBSEP row[ri] SUBSEP met[q]
							if (!(k in v))
								continue
							val[++nv] = v[k]
							b = "base" SUBSEP m SUBSEP r SUBSEP row[ri] SUBSEP met[q]
							if ((k in lbound) || (b in lbound)) {
								nlb++
								if (k in lbound)
									notes[m] = notes[m] sprintf("\n- %s, %s load, repetition %s: the p99.9 lies past the histogram (%s us or more)", kern[i], substr(row[ri], 5), r, num(v[k]))
							}
							if (i > 1 && (b in v) && (v[b] > 0 || v[k] == 0))
								rat[++nrat] = v[b] > 0 ? v[k] / v[b] : 1
						}
						if (nv > maxn)
							maxn = nv
						if (i > 1) {
							vd = nrat ? verdict(rat, nrat) : "-"
							if (nlb)
								vd = "past the histogram: no claim"
							line = line " " spread(val, nv, "v") " | " (nrat ? spread(rat, nrat, "r") : "-") " | " vd " |"
						} else {
							line = line " " spread(val, nv, "v") " |"
						}
					}
					if (maxn)
						printf "| %s | %s | %d |%s\n", substr(row[ri], 5), fname[met[q]], maxn, line
				}
			}
			if (m in notes)
				printf "\nWhere the p99.9 is a lower bound:%s\n", notes[m]
		}
	}' >>"$tmp/report.md" || die "$csv: latency table failed"
	if [ -s "$lathist" ]; then
		head -n 1 "$lathist" | grep -qx 'kernel,mode,rep,load,us,count' ||
			die "$lathist: not a lat histogram file (wrong header)"
		tail -n +2 "$lathist" | awk -F, -v plot="$tmp/lat" "$awk_lib"'
		# Log-scale bins: B to an octave, bin k from 2^(k/B) us up to
		# the next; one bin, -1, below 1 us.
		function bin(u, b) {
			return u < 1 ? -1 : int(log(u) / log(2) * b + 1e-9)
		}
		NF != 6 || ($5 !~ /^[0-9]+(\.[0-9]+)?$/ && $5 !~ /^>=[0-9]+$/) || $6 !~ /^[0-9]+$/ {
			printf "bench-report.sh: lathist.csv line %d: malformed: %s\n", NR + 1, $0 > "/dev/stderr"
			bad = 1; next
		}
		{
			k = $2 SUBSEP $4 SUBSEP $1
			have[$1] = 1
			if (!($2 in seenmode)) { seenmode[$2] = 1; modes[++nmodes] = $2 }
			if (!(($2, $4) in seenload)) { seenload[$2, $4] = 1; loads[$2, ++nloads[$2]] = $4 }
			if (!(($2, $4, $1, $3) in seenrep)) { seenrep[$2, $4, $1, $3] = 1; nrep[k]++ }
			tot[k] += $6
			if ($5 ~ /^>=/) {
				over[k] += $6
				u = lim[$2] = substr($5, 3) + 0
			} else {
				u = $5 + 0
				if (!($2 in umin) || u < umin[$2]) umin[$2] = u
				if (!($2 in umax) || u > umax[$2]) umax[$2] = u
			}
			# The repetitions summed, per step of the guest'"'"'s lines.
			pc[k, u] += $6
			if (!((k, u) in seenus)) { seenus[k, u] = 1; us[k, ++nus[k]] = u }
		}
		END {
			if (bad)
				exit 1
			nk = kernels(have, kern)
			no = split("idle page slab memcg", order, " ")
			for (mi = 2; mi <= nmodes; mi++)
				if (modes[mi] == "tcg") { modes[mi] = modes[1]; modes[1] = "tcg" }
			for (mi = 1; mi <= nmodes; mi++) {
				m = modes[mi]
				# The finest bins that keep the mode within 12 columns.
				for (bpo = 8; bpo > 1; bpo /= 2)
					if (!(m in umax) || bin(umax[m], bpo) - bin(umin[m], bpo) < 12)
						break
				lo = (m in umin) ? bin(umin[m], bpo) : 0
				hi = (m in umax) ? bin(umax[m], bpo) : -1
				printf "\n### Histogram, %s: wake-ups per latency bin, the repetitions summed\n\n", m
				printf "A column counts the wake-ups from its figure (us) up to the next one'"'"'s.\n\n"
				printf "| load | kernel | n | wake-ups |"
				for (b = lo; b <= hi; b++) printf " %s |", (b < 0 ? "0" : num(2 ^ (b / bpo)))
				if (m in lim) printf " >=%s |", lim[m]
				printf "\n| --- | --- | --- | --- |"
				for (b = lo; b <= hi; b++) printf " --- |"
				if (m in lim) printf " --- |"
				printf "\n"
				# The loads in bench/lat order, others after them.
				nl = 0
				delete placed
				for (j = 1; j <= no; j++)
					if ((m, order[j]) in seenload) { ld[++nl] = order[j]; placed[order[j]] = 1 }
				for (j = 1; j <= nloads[m]; j++)
					if (!(loads[m, j] in placed)) ld[++nl] = loads[m, j]
				for (li = 1; li <= nl; li++) {
					l = ld[li]
					for (i = 1; i <= nk; i++) {
						k = m SUBSEP l SUBSEP kern[i]
						if (!(k in tot))
							continue
						delete c
						n = nus[k]
						for (j = 1; j <= n; j++) {
							s[j] = us[k, j]
							if (!(m in lim) || s[j] != lim[m] || !(k in over))
								c[bin(s[j], bpo)] += pc[k, s[j]]
						}
						printf "| %s | %s | %d | %d |", l, kern[i], nrep[k], tot[k]
						for (b = lo; b <= hi; b++)
							printf " %s |", (b in c) ? c[b] : ""
						if (m in lim)
							printf " %s |", (k in over) ? over[k] : ""
						printf "\n"
						# One data file per panel and kernel: each
						# step and the share of wake-ups at least
						# that late (the overflows at the limit).
						f = plot "." m "." l "." kern[i]
						sortn(s, n)
						left = tot[k]
						for (j = 1; j <= n; j++) {
							printf "%s %.9g\n", (s[j] ? s[j] : 0.5), left / tot[k] > f
							left -= pc[k, s[j]]
						}
						close(f)
					}
				}
			}
		}' >>"$tmp/report.md" || die "$lathist has malformed lines"
		if [ "${NO_PLOT:-}" = 1 ] || ! command -v gnuplot >/dev/null 2>&1; then
			printf '\n(latency.png not drawn: %s)\n' \
				"$([ "${NO_PLOT:-}" = 1 ] && echo NO_PLOT=1 || echo 'gnuplot missing: apt-get install gnuplot-nox')" \
				>>"$tmp/report.md"
		else
			# One panel per mode and load, a line per kernel.
			lmodes=$(tail -n +2 "$lathist" | cut -d, -f2 | awk '!seen[$0]++' | sort -r)
			lloads=$(tail -n +2 "$lathist" | cut -d, -f4 | awk '!seen[$0]++')
			nm=$(echo "$lmodes" | wc -l)
			nl=$(echo "$lloads" | wc -l)
			{
				echo "set terminal pngcairo size $((nl * 420)),$((nm * 340)) noenhanced"
				echo "set output \"$lat_png\""
				echo "set logscale xy"
				echo "set format y \"%g\""
				echo "set style data fsteps"
				echo "set grid"
				echo "set key top right"
				echo "set xlabel \"wake-up latency x (us; 0 drawn at 0.5)\""
				echo "set ylabel \"share of wake-ups >= x\""
				echo "set arrow from graph 0, first 0.001 to graph 1, first 0.001 nohead dt 2"
				echo "set multiplot layout $nm,$nl title \"cyclictest: share of wake-ups at least x us late, repetitions summed (dashed: 0.1%, the p99.9)\""
				for m in $lmodes; do
					for l in $lloads; do
						echo "set title \"$m, $l\""
						p=
						for f in "$tmp/lat.$m.$l."*; do
							[ -e "$f" ] || continue
							p="${p:+$p, }\"$f\" using 1:2 title \"${f##*.}\""
						done
						if [ -n "$p" ]; then
							echo "plot $p"
						else
							echo "set multiplot next"
						fi
					done
				done
				echo "unset multiplot"
			} >"$tmp/latency.gp"
			gnuplot "$tmp/latency.gp" >"$tmp/gnuplot-lat.log" 2>&1 ||
				{ cat "$tmp/gnuplot-lat.log" >&2; die "gnuplot failed on latency.png"; }
			printf '\n![latency](latency.png)\n' >>"$tmp/report.md"
		fi
	fi
fi

# --- irqsoff sites -------------------------------------------------------------
# bench/page prints "mm510-irqsoff: ROW US started=F ended=F stack=A<B<C"
# on an irqsoff kernel; the logs of make bench are beside the results.
if [ -d "${csv%/*}/logs" ] && ls "${csv%/*}"/logs/*-irqsoff-*.log >/dev/null 2>&1; then
	{
		printf '\n## IRQs-off sites (variant irqsoff)\n\n'
		printf 'The longest section of each kernel and row, over the repetitions.\n\n'
		printf '| kernel | row | us | started at | ended at | stack at the end |\n'
		printf '| --- | --- | --- | --- | --- | --- |\n'
		for f in "${csv%/*}"/logs/*-irqsoff-*.log; do
			k=${f##*/}; k=${k%%-*}
			sed -n 's/\r$//; s/^mm510-irqsoff: //p' "$f" | sed "s/^/$k /"
		done | sort -k1,1 -k2,2V -k3,3nr | awk '!seen[$1, $2]++ {
			s = $6; sub(/^stack=/, "", s); gsub(/</, " < ", s)
			printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, substr($4, 9), substr($5, 7), s }'
	} >>"$tmp/report.md"
fi

# --- function profile -----------------------------------------------------------
# make bench PROFILE=1 writes profile.csv beside the results:
# "kernel,row,ops,function,calls,ns", each run's 40 costliest functions
# by self time.  Per row, the functions whose cost per operation differs
# most between base and stack, peer beside them.
prof=${csv%/*}/profile.csv
if [ -s "$prof" ] && [ "$(wc -l <"$prof")" -gt 1 ]; then
	{
		printf '\n## Function profile (variant profile)\n\n'
		printf 'The same kernels built again with ftrace'"'"'s function profiler\n'
		printf '(`configs/profile.config`), one boot each, icount mode: calls and self ns\n'
		printf '(guest instructions, the tracer'"'"'s own cost included) per operation of each\n'
		printf 'run, for the functions whose self ns differ most between base and stack.\n'
		printf 'Each run lists its 40 costliest functions only: "-" is not among them.\n'
		printf 'Inlined functions count in their callers.\n'
		tail -n +2 "$prof" | awk -F, '
		function f2(x) { return sprintf("%.2f", x) }
		function f1(x) { return sprintf("%.1f", x) }
		NF == 6 && $3 > 0 {
			if (!($2 in seen)) { seen[$2] = 1; rows[++nr] = $2 }
			k = $1 SUBSEP $2 SUBSEP $4
			calls[k] = $5 / $3; ns[k] = $6 / $3; have[$1] = 1
			if (!(($2, $4) in fn)) { fn[$2, $4] = 1; fns[$2, ++nf[$2]] = $4 }
			tot[$1, $2] += $6 / $3
		}
		END {
			for (ri = 1; ri <= nr; ri++) {
				r = rows[ri]
				if (r !~ /^slab-/ && r != "page-single" && r != "page-bulk-8")
					continue
				printf "\n### %s\n\n", r
				printf "| function | base calls | base ns | stack calls | stack ns | stack - base ns |"
				if ("peer" in have) printf " peer calls | peer ns |"
				printf "\n| --- | --- | --- | --- | --- | --- |"
				if ("peer" in have) printf " --- | --- |"
				printf "\n"
				# The 12 largest |stack - base| differences, by selection.
				n = nf[r]
				for (i = 1; i <= n; i++) {
					f = fns[r, i]
					# "in" tests: a reference would create the entry
					ks = "stack" SUBSEP r SUBSEP f
					kb = "base" SUBSEP r SUBSEP f
					d[i] = ((ks in ns) ? ns[ks] : 0) - ((kb in ns) ? ns[kb] : 0)
					used[i] = 0
				}
				for (j = 1; j <= 12 && j <= n; j++) {
					best = 0
					for (i = 1; i <= n; i++)
						if (!used[i] && (!best || (d[i] < 0 ? -d[i] : d[i]) > (d[best] < 0 ? -d[best] : d[best])))
							best = i
					used[best] = 1
					f = fns[r, best]
					printf "| %s |", f
					for (q = 1; q <= 2; q++) {
						kk = (q == 1 ? "base" : "stack") SUBSEP r SUBSEP f
						printf " %s | %s |", ((kk in calls) ? f2(calls[kk]) : "-"), ((kk in ns) ? f1(ns[kk]) : "-")
					}
					printf " %+.1f |", d[best]
					if ("peer" in have) {
						kk = "peer" SUBSEP r SUBSEP f
						printf " %s | %s |", ((kk in calls) ? f2(calls[kk]) : "-"), ((kk in ns) ? f1(ns[kk]) : "-")
					}
					printf "\n"
				}
				printf "| (the 40 listed, in all) | | %s | | %s | %+.1f |", f1(tot["base", r]), f1(tot["stack", r]), tot["stack", r] - tot["base", r]
				if ("peer" in have) printf " | %s |", f1(tot["peer", r])
				printf "\n"
			}
		}'
	} >>"$tmp/report.md"
fi

# --- ratios.png ---------------------------------------------------------------
png=$out/ratios.png
rm -f "$png"
if [ "${NO_PLOT:-}" = 1 ] || ! command -v gnuplot >/dev/null 2>&1; then
	printf '\n(ratios.png not drawn: %s)\n' \
		"$([ "${NO_PLOT:-}" = 1 ] && echo NO_PLOT=1 || echo 'gnuplot missing: apt-get install gnuplot-nox')" \
		>>"$tmp/report.md"
elif [ -s "$tmp/ratios" ]; then
	# One row per figure: label, stack/base, peer/base ("-" when absent).
	awk '{ if (!($1 in seen)) { seen[$1] = 1; ord[++n] = $1 } r[$1, $2] = $3 }
	     END { for (i = 1; i <= n; i++) {
		s = ((ord[i], "stack") in r) ? r[ord[i], "stack"] : "-"
		p = ((ord[i], "peer") in r) ? r[ord[i], "peer"] : "-"
		printf "\"%s\" %s %s\n", ord[i], s, p } }' "$tmp/ratios" >"$tmp/ratios.dat"
	rows=$(wc -l <"$tmp/ratios.dat")
	# The y axis reaches 1 (no change) at least.
	top=$(awk '{ for (i = 2; i <= 3; i++) if ($i != "-" && $i > t) t = $i }
		   END { print (t > 1 ? t : 1) }' "$tmp/ratios.dat")
	width=$((400 + rows * 40))
	[ "$width" -ge 800 ] || width=800
	gnuplot >"$tmp/gnuplot.log" 2>&1 <<EOF || { cat "$tmp/gnuplot.log" >&2; die "gnuplot failed"; }
set terminal pngcairo size $width,640 noenhanced
set output "$png"
set title "mm510 make bench: median of each kernel / median of base (1 = no change)"
set datafile missing "-"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set yrange [0:$top * 1.15]
set xtics rotate by -60 font ",8"
set grid ytics
set key top left inside
set bmargin 16
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
plot "$tmp/ratios.dat" using 2:xtic(1) title "stack/base", '' using 3 title "peer/base"
EOF
	printf '\n![ratios](ratios.png)\n' >>"$tmp/report.md"
fi
cp "$tmp/report.md" "$out/report.md"
msg "$out/report.md${png:+, }$([ -f "$png" ] && echo "$png")"
