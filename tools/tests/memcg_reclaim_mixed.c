// SPDX-License-Identifier: GPL-2.0
/*
 * Reclaim with swap under memory.max and under memory.high, for a cgroup
 * that charges the three kinds of memory the stack's caches handle at
 * once: accounted slab (the inodes and dentries of many small files on
 * the guest's ext4 disk: the kmalloc-cg and object stock paths), page
 * cache (a file written on that disk) and anonymous memory (more than
 * the limit, so that some of it must go to swap).  With all of it still
 * held, what a user reads must add up:
 *   - memory.current is at most memory.max (exactly), or within the
 *     per-CPU charge batches of memory.high,
 *   - reclaim happened and used the swap: memory.events counts it and
 *     memory.swap.current is not zero,
 *   - memory.stat's LRU lists (inactive_anon, active_anon,
 *     inactive_file, active_file, unevictable) + kernel_stack + percpu +
 *     sock + slab is memory.current within the per-CPU batches (charge
 *     stock, object stock and the per-CPU stat deltas).  The LRU lists,
 *     not anon and file: 5.10's "anon" counts mapped pages only, and a
 *     page that reclaim has unmapped and written to swap stays charged,
 *     in the swap cache on the anon LRU, until reclaim frees it.  On
 *     5.10-rt, base and stack alike, about 11M to 13M of the 32M were
 *     such pages at the read (anon + file + ... summed to 22227272 on
 *     the RT base, 19934440 on the RT stack, against memory.current
 *     33550336),
 *   - every anonymous page reads back what was written (after swap-in).
 * Then the task deletes its files and exits, and nothing is left
 * charged: once the child cgroup is removed and the parent's per-CPU
 * charge stocks are drained (drain_parent()), the parent's
 * memory.current falls back to (almost) zero (but for the swap cache of
 * the slots the swap slot caches hold), its memory.swap.current to what
 * those caches hold, both to (almost) zero after swapoff, and the free
 * pages come back.
 *
 * Skipped without the memory controller, and without swap (a guest
 * without ci/boot.sh's swap disk or a kernel without CONFIG_SWAP).
 */
#define _GNU_SOURCE
#include <errno.h>
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

static const char * const stat_keys[] = {
	"inactive_anon", "active_anon", "inactive_file", "active_file",
	"unevictable", "kernel_stack", "percpu", "sock", "slab",
};

#define PARENT		CG_ROOT "/reclaim_mixed"
#define CHILD		PARENT "/work"
#define LIMIT		(32LL << 20)
#define ANON_SIZE	(48LL << 20)
#define FILE_SIZE	(16LL << 20)
#define NR_FILES	4000
#define CHUNK		(1 << 20)
/*
 * What memory.current and the stat sum may differ by: the charge stock
 * (MEMCG_CHARGE_BATCH, 32 pages per CPU), the object stock (a page per
 * CPU) and the per-CPU deltas of the counters summed (up to the batch,
 * 32 pages, per counter and CPU before they are folded in).
 */
#define BATCH_BYTES	(32LL * 4096)
#define STAT_SLACK(cpus) \
	((cpus) * (BATCH_BYTES + 4096 + (long long)ARRAY_SIZE(stat_keys) * BATCH_BYTES))
/* memory.high is enforced on the way back to user space, per batch. */
#define HIGH_SLACK(cpus) ((cpus) * BATCH_BYTES * 2)
/*
 * What the kernel may still hold for the removed children once the
 * stocks are drained: objects and pages it caches (dentries, buffer
 * heads, xarray nodes, the pages that pin a dying cgroup).
 */
#define LEFT_TOLERANCE	(256LL << 10)
/*
 * A freed swap slot goes to its CPU's slot cache (SWAP_SLOTS_CACHE_SIZE,
 * 64 slots) and is uncharged only when that cache is flushed: swapoff
 * flushes them all, after which nothing may be left.
 */
#define SWAP_SLOTS(cpus) ((cpus) * 64LL * 4096)
#define FREE_TOLERANCE	4096		/* pages, 16 MiB */


/*
 * The task in CHILD: the files, the page cache, the anonymous memory.
 * Tells the parent it holds it all (a byte on @ready), waits for its
 * word (@go), checks the anonymous memory, deletes the files.
 */
