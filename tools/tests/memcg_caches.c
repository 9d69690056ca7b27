// SPDX-License-Identifier: GPL-2.0
/*
 * memcg_caches: struct mem_cgroup and struct mem_cgroup_per_node come from
 * their own slab caches ("mem_cgroup", "mem_cgroup_per_node", group 4).
 *
 * Checks that both caches are listed in /proc/slabinfo, that the root
 * memcg (allocated by cgroup_init() even with cgroup_disable=memory) is
 * in them, that creating NR_CHILDREN memory cgroups adds exactly
 * NR_CHILDREN objects to "mem_cgroup" and NR_CHILDREN per possible node
 * to "mem_cgroup_per_node", and that removing them gives the objects back.
 *
 * Exactness: SLUB's slabinfo reports active_objs as all objects minus the
 * free ones on the node partial lists, so free objects sitting in per-cpu
 * slabs (and per-cpu partial slabs, or KASAN's quarantine) count as
 * active.  Writing 1 to /sys/kernel/slab/<cache>/shrink flushes all of
 * those back to the node lists first, after which active_objs is exact as
 * long as no other cache was merged into ours (aliases == 0).  Where that
 * cannot be had (SLAB, or a merged cache) the counts are compared with a
 * tolerance of what per-cpu caching can hide, see count_slack().
 *
 * Other memcgs: cgroups removed before this test (an earlier test's, kept
 * as zombies by page cache charged to them) are freed whenever their last
 * reference goes, which would show up as objects missing from our count.
 * So the baseline waits until the root's nr_dying_descendants is 0; if
 * some stay dying for good, each of them is allowed to vanish from the
 * count (zombies below), which is the only slack of the exact mode.
 *
 * Fails when: a cache is missing or renamed, memcgs are allocated from
 * kmalloc (counts do not move), per-node info is
 * allocated for a different number of nodes, or removed memcgs are never
 * freed (zombies held by a leaked reference) within SETTLE_MS.  A free
 * path left on kfree() is not caught here: SLUB and SLAB free to the
 * page's own cache either way; the free paths were checked by reading.
 *
 * Boot variants: cgroup.memory=nokmem runs the full test (memcg objects
 * are not kmem-accounted either way); cgroup_disable=memory checks the
 * caches and the root memcg and skips the cgroup part.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmt.h"

#define MEMCG_CACHE	"mem_cgroup"
#define PN_CACHE	"mem_cgroup_per_node"
#define PARENT		CG_ROOT "/mmt-memcg-caches"
#define NR_CHILDREN	100
#define SETTLE_MS	10000
#define POLL_MS		100

struct counts {
	long memcg;
	long pn;
};

struct slabline {
	long active, total, objsize, objperslab, limit;
};

static int exact;		/* SLUB, unmerged: counts are exact */
static long slack_memcg, slack_pn;
static long zombies;		/* dying cgroups that may be freed meanwhile */
static int nodes;

