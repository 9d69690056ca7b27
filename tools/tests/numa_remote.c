// SPDX-License-Identifier: GPL-2.0
/*
 * numa_remote: remote and fallback allocations move the per-node NUMA
 * counters of both nodes, and /proc/zoneinfo agrees with numastat.
 *
 * Runs on a CPU of node L (the first node with a CPU) and allocates from
 * another node R with memory, through raw set_mempolicy(2) calls:
 *
 * 1. MPOL_BIND to R: the allocator's preferred zone is the first zone of
 *    the nodemask, so each faulted page is a numa_hit and an other_node
 *    event of R (other_node: the CPU is not on R).  R's numastat must
 *    grow by at least the pages faulted, and so must R's numa_* lines in
 *    /proc/zoneinfo when zoneinfo is read first, before any reader of
 *    numastat or /proc/vmstat has folded the per-cpu counters.
 * 2. Local policy until L is below its low watermark: the pages that then
 *    land on R (found with get_mempolicy(MPOL_F_NODE | MPOL_F_ADDR)) were
 *    wanted on L, so they are numa_miss and other_node events of R and
 *    numa_foreign events of L.  Each counter must grow by at least that
 *    many pages.  This step fills L's free memory and is skipped (not
 *    failed) when no page reaches R within L's free memory plus a margin.
 * 3. Per node, the sum of the numa_* lines of its zones in /proc/zoneinfo
 *    equals numastat, read right after it (within a small slack for the
 *    runner's own allocations).
 *
 * What breaks it: per-cpu NUMA counters that a read of /proc/zoneinfo
 * does not fold (the stack without "vmstat: call
 * fold_vm_zone_numa_events() before show per zone NUMA event": step 1's
 * zoneinfo check sees no growth), numastat that does not fold first,
 * NUMA events counted on the wrong zone, node or counter, or allocations
 * that stop being counted.  With one node the test skips.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mmt.h"

#define MPOL_F_NODE	(1 << 0)
#define MPOL_F_ADDR	(1 << 1)

#define NR_BIND		4096	/* pages faulted under MPOL_BIND */
#define NR_MISS		2048	/* fallback pages wanted in step 2 */
#define MARGIN		16384	/* pages faulted past L's MemFree */
#define SLACK		512	/* events between two reads of a node */

/* The same counters under their numastat and their zoneinfo names. */
static const char * const keys[][2] = {
	{ "numa_hit", "numa_hit" },
	{ "numa_miss", "numa_miss" },
	{ "numa_foreign", "numa_foreign" },
	{ "interleave_hit", "numa_interleave" },
	{ "local_node", "numa_local" },
	{ "other_node", "numa_other" },
};

static long page_size;

/* Node of the page at @addr, or -1. */
static int page_node(void *addr)
{
	int node = -1;

	if (syscall(SYS_get_mempolicy, &node, NULL, 0, addr,
		    MPOL_F_NODE | MPOL_F_ADDR))
		return -1;
	return node;
}

/* Fault @n pages of a fresh mapping; *@buf gets it.  0 or -1. */
static int fault_pages(char **buf, long n)
{
	*buf = mmt_map_touched(n * page_size, -1);
	return *buf ? 0 : -1;
}

static int step_bind(int remote)
{
	long long z0, z1, hit0, hit1, oth0, oth1;
	int ret = KSFT_FAIL;
	char *buf = NULL;

	/* Fold everything, then take zoneinfo's starting point. */
	if (mmt_node_numastat(remote, "numa_hit") < 0)
		return KSFT_FAIL;
	z0 = mmt_zoneinfo_node_sum(remote, "numa_hit");
	if (z0 < 0)
		return KSFT_FAIL;
	hit0 = mmt_node_numastat(remote, "numa_hit");
	oth0 = mmt_node_numastat(remote, "other_node");

	if (mmt_set_mempolicy(MMT_MPOL_BIND, remote)) {
		mmt_log("set_mempolicy(MPOL_BIND, node %d): %s", remote,
			strerror(errno));
		return KSFT_FAIL;
	}
	if (fault_pages(&buf, NR_BIND))
		goto out;
	if (mmt_set_mempolicy(MMT_MPOL_DEFAULT, -1)) {
		mmt_log("set_mempolicy(MPOL_DEFAULT): %s", strerror(errno));
		goto out;
	}
	if (!mmt_check(page_node(buf) == remote,
		       "bound page is on node %d, not %d", page_node(buf),
		       remote))
		goto out;

	/* zoneinfo first: nothing has folded the per-cpu counters yet. */
	z1 = mmt_zoneinfo_node_sum(remote, "numa_hit");
	hit1 = mmt_node_numastat(remote, "numa_hit");
	oth1 = mmt_node_numastat(remote, "other_node");
	mmt_log("bind to node %d, %d pages: numastat numa_hit +%lld other_node +%lld, zoneinfo numa_hit +%lld",
		remote, NR_BIND, hit1 - hit0, oth1 - oth0, z1 - z0);

	if (!mmt_check(hit1 - hit0 >= NR_BIND,
		       "node %d numa_hit grew by %lld, less than %d", remote,
		       hit1 - hit0, NR_BIND) ||
	    !mmt_check(oth1 - oth0 >= NR_BIND,
		       "node %d other_node grew by %lld, less than %d", remote,
		       oth1 - oth0, NR_BIND) ||
	    !mmt_check(z1 - z0 >= NR_BIND,
		       "zoneinfo numa_hit of node %d grew by %lld, less than %d: per-cpu counters not folded",
		       remote, z1 - z0, NR_BIND))
		goto out;
	ret = KSFT_PASS;
out:
	mmt_set_mempolicy(MMT_MPOL_DEFAULT, -1);
	if (buf && buf != MAP_FAILED)
		munmap(buf, NR_BIND * page_size);
	return ret;
}

