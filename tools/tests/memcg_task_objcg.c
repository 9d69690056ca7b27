// SPDX-License-Identifier: GPL-2.0
/*
 * A task's accounted kernel objects are charged to the memory cgroup the
 * task is in now: after it moves, in a child born into another cgroup,
 * and not at all in the root; freeing gives every charge back.
 *
 * Group 5 keeps each task's object cgroup in task_struct and looks it up
 * again only when the memcg callbacks ask for it: .attach when the task
 * moves, .fork for a new task.  The kmalloc_cg module allocates
 * accounted 256-byte objects on behalf of whoever writes its
 * "accounted" parameter, so each step writes it from a task in a known
 * cgroup and reads the "slab" line of memory.stat of cgroups A, B and C:
 *   1. in A:  A is charged, B and C are not;
 *   2. moved to B: B is charged, A is not (fails if the move left the
 *      task's cached objcg in place);
 *   3. a child made with clone3(CLONE_INTO_CGROUP) into C, whose parent
 *      is in B: C is charged, B is not (fails if a new task kept its
 *      parent's objcg: no .attach runs for it, only .fork);
 *   4. a forked child that moves itself from B to A: A is charged;
 *   5. moved to the root: nobody is charged;
 *   6. back in A, allocations made with A's parent, the root, as the
 *      task's active memcg (the remote charge that mkdir of a top-level
 *      cgroup makes for the new memcg's per-cpu data): nobody is charged
 *      (fails if current_obj_cgroup() took the task's own objcg, A's,
 *      without looking at its active memcg);
 *   7. the allocations of a kernel worker (a kthread, in no cgroup)
 *      whose active memcg is A: A is charged;
 *   8. everything freed: each cgroup's slab figure is back where it
 *      started, and the three cgroups can be removed.
 * On a kernel without group 5 the same holds (plain 5.10.262 passes):
 * the test asserts what the group must keep.  Checked once each on the
 * stack with one callback of 0502 left out: without .fork, step 3
 * failed (B charged, C +0); without .attach, step 1 did (A +0: the
 * task kept the root's empty objcg after its move).  Step 6 was checked
 * once the same way, on the stack with 0702's inline current_obj_cgroup()
 * not testing current->active_memcg: A +1077384 bytes, the whole step.
 * Step 7 did not fail there: a kthread's objcg pointer keeps its update
 * bit while all it allocates is charged to its active memcg, so the
 * look-up takes the out-of-line path.
 *
 * On the debug kernel, without the cache shrink before step 6, 1280 of
 * the freed objects (665600 bytes) were still charged to A: KASAN's
 * quarantine, not a leak.
 *
 * Tolerances as in slab_kmalloc_cg_charge: memory.stat on 5.10 leaves up
 * to MEMCG_CHARGE_BATCH (32) pages per CPU of slab bytes in per-cpu
 * counters, and the objcg stock of group 3 caches up to a page more.
 * Skips without the memory controller, or with cgroup.memory=nokmem.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmt.h"

#define MOD		"kmalloc_cg"
#define CG_A		CG_ROOT "/mmt_objcg_a"
#define CG_B		CG_ROOT "/mmt_objcg_b"
#define CG_C		CG_ROOT "/mmt_objcg_c"
#define OBJ_SIZE	256
#define NR_OBJS		4096
#define STAT_BATCH	(33LL * 4096)	/* MEMCG_CHARGE_BATCH + stock, pages */

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP	0x200000000ULL
#endif

static const char *const cgs[] = { CG_A, CG_B, CG_C };
#define NR_CGS	3

static long long tol_bytes, want_bytes;

/* The "slab" figures of A, B and C into @v; 0, or -1. */
static int read_slab(long long v[NR_CGS])
{
	int i;

	for (i = 0; i < NR_CGS; i++) {
		v[i] = mmt_cg_stat(cgs[i], "slab");
		if (v[i] < 0) {
			mmt_log("%s: no slab in memory.stat", cgs[i]);
			return -1;
		}
	}
	return 0;
}

/*
 * Compare the growth of each cgroup's slab figure since @before with
 * @charged: the index of the one cgroup that must have been charged
 * NR_OBJS objects, or -1 for none.  @before becomes the new reading.
 */
static int expect(const char *step, long long before[NR_CGS], int charged)
{
	long long now[NR_CGS], d, want;
	int i, ok = 1;

	if (read_slab(now))
		return -1;
	mmt_log("%s: A %+lld, B %+lld, C %+lld bytes", step,
		now[0] - before[0], now[1] - before[1], now[2] - before[2]);
	for (i = 0; i < NR_CGS; i++) {
		d = now[i] - before[i];
		want = i == charged ? want_bytes : 0;
		if (!mmt_check(d >= want - tol_bytes && d <= want + tol_bytes,
			       "%s: %s slab %+lld, want %+lld (+-%lld)", step,
			       cgs[i], d, want, tol_bytes))
			ok = 0;
		before[i] = now[i];
	}
	return ok ? 0 : -1;
}

