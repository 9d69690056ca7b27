// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug under allocation: CPU 1 goes offline and online in a loop
 * while tasks on both CPUs allocate and free pages (anonymous memory,
 * faulted in and unmapped, so every page goes through the per-cpu page
 * lists).  A CPU that dies must hand its per-cpu pages back to the zones
 * (page_alloc_cpu_dead), and one that comes back must start with usable
 * lists.  Checked with the workers stopped, once with CPU 1 offline and
 * once with it online again: the free pages (zones plus the per-cpu
 * lists of the online CPUs) are back to the starting level within a
 * small tolerance.  Pages left on the dead CPU's list, or counters not
 * folded when it died, show up as pages missing with CPU 1 offline that
 * come back when it is online again.
 *
 * Short form (make check): 16 offline/online cycles; mm510.stress=long:
 * 300.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmt.h"

#define CPU		1
#define NR_WORKERS	4
#define CHUNK		(1 << 20)
/*
 * Pages: slab and page-table pages that the workers' exit leaves cached.
 * Smaller than one CPU's per-cpu lists at their high mark, so a whole
 * stranded list does not fit in it.
 */
#define FREE_TOLERANCE	128
/*
 * On a KASAN kernel every cycle records new stack traces in the stack
 * depot, which never gives its pages back: about 8 pages a cycle were
 * seen on the debug scenario, none on the default one.
 */
#define KASAN_PER_CYCLE	16
/*
 * A list stranded on the dead CPU comes back into the count when the
 * CPU comes back: free pages with CPU 1 online again may exceed those
 * with it offline by no more than a little drift.
 */
#define STRAND_SLACK	64

/* Allocate and free until killed, alternating between the two CPUs. */
static void worker(int id)
{
	unsigned long n;
	cpu_set_t set;

	for (n = 0;; n++) {
		char *p;

		CPU_ZERO(&set);
		CPU_SET((id + n) % 2, &set);
		/* EINVAL while CPU 1 is offline: stay where we are. */
		sched_setaffinity(0, sizeof(set), &set);
		p = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(1);
		memset(p, (int)n, CHUNK);
		munmap(p, CHUNK);
	}
}

static int start_workers(pid_t *pids)
{
	int i;

	for (i = 0; i < NR_WORKERS; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			mmt_log("fork: %s", strerror(errno));
			return -1;
		}
		if (!pids[i])
			worker(i);
	}
	return 0;
}

static void stop_workers(pid_t *pids)
{
	int i;

	for (i = 0; i < NR_WORKERS; i++) {
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
		}
		pids[i] = 0;
	}
}

static int kernel_has_kasan(void)
{
	return mmt_kallsyms_has_text("kasan_report");
}

/* Free pages after the caches were dropped, the workers being stopped. */
static long long settled_free(void)
{
	mmt_drop_caches();
	return mmt_free_pages();
}

int main(void)
{
	long nr = mmt_stress_pick(16, 300), i, cycles = 0;
	double budget = mmt_stress_pick(120, 1200), t0;
	long long free0, free_off, free_on, tolerance;
	pid_t pids[NR_WORKERS] = {};
	char path[80];
	int ret = KSFT_FAIL;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 CPU);
	if (access(path, W_OK)) {
		mmt_log("%s: %s: CPU %d cannot be hot-unplugged", path,
			strerror(errno), CPU);
		return KSFT_SKIP;
	}
	if (!mmt_check(mmt_nr_online_cpus() >= 2, "CPU %d is not online", CPU))
		return KSFT_FAIL;

	/*
	 * A first round, with two offline/online cycles, fills the slab
	 * caches and creates the kworkers that hotplug needs, and on a KASAN
	 * kernel records its stack traces in the stack depot, which keeps
	 * its pages for good.
	 */
	if (start_workers(pids))
		goto cleanup;
	for (i = 0; i < 2; i++)
		if (mmt_cpu_set_online(CPU, 0) || mmt_cpu_set_online(CPU, 1))
			goto cleanup;
	usleep(200000);
	stop_workers(pids);
	free0 = settled_free();

	if (start_workers(pids))
		goto cleanup;
	t0 = mmt_now();
	for (i = 0; i < nr; i++) {
		if (mmt_now() - t0 > budget && i >= 4)
			break;
		if (mmt_cpu_set_online(CPU, 0))
			goto cleanup;
		usleep(20000);
		if (mmt_cpu_set_online(CPU, 1))
			goto cleanup;
		usleep(20000);
		cycles++;
	}
	/* The last state checked: CPU 1 offline, then online again. */
	if (mmt_cpu_set_online(CPU, 0))
		goto cleanup;
	usleep(50000);
	stop_workers(pids);
	mmt_log("%ld offline/online cycles of CPU %d in %.1f s, %d workers",
		cycles, CPU, mmt_now() - t0, NR_WORKERS);

	free_off = settled_free();
	if (mmt_cpu_set_online(CPU, 1))
		goto cleanup;
	free_on = settled_free();
	mmt_log("free pages (buddy + online pcp): start %lld, CPU %d offline %lld (%+lld), online %lld (%+lld)",
		free0, CPU, free_off, free_off - free0, free_on,
		free_on - free0);

	tolerance = FREE_TOLERANCE;
	if (kernel_has_kasan()) {
		tolerance += KASAN_PER_CYCLE * (cycles + 3);
		mmt_log("KASAN kernel: %lld pages of tolerance for its stack depot",
			tolerance);
	}
	if (mmt_check(free_on - free_off <= STRAND_SLACK,
		      "%lld pages came back with CPU %d: stranded while it was offline",
		      free_on - free_off, CPU) &&
	    mmt_check(free_off >= free0 - tolerance,
		      "%lld pages missing with CPU %d offline", free0 - free_off,
		      CPU) &&
	    mmt_check(free_on >= free0 - tolerance,
		      "%lld pages missing with CPU %d online again",
		      free0 - free_on, CPU) &&
	    mmt_check(mmt_nr_online_cpus() >= 2, "CPU %d did not come back",
		      CPU))
		ret = KSFT_PASS;
cleanup:
	stop_workers(pids);
	if (mmt_nr_online_cpus() < 2 && mmt_cpu_set_online(CPU, 1))
		ret = KSFT_FAIL;
	return ret;
}
