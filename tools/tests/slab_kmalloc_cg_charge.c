// SPDX-License-Identifier: GPL-2.0
/*
 * Accounted kmalloc() objects land in kmalloc-cg-<n> and are charged to
 * the allocating task's memory cgroup; unaccounted ones land in
 * kmalloc-<n> and are not charged.
 *
 * The kmalloc_cg module allocates on behalf of whoever writes its
 * parameters, so this test moves itself into a child cgroup, asks for
 * NR_OBJS objects of OBJ_SIZE bytes with and without __GFP_ACCOUNT, and
 * compares /proc/slabinfo active objects and the cgroup's memory.stat
 * "slab" before and after, then frees and expects both back.
 *
 * Tolerances: SLUB's /proc/slabinfo counts objects of per-cpu slabs as
 * active, so each cache is shrunk (flushing per-cpu slabs) before it is
 * read, and a remaining slack of two slabs per CPU is allowed for other
 * users of the same caches; with SLAB, freed objects parked in its
 * per-cpu and shared arrays also count as active (mmt_slab_slack()).
 * memory.stat on 5.10 leaves up to MEMCG_CHARGE_BATCH (32) pages per CPU
 * of slab bytes in per-cpu counters, so slab bytes are compared within
 * that per CPU.
 *
 * Fails when accounted objects do not show up in kmalloc-cg-<n> (group 2
 * missing: they would go to kmalloc-<n>), when unaccounted objects are
 * charged or counted in kmalloc-cg-<n>, or when freeing does not give
 * the charge back.  Skips without the memory controller, or with
 * cgroup.memory=nokmem (nothing is charged then).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmt.h"

#define MOD		"kmalloc_cg"
#define CG		CG_ROOT "/mmt_kmalloc_cg"
#define OBJ_SIZE	256
#define NR_OBJS		8192
#define CG_CACHE	"kmalloc-cg-256"
#define NORMAL_CACHE	"kmalloc-256"
#define STAT_BATCH	(32LL * 4096)	/* MEMCG_CHARGE_BATCH pages */

static int kcg_param(const char *param, long val)
{
	return mmt_module_param(MOD, param, val);
}

int main(void)
{
	long cg0, cg1, n0, n1, objsize, charged, tol_objs;
	struct mmt_slab geo;
	long long slab0, slab1, tol_bytes;
	int ret = KSFT_FAIL, loaded = 0, entered = 0, ncpus, err;

	if (!mmt_kmem_accounted())
		return KSFT_SKIP;
	if (!mmt_check(!mmt_slab_read(CG_CACHE, &geo),
		       "%s not in /proc/slabinfo", CG_CACHE))
		return KSFT_FAIL;

	ncpus = mmt_nr_online_cpus();
	objsize = geo.objsize;
	/*
	 * What memcg charges per object: obj_full_size(), the slab's object
	 * size plus the objcg pointer kept for it in the slab's vector.
	 */
	charged = objsize + sizeof(void *);
	tol_objs = mmt_slab_slack(&geo, ncpus);
	tol_bytes = STAT_BATCH * ncpus + tol_objs * objsize;
	mmt_log("objsize %ld, %ld per slab, %d cpus: tolerance %ld objects, %lld bytes",
		objsize, geo.perslab, ncpus, tol_objs, tol_bytes);

	err = mmt_module_load(MOD, NULL);
	if (err && err != -EEXIST)
		return KSFT_FAIL;
	loaded = 1;
	if (mmt_cg_enable_memory(CG_ROOT) || mmt_cg_create(CG))
		goto cleanup;
	if (mmt_cg_enter(CG))
		goto cleanup;
	entered = 1;
	if (kcg_param("size", OBJ_SIZE))
		goto cleanup;

	/* Accounted: kmalloc-cg-256 grows, the cgroup is charged. */
	cg0 = mmt_slab_active(CG_CACHE);
	n0 = mmt_slab_active(NORMAL_CACHE);
	slab0 = mmt_cg_stat(CG, "slab");
	if (kcg_param("accounted", NR_OBJS))
		goto cleanup;
	cg1 = mmt_slab_active(CG_CACHE);
	n1 = mmt_slab_active(NORMAL_CACHE);
	slab1 = mmt_cg_stat(CG, "slab");
	mmt_log("accounted: %s %+ld, %s %+ld, memory.stat slab %+lld",
		CG_CACHE, cg1 - cg0, NORMAL_CACHE, n1 - n0, slab1 - slab0);
	if (!mmt_check(mmt_near(cg1 - cg0, NR_OBJS, tol_objs),
		       "%s grew by %ld, want %d", CG_CACHE, cg1 - cg0,
		       NR_OBJS) ||
	    !mmt_check(n1 - n0 < NR_OBJS / 2,
		       "accounted objects went to %s", NORMAL_CACHE) ||
	    !mmt_check(mmt_near(slab1 - slab0, (long long)NR_OBJS * charged,
				tol_bytes),
		       "slab charge %+lld, want %lld", slab1 - slab0,
		       (long long)NR_OBJS * charged))
		goto cleanup;

	/* Unaccounted: kmalloc-256 grows, nothing more is charged. */
	cg0 = cg1;
	n0 = n1;
	slab0 = slab1;
	if (kcg_param("plain", NR_OBJS))
		goto cleanup;
	cg1 = mmt_slab_active(CG_CACHE);
	n1 = mmt_slab_active(NORMAL_CACHE);
	slab1 = mmt_cg_stat(CG, "slab");
	mmt_log("plain: %s %+ld, %s %+ld, memory.stat slab %+lld",
		CG_CACHE, cg1 - cg0, NORMAL_CACHE, n1 - n0, slab1 - slab0);
	if (!mmt_check(n1 - n0 >= NR_OBJS - tol_objs,
		       "%s grew by %ld, want %d", NORMAL_CACHE, n1 - n0,
		       NR_OBJS) ||
	    !mmt_check(mmt_near(cg1 - cg0, 0, tol_objs),
		       "unaccounted objects in %s", CG_CACHE) ||
	    !mmt_check(mmt_near(slab1 - slab0, 0, tol_bytes),
		       "unaccounted objects charged: %+lld", slab1 - slab0))
		goto cleanup;

	/* Free everything: the accounted objects' charge goes away. */
	slab0 = mmt_cg_stat(CG, "slab") - (long long)NR_OBJS * objsize;
	cg0 = cg1 - NR_OBJS;
	if (kcg_param("free", 1))
		goto cleanup;
	cg1 = mmt_slab_active(CG_CACHE);
	slab1 = mmt_cg_stat(CG, "slab");
	mmt_log("free: %s at %ld (expected %ld), memory.stat slab %lld (expected %lld)",
		CG_CACHE, cg1, cg0, slab1, slab0);
	if (!mmt_check(mmt_near(cg1, cg0, tol_objs), "%s did not shrink back",
		       CG_CACHE) ||
	    !mmt_check(mmt_near(slab1, slab0, tol_bytes),
		       "slab charge not returned"))
		goto cleanup;
	ret = KSFT_PASS;

cleanup:
	if (loaded)
		kcg_param("free", 1);
	if (entered)
		mmt_cg_enter(CG_ROOT);
	mmt_cg_destroy(CG);
	if (loaded)
		mmt_module_unload(MOD);
	return ret;
}
