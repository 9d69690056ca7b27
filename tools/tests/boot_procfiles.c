// SPDX-License-Identifier: GPL-2.0
/*
 * The files the mm tests read are there and agree with each other:
 * /proc/vmstat's nr_free_pages equals the sum of the zones' nr_free_pages
 * in /proc/zoneinfo (both read the same zone counters, within the drift
 * of pages allocated between the two reads), /proc/zoneinfo lists zones
 * of both nodes, and /proc/slabinfo is readable and lists kmalloc caches.
 */
#include <stdlib.h>

#include "mmt.h"

int main(void)
{
	long long vm_free, zone_free, drift;
	long active, total;

	vm_free = mmt_vmstat("nr_free_pages");
	zone_free = mmt_zoneinfo_sum("nr_free_pages");
	mmt_log("nr_free_pages: vmstat %lld, zoneinfo sum %lld", vm_free,
		zone_free);
	if (!mmt_check(vm_free > 0 && zone_free > 0,
		       "nr_free_pages missing from /proc/vmstat or /proc/zoneinfo"))
		return KSFT_FAIL;
	drift = llabs(vm_free - zone_free);
	/* Nothing else runs; a few pages move between the two reads. */
	if (!mmt_check(drift < 1024, "vmstat and zoneinfo differ by %lld pages",
		       drift))
		return KSFT_FAIL;

	if (!mmt_check(mmt_file_contains("/proc/zoneinfo", "Node 0, zone") == 1 &&
		       mmt_file_contains("/proc/zoneinfo", "Node 1, zone") == 1,
		       "/proc/zoneinfo does not list zones of both nodes"))
		return KSFT_FAIL;

	if (!mmt_have_slabinfo())
		return KSFT_PASS;
	if (!mmt_check(mmt_file_contains("/proc/slabinfo",
					 "slabinfo - version: 2.1") == 1,
		       "/proc/slabinfo unreadable or of another format"))
		return KSFT_FAIL;
	/* kmalloc-128: on every arch (arm64 has no smaller kmalloc cache). */
	if (!mmt_check(!mmt_slabinfo("kmalloc-128", &active, &total) &&
		       active > 0 && total >= active,
		       "kmalloc-128 missing or empty in /proc/slabinfo"))
		return KSFT_FAIL;
	mmt_log("kmalloc-128: %ld active of %ld objects", active, total);
	return KSFT_PASS;
}
