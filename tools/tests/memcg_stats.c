// SPDX-License-Identifier: GPL-2.0
/*
 * The page state counts of cgroup2's memory.stat and memory.numa_stat
 * count what a task holds, each under its own key, and leave with it.
 * A task in a child cgroup:
 *   - faults 8 MiB of anonymous memory in,
 *   - writes a 4 MiB tmpfs file (shmem) and a 4 MiB file on the guest's
 *     ext4 disk, maps the disk file and reads every page of it,
 *   - starts 32 threads (their kernel stacks) and, where kernel memory
 *     is accounted, creates 2000 empty tmpfs files (dentries, inodes),
 * and waits.  Then, for every key memory.numa_stat has:
 *   - memory.stat's figure (the cgroup's counters) and the sum of
 *     memory.numa_stat's nodes (its lruvecs' counters) agree: a count
 *     that went to another item's slot in one of the two shows here;
 *   - it is no more than /proc/vmstat's figure for the system;
 *   - it is at least what the task holds: anon 8 MiB, shmem 4 MiB, file
 *     8 MiB, file_mapped 4 MiB, the LRU lists of each, and where kernel
 *     memory is accounted kernel_stack 32 stacks of 8 KiB at least and
 *     slab_reclaimable 100 bytes a file.
 * The task exits and the child is removed while the tmpfs file keeps it
 * charged: the parent still counts 4 MiB of shmem.  Once both files are
 * deleted the parent counts no shmem, file_mapped or anon.
 *
 * Slack: 5.10 adds a cgroup's and an lruvec's counts to the shared
 * figures in batches of MEMCG_CHARGE_BATCH (32 pages, or 32 of the
 * item's unit) per CPU, and /proc/vmstat's in batches of up to 125 per
 * CPU and node (the vmstat threshold).
 *
 * mm510's 0902 keeps only the node items a memory cgroup counts in its
 * and its lruvecs' arrays.  The test passes on the stack before 0902 and
 * with it, and failed on a stack whose lruvec_page_state() read the slot
 * after each item's ("anon is 8515584 in memory.stat, 4190208 in
 * memory.numa_stat", and so on for most keys).
 *
 * Skipped without the memory controller, without memory.numa_stat
 * (CONFIG_NUMA=n) and without the guest's disk.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmt.h"

#define PARENT		CG_ROOT "/memcg_stats"
#define CHILD		PARENT "/work"
#define SHM_PATH	"/tmp/memcg_stats.shm"
#define DISK_PATH	MMT_DISK_DIR "/memcg_stats.data"
#define DENTRY_DIR	"/tmp/memcg_stats.d"
#define PAGE		4096LL
#define ANON		(8LL << 20)
#define SHM		(4LL << 20)
#define DISK		(4LL << 20)
#define THREADS		32
#define STACK_MIN	(8LL << 10)
#define NR_FILES	2000
#define FILE_MIN	100LL
#define BATCH		32		/* MEMCG_CHARGE_BATCH */
#define VMSTAT_BATCH	125		/* the vmstat threshold's maximum */

/*
 * memory.numa_stat's keys, with /proc/vmstat's name for the system's
 * figure and the bytes of one unit of each (memory.stat shows bytes for
 * all but the workingset counts).
 */
static const struct item {
	const char *key;
	const char *vmstat;
	long long vm_unit;	/* bytes of /proc/vmstat's unit */
	long long batch_unit;	/* bytes of the item's own unit */
} items[] = {
	{ "anon", "nr_anon_pages", PAGE, PAGE },
	{ "file", "nr_file_pages", PAGE, PAGE },
	{ "kernel_stack", "nr_kernel_stack", 1024, 1024 },
	{ "shmem", "nr_shmem", PAGE, PAGE },
	{ "file_mapped", "nr_mapped", PAGE, PAGE },
	{ "file_dirty", "nr_dirty", PAGE, PAGE },
	{ "file_writeback", "nr_writeback", PAGE, PAGE },
	{ "anon_thp", "nr_anon_transparent_hugepages", 512 * PAGE, PAGE },
	{ "inactive_anon", "nr_inactive_anon", PAGE, PAGE },
	{ "active_anon", "nr_active_anon", PAGE, PAGE },
	{ "inactive_file", "nr_inactive_file", PAGE, PAGE },
	{ "active_file", "nr_active_file", PAGE, PAGE },
	{ "unevictable", "nr_unevictable", PAGE, PAGE },
	{ "slab_reclaimable", "nr_slab_reclaimable", PAGE, PAGE },
	{ "slab_unreclaimable", "nr_slab_unreclaimable", PAGE, PAGE },
	{ "workingset_refault_anon", "workingset_refault_anon", 1, 1 },
	{ "workingset_refault_file", "workingset_refault_file", 1, 1 },
	{ "workingset_activate_anon", "workingset_activate_anon", 1, 1 },
	{ "workingset_activate_file", "workingset_activate_file", 1, 1 },
	{ "workingset_restore_anon", "workingset_restore_anon", 1, 1 },
	{ "workingset_restore_file", "workingset_restore_file", 1, 1 },
	{ "workingset_nodereclaim", "workingset_nodereclaim", 1, 1 },
};

