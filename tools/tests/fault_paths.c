// SPDX-License-Identifier: GPL-2.0
/*
 * fault_paths: the error paths of the allocations the stack changes,
 * one injected failure at a time, at every allocation of the operation
 * in turn, give back everything they took.
 *
 * The kernel's fault injection (configs/fault.config) fails the n-th
 * slab or page allocation of the calling thread from the moment n is
 * written to /proc/thread-self/fail-nth (mmt_fail_nth()).  Each case
 * repeats its operation with n = 1, 2, ... until the operation makes
 * fewer than n allocations, so every allocation point of it fails once,
 * ROUNDS times over (a leak per failure then adds up past the
 * tolerances):
 *   1. mkdir of a memory cgroup: mem_cgroup_alloc() and its per-node
 *      structures from the kmem caches of 0402/0403, its per-cpu
 *      counters, its id, its objcg and the cgroup core's own.  A mkdir
 *      that fails must fail with ENOMEM and leave no directory; one that
 *      succeeds anyway is removed.
 *   2. kmem_cache_alloc_bulk() of kmalloc-cg objects with __GFP_ACCOUNT
 *      (the kmalloc_cg module's bulk, 64 objects in batches of 16, of 256
 *      bytes and of 4 KiB): a failure in a batch's hook, its new slab's
 *      pages or its obj_cgroups vector frees what the batch got and
 *      uncharges it.
 *   3. the bulk page allocator (the bulk_alloc module's hold, 64 pages):
 *      with __GFP_ACCOUNT (0137's single page path, a page charged at a
 *      time) and without (the per-cpu list path); a fill that stops
 *      short frees what it got.
 *   4. fail_page_alloc alone, failslab off, on this task's bulk page
 *      fill (per-cpu list path): it must fail the fill, so the page
 *      allocator's own hook reaches should_fail() (1101 keeps it only
 *      with CONFIG_FAIL_PAGE_ALLOC).  The fail-nth cases cannot tell:
 *      their operations make slab allocations too, whose points remain.
 * Cases 2 and 3 run each in a child inside the cgroup CG, so that
 * their charges land there.  Then:
 * - after each case's child, CG's memory.current, with the caches
 *   dropped and its stocks drained (memory.high set to 0 on the empty
 *   cgroup), is back to at most a page per CPU and one of byte charges
 *   (obj_cgroup's nr_charged_bytes) within 2 s: a charge kept for an
 *   object or a page that was freed, or never made into one, stays;
 * - the kmalloc-cg caches hold no more objects than before (within
 *   their per-cpu slabs), and free memory is back (within FREE_SLACK):
 *   an object or a page lost on a failure path stays missing;
 * - once CG is removed, the root has no dying cgroup and the
 *   mem_cgroup and mem_cgroup_per_node caches have the objects they had
 *   at the start: a failed mkdir that kept a memcg, or a reference to
 *   one, leaves a count behind.
 * Each case also says how many allocation points it found and how many
 * of their failures failed the operation.
 *
 * Checked once on arm64-lockdep's kernel with the __mem_cgroup_free() of
 * mem_cgroup_alloc()'s failure path taken out (so 0402/0403's objects
 * of a failed mkdir never go back to their caches): it failed with
 * mem_cgroup 1 -> 8 and mem_cgroup_per_node 2 -> 6 objects, while free
 * memory stayed within FREE_SLACK (58 pages).  Case 4 checked once on
 * the default kernel with configs/fault.config and 1101, its
 * should_fail_alloc_page() made to return false at once: it failed (no
 * failure injected, the fill succeeded) while cases 1 to 3 passed, the
 * per-cpu list case finding 8 allocation points instead of 12.
 *
 * Skips without kmem accounting or without fault injection.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmt.h"

#define KCG		"kmalloc_cg"
#define BULK		"bulk_alloc"
#define CG		CG_ROOT "/mmt_fault"
#define CG_NEW		CG_ROOT "/mmt_fault_new"
#define ROUNDS		4
#define MAX_POINTS	2000	/* more than any case here makes */
#define KCG_OBJS	"64"
#define HOLD_PAGES	"64"
#define FREE_SLACK	256	/* pages */
#define SETTLE_MS	10000
#define WARM_CGROUPS	300	/* more than the mkdir rounds' allocation points */

