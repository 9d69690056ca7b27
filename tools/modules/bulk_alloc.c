// SPDX-License-Identifier: GPL-2.0
/*
 * bulk_alloc: exercise the bulk page allocator from the mm510 stack
 * (alloc_pages_bulk_list() and alloc_pages_bulk_array()).
 *
 * On load it asks for 1..max_pages order-0 pages, @rounds times, through
 * both interfaces, checks what came back and frees it again.  The module
 * then stays loaded so that tools/tests/bulk_alloc.c can read the results
 * from /sys/module/bulk_alloc/parameters/ and compare them with
 * /proc/vmstat and /proc/meminfo before unloading it.
 *
 * Per call it checks that:
 * - the call returns the number of pages asked for, topping up an array
 *   that already holds some pages without touching those;
 * - a call on a completely filled array returns its size and allocates
 *   nothing;
 * - every page is distinct, has a reference count of one and is not on
 *   the buddy lists, and is zeroed when __GFP_ZERO was asked for;
 * - the pages hold what was written to them until they are freed.
 *
 * Writing N to /sys/module/bulk_alloc/parameters/hold fills an array of N
 * pages with alloc_pages_bulk_array(GFP_KERNEL | __GFP_ACCOUNT), in the
 * context of the writer (so charged to the writer's memory cgroup), and
 * keeps them; writing 0 frees them.  Reading it gives the pages held.
 * With hold_account=N the array is filled with plain GFP_KERNEL: the bulk
 * allocator's own per-cpu list path, where __GFP_ACCOUNT takes its single
 * page one.  A fill that stops short (a call that adds no page) frees
 * what it got and fails the write with ENOMEM.
 */
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/page-flags.h>
#include <linux/slab.h>
#include <linux/sort.h>

static int max_pages = 128;
module_param(max_pages, int, 0444);
MODULE_PARM_DESC(max_pages, "largest request, 1..1024 (default 128)");

static int rounds = 4;
module_param(rounds, int, 0444);
MODULE_PARM_DESC(rounds, "times each request size is tried (default 4)");

/* Results, read back by the test. */
static unsigned long pages_allocated;
module_param(pages_allocated, ulong, 0444);
MODULE_PARM_DESC(pages_allocated, "pages the module allocated in total");

static unsigned long calls;
module_param(calls, ulong, 0444);
MODULE_PARM_DESC(calls, "bulk allocator calls made");

static unsigned long retries;
module_param(retries, ulong, 0444);
MODULE_PARM_DESC(retries, "calls that returned fewer pages than asked for");

static int errors;
module_param(errors, int, 0444);
MODULE_PARM_DESC(errors, "failed checks, 0 when everything was right");

static char first_error[128] = "none";
module_param_string(first_error, first_error, sizeof(first_error), 0444);
MODULE_PARM_DESC(first_error, "description of the first failed check");

/*
 * A call may return fewer pages than asked for (the pcp list ran dry, or
 * page_owner makes the allocator hand out one page per call); the caller
 * then asks again. A call that adds no page at all is a failure.
 */

static void bulk_error(const char *what, int nr, int got)
{
	if (!errors++)
		snprintf(first_error, sizeof(first_error), "%s (nr=%d got=%d)",
			 what, nr, got);
	pr_err("bulk_alloc: %s (nr=%d got=%d)\n", what, nr, got);
}

