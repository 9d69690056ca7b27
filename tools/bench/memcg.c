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
 * Where the Slab bytes went, where /proc/slabinfo exists (not SLOB): the
 * caches whose slabs grew most, per cgroup, in the log (bytes of slabs
 * and objects), and
 *   mm510-bench: memcg slabinfo_B <slab bytes of all caches per cgroup>
 * Slab less that is what no cache's slabs hold: 5.10 counts a kmalloc()
 * larger than the biggest kmalloc cache (kvmalloc'd arrays among them)
 * as Slab too, in whole pages.
 *
 * Kernel command line: mm510.bench_memcgs=N (default 1000).
 * Fails only when cgroups cannot be made or removed.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmt.h"

#define PARENT		CG_ROOT "/mm510-bench-memcg"
#define SETTLE_MS	20000
#define MAX_CACHES	1024
#define TOP_CACHES	12

static struct mmt_slab_row rows0[MAX_CACHES], rows1[MAX_CACHES];

struct growth {
	const char *name;
	long long bytes;	/* of slabs */
	long objs, objsize;
};

static int by_bytes(const void *a, const void *b)
{
	const struct growth *x = a, *y = b;

	return (y->bytes > x->bytes) - (y->bytes < x->bytes);
}

/*
 * Logs the TOP_CACHES caches whose slabs grew most from rows0 (n0 rows)
 * to rows1 (n1), per cgroup of @n, and returns what all caches' slabs
 * grew, in bytes (a cache new in rows1 grew from nothing).
 */
static long long slab_growth(int n0, int n1, long n)
{
	static struct growth g[MAX_CACHES];
	long long sum = 0;
	int i, j;

	for (i = 0; i < n1; i++) {
		g[i].name = rows1[i].name;
		g[i].bytes = rows1[i].slab_bytes;
		g[i].objs = rows1[i].active;
		g[i].objsize = rows1[i].objsize;
		for (j = 0; j < n0; j++) {
			if (strcmp(rows0[j].name, rows1[i].name))
				continue;
			g[i].bytes -= rows0[j].slab_bytes;
			g[i].objs -= rows0[j].active;
			break;
		}
		sum += g[i].bytes;
	}
	/* A cache gone in rows1 shrank by all it had. */
	for (j = 0; j < n0; j++) {
		for (i = 0; i < n1; i++)
			if (!strcmp(rows0[j].name, rows1[i].name))
				break;
		if (i == n1)
			sum -= rows0[j].slab_bytes;
	}
	qsort(g, n1, sizeof(g[0]), by_bytes);
	for (i = 0; i < n1 && i < TOP_CACHES && g[i].bytes > 0; i++)
		mmt_log("  %-24s %+9.1f B of slabs, %+7.2f objects of %ld B, per cgroup",
			g[i].name, (double)g[i].bytes / n,
			(double)g[i].objs / n, g[i].objsize);
	return sum;
}

int main(void)
{
	long n = mmt_cmdline_long("mm510.bench_memcgs", 1000);
	struct mmt_memcg_snap before, after;
	int made = 0, parent = 0, ret = KSFT_FAIL, n0 = -1, n1 = -1;
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
	if (mmt_have_slabinfo())
		n0 = mmt_slab_all(rows0, MAX_CACHES);
	t0 = mmt_now();
	if (mmt_cg_create_n(PARENT, n, &made))
		goto out;
	t_create = mmt_now() - t0;
	if (mmt_memcg_snap(&after, 0))
		goto out;
	if (n0 >= 0)
		n1 = mmt_slab_all(rows1, MAX_CACHES);
	t0 = mmt_now();
	if (mmt_cg_destroy_n(PARENT, &made))
		goto out;
	t_remove = mmt_now() - t0;

	mmt_log("%ld cgroups on %d node(s): Slab +%lld kB, mkdir %.3f s, rmdir %.3f s",
		n, mmt_nr_possible_nodes(), after.slab_kb - before.slab_kb,
		t_create, t_remove);
	mmt_bench("memcg", "slab_B",
		  (after.slab_kb - before.slab_kb) * 1024.0 / n, "B");
	if (n1 >= 0) {
		long long caches;

		mmt_log("the caches whose slabs grew most:");
		caches = slab_growth(n0, n1, n);
		mmt_log("  Slab outside every cache's slabs (larger kmallocs): %+.1f B per cgroup",
			((after.slab_kb - before.slab_kb) * 1024.0 - caches) / n);
		mmt_bench("memcg", "slabinfo_B", (double)caches / n, "B");
	}
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
