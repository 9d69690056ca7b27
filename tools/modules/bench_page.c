// SPDX-License-Identifier: GPL-2.0
/*
 * bench_page: cost of order-0 page allocation and free (make bench).
 *
 * bulk=0 allocates and frees one page at a time (alloc_page(),
 * __free_page()); bulk=N asks alloc_pages_bulk_array() for N pages at
 * once and frees them one by one, the pattern of Mel Gorman's bulk
 * allocator series (upstream saw +3.8% at one page and +11..13% from two
 * pages on).  The plain 5.10.262 has no bulk allocator: there bulk=N
 * fails with EOPNOTSUPP and the report says n/a.
 *
 *   /sys/module/bench_page/parameters/bulk    0, or pages per bulk call
 *   /sys/module/bench_page/parameters/ops     pages per run
 *   /sys/module/bench_page/parameters/run     write anything: run here
 *   /sys/module/bench_page/parameters/result  read: the last run,
 *          "ops=N ns=N cycles=N loop_ns=N loop_cycles=N" -- pages, the
 *          time of the measured loop and of the bare loop run first
 *
 * Figures on TCG are for comparing kernels in one make bench run only;
 * debug options (lockdep, KASAN, DEBUG_VM) distort them, and the module
 * says so on load.
 */
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/timex.h>

#define MAX_BULK	128
#define RESCHED_EVERY	256	/* calls between cond_resched() */

static DEFINE_MUTEX(bp_lock);
static unsigned int bulk;
static unsigned long ops = 1000000;
static char result[160] = "none";
static struct page *pages[MAX_BULK];

module_param(bulk, uint, 0644);
MODULE_PARM_DESC(bulk, "0: one page at a time; N: alloc_pages_bulk_array() of N");
module_param(ops, ulong, 0644);
MODULE_PARM_DESC(ops, "pages per run (default 1000000)");
module_param_string(result, result, sizeof(result), 0444);
MODULE_PARM_DESC(result, "the last run: ops ns cycles loop_ns loop_cycles");

struct bp_time {
	u64 ns, cycles;
};

/* The bare loop: the calls' loop and cond_resched() without the allocator. */
static noinline void bp_bare(unsigned long calls, unsigned int n,
			     struct bp_time *t)
{
	unsigned long i;
	u64 t0 = ktime_get_ns(), c0 = get_cycles();
	unsigned int j;

	for (i = 0; i < calls; i++) {
		for (j = 0; j < n; j++)
			pages[j] = (struct page *)&pages[j];
		barrier();
		for (j = 0; j < n; j++)
			pages[j] = NULL;
		barrier();
		if (!(i % RESCHED_EVERY))
			cond_resched();
	}
	t->cycles = get_cycles() - c0;
	t->ns = ktime_get_ns() - t0;
}

static noinline int bp_single(unsigned long calls, struct bp_time *t)
{
	struct page *page;
	unsigned long i;
	u64 t0 = ktime_get_ns(), c0 = get_cycles();
	int err = 0;

	for (i = 0; i < calls; i++) {
		page = alloc_page(GFP_KERNEL);
		barrier();
		if (likely(page))
			__free_page(page);
		else
			err = -ENOMEM;
		barrier();
		if (!(i % RESCHED_EVERY))
			cond_resched();
	}
	t->cycles = get_cycles() - c0;
	t->ns = ktime_get_ns() - t0;
	return err;
}

#ifdef MM510_HAVE_BULK
static noinline int bp_bulk(unsigned long calls, unsigned int n,
			    struct bp_time *t)
{
	unsigned long i, got;
	u64 t0 = ktime_get_ns(), c0 = get_cycles();
	unsigned int j;
	int err = 0;

	for (i = 0; i < calls; i++) {
		/* The array must be empty: the call only fills NULL slots. */
		got = alloc_pages_bulk_array(GFP_KERNEL, n, pages);
		barrier();
		if (unlikely(got != n))
			err = -ENOMEM;
		for (j = 0; j < n; j++) {
			if (pages[j])
				__free_page(pages[j]);
			pages[j] = NULL;
		}
		barrier();
		if (!(i % RESCHED_EVERY))
			cond_resched();
	}
	t->cycles = get_cycles() - c0;
	t->ns = ktime_get_ns() - t0;
	return err;
}
#endif

static int bp_run_set(const char *val, const struct kernel_param *kp)
{
	struct bp_time bare, t;
	unsigned int n;
	unsigned long calls;
	int ret;

	mutex_lock(&bp_lock);
	n = bulk;
	if (n > MAX_BULK || ops < 1) {
		ret = -EINVAL;
		goto out;
	}
#ifndef MM510_HAVE_BULK
	if (n) {
		ret = -EOPNOTSUPP;
		goto out;
	}
#endif
	calls = n ? max(ops / n, 1UL) : ops;
	memset(pages, 0, sizeof(pages));
	bp_bare(calls, n ? n : 1, &bare);
#ifdef MM510_HAVE_BULK
	ret = n ? bp_bulk(calls, n, &t) : bp_single(calls, &t);
#else
	ret = bp_single(calls, &t);
#endif
	if (ret)
		goto out;
	snprintf(result, sizeof(result),
		 "ops=%lu ns=%llu cycles=%llu loop_ns=%llu loop_cycles=%llu",
		 calls * (n ? n : 1), t.ns, t.cycles, bare.ns, bare.cycles);
out:
	mutex_unlock(&bp_lock);
	return ret;
}

static const struct kernel_param_ops bp_run_ops = {
	.set = bp_run_set,
};
module_param_cb(run, &bp_run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "write anything: run the benchmark");

static int __init bp_init(void)
{
	if (IS_ENABLED(CONFIG_LOCKDEP) || IS_ENABLED(CONFIG_KASAN) ||
	    IS_ENABLED(CONFIG_DEBUG_VM) || IS_ENABLED(CONFIG_DEBUG_PAGEALLOC))
		pr_notice("bench_page: debug options are on; the figures say little\n");
	return 0;
}

static void __exit bp_exit(void)
{
}

module_init(bp_init);
module_exit(bp_exit);
MODULE_DESCRIPTION("mm510 benchmark: order-0 page allocation, single and bulk");
MODULE_LICENSE("GPL");
