// SPDX-License-Identifier: GPL-2.0
/*
 * bench/memcg: what a memory cgroup costs in memory and time (make
 * bench), with the snapshot code of tests/memcg_footprint (tools/lib).
 *
 * From a settled baseline, creates N empty memory cgroups under one
 * parent (mkdir, timed), takes /proc/meminfo's Slab, SUnreclaim and
 * Percpu again, then removes them (rmdir, timed; the memory is freed
 * later, by RCU and work items, and is not waited for).  Prints:
 *   mm510-bench: memcg slab_B <Slab bytes added per cgroup>
 *   mm510-bench: memcg sunreclaim_B <SUnreclaim bytes per cgroup>
 *   mm510-bench: memcg percpu_B <Percpu bytes per cgroup>
 *   mm510-bench: memcg create_us <microseconds per mkdir>
 *   mm510-bench: memcg remove_us <microseconds per rmdir>
 * The bytes include the kernfs nodes and struct cgroup of each cgroup;
 * group 4 changes only the memcg part.  With 2 NUMA nodes in both modes.
 *
 * Kernel command line: mm510.bench_memcgs=N (default 1000).
 * Fails only when cgroups cannot be made or removed.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "mmt.h"

#define PARENT		CG_ROOT "/mm510-bench-memcg"
#define SETTLE_MS	20000

int main(void)
{
	long n = mmt_cmdline_long("mm510.bench_memcgs", 1000);
	struct mmt_memcg_snap before, after;
	int made = 0, parent = 0, ret = KSFT_FAIL;
	double t0, t_create, t_remove;

	if (mmt_cmdline_has("cgroup_disable=memory")) {
		mmt_log("SKIP: booted with cgroup_disable=memory");
		return KSFT_SKIP;
	}
	if (n < 1 || mmt_cg_enable_memory(CG_ROOT) || mmt_cg_create(PARENT))
		goto out;
	parent = 1;
	if (mmt_cg_enable_memory(PARENT) ||
	    mmt_memcg_settle(&before, 0, SETTLE_MS) < 0)
		goto out;
	t0 = mmt_now();
	if (mmt_cg_create_n(PARENT, n, &made))
		goto out;
	t_create = mmt_now() - t0;
	if (mmt_memcg_snap(&after, 0))
		goto out;
	t0 = mmt_now();
	if (mmt_cg_destroy_n(PARENT, &made))
		goto out;
	t_remove = mmt_now() - t0;

	mmt_log("%ld cgroups on %d node(s): Slab +%lld kB, mkdir %.3f s, rmdir %.3f s",
		n, mmt_nr_possible_nodes(), after.slab_kb - before.slab_kb,
		t_create, t_remove);
	mmt_bench("memcg", "slab_B",
		  (after.slab_kb - before.slab_kb) * 1024.0 / n, "B");
	mmt_bench("memcg", "sunreclaim_B",
		  (after.sunreclaim_kb - before.sunreclaim_kb) * 1024.0 / n, "B");
	if (before.percpu_kb >= 0 && after.percpu_kb >= 0)
		mmt_bench("memcg", "percpu_B",
			  (after.percpu_kb - before.percpu_kb) * 1024.0 / n, "B");
	mmt_bench("memcg", "create_us", t_create * 1e6 / n, "us");
	mmt_bench("memcg", "remove_us", t_remove * 1e6 / n, "us");
	ret = KSFT_PASS;
out:
	mmt_cg_destroy_n(PARENT, &made);
	if (parent && mmt_cg_destroy(PARENT))
		ret = KSFT_FAIL;
	return ret;
}
