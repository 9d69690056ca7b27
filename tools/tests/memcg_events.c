// SPDX-License-Identifier: GPL-2.0
/*
 * The vm events of cgroup2's memory.stat count what a task did, and keep
 * it when its cgroup goes.  A task in a child cgroup:
 *   - faults 4 huge pages in (where THP is built),
 *   - faults 1024 small pages in and frees them with MADV_FREE (where
 *     madvise() is built; the test kernels have neither
 *     CONFIG_ADVISE_SYSCALLS nor THP, so make check drives neither
 *     step, which Debian's kernel would),
 *   - writes a 12 MiB file on the guest's ext4 disk, drops the page
 *     cache, maps the file and reads it (a major fault), then reads it
 *     twice more (every page activated),
 *   - lowers its memory.max to 6 MiB (reclaim) and faults 3 MiB more
 *     (reclaim again, a "max" event),
 *   - deletes the file and exits.
 * The child cgroup is removed, and its parent's memory.stat must show,
 * for each key:
 *   - no more than /proc/vmstat counted meanwhile (a count that went to
 *     another event's slot shows here), except for pgrefill, pgscan and
 *     pgsteal: 5.10 leaves reclaim by a cgroup's limit out of
 *     /proc/vmstat;
 *   - at least what the task caused: its page faults and activations,
 *     the 9 MiB reclaim had to take (pgsteal), each of those pages
 *     moved off the active list first (pgrefill), pgscan at least
 *     pgsteal, and for the events no other task causes meanwhile
 *     (pgmajfault, pglazyfree, pglazyfreed, thp_fault_alloc) what the
 *     system counted;
 *   - at least the child's count just before its removal (the counts
 *     moved up stay);
 *   - pglazyfreed at most pglazyfree, and memory.events' "max" at least
 *     1.
 * A lower bound allows MEMCG_CHARGE_BATCH (32) per CPU and event: 5.10
 * folds a cgroup's per-CPU counts into its own and its parents' in
 * batches, and the last batch when the cgroup is freed, which the page
 * cache of the disk's metadata can postpone past the test's end.
 *
 * mm510's 0901 keeps only these events in a memory cgroup's arrays.  The
 * test passes on 5.10.262 and on the stack with the same counts, and
 * failed (pgfault 0 and pgmajfault 2675, among others) on a stack whose
 * memcg_events() read the next event's slot.  Not read here: cgroup1's
 * memory.stat (pgpgin, pgpgout and the local counts), which needs the
 * memory controller on a cgroup1 hierarchy, where a cgroup kept by its
 * page cache would keep the controller from the other tests:
 * memcg_v1_stat reads it, in a boot of its own (the cgroup1 scenario).
 *
 * Skipped without the memory controller and without the guest's disk.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmt.h"

#define PARENT		CG_ROOT "/memcg_events"
#define CHILD		PARENT "/work"
#define FILE_PATH	MMT_DISK_DIR "/memcg_events.data"
#define PAGE		4096L
#define SMALL_PAGES	1024L
#define HUGE		(2L << 20)
#define NR_HUGE		4
#define FILE_SIZE	(12L << 20)
#define LIMIT		(6L << 20)
#define MORE_PAGES	768L		/* 3 MiB */
#define BATCH		32		/* MEMCG_CHARGE_BATCH */

/*
 * The keys read.  vmstat NULL: the sum of /proc/vmstat's kswapd and
 * direct counts.  local: 5.10 leaves reclaim by a cgroup's limit out of
 * /proc/vmstat, which then bounds nothing.
 */
static const struct event {
	const char *key;	/* in memory.stat */
	const char *vmstat;	/* in /proc/vmstat */
	int thp;		/* absent without THP */
	int local;
} events[] = {
	{ "pgfault", "pgfault", 0, 0 },
	{ "pgmajfault", "pgmajfault", 0, 0 },
	{ "pgrefill", "pgrefill", 0, 1 },
	{ "pgscan", NULL, 0, 1 },
	{ "pgsteal", NULL, 0, 1 },
	{ "pgactivate", "pgactivate", 0, 0 },
	{ "pgdeactivate", "pgdeactivate", 0, 0 },
	{ "pglazyfree", "pglazyfree", 0, 0 },
	{ "pglazyfreed", "pglazyfreed", 0, 0 },
	{ "thp_fault_alloc", "thp_fault_alloc", 1, 0 },
	{ "thp_collapse_alloc", "thp_collapse_alloc", 1, 0 },
};

#define NR_EVENTS	ARRAY_SIZE(events)

/* What the kernel offers: THP, and madvise() for MADV_FREE. */
static int thp, lazy;

