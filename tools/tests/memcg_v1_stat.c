// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup1's memory.stat counts what a task holds and did, each key from
 * its own counter, in the cgroup's own counts and in the "total_" counts
 * of its parent.  The test mounts the memory controller on a cgroup1
 * hierarchy, makes a parent (memory.use_hierarchy 1) with a child, and a
 * task in the child, step by step:
 *   - faults 8 MiB of anonymous memory in and mlocks 2 MiB more,
 *   - writes a 4 MiB tmpfs file (shmem),
 *   - writes a 16 MiB file on the guest's ext4 disk (dirty) and fsyncs
 *     it (clean); the parent drops the page cache; the task maps the
 *     file and reads every 16th page (a major fault each: a fault's
 *     read-around reads the 32 pages centred on it), then every page,
 *     then reads the file twice with pread() (every page activated),
 *   - unmaps and deletes all of it,
 *   - where the guest has swap and the kernel accounts it (the "swap"
 *     key), under a memory.limit_in_bytes of 4 MiB faults 16 MiB in
 *     (12 MiB of it to swap at least), and unmaps it,
 *   - exits; the child is removed.
 * After each step, every key that 5.10's memcg_stat_show() prints from
 * the per-CPU counters (cache, rss, rss_huge, shmem, mapped_file, dirty,
 * writeback, swap, pgpgin, pgpgout, pgfault, pgmajfault, and the LRU
 * lists inactive_anon, active_anon, inactive_file, active_file,
 * unevictable) must show what the task holds, or did so far:
 *   - in the child's own count, within bounds around what was driven
 *     (a key nothing drove stays near 0; one that went up comes down
 *     with what is released; pgpgin counts each page charged, pgpgout
 *     each page uncharged: freed, dropped from the cache, or swapped);
 *   - its total_ form in the child (no children) equals its own count,
 *     and in the parent, which holds nothing itself, the child's: a
 *     count read from another item's slot by the local (own) or the
 *     hierarchical reader, but not by both, shows here;
 *   - the parent's own count stays near 0;
 *   - pgfault and pgmajfault are at most what /proc/vmstat counted
 *     since the task started, pgmajfault at least what it counted
 *     over the mapped read;
 *   - once the child is removed, the parent's total_ events are at
 *     least the child's last own counts.
 *
 * Tolerances, in pages (events: counts): a lower bound is what was
 * driven less (MEMCG_CHARGE_BATCH 32 + PAGEVEC_SIZE 15) per CPU: 5.10
 * adds a cgroup's per-CPU counts to its own and its ancestors' counts
 * in batches of 32, and a page a pagevec holds (15 per CPU) is on no
 * LRU list yet and out of drop_caches' reach; pgfault's and
 * pgmajfault's lower bounds allow the batch alone.  An upper bound
 * adds 512 KiB, what else the task charges (its stack and data copied
 * on write, the ext4 metadata it reads in), and the same per-CPU slack
 * for page counts; swap after the unmap also what the swap slot caches
 * hold (64 slots per CPU).  The sum of two LRU lists gets twice the
 * slack.  A total_ count and the own count(s) it should equal may
 * differ by the slack (read a moment apart), the parent's own count
 * may be up to it.
 *
 * Why: mm510's 0901 and 0902 keep only the items a memory cgroup counts
 * in its per-CPU and atomic arrays, found through a slot table.
 * memcg_events_local(), memcg_page_state_local() and the PGPGIN and
 * PGPGOUT slots are read by cgroup1's memory.stat alone, which no other
 * test reads (review v4, SHOULD-FIX 2); upstream's folded fix to 0901
 * was there (memcg_events_local() read the per-CPU array by event, not
 * by slot).  The test is to pass on 5.10.262 and on the stack alike:
 * neither changes what these keys count.
 * Checked once failing: with 0901's memcg_events_local() reading the
 * per-CPU array by event instead of by slot (the bug upstream's folded
 * fix removed), the child's pgfault was 17 for 1984..2583 driven and
 * its pgmajfault 12472 where 0 was driven, and the test failed.
 *
 * The memory controller moves to a cgroup1 hierarchy only while
 * cgroup2 uses it nowhere (the runner mounts cgroup2 without enabling
 * it; the memcg tests enable it at the root and leave it so), and it
 * stays on that hierarchy for the rest of the boot, away from the
 * other tests' cgroup2, where a cgroup of it is still dying (kept by
 * its page cache) when it is unmounted: 5.10 destroys a cgroup1
 * hierarchy only when it has no cgroups at its unmount.  So the test
 * runs in a boot of its own (the cgroup1 scenario): it skips in a boot
 * whose mm510.tests= does not name it.  Named beside others, it
 * belongs last.
 * Where the root's cgroup.subtree_control has memory, the test removes
 * it (and puts it back at the end where the controller came back).
 *
 * Skipped without the memory controller (CONFIG_MEMCG=n,
 * cgroup_disable=memory, cgroup_no_v1=), without the guest's disk,
 * where the mount fails with EBUSY (cgroup2 keeps the controller), and
 * in a boot that does not name it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmt.h"