/*
 * Run @op with its n-th allocation failed, n = 1, 2, ... until it makes
 * fewer than n; @op returns 0 or an errno (the operation's), or -1 when
 * the test itself failed.  @undo gives back what a run that succeeded
 * took.  Returns the points found, or -1.
 */
static long each_point(const char *what, int nth, int (*op)(void *),
		       int (*undo)(void *), void *arg, long *failed)
{
	long n, left;
	int err;

	for (n = 1; n < MAX_POINTS; n++) {
		if (mmt_fail_nth(nth, n))
			return -1;
		err = op(arg);
		left = mmt_fail_nth_left(nth);
		if (err < 0 || left < 0)
			return -1;
		if (err) {
			if (!mmt_check(err == ENOMEM && !left,
				       "%s with allocation %ld failed: %s (fail-nth left %ld)",
				       what, n, strerror(err), left))
				return -1;
			(*failed)++;
		}
		if (undo(arg))
			return -1;
		if (left)
			return n - 1;
	}
	mmt_fail_at(__FILE__, __LINE__, "%s: more than %d allocations", what,
		    MAX_POINTS);
	return -1;
}

/*
 * ROUNDS times each_point().  The number of points may differ from round
 * to round: whether a call needs a new slab or a refill of a per-cpu
 * list depends on what earlier ones left.
 */
static int rounds(const char *what, int nth, int (*op)(void *),
		  int (*undo)(void *), void *arg)
{
	long points = 0, failed = 0, least = MAX_POINTS, r;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		r = each_point(what, nth, op, undo, arg, &failed);
		if (r < 0)
			return -1;
		points += r;
		if (r < least)
			least = r;
	}
	mmt_log("%s: %ld allocation points in %d rounds (at least %ld in each); %ld of their failures failed it",
		what, points, ROUNDS, least, failed);
	return mmt_check(least > 0, "%s: a round without allocations", what) ? 0 : -1;
}

/* Case 1: mkdir. */
static int mkdir_op(void *arg)
{
	if (!mkdir(CG_NEW, 0755))
		return 0;
	return errno == ENOMEM ? ENOMEM : errno;
}

static int mkdir_undo(void *arg)
{
	if (!access(CG_NEW, F_OK))
		return mmt_cg_destroy(CG_NEW);
	return 0;
}

/* Cases 2 and 3: a write to a module parameter, opened beforehand. */
struct param_op {
	int fd;
	const char *val;
	const char *module, *undo_param;
};

static int param_op(void *arg)
{
	struct param_op *p = arg;
	ssize_t len = strlen(p->val);

	if (pwrite(p->fd, p->val, len, 0) == len)
		return 0;
	return errno;
}

static int param_undo(void *arg)
{
	struct param_op *p = arg;

	return mmt_module_param(p->module, p->undo_param, 0);
}

static int param_rounds(const char *what, int nth, const char *module,
			const char *param, const char *val,
			const char *undo_param)
{
	struct param_op p = { .val = val, .module = module,
			      .undo_param = undo_param };
	char path[256];
	int ret;

	mmt_module_param_path(path, sizeof(path), module, param);
	p.fd = open(path, O_WRONLY | O_CLOEXEC);
	if (!mmt_check(p.fd >= 0, "open %s: %s", path, strerror(errno)))
		return -1;
	ret = rounds(what, nth, param_op, param_undo, &p);
	close(p.fd);
	return ret;
}

/* Cases 2 and 3: each in a child of its own, in CG. */
struct charged_case {
	const char *what, *module, *param, *val, *undo;
	const char *setup;	/* a parameter set to setup_val first */
	long setup_val;
};

