// SPDX-License-Identifier: GPL-2.0
/*
 * memcg_objcg_release: every reference a task takes on its object cgroup
 * is given back, so that the object cgroups of removed memory cgroups are
 * freed.
 *
 * Group 5 keeps each task's object cgroup in task_struct->objcg, with a
 * reference taken at the task's first charge (0502) and dropped when the
 * task exits, in mem_cgroup_exit(); 0503 has each memcg hold its first
 * objcg until the memcg is freed.  A reference that is never dropped
 * shows nowhere a user looks: the memcg itself is freed (its objcgs move
 * to its parent when it goes offline), memory.current is unchanged, and
 * kmemleak sees the objcg as referenced, from the ancestor's objcg_list.
 * What stays is the objcg's own memory: the struct obj_cgroup and the
 * data of its percpu_ref, two kmalloc objects.
 *
 * So the test counts the allocated objects of every kmalloc-<n> cache
 * (each shrunk first: exact on SLUB) before and after NR_ROUNDS rounds
 * of: make a cgroup, fork a child that enters it, allocates accounted
 * objects through the kmalloc_cg module (its first charge: the objcg is
 * cached in the child's task_struct), frees them and exits; remove the
 * cgroup.  Once the removed cgroups are freed, the count must be back
 * within TOLERANCE objects; a reference left by each child leaves 2 per
 * round.  As many rounds first, uncounted: the first 256 memory cgroups
 * of a fresh boot left about 350 kmalloc objects for good, the next 256
 * none.
 *
 * Checked once on the stack (arm64-lockdep, booted with this test and
 * memcg_task_objcg): +1 object; with the obj_cgroup_put() of
 * mem_cgroup_exit() removed, +864 and a failure (more than the 512 of
 * the lost objcgs themselves: the 350 of the first rounds came again).  On a
 * kernel without group 5 (plain 5.10.262) a task holds no objcg, and the
 * test passes.  Skips without kmem accounting, and on SLAB (no shrink:
 * its per-cpu arrays keep freed objects counted) and SLOB.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmt.h"

#define MOD		"kmalloc_cg"
#define PARENT		CG_ROOT "/mmt_objcg_release"
#define NR_ROUNDS	256
#define NR_WARMUP	NR_ROUNDS
#define NR_OBJS		64
#define TOLERANCE	(NR_ROUNDS / 2)
#define SETTLE_MS	20000
#define WAIT_MS		5000
#define POLL_MS		100

/*
 * Allocated objects of every kmalloc-<n> cache: not kmalloc-cg-, -rcl-
 * or dma-, which hold no objcg.  Each is shrunk first.  -1 on error.
 */
static long kmalloc_objects(void)
{
	char names[MMT_MAX_KMALLOC][MMT_SLAB_NAME];
	int nr = mmt_kmalloc_caches(names, MMT_MAX_KMALLOC), i;
	long total = 0, active;

	if (nr < 0)
		return -1;
	if (!nr) {
		mmt_log("no kmalloc-<n> cache in /proc/slabinfo");
		return -1;
	}
	for (i = 0; i < nr; i++) {
		active = mmt_slab_active(names[i]);
		if (active < 0) {
			mmt_log("%s: no active object count", names[i]);
			return -1;
		}
		total += active;
	}
	return total;
}

/* The child of a round: 0 when it charged and freed its objects. */
static int child(const char *cg)
{
	if (mmt_cg_enter(cg) ||
	    mmt_module_param(MOD, "accounted", NR_OBJS) ||
	    mmt_module_param(MOD, "free", 1))
		return 1;
	return 0;
}

static int one_round(int i)
{
	char cg[128];
	int status, ret = 0;
	pid_t pid;

	snprintf(cg, sizeof(cg), PARENT "/r%d", i);
	if (mmt_cg_create(cg))
		return -1;
	pid = fork();
	if (pid == 0)
		_exit(child(cg));
	if (pid < 0) {
		mmt_log("fork: %s", strerror(errno));
		ret = -1;
	} else if (waitpid(pid, &status, 0) != pid) {
		mmt_log("waitpid: %s", strerror(errno));
		ret = -1;
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		mmt_log("round %d: the child failed (status %#x)", i, status);
		ret = -1;
	}
	if (mmt_cg_destroy(cg))
		ret = -1;
	return ret;
}

int main(void)
{
	struct mmt_memcg_snap snap;
	long start, now = -1;
	double deadline;
	int ret = KSFT_FAIL, loaded = 0, parent = 0, i, err;

	if (!mmt_kmem_accounted() || !mmt_have_slabinfo())
		return KSFT_SKIP;
	if (access("/sys/kernel/slab", F_OK)) {
		mmt_log("no /sys/kernel/slab: SLAB, whose counts a shrink does not make exact");
		return KSFT_SKIP;
	}
	err = mmt_module_load(MOD, NULL);
	if (err && err != -EEXIST)
		return KSFT_FAIL;
	loaded = 1;
	if (mmt_cg_enable_memory(CG_ROOT) || mmt_cg_create(PARENT))
		goto out;
	parent = 1;
	if (mmt_cg_enable_memory(PARENT))
		goto out;

	/* What the first memory cgroups of a boot allocate for good. */
	for (i = 0; i < NR_WARMUP; i++)
		if (one_round(i))
			goto out;
	if (mmt_memcg_settle(&snap, 0, SETTLE_MS) < 0)
		goto out;
	start = kmalloc_objects();
	if (start < 0)
		goto out;

	for (i = 0; i < NR_ROUNDS; i++)
		if (one_round(i))
			goto out;

	/* The removed cgroups freed, then their objcgs after RCU. */
	if (mmt_memcg_settle(&snap, 0, SETTLE_MS) < 0)
		goto out;
	deadline = mmt_now() + WAIT_MS / 1000.0;
	do {
		now = kmalloc_objects();
		if (now < 0)
			goto out;
		if (now - start <= TOLERANCE)
			break;
		usleep(POLL_MS * 1000);
	} while (mmt_now() < deadline);
	mmt_log("kmalloc objects: %ld before, %ld after %d rounds (%+ld)",
		start, now, NR_ROUNDS, now - start);
	if (!mmt_check(now - start <= TOLERANCE,
		       "%ld kmalloc objects more after %d cgroups whose tasks charged and exited (tolerance %d): an objcg reference not given back leaves 2 a round",
		       now - start, NR_ROUNDS, TOLERANCE))
		goto out;
	ret = KSFT_PASS;
out:
	if (loaded)
		mmt_module_param(MOD, "free", 1);
	if (parent && mmt_cg_destroy(PARENT))
		ret = KSFT_FAIL;
	if (loaded && mmt_module_unload(MOD))
		ret = KSFT_FAIL;
	return ret;
}
