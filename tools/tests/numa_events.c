// SPDX-License-Identifier: GPL-2.0
/*
 * numa_events: the NUMA allocation counters in /proc/vmstat are current
 * the moment they are read.
 *
 * Since "mm/vmstat: convert NUMA statistics to basic NUMA counters" the
 * numa_* counters are per-cpu events that a reader of /proc/vmstat
 * folds first.  Fault in a known number of anonymous pages on one CPU
 * and read /proc/vmstat straight away: numa_hit and numa_local must have
 * grown by at least that many pages.  On a kernel that leaves per-cpu
 * NUMA deltas unfolded until the next vmstat update (5.10 keeps up to
 * 65533 per CPU and zone), or that stops counting bulk or pcp
 * allocations, the counters lag and the test fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mmt.h"

#define NR_PAGES	4096

int main(void)
{
	long long hit0, local0, hit1, local1;
	long page_size = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)NR_PAGES * page_size;
	int ret = KSFT_FAIL;
	cpu_set_t set;
	char *buf;
	long i;

	if (mmt_vmstat("numa_hit") < 0) {
		mmt_log("no numa_hit in /proc/vmstat: kernel built without NUMA");
		return KSFT_SKIP;
	}

	/* Stay on one CPU so every fault is local to the same node. */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		mmt_log("sched_setaffinity: %s", strerror(errno));
		return KSFT_FAIL;
	}

	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		mmt_log("mmap: %s", strerror(errno));
		return KSFT_FAIL;
	}
	/* One counted allocation per page: no THP for this range. */
	madvise(buf, len, MADV_NOHUGEPAGE);

	hit0 = mmt_vmstat("numa_hit");
	local0 = mmt_vmstat("numa_local");
	for (i = 0; i < NR_PAGES; i++)
		buf[i * page_size] = 1;
	hit1 = mmt_vmstat("numa_hit");
	local1 = mmt_vmstat("numa_local");

	mmt_log("%d pages faulted: numa_hit +%lld, numa_local +%lld",
		NR_PAGES, hit1 - hit0, local1 - local0);
	if (!mmt_check(hit1 - hit0 >= NR_PAGES,
		       "numa_hit grew by %lld, less than %d pages",
		       hit1 - hit0, NR_PAGES))
		goto cleanup;
	if (!mmt_check(local1 - local0 >= NR_PAGES,
		       "numa_local grew by %lld, less than %d pages",
		       local1 - local0, NR_PAGES))
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	munmap(buf, len);
	return ret;
}
