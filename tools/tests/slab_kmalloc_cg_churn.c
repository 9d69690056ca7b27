// SPDX-License-Identifier: GPL-2.0
/*
 * Creating and removing memory cgroups while their tasks allocate and
 * free accounted kmalloc() objects leaves kmalloc-cg-<n> and the parent
 * cgroup where they were once everything is freed.
 *
 * Each round creates NR_CHILDREN cgroups under a parent, forks one task
 * into each that allocates NR_OBJS accounted objects (through the
 * kmalloc_cg module) and exits.  Half of the cgroups are removed while
 * their objects are still allocated, so their charges are reparented to
 * the parent; then every object is freed and the other half removed.
 * At the end kmalloc-cg-256 must be back at its starting level and the
 * parent's memory.stat slab back near zero.
 *
 * Tolerances: SLUB keeps per-cpu slabs that /proc/slabinfo counts as
 * active; the cache is shrunk before each reading and two slabs per CPU
 * of slack are allowed (plus SLAB's per-cpu and shared arrays, see
 * mmt_slab_slack()).  memory.stat may hold up to MEMCG_CHARGE_BATCH
 * pages per CPU in per-cpu counters.  Polling is bounded (5 s) to let
 * deferred work (objcg release, cgroup offlining) finish.
 *
 * Fails when objects or charges leak across cgroup removal (charges
 * lost or left behind on reparenting, objects never freed) or when the
 * kernel warns (checked by the runner).  It does not exercise the
 * objcg-vector self-pinning loop that 494c1dfe855e removes: the vectors
 * of kmalloc-cg-256 slabs are 128 bytes and live in kmalloc-128.  Skips
 * without the memory controller or with cgroup.memory=nokmem.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmt.h"

#define MOD		"kmalloc_cg"
#define PARENT		CG_ROOT "/mmt_kcg_churn"
#define OBJ_SIZE	256
#define NR_OBJS		2048
#define NR_CHILDREN	4
#define NR_ROUNDS	8
#define CG_CACHE	"kmalloc-cg-256"
#define STAT_BATCH	(32LL * 4096)	/* MEMCG_CHARGE_BATCH pages */

static int kcg_param(const char *param, long val)
{
	return mmt_module_param(MOD, param, val);
}

/* Child: join @cg, allocate accounted objects, report by exit status. */
static int alloc_in(const char *cg)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(mmt_cg_enter(cg) || kcg_param("accounted", NR_OBJS));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		mmt_log("allocation in %s failed", cg);
		return -1;
	}
	return 0;
}

static int one_round(int round)
{
	char cg[NR_CHILDREN][128];
	int i, ret = -1;

	for (i = 0; i < NR_CHILDREN; i++) {
		snprintf(cg[i], sizeof(cg[i]), PARENT "/r%d-c%d", round, i);
		if (mmt_cg_create(cg[i]) || alloc_in(cg[i]))
			goto out;
	}
	/* Removed with live objects: their charges move to PARENT. */
	for (i = 0; i < NR_CHILDREN; i += 2)
		if (mmt_cg_destroy(cg[i]))
			goto out;
	if (kcg_param("free", 1))
		goto out;
	ret = 0;
out:
	for (i = 0; i < NR_CHILDREN; i++)
		if (mmt_cg_destroy(cg[i]))
			ret = -1;
	return ret;
}

int main(void)
{
	long base, now = -1, tol_objs;
	struct mmt_slab geo;
	long long slab = -1, tol_bytes;
	int ret = KSFT_FAIL, ncpus, round, tries, err;

	if (!mmt_kmem_accounted())
		return KSFT_SKIP;
	if (!mmt_check(!mmt_slab_read(CG_CACHE, &geo),
		       "%s not in /proc/slabinfo", CG_CACHE))
		return KSFT_FAIL;
	ncpus = mmt_nr_online_cpus();
	tol_objs = mmt_slab_slack(&geo, ncpus);
	tol_bytes = STAT_BATCH * ncpus + tol_objs * OBJ_SIZE;

	err = mmt_module_load(MOD, NULL);
	if (err && err != -EEXIST)
		return KSFT_FAIL;
	if (kcg_param("size", OBJ_SIZE) || mmt_cg_enable_memory(CG_ROOT) ||
	    mmt_cg_create(PARENT) || mmt_cg_enable_memory(PARENT))
		goto cleanup;

	base = mmt_slab_active(CG_CACHE);
	for (round = 0; round < NR_ROUNDS; round++)
		if (one_round(round))
			goto cleanup;

	for (tries = 0; tries < 50; tries++) {
		now = mmt_slab_active(CG_CACHE);
		slab = mmt_cg_stat(PARENT, "slab");
		if (now <= base + tol_objs && slab >= 0 && slab <= tol_bytes)
			break;
		usleep(100000);
	}
	mmt_log("%s: %ld active before, %ld after %d cgroups (tolerance %ld)",
		CG_CACHE, base, now, NR_ROUNDS * NR_CHILDREN, tol_objs);
	mmt_log("parent memory.stat slab: %lld bytes (tolerance %lld)",
		slab, tol_bytes);
	if (mmt_check(now >= 0 && now <= base + tol_objs,
		      "%s did not return to its level", CG_CACHE) &&
	    mmt_check(slab >= 0 && slab <= tol_bytes,
		      "parent still charged %lld slab bytes", slab))
		ret = KSFT_PASS;

cleanup:
	kcg_param("free", 1);
	mmt_cg_destroy(PARENT);
	mmt_module_unload(MOD);
	return ret;
}