#define TEST_NAME	"memcg_v1_stat"
#define MNT		"/mnt/" TEST_NAME
#define PARENT		MNT "/" TEST_NAME
#define CHILD		PARENT "/work"
#define SHM_PATH	"/tmp/" TEST_NAME ".shm"
#define DISK_PATH	MMT_DISK_DIR "/" TEST_NAME ".data"
#define ANON_BYTES	(8LL << 20)
#define MLOCK_BYTES	(2LL << 20)
#define SHM_BYTES	(4LL << 20)
#define DISK_BYTES	(16LL << 20)
#define SWAP_BYTES	(16LL << 20)
#define LIMIT_BYTES	(4LL << 20)
#define EXTRA_BYTES	(512LL << 10)
#define STRIDE		16		/* pages: half of 128 KiB readahead */
#define BATCH		32		/* MEMCG_CHARGE_BATCH */
#define PAGEVEC		15		/* PAGEVEC_SIZE */
#define SWAP_SLOTS	64		/* SWAP_SLOTS_CACHE_SIZE */
#define MOUNT_TRIES	10		/* half a second apart */

/* Where a count comes from, for its bounds. */
enum kind {
	STATE,		/* pages held */
	EVENT,		/* pgpgin, pgpgout */
	FAULT,		/* pgfault, pgmajfault: at most the system's */
	SUM,		/* two LRU lists */
};

enum {
	CACHE, RSS, RSS_HUGE, SHMEM, MAPPED, DIRTY, WRITEBACK, SWAP,
	PGPGIN, PGPGOUT, PGFAULT, PGMAJFAULT,
	INACTIVE_ANON, ACTIVE_ANON, INACTIVE_FILE, ACTIVE_FILE, UNEVICTABLE,
	NR_KEYS,
	ANON_LRU = NR_KEYS, FILE_LRU,
	NR_CHECKS
};

/* optional: rss_huge only with THP, swap only with swap accounting */
static const struct key {
	const char *name;
	enum kind kind;
	int optional;
	int sum[2];		/* SUM: the two keys */
} keys[NR_CHECKS] = {
	[CACHE]		= { "cache", STATE, 0, { 0, 0 } },
	[RSS]		= { "rss", STATE, 0, { 0, 0 } },
	[RSS_HUGE]	= { "rss_huge", STATE, 1, { 0, 0 } },
	[SHMEM]		= { "shmem", STATE, 0, { 0, 0 } },
	[MAPPED]	= { "mapped_file", STATE, 0, { 0, 0 } },
	[DIRTY]		= { "dirty", STATE, 0, { 0, 0 } },
	[WRITEBACK]	= { "writeback", STATE, 0, { 0, 0 } },
	[SWAP]		= { "swap", STATE, 1, { 0, 0 } },
	[PGPGIN]	= { "pgpgin", EVENT, 0, { 0, 0 } },
	[PGPGOUT]	= { "pgpgout", EVENT, 0, { 0, 0 } },
	[PGFAULT]	= { "pgfault", FAULT, 0, { 0, 0 } },
	[PGMAJFAULT]	= { "pgmajfault", FAULT, 0, { 0, 0 } },
	[INACTIVE_ANON]	= { "inactive_anon", STATE, 0, { 0, 0 } },
	[ACTIVE_ANON]	= { "active_anon", STATE, 0, { 0, 0 } },
	[INACTIVE_FILE]	= { "inactive_file", STATE, 0, { 0, 0 } },
	[ACTIVE_FILE]	= { "active_file", STATE, 0, { 0, 0 } },
	[UNEVICTABLE]	= { "unevictable", STATE, 0, { 0, 0 } },
	[ANON_LRU]	= { "inactive_anon+active_anon", SUM, 0,
			    { INACTIVE_ANON, ACTIVE_ANON } },
	[FILE_LRU]	= { "inactive_file+active_file", SUM, 0,
			    { INACTIVE_FILE, ACTIVE_FILE } },
};

