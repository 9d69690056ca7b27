// SPDX-License-Identifier: GPL-2.0
/*
 * Memory pressure and memcg OOM: a task in a cgroup with a low
 * memory.max allocates far beyond it.  The OOM killer must kill it in
 * that cgroup and nowhere else:
 *   - the task dies by SIGKILL, memory.events' oom_kill grows by one
 *     per round, and the system-wide oom_kill in /proc/vmstat (where the
 *     kernel counts VM events) grows by exactly as much (no kill outside
 *     the cgroup); the bystander's cgroup counts no kill,
 *   - a bystander task in a sibling cgroup without a limit, allocating
 *     at the same time, finishes its work untouched, and so does this
 *     test (the rest of the system keeps running),
 *   - memory.current never ends above memory.max, drops back to (almost)
 *     zero once the task is gone, and the free pages are back within a
 *     small tolerance after the cgroups are removed.
 *
 * The kernel prints a stack trace with every OOM report; the runner
 * accepts a "Call Trace" inside an OOM report and nothing else.
 *
 * Short form (make check): 3 rounds; mm510.stress=long: 40.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmt.h"

#define PARENT		CG_ROOT "/stress_oom"
#define VICTIM		PARENT "/limited"
#define BYSTANDER	PARENT "/free"
#define LIMIT		(32 << 20)
#define CHUNK		(1 << 20)
#define HOG_MAX		(256 << 20)
#define BYSTANDER_SIZE	(24 << 20)
#define FREE_TOLERANCE	2048		/* pages, 8 MiB */

/* Touch memory until HOG_MAX; only the OOM killer should stop it. */
static void hog(void)
{
	long done;

	if (mmt_cg_enter(VICTIM))
		_exit(2);
	for (done = 0; done < HOG_MAX; done += CHUNK) {
		char *p = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(3);
		memset(p, 0x5a, CHUNK);
	}
	_exit(0);	/* not killed: the limit did not hold */
}

/* Allocate, check and free memory beside the victim. */
static void bystander(long rounds)
{
	long r, i;

	if (mmt_cg_enter(BYSTANDER))
		_exit(2);
	for (r = 0; r < rounds; r++) {
		char *p = mmap(NULL, BYSTANDER_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(3);
		memset(p, (int)r, BYSTANDER_SIZE);
		for (i = 0; i < BYSTANDER_SIZE; i += 4096)
			if (p[i] != (char)r)
				_exit(4);
		munmap(p, BYSTANDER_SIZE);
	}
	_exit(0);
}

int main(void)
{
	long nr = mmt_stress_pick(3, 40), r, rounds = 0;
	long long kills0, vm_kills0, kills, vm_kills, by_kills, cur, free0, free1;
	double budget = mmt_stress_pick(120, 1200), t0;
	int ret = KSFT_FAIL, status;
	pid_t by = 0, pid;
	char limit[32];

	if (mmt_cmdline_has("cgroup_disable=memory")) {
		mmt_log("memory controller disabled on the command line");
		return KSFT_SKIP;
	}
	mmt_drop_caches();
	free0 = mmt_free_pages();
	if (mmt_cg_enable_memory(CG_ROOT) || mmt_cg_create(PARENT) ||
	    mmt_cg_enable_memory(PARENT) || mmt_cg_create(VICTIM) ||
	    mmt_cg_create(BYSTANDER))
		goto cleanup;
	snprintf(limit, sizeof(limit), "%d", LIMIT);
	if (mmt_write_file(VICTIM "/memory.max", limit))
		goto cleanup;

	kills0 = mmt_key_value(VICTIM "/memory.events", "oom_kill");
	if (!mmt_check(kills0 == 0, "memory.events oom_kill unreadable or not 0 (%lld)",
		       kills0))
		goto cleanup;
	/* Only with CONFIG_VM_EVENT_COUNTERS: -1 otherwise. */
	vm_kills0 = mmt_vmstat("oom_kill");
	if (vm_kills0 < 0)
		mmt_log("no oom_kill in /proc/vmstat (CONFIG_VM_EVENT_COUNTERS=n): kills outside %s are checked by the bystander only",
			PARENT);

	by = fork();
	if (by < 0)
		goto cleanup;
	if (!by)
		bystander(nr * 4);

	t0 = mmt_now();
	for (r = 0; r < nr; r++) {
		if (mmt_now() - t0 > budget && r >= 2)
			break;
		pid = fork();
		if (pid < 0)
			goto cleanup;
		if (!pid)
			hog();
		if (waitpid(pid, &status, 0) != pid)
			goto cleanup;
		if (!mmt_check(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
			       "round %ld: the task was not OOM-killed (status 0x%x)",
			       r, status))
			goto cleanup;
		rounds++;
		kills = mmt_key_value(VICTIM "/memory.events", "oom_kill");
		if (!mmt_check(kills == kills0 + rounds,
			       "round %ld: memory.events oom_kill %lld, expected %lld",
			       r, kills, kills0 + rounds))
			goto cleanup;
	}
	if (waitpid(by, &status, 0) != by)
		goto cleanup;
	by = 0;
	if (!mmt_check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		       "the bystander did not finish its work (status 0x%x)",
		       status))
		goto cleanup;

	kills = mmt_key_value(VICTIM "/memory.events", "oom_kill");
	vm_kills = vm_kills0 < 0 ? kills - kills0 :
		   mmt_vmstat("oom_kill") - vm_kills0;
	by_kills = mmt_key_value(BYSTANDER "/memory.events", "oom_kill");
	cur = mmt_cg_read_ll(VICTIM, "memory.current");
	mmt_log("%ld OOM rounds in %.1f s: memory.events oom_kill %lld (bystander %lld), memory.current %lld after",
		rounds, mmt_now() - t0, kills, by_kills, cur);
	if (vm_kills0 >= 0)
		mmt_log("vmstat oom_kill +%lld", vm_kills);
	if (!mmt_check(vm_kills == kills - kills0,
		       "%lld OOM kills outside the cgroup",
		       vm_kills - (kills - kills0)) ||
	    !mmt_check(by_kills == 0, "%lld OOM kills in the bystander's cgroup",
		       by_kills) ||
	    !mmt_check(cur >= 0 && cur < LIMIT / 8,
		       "%lld bytes still charged to the dead task's cgroup", cur))
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	if (by > 0) {
		kill(by, SIGKILL);
		waitpid(by, NULL, 0);
	}
	if (mmt_cg_destroy(VICTIM) || mmt_cg_destroy(BYSTANDER) ||
	    mmt_cg_destroy(PARENT))
		ret = KSFT_FAIL;
	if (ret == KSFT_PASS) {
		mmt_drop_caches();
		free1 = mmt_free_pages();
		mmt_log("free pages (buddy + pcp) %lld -> %lld (%+lld)", free0,
			free1, free1 - free0);
		if (!mmt_check(free1 >= free0 - FREE_TOLERANCE,
			       "%lld pages missing after the OOM rounds",
			       free0 - free1))
			ret = KSFT_FAIL;
	}
	return ret;
}