#define NR_ITEMS	ARRAY_SIZE(items)

static int kmem, cpus, nodes;
static int go[2], done[2];	/* the task's pipes: parent to it, back */

static size_t item_index(const char *key)
{
	size_t i;

	for (i = 0; i < NR_ITEMS && strcmp(items[i].key, key); i++)
		;
	return i;
}

/* A thread, for its kernel stack, until the parent closes its pipe. */
static void *sleeper(void *arg)
{
	char c;

	while (read(go[0], &c, 1) > 0)
		;
	return arg;
}

/* The task in CHILD; its exit status says where it stopped. */
static void work(void)
{
	pthread_t t[THREADS];
	volatile char sum = 0;
	char name[64], c;
	long long off;
	char *m;
	int i, fd;

	if (mmt_cg_enter(CHILD))
		_exit(2);
	if (!mmt_map_touched(ANON, -1))
		_exit(3);
	if (mmt_write_filled(SHM_PATH, SHM) || mmt_write_filled(DISK_PATH, DISK))
		_exit(4);
	fd = open(DISK_PATH, O_RDONLY);
	m = fd < 0 ? MAP_FAILED : mmap(NULL, DISK, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		_exit(5);
	for (off = 0; off < DISK; off += PAGE)
		sum += m[off];
	for (i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, sleeper, NULL))
			_exit(6);
	if (kmem) {
		if (mkdir(DENTRY_DIR, 0700))
			_exit(7);
		for (i = 0; i < NR_FILES; i++) {
			snprintf(name, sizeof(name), DENTRY_DIR "/%d", i);
			fd = open(name, O_CREAT | O_WRONLY, 0600);
			if (fd < 0 || close(fd))
				_exit(7);
		}
	}
	if (write(done[1], "r", 1) != 1)
		_exit(8);
	/* Until the parent closes its end: every thread sees EOF too. */
	if (read(go[0], &c, 1) < 0)
		_exit(9);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	_exit(0);
}

/* What the task holds of @key, in bytes; -1 for no lower bound. */
static long long held(const char *key)
{
	if (!strcmp(key, "anon"))
		return ANON;
	if (!strcmp(key, "shmem"))
		return SHM;
	if (!strcmp(key, "file"))
		return SHM + DISK;
	if (!strcmp(key, "file_mapped"))
		return DISK;
	/* Stacks and slab are charged with kernel memory only. */
	if (!strcmp(key, "kernel_stack"))
		return kmem ? THREADS * STACK_MIN : -1;
	if (!strcmp(key, "slab_reclaimable"))
		return kmem ? NR_FILES * FILE_MIN : -1;
	return -1;
}

/*
 * memory.stat and memory.numa_stat of @cg for every key: they agree,
 * and neither is above the system's figure.  Fills @got.
 */
static int check_items(const char *cg, long long *got)
{
	long long sum, n, sys, unit, slack;
	int ok = 1, nid;
	size_t i;

	for (i = 0; i < NR_ITEMS; i++) {
		got[i] = mmt_cg_stat(cg, items[i].key);
		if (got[i] < 0) {
			/* anon_thp only with THP */
			if (strcmp(items[i].key, "anon_thp"))
				ok = mmt_check(0, "%s: memory.stat has no %s", cg,
					       items[i].key);
			continue;
		}
		for (sum = 0, nid = 0; nid < nodes; nid++) {
			n = mmt_cg_numa_stat(cg, items[i].key, nid);
			if (!mmt_check(n >= 0, "%s: memory.numa_stat has no %s for node %d",
				       cg, items[i].key, nid))
				return 0;
			sum += n;
		}
		unit = items[i].batch_unit;
		slack = (long long)BATCH * cpus * (1 + nodes) * unit;
		sys = mmt_vmstat(items[i].vmstat) * items[i].vm_unit;
		mmt_log("%-26s %s: %10lld, its nodes %10lld, system %10lld",
			items[i].key, cg, got[i], sum, sys);
		if (!mmt_check(mmt_near(sum, got[i], slack),
			       "%s: %s is %lld in memory.stat, %lld in memory.numa_stat (allowed %lld apart)",
			       cg, items[i].key, got[i], sum, slack) ||
		    !mmt_check(got[i] <= sys + (long long)BATCH * cpus * unit +
				       (long long)VMSTAT_BATCH * cpus * nodes * items[i].vm_unit,
			       "%s: %s is %lld, above the system's %lld",
			       cg, items[i].key, got[i], sys))
			ok = 0;
	}
	return ok;
}

