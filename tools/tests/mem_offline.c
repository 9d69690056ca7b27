// SPDX-License-Identifier: GPL-2.0
/*
 * mem_offline: memory blocks of the movable zone go offline and come back
 * while other tasks allocate and free, and the per-cpu page lists and
 * counters around it add up.
 *
 * Runs where a memory block sits in ZONE_MOVABLE (the memhp scenario: a
 * hot-pluggable DIMM onlined with memhp_default_state=online_movable);
 * skips elsewhere.  On arm64 it always skips: QEMU's virt machine booted
 * from a device tree has no memory hotplug, and 5.10's arm64 refuses to
 * offline boot memory (prevent_bootmem_remove_notifier()), so there is no
 * block to take offline.  On one such block B of node N:
 *
 * 1. Per-cpu lists off during an offline (0106/0107, Vlastimil Babka's
 *    ec6e8c7e0314): a page of B is pinned (vmsplice() holds a reference,
 *    so it cannot migrate) and a child writes "offline" to B.  The offline
 *    keeps retrying; meanwhile /proc/zoneinfo must show high 0 and batch 1
 *    for every CPU's pageset of N's movable zone.  The child is then
 *    killed: the offline fails with -EINTR, B stays online, and the
 *    pagesets are back to exactly what they were.
 * 2. Frees from an isolated pageblock are counted (0138, Yosry Ahmed's
 *    ec867977fed0): B is filled with this test's anonymous pages and
 *    offlined.  Every page migrated out of B is freed while B is isolated,
 *    which since 0128 (df1acc856923) goes through free_one_page(); pgfree
 *    in /proc/vmstat must grow by at least pgmigrate_success.  After the
 *    offline the zone's pagesets are live again (high at least batch, not
 *    0/1), and once B is online again they are what they were before.
 * 3. Offline under load: two tasks map, touch and unmap memory without
 *    pause while B, filled again, goes offline and online (2 times, 20 in
 *    the long form); each offline completes.
 * 4. Nothing is lost: with everything unmapped and B online, the free
 *    pages (zones plus per-cpu lists) are back within FREE_SLACK of the
 *    start.
 * 5. The zone emptied and refilled (zone_pcp_reset() and
 *    setup_zone_pageset() as 0102-0105 and 0121 leave them): with every
 *    movable block of node N offline, the zone lists no pagesets; once
 *    they are online again, its new pagesets have exactly the high and
 *    batch they had at the start.
 *
 * Checked once against kernels without the fixes: with 0138 reverted,
 * step 2 fails (pgfree grew by 23 while 32477 pages were migrated out of
 * the block); with 0107's zone_pcp_disable() reduced to the drain 5.10
 * did before, step 1 fails (the pagesets kept their high and batch
 * throughout the offline).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmt.h"

#define MEM_SYS		"/sys/devices/system/memory"
#define MAX_CPUS	64
#define PAGE		4096UL
/*
 * Free pages may differ by this much for reasons of their own: page
 * tables, slab and the pagemap buffers this test made, the runner.
 */
#define FREE_SLACK	1024
/* Pages of B this test's memory must cover before B is offlined. */
#define MIN_IN_BLOCK	4096
#define MAX_BLOCKS	16

struct block {
	char name[32];		/* memoryNNN */
	int node;
	unsigned long start_pfn, nr_pages;
};

static unsigned long block_pages;

static int block_file(const struct block *b, const char *file, char *buf,
		      size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), MEM_SYS "/%.31s/%s", b->name, file);
	return mmt_read_file(path, buf, size) < 0 ? -1 : 0;
}

static int block_set(const struct block *b, const char *state)
{
	char path[128];

	snprintf(path, sizeof(path), MEM_SYS "/%.31s/state", b->name);
	return mmt_write_file(path, state);
}

static int block_is(const struct block *b, const char *state)
{
	char buf[32];

	if (block_file(b, "state", buf, sizeof(buf)))
		return 0;
	return !strncmp(buf, state, strlen(state)) &&
	       buf[strlen(state)] == '\n';
}

/* The node a block belongs to: its "nodeN" link. */
static int block_node(const char *name)
{
	char path[128];
	struct dirent *d;
	int node = -1;
	DIR *dir;

	snprintf(path, sizeof(path), MEM_SYS "/%s", name);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (!strncmp(d->d_name, "node", 4) &&
		    d->d_name[4] >= '0' && d->d_name[4] <= '9')
			node = atoi(d->d_name + 4);
	}
	closedir(dir);
	return node;
}

/*
 * The online memory blocks that are in ZONE_MOVABLE, up to @max; the
 * first of them is B.  Returns how many were found, or -1.
 */
