// SPDX-License-Identifier: GPL-2.0
/*
 * memcg_footprint: slab memory one memory cgroup costs, for the benchmark
 * report of group 4 ("mem_cgroup" and "mem_cgroup_per_node" caches
 * instead of kmalloc-4k/kmalloc-1k).
 *
 * Creates NR_CGROUPS empty memory cgroups and prints the growth of
 * /proc/meminfo Slab, SUnreclaim and Percpu divided by NR_CGROUPS, i.e.
 * the mean bytes added per cgroup (kernfs nodes and struct cgroup are in
 * there too; the caches only change the memcg part).  The figure is
 * information, not a pass/fail criterion.
 *
 * What it asserts: on a kernel of the stack (uname -r contains
 * STACK_LOCALVERSION) both caches must exist and their active objects
 * must grow by exactly NR_CGROUPS and NR_CGROUPS * possible nodes (exact
 * after /sys/kernel/slab/<cache>/shrink on SLUB with unmerged caches,
 * otherwise at least that many minus a per-cpu caching tolerance), and
 * come back after removal.  On another kernel (the 5.10.262 baseline) the
 * caches do not exist and only the figure is printed.  It fails when the
 * stack's kernel lacks the caches, when memcgs do not come from them, or
 * when removed memcgs are not freed within SETTLE_MS.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "mmt.h"

#define MEMCG_CACHE		MMT_MEMCG_CACHE
#define PN_CACHE		MMT_MEMCG_PN_CACHE
#define STACK_LOCALVERSION	"-mm510"
#define PARENT			CG_ROOT "/mmt-memcg-footprint"
#define NR_CGROUPS		1000
#define SETTLE_MS		20000
#define POLL_MS			100

/* The snapshot and the settling are shared with bench/memcg (tools/lib). */
static int have_caches;
static int exact;
static long zombies;

/*
 * Objects added, as wanted?  @slack covers per-cpu caching when not exact,
 * @gone the objects of zombies that may have been freed meanwhile.
 */
static int moved_by(long from, long to, long want, long slack, long gone)
{
	if (exact)
		return to - from <= want && to - from >= want - gone;
	return labs(to - from - want) <= slack + gone;
}

/* The larger SLAB array slack of the two caches (0 with SLUB). */
static long array_slack(int ncpus)
{
	static const char * const caches[] = { MEMCG_CACHE, PN_CACHE };
	struct mmt_slab s;
	long most = 0, v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(caches); i++) {
		if (mmt_slab_read(caches[i], &s) || !s.limit)
			continue;
		v = mmt_slab_slack(&s, ncpus);
		if (v > most)
			most = v;
	}
	return most;
}

static void print_per_cgroup(const char *what, long long before_kb,
			     long long after_kb)
{
	long long delta = (after_kb - before_kb) * 1024;

	mmt_log("%-10s +%lld kB for %d cgroups: %lld bytes per cgroup",
		what, after_kb - before_kb, NR_CGROUPS, delta / NR_CGROUPS);
}

