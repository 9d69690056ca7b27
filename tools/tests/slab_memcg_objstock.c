// SPDX-License-Identifier: GPL-2.0
/*
 * Accounted slab objects are counted exactly once per byte, whatever the
 * per-cpu object stock caches, and survive the removal of their cgroup.
 *
 * Backs group 3 (memcg_stock_pcp caching of slab vmstat data,
 * refill_obj_stock() keeping sub-page remainders).  From inside a child
 * cgroup the kmalloc_cg module allocates NR objects of 32 B and of 4 KiB
 * with GFP_KERNEL_ACCOUNT (on arm64 the small objects are of 128 B, its
 * smallest kmalloc size: SMALL below is the larger of 32 and that).
 * Checked:
 * - memory.stat slab and slab_unreclaimable grow by NR * object size and
 *   return after the free;
 * - the nodes' SUnreclaim (/sys/devices/system/node) grows with them and
 *   returns (it counts whole slab pages, hence the wider tolerance);
 * - accounted objects with __GFP_RECLAIMABLE come from kmalloc-rcl-32
 *   and with GFP_DMA from dma-kmalloc-32, not kmalloc-cg-32
 *   (kmalloc_type() puts DMA, then RECLAIMABLE, before ACCOUNT), and are
 *   charged: slab_reclaimable, or slab_unreclaimable for DMA, grows by
 *   their bytes and returns;
 * - objects of one cgroup allocated from one CPU on alternating nodes
 *   (1 on node 1, then 63 on node 0, 1024 times) are counted on their
 *   own node in memory.numa_stat, though the stock caches the vmstat
 *   data of one node at a time, and the nodes' SUnreclaim grows on the
 *   node used; without 7fa0dacbaf12 (0304) node 1 shows node 0's bytes;
 * - after the child cgroup is removed with objects still allocated, the
 *   parent still shows them (reparented, nothing lost), and freeing them
 *   takes them off the parent's slab and memory.current.
 *
 * Tolerances, per online CPU and for each of the two reads a figure is
 * the difference of: the object stock may hold up to a page of
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
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
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

/* The small objects: 32 B, or the smallest kmalloc size if larger. */
static long small = 32;
static char small_cg[32] = "kmalloc-cg-32";

