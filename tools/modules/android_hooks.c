// SPDX-License-Identifier: GPL-2.0
/*
 * android_hooks: the vendor hooks of the Android common kernel that the
 * android flavour's forms keep in place are still called, and with
 * interrupts as ACK calls them.  Built only on ACK with its vendor hooks
 * on (tools/modules/Kbuild).
 *
 * On load it attaches a probe to each of these hooks, as a vendor
 * module would: each probe counts its calls, and those made with
 * interrupts enabled.  ACK calls three of them only with interrupts
 * disabled:
 * - android_vh_rmqueue, in rmqueue() after a high-order page is taken
 *   (0126's form);
 * - android_vh_rmqueue_bulk_bypass, where an empty per-cpu list is about
 *   to be refilled, under the per-cpu lists' lock (0104, 0108, 0121,
 *   0122);
 * - android_vh_pcplist_add_cma_pages_bypass, in free_unref_page_commit()
 *   (0128's form).
 * The other four are counted only: android_vh_free_unref_page_bypass
 * (0122, 0127: before the free takes its lock), android_vh_pageset_update
 * (0104), android_vh_mem_cgroup_free (0503) and
 * android_vh_test_clear_look_around_ref (prep_new_page(), for every page
 * handed out: the bulk allocator's too, with interrupts disabled where a
 * single page's has them enabled, 0108); android_vh_pageset_update's
 * calls with a high of 0 are counted apart (zero_high_pageset_update):
 * ACK never makes one, and 0107's form must not show it the high of 0
 * that zone_pcp_disable() sets during memory offline.
 *
 * Writing 1 to /sys/module/android_hooks/parameters/run makes the
 * allocations that reach the first two and the free hook: RUN_ORDER
 * pages of order 2, then RUN_BULK order-0 pages from the bulk allocator
 * (more than a per-cpu list holds, so that it refills one), all freed
 * again.  It reports in bulk_refills the rmqueue_bulk_bypass calls made
 * during the bulk allocation alone (-1 on a tree without the bulk
 * allocator: plain ACK), and in bulk_look_around (and
 * bulk_look_around_irqs_on) the test_clear_look_around_ref calls made
 * there.  The test
 * (tools/tests/android_hooks.c) drives the rest from user space.  The
 * probes never bypass anything: every "bypass" stays false.
 */
#include <linux/gfp.h>
#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <trace/hooks/mm.h>

#define RUN_ORDER	32
#define RUN_BULK	1024

enum { H_RMQUEUE, H_BULK_BYPASS, H_CMA_BYPASS, H_FREE_BYPASS, H_PAGESET,
	H_MEMCG_FREE, H_LOOK_AROUND, NR_HOOKS };

static atomic_long_t calls[NR_HOOKS];
static atomic_long_t irqs_on[NR_HOOKS];
static atomic_long_t zero_high;

static void count(int h)
{
	atomic_long_inc(&calls[h]);
	if (!irqs_disabled())
		atomic_long_inc(&irqs_on[h]);
}

static void probe_rmqueue(void *data, struct zone *preferred_zone,
			  struct zone *zone, unsigned int order,
			  gfp_t gfp_flags, unsigned int alloc_flags,
			  int migratetype)
{
	count(H_RMQUEUE);
}

static void probe_bulk_bypass(void *data, unsigned int order,
			      struct per_cpu_pages *pcp, int migratetype,
			      struct list_head *list)
{
	count(H_BULK_BYPASS);
}

static void probe_cma_bypass(void *data, int migratetype, bool *bypass)
{
	count(H_CMA_BYPASS);
}

static void probe_free_bypass(void *data, struct page *page, int order,
			      int migratetype, bool *bypass)
{
	count(H_FREE_BYPASS);
}

static void probe_pageset(void *data, unsigned long *high,
			  unsigned long *batch)
{
	count(H_PAGESET);
	if (!*high)
		atomic_long_inc(&zero_high);
}

static void probe_memcg_free(void *data, struct mem_cgroup *memcg)
{
	count(H_MEMCG_FREE);
}

static void probe_look_around(void *data, struct page *page)
{
	count(H_LOOK_AROUND);
}

/* One read-only parameter per counter: calls_<hook>, irqs_on_<hook>. */
static int counter_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(kp->arg));
}

static const struct kernel_param_ops counter_ops = {
	.get = counter_get,
};