static int alloc_here(void)
{
	return mmt_module_param(MOD, "accounted", NR_OBJS);
}

/* Step 6: we allocate, charging our memcg's parent. */
static int alloc_for_parent(void)
{
	return mmt_module_param(MOD, "parent", NR_OBJS);
}

/* Step 7: the module's worker allocates, charging our memcg. */
static int alloc_remote(void)
{
	return mmt_module_param(MOD, "remote", NR_OBJS);
}

/* The child of steps 3 and 4: 0 when it allocated, else 1. */
static int child_alloc(const char *move_to)
{
	if (move_to && mmt_cg_enter(move_to))
		return 1;
	return alloc_here() ? 1 : 0;
}

static int wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid) {
		mmt_log("waitpid: %s", strerror(errno));
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		mmt_log("child failed (status %#x)", status);
		return -1;
	}
	return 0;
}

/* Step 3: a child born in C by clone3(CLONE_INTO_CGROUP). */
static int clone_into(const char *cg)
{
	struct clone_args args;
	pid_t pid;
	int fd;

	fd = open(cg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		mmt_log("%s: %s", cg, strerror(errno));
		return -1;
	}
	memset(&args, 0, sizeof(args));
	args.flags = CLONE_INTO_CGROUP;
	args.exit_signal = SIGCHLD;
	args.cgroup = fd;
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0)
		_exit(child_alloc(NULL));
	close(fd);
	if (pid < 0) {
		mmt_log("clone3(CLONE_INTO_CGROUP): %s", strerror(errno));
		return -1;
	}
	return wait_child(pid);
}

/* Step 4: a forked child that moves itself. */
static int fork_and_move(const char *cg)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(child_alloc(cg));
	if (pid < 0) {
		mmt_log("fork: %s", strerror(errno));
		return -1;
	}
	return wait_child(pid);
}

int main(void)
{
	long long start[NR_CGS], cur[NR_CGS];
	const char *cache = "kmalloc-cg-256";
	struct mmt_slab geo;
	int ret = KSFT_FAIL, loaded = 0, made = 0, i, err, ncpus;

	if (!mmt_kmem_accounted())
		return KSFT_SKIP;
	err = mmt_module_load(MOD, NULL);
	if (err && err != -EEXIST)
		return KSFT_FAIL;
	loaded = 1;
	/* The objects' cache: kmalloc-cg-256 with group 2, else kmalloc-256. */
	if (mmt_slab_read(cache, &geo))
		cache = "kmalloc-256";
	if (mmt_module_param(MOD, "size", OBJ_SIZE) ||
	    !mmt_check(!mmt_slab_read(cache, &geo),
		       "neither kmalloc-cg-256 nor kmalloc-256 in /proc/slabinfo"))
		goto out;
	ncpus = mmt_nr_online_cpus();
	/* obj_full_size(): the object and its objcg pointer. */
	want_bytes = (long long)NR_OBJS * (geo.objsize + sizeof(void *));
	tol_bytes = STAT_BATCH * ncpus;
	mmt_log("%d objects of %ld bytes a step: %lld bytes, tolerance %lld",
		NR_OBJS, geo.objsize, want_bytes, tol_bytes);

	if (mmt_cg_enable_memory(CG_ROOT))
		goto out;
	for (i = 0; i < NR_CGS; i++) {
		if (mmt_cg_create(cgs[i]))
			goto out;
		made = i + 1;
	}
	if (read_slab(start))
		goto out;
	memcpy(cur, start, sizeof(cur));

	if (mmt_cg_enter(CG_A) || alloc_here() || expect("1. in A", cur, 0) ||
	    mmt_cg_enter(CG_B) || alloc_here() || expect("2. moved to B", cur, 1) ||
	    clone_into(CG_C) || expect("3. child born in C", cur, 2) ||
	    fork_and_move(CG_A) || expect("4. child moved to A", cur, 0) ||
	    mmt_cg_enter(CG_ROOT) || alloc_here() || expect("5. in the root", cur, -1) ||
	    mmt_cg_enter(CG_A) || alloc_for_parent() ||
	    expect("6. in A, charging the root", cur, -1) ||
	    alloc_remote() || expect("7. a worker charging A", cur, 0))
		goto out;

	/*
	 * 8. Everything freed: each cgroup back to where it started.  KASAN's
	 * quarantine keeps freed objects charged until it lets them go:
	 * shrinking their cache empties it of them.
	 */
	if (mmt_module_param(MOD, "free", 1))
		goto out;
	mmt_slab_shrink(cache);
	memcpy(cur, start, sizeof(cur));
	if (expect("8. freed, against the start", cur, -1))
		goto out;
	ret = KSFT_PASS;
out:
	if (loaded)
		mmt_module_param(MOD, "free", 1);
	mmt_cg_enter(CG_ROOT);
	for (i = made - 1; i >= 0; i--) {
		if (mmt_cg_destroy(cgs[i]))
			ret = KSFT_FAIL;
	}
	if (loaded && mmt_module_unload(MOD))
		ret = KSFT_FAIL;
	return ret;
}