int main(void)
{
	struct mmt_memcg_snap before, after, gone;
	struct utsname uts;
	int nodes, ncpus, stack_kernel, missing, created = 0, parent = 0;
	int waited;
	long slack;
	int ret = KSFT_FAIL;

	if (mmt_cmdline_has("cgroup_disable=memory")) {
		mmt_log("SKIP: booted with cgroup_disable=memory");
		return KSFT_SKIP;
	}
	if (uname(&uts))
		return KSFT_FAIL;
	stack_kernel = strstr(uts.release, STACK_LOCALVERSION) != NULL;
	nodes = mmt_nr_possible_nodes();
	ncpus = mmt_nr_online_cpus();
	if (!mmt_check(nodes > 0 && ncpus > 0, "cannot count nodes/cpus"))
		return KSFT_FAIL;

	/* SLOB lists no cache; its frees are tested by the cgroup churn. */
	if (!mmt_have_slabinfo())
		return KSFT_SKIP;
	have_caches = !mmt_slabinfo(MEMCG_CACHE, NULL, NULL) &&
		      !mmt_slabinfo(PN_CACHE, NULL, NULL);
	/* The stack's kernel must have them; still print the figure first. */
	missing = !have_caches && stack_kernel;
	if (!have_caches)
		mmt_log("%s: no %s/%s caches%s", uts.release, MEMCG_CACHE,
			PN_CACHE, missing ? "" : " (baseline kernel), figures only");
	exact = mmt_slab_aliases(MEMCG_CACHE) == 0 &&
		mmt_slab_aliases(PN_CACHE) == 0;
	/* A cpu slab or array cache per CPU and node, twice, for any cache. */
	slack = exact ? 0 : 64L * 2 * (ncpus + nodes);
	/* SLAB's per-cpu and shared arrays keep freed objects "active". */
	if (!exact)
		slack += array_slack(ncpus);

	if (mmt_cg_enable_memory(CG_ROOT) || mmt_cg_create(PARENT))
		goto cleanup;
	parent = 1;
	if (mmt_cg_enable_memory(PARENT))
		goto cleanup;

	/* Start from trimmed caches so the delta is what the cgroups took. */
	zombies = mmt_memcg_settle(&before, have_caches, SETTLE_MS);
	if (zombies < 0)
		goto cleanup;
	if (mmt_cg_create_n(PARENT, NR_CGROUPS, &created))
		goto cleanup;
	if (mmt_memcg_snap(&after, have_caches))
		goto cleanup;

	mmt_log("kernel %s, %d possible node(s)", uts.release, nodes);
	print_per_cgroup("Slab", before.slab_kb, after.slab_kb);
	print_per_cgroup("SUnreclaim", before.sunreclaim_kb, after.sunreclaim_kb);
	if (before.percpu_kb >= 0 && after.percpu_kb >= 0)
		print_per_cgroup("Percpu", before.percpu_kb, after.percpu_kb);

	if (have_caches) {
		mmt_log("%s %ld -> %ld, %s %ld -> %ld", MEMCG_CACHE,
			before.memcg, after.memcg, PN_CACHE, before.pn, after.pn);
		if (!mmt_check(moved_by(before.memcg, after.memcg, NR_CGROUPS,
				       slack, zombies),
			       "%s did not grow by %d", MEMCG_CACHE, NR_CGROUPS) ||
		    !mmt_check(moved_by(before.pn, after.pn,
					(long)NR_CGROUPS * nodes, slack,
					zombies * nodes),
			       "%s did not grow by %d", PN_CACHE,
			       NR_CGROUPS * nodes))
			goto cleanup;
	}

	if (mmt_cg_destroy_n(PARENT, &created))
		goto cleanup;
	if (!have_caches) {
		ret = mmt_check(!missing, "%s is a kernel of the stack but lacks the caches",
				uts.release) ? KSFT_PASS : KSFT_FAIL;
		goto cleanup;
	}
	/* Freeing is deferred (css refs, RCU, work item): poll. */
	for (waited = 0; waited <= SETTLE_MS; waited += POLL_MS) {
		mmt_drop_caches();
		if (mmt_memcg_snap(&gone, have_caches))
			goto cleanup;
		if (moved_by(before.memcg, gone.memcg, 0, slack, zombies) &&
		    moved_by(before.pn, gone.pn, 0, slack, zombies * nodes))
			break;
		usleep(POLL_MS * 1000);
	}
	if (!mmt_check(waited <= SETTLE_MS,
		       "after rmdir: %s %ld (was %ld), %s %ld (was %ld)",
		       MEMCG_CACHE, gone.memcg, before.memcg,
		       PN_CACHE, gone.pn, before.pn))
		goto cleanup;
	ret = KSFT_PASS;

cleanup:
	mmt_cg_destroy_n(PARENT, &created);
	if (parent && mmt_cg_destroy(PARENT))
		ret = KSFT_FAIL;
	return ret;
}
