// SPDX-License-Identifier: GPL-2.0
/*
 * The vm sysctls that walk or reset allocator state, hit while tasks on
 * both CPUs allocate and free anonymous memory and tmpfs page cache:
 * vm.numa_stat toggled off and on (which zeroes the NUMA event counters
 * and switches their updates), vm.drop_caches 1, 2 and 3, and
 * vm.compact_memory.  Afterwards:
 *   - the NUMA counters work again: the nodes' numa_hit sum in
 *     numastat agrees with /proc/vmstat's numa_hit and grows when
 *     memory is allocated, and while vm.numa_stat was 0 they stayed
 *     (near) zero,
 *   - the free pages are back within a small tolerance.
 * Counters not reset or not switched back on, per-cpu deltas never
 * folded, or pages lost by compaction or a drain make these fail.
 *
 * Short form (make check): 24 rounds; mm510.stress=long: 500.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmt.h"

#define NR_WORKERS	2
#define CHUNK		(1 << 20)
#define FREE_TOLERANCE	1024		/* pages, 4 MiB */
/* Pages allocated between two reads of the NUMA counters. */
#define NUMA_SLACK	512

static void worker(int id)
{
	char name[64], buf[4096];
	unsigned long n;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(id % 2, &set);
	sched_setaffinity(0, sizeof(set), &set);
	snprintf(name, sizeof(name), "/tmp/knobs-%d", id);
	memset(buf, id, sizeof(buf));
	for (n = 0;; n++) {
		char *p = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int fd, i;

		if (p == MAP_FAILED)
			_exit(1);
		memset(p, (int)n, CHUNK);
		munmap(p, CHUNK);
		fd = open(name, O_CREAT | O_RDWR | O_TRUNC, 0600);
		if (fd < 0)
			_exit(1);
		for (i = 0; i < 64; i++)
			if (write(fd, buf, sizeof(buf)) != sizeof(buf))
				_exit(1);
		close(fd);
		unlink(name);
	}
}

static long long numa_hit_nodes(void)
{
	long long a = mmt_node_numastat(0, "numa_hit");
	long long b = mmt_node_numastat(1, "numa_hit");

	return a < 0 || b < 0 ? -1 : a + b;
}

int main(void)
{
	long nr = mmt_stress_pick(24, 500), i, rounds = 0;
	double budget = mmt_stress_pick(120, 1200), t0;
	long long free0, free1, nodes, vm, off_max = 0, hit0, hit1;
	pid_t pids[NR_WORKERS] = {};
	static const char * const drops[] = { "1", "2", "3" };
	int ret = KSFT_FAIL, w;
	char *p;

	if (access("/proc/sys/vm/numa_stat", W_OK)) {
		mmt_log("/proc/sys/vm/numa_stat: %s (no CONFIG_NUMA?)",
			strerror(errno));
		return KSFT_SKIP;
	}
	mmt_drop_caches();
	free0 = mmt_free_pages();

	for (w = 0; w < NR_WORKERS; w++) {
		pids[w] = fork();
		if (pids[w] < 0)
			goto cleanup;
		if (!pids[w])
			worker(w);
	}
	t0 = mmt_now();
	for (i = 0; i < nr; i++) {
		long long off;

		if (mmt_now() - t0 > budget && i >= 4)
			break;
		if (mmt_write_file("/proc/sys/vm/numa_stat", "0"))
			goto cleanup;
		usleep(10000);
		mmt_write_file("/proc/sys/vm/stat_refresh", "1");
		off = mmt_vmstat("numa_hit");
		if (off > off_max)
			off_max = off;
		if (mmt_write_file("/proc/sys/vm/drop_caches", drops[i % 3]) ||
		    mmt_write_file("/proc/sys/vm/numa_stat", "1") ||
		    mmt_write_file("/proc/sys/vm/compact_memory", "1"))
			goto cleanup;
		rounds++;
	}
	for (w = 0; w < NR_WORKERS; w++) {
		kill(pids[w], SIGKILL);
		waitpid(pids[w], NULL, 0);
		pids[w] = 0;
	}
	mmt_log("%ld rounds of numa_stat 0/1, drop_caches, compact_memory in %.1f s",
		rounds, mmt_now() - t0);
	mmt_log("vmstat numa_hit with numa_stat=0: at most %lld", off_max);
	if (!mmt_check(off_max <= NUMA_SLACK,
		       "numa_hit reached %lld while vm.numa_stat was 0",
		       off_max))
		goto cleanup;

	/* Counting again: the nodes' sum matches the global counter. */
	mmt_write_file("/proc/sys/vm/stat_refresh", "1");
	nodes = numa_hit_nodes();
	vm = mmt_vmstat("numa_hit");
	mmt_log("numa_hit: nodes %lld, vmstat %lld", nodes, vm);
	if (!mmt_check(nodes > 0 && llabs(nodes - vm) <= NUMA_SLACK,
		       "numa_hit: nodes sum %lld, vmstat %lld", nodes, vm))
		goto cleanup;
	hit0 = vm;
	p = mmap(NULL, 8 * CHUNK, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		goto cleanup;
	munmap(p, 8 * CHUNK);
	mmt_write_file("/proc/sys/vm/stat_refresh", "1");
	hit1 = mmt_vmstat("numa_hit");
	mmt_log("numa_hit grew by %lld over an 8 MiB allocation", hit1 - hit0);
	if (!mmt_check(hit1 - hit0 >= 8 * CHUNK / 4096,
		       "numa_hit grew by %lld for %d pages", hit1 - hit0,
		       8 * CHUNK / 4096))
		goto cleanup;

	mmt_drop_caches();
	free1 = mmt_free_pages();
	mmt_log("free pages (buddy + pcp) %lld -> %lld (%+lld)", free0, free1,
		free1 - free0);
	if (mmt_check(free1 >= free0 - FREE_TOLERANCE,
		      "%lld pages missing after the rounds", free0 - free1))
		ret = KSFT_PASS;
cleanup:
	for (w = 0; w < NR_WORKERS; w++) {
		if (pids[w] > 0) {
			kill(pids[w], SIGKILL);
			waitpid(pids[w], NULL, 0);
		}
	}
	mmt_write_file("/proc/sys/vm/numa_stat", "1");
	return ret;
}