/* @key of @cg at least @low, less its slack. */
static int at_least(const char *cg, const long long *got, const char *key,
		    long long low)
{
	size_t i = item_index(key);
	long long slack = (long long)BATCH * cpus * items[i].batch_unit;

	return mmt_check(got[i] >= low - slack, "%s: %s is %lld, the task holds %lld",
			 cg, key, got[i], low);
}

/* @key of @cg at most its slack. */
static int none(const char *cg, const long long *got, const char *key)
{
	size_t i = item_index(key);
	long long slack = (long long)BATCH * cpus * items[i].batch_unit;

	return mmt_check(got[i] <= slack, "%s: %s is %lld with nothing left to count",
			 cg, key, got[i]);
}

static void remove_dentries(void)
{
	char name[64];
	int i;

	for (i = 0; i < NR_FILES; i++) {
		snprintf(name, sizeof(name), DENTRY_DIR "/%d", i);
		unlink(name);
	}
	rmdir(DENTRY_DIR);
}

int main(void)
{
	long long got[NR_ITEMS], low;
	int ret = KSFT_FAIL, status;
	const char *lru;
	char c;
	size_t i;
	pid_t pid = -1;

	if (mmt_cmdline_has("cgroup_disable=memory")) {
		mmt_log("memory controller disabled on the command line");
		return KSFT_SKIP;
	}
	if (access(MMT_DISK_DIR "/lost+found", F_OK)) {
		mmt_log("no disk in this guest (ci/boot.sh attaches one)");
		return KSFT_SKIP;
	}
	cpus = mmt_nr_online_cpus();
	nodes = mmt_nr_online_nodes();
	kmem = mmt_kmem_accounted();
	if (cpus < 1 || nodes < 1 || mmt_cg_enable_memory(CG_ROOT) ||
	    mmt_cg_create(PARENT) || mmt_cg_enable_memory(PARENT) ||
	    mmt_cg_create(CHILD) || pipe(go) || pipe(done))
		goto out;
	if (access(CHILD "/memory.numa_stat", F_OK)) {
		mmt_log("no memory.numa_stat (CONFIG_NUMA=n)");
		ret = KSFT_SKIP;
		goto out;
	}

	pid = fork();
	if (pid < 0)
		goto out;
	if (!pid) {
		close(go[1]);
		close(done[0]);
		work();
	}
	close(go[0]);
	close(done[1]);
	if (!mmt_check(read(done[0], &c, 1) == 1, "the task stopped early"))
		goto out;

	ret = KSFT_PASS;
	if (!check_items(CHILD, got))
		ret = KSFT_FAIL;
	for (i = 0; i < NR_ITEMS; i++) {
		low = held(items[i].key);
		if (low >= 0 && got[i] >= 0 &&
		    !at_least(CHILD, got, items[i].key, low))
			ret = KSFT_FAIL;
	}
	/* The lists hold it all: anon and shmem on the anon lists. */
	lru = got[item_index("inactive_anon")] + got[item_index("active_anon")] >=
	      ANON + SHM - 2 * (long long)BATCH * cpus * PAGE ? NULL : "anon";
	if (!lru && got[item_index("inactive_file")] + got[item_index("active_file")] <
		    DISK - 2 * (long long)BATCH * cpus * PAGE)
		lru = "file";
	if (!mmt_check(!lru, "%s: the %s LRU lists hold less than the task's pages",
		       CHILD, lru))
		ret = KSFT_FAIL;

	/* The task goes; its tmpfs file keeps the removed child charged. */
	close(go[1]);
	go[1] = -1;
	if (waitpid(pid, &status, 0) != pid ||
	    !mmt_check(WIFEXITED(status) && !WEXITSTATUS(status),
		       "the task failed (status %#x)", status)) {
		ret = KSFT_FAIL;
		goto out;
	}
	pid = -1;
	if (kmem)
		remove_dentries();
	if (mmt_cg_destroy(CHILD) || !check_items(PARENT, got) ||
	    !at_least(PARENT, got, "shmem", SHM) ||
	    !at_least(PARENT, got, "file", SHM))
		ret = KSFT_FAIL;

	if (unlink(SHM_PATH) || unlink(DISK_PATH) || !check_items(PARENT, got) ||
	    !none(PARENT, got, "shmem") || !none(PARENT, got, "file_mapped") ||
	    !none(PARENT, got, "anon"))
		ret = KSFT_FAIL;
out:
	if (pid > 0) {
		if (go[1] >= 0)
			close(go[1]);
		waitpid(pid, NULL, 0);
	}
	remove_dentries();
	unlink(SHM_PATH);
	unlink(DISK_PATH);
	mmt_cg_destroy(CHILD);
	mmt_cg_destroy(PARENT);
	return ret;
}