static int find_movable_blocks(struct block *blocks, int max)
{
	struct block *b = blocks;
	struct dirent *d;
	char buf[64];
	DIR *dir;
	int found = 0;

	if (access(MEM_SYS "/block_size_bytes", R_OK))
		return 0;	/* no memory hotplug in this kernel */
	if (mmt_read_file(MEM_SYS "/block_size_bytes", buf, sizeof(buf)) < 0)
		return -1;
	block_pages = strtoul(buf, NULL, 16) / PAGE;
	dir = opendir(MEM_SYS);
	if (!dir)
		return -1;
	while (found < max && (d = readdir(dir))) {
		if (strncmp(d->d_name, "memory", 6) ||
		    d->d_name[6] < '0' || d->d_name[6] > '9')
			continue;
		snprintf(b->name, sizeof(b->name), "%.31s", d->d_name);
		if (!block_is(b, "online") ||
		    block_file(b, "valid_zones", buf, sizeof(buf)) ||
		    strncmp(buf, "Movable\n", 8))
			continue;
		if (block_file(b, "phys_index", buf, sizeof(buf)))
			continue;
		b->start_pfn = strtoul(buf, NULL, 16) * block_pages;
		b->nr_pages = block_pages;
		b->node = block_node(b->name);
		if (b->node < 0 || (found && b->node != blocks[0].node))
			continue;
		found++;
		b = &blocks[found < max ? found : max - 1];
	}
	closedir(dir);
	return found;
}

static int movable_pagesets(const struct block *b, struct mmt_pcp *pcp)
{
	int n = mmt_zone_pagesets(b->node, "Movable", pcp, MAX_CPUS);

	if (n <= 0)
		mmt_log("no pagesets for node %d, zone Movable", b->node);
	return n;
}

static int pagesets_equal(const struct mmt_pcp *a, const struct mmt_pcp *b,
			  int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (a[i].cpu != b[i].cpu || a[i].high != b[i].high ||
		    a[i].batch != b[i].batch) {
			mmt_log("cpu %d: high %ld batch %ld, was cpu %d: high %ld batch %ld",
				b[i].cpu, b[i].high, b[i].batch,
				a[i].cpu, a[i].high, a[i].batch);
			return 0;
		}
	}
	return 1;
}

/* Every CPU's pageset of the zone as zone_pcp_disable() leaves it. */
static int pagesets_disabled(const struct mmt_pcp *p, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (p[i].high != 0 || p[i].batch != 1)
			return 0;
	}
	return n > 0;
}

static int pagesets_live(const struct mmt_pcp *p, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (p[i].batch < 1 || p[i].high < p[i].batch) {
			mmt_log("cpu %d: high %ld batch %ld", p[i].cpu,
				p[i].high, p[i].batch);
			return 0;
		}
	}
	return n > 0;
}

/* The pages of [p, p + len) in @b; with @first, the first one's address. */
static long pages_in_block(char *p, size_t len, const struct block *b,
			   char **first)
{
	return mmt_pages_in_pfns(p, len, b->start_pfn,
				 b->start_pfn + b->nr_pages, first);
}

/* Node @node's free memory in pages, from its meminfo. */
static long long node_free_pages(int node)
{
	long long kb = mmt_node_meminfo(node, "MemFree");

	return kb < 0 ? -1 : kb / 4;
}

/*
 * Map memory on B's node until at least MIN_IN_BLOCK of its pages are in
 * B: the movable zone comes first for user pages, so B fills up.  B holds
 * block_pages; the zone may hold more blocks than B, so map most of the
 * node's free memory, in steps.
 */
static char *fill_block(const struct block *b, size_t *len, long *in_block)
{
	long long free = node_free_pages(b->node);
	size_t step = 16UL << 20, want;
	char *p;

	if (free < 0)
		return NULL;
	/* Leave the node 64 MiB, so that the offline can migrate to it. */
	want = free * PAGE > (96UL << 20) ? free * PAGE - (64UL << 20) : step;
	want = want / step * step;
	if (want > 2 * block_pages * PAGE)
		want = 2 * block_pages * PAGE;
	p = mmt_map_touched(want, b->node);
	if (!p)
		return NULL;
	*len = want;
	*in_block = pages_in_block(p, want, b, NULL);
	return p;
}

