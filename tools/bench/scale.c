// SPDX-License-Identifier: GPL-2.0
/*
 * bench/scale: what makes the page allocator and memory cgroup work scale
 * with CPUs, counted rather than timed (make bench SCALE=1).  Booted with
 * N vCPUs on a kernel of the scale variant (configs/scale.config and
 * configs/profile.config: lock statistics and the function profiler), it
 * starts one task per online CPU, each bound to its CPU and all in one
 * memory cgroup, and runs each load for the same number of operations
 * per task:
 *
 *   fault: mmap 64 pages of anonymous memory, write one byte per page,
 *          munmap; an operation is a page fault (a page allocated,
 *          charged, put on the LRU, then uncharged and freed)
 *   pipe:  pipe2() and close both ends; an operation is a pipe (its
 *          pipe_inode_info, buffer array, two files and an inode, each
 *          a slab object charged to the cgroup, allocated and freed)
 *
 * For each, per 1000 operations of all the tasks together:
 *   mm510-bench: scale-<load>-n<N> <metric> <count per 1000 ops> per1000
 * with the metrics
 *   zone_lock_acq, zone_lock_con   acquisitions and contentions of
 *                                  zone->lock (/proc/lock_stat)
 *   lru_lock_acq, lru_lock_con     the same of the LRU lock (5.10's
 *                                  pgdat->lru_lock, lruvec->lru_lock
 *                                  from 5.11)
 *   ipi_call, ipi_tlb              function-call IPIs and TLB shootdowns
 *                                  received (/proc/interrupts)
 *   and the calls of the functions in calls[] below (the function
 *   profiler's counts): page_counter updates, per-cpu list refills and
 *   drains, drains of every CPU's lists, memcg stock refills and drains,
 *   memcg statistic flushes.  A function this kernel does not have, or
 *   has inlined (5.10's rmqueue_bulk()), is left out.
 * The counts depend on how the vCPUs interleave: under TCG each vCPU is
 * a host thread, so a lock holder can be descheduled by the host, which
 * real CPUs are not; contentions are then upper bounds.  Acquisitions,
 * page_counter updates and drains per operation do not depend on
 * timing as much: they say how much shared state an operation touches.
 *
 * Kernel command line: mm510.bench_scale_ops=N operations per task and
 * load (default 20000).  Fails when the kernel lacks /proc/lock_stat or
 * the function profiler, or a task cannot run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "mmt.h"

#define CG		CG_ROOT "/mmt-scale"
#define LOCK_STAT	"/proc/lock_stat"
#define FAULT_PAGES	64
#define MAX_CPUS	64

/* The functions whose calls are counted, with the metric each gives. */
static const char *const calls[] = {
	"page_counter_try_charge",	/* a charge walks the cgroup's counters */
	"page_counter_uncharge",
	"rmqueue_bulk",			/* a per-cpu list refilled from the zone */
	"free_pcppages_bulk",		/* a per-cpu list drained to the zone */
	"drain_all_pages",		/* every CPU's lists drained (IPIs or work) */
	"drain_local_pages",
	"refill_stock",			/* the memcg page stock */
	"drain_stock",
	"drain_obj_stock",		/* the memcg object stock */
	"cgroup_rstat_flush",		/* memcg statistic flushes */
};
#define NR_CALLS	ARRAY_SIZE(calls)

struct counts {
	long long zone_acq, zone_con, lru_acq, lru_con;
	long long ipi_call, ipi_tlb;
	long long calls[NR_CALLS];
};

/*
 * Sums the acquisitions and contentions of the lock classes whose name
 * contains @which.  A class line of /proc/lock_stat is "name: con-bounces
 * contentions waittime-min waittime-max waittime-total waittime-avg
 * acq-bounces acquisitions ...".
 */
static int lock_stat_read(const char *which, long long *acq, long long *con)
{
	char line[1024], name[256];
	double v[8];
	FILE *f;

	*acq = 0;
	*con = 0;
	f = mmt_fopen(LOCK_STAT);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t len;

		if (sscanf(line, " %255s %lf %lf %lf %lf %lf %lf %lf %lf", name,
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7]) != 9)
			continue;
		len = strlen(name);
		if (!len || name[len - 1] != ':' || !strstr(name, which))
			continue;
		*con += (long long)v[1];
		*acq += (long long)v[7];
	}
	fclose(f);
	return 0;
}

/*
 * The IPIs of the kinds named in /proc/interrupts' descriptions,
 * summed over the CPUs: x86's CAL and TLB rows, arm64's IPI rows.
 */