#define HOOK_PARAMS(name, h)						\
	module_param_cb(calls_##name, &counter_ops, &calls[h], 0444);	\
	MODULE_PARM_DESC(calls_##name, "calls of android_vh_" #name);	\
	module_param_cb(irqs_on_##name, &counter_ops, &irqs_on[h], 0444); \
	MODULE_PARM_DESC(irqs_on_##name,				\
			 "calls of android_vh_" #name " with interrupts enabled")

HOOK_PARAMS(rmqueue, H_RMQUEUE);
HOOK_PARAMS(rmqueue_bulk_bypass, H_BULK_BYPASS);
HOOK_PARAMS(pcplist_add_cma_pages_bypass, H_CMA_BYPASS);
HOOK_PARAMS(free_unref_page_bypass, H_FREE_BYPASS);
HOOK_PARAMS(pageset_update, H_PAGESET);
HOOK_PARAMS(mem_cgroup_free, H_MEMCG_FREE);
HOOK_PARAMS(test_clear_look_around_ref, H_LOOK_AROUND);
module_param_cb(zero_high_pageset_update, &counter_ops, &zero_high, 0444);
MODULE_PARM_DESC(zero_high_pageset_update, "calls of android_vh_pageset_update with a high of 0");

static long bulk_refills = -1;
module_param(bulk_refills, long, 0444);
MODULE_PARM_DESC(bulk_refills, "rmqueue_bulk_bypass calls during the last run's bulk allocation");

static long bulk_look_around = -1, bulk_look_around_irqs_on = -1;
module_param(bulk_look_around, long, 0444);
MODULE_PARM_DESC(bulk_look_around, "test_clear_look_around_ref calls during the last run's bulk allocation");
module_param(bulk_look_around_irqs_on, long, 0444);
MODULE_PARM_DESC(bulk_look_around_irqs_on, "the same, with interrupts enabled");

static int errors;
module_param(errors, int, 0444);
MODULE_PARM_DESC(errors, "allocations of a run that failed");

static int run_set(const char *val, const struct kernel_param *kp)
{
	struct page **pages;
	int i, ret;

	ret = param_set_bool(val, kp);
	if (ret || !*(bool *)kp->arg)
		return ret;

	pages = kcalloc(RUN_BULK, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < RUN_ORDER; i++) {
		pages[i] = alloc_pages(GFP_KERNEL, 2);
		if (!pages[i])
			errors++;
	}
	for (i = 0; i < RUN_ORDER; i++) {
		if (pages[i])
			__free_pages(pages[i], 2);
		pages[i] = NULL;
	}
#ifdef MM510_HAVE_BULK
	{
		long before = atomic_long_read(&calls[H_BULK_BYPASS]);
		long la = atomic_long_read(&calls[H_LOOK_AROUND]);
		long la_on = atomic_long_read(&irqs_on[H_LOOK_AROUND]);

		if (alloc_pages_bulk_array(GFP_KERNEL, RUN_BULK, pages) != RUN_BULK)
			errors++;
		bulk_refills = atomic_long_read(&calls[H_BULK_BYPASS]) - before;
		bulk_look_around = atomic_long_read(&calls[H_LOOK_AROUND]) - la;
		bulk_look_around_irqs_on =
			atomic_long_read(&irqs_on[H_LOOK_AROUND]) - la_on;
		for (i = 0; i < RUN_BULK; i++)
			if (pages[i])
				__free_pages(pages[i], 0);
	}
#endif
	kfree(pages);
	return 0;
}

static const struct kernel_param_ops run_ops = {
	.set = run_set,
	.get = param_get_bool,
};

static bool run;
module_param_cb(run, &run_ops, &run, 0644);
MODULE_PARM_DESC(run, "write 1: allocate and free pages through the hooked paths");

/* The hooks attached so far, detached in the reverse order. */
static int attached;

static void detach(void)
{
	switch (attached) {
	case 7:
		unregister_trace_android_vh_test_clear_look_around_ref(probe_look_around, NULL);
		fallthrough;
	case 6:
		unregister_trace_android_vh_mem_cgroup_free(probe_memcg_free, NULL);
		fallthrough;
	case 5:
		unregister_trace_android_vh_pageset_update(probe_pageset, NULL);
		fallthrough;
	case 4:
		unregister_trace_android_vh_free_unref_page_bypass(probe_free_bypass, NULL);
		fallthrough;
	case 3:
		unregister_trace_android_vh_pcplist_add_cma_pages_bypass(probe_cma_bypass, NULL);
		fallthrough;
	case 2:
		unregister_trace_android_vh_rmqueue_bulk_bypass(probe_bulk_bypass, NULL);
		fallthrough;
	case 1:
		unregister_trace_android_vh_rmqueue(probe_rmqueue, NULL);
		tracepoint_synchronize_unregister();
	}
	attached = 0;
}

static int __init android_hooks_init(void)
{
	int ret;

	ret = register_trace_android_vh_rmqueue(probe_rmqueue, NULL);
	if (!ret && ++attached)
		ret = register_trace_android_vh_rmqueue_bulk_bypass(probe_bulk_bypass, NULL);
	if (!ret && ++attached)
		ret = register_trace_android_vh_pcplist_add_cma_pages_bypass(probe_cma_bypass, NULL);
	if (!ret && ++attached)
		ret = register_trace_android_vh_free_unref_page_bypass(probe_free_bypass, NULL);
	if (!ret && ++attached)
		ret = register_trace_android_vh_pageset_update(probe_pageset, NULL);
	if (!ret && ++attached)
		ret = register_trace_android_vh_mem_cgroup_free(probe_memcg_free, NULL);
	if (!ret && ++attached)
		ret = register_trace_android_vh_test_clear_look_around_ref(probe_look_around, NULL);
	if (!ret)
		attached++;
	else
		detach();
	return ret;
}

static void __exit android_hooks_exit(void)
{
	detach();
}

module_init(android_hooks_init);
module_exit(android_hooks_exit);
MODULE_DESCRIPTION("mm510: ACK's vendor hooks called where and as ACK calls them");
MODULE_LICENSE("GPL");