static const struct charged_case charged_cases[] = {
	{ "kmem_cache_alloc_bulk() of kmalloc-cg-256", KCG, "bulk", KCG_OBJS,
	  "free", "size", 256 },
	{ "kmem_cache_alloc_bulk() of kmalloc-cg-4k", KCG, "bulk", KCG_OBJS,
	  "free", "size", 4096 },
	{ "bulk page allocator, __GFP_ACCOUNT", BULK, "hold", HOLD_PAGES,
	  "hold", "hold_account", 1 },
	{ "bulk page allocator, per-cpu lists", BULK, "hold", HOLD_PAGES,
	  "hold", "hold_account", 0 },
};

static int charged_case(const struct charged_case *c)
{
	int nth;

	if (mmt_cg_enter(CG))
		return KSFT_FAIL;
	nth = mmt_fail_nth_open();
	if (nth < 0 || mmt_module_param(c->module, c->setup, c->setup_val) ||
	    param_rounds(c->what, nth, c->module, c->param, c->val, c->undo))
		return KSFT_FAIL;
	return KSFT_PASS;
}

/* Case 4: fail_page_alloc alone, on this task's per-cpu list fill. */
static int page_hook_case(void)
{
	long injected;
	int err;

	if (mmt_module_param(BULK, "hold_account", 0) ||
	    mmt_fault_setup(100, 1) ||
	    mmt_fault_knob("failslab", "probability", "0") ||
	    mmt_fault_self(1))
		return -1;
	err = mmt_module_param(BULK, "hold", atol(HOLD_PAGES));
	mmt_fault_self(0);
	injected = mmt_fault_injected();
	mmt_fault_setup(0, 1);
	mmt_module_param(BULK, "hold", 0);
	mmt_log("fail_page_alloc alone: %ld failure(s) injected, the fill %s",
		injected, err ? "failed" : "succeeded");
	return mmt_check(injected > 0 && err,
			 "fail_page_alloc failed no page of the fill: no hook reached") ? 0 : -1;
}

/*
 * CG's memory.current with the charge stocks drained into it, after the
 * dentries and inodes the child's lookups left in the caches (charged to
 * CG like any accounted object) are dropped; for up to 2 s, until it is
 * at most @tol, as objects freed after an RCU grace period (a file's)
 * give their charge back late.
 */
static long long drained_current(long long tol)
{
	long long cur = -1;
	int i;

	for (i = 0; i < 20; i++) {
		if (i)
			usleep(100000);
		mmt_drop_caches();
		/* drain_all_stock() drains other CPUs' stocks from a work item. */
		if (mmt_write_file(CG "/memory.high", "0") ||
		    mmt_write_file(CG "/memory.high", "max"))
			return -1;
		cur = mmt_cg_read_ll(CG, "memory.current");
		if (cur >= 0 && cur <= tol)
			break;
	}
	return cur;
}

static long cache_active(const char *name, long *slack, int ncpus)
{
	struct mmt_slab s;

	mmt_shrink_slabs();
	if (mmt_slab_read(name, &s))
		return -1;
	*slack = mmt_slab_slack(&s, ncpus);
	return s.active;
}

