// SPDX-License-Identifier: GPL-2.0
/*
 * A slab allocation whose memory cgroup charge fails returns NULL and
 * leaves nothing behind: no object in its cache, no charge, no slab
 * bytes in memory.stat; the allocations that succeeded are charged with
 * their slab bytes, and give all of it back when freed.
 *
 * The series charges an accounted object after allocating it, in the
 * post-alloc hook (0601, upstream's 9f9796b413d3 of v6.10-rc1), one
 * object at a time together with its slab statistic (0602).  When a
 * charge fails, the caller frees what it allocated and returns NULL, or
 * 0 from kmem_cache_alloc_bulk(); in a bulk allocation, that free also
 * uncharges the objects charged before the failure.  5.10.262 charges
 * before allocating (the pre-alloc hook), so that a failed charge
 * allocates nothing; the test holds both designs to the same result (it
 * passed on the stack without group 6 too).  It drives the failure path
 * through both slab entry points: the kmalloc_cg module, called from
 * inside a child cgroup whose memory.max is LIMIT, tries single
 * kmalloc()s of OBJ_SIZE bytes with __GFP_NORETRY (no OOM kill: a charge
 * over the limit fails after reclaim), then as many objects of the same
 * cache with kmem_cache_alloc_bulk() in batches of 16, going on past each
 * failure: NR_OVER more than LIMIT holds of their charge, so that at
 * least NR_OVER fail, far more than the tolerance below (each failure
 * reclaims and drains the stocks first, the test's main cost).  Per
 * entry point it checks that
 * - some allocations failed and the module holds the others;
 * - the cache grew by the objects held, not by those that failed (an
 *   object freed on a failed charge; a leak would add one per failure);
 * - memory.stat's slab grew by what the held objects are charged
 *   (object size plus the objcg pointer), and memory.current stayed
 *   within memory.max;
 * - after the module frees them, the cache, memory.stat's slab and
 *   memory.current are back where they started: a charge taken for an
 *   object that was then freed, or a batch's charge left behind, would
 *   stay.
 *
 * Tolerances as in slab_kmalloc_cg_charge: per-cpu slabs (two per CPU,
 * and SLAB's arrays), and MEMCG_CHARGE_BATCH pages per CPU of memory.stat
 * and of the charge stocks.  memory.current is read at the limit, through
 * a descriptor opened and read once before (its buffer allocated then);
 * memory.max goes back to "max" before any other file is opened or read:
 * at the limit, the charged allocations of an open or a first read would
 * find no room.  (Read after the limit went, memory.current also held
 * what the next charges put in the stocks, a batch per CPU and a page:
 * one page over the tolerance in a boot under kmemleak.)
 *
 * Skips without kmem accounting (no memory controller, nokmem, SLOB).
 * Fails when a failed charge leaves its object allocated or its charge
 * taken.  Checked once, on 0601 as the series carries it, with an
 * earlier 4 MiB limit and 24576 tries: with the free of a failed
 * charge's objects taken out of SLUB's slab_alloc_node() and
 * kmem_cache_alloc_bulk(), it failed with
 * "kmalloc-cg-256 grew by 24576 objects, 15843 held (8733 failed)".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmt.h"

#define MOD		"kmalloc_cg"
#define CG		CG_ROOT "/mmt_charge_fail"
#define OBJ_SIZE	256
#define LIMIT		(2LL << 20)
#define NR_OVER		512	/* tries beyond what LIMIT holds */
#define KMALLOC_CACHE	"kmalloc-cg-256"
#define STAT_BATCH	(32LL * 4096)	/* MEMCG_CHARGE_BATCH pages */

static int kcg_param_free(void)
{
	return mmt_module_param(MOD, "free", 1);
}

/*
 * memory.max, opened before the cgroup is near its limit: opening it
 * there could need a dentry (memcg reclaim may have dropped the one
 * cached), whose charge would find no room and call the OOM killer on
 * this process.
 */
static int max_fd = -1, cur_fd = -1;

static int set_max(const char *val)
{
	ssize_t len = strlen(val);

	if (pwrite(max_fd, val, len, 0) != len) {
		mmt_log("write %s to memory.max: %s", val, strerror(errno));
		return -1;
	}
	return 0;
}

/* memory.current through cur_fd: no allocation once read before. */
static long long read_current(void)
{
	char buf[32];
	ssize_t n = pread(cur_fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0) {
		mmt_log("read memory.current: %s", n ? strerror(errno) : "empty");
		return -1;
	}
	buf[n] = '\0';
	return atoll(buf);
}