static struct objcase cases[] = {
	{ small_cg, 32, 32768 },		/* 1 MiB */
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

/*
 * Under kmemleak (the debug scenario) every object allocated brings a
 * kmemleak_object of kmemleak's own, unaccounted, in SUnreclaim too: 11
 * MiB over 32768 objects of 32 B.  The slab pages of its cache, 0
 * without kmemleak.
 */
static long long kmemleak_bytes(void)
{
	struct mmt_slab g;

	if (mmt_slab_read("kmemleak_object", &g) || g.perslab <= 0)
		return 0;
	return (long long)g.total / g.perslab * g.pagesperslab * PAGE;
}

struct snap {
	long long slab, unrecl, node, current, kmemleak;
};

static void take(const char *cg, struct snap *s)
{
	s->slab = mmt_cg_stat(cg, "slab");
	s->unrecl = mmt_cg_stat(cg, "slab_unreclaimable");
	s->node = node_sunreclaim();
	s->current = mmt_cg_read_ll(cg, "memory.current");
	s->kmemleak = kmemleak_bytes();
}

/* Allocate and free in CHILD; stats must follow both ways. */
static int alloc_free_case(const struct objcase *c)
{
	long long want, tol, node_tol, node_b, node_d;
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
	/*
	 * Emptying the cache's slabs frees their objcg vectors, which
	 * KASAN's quarantine holds in another cache: shrink them all.
	 */
	mmt_slab_shrink(c->cache);
	mmt_shrink_slabs();
	take(CHILD, &d);
	/* SUnreclaim less kmemleak's metadata. */
	node_b = b.node - a.node - (b.kmemleak - a.kmemleak);
	node_d = d.node - a.node - (d.kmemleak - a.kmemleak);

	mmt_log("%s x %ld: slab %+lld, slab_unreclaimable %+lld, SUnreclaim %+lld (want %lld; kmemleak's %+lld left out)",
		c->cache, c->nr, b.slab - a.slab, b.unrecl - a.unrecl,
		node_b, want, b.kmemleak - a.kmemleak);
	mmt_log("%s freed: slab %+lld, slab_unreclaimable %+lld, SUnreclaim %+lld from start",
		c->cache, d.slab - a.slab, d.unrecl - a.unrecl, node_d);
	if (!mmt_check(mmt_near(b.slab - a.slab, want, tol), "slab off") ||
	    !mmt_check(mmt_near(b.unrecl - a.unrecl, want, tol),
		       "slab_unreclaimable off") ||
	    !mmt_check(node_b >= want - node_tol && node_b <= want + node_tol,
		       "node SUnreclaim did not follow") ||
	    !mmt_check(mmt_near(d.slab - a.slab, 0, tol),
		       "slab not returned") ||
	    !mmt_check(mmt_near(d.unrecl - a.unrecl, 0, tol),
		       "slab_unreclaimable not returned") ||
	    !mmt_check(node_d <= node_tol, "node SUnreclaim not returned"))
		return -1;
	return 0;
}

/*
 * kmalloc_type() gives __GFP_DMA, then __GFP_RECLAIMABLE, precedence
 * over __GFP_ACCOUNT: such objects come from dma-kmalloc-32 and
 * kmalloc-rcl-32, not kmalloc-cg-32, and are still charged.
 */
struct typecase {
	const char *param;	/* kmalloc_cg list: gfp is ACCOUNT | ... */
	const char *cache;
	const char *stat, *other;	/* memory.stat: grows, stays */
	long nr;
};

static char small_rcl[32] = "kmalloc-rcl-32", small_dma[32] = "dma-kmalloc-32";

static struct typecase typecases[] = {
	{ "reclaimable", small_rcl,
	  "slab_reclaimable", "slab_unreclaimable", 32768 },
	{ "dma", small_dma,
	  "slab_unreclaimable", "slab_reclaimable", 40960 },
};

/* Objects of SMALL bytes, with as many bytes in all as of 32 B. */
static void set_small(long min)
{
	size_t i;

	if (min <= small)
		return;
	small = min;
	snprintf(small_cg, sizeof(small_cg), "kmalloc-cg-%ld", small);
	snprintf(small_rcl, sizeof(small_rcl), "kmalloc-rcl-%ld", small);
	snprintf(small_dma, sizeof(small_dma), "dma-kmalloc-%ld", small);
	cases[0].nr = cases[0].nr * cases[0].size / small;
	cases[0].size = small;
	for (i = 0; i < ARRAY_SIZE(typecases); i++)
		typecases[i].nr = typecases[i].nr * 32 / small;
}

static int type_case(const struct typecase *t)
{
	struct mmt_slab own_a, own_b, cg_a, cg_b;
	long long want, tol, slack;
	long long a, a2, b, b2, d;
	char path[128];

	mmt_module_param_path(path, sizeof(path), MOD, t->param);
	if (access(path, F_OK)) {
		mmt_log("%s: no %s objects in this kernel (no %s)", t->cache,
			t->param, path);
		return 0;
	}
	if (!mmt_check(!mmt_slab_read(t->cache, &own_a) &&
		       !mmt_slab_read(small_cg, &cg_a),
		       "%s or %s not in /proc/slabinfo", t->cache, small_cg))
		return -1;
	/* obj_full_size(): the object plus its objcg pointer. */
	want = t->nr * (own_a.objsize + (long long)sizeof(void *));
	tol = ncpus * (2 * PAGE + 2 * BATCH);
	slack = mmt_slab_slack(&own_a, ncpus) + mmt_slab_slack(&cg_a, ncpus);

	if (kcg_param("size", small))
		return -1;
	a = mmt_cg_stat(CHILD, t->stat);
	a2 = mmt_cg_stat(CHILD, t->other);
	if (kcg_param(t->param, t->nr))
		return -1;
	b = mmt_cg_stat(CHILD, t->stat);
	b2 = mmt_cg_stat(CHILD, t->other);
	if (mmt_slab_read(t->cache, &own_b) ||
	    mmt_slab_read(small_cg, &cg_b))
		return -1;
	if (kcg_param("free", 1))
		return -1;
	mmt_slab_shrink(t->cache);
	d = mmt_cg_stat(CHILD, t->stat);

	mmt_log("%s x %ld: %s %+ld, %s %+ld objects", t->param,
		t->nr, t->cache, own_b.active - own_a.active, small_cg,
		cg_b.active - cg_a.active);
	mmt_log("%s x %ld: %s %+lld (want %lld), %s %+lld; freed: %+lld",
		t->param, t->nr, t->stat, b - a, want, t->other, b2 - a2,
		d - a);
	if (!mmt_check(own_b.active - own_a.active >= t->nr - slack,
		       "accounted %s objects not in %s", t->param, t->cache) ||
	    !mmt_check(cg_b.active - cg_a.active <= slack,
		       "accounted %s objects went to %s", t->param, small_cg) ||
	    !mmt_check(mmt_near(b - a, want, tol), "%s off", t->stat) ||
	    !mmt_check(mmt_near(b2 - a2, 0, tol), "%s objects counted in %s",
		       t->param, t->other) ||
	    !mmt_check(mmt_near(d - a, 0, tol), "%s not returned", t->stat))
		return -1;
	return 0;
}

#define NODE_ROUNDS	1024
#define NODE_RUN	63	/* objects on node 0 after each on node 1 */

/* Per node: the cgroup's slab_unreclaimable and the node's SUnreclaim. */
static int take_nodes(long long cg[2], long long sunrecl[2])
{
	int nid;

	for (nid = 0; nid < 2; nid++) {
		cg[nid] = mmt_cg_numa_stat(CHILD, "slab_unreclaimable", nid);
		sunrecl[nid] = mmt_node_meminfo(nid, "SUnreclaim") * 1024;
		if (cg[nid] < 0 || sunrecl[nid] < 0)
			return -1;
	}
	return 0;
}

/*
 * The module's parameter files, opened once: each open() allocates an
 * accounted struct file, which KASAN's quarantine keeps charged to the
 * cgroup long after close().
 */
static int node_fd = -1, accounted_fd = -1;

static int fd_write(int fd, long val)
{
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%ld", val);

	if (pwrite(fd, buf, len, 0) != len) {
		mmt_log("write %ld to a %s parameter: %s", val, MOD,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int param_open(const char *param)
{
	char path[128];
	int fd;

	mmt_module_param_path(path, sizeof(path), MOD, param);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		mmt_log("open %s: %s", path, strerror(errno));
	return fd;
}

static int alloc_on(int nid, long nr)
{
	return fd_write(node_fd, nid) || fd_write(accounted_fd, nr);
}

/*
 * One CPU, one objcg, alternating nodes: the stock flushes the vmstat
 * data it caches for one node when an object for the other comes.
 */
static int node_case(void)
{
	long long cg_a[2], cg_b[2], node_a[2], node_b[2];
	long long want[2], node_want[2], tol, node_tol;
	cpu_set_t one, old;
	struct mmt_slab geo;
	int r, err = -1;

	if (nnodes < 2) {
		mmt_log("one memory node: the alternating-node case needs two");
		return 0;
	}
	if (mmt_slab_read(small_cg, &geo))
		return -1;
	want[1] = NODE_ROUNDS * (geo.objsize + (long long)sizeof(void *));
	want[0] = NODE_RUN * want[1];
	node_want[1] = NODE_ROUNDS * geo.objsize;
	node_want[0] = NODE_RUN * node_want[1];
	/*
	 * memcg per-node counters batch 32 pages per CPU, and the stock
	 * caches a page: residues at both reads.  The earlier cases' frees
	 * leave the first one negative, so node 0 reads about 42 pages
	 * short of its objects and node 1's 10 to 18 pages stay per-cpu
	 * (seen under QEMU icount with one CPU, where the bound of one
	 * residue per CPU failed).
	 */
	tol = ncpus * 2 * (PAGE + BATCH);
	node_tol = node_want[0] / 8 + ncpus * 2 * geo.pagesperslab * PAGE +
		   (mmt_slab_slack(&geo, ncpus) +
		    (1 + ncpus) * geo.batchcount) * geo.objsize + 2 * BATCH;

	if (sched_getaffinity(0, sizeof(old), &old)) {
		mmt_log("sched_getaffinity: %s", strerror(errno));
		return -1;
	}
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		mmt_log("sched_setaffinity: %s", strerror(errno));
		return -1;
	}
	node_fd = param_open("node");
	accounted_fd = param_open("accounted");
	if (node_fd < 0 || accounted_fd < 0 || kcg_param("size", small) ||
	    take_nodes(cg_a, node_a))
		goto out;
	for (r = 0; r < NODE_ROUNDS; r++)
		if (alloc_on(1, 1) || alloc_on(0, NODE_RUN))
			goto out;
	if (kcg_param("node", -1) || take_nodes(cg_b, node_b))
		goto out;

	mmt_log("alternating nodes: memcg slab N0 %+lld (want %lld), N1 %+lld (want %lld)",
		cg_b[0] - cg_a[0], want[0], cg_b[1] - cg_a[1], want[1]);
	mmt_log("alternating nodes: SUnreclaim node 0 %+lld (want %lld), node 1 %+lld (want %lld)",
		node_b[0] - node_a[0], node_want[0],
		node_b[1] - node_a[1], node_want[1]);
	if (mmt_check(cg_b[0] - cg_a[0] >= want[0] - tol &&
		      cg_b[0] - cg_a[0] <= want[0] + tol,
		      "node 0's bytes not counted on node 0") &&
	    mmt_check(cg_b[1] - cg_a[1] >= want[1] - tol &&
		      cg_b[1] - cg_a[1] <= want[1] + tol,
		      "node 1 counted other bytes than its own") &&
	    mmt_check(node_b[0] - node_a[0] >= node_want[0] - node_tol,
		      "node 0's SUnreclaim did not grow with its objects") &&
	    mmt_check(node_b[1] - node_a[1] <= node_want[1] + node_tol,
		      "node 1's SUnreclaim grew with node 0's objects"))
		err = 0;
out:
	if (node_fd >= 0)
		close(node_fd);
	if (accounted_fd >= 0)
		close(accounted_fd);
	kcg_param("node", -1);
	kcg_param("free", 1);
	if (sched_setaffinity(0, sizeof(old), &old))
		mmt_log("sched_setaffinity (restore): %s", strerror(errno));
	return err;
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
	/* Start from an empty quarantine: earlier cases' objects leave it. */
	mmt_slab_shrink(c->cache);
	take(PARENT, &a);
	if (kcg_param("accounted", c->nr))
		return -1;
	if (mmt_cg_enter(CG_ROOT) || mmt_cg_destroy(CHILD))
		return -1;
	take(PARENT, &b);
	if (kcg_param("free", 1))
		return -1;
	/* KASAN's quarantine holds freed objects, still charged. */
	mmt_slab_shrink(c->cache);
	take(PARENT, &d);

	mmt_log("reparent: parent slab %+lld after rmdir (want %lld), %+lld after free",
		b.slab - a.slab, want, d.slab - a.slab);
	mmt_log("reparent: parent memory.current %+lld after rmdir, %+lld after free",
		b.current - a.current, d.current - a.current);
	if (!mmt_check(mmt_near(b.slab - a.slab, want, tol),
		       "charges lost on reparenting") ||
	    !mmt_check(b.current - a.current >= want - tol,
		       "memory.current lost the reparented objects") ||
	    !mmt_check(mmt_near(d.slab - a.slab, 0, tol),
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
	set_small(mmt_kmalloc_min());

	err = mmt_module_load(MOD, NULL);
	if (err && err != -EEXIST)
		return KSFT_FAIL;
	/*
	 * The cases shrink every cache from inside CHILD.  The first walk
	 * of /sys/kernel/slab allocates its dentries and inodes, charged
	 * to the walker as reclaimable slab (260 KB on a KASAN kernel):
	 * walk it here, in the root, so that they are not counted in the
	 * first case's "slab".
	 */
	mmt_shrink_slabs();
	if (mmt_cg_enable_memory(CG_ROOT) || mmt_cg_create(PARENT) ||
	    mmt_cg_enable_memory(PARENT) || mmt_cg_create(CHILD) ||
	    mmt_cg_enter(CHILD))
		goto cleanup;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		if (alloc_free_case(&cases[i]))
			goto cleanup;
	for (i = 0; i < ARRAY_SIZE(typecases); i++)
		if (type_case(&typecases[i]))
			goto cleanup;
	if (node_case())
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