static int ipis_read(long long *call, long long *tlb)
{
	char line[4096];
	FILE *f;

	*call = 0;
	*tlb = 0;
	f = fopen("/proc/interrupts", "re");
	if (!f) {
		mmt_log("open /proc/interrupts: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':'), *end;
		long long sum = 0, v;

		if (!p)
			continue;
		for (p++;; p = end) {
			v = strtoll(p, &end, 10);
			if (end == p)
				break;
			sum += v;
		}
		if (strstr(p, "Function call"))
			*call += sum;
		else if (strstr(p, "TLB shootdown"))
			*tlb += sum;
	}
	fclose(f);
	return 0;
}

static int counts_read(struct counts *c)
{
	return lock_stat_read("zone->lock", &c->zone_acq, &c->zone_con) ||
	       lock_stat_read("lru_lock", &c->lru_acq, &c->lru_con) ||
	       ipis_read(&c->ipi_call, &c->ipi_tlb) ? -1 : 0;
}

static void load_fault(long ops)
{
	long pg = sysconf(_SC_PAGESIZE), done = 0;
	int i;

	while (done < ops) {
		char *p = mmap(NULL, FAULT_PAGES * pg, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			mmt_log("fault: mmap: %s", strerror(errno));
			_exit(1);
		}
		for (i = 0; i < FAULT_PAGES && done < ops; i++, done++)
			p[i * pg] = 1;
		munmap(p, FAULT_PAGES * pg);
	}
}

static void load_pipe(long ops)
{
	int fd[2];
	long i;

	for (i = 0; i < ops; i++) {
		if (pipe2(fd, O_CLOEXEC)) {
			mmt_log("pipe: pipe2: %s", strerror(errno));
			_exit(1);
		}
		close(fd[0]);
		close(fd[1]);
	}
}

static const struct {
	const char *name;
	void (*fn)(long ops);
} loads[] = {
	{ "fault", load_fault },
	{ "pipe", load_pipe },
};

/*
 * Runs load @l in @tasks tasks, one on each CPU, started together: each
 * waits until the pipe @go is closed.  0, or -1 when a task failed.
 */
static int run(unsigned int l, int tasks, long ops)
{
	pid_t pid[MAX_CPUS];
	int go[2], i, started = 0, status, ret = 0;
	char c;

	if (pipe(go))
		return -1;
	for (i = 0; i < tasks; i++) {
		pid[i] = fork();
		if (pid[i] < 0) {
			mmt_log("fork: %s", strerror(errno));
			ret = -1;
			break;
		}
		if (!pid[i]) {
			close(go[1]);
			if (mmt_pin_cpu(i))
				_exit(1);
			if (read(go[0], &c, 1) < 0)
				_exit(1);
			loads[l].fn(ops);
			_exit(0);
		}
		started++;
	}
	close(go[0]);
	close(go[1]);	/* every task starts */
	for (i = 0; i < started; i++) {
		if (waitpid(pid[i], &status, 0) != pid[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			mmt_log("%s: task %d failed", loads[l].name, i);
			ret = -1;
		}
	}
	return ret;
}

static void put(const char *row, const char *metric, long long d, long ops)
{
	mmt_bench(row, metric, d * 1000.0 / ops, "per1000");
}

int main(void)
{
	long ops = mmt_cmdline_long("mm510.bench_scale_ops", 20000);
	int tasks = mmt_nr_online_cpus(), traced[NR_CALLS], ret = KSFT_PASS;
	struct counts a, b;
	unsigned int l, i;
	char row[64];
	long all;

	if (access(LOCK_STAT, R_OK)) {
		mmt_log("no %s: not a kernel of the scale variant (configs/scale.config)",
			LOCK_STAT);
		return KSFT_FAIL;
	}
	if (tasks < 1 || tasks > MAX_CPUS || ops < 1) {
		mmt_log("%d CPUs, %ld operations: nothing to measure", tasks, ops);
		return KSFT_FAIL;
	}
	/* lock_stat counts only while this is 1. */
	if (!access("/proc/sys/kernel/lock_stat", F_OK) &&
	    mmt_write_file("/proc/sys/kernel/lock_stat", "1"))
		return KSFT_FAIL;
	if (mmt_cg_enable_memory(CG_ROOT) || mmt_cg_create(CG) || mmt_cg_enter(CG))
		return KSFT_FAIL;
	all = ops * tasks;	/* the figures are per 1000 of all tasks' */

	for (l = 0; l < ARRAY_SIZE(loads); l++) {
		/* A warm-up run, so that caches and lists exist. */
		if (run(l, tasks, ops / 10 + 1))
			goto fail;
		if (mmt_write_file(LOCK_STAT, "0") ||
		    mmt_profile_calls_start(calls, NR_CALLS, traced) < 0 ||
		    counts_read(&a))
			goto fail;
		if (run(l, tasks, ops))
			goto fail;
		if (mmt_profile_calls_stop(calls, NR_CALLS, traced, b.calls) ||
		    counts_read(&b))
			goto fail;
		snprintf(row, sizeof(row), "scale-%s-n%d", loads[l].name, tasks);
		/* lock_stat was cleared at the start: b's are the run's. */
		put(row, "zone_lock_acq", b.zone_acq, all);
		put(row, "zone_lock_con", b.zone_con, all);
		put(row, "lru_lock_acq", b.lru_acq, all);
		put(row, "lru_lock_con", b.lru_con, all);
		put(row, "ipi_call", b.ipi_call - a.ipi_call, all);
		put(row, "ipi_tlb", b.ipi_tlb - a.ipi_tlb, all);
		for (i = 0; i < NR_CALLS; i++)
			if (b.calls[i] >= 0)
				put(row, calls[i], b.calls[i], all);
	}
	goto out;
fail:
	ret = KSFT_FAIL;
out:
	mmt_cg_enter(CG_ROOT);
	mmt_cg_destroy(CG);
	return ret;
}