/* One read of a memory.stat: the keys and their total_ forms, or -1. */
struct snap {
	long long own[NR_KEYS], total[NR_KEYS];
};

/* What was driven so far, in pages (events: counts). */
struct range {
	long long lo, hi;
};

static long page;
static long long slack, ev_slack, extra;
static long long sys_fault0, sys_major0;
static int go[2] = { -1, -1 }, done[2] = { -1, -1 };

/* The task's memory, between its steps. */
static char *anon, *locked, *swapped, *filemap;
static int filefd = -1;

static int key_index(const char *name)
{
	int i;

	for (i = 0; i < NR_KEYS && strcmp(keys[i].name, name); i++)
		;
	return i;
}

/* /proc/cgroups' memory line: 0, or -1 when it has none (MEMCG=n). */
static int memory_controller(int *hierarchy, int *num, int *enabled)
{
	char line[256];
	int found = -1;
	FILE *f;

	f = fopen("/proc/cgroups", "re");
	if (!f) {
		mmt_log("open /proc/cgroups: %s", strerror(errno));
		return -1;
	}
	while (found && fgets(line, sizeof(line), f))
		if (sscanf(line, "memory %d %d %d", hierarchy, num, enabled) == 3)
			found = 0;
	fclose(f);
	return found;
}

/* This test is in the boot's mm510.tests= (the last one, as the runner reads it). */
static int named_by_boot(void)
{
	static const char word[] = "mm510.tests=";
	char buf[4096], *p, *list = NULL, *save;

	if (mmt_read_file("/proc/cmdline", buf, sizeof(buf)) < 0)
		return 0;
	for (p = buf; (p = strstr(p, word)); p += sizeof(word) - 1)
		if (p == buf || p[-1] == ' ')
			list = p + sizeof(word) - 1;
	if (!list)
		return 0;
	list[strcspn(list, " \n")] = '\0';
	for (p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save))
		if (!strcmp(p, TEST_NAME))
			return 1;
	return 0;
}

static int read_stat(const char *cg, struct snap *s)
{
	char path[256], buf[8192], *line, *save;
	unsigned long long val;
	char name[64];
	int i, total;

	for (i = 0; i < NR_KEYS; i++)
		s->own[i] = s->total[i] = -1;
	snprintf(path, sizeof(path), "%s/memory.stat", cg);
	if (mmt_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%63s %llu", name, &val) != 2)
			continue;
		total = !strncmp(name, "total_", 6);
		i = key_index(name + (total ? 6 : 0));
		if (i == NR_KEYS)
			continue;
		/* Page counts in bytes, events as counts. */
		if (keys[i].kind == STATE)
			val /= page;
		if (total)
			s->total[i] = val;
		else
			s->own[i] = val;
	}
	for (i = 0; i < NR_KEYS; i++)
		if (!keys[i].optional &&
		    !mmt_check(s->own[i] >= 0 && s->total[i] >= 0,
			       "%s has no %s or no total_%s", path,
			       keys[i].name, keys[i].name))
			return -1;
	return 0;
}

/* Check @i's count in @v (a SUM's two), or -1 when it is not shown. */
static long long value(const long long *v, int i)
{
	if (keys[i].kind != SUM)
		return v[i];
	if (v[keys[i].sum[0]] < 0 || v[keys[i].sum[1]] < 0)
		return -1;
	return v[keys[i].sum[0]] + v[keys[i].sum[1]];
}

static void set(struct range *m, int i, long long lo, long long hi)
{
	m[i].lo = lo;
	m[i].hi = hi;
}

/* The anonymous pages mapped: rss, and of it up to all in huge pages. */
static void set_rss(struct range *m, long long lo, long long hi)
{
	set(m, RSS, lo, hi);
	set(m, RSS_HUGE, 0, hi);
}

/* The anon lists hold @lo..@hi, on either list. */
static void set_anon_lru(struct range *m, long long lo, long long hi)
{
	set(m, ANON_LRU, lo, hi);
	set(m, INACTIVE_ANON, 0, hi);
	set(m, ACTIVE_ANON, 0, hi);
}

