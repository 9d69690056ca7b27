// SPDX-License-Identifier: GPL-2.0
/*
 * cma_alloc: take and give back ranges of the CMA area the way a driver
 * does, through the DMA API, so that tools/tests/cma_alloc.c can watch
 * CmaFree, MemFree and pgfree around it.
 *
 * 5.10 exports neither cma_alloc() nor the default CMA area, but
 * dma_alloc_coherent() of more than a page on a device without an IOMMU
 * goes to dma_alloc_contiguous(), which takes the range from the default
 * area (cma=) with alloc_contig_range(); freeing goes back through
 * cma_release() and free_contig_range().
 *
 *   /sys/module/cma_alloc/parameters/range_pages  pages per range (64)
 *   /sys/module/cma_alloc/parameters/hold   write N: allocate N ranges and
 *                     keep them (0: free all); read: ranges held
 *   /sys/module/cma_alloc/parameters/errors  failed checks so far
 *   /sys/module/cma_alloc/parameters/pfn_lo, pfn_hi  the lowest PFN of
 *                     the ranges taken since loading, and one past the
 *                     highest (0 and 0 before the first)
 *
 * Each range is checked when it is taken (physically contiguous, zeroed
 * as dma_alloc_coherent() promises) and stamped; the stamp is checked
 * again before it is freed.
 */
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pfn.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#define CMA_ALLOC_MAX	64

struct cma_range {
	void *cpu;
	dma_addr_t dma;
};

static DEFINE_MUTEX(ca_lock);
static struct platform_device *ca_pdev;
static struct cma_range ca_ranges[CMA_ALLOC_MAX];
static int ca_held;
static unsigned int range_pages = 64;
static int errors;
static unsigned long pfn_lo, pfn_hi;

static size_t ca_size(void)
{
	return (size_t)range_pages << PAGE_SHIFT;
}

static void ca_error(const char *what, int i)
{
	errors++;
	pr_err("cma_alloc: range %d: %s\n", i, what);
}

static void ca_stamp(struct cma_range *r)
{
	unsigned long *p = r->cpu;

	p[0] = (unsigned long)r->dma;
	p[ca_size() / sizeof(*p) - 1] = ~(unsigned long)r->dma;
}

static void ca_free_all(void)
{
	int i;

	for (i = 0; i < ca_held; i++) {
		struct cma_range *r = &ca_ranges[i];
		unsigned long *p = r->cpu;

		if (p[0] != (unsigned long)r->dma ||
		    p[ca_size() / sizeof(*p) - 1] != ~(unsigned long)r->dma)
			ca_error("contents changed while held", i);
		dma_free_coherent(&ca_pdev->dev, ca_size(), r->cpu, r->dma);
	}
	ca_held = 0;
}

/*
 * The physical address behind a CPU address of dma_alloc_coherent():
 * the linear map's on x86, where the device is DMA-coherent; a vmap of
 * the pages on arm64, where a device without "dma-coherent" gets the
 * range remapped uncached (dma-direct's DMA_DIRECT_REMAP).
 */
static phys_addr_t ca_phys(void *cpu)
{
	if (is_vmalloc_addr(cpu))
		return page_to_phys(vmalloc_to_page(cpu)) + offset_in_page(cpu);
	return virt_to_phys(cpu);
}

static int ca_take(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct cma_range *r = &ca_ranges[ca_held];

		r->cpu = dma_alloc_coherent(&ca_pdev->dev, ca_size(), &r->dma,
					    GFP_KERNEL);
		if (!r->cpu) {
			ca_error("dma_alloc_coherent() failed", ca_held);
			return -ENOMEM;
		}
		/* Direct mapping: the bus address is the physical one. */
		if (ca_phys(r->cpu) != r->dma)
			ca_error("not physically contiguous as mapped", ca_held);
		if (memchr_inv(r->cpu, 0, ca_size()))
			ca_error("not zeroed", ca_held);
		ca_stamp(r);
		if (!pfn_hi || PHYS_PFN(r->dma) < pfn_lo)
			pfn_lo = PHYS_PFN(r->dma);
		if (PHYS_PFN(r->dma) + range_pages > pfn_hi)
			pfn_hi = PHYS_PFN(r->dma) + range_pages;
		ca_held++;
	}
	return 0;
}

static int ca_hold_set(const char *val, const struct kernel_param *kp)
{
	int n, ret;

	ret = kstrtoint(val, 0, &n);
	if (ret)
		return ret;
	if (n < 0 || n > CMA_ALLOC_MAX)
		return -EINVAL;
	mutex_lock(&ca_lock);
	ca_free_all();
	ret = ca_take(n);
	if (ret)
		ca_free_all();
	mutex_unlock(&ca_lock);
	return ret;
}

static int ca_hold_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%d\n", ca_held);
}

static const struct kernel_param_ops ca_hold_ops = {
	.set = ca_hold_set,
	.get = ca_hold_get,
};

static int ca_pages_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (n < 2 || n > 4096)
		return -EINVAL;
	mutex_lock(&ca_lock);
	if (ca_held)
		ret = -EBUSY;
	else
		range_pages = n;
	mutex_unlock(&ca_lock);
	return ret;
}

static const struct kernel_param_ops ca_pages_ops = {
	.set = ca_pages_set,
	.get = param_get_uint,
};

module_param_cb(range_pages, &ca_pages_ops, &range_pages, 0644);
MODULE_PARM_DESC(range_pages, "pages per range, 2..4096 (default 64)");
module_param_cb(hold, &ca_hold_ops, NULL, 0644);
MODULE_PARM_DESC(hold, "write N: take N ranges and keep them; read: held");
module_param(errors, int, 0444);
MODULE_PARM_DESC(errors, "failed checks, 0 when everything was right");
module_param(pfn_lo, ulong, 0444);
MODULE_PARM_DESC(pfn_lo, "lowest PFN of the ranges taken so far");
module_param(pfn_hi, ulong, 0444);
MODULE_PARM_DESC(pfn_hi, "one past the highest PFN of the ranges taken");

static int __init cma_alloc_init(void)
{
	int ret;

	ca_pdev = platform_device_register_simple("mm510_cma_alloc", -1,
						  NULL, 0);
	if (IS_ERR(ca_pdev))
		return PTR_ERR(ca_pdev);
	ret = dma_coerce_mask_and_coherent(&ca_pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		platform_device_unregister(ca_pdev);
	return ret;
}

static void __exit cma_alloc_exit(void)
{
	mutex_lock(&ca_lock);
	ca_free_all();
	mutex_unlock(&ca_lock);
	platform_device_unregister(ca_pdev);
}

module_init(cma_alloc_init);
module_exit(cma_alloc_exit);
MODULE_DESCRIPTION("mm510: CMA ranges through the DMA API, held on request");
MODULE_LICENSE("GPL");
