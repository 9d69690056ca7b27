// SPDX-License-Identifier: GPL-2.0
/*
 * bench/page: the page allocator's order-0 fast path (make bench; the
 * module is tools/modules/bench_page.c).
 *
 * Runs in the root memory cgroup (page allocations from a module are not
 * charged).  Prints, after a short warm-up run of each:
 *   mm510-bench: page-single ns_page <ns per alloc_page()+__free_page()>
 *   mm510-bench: page-bulk-<N> ns_page <ns per page, bulk calls of N>
 * and the same with cycles_page.  On a kernel without the bulk allocator
 * (plain 5.10.262) the bulk lines are absent and the report says n/a.
 *
 * Kernel command line: mm510.bench_ops=N pages per run (default 1000000),
 * mm510.bench_sizes=N: only the first N bulk sizes (default all eight).
 * Fails only when the module cannot be loaded or run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mmt.h"

#define MODULE		"bench_page"
#define PARAMS		"/sys/module/" MODULE "/parameters/"

static const unsigned int bulk_sizes[] = { 1, 2, 4, 8, 16, 32, 64, 128 };

/* Start a run: 0, or the errno of the write (EOPNOTSUPP: no bulk). */
static int start_run(void)
{
	int fd = open(PARAMS "run", O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, "1", 1) != 1)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

/* 0 done, 1 not supported by this kernel, -1 error. */
static int run_one(unsigned int bulk, long ops, int report)
{
	unsigned long long n, ns, cyc, loop_ns, loop_cyc;
	char buf[256], name[64];
	int ret;

	if (mmt_module_param(MODULE, "bulk", bulk) ||
	    mmt_module_param(MODULE, "ops", ops))
		return -1;
	ret = start_run();
	if (ret == EOPNOTSUPP)
		return 1;
	if (ret) {
		mmt_log("bulk=%u: run: %s", bulk, strerror(ret));
		return -1;
	}
	if (mmt_read_file(PARAMS "result", buf, sizeof(buf)) < 0)
		return -1;
	if (sscanf(buf, "ops=%llu ns=%llu cycles=%llu loop_ns=%llu loop_cycles=%llu",
		   &n, &ns, &cyc, &loop_ns, &loop_cyc) != 5 || !n) {
		mmt_log("unexpected result: %s", buf);
		return -1;
	}
	if (!report)
		return 0;
	if (bulk)
		snprintf(name, sizeof(name), "page-bulk-%u", bulk);
	else
		snprintf(name, sizeof(name), "page-single");
	mmt_bench(name, "ns_page", ((double)ns - (double)loop_ns) / n, "ns");
	mmt_bench(name, "cycles_page", ((double)cyc - (double)loop_cyc) / n,
		  "cycles");
	return 0;
}

int main(void)
{
	long ops = mmt_cmdline_long("mm510.bench_ops", 1000000);
	long nsizes = mmt_cmdline_long("mm510.bench_sizes", ARRAY_SIZE(bulk_sizes));
	int ret = KSFT_FAIL, r;
	unsigned int i;

	if (mmt_module_load(MODULE, NULL))
		return KSFT_FAIL;
	if (run_one(0, ops / 10 + 1, 0) || run_one(0, ops, 1))
		goto out;
	for (i = 0; i < ARRAY_SIZE(bulk_sizes) && i < nsizes; i++) {
		r = run_one(bulk_sizes[i], ops / 10 + bulk_sizes[i], 0);
		if (r == 1) {
			mmt_log("no bulk allocator in this kernel: bulk n/a");
			break;
		}
		if (r || run_one(bulk_sizes[i], ops, 1))
			goto out;
	}
	ret = KSFT_PASS;
out:
	if (mmt_module_unload(MODULE))
		ret = KSFT_FAIL;
	return ret;
}