/* The file lists hold @inactive and @active; NULL: either list. */
static void set_file_lru(struct range *m, long long lo, long long hi,
			 const struct range *inactive,
			 const struct range *active)
{
	set(m, FILE_LRU, lo, hi);
	if (inactive)
		m[INACTIVE_FILE] = *inactive;
	else
		set(m, INACTIVE_FILE, 0, hi);
	if (active)
		m[ACTIVE_FILE] = *active;
	else
		set(m, ACTIVE_FILE, 0, hi);
}

/* The bounds of the child's own count of @i, given the model @m. */
static void bounds(int i, const struct range *m, long long sys_fault,
		   long long sys_major, long long *lo, long long *hi)
{
	switch (keys[i].kind) {
	case STATE:
		*lo = m[i].lo - slack;
		*hi = m[i].hi + extra + slack;
		break;
	case SUM:
		*lo = m[i].lo - 2 * slack;
		*hi = m[i].hi + extra + 2 * slack;
		break;
	case EVENT:
		*lo = m[i].lo - slack;
		*hi = m[i].hi + extra;
		break;
	default:	/* FAULT */
		*lo = m[i].lo - ev_slack;
		*hi = i == PGFAULT ? sys_fault : sys_major;
		break;
	}
	if (*lo < 0)
		*lo = 0;
}

/*
 * Every key of the child's and the parent's memory.stat after @step,
 * against the model @m.  With @last, the child's own counts.
 */
static int check_point(const char *step, const struct range *m,
		       struct snap *last)
{
	long long sys_fault, sys_major, lo, hi, got, ctotal, pown, ptotal, tol;
	struct snap c, p;
	int i, ok = 1;

	if (read_stat(CHILD, &c) || read_stat(PARENT, &p))
		return 0;
	/* After the cgroup's: what it counted, the system had. */
	sys_fault = mmt_vmstat("pgfault") - sys_fault0;
	sys_major = mmt_vmstat("pgmajfault") - sys_major0;
	if (last)
		*last = c;
	mmt_log("after %s (pages; pgpg* and *fault: counts):", step);
	for (i = 0; i < NR_CHECKS; i++) {
		got = value(c.own, i);
		ctotal = value(c.total, i);
		pown = value(p.own, i);
		ptotal = value(p.total, i);
		if (got < 0 || ctotal < 0 || pown < 0 || ptotal < 0) {
			/* an optional key the kernel does not show */
			ok &= mmt_check(keys[i].optional,
					"%s: no %s in a memory.stat", step,
					keys[i].name);
			continue;
		}
		bounds(i, m, sys_fault, sys_major, &lo, &hi);
		tol = keys[i].kind == SUM ? 2 * slack : slack;
		mmt_log("  %-26s child %8lld (total_ %8lld), parent %6lld (total_ %8lld); want %lld..%lld",
			keys[i].name, got, ctotal, pown, ptotal, lo, hi);
		ok &= mmt_check(got >= lo && got <= hi,
				"%s: the child's %s is %lld, want %lld..%lld",
				step, keys[i].name, got, lo, hi);
		ok &= mmt_check(mmt_near(ctotal, got, tol),
				"%s: the child's total_%s is %lld, its own %lld (it has no children)",
				step, keys[i].name, ctotal, got);
		ok &= mmt_check(pown <= tol,
				"%s: the parent's own %s is %lld, and it holds nothing",
				step, keys[i].name, pown);
		ok &= mmt_check(mmt_near(ptotal, got + pown, tol),
				"%s: the parent's total_%s is %lld, its own and the child's %lld",
				step, keys[i].name, ptotal, got + pown);
	}
	return ok;
}

/* Keep @len bytes of private anonymous memory mlocked; 1 when mlock() failed. */
static int map_locked(size_t len)
{
	locked = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (locked == MAP_FAILED) {
		locked = NULL;
		mmt_log("mmap of %zu bytes: %s", len, strerror(errno));
		return -1;
	}
	/* Order-0 pages, as mmt_map_touched(): pgpgin counts a THP once. */
	if (madvise(locked, len, MADV_NOHUGEPAGE) && errno != EINVAL &&
	    errno != ENOSYS) {
		mmt_log("madvise(MADV_NOHUGEPAGE): %s", strerror(errno));
		return -1;
	}
	if (mlock(locked, len)) {
		mmt_log("mlock: %s: unevictable not driven", strerror(errno));
		munmap(locked, len);
		locked = NULL;
		return 1;
	}
	return 0;
}