static void work(const char *dir, int ready, int go)
{
	char name[256], *buf, *anon, c;
	long long off;
	int fd, i;

	if (mmt_cg_enter(CHILD))
		_exit(2);
	if (mkdir(dir, 0755) && errno != EEXIST)
		_exit(3);
	for (i = 0; i < NR_FILES; i++) {
		snprintf(name, sizeof(name), "%s/f%d", dir, i);
		fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0600);
		if (fd < 0)
			_exit(4);
		close(fd);
	}
	buf = malloc(CHUNK);
	if (!buf)
		_exit(5);
	memset(buf, 0x6b, CHUNK);
	snprintf(name, sizeof(name), "%s/data", dir);
	fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (fd < 0)
		_exit(6);
	for (off = 0; off < FILE_SIZE; off += CHUNK)
		if (write(fd, buf, CHUNK) != CHUNK)
			_exit(7);
	close(fd);
	anon = mmap(NULL, ANON_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED)
		_exit(8);
	for (off = 0; off < ANON_SIZE; off += 4096)
		anon[off] = (char)(off >> 12);
	if (write(ready, "r", 1) != 1 || read(go, &c, 1) != 1)
		_exit(9);
	for (off = 0; off < ANON_SIZE; off += 4096)
		if (anon[off] != (char)(off >> 12))
			_exit(10);	/* a page lost in swap */
	for (i = 0; i < NR_FILES; i++) {
		snprintf(name, sizeof(name), "%s/f%d", dir, i);
		unlink(name);
	}
	snprintf(name, sizeof(name), "%s/data", dir);
	unlink(name);
	rmdir(dir);
	_exit(0);
}

/* One round under memory.@knob = LIMIT.  1 passed, 0 failed. */
static int round_under(const char *knob, int cpus)
{
	char path[128], dir[128], limit[32], c;
	long long cur, sum = 0, v, swapped, events, slack;
	int ready[2], go[2], status, ok = 0;
	size_t i;
	pid_t pid;

	if (mmt_cg_create(CHILD))
		return 0;
	snprintf(path, sizeof(path), CHILD "/memory.%s", knob);
	snprintf(limit, sizeof(limit), "%lld", LIMIT);
	if (mmt_write_file(path, limit) || pipe(ready) || pipe(go))
		return 0;
	snprintf(dir, sizeof(dir), MMT_DISK_DIR "/reclaim-%s", knob);
	pid = fork();
	if (pid < 0)
		return 0;
	if (!pid) {
		close(ready[0]);
		close(go[1]);
		work(dir, ready[1], go[0]);
	}
	close(ready[1]);
	close(go[0]);
	if (read(ready[0], &c, 1) != 1) {
		mmt_fail_at(__FILE__, __LINE__,
			    "memory.%s: the task died before holding its memory", knob);
		goto out;
	}

	cur = mmt_cg_read_ll(CHILD, "memory.current");
	swapped = mmt_cg_read_ll(CHILD, "memory.swap.current");
	events = mmt_key_value(CHILD "/memory.events", knob);
	for (i = 0; i < ARRAY_SIZE(stat_keys); i++) {
		v = mmt_cg_stat(CHILD, stat_keys[i]);
		if (!mmt_check(v >= 0, "memory.stat has no %s", stat_keys[i]))
			goto out;
		sum += v;
	}
	mmt_log("memory.%s %lld: memory.current %lld, stat sum %lld (anon %lld, file %lld, slab %lld), swap %lld, events %s %lld",
		knob, LIMIT, cur, sum, mmt_cg_stat(CHILD, "anon"),
		mmt_cg_stat(CHILD, "file"), mmt_cg_stat(CHILD, "slab"), swapped,
		knob, events);
	slack = strcmp(knob, "max") ? HIGH_SLACK(cpus) : 0;
	if (!mmt_check(cur > 0 && cur <= LIMIT + slack,
		       "memory.%s: memory.current %lld above the limit %lld (+%lld)",
		       knob, cur, LIMIT, slack) ||
	    !mmt_check(events > 0, "memory.%s: memory.events counts no %s event",
		       knob, knob) ||
	    !mmt_check(swapped > 0, "memory.%s: nothing went to swap (memory.swap.current %lld)",
		       knob, swapped) ||
	    !mmt_check(llabs(cur - sum) <= STAT_SLACK(cpus),
		       "memory.%s: memory.stat sums to %lld, memory.current is %lld (%+lld, allowed %lld)",
		       knob, sum, cur, sum - cur, (long long)STAT_SLACK(cpus)))
		goto out;
	ok = 1;
out:
	if (write(go[1], "g", 1) != 1)
		kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid)
		ok = 0;
	else if (ok && !mmt_check(WIFEXITED(status) && !WEXITSTATUS(status),
				  "memory.%s: the task failed (status 0x%x; 10: a page read back wrong)",
				  knob, status))
		ok = 0;
	close(ready[0]);
	close(go[1]);
	if (mmt_cg_destroy(CHILD))
		ok = 0;
	return ok;
}

/*
 * The child's kernel objects freed after it went (RCU-freed inodes,
 * objects KASAN's quarantine held) are uncharged from the parent, which
 * its objcg was reparented to, through refill_stock(): those pages stay
 * counted in the parent's memory.current as a per-CPU stock (up to 32
 * pages per CPU, and a page of object stock) until something drains it,
 * and nothing does in an idle cgroup.  On the debug kernel that left
 * 282624 and 311296 bytes after swapoff (69 and 76 pages, 2 CPUs).  Writing
 * memory.high below the usage drains every CPU's stock of the cgroup
 * (memory_high_write() calls drain_all_stock()) and reclaims; with no
 * task in the cgroup nothing else happens.  0 or -1.
 */