/* One entry point: the module parameter @param, objects of @cache. */
static int run(const char *param, const char *cache, int ncpus)
{
	struct mmt_slab geo;
	long a0, a1, held, failed, charged, tol_objs, tries;
	long long slab0, slab1, cur0, cur1, max_ev0, max_ev1, tol_bytes;
	char limit[32];

	if (!mmt_check(!mmt_slab_read(cache, &geo), "%s not in /proc/slabinfo",
		       cache))
		return -1;
	/* What memcg charges per object: obj_full_size(). */
	charged = geo.objsize + sizeof(void *);
	tol_objs = mmt_slab_slack(&geo, ncpus);
	tol_bytes = 2 * STAT_BATCH * ncpus + tol_objs * charged;
	tries = LIMIT / charged + NR_OVER;

	a0 = mmt_slab_active(cache);
	slab0 = mmt_cg_stat(CG, "slab");
	cur0 = mmt_cg_read_ll(CG, "memory.current");
	max_ev0 = mmt_key_value(CG "/memory.events", "max");

	snprintf(limit, sizeof(limit), "%lld", LIMIT);
	if (!mmt_check(!set_max(limit), "cannot set memory.max"))
		return -1;
	if (!mmt_check(!mmt_module_param(MOD, param, tries),
		       "writing %s failed", param)) {
		set_max("max");
		return -1;
	}
	cur1 = read_current();
	if (!mmt_check(!set_max("max"), "cannot lift memory.max"))
		return -1;

	held = mmt_module_param_read(MOD, param);
	failed = mmt_module_param_read(MOD, "failed");
	a1 = mmt_slab_active(cache);
	slab1 = mmt_cg_stat(CG, "slab");
	max_ev1 = mmt_key_value(CG "/memory.events", "max");
	mmt_log("%s: %ld held, %ld failed; %s %+ld, memory.stat slab %+lld, memory.current %lld (limit %lld), max events %+lld",
		param, held, failed, cache, a1 - a0, slab1 - slab0, cur1,
		LIMIT, max_ev1 - max_ev0);
	if (!mmt_check(held + failed == tries,
		       "%ld held + %ld failed, want %ld tries", held, failed,
		       tries) ||
	    !mmt_check(failed > 0 && held > 0,
		       "the limit was not reached, or nothing fitted") ||
	    !mmt_check(max_ev1 > max_ev0, "no max event in memory.events") ||
	    !mmt_check(mmt_near(a1 - a0, held, tol_objs),
		       "%s grew by %ld objects, %ld held (%ld failed)", cache,
		       a1 - a0, held, failed) ||
	    !mmt_check(mmt_near(slab1 - slab0, (long long)held * charged,
				tol_bytes),
		       "slab %+lld, want %lld", slab1 - slab0,
		       (long long)held * charged) ||
	    !mmt_check(cur1 >= 0 && cur1 <= LIMIT + STAT_BATCH * ncpus,
		       "memory.current %lld over the limit %lld", cur1, LIMIT))
		return -1;

	if (kcg_param_free())
		return -1;
	a1 = mmt_slab_active(cache);
	slab1 = mmt_cg_stat(CG, "slab");
	cur1 = mmt_cg_read_ll(CG, "memory.current");
	mmt_log("%s freed: %s %+ld, memory.stat slab %+lld, memory.current %+lld",
		param, cache, a1 - a0, slab1 - slab0, cur1 - cur0);
	if (!mmt_check(mmt_near(a1, a0, tol_objs), "%s did not shrink back",
		       cache) ||
	    !mmt_check(mmt_near(slab1, slab0, tol_bytes),
		       "slab charge not returned: %+lld", slab1 - slab0) ||
	    !mmt_check(cur1 - cur0 <= tol_bytes,
		       "memory.current %+lld after the free", cur1 - cur0))
		return -1;
	return 0;
}

int main(void)
{
	int ret = KSFT_FAIL, loaded = 0, entered = 0, ncpus, err;

	if (!mmt_kmem_accounted())
		return KSFT_SKIP;
	ncpus = mmt_nr_online_cpus();
	err = mmt_module_load(MOD, NULL);
	if (err && err != -EEXIST)
		return KSFT_FAIL;
	loaded = 1;
	if (mmt_module_param(MOD, "size", OBJ_SIZE))
		goto cleanup;
	if (mmt_cg_enable_memory(CG_ROOT) || mmt_cg_create(CG))
		goto cleanup;
	max_fd = open(CG "/memory.max", O_WRONLY | O_CLOEXEC);
	if (!mmt_check(max_fd >= 0, "open memory.max: %s", strerror(errno)))
		goto cleanup;
	cur_fd = open(CG "/memory.current", O_RDONLY | O_CLOEXEC);
	if (!mmt_check(cur_fd >= 0, "open memory.current: %s",
		       strerror(errno)) ||
	    read_current() < 0)
		goto cleanup;
	if (mmt_cg_enter(CG))
		goto cleanup;
	entered = 1;

	if (run("limited", KMALLOC_CACHE, ncpus) ||
	    run("bulk", KMALLOC_CACHE, ncpus))
		goto cleanup;
	ret = KSFT_PASS;

cleanup:
	if (max_fd >= 0)
		close(max_fd);
	if (cur_fd >= 0)
		close(cur_fd);
	if (loaded)
		kcg_param_free();
	if (entered)
		mmt_cg_enter(CG_ROOT);
	mmt_cg_destroy(CG);
	if (loaded)
		mmt_module_unload(MOD);
	return ret;
}
