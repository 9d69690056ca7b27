// SPDX-License-Identifier: GPL-2.0
/*
 * bench_slab: cost of accounted slab allocations (make bench).
 *
 * Allocates and frees objects of a SLAB_ACCOUNT cache (or kmalloc() with
 * __GFP_ACCOUNT) in batches of four, four allocations then four frees,
 * the loop of Waiman Long's measurement for the obj_cgroup stock series
 * (group 3).  Booted with cgroup.memory=nokmem the same loop runs without
 * accounting: the difference is what accounting costs.
 *
 * The caller runs it in its own context, so the objects are charged to
 * the memory cgroup of the writing process:
 *
 *   /sys/module/bench_slab/parameters/size     object size in bytes
 *   /sys/module/bench_slab/parameters/ops      alloc+free pairs per thread
 *   /sys/module/bench_slab/parameters/kmalloc  1: kmalloc(__GFP_ACCOUNT)
 *   /sys/module/bench_slab/parameters/threads  1: the writer itself;
 *          2: two kthreads, one bound to each of CPUs 0 and 1, charging
 *          the writer's memory cgroup (remote charging, active_memcg)
 *   /sys/module/bench_slab/parameters/run      write anything: run
 *   /sys/module/bench_slab/parameters/result   read: the last run,
 *          "ops=N ns=N cycles=N loop_ns=N loop_cycles=N" -- ops per
 *          thread, and for the slowest thread the time of the measured
 *          loop and of the bare loop (same loop, no allocation) run first
 *
 * The reader subtracts the bare loop and divides by ops.  Seen on the
 * plain 5.10.262 bench kernel (guest,mm,bench) in make bench's icount
 * mode (one instruction a nanosecond), accounted, 200000 pairs: 683 ns
 * per 32-byte pair, 1048 ns per 4 KiB pair.  Debug options (lockdep,
 * KASAN, DEBUG_VM) make the figures meaningless; the module says so on
 * load.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/timex.h>

#define BATCH		4
#define RESCHED_EVERY	256	/* batches between cond_resched() */
#define MAX_THREADS	2

static DEFINE_MUTEX(bs_lock);
static unsigned int size = 32;
static unsigned long ops = 1000000;
static bool use_kmalloc;
static unsigned int threads = 1;
static char result[160] = "none";

module_param(size, uint, 0644);
MODULE_PARM_DESC(size, "object size in bytes (default 32)");
module_param(ops, ulong, 0644);
MODULE_PARM_DESC(ops, "alloc+free pairs per thread (default 1000000)");
module_param_named(kmalloc, use_kmalloc, bool, 0644);
MODULE_PARM_DESC(kmalloc, "use kmalloc(GFP_KERNEL_ACCOUNT), not a SLAB_ACCOUNT cache");
module_param(threads, uint, 0644);
MODULE_PARM_DESC(threads, "1: run in the writer; 2: two kthreads on CPUs 0 and 1");
module_param_string(result, result, sizeof(result), 0444);
MODULE_PARM_DESC(result, "the last run: ops ns cycles loop_ns loop_cycles");

struct bs_run {
	struct kmem_cache *cache;	/* NULL: kmalloc */
	struct mem_cgroup *memcg;	/* charged by the kthreads */
	unsigned long batches;
	atomic_t ready;
	struct completion go;
	struct completion done[MAX_THREADS];
	u64 ns, cycles, loop_ns, loop_cycles;	/* slowest thread */
	int err;
};

struct bs_thread {
	struct bs_run *run;
	int idx;
	u64 ns, cycles, loop_ns, loop_cycles;
	int err;
};

/* The bare loop: the same batches and cond_resched(), no allocation. */
static noinline void bs_loop_bare(struct bs_thread *t)
{
	void *objs[BATCH];
	unsigned long i;
	u64 t0, c0;
	int j;

	t0 = ktime_get_ns();
	c0 = get_cycles();
	for (i = 0; i < t->run->batches; i++) {
		for (j = 0; j < BATCH; j++)
			objs[j] = &objs[j];
		barrier();
		for (j = 0; j < BATCH; j++)
			objs[j] = NULL;
		barrier();
		if (!(i % RESCHED_EVERY))
			cond_resched();
	}
	t->loop_cycles = get_cycles() - c0;
	t->loop_ns = ktime_get_ns() - t0;
}

static noinline void bs_loop(struct bs_thread *t)
{
	struct kmem_cache *cache = t->run->cache;
	unsigned int sz = size;
	void *objs[BATCH];
	unsigned long i;
	u64 t0, c0;
	int j;

	t0 = ktime_get_ns();
	c0 = get_cycles();
	for (i = 0; i < t->run->batches; i++) {
		for (j = 0; j < BATCH; j++)
			objs[j] = cache ? kmem_cache_alloc(cache, GFP_KERNEL) :
					  kmalloc(sz, GFP_KERNEL_ACCOUNT);
		barrier();
		for (j = 0; j < BATCH; j++) {
			if (unlikely(!objs[j])) {
				t->err = -ENOMEM;
				continue;
			}
			if (cache)
				kmem_cache_free(cache, objs[j]);
			else
				kfree(objs[j]);
		}
		barrier();
		if (!(i % RESCHED_EVERY))
			cond_resched();
	}
	t->cycles = get_cycles() - c0;
	t->ns = ktime_get_ns() - t0;
}

