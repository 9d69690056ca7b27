// SPDX-License-Identifier: GPL-2.0
/*
 * bench/slab: accounted slab allocations from inside a memory cgroup
 * (make bench; the module is tools/modules/bench_slab.c).
 *
 * Loads bench_slab.ko and, from a memory cgroup made for each run (a
 * new objcg, its stock fresh), has it allocate and free 32-byte and
 * 4 KiB objects of a SLAB_ACCOUNT cache
 * in batches of four, first in this process (1 thread), then in two
 * kthreads bound to CPUs 0 and 1 that charge this cgroup (2 threads,
 * only with two CPUs online).  Then it moves back to the root memory
 * cgroup and runs the 1-thread loop there: the objects are not charged
 * (5.10 and 6.1 charge nothing to the root), so what the root's rows
 * cost above the nokmem floor is the kernel finding that out.  A short
 * warm-up run precedes each.  Booted with cgroup.memory=nokmem the same
 * runs give the unaccounted floor; ci/bench-report.sh subtracts it.
 *
 * Prints per configuration (name slab-<size>-t<threads>, in the root
 * cgroup slab-root-<size>-t1):
 *   mm510-bench: slab-32-t1 ns_op <ns per alloc+free pair, bare loop out>
 *   mm510-bench: slab-32-t1 cycles_op <the same in get_cycles() units>
 *
 * Kernel command line: mm510.bench_ops=N pairs per run (default 1000000),
 * mm510.bench_kmalloc=1 uses kmalloc(__GFP_ACCOUNT) instead of the cache,
 * mm510.bench_profile=1 prints each measured run's function profile
 * (mmt_profile_stop(), make bench PROFILE=1).
 * Fails only when the module cannot be loaded or run: a benchmark
 * asserts no timing.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmt.h"

#define MODULE		"bench_slab"
#define PARAMS		"/sys/module/" MODULE "/parameters/"
#define CGROUP		CG_ROOT "/mm510-bench-slab"
#define RUN_CGROUP	CGROUP "/run"

static const unsigned int sizes[] = { 32, 4096 };

static int run_one(const char *where, unsigned int size, int threads,
		   long ops, int report)
{
	unsigned long long n = 0, ns = 0, cyc = 0, loop_ns = 0, loop_cyc = 0;
	char buf[256], name[64];

	snprintf(name, sizeof(name), "slab-%s%u-t%d", where, size, threads);
	if (mmt_module_param(MODULE, "size", size) ||
	    mmt_module_param(MODULE, "threads", threads) ||
	    mmt_module_param(MODULE, "ops", ops) ||
	    (report && mmt_profile_start()) ||
	    mmt_write_file(PARAMS "run", "1") ||
	    (report && mmt_profile_stop(name, ops)) ||
	    mmt_read_file(PARAMS "result", buf, sizeof(buf)) < 0)
		return -1;
	if (sscanf(buf, "ops=%llu ns=%llu cycles=%llu loop_ns=%llu loop_cycles=%llu",
		   &n, &ns, &cyc, &loop_ns, &loop_cyc) != 5 || !n) {
		mmt_log("unexpected result: %s", buf);
		return -1;
	}
	if (!report)
		return 0;
	mmt_log("%s: %llu pairs in %llu ns, bare loop %llu ns", name, n, ns,
		loop_ns);
	mmt_bench(name, "ns_op", ((double)ns - (double)loop_ns) / n, "ns");
	mmt_bench(name, "cycles_op", ((double)cyc - (double)loop_cyc) / n,
		  "cycles");
	return 0;
}

int main(void)
{
	long ops = mmt_cmdline_long("mm510.bench_ops", 1000000);
	long use_kmalloc = mmt_cmdline_long("mm510.bench_kmalloc", 0);
	int cpus = mmt_nr_online_cpus();
	int ret = KSFT_FAIL, loaded = 0, entered = 0, made = 0;
	unsigned int i;
	int threads;

	if (mmt_cg_enable_memory(CG_ROOT) || mmt_cg_create(CGROUP) ||
	    mmt_cg_enable_memory(CGROUP))
		goto out;
	made = 1;
	if (mmt_module_load(MODULE, NULL))
		goto out;
	loaded = 1;
	if (mmt_module_param(MODULE, "kmalloc", use_kmalloc))
		goto out;
	mmt_log("%s objects, %ld pairs a run, %d CPU(s), kmem accounting %s",
		use_kmalloc ? "kmalloc(__GFP_ACCOUNT)" : "SLAB_ACCOUNT cache",
		ops, cpus, mmt_cmdline_has("cgroup.memory=nokmem") ? "off" : "on");

	for (threads = 1; threads <= 2; threads++) {
		if (threads > cpus) {
			mmt_log("%d threads: only %d CPU(s) online, skipped",
				threads, cpus);
			break;
		}
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			/*
			 * Each size and thread count in a cgroup of its own,
			 * a new objcg whose stock holds only what this
			 * program charged there.  The bytes in the stock when
			 * a run starts decide how often a 4 KiB pair (4104
			 * bytes charged) charges pages: three times in a
			 * batch of four or twice (34 instructions a pair on
			 * the x86 bench kernel); what earlier runs left there
			 * differed from kernel to kernel.
			 */
			if (mmt_cg_create(RUN_CGROUP) ||
			    mmt_cg_enter(RUN_CGROUP))
				goto out;
			entered = 1;
			if (run_one("", sizes[i], threads, ops / 10 + 4, 0) ||
			    run_one("", sizes[i], threads, ops, 1) ||
			    mmt_cg_enter(CG_ROOT))
				goto out;
			entered = 0;
			if (mmt_cg_destroy(RUN_CGROUP))
				goto out;
		}
	}
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		if (run_one("root-", sizes[i], 1, ops / 10 + 4, 0) ||
		    run_one("root-", sizes[i], 1, ops, 1))
			goto out;
	}
	ret = KSFT_PASS;
out:
	if (loaded && mmt_module_unload(MODULE))
		ret = KSFT_FAIL;
	if (entered && mmt_cg_enter(CG_ROOT))
		ret = KSFT_FAIL;
	if (made && (mmt_cg_destroy(RUN_CGROUP) || mmt_cg_destroy(CGROUP)))
		ret = KSFT_FAIL;
	return ret;
}
