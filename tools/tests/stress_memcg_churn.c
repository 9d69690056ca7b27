// SPDX-License-Identifier: GPL-2.0
/*
 * Memory cgroup churn: many child cgroups are created and removed, a few
 * alive at a time, while a task in each allocates and frees accounted
 * slab (tmpfs files: dentries and inodes; pipes: pipe buffers) and
 * anonymous memory.  Once every child is gone, nothing is lost:
 *   - the parent's memory.current and its slab statistics are back at
 *     their starting level (charges reparented and then uncharged),
 *   - no dying memory cgroup is left behind (cgroup.stat),
 *   - the allocator's free pages are back within a small tolerance,
 *   - the mem_cgroup slab caches, where the kernel has them, hold no
 *     more objects than before.
 * A leaked charge, an objcg or memcg never released, or pages lost
 * while cgroups die make the counters above miss their mark.
 *
 * Short form (make check): 160 cgroups; mm510.stress=long: 3000.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmt.h"

#define PARENT		CG_ROOT "/stress_churn"
#define SETTLE		CG_ROOT "/stress_churn_settle"
#define WINDOW		4		/* children alive at once */
#define ANON_SIZE	(2 << 20)
#define NR_FILES	16
#define NR_PIPES	8
/* Pages: per-cpu stocks, page tables and slab pages kept by the caches. */
#define FREE_TOLERANCE	2048		/* 8 MiB */
#define CHARGE_TOLERANCE (1 << 20)

/* The work of one task in a child cgroup. */
static int child_work(const char *cg, int id)
{
	char name[64];
	int i, fds[NR_PIPES][2];
	char *p;

	if (mmt_cg_enter(cg))
		return 1;
	for (i = 0; i < NR_FILES; i++) {
		int fd;

		snprintf(name, sizeof(name), "/tmp/churn-%d-%d", id, i);
		fd = open(name, O_CREAT | O_RDWR | O_TRUNC, 0600);
		if (fd < 0)
			return 1;
		if (write(fd, name, sizeof(name)) != sizeof(name))
			return 1;
		close(fd);
		unlink(name);
	}
	for (i = 0; i < NR_PIPES; i++) {
		if (pipe(fds[i]))
			return 1;
		if (write(fds[i][1], name, sizeof(name)) != sizeof(name))
			return 1;
	}
	p = mmap(NULL, ANON_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	memset(p, id, ANON_SIZE);
	munmap(p, ANON_SIZE);
	for (i = 0; i < NR_PIPES; i++) {
		close(fds[i][0]);
		close(fds[i][1]);
	}
	return 0;
}

struct slot {
	char path[128];
	pid_t pid;
};

static int reap(struct slot *s)
{
	int status;

	if (waitpid(s->pid, &status, 0) != s->pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status)) {
		mmt_log("task in %s failed (status 0x%x)", s->path, status);
		return -1;
	}
	return mmt_cg_destroy(s->path);
}

/*
 * A CPU's charge stock (memcg_stock) holds a reference on the last memory
 * cgroup that charged pages on it, even with no pages left in it, and
 * 5.10's drain_all_stock() only drains stocks that still hold pages.  A
 * child that charged last on a CPU that then idles stays dying until
 * that CPU charges another memory cgroup: a cache, not a leak.  Do what
 * any other work would do: fault in anonymous memory on every CPU from a
 * memory cgroup outside PARENT.  A reference really lost keeps its
 * cgroup dying after this.
 */
static void settle_stocks(void)
{
	cpu_set_t all, one;
	int cpu, status;
	pid_t pid;

	if (sched_getaffinity(0, sizeof(all), &all) || mmt_cg_create(SETTLE)) {
		mmt_log("cannot prepare %s", SETTLE);
		return;
	}
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &all))
			continue;
		pid = fork();
		if (pid < 0)
			break;
		if (!pid) {
			char *p;

			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			if (sched_setaffinity(0, sizeof(one), &one) ||
			    mmt_cg_enter(SETTLE))
				_exit(1);
			p = mmap(NULL, ANON_SIZE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED)
				_exit(1);
			memset(p, 1, ANON_SIZE);
			munmap(p, ANON_SIZE);
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			mmt_log("charging from CPU %d failed", cpu);
	}
}

/*
 * Wait for dying descendants to go; returns how many are left.  After
 * 5 s, the per-CPU charge stocks are made to let go of the children.
 */
static long long wait_dying(void)
{
	long long dying = -1;
	int i;

	for (i = 0; i < 300; i++) {
		dying = mmt_key_value(PARENT "/cgroup.stat",
				      "nr_dying_descendants");
		if (dying <= 0)
			break;
		if (i == 50) {
			mmt_log("%lld dying after 5 s: charging every CPU from another cgroup",
				dying);
			settle_stocks();
		}
		usleep(100000);
	}
	return dying;
}