static void bs_measure(struct bs_thread *t)
{
	bs_loop_bare(t);
	bs_loop(t);
}

static int bs_kthread(void *arg)
{
	struct bs_thread *t = arg;
	struct bs_run *run = t->run;

	/*
	 * A kthread charges nobody unless it names a memcg.  Written
	 * directly: set_active_memcg() refers to int_active_memcg, which
	 * 5.10 does not export, and a kthread is never in interrupt.
	 */
#ifdef CONFIG_MEMCG
	current->active_memcg = run->memcg;
#endif
	atomic_inc(&run->ready);
	wait_for_completion(&run->go);
	bs_measure(t);
#ifdef CONFIG_MEMCG
	current->active_memcg = NULL;
#endif
	complete(&run->done[t->idx]);
	return 0;
}

static int bs_run_threads(struct bs_run *run, struct bs_thread *t, int n)
{
	struct task_struct *tsk[MAX_THREADS];
	int i, cpu = -1;

	if (num_online_cpus() < n)
		return -ENODEV;
	run->memcg = get_mem_cgroup_from_mm(current->mm);
	atomic_set(&run->ready, 0);
	init_completion(&run->go);
	for (i = 0; i < n; i++) {
		cpu = cpumask_next(cpu, cpu_online_mask);
		init_completion(&run->done[i]);
		t[i].run = run;
		t[i].idx = i;
		tsk[i] = kthread_create(bs_kthread, &t[i], "bench_slab/%d", cpu);
		if (IS_ERR(tsk[i])) {
			run->err = PTR_ERR(tsk[i]);
			/* Threads already made still wait for "go". */
			n = i;
			break;
		}
		kthread_bind(tsk[i], cpu);
		wake_up_process(tsk[i]);
	}
	while (atomic_read(&run->ready) < n)
		schedule_timeout_uninterruptible(1);
	complete_all(&run->go);
	for (i = 0; i < n; i++)
		wait_for_completion(&run->done[i]);
	mem_cgroup_put(run->memcg);
	return run->err;
}

static int bs_run_set(const char *val, const struct kernel_param *kp)
{
	struct bs_thread t[MAX_THREADS] = {};
	struct bs_run run = {};
	char name[32];
	int i, n, ret = 0;

	mutex_lock(&bs_lock);
	n = threads;
	if (n < 1 || n > MAX_THREADS || size < 8 || size > PAGE_SIZE ||
	    ops < BATCH) {
		ret = -EINVAL;
		goto out;
	}
	run.batches = ops / BATCH;
	if (!use_kmalloc) {
		snprintf(name, sizeof(name), "bench_slab-%u", size);
		run.cache = kmem_cache_create(name, size, 0, SLAB_ACCOUNT, NULL);
		if (!run.cache) {
			ret = -ENOMEM;
			goto out;
		}
	}
	if (n == 1) {
		t[0].run = &run;
		bs_measure(&t[0]);
		run.err = t[0].err;
	} else {
		ret = bs_run_threads(&run, t, n);
	}
	for (i = 0; i < n; i++) {
		if (t[i].err)
			run.err = t[i].err;
		run.ns = max(run.ns, t[i].ns);
		run.cycles = max(run.cycles, t[i].cycles);
		run.loop_ns = max(run.loop_ns, t[i].loop_ns);
		run.loop_cycles = max(run.loop_cycles, t[i].loop_cycles);
	}
	kmem_cache_destroy(run.cache);
	if (!ret)
		ret = run.err;
	if (ret)
		goto out;
	snprintf(result, sizeof(result),
		 "ops=%lu ns=%llu cycles=%llu loop_ns=%llu loop_cycles=%llu",
		 run.batches * BATCH, run.ns, run.cycles, run.loop_ns,
		 run.loop_cycles);
out:
	mutex_unlock(&bs_lock);
	return ret;
}

static const struct kernel_param_ops bs_run_ops = {
	.set = bs_run_set,
};
module_param_cb(run, &bs_run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "write anything: run the benchmark in the writer's memcg");

static int __init bs_init(void)
{
	if (IS_ENABLED(CONFIG_LOCKDEP) || IS_ENABLED(CONFIG_KASAN) ||
	    IS_ENABLED(CONFIG_DEBUG_VM) || IS_ENABLED(CONFIG_SLUB_DEBUG_ON))
		pr_notice("bench_slab: debug options are on; the figures say little\n");
	return 0;
}

static void __exit bs_exit(void)
{
}

module_init(bs_init);
module_exit(bs_exit);
MODULE_DESCRIPTION("mm510 benchmark: accounted slab allocation and free");
MODULE_LICENSE("GPL");