static int step_fallback(int local, int remote)
{
	long long miss0, oth0, for0, miss1, oth1, for1;
	long long free_kb = mmt_node_meminfo(local, "MemFree");
	long n, i, spilled = 0;
	int ret = KSFT_FAIL;
	size_t len;
	char *buf;

	if (free_kb <= 0)
		return KSFT_FAIL;
	n = free_kb / (page_size / 1024) + MARGIN;
	len = n * page_size;
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (buf == MAP_FAILED) {
		mmt_log("mmap of %ld pages: %s", n, strerror(errno));
		return KSFT_FAIL;
	}
	madvise(buf, len, MADV_NOHUGEPAGE);

	miss0 = mmt_node_numastat(remote, "numa_miss");
	oth0 = mmt_node_numastat(remote, "other_node");
	for0 = mmt_node_numastat(local, "numa_foreign");

	/* Local policy: fill node @local until pages go to @remote. */
	for (i = 0; i < n && spilled < NR_MISS; i++) {
		buf[i * page_size] = 1;
		if (page_node(buf + i * page_size) == remote)
			spilled++;
	}

	miss1 = mmt_node_numastat(remote, "numa_miss");
	oth1 = mmt_node_numastat(remote, "other_node");
	for1 = mmt_node_numastat(local, "numa_foreign");
	mmt_log("%ld pages faulted on node %d's CPU, %ld on node %d: numa_miss +%lld other_node +%lld there, numa_foreign +%lld on node %d",
		i, local, spilled, remote, miss1 - miss0, oth1 - oth0,
		for1 - for0, local);

	if (spilled < NR_MISS) {
		mmt_log("only %ld pages fell back to node %d: step skipped",
			spilled, remote);
		ret = KSFT_SKIP;
		goto out;
	}
	if (!mmt_check(miss1 - miss0 >= spilled,
		       "node %d numa_miss grew by %lld, less than %ld", remote,
		       miss1 - miss0, spilled) ||
	    !mmt_check(oth1 - oth0 >= spilled,
		       "node %d other_node grew by %lld, less than %ld", remote,
		       oth1 - oth0, spilled) ||
	    !mmt_check(for1 - for0 >= spilled,
		       "node %d numa_foreign grew by %lld, less than %ld", local,
		       for1 - for0, spilled))
		goto out;
	ret = KSFT_PASS;
out:
	munmap(buf, len);
	return ret;
}

/* numastat and zoneinfo of every online node agree. */
static int step_agree(int nr_nodes)
{
	int nid, k, bad = 0;

	for (nid = 0; nid < nr_nodes; nid++) {
		for (k = 0; k < (int)ARRAY_SIZE(keys); k++) {
			long long z, s;

			if (mmt_node_numastat(nid, keys[k][0]) < 0)
				continue;	/* node not online */
			z = mmt_zoneinfo_node_sum(nid, keys[k][1]);
			s = mmt_node_numastat(nid, keys[k][0]);
			if (z < 0 || s < z || s - z > SLACK) {
				mmt_log("node %d %s: zoneinfo %lld, numastat %lld",
					nid, keys[k][0], z, s);
				bad++;
			}
		}
	}
	return mmt_check(!bad, "%d counters disagree", bad) ? KSFT_PASS :
							      KSFT_FAIL;
}

int main(void)
{
	int nr_nodes = mmt_nr_possible_nodes();
	int local, remote, cpu, r1, r2, r3;

	page_size = sysconf(_SC_PAGESIZE);
	if (mmt_node_pair(&local, &cpu, &remote))
		return KSFT_SKIP;
	if (nr_nodes > MMT_MAX_NODES)
		nr_nodes = MMT_MAX_NODES;
	mmt_log("running on CPU %d of node %d, remote node %d", cpu, local,
		remote);

	if (mmt_pin_cpu(cpu))
		return KSFT_FAIL;

	r1 = step_bind(remote);
	r2 = step_fallback(local, remote);
	r3 = step_agree(nr_nodes);
	if (r1 == KSFT_FAIL || r2 == KSFT_FAIL || r3 == KSFT_FAIL)
		return KSFT_FAIL;
	return KSFT_PASS;
}