/* The mapped read: every STRIDE-th page (major faults), then every page. */
static int map_file(void)
{
	volatile char sum = 0;
	long long off;

	filefd = open(DISK_PATH, O_RDONLY | O_CLOEXEC);
	if (filefd < 0) {
		mmt_log("open %s: %s", DISK_PATH, strerror(errno));
		return -1;
	}
	filemap = mmap(NULL, DISK_BYTES, PROT_READ, MAP_SHARED, filefd, 0);
	if (filemap == MAP_FAILED) {
		filemap = NULL;
		mmt_log("mmap %s: %s", DISK_PATH, strerror(errno));
		return -1;
	}
	for (off = 0; off < DISK_BYTES; off += STRIDE * page)
		sum += filemap[off];
	for (off = 0; off < DISK_BYTES; off += page)
		sum += filemap[off];
	return 0;
}

/* Two read()s of every page: the second activates it. */
static int read_file(void)
{
	static char buf[1 << 16];
	long long off;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (off = 0; off < DISK_BYTES; off += sizeof(buf))
			if (pread(filefd, buf, sizeof(buf), off) != sizeof(buf)) {
				mmt_log("pread %s at %lld: %s", DISK_PATH, off,
					strerror(errno));
				return -1;
			}
	return 0;
}

static int fsync_file(void)
{
	int fd = open(DISK_PATH, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || fsync(fd)) {
		mmt_log("fsync %s: %s", DISK_PATH, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return close(fd);
}

static int release(void)
{
	if (munmap(filemap, DISK_BYTES) || close(filefd) ||
	    munmap(anon, ANON_BYTES) ||
	    (locked && munmap(locked, MLOCK_BYTES)) ||
	    unlink(DISK_PATH) || unlink(SHM_PATH)) {
		mmt_log("releasing the task's memory: %s", strerror(errno));
		return -1;
	}
	filemap = anon = locked = NULL;
	filefd = -1;
	return 0;
}

/* One step of the task: 'y' done, 'n' done without mlock, 'e' failed. */
static char task_step(char step)
{
	int r;

	switch (step) {
	case 'a':
		anon = mmt_map_touched(ANON_BYTES, -1);
		if (!anon)
			return 'e';
		r = map_locked(MLOCK_BYTES);
		return r < 0 ? 'e' : r ? 'n' : 'y';
	case 's':
		return mmt_write_filled(SHM_PATH, SHM_BYTES) ? 'e' : 'y';
	case 'w':
		/* A new file: ext4 flushes one truncated and rewritten on close. */
		if (unlink(DISK_PATH) && errno != ENOENT)
			return 'e';
		return mmt_write_filled(DISK_PATH, DISK_BYTES) ? 'e' : 'y';
	case 'f':
		return fsync_file() ? 'e' : 'y';
	case 'm':
		return map_file() ? 'e' : 'y';
	case 'r':
		return read_file() ? 'e' : 'y';
	case 'x':
		return release() ? 'e' : 'y';
	case 'S':
		swapped = mmt_map_touched(SWAP_BYTES, -1);
		return swapped ? 'y' : 'e';
	case 'U':
		return munmap(swapped, SWAP_BYTES) ? 'e' : 'y';
	}
	return 'e';
}

/* The task in CHILD: steps as the parent sends them, until EOF. */
static void task(void)
{
	char step, r = 'y';

	if (mmt_cg_enter(CHILD))
		_exit(2);
	if (write(done[1], &r, 1) != 1)
		_exit(3);
	while (read(go[0], &step, 1) == 1) {
		r = task_step(step);
		if (write(done[1], &r, 1) != 1)
			_exit(3);
		if (r == 'e')
			_exit(4);
	}
	_exit(0);
}

/* Have the task do @step; its answer, or 'e'. */
static char run_step(char step)
{
	char r;

	if (write(go[1], &step, 1) != 1 || read(done[0], &r, 1) != 1) {
		mmt_log("the task stopped before step '%c'", step);
		return 'e';
	}
	if (r == 'e')
		mmt_log("the task failed step '%c'", step);
	return r;
}

/*
 * Mount the memory controller on a cgroup1 hierarchy: 0, or the errno.
 * EBUSY while cgroup2 has memory cgroups, dying ones too.
 */
static int mount_memory(void)
{
	int tries;

	if (mkdir(MNT, 0755) && errno != EEXIST) {
		mmt_log("mkdir %s: %s", MNT, strerror(errno));
		return errno;
	}
	for (tries = 0; mount("none", MNT, "cgroup", 0, "memory"); tries++) {
		if (errno != EBUSY || tries == MOUNT_TRIES) {
			rmdir(MNT);
			return errno;
		}
		mmt_drop_caches();
		usleep(500000);
	}
	return 0;
}

/*
 * Unmount the hierarchy once its cgroups are freed: 5.10 destroys a
 * cgroup1 hierarchy, and gives its controllers back to cgroup2, only
 * when it has no cgroups at its unmount.
 */
static int unmount_memory(void)
{
	int hierarchy, num = -1, enabled, i;

	for (i = 0; i < 50; i++) {
		if (!memory_controller(&hierarchy, &num, &enabled) && num <= 1)
			break;
		if (i % 10 == 0)
			mmt_drop_caches();
		usleep(100000);
	}
	if (num > 1)
		mmt_log("%d memory cgroup(s) still dying: the controller stays on the unmounted cgroup1 hierarchy",
			num - 1);
	if (umount(MNT)) {
		mmt_log("umount %s: %s", MNT, strerror(errno));
		return -1;
	}
	rmdir(MNT);
	return 0;
}

/* Put memory back in the cgroup2 root's subtree_control once it is there. */
static void memory_back_on_cgroup2(void)
{
	int i;

	for (i = 0; i < 20; i++) {
		if (mmt_file_contains(CG_ROOT "/cgroup.controllers", "memory") > 0) {
			mmt_cg_enable_memory(CG_ROOT);
			return;
		}
		usleep(100000);
	}
	mmt_log("memory is not back on cgroup2");
}

int main(void)
{
	long long A, M, S, D, W, L, PV, major0;
	int cpus = mmt_nr_online_cpus(), ret = KSFT_FAIL, status;
	int hierarchy, num, enabled, err, mounted = 0, dfl_off = 0;
	int swap_on = 0, swap_key, ok = 1, i;
	struct range m[NR_CHECKS], inactive, active;
	struct snap last, p;
	pid_t pid = -1;
	char r;

	if (mmt_cmdline_has("cgroup_disable=memory")) {
		mmt_log("memory controller disabled on the command line");
		return KSFT_SKIP;
	}
	if (memory_controller(&hierarchy, &num, &enabled) || !enabled) {
		mmt_log("no memory controller (CONFIG_MEMCG=n, or disabled)");
		return KSFT_SKIP;
	}
	if (mmt_cmdline_has("cgroup_no_v1=memory") ||
	    mmt_cmdline_has("cgroup_no_v1=all")) {
		mmt_log("cgroup_no_v1=: no memory controller on cgroup1");
		return KSFT_SKIP;
	}
	if (!named_by_boot()) {
		mmt_log("runs only in a boot that names it in mm510.tests= (the cgroup1 scenario): on cgroup1 the memory controller is away from the other tests' cgroup2");
		return KSFT_SKIP;
	}
	if (access(MMT_DISK_DIR "/lost+found", F_OK)) {
		mmt_log("no disk in this guest (ci/boot.sh attaches one)");
		return KSFT_SKIP;
	}
	page = sysconf(_SC_PAGESIZE);
	if (cpus < 1 || page <= 0)
		return KSFT_FAIL;
	slack = (long long)(BATCH + PAGEVEC) * cpus;
	ev_slack = (long long)BATCH * cpus;
	extra = EXTRA_BYTES / page;
	A = ANON_BYTES / page;
	M = MLOCK_BYTES / page;
	S = SHM_BYTES / page;
	D = DISK_BYTES / page;
	W = SWAP_BYTES / page;
	L = LIMIT_BYTES / page;
	PV = (long long)PAGEVEC * cpus;

	/* No test before this one in its boot; a memcg test enables it. */
	if (mmt_file_contains(CG_ROOT "/cgroup.subtree_control", "memory") > 0) {
		mmt_log("memory is in %s/cgroup.subtree_control: removing it",
			CG_ROOT);
		if (mmt_write_file(CG_ROOT "/cgroup.subtree_control", "-memory"))
			return KSFT_FAIL;
		dfl_off = 1;
	}
	err = mount_memory();
	if (err == EBUSY) {
		mmt_log("mount -t cgroup -o memory: %s: cgroup2 uses the memory controller (a cgroup with it, maybe dying)",
			strerror(err));
		ret = KSFT_SKIP;
		goto out;
	}
	if (!mmt_check(!err, "mount -t cgroup -o memory on %s: %s", MNT,
		       strerror(err)))
		goto out;
	mounted = 1;
	/* The child's counts go up to the parent only with use_hierarchy. */
	if (mmt_cg_create(PARENT) ||
	    mmt_write_file(PARENT "/memory.use_hierarchy", "1") ||
	    mmt_cg_create(CHILD) || read_stat(CHILD, &last) ||
	    pipe(go) || pipe(done))
		goto out;
	swap_key = last.own[SWAP] >= 0;
	if (!swap_key)
		mmt_log("no swap in memory.stat (no swap accounting): swap not driven");
	else if (access(MMT_SWAP_DEV, F_OK))
		mmt_log("no swap device in this guest: swap not driven");
	unlink(DISK_PATH);
	unlink(SHM_PATH);

	sys_fault0 = mmt_vmstat("pgfault");
	sys_major0 = mmt_vmstat("pgmajfault");
	if (sys_fault0 < 0 || sys_major0 < 0)
		goto out;
	pid = fork();
	if (pid < 0)
		goto out;
	if (!pid) {
		close(go[1]);
		close(done[0]);
		task();
	}
	close(go[0]);
	close(done[1]);
	go[0] = done[1] = -1;
	if (!mmt_check(read(done[0], &r, 1) == 1, "the task did not enter %s",
		       CHILD))
		goto out;
	for (i = 0; i < NR_CHECKS; i++)
		set(m, i, 0, 0);
	set(m, PGFAULT, 0, -1);
	set(m, PGMAJFAULT, 0, -1);

	/* 8 MiB anonymous, 2 MiB of it more mlocked. */
	r = run_step('a');
	if (r == 'e')
		goto out;
	if (r == 'n')
		M = 0;
	set_rss(m, A + M, A + M);
	set(m, UNEVICTABLE, M, M);
	set_anon_lru(m, A, A);
	set(m, PGPGIN, A + M, A + M);
	m[PGFAULT].lo = A;
	ok &= check_point("anon", m, NULL);

	/* shmem: cache, and on the anon lists. */
	if (run_step('s') == 'e')
		goto out;
	set(m, SHMEM, S, S);
	set(m, CACHE, S, S);
	set_anon_lru(m, A + S, A + S);
	set(m, PGPGIN, A + M + S, A + M + S);
	ok &= check_point("shmem", m, NULL);

	/* The disk file written: dirty (writeback may have started). */
	if (run_step('w') == 'e')
		goto out;
	set(m, CACHE, S + D, S + D);
	set(m, DIRTY, D, D);
	set(m, WRITEBACK, 0, D);
	set_file_lru(m, D, D, NULL, NULL);
	set(m, PGPGIN, A + M + S + D, A + M + S + D);
	ok &= check_point("write", m, NULL);

	if (run_step('f') == 'e')
		goto out;
	set(m, DIRTY, 0, 0);
	set(m, WRITEBACK, 0, 0);
	ok &= check_point("fsync", m, NULL);

	/* Its pages dropped (those a pagevec holds stay): pgpgout. */
	if (mmt_drop_caches())
		goto out;
	set(m, CACHE, S, S + PV);
	set_file_lru(m, 0, PV, NULL, NULL);
	set(m, PGPGOUT, D - PV, D);
	ok &= check_point("drop_caches", m, NULL);

	/* Mapped and read back in: major faults, on the inactive list. */
	major0 = mmt_vmstat("pgmajfault");
	if (run_step('m') == 'e')
		goto out;
	m[PGMAJFAULT].lo = mmt_vmstat("pgmajfault") - major0;
	mmt_log("the mapped read: %lld major faults in the system",
		m[PGMAJFAULT].lo);
	set(m, CACHE, S + D, S + D);
	set(m, MAPPED, D, D);
	inactive = (struct range){ D - PV, D };
	active = (struct range){ 0, PV };
	set_file_lru(m, D, D, &inactive, &active);
	set(m, PGPGIN, A + M + S + 2 * D - PV, A + M + S + 2 * D);
	ok &= check_point("mapped read", m, NULL);

	/* Read twice: every page on the active list. */
	if (run_step('r') == 'e')
		goto out;
	inactive = (struct range){ 0, 0 };
	active = (struct range){ D, D };
	set_file_lru(m, D, D, &inactive, &active);
	ok &= check_point("two reads", m, NULL);

	/* All of it released: each page charged is uncharged. */
	if (run_step('x') == 'e')
		goto out;
	set_rss(m, 0, 0);
	set(m, UNEVICTABLE, 0, 0);
	set(m, SHMEM, 0, 0);
	set(m, CACHE, 0, 0);
	set(m, MAPPED, 0, 0);
	set_anon_lru(m, 0, 0);
	set_file_lru(m, 0, 0, NULL, NULL);
	set(m, PGPGOUT, A + M + S + 2 * D - PV, A + M + S + 2 * D);
	ok &= check_point("release", m, NULL);

	/* 16 MiB under a 4 MiB limit: 12 MiB at least to swap. */
	if (swap_key && !access(MMT_SWAP_DEV, F_OK)) {
		if (mmt_swap_on())
			goto out;
		swap_on = 1;
	}
	if (swap_on) {
		char limit[32];

		snprintf(limit, sizeof(limit), "%lld", LIMIT_BYTES);
		if (mmt_write_file(CHILD "/memory.limit_in_bytes", limit) ||
		    run_step('S') == 'e')
			goto out;
		set_rss(m, 0, L);
		set_anon_lru(m, 0, L);
		set(m, SWAP, W - L, W);
		set(m, WRITEBACK, 0, W);
		set(m, PGPGIN, m[PGPGIN].lo + W, m[PGPGIN].hi + W);
		set(m, PGPGOUT, m[PGPGOUT].lo + W - L, m[PGPGOUT].hi + W);
		m[PGFAULT].lo += W;
		ok &= check_point("swap-out", m, NULL);

		/* Unmapped: swapped or resident, every page uncharged. */
		if (run_step('U') == 'e')
			goto out;
		set_rss(m, 0, 0);
		set_anon_lru(m, 0, 0);
		set(m, SWAP, 0, (long long)SWAP_SLOTS * cpus);
		set(m, WRITEBACK, 0, 0);
		set(m, PGPGOUT, m[PGPGOUT].lo + L, m[PGPGOUT].hi);
		ok &= check_point("swap unmapped", m, NULL);
	}

	/* The task exits; the child goes, its counts stay in the parent's. */
	close(go[1]);
	go[1] = -1;
	if (waitpid(pid, &status, 0) != pid ||
	    !mmt_check(WIFEXITED(status) && !WEXITSTATUS(status),
		       "the task failed (status %#x)", status))
		goto out;
	pid = -1;
	ok &= check_point("the task's exit", m, &last);
	if (swap_on) {
		swap_on = 0;
		if (mmt_swap_off())
			goto out;
	}
	if (mmt_cg_destroy(CHILD) || read_stat(PARENT, &p))
		goto out;
	for (i = 0; i < NR_KEYS; i++) {
		if (keys[i].kind != EVENT && keys[i].kind != FAULT)
			continue;
		mmt_log("after the child's removal: the parent's total_%s %lld, the child had %lld",
			keys[i].name, p.total[i], last.own[i]);
		ok &= mmt_check(p.total[i] >= last.own[i],
				"the parent's total_%s is %lld after the child's removal, the child had %lld",
				keys[i].name, p.total[i], last.own[i]);
	}
	ret = ok ? KSFT_PASS : KSFT_FAIL;
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	for (i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (done[i] >= 0)
			close(done[i]);
	}
	unlink(DISK_PATH);
	unlink(SHM_PATH);
	if (swap_on && mmt_swap_off())
		ret = KSFT_FAIL;
	if (mounted) {
		if ((mmt_cg_destroy(CHILD) || mmt_cg_destroy(PARENT) ||
		     unmount_memory()) && ret == KSFT_PASS)
			ret = KSFT_FAIL;
	}
	if (dfl_off)
		memory_back_on_cgroup2();
	return ret;
}