int main(void)
{
	long nr = mmt_stress_pick(160, 3000), done = 0, i;
	long long free0, free1, cur0, cur1, slab0, slab1, dying;
	long long pcpu0, pcpu1, kslab0, kslab1;
	long memcg0 = -1, memcg1 = -1;
	double budget = mmt_stress_pick(120, 1200), t0;
	struct slot slots[WINDOW] = {};
	int ret = KSFT_FAIL, have_memcg_cache;

	if (mmt_cmdline_has("cgroup_disable=memory")) {
		mmt_log("memory controller disabled on the command line");
		return KSFT_SKIP;
	}
	if (mmt_cg_enable_memory(CG_ROOT) || mmt_cg_create(PARENT) ||
	    mmt_cg_enable_memory(PARENT))
		goto cleanup;

	mmt_drop_caches();
	have_memcg_cache = !mmt_slabinfo("mem_cgroup", &memcg0, NULL);
	free0 = mmt_free_pages();
	pcpu0 = mmt_meminfo("Percpu");
	kslab0 = mmt_meminfo("Slab");
	cur0 = mmt_cg_read_ll(PARENT, "memory.current");
	slab0 = mmt_cg_stat(PARENT, "slab");

	t0 = mmt_now();
	for (i = 0; i < nr; i++) {
		struct slot *s = &slots[i % WINDOW];

		/* Time bounds the run on slow (debug) kernels. */
		if (mmt_now() - t0 > budget && i >= nr / 10)
			break;
		if (s->pid) {
			if (reap(s))
				goto cleanup;
			s->pid = 0;
			done++;
		}
		snprintf(s->path, sizeof(s->path), "%s/c%ld", PARENT, i);
		if (mmt_cg_create(s->path))
			goto cleanup;
		s->pid = fork();
		if (s->pid < 0) {
			mmt_log("fork: %s", strerror(errno));
			s->pid = 0;
			goto cleanup;
		}
		if (!s->pid)
			_exit(child_work(s->path, (int)i));
	}
	for (i = 0; i < WINDOW; i++) {
		if (!slots[i].pid)
			continue;
		if (reap(&slots[i]))
			goto cleanup;
		slots[i].pid = 0;
		done++;
	}
	mmt_log("%ld cgroups created and removed in %.1f s (%d alive at a time)",
		done, mmt_now() - t0, WINDOW);

	dying = wait_dying();
	mmt_drop_caches();
	free1 = mmt_free_pages();
	pcpu1 = mmt_meminfo("Percpu");
	kslab1 = mmt_meminfo("Slab");
	cur1 = mmt_cg_read_ll(PARENT, "memory.current");
	slab1 = mmt_cg_stat(PARENT, "slab");
	mmt_log("parent memory.current %lld -> %lld, slab %lld -> %lld, dying %lld",
		cur0, cur1, slab0, slab1, dying);
	mmt_log("free pages (buddy + pcp) %lld -> %lld (%+lld)", free0, free1,
		free1 - free0);
	/* Where pages went: memcgs' per-cpu data, slab kept by the caches. */
	mmt_log("meminfo Percpu %lld -> %lld kB, Slab %lld -> %lld kB", pcpu0,
		pcpu1, kslab0, kslab1);

	if (!mmt_check(dying == 0, "%lld dying memory cgroups left", dying) ||
	    !mmt_check(cur1 <= cur0 + CHARGE_TOLERANCE,
		       "parent still charged %lld bytes more", cur1 - cur0) ||
	    !mmt_check(slab1 <= slab0 + CHARGE_TOLERANCE,
		       "parent slab grew by %lld bytes", slab1 - slab0) ||
	    !mmt_check(free1 >= free0 - FREE_TOLERANCE,
		       "%lld pages missing after the churn", free0 - free1))
		goto cleanup;
	if (have_memcg_cache) {
		struct mmt_slab geo;
		long slack = WINDOW;

		/* SLAB's per-cpu and shared arrays keep freed objects "active". */
		if (!mmt_slab_read("mem_cgroup", &geo) && geo.limit)
			slack += mmt_slab_slack(&geo, mmt_nr_online_cpus());
		mmt_slabinfo("mem_cgroup", &memcg1, NULL);
		mmt_log("mem_cgroup objects %ld -> %ld (slack %ld)", memcg0, memcg1,
			slack);
		if (!mmt_check(memcg1 <= memcg0 + slack,
			       "%ld mem_cgroup objects not freed",
			       memcg1 - memcg0))
			goto cleanup;
	}
	ret = KSFT_PASS;
cleanup:
	for (i = 0; i < WINDOW; i++) {
		if (!slots[i].pid)
			continue;
		kill(slots[i].pid, SIGKILL);
		waitpid(slots[i].pid, NULL, 0);
		mmt_cg_destroy(slots[i].path);
	}
	if (mmt_cg_destroy(PARENT))
		ret = KSFT_FAIL;
	if (!access(SETTLE, F_OK) && mmt_cg_destroy(SETTLE))
		ret = KSFT_FAIL;
	return ret;
}
