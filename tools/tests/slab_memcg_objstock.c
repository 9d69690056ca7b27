// SPDX-License-Identifier: GPL-2.0
/*
 * Accounted slab objects are counted exactly once per byte, whatever the
 * per-cpu object stock caches, and survive the removal of their cgroup.
 *
 * Backs group 3 (memcg_stock_pcp caching of slab vmstat data,
 * refill_obj_stock() keeping sub-page remainders).  From inside a child
 * cgroup the kmalloc_cg module allocates NR objects of 32 B and of 4 KiB
 * with GFP_KERNEL_ACCOUNT.  Checked:
 * - memory.stat slab and slab_unreclaimable grow by NR * object size and
 *   return after the free;
 * - the nodes' SUnreclaim (/sys/devices/system/node) grows with them and
 *   returns (it counts whole slab pages, hence the wider tolerance);
 * - after the child cgroup is removed with objects still allocated, the
 *   parent still shows them (reparented, nothing lost), and freeing them
 *   takes them off the parent's slab and memory.current.
 *
 * Tolerances, per online CPU: the object stock may hold up to a page of
 * slab bytes per counter and a page of byte charge, and memcg per-cpu
 * counters up to MEMCG_CHARGE_BATCH (32) pages; the per-cpu page stock
 * may hold 32 pages of memory.current.  Slab pages of partially used
 * slabs add two slabs per CPU.
 *
 * Fails when cached vmstat data or byte charges are lost or counted
 * twice (e.g. a stock drained to the wrong memcg, node or objcg) or
 * when reparenting drops charges.  Skips without the memory controller
 * or with cgroup.memory=nokmem.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmt.h"

#define MOD		"kmalloc_cg"
#define PARENT		CG_ROOT "/mmt_objstock"
#define CHILD		PARENT "/child"
#define PAGE		4096LL
#define BATCH		(32 * PAGE)	/* MEMCG_CHARGE_BATCH pages */

struct objcase {
	const char *cache;
	long size;
	long nr;
};

static const struct objcase cases[] = {
	{ "kmalloc-cg-32", 32, 32768 },		/* 1 MiB */
	{ "kmalloc-cg-4k", 4096, 512 },		/* 2 MiB */
};

static int ncpus, nnodes;

static int kcg_param(const char *param, long val)
{
	return mmt_module_param(MOD, param, val);
}

/* SUnreclaim over all nodes, in bytes. */
static long long node_sunreclaim(void)
{
	long long sum = 0, kb;
	int nid;

	for (nid = 0; nid < nnodes; nid++) {
		kb = mmt_node_meminfo(nid, "SUnreclaim");
		if (kb < 0)
			return -1;
		sum += kb * 1024;
	}
	return sum;
}

static int near(long long got, long long want, long long tol)
{
	return got >= want - tol && got <= want + tol;
}

struct snap {
	long long slab, unrecl, node, current;
};

static void take(const char *cg, struct snap *s)
{
	s->slab = mmt_cg_stat(cg, "slab");
	s->unrecl = mmt_cg_stat(cg, "slab_unreclaimable");
	s->node = node_sunreclaim();
	s->current = mmt_cg_read_ll(cg, "memory.current");
}