/* Step 1: the offline is under way while a page of B is pinned. */
static int step_pinned(const struct block *b, const struct mmt_pcp *before,
		       int ncpu)
{
	struct mmt_pcp now[MAX_CPUS];
	struct iovec iov;
	int pfd[2] = { -1, -1 }, status, seen = 0, ret = 0, n;
	char *p, *page = NULL;
	size_t len;
	long in;
	pid_t pid;
	double end;

	p = fill_block(b, &len, &in);
	if (!p)
		return 0;
	if (!mmt_check(in > 0 && pages_in_block(p, len, b, &page) > 0,
		       "none of %zu bytes on node %d landed in %s",
		       len, b->node, b->name))
		goto out;
	if (pipe(pfd)) {
		mmt_log("pipe: %s", strerror(errno));
		goto out;
	}
	iov.iov_base = page;
	iov.iov_len = PAGE;
	if (vmsplice(pfd[1], &iov, 1, 0) != (ssize_t)PAGE) {
		mmt_log("vmsplice: %s", strerror(errno));
		goto out;
	}

	pid = fork();
	if (pid < 0)
		goto out;
	if (!pid)
		_exit(block_set(b, "offline") ? 1 : 0);

	/* zone_pcp_disable() comes first in offline_pages(). */
	end = mmt_now() + 60;
	while (mmt_now() < end && !seen) {
		n = movable_pagesets(b, now);
		if (n != ncpu)
			break;
		seen = pagesets_disabled(now, n);
		if (!seen)
			usleep(50000);
	}
	/* Still disabled a while later: the offline is retrying. */
	if (seen) {
		usleep(500000);
		n = movable_pagesets(b, now);
		seen = n == ncpu && pagesets_disabled(now, n) &&
		       waitpid(pid, &status, WNOHANG) == 0;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (!mmt_check(seen, "the pagesets of node %d's movable zone did not read high 0 batch 1 while %s was being offlined",
		       b->node, b->name))
		goto out;
	mmt_log("during the offline: every pageset at high 0 batch 1");
	if (!mmt_check(block_is(b, "online"),
		       "%s is not online after the offline was interrupted",
		       b->name))
		goto out;
	n = movable_pagesets(b, now);
	if (!mmt_check(n == ncpu && pagesets_equal(before, now, n),
		       "pagesets not restored after the interrupted offline"))
		goto out;
	ret = 1;
out:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	munmap(p, len);
	return ret;
}

/* Step 2: a counted offline of a full B, and B back online. */
static int step_counted(const struct block *b, const struct mmt_pcp *before,
			int ncpu)
{
	long long free0, migr0, free1, migr1;
	struct mmt_pcp now[MAX_CPUS];
	size_t len;
	long in;
	int n, ret = 0;
	char *p;

	p = fill_block(b, &len, &in);
	if (!p)
		return 0;
	mmt_log("%ld of %zu pages in %s", in, len / PAGE, b->name);
	if (!mmt_check(in >= MIN_IN_BLOCK, "only %ld pages landed in %s", in,
		       b->name))
		goto out;

	free0 = mmt_vmstat("pgfree");
	migr0 = mmt_vmstat("pgmigrate_success");
	if (!mmt_check(free0 >= 0 && migr0 >= 0,
		       "no pgfree or pgmigrate_success in /proc/vmstat"))
		goto out;
	if (!mmt_check(!block_set(b, "offline") && block_is(b, "offline"),
		       "%s did not go offline", b->name))
		goto out;
	free1 = mmt_vmstat("pgfree");
	migr1 = mmt_vmstat("pgmigrate_success");
	mmt_log("offline of %s: pgmigrate_success +%lld, pgfree +%lld",
		b->name, migr1 - migr0, free1 - free0);
	if (!mmt_check(migr1 - migr0 >= in,
		       "%lld pages migrated, %ld were in %s", migr1 - migr0,
		       in, b->name) ||
	    !mmt_check(free1 - free0 >= migr1 - migr0,
		       "pgfree grew by %lld, less than the %lld pages migrated out of the isolated block",
		       free1 - free0, migr1 - migr0))
		goto online;

	n = movable_pagesets(b, now);
	if (n > 0 && !mmt_check(n == ncpu && pagesets_live(now, n),
				"pagesets not live after the offline"))
		goto online;
	ret = 1;
online:
	if (!mmt_check(!block_set(b, "online_movable") && block_is(b, "online"),
		       "%s did not come back online", b->name)) {
		ret = 0;
		goto out;
	}
	n = movable_pagesets(b, now);
	if (!mmt_check(n == ncpu && pagesets_equal(before, now, n),
		       "pagesets after offline and online differ from before"))
		ret = 0;
out:
	munmap(p, len);
	return ret;
}

/* A task that maps, touches and unmaps 4 MiB until it is killed. */
static pid_t churn(void)
{
	size_t len = 4UL << 20, i;
	pid_t pid = fork();
	char *p;

	if (pid)
		return pid;
	for (;;) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(1);
		for (i = 0; i < len; i += PAGE)
			p[i] = 1;
		munmap(p, len);
	}
}

