// SPDX-License-Identifier: GPL-2.0
/*
 * numa_pcp_drain: pages a CPU keeps on its per-cpu list of another
 * node's zone go back to that zone once the list sits idle, up to a
 * batch of them at each drain.
 *
 * Pinned to a CPU of node L, the test faults NR_PAGES pages bound to
 * node R and unmaps them.  The freed pages go to this CPU's per-cpu list
 * of their zone on R (and past that list's high mark back to R in
 * batches).  Nothing on this CPU allocates from R afterwards, so only
 * the vmstat worker's drain of idle remote lists (drain_zone_pages(),
 * three of its rounds after R's counters last changed here) takes pages
 * off that list.  The worker runs on a CPU only while that CPU's zone
 * counters change.  On 5.10.262 every allocation does that, through
 * its per-cpu NUMA counters, which need_update() looks at; on the stack
 * (0123, as upstream since v5.14) it does not: in two boots of the
 * stack the list stayed full for 20 s while the test faulted one or
 * 1024 local pages between polls, where 5.10.262 drained it in 3.8 s.
 * So the test runs the rounds itself: before each poll of the list's
 * count in /proc/zoneinfo (every POLL_MS, for up to WAIT_S seconds) it
 * writes /proc/sys/vm/stat_refresh, which runs the worker's update,
 * drain of idle remote lists included, on every CPU.
 *
 * Then:
 * - the count must fall (the list is drained at all), and
 * - its first fall must be min(count, batch) pages or more: one drain
 *   frees up to a batch, whatever number of pages it frees with
 *   interrupts off at a time ("mm/page_alloc: drain a remote pageset a
 *   few pages at a time" frees it 8 pages per lock section).
 *
 * It passes on 5.10.262 and on the stack.  What breaks it: a drain that
 * stops after its first lock section (checked once: with the loop of
 * that patch ending after one chunk, the first fall was 8 pages of 31),
 * or remote lists that are never drained.  With one node, or no second
 * node with memory, the test skips.
 *
 * Other frees can land on the same list while the test waits: in one
 * boot of the android flavour the list went from 181 to 159 pages in
 * the first 0.1 s (six other boots: a fall of 31 after 0.2 or 0.3 s),
 * most likely six freed pages taking it past its high mark of
 * 186, whose batch free is not the drain under test, and three more
 * after it.  A short first fall is therefore measured again, up to
 * ATTEMPTS times, on a list filled anew; the test fails only if none
 * comes to a batch.  A drain that stops early does so every time, so
 * the retries do not hide it (checked once, on the android flavour:
 * with the loop ending after one chunk, each of the three attempts fell
 * by 8 pages, and the test failed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mmt.h"

#define NR_PAGES	512	/* pages faulted on R and freed on L */
#define POLL_MS		100
#define WAIT_S		20
#define ATTEMPTS	3	/* measurements before a short first fall fails */
#define MAX_CPUS	64

static const char * const zones[] = { "DMA", "DMA32", "Normal", "Movable" };

/* This CPU's pageset of zone @zone of node @nid: 0, or -1 if not listed. */
static int pageset_of(int nid, const char *zone, int cpu, struct mmt_pcp *out)
{
	struct mmt_pcp pcp[MAX_CPUS];
	int i, n;

	n = mmt_zone_pagesets(nid, zone, pcp, MAX_CPUS);
	for (i = 0; i < n; i++) {
		if (pcp[i].cpu == cpu) {
			*out = pcp[i];
			return 0;
		}
	}
	return -1;
}

/*
 * One round of the vmstat update on every CPU.  5.10 runs it, then
 * answers EINVAL if a global counter reads negative (which it names in
 * the kernel log): the round was made all the same.
 */
static int refresh(void)
{
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		mmt_log("open /proc/sys/vm/stat_refresh: %s", strerror(errno));
		return -1;
	}
	n = write(fd, "1", 1);
	if (n < 0 && errno == EINVAL)
		n = 1;
	if (n != 1)
		mmt_log("write /proc/sys/vm/stat_refresh: %s",
			n < 0 ? strerror(errno) : "short write");
	close(fd);
	return n == 1 ? 0 : -1;
}

/* The zone of node @nid whose pageset on @cpu holds the most pages. */
static const char *fullest_zone(int nid, int cpu, struct mmt_pcp *out)
{
	const char *best = NULL;
	struct mmt_pcp p;
	unsigned int i;

	for (i = 0; i < sizeof(zones) / sizeof(zones[0]); i++) {
		if (pageset_of(nid, zones[i], cpu, &p))
			continue;
		if (!best || p.count > out->count) {
			best = zones[i];
			*out = p;
		}
	}
	return best;
}

/*
 * One measurement: fill this CPU's list of node @remote's zone, then
 * refresh and poll until its count changes.  Returns KSFT_PASS when the
 * first fall is a batch (or the whole list), KSFT_FAIL with @short_fall
 * set when it is less (a failure only when @last), KSFT_FAIL otherwise.
 */
static int attempt(int local, int cpu, int remote, int last, int *short_fall)
{
	long page_size = sysconf(_SC_PAGESIZE), want, fall;
	struct mmt_pcp start, now;
	const char *zone;
	double until;
	char *buf;

	*short_fall = 0;
	buf = mmt_map_touched(NR_PAGES * page_size, remote);
	if (!buf)
		return KSFT_FAIL;
	munmap(buf, NR_PAGES * page_size);

	zone = fullest_zone(remote, cpu, &start);
	if (!mmt_check(zone, "node %d lists no pageset of CPU %d", remote, cpu))
		return KSFT_FAIL;
	mmt_log("CPU %d (node %d) holds %ld pages of node %d's %s zone on its list (high %ld, batch %ld)",
		cpu, local, start.count, remote, zone, start.high,
		start.batch);
	if (!mmt_check(start.count > 0 && start.batch > 0,
		       "no pages left on the list after the unmap, or no batch"))
		return KSFT_FAIL;
	want = start.count < start.batch ? start.count : start.batch;

	until = mmt_now() + WAIT_S;
	now = start;
	while (mmt_now() < until) {
		if (refresh())
			return KSFT_FAIL;
		usleep(POLL_MS * 1000);
		if (pageset_of(remote, zone, cpu, &now))
			return KSFT_FAIL;
		if (now.count != start.count)
			break;
	}
	fall = start.count - now.count;
	mmt_log("after %.1f s: %ld pages on the list, a fall of %ld (wanted %ld or more)",
		WAIT_S - (until - mmt_now()), now.count, fall, want);
	if (!mmt_check(fall > 0, "the list of node %d's %s zone was not drained in %d s",
		       remote, zone, WAIT_S))
		return KSFT_FAIL;
	if (fall >= want)
		return KSFT_PASS;
	*short_fall = 1;
	if (last)
		mmt_fail_at(__FILE__, __LINE__,
			    "the first drain freed %ld pages, not min(count %ld, batch %ld)",
			    fall, start.count, start.batch);
	else
		mmt_log("a first fall of %ld, short of %ld: measured again",
			fall, want);
	return KSFT_FAIL;
}

int main(void)
{
	int local, remote, cpu, i, ret = KSFT_FAIL, short_fall = 1;

	if (mmt_node_pair(&local, &cpu, &remote))
		return KSFT_SKIP;
	if (mmt_pin_cpu(cpu))
		return KSFT_FAIL;

	for (i = 1; i <= ATTEMPTS && short_fall; i++) {
		if (i > 1)
			mmt_log("attempt %d of %d: the list filled again", i, ATTEMPTS);
		ret = attempt(local, cpu, remote, i == ATTEMPTS, &short_fall);
	}
	return ret;
}