static int cmp_ptr(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* Checks a page must pass right after allocation; stamps it. */
static bool check_new_page(struct page *page, bool zeroed, int nr)
{
	unsigned long *p;

	if (page_count(page) != 1 || PageBuddy(page) || page_mapped(page)) {
		bulk_error("page state after allocation", nr, page_count(page));
		return false;
	}
	p = kmap(page);
	if (zeroed && memchr_inv(p, 0, PAGE_SIZE)) {
		kunmap(page);
		bulk_error("__GFP_ZERO page not zeroed", nr, 0);
		return false;
	}
	/* Stamp the page with its own address to catch shared pages. */
	p[0] = (unsigned long)page;
	p[PAGE_SIZE / sizeof(*p) - 1] = ~(unsigned long)page;
	kunmap(page);
	return true;
}

static bool check_stamp(struct page *page, int nr)
{
	unsigned long *p = kmap(page);
	bool ok = p[0] == (unsigned long)page &&
		  p[PAGE_SIZE / sizeof(*p) - 1] == ~(unsigned long)page;

	kunmap(page);
	if (!ok)
		bulk_error("page contents changed while allocated", nr, 0);
	return ok;
}

/* All @nr pages distinct; @sorted is scratch space of @nr entries. */
static bool check_distinct(struct page **pages, unsigned long *sorted, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		sorted[i] = (unsigned long)pages[i];
	sort(sorted, nr, sizeof(*sorted), cmp_ptr, NULL);
	for (i = 1; i < nr; i++) {
		if (sorted[i] == sorted[i - 1]) {
			bulk_error("same page returned twice", nr, i);
			return false;
		}
	}
	return true;
}

static void test_list(int nr, gfp_t gfp, struct page **pages,
		      unsigned long *sorted)
{
	struct page *page, *next;
	LIST_HEAD(list);
	int got = 0, n, i;

	while (got < nr) {
		n = alloc_pages_bulk_list(gfp, nr - got, &list);
		calls++;
		if (n > nr - got)
			bulk_error("list: more pages than asked for", nr, n);
		if (n <= 0)
			break;
		if (n < nr - got)
			retries++;
		got += n;
	}
	if (got != nr)
		bulk_error("list: no progress", nr, got);

	i = 0;
	list_for_each_entry(page, &list, lru) {
		if (i == nr) {
			bulk_error("list: more pages than returned", nr, got);
			break;
		}
		pages[i++] = page;
	}
	if (i != got)
		bulk_error("list: length differs from return value", nr, i);
	pages_allocated += i;

	for (n = 0; n < i; n++)
		check_new_page(pages[n], gfp & __GFP_ZERO, nr);
	check_distinct(pages, sorted, i);
	for (n = 0; n < i; n++)
		check_stamp(pages[n], nr);

	list_for_each_entry_safe(page, next, &list, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
}

static void test_array(int nr, gfp_t gfp, struct page **pages,
		       unsigned long *sorted)
{
	unsigned long got = 0;
	int i, prefilled = 0;

	memset(pages, 0, nr * sizeof(*pages));

	/*
	 * Put a page into every third slot of the larger arrays so the
	 * allocator has to skip populated elements.
	 */
	for (i = 0; nr > 2 && i < nr; i += 3) {
		pages[i] = alloc_page(gfp);
		if (!pages[i]) {
			bulk_error("array: alloc_page() for prefill failed", nr, i);
			goto out;
		}
		pages_allocated++;
		check_new_page(pages[i], gfp & __GFP_ZERO, nr);
		prefilled++;
	}

	while (got < nr) {
		unsigned long n = alloc_pages_bulk_array(gfp, nr, pages);

		calls++;
		if (n <= got)
			break;
		if (n < nr)
			retries++;
		got = n;
	}
	if (got != nr) {
		bulk_error("array: no progress", nr, got);
		goto out;
	}

	/* A return value of nr promises that every slot holds a page. */
	for (i = 0; i < nr; i++) {
		if (!pages[i]) {
			bulk_error("array: empty slot in a full array", nr, i);
			goto out;
		}
	}
	pages_allocated += got - prefilled;

	/* Stamp the new pages; the prefilled ones are stamped already. */
	for (i = 0; i < got; i++) {
		if (nr > 2 && i % 3 == 0)
			continue;
		check_new_page(pages[i], gfp & __GFP_ZERO, nr);
	}
	check_distinct(pages, sorted, got);

	/* A full array needs nothing: its size comes back, no page is added. */
	got = alloc_pages_bulk_array(gfp, nr, pages);
	calls++;
	if (got != nr)
		bulk_error("array: full array not reported full", nr, got);
	got = nr;

	for (i = 0; i < got; i++)
		check_stamp(pages[i], nr);
out:
	for (i = 0; i < nr; i++) {
		if (pages[i])
			__free_page(pages[i]);
	}
}

static int __init bulk_alloc_init(void)
{
	unsigned long *sorted;
	struct page **pages;
	int r, nr;

	if (max_pages < 1 || max_pages > 1024 || rounds < 1)
		return -EINVAL;

	pages = kcalloc(max_pages, sizeof(*pages), GFP_KERNEL);
	sorted = kcalloc(max_pages, sizeof(*sorted), GFP_KERNEL);
	if (!pages || !sorted) {
		kfree(pages);
		kfree(sorted);
		return -ENOMEM;
	}

	for (r = 0; r < rounds; r++) {
		/* Odd rounds ask for zeroed pages. */
		gfp_t gfp = GFP_KERNEL | ((r & 1) ? __GFP_ZERO : 0);

		for (nr = 1; nr <= max_pages; nr++) {
			test_list(nr, gfp, pages, sorted);
			test_array(nr, gfp, pages, sorted);
			cond_resched();
		}
	}

	kfree(pages);
	kfree(sorted);
	pr_info("bulk_alloc: %lu pages in %lu calls, %lu short, %d errors\n",
		pages_allocated, calls, retries, errors);
	return 0;
}

static DEFINE_MUTEX(hold_lock);
static struct page **held;
static int nr_held;
static bool hold_account = true;
module_param(hold_account, bool, 0644);
MODULE_PARM_DESC(hold_account, "hold takes its pages with __GFP_ACCOUNT (default Y)");

static void hold_release(void)
{
	int i;

	for (i = 0; i < nr_held; i++)
		__free_page(held[i]);
	kfree(held);
	held = NULL;
	nr_held = 0;
}

static int hold_set(const char *val, const struct kernel_param *kp)
{
	unsigned long got = 0, n;
	int nr, ret;

	ret = kstrtoint(val, 0, &nr);
	if (ret)
		return ret;
	if (nr < 0 || nr > 65536)
		return -EINVAL;
	mutex_lock(&hold_lock);
	hold_release();
	if (!nr)
		goto out;
	held = kcalloc(nr, sizeof(*held), GFP_KERNEL);
	if (!held) {
		ret = -ENOMEM;
		goto out;
	}
	/* As many calls as it takes: each returns at least one more page. */
	while (got < nr) {
		n = alloc_pages_bulk_array(hold_account ?
					   GFP_KERNEL | __GFP_ACCOUNT : GFP_KERNEL,
					   nr, held);
		calls++;
		if (n <= got)
			break;
		got = n;
		cond_resched();
	}
	nr_held = got;
	pages_allocated += got;
	if (got != nr) {
		bulk_error("hold: no progress", nr, got);
		hold_release();
		ret = -ENOMEM;
	}
out:
	mutex_unlock(&hold_lock);
	return ret;
}

static int hold_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%d\n", nr_held);
}

static const struct kernel_param_ops hold_ops = {
	.set = hold_set,
	.get = hold_get,
};
module_param_cb(hold, &hold_ops, NULL, 0644);
MODULE_PARM_DESC(hold, "write N: keep N __GFP_ACCOUNT pages from the bulk allocator (0: free them)");

static void __exit bulk_alloc_exit(void)
{
	mutex_lock(&hold_lock);
	hold_release();
	mutex_unlock(&hold_lock);
}

module_init(bulk_alloc_init);
module_exit(bulk_alloc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Self-test of the bulk page allocator");