int main(void)
{
	static const char * const caches[] = { "kmalloc-cg-256", "kmalloc-cg-4k" };
	long active0[2], active1, slack, zombies;
	struct mmt_memcg_snap before, after;
	int ret = KSFT_FAIL, nth, ncpus, status, i, warm = 0;
	long long free0, cur, tol;
	pid_t pid;

	if (!mmt_kmem_accounted())
		return KSFT_SKIP;
	if (access("/proc/thread-self/fail-nth", F_OK) || mmt_fault_setup(0, 1)) {
		mmt_log("no fault injection in this kernel (configs/fault.config)");
		return KSFT_SKIP;
	}
	/* Under the runner's mm510.fault: one failure at a time instead. */
	if (mmt_fault_self(0))
		return KSFT_FAIL;
	ncpus = mmt_nr_online_cpus();
	/* A page per CPU and a page of obj_cgroup's nr_charged_bytes. */
	tol = (ncpus + 1) * 4096LL;
	if (mmt_module_load(KCG, NULL) ||
	    mmt_module_load(BULK, "max_pages=8 rounds=1"))
		goto unload;
	if (mmt_cg_enable_memory(CG_ROOT))
		goto cleanup;
	/*
	 * Unfailed, before the baselines: as many memory cgroups at once as
	 * the mkdir rounds may have alive or dying at a time.  The per-cpu
	 * allocator may grow by a chunk for them, and keeps one empty chunk
	 * when they are gone: a memcg-aware chunk of this guest comes with
	 * a 4 MiB vmalloc'ed obj_cgroups array (pcpu_create_chunk(), 1024
	 * pages in VmallocUsed), which is not a failure path's leak.
	 */
	if (mmt_cg_create(CG) || mkdir_op(NULL) || mkdir_undo(NULL) ||
	    mmt_cg_enable_memory(CG) || mmt_cg_create_n(CG, WARM_CGROUPS, &warm) ||
	    mmt_cg_destroy_n(CG, &warm) || mmt_cg_destroy(CG))
		goto cleanup;
	if (mmt_memcg_settle(&before, 1, SETTLE_MS))
		goto cleanup;
	for (i = 0; i < 2; i++)
		if ((active0[i] = cache_active(caches[i], &slack, ncpus)) < 0)
			goto cleanup;
	free0 = mmt_free_pages();
	if (mmt_cg_create(CG))
		goto cleanup;

	nth = mmt_fail_nth_open();
	if (nth < 0 || rounds("mkdir of a memory cgroup", nth, mkdir_op,
			      mkdir_undo, NULL))
		goto cleanup;

	for (i = 0; i < (int)ARRAY_SIZE(charged_cases); i++) {
		pid = fork();
		if (!mmt_check(pid >= 0, "fork: %s", strerror(errno)))
			goto cleanup;
		if (!pid)
			_exit(charged_case(&charged_cases[i]));
		if (!mmt_check(waitpid(pid, &status, 0) == pid && WIFEXITED(status),
			       "the child of %s did not exit", charged_cases[i].what) ||
		    WEXITSTATUS(status) != KSFT_PASS)
			goto cleanup;
		cur = drained_current(tol);
		mmt_log("%s: %s memory.current with the stocks drained: %lld bytes",
			charged_cases[i].what, CG, cur);
		if (!mmt_check(cur >= 0 && cur <= tol,
			       "charges stayed in %s: %lld bytes", CG, cur))
			goto cleanup;
	}
	for (i = 0; i < 2; i++) {
		active1 = cache_active(caches[i], &slack, ncpus);
		mmt_log("%s: %ld active objects before, %ld after", caches[i],
			active0[i], active1);
		if (!mmt_check(active1 >= 0 && active1 <= active0[i] + slack,
			       "%s kept %ld objects", caches[i], active1 - active0[i]))
			goto cleanup;
	}
	if (!mmt_free_pages_back(free0, FREE_SLACK))
		goto cleanup;
	if (page_hook_case())
		goto cleanup;

	if (mmt_cg_destroy(CG))
		goto cleanup;
	zombies = mmt_memcg_settle(&after, 1, SETTLE_MS);
	mmt_log("mem_cgroup %ld -> %ld, mem_cgroup_per_node %ld -> %ld objects",
		before.memcg, after.memcg, before.pn, after.pn);
	if (!mmt_check(!zombies, "%ld dying cgroup(s) stayed", zombies) ||
	    !mmt_check(after.memcg == before.memcg && after.pn == before.pn,
		       "memcg structures stayed"))
		goto cleanup;
	ret = KSFT_PASS;

cleanup:
	mmt_fault_setup(0, 1);
	if (!access(CG_NEW, F_OK))
		mmt_cg_destroy(CG_NEW);
	mmt_cg_destroy_n(CG, &warm);
	if (!access(CG, F_OK))
		mmt_cg_destroy(CG);
unload:
	mmt_module_unload(BULK);
	mmt_module_unload(KCG);
	return ret;
}