static int read_slabline(const char *name, struct slabline *sl)
{
	char line[512], cache[128];
	FILE *f;
	int ret = -1;

	f = fopen("/proc/slabinfo", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* name active num objsize objperslab pagesperslab : tunables l b s */
		if (sscanf(line, "%127s %ld %ld %ld %ld %*d : tunables %ld",
			   cache, &sl->active, &sl->total, &sl->objsize,
			   &sl->objperslab, &sl->limit) != 6 ||
		    strcmp(cache, name))
			continue;
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/*
 * What per-cpu caching may hide from active_objs when no shrink is
 * possible: per CPU a cpu slab and about as much again on its partial
 * list (SLUB), or a full array cache plus the shared one (SLAB, whose
 * "limit" tunable sizes them).  Generous on purpose: it only has to tell
 * "the cache is used" from "the cache is not used" on such configs.
 */
static long count_slack(const struct slabline *sl, int ncpus)
{
	long unit = sl->limit > sl->objperslab ? sl->limit : sl->objperslab;

	return unit * 2 * (ncpus + nodes);
}

static int read_counts(struct counts *c)
{
	/* SLUB only; on SLAB the tolerance applies instead. */
	mmt_slab_shrink(MEMCG_CACHE);
	mmt_slab_shrink(PN_CACHE);
	if (mmt_slabinfo(MEMCG_CACHE, &c->memcg, NULL) ||
	    mmt_slabinfo(PN_CACHE, &c->pn, NULL))
		return -1;
	return 0;
}

static int counts_match(const struct counts *c, const struct counts *want)
{
	if (exact)
		return c->memcg <= want->memcg &&
		       c->memcg >= want->memcg - zombies &&
		       c->pn <= want->pn &&
		       c->pn >= want->pn - zombies * nodes;
	return labs(c->memcg - want->memcg) <= slack_memcg &&
	       labs(c->pn - want->pn) <= slack_pn;
}

/*
 * Poll until the counts are @want.  Freeing a removed memcg goes through
 * css refcount kill, an RCU grace period and a work item, so give it
 * SETTLE_MS, and drop caches meanwhile in case dentries pin anything.
 */
static int wait_counts(const struct counts *want, int drop, struct counts *got)
{
	int waited;

	for (waited = 0; waited <= SETTLE_MS; waited += POLL_MS) {
		if (drop)
			mmt_drop_caches();
		if (read_counts(got))
			return -1;
		if (counts_match(got, want))
			return 0;
		usleep(POLL_MS * 1000);
	}
	return -1;
}

static long nr_dying(void)
{
	return mmt_key_value(CG_ROOT "/cgroup.stat", "nr_dying_descendants");
}

/*
 * Let frees from earlier tests finish: no dying cgroups left and two
 * equal reads in a row.  Whatever stays dying becomes the zombie slack:
 * once the number of dying cgroups and both counts have held still for
 * STILL_READS reads in a row (with the caches dropped before each), or
 * at the latest after 3 * SETTLE_MS.  (cgroup.memory=nokmem leaves one
 * such cgroup; waiting out the whole 30 s for it gained nothing.)
 */
#define STILL_READS	6

static int settle(struct counts *c)
{
	struct counts prev;
	long prev_zombies = -1;
	int waited, still = 0, same;

	if (read_counts(&prev))
		return -1;
	for (waited = 0; waited <= 3 * SETTLE_MS; waited += 5 * POLL_MS) {
		mmt_drop_caches();
		usleep(5 * POLL_MS * 1000);
		if (read_counts(c))
			return -1;
		zombies = nr_dying();
		if (zombies < 0)
			return -1;
		same = c->memcg == prev.memcg && c->pn == prev.pn;
		if (same && !zombies)
			return 0;
		still = same && zombies == prev_zombies ? still + 1 : 0;
		if (still == STILL_READS)
			break;
		prev = *c;
		prev_zombies = zombies;
	}
	mmt_log("%ld dying cgroup(s) stay; each may leave the counts meanwhile",
		zombies);
	return 0;
}

static int memory_controller_available(void)
{
	return mmt_file_contains(CG_ROOT "/cgroup.controllers", "memory") == 1;
}

int main(void)
{
	struct counts base, want, got;
	struct slabline sm, sp;
	char path[256];
	int ncpus, i, created = 0, parent = 0;
	int ret = KSFT_FAIL;

	nodes = mmt_nr_possible_nodes();
	ncpus = mmt_nr_online_cpus();
	if (!mmt_check(nodes > 0 && ncpus > 0, "cannot count nodes/cpus"))
		return KSFT_FAIL;
	/* SLOB lists no cache; its frees are tested by the cgroup churn. */
	if (!mmt_have_slabinfo())
		return KSFT_SKIP;

	if (!mmt_check(!read_slabline(MEMCG_CACHE, &sm),
		       "no '%s' cache in /proc/slabinfo", MEMCG_CACHE) ||
	    !mmt_check(!read_slabline(PN_CACHE, &sp),
		       "no '%s' cache in /proc/slabinfo", PN_CACHE))
		return KSFT_FAIL;
	mmt_log("%s: objsize %ld, %ld per slab; %s: objsize %ld, %ld per slab",
		MEMCG_CACHE, sm.objsize, sm.objperslab,
		PN_CACHE, sp.objsize, sp.objperslab);

	exact = mmt_slab_aliases(MEMCG_CACHE) == 0 &&
		mmt_slab_aliases(PN_CACHE) == 0;
	slack_memcg = exact ? 0 : count_slack(&sm, ncpus);
	slack_pn = exact ? 0 : count_slack(&sp, ncpus);
	mmt_log("%d possible node(s); counts %s", nodes,
		exact ? "exact (SLUB shrink, unmerged caches)" :
		"within a per-cpu caching tolerance");

	/* The root memcg lives there from cgroup_init() on, whatever the cmdline. */
	if (read_counts(&base))
		return KSFT_FAIL;
	if (!mmt_check(base.memcg >= 1, "root memcg not in %s (%ld)",
		       MEMCG_CACHE, base.memcg) ||
	    !mmt_check(base.pn >= nodes, "root per-node info not in %s (%ld < %d)",
		       PN_CACHE, base.pn, nodes))
		return KSFT_FAIL;

	if (mmt_cmdline_has("cgroup_disable=memory")) {
		if (!mmt_check(!memory_controller_available(),
			       "memory controller present despite cgroup_disable=memory"))
			return KSFT_FAIL;
		mmt_log("cgroup_disable=memory: caches and root memcg checked, no child cgroups");
		return KSFT_PASS;
	}
	if (!mmt_check(memory_controller_available(),
		       "memory controller missing from cgroup.controllers"))
		return KSFT_FAIL;
	if (mmt_cmdline_has("cgroup.memory=nokmem"))
		mmt_log("cgroup.memory=nokmem: kmem accounting off, caches still used");

	if (mmt_cg_enable_memory(CG_ROOT) || mmt_cg_create(PARENT))
		goto cleanup;
	parent = 1;
	if (mmt_cg_enable_memory(PARENT))
		goto cleanup;
	if (settle(&base))
		goto cleanup;

	for (i = 0; i < NR_CHILDREN; i++) {
		snprintf(path, sizeof(path), "%s/c%d", PARENT, i);
		if (mmt_cg_create(path))
			goto cleanup;
		created++;
	}
	want.memcg = base.memcg + NR_CHILDREN;
	want.pn = base.pn + (long)NR_CHILDREN * nodes;
	if (!mmt_check(!wait_counts(&want, 0, &got),
		       "after %d mkdirs: %s %ld -> %ld (want %ld), %s %ld -> %ld (want %ld), %ld zombies",
		       NR_CHILDREN, MEMCG_CACHE, base.memcg, got.memcg, want.memcg,
		       PN_CACHE, base.pn, got.pn, want.pn, zombies))
		goto cleanup;

	for (; created > 0; created--) {
		snprintf(path, sizeof(path), "%s/c%d", PARENT, created - 1);
		if (mmt_cg_destroy(path))
			goto cleanup;
	}
	if (!mmt_check(!wait_counts(&base, 1, &got),
		       "%d ms after rmdir: %s %ld (want %ld), %s %ld (want %ld); zombie memcgs?",
		       SETTLE_MS, MEMCG_CACHE, got.memcg, base.memcg,
		       PN_CACHE, got.pn, base.pn))
		goto cleanup;
	ret = KSFT_PASS;

cleanup:
	for (; created > 0; created--) {
		snprintf(path, sizeof(path), "%s/c%d", PARENT, created - 1);
		mmt_cg_destroy(path);
	}
	if (parent && mmt_cg_destroy(PARENT))
		ret = KSFT_FAIL;
	return ret;
}