static int drain_parent(void)
{
	if (mmt_write_file(PARENT "/memory.high", "0") ||
	    mmt_write_file(PARENT "/memory.high", "max"))
		return -1;
	return 0;
}

/*
 * After the child is gone: nothing left charged to the parent but what
 * the swap slot caches still hold.  A slot they hold can still have its
 * page in the swap cache, charged to memory.current as well (drop_caches
 * does not free swap cache).  So memory.current may exceed
 * LEFT_TOLERANCE by what is still charged to swap here; after swapoff
 * (swap_off_nothing_left()) it may not.
 */
static int nothing_left(int cpus)
{
	long long cur = -1, swapped = -1;
	int tries;

	for (tries = 0; tries < 50; tries++) {
		mmt_drop_caches();
		if (drain_parent())
			return 0;
		cur = mmt_cg_read_ll(PARENT, "memory.current");
		swapped = mmt_cg_read_ll(PARENT, "memory.swap.current");
		/* What the check below allows: no need to wait for more. */
		if (swapped >= 0 && swapped <= SWAP_SLOTS(cpus) &&
		    cur >= 0 && cur <= LEFT_TOLERANCE + swapped)
			break;
		usleep(100000);
	}
	mmt_log("left in %s: memory.current %lld, memory.swap.current %lld, %lld dying cgroup(s)",
		PARENT, cur, swapped,
		mmt_key_value(PARENT "/cgroup.stat", "nr_dying_descendants"));
	return mmt_check(swapped >= 0 && swapped <= SWAP_SLOTS(cpus),
			 "%lld bytes of swap still charged, more than the slot caches hold",
			 swapped) &&
	       mmt_check(cur >= 0 && cur <= LEFT_TOLERANCE + swapped,
			 "%lld bytes still charged after the child cgroup went (allowed %lld: %lld of swap cache)",
			 cur, LEFT_TOLERANCE + swapped, swapped);
}

/*
 * swapoff flushes the slot caches and frees the swap cache: then no swap
 * may stay charged, and memory.current comes back within LEFT_TOLERANCE.
 */
static int swap_off_nothing_left(void)
{
	long long cur = -1, swapped;
	int tries;

	if (mmt_swap_off())
		return 0;
	swapped = mmt_cg_read_ll(PARENT, "memory.swap.current");
	if (!mmt_check(swapped == 0, "%lld bytes of swap charged after swapoff", swapped))
		return 0;
	for (tries = 0; tries < 50; tries++) {
		mmt_drop_caches();
		if (drain_parent())
			return 0;
		cur = mmt_cg_read_ll(PARENT, "memory.current");
		if (cur >= 0 && cur <= LEFT_TOLERANCE)
			break;
		usleep(100000);
	}
	mmt_log("after swapoff: %s memory.current %lld, %lld dying cgroup(s)",
		PARENT, cur,
		mmt_key_value(PARENT "/cgroup.stat", "nr_dying_descendants"));
	return mmt_check(cur >= 0 && cur <= LEFT_TOLERANCE,
			 "%lld bytes still charged after swapoff", cur);
}

int main(void)
{
	int cpus = mmt_nr_online_cpus(), ret = KSFT_FAIL, swap = 0;
	long long free0;

	if (mmt_cmdline_has("cgroup_disable=memory")) {
		mmt_log("memory controller disabled on the command line");
		return KSFT_SKIP;
	}
	if (access(MMT_DISK_DIR "/lost+found", F_OK) || access(MMT_SWAP_DEV, F_OK)) {
		mmt_log("no disk or no swap device in this guest (ci/boot.sh attaches both)");
		return KSFT_SKIP;
	}
	if (mmt_swap_on())
		return KSFT_FAIL;
	swap = 1;
	mmt_drop_caches();
	free0 = mmt_free_pages();
	if (cpus < 1 || mmt_cg_enable_memory(CG_ROOT) || mmt_cg_create(PARENT) ||
	    mmt_cg_enable_memory(PARENT))
		goto out;
	if (!round_under("max", cpus) || !nothing_left(cpus) ||
	    !round_under("high", cpus) || !nothing_left(cpus))
		goto out;
	swap = 0;
	if (!swap_off_nothing_left())
		goto out;
	ret = KSFT_PASS;
out:
	if (swap && mmt_swap_off())
		ret = KSFT_FAIL;
	if (mmt_cg_destroy(PARENT))
		ret = KSFT_FAIL;
	if (ret == KSFT_PASS && !mmt_free_pages_back(free0, FREE_TOLERANCE))
		ret = KSFT_FAIL;
	return ret;
}