/* Allocate and free in CHILD; stats must follow both ways. */
static int alloc_free_case(const struct objcase *c)
{
	long long want, tol, node_tol;
	struct mmt_slab geo;
	struct snap a, b, d;

	if (!mmt_check(!mmt_slab_read(c->cache, &geo),
		       "%s not in /proc/slabinfo", c->cache))
		return -1;
	/* obj_full_size(): the object plus its objcg pointer. */
	want = (long long)c->nr * (geo.objsize + (long long)sizeof(void *));
	tol = ncpus * (2 * PAGE + 2 * BATCH);
	/* SLAB also keeps up to (1 + ncpus) batches of free objects a node */
	node_tol = want / 8 + ncpus * 2 * geo.pagesperslab * PAGE +
		   (mmt_slab_slack(&geo, ncpus) +
		    (1 + ncpus) * geo.batchcount) * geo.objsize + 2 * BATCH;

	if (kcg_param("size", c->size))
		return -1;
	take(CHILD, &a);
	if (kcg_param("accounted", c->nr))
		return -1;
	take(CHILD, &b);
	if (kcg_param("free", 1))
		return -1;
	mmt_slab_shrink(c->cache);
	take(CHILD, &d);

	mmt_log("%s x %ld: slab %+lld, slab_unreclaimable %+lld, SUnreclaim %+lld (want %lld)",
		c->cache, c->nr, b.slab - a.slab, b.unrecl - a.unrecl,
		b.node - a.node, want);
	mmt_log("%s freed: slab %+lld, slab_unreclaimable %+lld, SUnreclaim %+lld from start",
		c->cache, d.slab - a.slab, d.unrecl - a.unrecl,
		d.node - a.node);
	if (!mmt_check(near(b.slab - a.slab, want, tol), "slab off") ||
	    !mmt_check(near(b.unrecl - a.unrecl, want, tol),
		       "slab_unreclaimable off") ||
	    !mmt_check(b.node - a.node >= want - node_tol &&
		       b.node - a.node <= want + node_tol,
		       "node SUnreclaim did not follow") ||
	    !mmt_check(near(d.slab - a.slab, 0, tol), "slab not returned") ||
	    !mmt_check(near(d.unrecl - a.unrecl, 0, tol),
		       "slab_unreclaimable not returned") ||
	    !mmt_check(d.node - a.node <= node_tol,
		       "node SUnreclaim not returned"))
		return -1;
	return 0;
}

/* Remove CHILD with live objects: PARENT must keep them, then drop them. */
static int reparent_case(void)
{
	const struct objcase *c = &cases[0];
	long long want, tol;
	struct mmt_slab geo;
	struct snap a, b, d;

	if (mmt_slab_read(c->cache, &geo))
		return -1;
	/* obj_full_size(): the object plus its objcg pointer. */
	want = (long long)c->nr * (geo.objsize + (long long)sizeof(void *));
	tol = ncpus * (2 * PAGE + 2 * BATCH);

	if (kcg_param("size", c->size))
		return -1;
	take(PARENT, &a);
	if (kcg_param("accounted", c->nr))
		return -1;
	if (mmt_cg_enter(CG_ROOT) || mmt_cg_destroy(CHILD))
		return -1;
	take(PARENT, &b);
	if (kcg_param("free", 1))
		return -1;
	take(PARENT, &d);

	mmt_log("reparent: parent slab %+lld after rmdir (want %lld), %+lld after free",
		b.slab - a.slab, want, d.slab - a.slab);
	mmt_log("reparent: parent memory.current %+lld after rmdir, %+lld after free",
		b.current - a.current, d.current - a.current);
	if (!mmt_check(near(b.slab - a.slab, want, tol),
		       "charges lost on reparenting") ||
	    !mmt_check(b.current - a.current >= want - tol,
		       "memory.current lost the reparented objects") ||
	    !mmt_check(near(d.slab - a.slab, 0, tol),
		       "parent slab not returned") ||
	    !mmt_check(d.current - a.current <= ncpus * BATCH + tol,
		       "parent memory.current not returned"))
		return -1;
	return 0;
}

int main(void)
{
	int ret = KSFT_FAIL, err;
	size_t i;

	if (!mmt_kmem_accounted())
		return KSFT_SKIP;
	ncpus = mmt_nr_online_cpus();
	nnodes = mmt_nr_online_nodes();
	if (!mmt_check(ncpus > 0 && nnodes > 0, "no CPU or node count"))
		return KSFT_FAIL;

	err = mmt_module_load(MOD, NULL);
	if (err && err != -EEXIST)
		return KSFT_FAIL;
	if (mmt_cg_enable_memory(CG_ROOT) || mmt_cg_create(PARENT) ||
	    mmt_cg_enable_memory(PARENT) || mmt_cg_create(CHILD) ||
	    mmt_cg_enter(CHILD))
		goto cleanup;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		if (alloc_free_case(&cases[i]))
			goto cleanup;
	if (reparent_case())
		goto cleanup;
	ret = KSFT_PASS;

cleanup:
	kcg_param("free", 1);
	mmt_cg_enter(CG_ROOT);
	mmt_cg_destroy(CHILD);
	mmt_cg_destroy(PARENT);
	mmt_module_unload(MOD);
	return ret;
}
