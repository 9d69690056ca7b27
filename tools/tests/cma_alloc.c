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
 *   size, so they came from the CMA area, not from a fallback;
 * - once they are given back, CmaFree plus the pages on the per-cpu
 *   lists (where freed CMA pages wait on the movable list) is back at
 *   its start, and pgfree grew by at least the pages freed;
 * - the module found every range contiguous, zeroed and unchanged.
 * At the end the free pages (zones and per-cpu lists) are back within
 * FREE_SLACK.  A CMA page lost on the way back, a range handed out twice
 * or a free that pgfree does not count fails the test.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mmt.h"

#define MODULE		"cma_alloc"
#define RANGE_PAGES	64
#define HOLD		8
#define FREE_SLACK	512

static long long read_param(const char *name)
{
	char path[128], buf[32];

	mmt_module_param_path(path, sizeof(path), MODULE, name);
	if (mmt_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

/* CmaFree in pages, after the per-cpu counter deltas were folded. */
static long long cma_free(void)
{
	long long kb;

	if (mmt_write_file("/proc/sys/vm/stat_refresh", "1"))
		return -1;
	kb = mmt_meminfo("CmaFree");
	return kb < 0 ? -1 : kb / 4;
}

int main(void)
{
	long long cma_start, cma_now, pcp, free_start, pgfree0;
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
	if (free_start < 0 || cma_start < 0)
		return KSFT_FAIL;
	mmt_log("CmaTotal %lld kB, CmaFree %lld pages", mmt_meminfo("CmaTotal"),
		cma_start);
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
		if (!mmt_check(read_param("hold") == HOLD,
			       "round %d: module holds %lld ranges", i,
			       read_param("hold")) ||
		    !mmt_check(cma_now >= 0 && cma_start - cma_now >= held,
			       "round %d: CmaFree dropped by %lld pages for %lld taken",
			       i, cma_start - cma_now, held))
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
	if (!mmt_check(read_param("errors") == 0,
		       "the module reported %lld failed checks",
		       read_param("errors")))
		goto out;
	mmt_log("%d rounds of %d ranges of %d pages", rounds, HOLD, RANGE_PAGES);

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
