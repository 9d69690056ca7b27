// SPDX-License-Identifier: GPL-2.0
/*
 * cma_alloc: ranges taken from the CMA area and given back leave CmaFree,
 * MemFree and pgfree as a user would add them up.
 *
 * Runs where the kernel has a CMA area (the cma scenario, cma=32M); skips
 * elsewhere.  tools/modules/cma_alloc.ko takes HOLD ranges of 64 pages
 * through dma_alloc_coherent() (alloc_contig_range() underneath, with the
 * pageblock isolation and pcp drain that 0106 moved into it) and gives
 * them back, ROUNDS times (200 in the long form).  In every round:
 * - while the ranges are held, CmaFree has dropped by at least their
 *   size, so they came from the CMA area, not from a fallback; less the
 *   pages on the per-cpu lists at the start, some of which may be CMA
 *   pages, which CmaFree does not count until alloc_contig_range()
 *   drains them back (Android's common kernel keeps a per-cpu list of
 *   CMA pages and fills movable requests from it first: in the android
 *   scenario CmaFree dropped by 481 pages for the 512 taken on plain
 *   ACK, by 495 and 499 with the android flavour, and this check failed
 *   on both before it allowed for them);
 * - once they are given back, CmaFree plus the pages on the per-cpu
 *   lists (where freed CMA pages wait on the movable list) is back at
 *   its start, and pgfree grew by at least the pages freed;
 * - the module found every range contiguous, zeroed and unchanged.
 * Then CMA pages freed as a page list (0134): on a CPU C of the CMA
 * area's node, the ranges are taken and given back, so that the last of
 * their pages wait on C's movable per-cpu list; a mapping faulted on C
 * takes them from there (pagemap shows which of its pages lie in the
 * ranges); munmap() frees them again with free_unref_page_list(); taking
 * C offline drains its lists.  Every CMA page must then be free as a CMA
 * page again: CmaFree back at its start within LIST_SLACK.
 * At the end the free pages (zones and per-cpu lists) are back within
 * FREE_SLACK.  A CMA page lost on the way back, a range handed out twice
 * or a free that pgfree does not count fails the test.
 *
 * Checked once without 0134 ("mm/page_alloc: don't corrupt
 * pcppage_migratetype", reverted on top of the stack): 171 of the
 * mapping's pages came from the ranges, and after CPU 1 went offline
 * CmaFree was 8021 pages instead of 8192: those 171 pages went back to
 * the movable free list, and the test failed.  With 0134, CmaFree was
 * 8192 again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mmt.h"

#define MODULE		"cma_alloc"
#define RANGE_PAGES	64
#define HOLD		8
#define FREE_SLACK	512
#define LIST_SLACK	8	/* CMA pages the rest of the system may hold */
#define LIST_MIN	16	/* CMA pages the mapping must get for the step */

/* CmaFree in pages, after the per-cpu counter deltas were folded. */
static long long cma_free(void)
{
	long long kb;

	if (mmt_write_file("/proc/sys/vm/stat_refresh", "1"))
		return -1;
	kb = mmt_meminfo("CmaFree");
	return kb < 0 ? -1 : kb / 4;
}

/* The node whose zones hold the CMA area, or -1. */
static int cma_node(void)
{
	int nid, n = mmt_nr_possible_nodes();

	for (nid = 0; nid < n && nid < MMT_MAX_NODES; nid++)
		if (mmt_zoneinfo_node_sum(nid, "nr_free_cma") > 0)
			return nid;
	return -1;
}

/*
 * The page-list step (see the top): KSFT_PASS, KSFT_FAIL, or KSFT_SKIP
 * when the CMA area's node has no CPU that can go offline.
 */