/* Step 3: offline and online cycles of a filled B under load. */
static int step_loaded(const struct block *b, int cycles)
{
	pid_t workers[2] = { -1, -1 };
	int i, status, ret = 0;
	size_t len;
	long in;
	char *p;

	p = fill_block(b, &len, &in);
	if (!p)
		return 0;
	for (i = 0; i < 2; i++) {
		workers[i] = churn();
		if (workers[i] < 0)
			goto out;
	}
	for (i = 0; i < cycles; i++) {
		if (!mmt_check(!block_set(b, "offline") && block_is(b, "offline"),
			       "cycle %d: %s did not go offline under load",
			       i, b->name) ||
		    !mmt_check(!block_set(b, "online_movable") &&
			       block_is(b, "online"),
			       "cycle %d: %s did not come back online", i,
			       b->name))
			goto out;
		/* Fill B again from where its pages were migrated to. */
		munmap(p, len);
		p = fill_block(b, &len, &in);
		if (!p)
			goto out;
	}
	mmt_log("%d offline/online cycles of %s under load", cycles, b->name);
	ret = 1;
out:
	for (i = 0; i < 2; i++) {
		if (workers[i] > 0) {
			kill(workers[i], SIGKILL);
			waitpid(workers[i], &status, 0);
		}
	}
	if (p)
		munmap(p, len);
	if (!block_is(b, "online") && block_set(b, "online_movable"))
		ret = 0;
	return ret;
}

/*
 * Step 5: every block of the movable zone offline, so the zone is empty
 * and its pagesets are freed (zone_pcp_reset()), then online again: the
 * new pagesets must get the zone's limits, not keep the boot ones.
 */
static int step_emptied(struct block *blocks, int n,
			const struct mmt_pcp *before, int ncpu)
{
	struct mmt_pcp now[MAX_CPUS];
	int i, ret = 1, got;

	for (i = 0; i < n; i++) {
		if (!mmt_check(!block_set(&blocks[i], "offline"),
			       "%s did not go offline", blocks[i].name))
			ret = 0;
	}
	got = mmt_zone_pagesets(blocks[0].node, "Movable", now, MAX_CPUS);
	if (ret && !mmt_check(got == 0,
			      "node %d's movable zone still lists %d pagesets with all %d blocks offline",
			      blocks[0].node, got, n))
		ret = 0;
	for (i = 0; i < n; i++) {
		if (!block_is(&blocks[i], "online") &&
		    !mmt_check(!block_set(&blocks[i], "online_movable"),
			       "%s did not come back online", blocks[i].name))
			ret = 0;
	}
	if (!ret)
		return 0;
	got = movable_pagesets(&blocks[0], now);
	if (!mmt_check(got == ncpu && pagesets_equal(before, now, got),
		       "the movable zone's pagesets after it was emptied and onlined again differ from before"))
		return 0;
	mmt_log("all %d blocks of the movable zone offline and online again: pagesets as before",
		n);
	return 1;
}

int main(void)
{
	struct mmt_pcp before[MAX_CPUS];
	long long free_start;
	int ncpu, found, ret = KSFT_FAIL;
	struct block blocks[MAX_BLOCKS], b;

	found = find_movable_blocks(blocks, MAX_BLOCKS);
	if (found < 0)
		return KSFT_FAIL;
	if (!found) {
		mmt_log("SKIP: no online memory block in ZONE_MOVABLE (boot with a hot-pluggable DIMM and memhp_default_state=online_movable: the memhp scenario)");
		return KSFT_SKIP;
	}
	b = blocks[0];
	mmt_log("%s: node %d, pfn %#lx, %lu pages; %d movable block(s) on the node",
		b.name, b.node, b.start_pfn, b.nr_pages, found);
	ncpu = movable_pagesets(&b, before);
	if (ncpu <= 0 || !mmt_check(pagesets_live(before, ncpu),
				    "pagesets of the movable zone not live at the start"))
		return KSFT_FAIL;

	mmt_drop_caches();
	free_start = mmt_free_pages();
	if (free_start < 0)
		return KSFT_FAIL;

	if (!step_pinned(&b, before, ncpu) || !step_counted(&b, before, ncpu) ||
	    !step_loaded(&b, mmt_stress_pick(2, 20)) ||
	    !step_emptied(blocks, found, before, ncpu))
		goto out;

	if (!mmt_free_pages_back(free_start, FREE_SLACK))
		goto out;
	ret = KSFT_PASS;
out:
	for (found--; found >= 0; found--) {
		if (!block_is(&blocks[found], "online"))
			block_set(&blocks[found], "online_movable");
	}
	return ret;
}