static long long system_count(const struct event *e)
{
	char kswapd[32], direct[32];

	if (e->vmstat)
		return mmt_vmstat(e->vmstat);
	snprintf(kswapd, sizeof(kswapd), "%s_kswapd", e->key);
	snprintf(direct, sizeof(direct), "%s_direct", e->key);
	return mmt_vmstat(kswapd) + mmt_vmstat(direct);
}

static size_t event_index(const char *key)
{
	size_t i;

	for (i = 0; i < NR_EVENTS && strcmp(events[i].key, key); i++)
		;
	return i;
}

static int have_thp(void)
{
	return mmt_vmstat("thp_fault_alloc") >= 0;
}

/* A key this kernel has: THP's only where THP is built. */
static int counted(size_t i)
{
	return !events[i].thp || thp;
}

static int huge_faults(void)
{
	char *p = mmap(NULL, (NR_HUGE + 1) * HUGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *q;
	int i;

	if (p == MAP_FAILED)
		return -1;
	q = (char *)(((unsigned long)p + HUGE - 1) & ~(HUGE - 1));
	if (madvise(q, NR_HUGE * HUGE, MADV_HUGEPAGE))
		return -1;
	for (i = 0; i < NR_HUGE; i++)
		q[i * HUGE] = 1;
	return munmap(p, (NR_HUGE + 1) * HUGE);
}

/* Writes the file, drops its cache, maps and reads it, reads it twice. */
static int file_faults(void)
{
	static char buf[1 << 16];
	volatile char sum = 0;
	char *m;
	long off;
	int fd, pass;

	if (mmt_write_filled(FILE_PATH, FILE_SIZE))
		return -1;
	fd = open(FILE_PATH, O_RDONLY);
	if (fd < 0)
		return -1;
	/* drop_caches, as posix_fadvise() needs CONFIG_ADVISE_SYSCALLS */
	if (fsync(fd) || mmt_drop_caches())
		return -1;
	m = mmap(NULL, FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	for (off = 0; off < FILE_SIZE; off += PAGE)
		sum += m[off];
	munmap(m, FILE_SIZE);
	for (pass = 0; pass < 2; pass++)
		for (off = 0; off < FILE_SIZE; off += sizeof(buf))
			if (pread(fd, buf, sizeof(buf), off) != sizeof(buf))
				return -1;
	return close(fd);
}

/* The task in CHILD; its exit status says where it stopped. */
static void work(void)
{
	char *small, limit[32];

	if (mmt_cg_enter(CHILD))
		_exit(2);
	if (thp && huge_faults())
		_exit(3);
	small = mmt_map_touched(SMALL_PAGES * PAGE, -1);
	if (!small)
		_exit(4);
	if (lazy ? madvise(small, SMALL_PAGES * PAGE, MADV_FREE) :
		   munmap(small, SMALL_PAGES * PAGE))
		_exit(4);
	if (file_faults())
		_exit(5);
	snprintf(limit, sizeof(limit), "%ld", LIMIT);
	if (mmt_write_file(CHILD "/memory.max", limit))
		_exit(6);
	if (!mmt_map_touched(MORE_PAGES * PAGE, -1))
		_exit(7);
	if (unlink(FILE_PATH))
		_exit(8);
	_exit(0);
}

/*
 * The lower bound of each key, given the system's counts (-1: none).
 * @slack is what a cgroup may not have folded in yet: up to
 * MEMCG_CHARGE_BATCH (32) per CPU and vm event.  Nothing else in the
 * guest faults pages in from the disk, reclaims or frees lazily while
 * the task runs, so for those keys the cgroup has what the system
 * counted, less the slack; page faults and activations happen
 * elsewhere too, and get the task's own counts.
 */
static long long lower_bound(size_t i, const long long *sys,
			     const long long *got, long long slack)
{
	const char *key = events[i].key;

	if (!strcmp(key, "pgfault"))
		return SMALL_PAGES + MORE_PAGES - slack;
	if (!strcmp(key, "pgactivate"))
		return FILE_SIZE / PAGE - slack;
	/*
	 * All 12 MiB of the file was active: going down to 6 MiB, and 3 MiB
	 * further for the new anonymous memory (no swap), reclaim stole at
	 * least 9 MiB, and moved each page it stole from the active list
	 * first (pgscan and pgsteal: kswapd's and direct reclaim's slack).
	 */
	if (!strcmp(key, "pgsteal"))
		return (FILE_SIZE - LIMIT) / PAGE + MORE_PAGES - 2 * slack;
	if (!strcmp(key, "pgrefill"))
		return got[event_index("pgsteal")] - 3 * slack -
		       (lazy ? SMALL_PAGES : 0);	/* inactive already */
	if (!strcmp(key, "pgscan"))
		return got[event_index("pgsteal")];
	/* drop_caches deactivates pages; khugepaged serves every task. */
	if (!strcmp(key, "pgdeactivate") ||
	    !strcmp(key, "thp_collapse_alloc"))
		return -1;
	return sys[i] - slack;
}

int main(void)
{
	long long before[NR_EVENTS], sys[NR_EVENTS], child[NR_EVENTS];
	long long got[NR_EVENTS], low, max_events, slack;
	int cpus = mmt_nr_online_cpus();
	int ret = KSFT_FAIL, status;
	size_t i;
	pid_t pid;

	if (mmt_cmdline_has("cgroup_disable=memory")) {
		mmt_log("memory controller disabled on the command line");
		return KSFT_SKIP;
	}
	if (access(MMT_DISK_DIR "/lost+found", F_OK)) {
		mmt_log("no disk in this guest (ci/boot.sh attaches one)");
		return KSFT_SKIP;
	}
	/* Kernels without CONFIG_ADVISE_SYSCALLS (the test kernels). */
	lazy = !madvise(NULL, 0, MADV_NORMAL);
	thp = have_thp();
	if (!lazy)
		mmt_log("no madvise(): pglazyfree and pglazyfreed not driven");
	if (!thp)
		mmt_log("no THP: thp_fault_alloc not driven");
	if (cpus < 1 || mmt_cg_enable_memory(CG_ROOT) ||
	    mmt_cg_create(PARENT) || mmt_cg_enable_memory(PARENT) ||
	    mmt_cg_create(CHILD))
		goto out;

	for (i = 0; i < NR_EVENTS; i++)
		before[i] = counted(i) ? system_count(&events[i]) : 0;
	pid = fork();
	if (pid < 0)
		goto out;
	if (!pid)
		work();
	if (waitpid(pid, &status, 0) != pid ||
	    !mmt_check(WIFEXITED(status) && !WEXITSTATUS(status),
		       "the task failed (status %#x)", status))
		goto out;
	for (i = 0; i < NR_EVENTS; i++)
		child[i] = counted(i) ? mmt_cg_stat(CHILD, events[i].key) : 0;
	max_events = mmt_key_value(CHILD "/memory.events", "max");
	if (mmt_cg_destroy(CHILD))
		goto out;

	ret = KSFT_PASS;
	slack = (long long)BATCH * cpus;
	for (i = 0; i < NR_EVENTS; i++)
		got[i] = counted(i) ? mmt_cg_stat(PARENT, events[i].key) : 0;
	/* Read after the cgroup's: what it counted, the system had. */
	for (i = 0; i < NR_EVENTS; i++)
		sys[i] = counted(i) ? system_count(&events[i]) - before[i] : 0;
	for (i = 0; i < NR_EVENTS; i++) {
		if (!counted(i))
			continue;
		low = lower_bound(i, sys, got, slack);
		mmt_log("%-18s parent %8lld, child before its removal %8lld, system %8lld, at least %lld",
			events[i].key, got[i], child[i], sys[i], low);
		if (!mmt_check(got[i] >= 0 && child[i] >= 0,
			       "memory.stat has no %s", events[i].key) ||
		    !mmt_check(events[i].local || got[i] <= sys[i],
			       "%s: the cgroup counted %lld, the system %lld",
			       events[i].key, got[i], sys[i]) ||
		    !mmt_check(got[i] >= low,
			       "%s: %lld, the task caused at least %lld",
			       events[i].key, got[i], low) ||
		    !mmt_check(got[i] >= child[i],
			       "%s: the parent has %lld after the child's removal, the child had %lld",
			       events[i].key, got[i], child[i]))
			ret = KSFT_FAIL;
	}
	if (!mmt_check(got[event_index("pglazyfreed")] <=
		       got[event_index("pglazyfree")] + slack,
		       "pglazyfreed %lld above pglazyfree %lld",
		       got[event_index("pglazyfreed")],
		       got[event_index("pglazyfree")]))
		ret = KSFT_FAIL;
	mmt_log("memory.events max: child %lld, parent %lld", max_events,
		mmt_key_value(PARENT "/memory.events", "max"));
	if (!mmt_check(mmt_key_value(PARENT "/memory.events", "max") >= 1,
		       "the parent's memory.events counts no \"max\""))
		ret = KSFT_FAIL;
out:
	unlink(FILE_PATH);
	mmt_cg_destroy(CHILD);
	mmt_cg_destroy(PARENT);
	return ret;
}