static int list_free_step(long long cma_start)
{
	long page = sysconf(_SC_PAGESIZE);
	long long held = (long long)HOLD * RANGE_PAGES, cma_now, lo, hi;
	size_t len = held * page;
	int node = cma_node(), cpu, offline = 0, ret = KSFT_FAIL;
	char path[80], *p = NULL;
	long in_cma;

	cpu = node < 0 ? -1 : mmt_node_first_cpu(node);
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	if (cpu < 0 || mmt_nr_online_cpus() < 2 || access(path, W_OK)) {
		mmt_log("SKIP page-list step: node %d of the CMA area has no CPU that can go offline",
			node);
		return KSFT_SKIP;
	}
	if (mmt_pin_cpu(cpu))
		goto out;
	/* The ranges' pages go to CPU cpu's movable list, the last on top. */
	if (mmt_module_param(MODULE, "hold", HOLD) ||
	    mmt_module_param(MODULE, "hold", 0))
		goto out;
	p = mmt_map_touched(len, node);
	if (!p)
		goto out;
	lo = mmt_module_param_read(MODULE, "pfn_lo");
	hi = mmt_module_param_read(MODULE, "pfn_hi");
	in_cma = (lo < 0 || hi <= lo) ? -1 :
		 mmt_pages_in_pfns(p, len, lo, hi, NULL);
	mmt_log("page-list step on CPU %d, node %d: %ld of %lld faulted pages from the ranges",
		cpu, node, in_cma, held);
	if (!mmt_check(in_cma >= LIST_MIN,
		       "the mapping got %ld pages of the ranges, fewer than %d",
		       in_cma, LIST_MIN))
		goto out;
	if (munmap(p, len)) {
		mmt_log("munmap: %s", strerror(errno));
		goto out;
	}
	p = NULL;
	if (mmt_unpin() || mmt_cpu_set_online(cpu, 0))
		goto out;
	offline = 1;
	cma_now = cma_free();
	mmt_log("CPU %d offline: CmaFree %lld pages, %lld at the start",
		cpu, cma_now, cma_start);
	if (mmt_check(cma_now >= 0 && cma_start - cma_now <= LIST_SLACK,
		      "%lld CMA pages are not free as CMA pages after CPU %d's lists were drained",
		      cma_start - cma_now, cpu))
		ret = KSFT_PASS;
out:
	if (p)
		munmap(p, len);
	if (offline && mmt_cpu_set_online(cpu, 1))
		ret = KSFT_FAIL;
	mmt_unpin();
	return ret;
}

int main(void)
{
	long long cma_start, cma_now, pcp, pcp_start, free_start, pgfree0;
	long long held = (long long)HOLD * RANGE_PAGES;
	int rounds = mmt_stress_pick(20, 200), i, loaded = 0;
	int ret = KSFT_FAIL;
	char params[64];

	if (mmt_meminfo("CmaTotal") <= 0) {
		mmt_log("SKIP: no CMA area (boot with cma=, the cma scenario)");
		return KSFT_SKIP;
	}
	mmt_drop_caches();
	free_start = mmt_free_pages();
	cma_start = cma_free();
	pcp_start = mmt_zoneinfo_sum("count:");
	if (free_start < 0 || cma_start < 0 || pcp_start < 0)
		return KSFT_FAIL;
	mmt_log("CmaTotal %lld kB, CmaFree %lld pages, %lld pages on per-cpu lists",
		mmt_meminfo("CmaTotal"), cma_start, pcp_start);
	if (!mmt_check(cma_start >= 2 * held,
		       "CmaFree %lld pages: too small for %lld", cma_start, held))
		return KSFT_FAIL;

	snprintf(params, sizeof(params), "range_pages=%d", RANGE_PAGES);
	if (mmt_module_load(MODULE, params))
		return KSFT_FAIL;
	loaded = 1;

	for (i = 0; i < rounds; i++) {
		if (mmt_module_param(MODULE, "hold", HOLD))
			goto out;
		cma_now = cma_free();
		if (!mmt_check(mmt_module_param_read(MODULE, "hold") == HOLD,
			       "round %d: module holds %lld ranges", i,
			       mmt_module_param_read(MODULE, "hold")) ||
		    !mmt_check(cma_now >= 0 && cma_start + pcp_start - cma_now >= held,
			       "round %d: CmaFree dropped by %lld pages for %lld taken (%lld were on per-cpu lists)",
			       i, cma_start - cma_now, held, pcp_start))
			goto out;

		pgfree0 = mmt_vmstat("pgfree");
		if (mmt_module_param(MODULE, "hold", 0))
			goto out;
		if (!mmt_check(mmt_vmstat("pgfree") - pgfree0 >= held,
			       "round %d: pgfree grew by %lld for %lld pages freed",
			       i, mmt_vmstat("pgfree") - pgfree0, held))
			goto out;
		cma_now = cma_free();
		pcp = mmt_zoneinfo_sum("count:");
		if (!mmt_check(cma_now >= 0 && pcp >= 0 &&
			       cma_now + pcp >= cma_start,
			       "round %d: CmaFree %lld + %lld on per-cpu lists, was %lld",
			       i, cma_now, pcp, cma_start))
			goto out;
	}
	if (!mmt_check(mmt_module_param_read(MODULE, "errors") == 0,
		       "the module reported %lld failed checks",
		       mmt_module_param_read(MODULE, "errors")))
		goto out;
	mmt_log("%d rounds of %d ranges of %d pages", rounds, HOLD, RANGE_PAGES);
	if (list_free_step(cma_start) == KSFT_FAIL)
		goto out;

	if (mmt_module_unload(MODULE))
		goto out;
	loaded = 0;
	if (!mmt_free_pages_back(free_start, FREE_SLACK))
		goto out;
	ret = KSFT_PASS;
out:
	if (loaded)
		mmt_module_unload(MODULE);
	return ret;
}
