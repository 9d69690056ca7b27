// SPDX-License-Identifier: GPL-2.0
/*
 * android_hooks: on the Android common kernel, the vendor hooks in the
 * code the android flavour changes are still called, and those that ACK
 * calls with interrupts disabled still are.
 *
 * Runs where tools/modules/android_hooks.ko was built (ACK with
 * CONFIG_ANDROID_VENDOR_HOOKS: the android scenario); skips elsewhere.
 * The module attaches a probe to seven hooks, as a vendor module would,
 * and counts their calls.  Here:
 * - the module's run (high-order pages, then a bulk allocation larger
 *   than a per-cpu list, all freed) calls android_vh_rmqueue at least
 *   once per high-order page, android_vh_rmqueue_bulk_bypass during the
 *   bulk allocation (the android form of 0108 refills through ACK's
 *   get_populated_pcp_list()), android_vh_test_clear_look_around_ref
 *   for each page of the bulk allocation (prep_new_page(), in its loop
 *   with interrupts disabled: logged), and
 *   android_vh_free_unref_page_bypass;
 * - a write to vm.percpu_pagelist_fraction calls
 *   android_vh_pageset_update;
 * - an attempt to offline the last online memory block (put back online
 *   where it succeeds) never shows android_vh_pageset_update the high of
 *   0 with which zone_pcp_disable() turns the zone's pcplists off: a
 *   vendor handler that raised it would keep them on during offline;
 * - a memory cgroup made and removed calls android_vh_mem_cgroup_free
 *   once it is freed;
 * - android_vh_rmqueue, android_vh_rmqueue_bulk_bypass and
 *   android_vh_pcplist_add_cma_pages_bypass were never called with
 *   interrupts enabled, over the whole test.
 * A form that moves a hook out of its path, or out from under the
 * interrupt state ACK gives it (0126 upstream's way: rmqueue() enabling
 * interrupts at the zone unlock, before the hook), fails this test.
 * Checked once with android/0126 made as upstream's 0126 (rmqueue()
 * with spin_unlock_irqrestore() before the hook): "android_vh_rmqueue
 * called 34 times with interrupts enabled", and the test failed.
 * The offline step: checked once failing with android/0107's form
 * calling the hook in pageset_update(), where ACK calls it, so that
 * zone_pcp_disable() showed it its high of 0: "android_vh_pageset_update
 * was shown a high of 0 2 times" (once per CPU) after memory15's offline
 * failed with EBUSY, and the test failed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mmt.h"

#define MOD		"android_hooks"
#define RUN_ORDER	32	/* the module's order-2 allocations per run */
#define RUN_BULK	1024	/* its bulk allocation's pages */
#define CG		CG_ROOT "/mm510-android-hooks"
#define FRACTION	"/proc/sys/vm/percpu_pagelist_fraction"
#define WAIT_MS		10000
#define MEM_SYS		"/sys/devices/system/memory"
#define OFFLINE_S	20

static long long hook(const char *what, const char *name)
{
	char param[96];

	snprintf(param, sizeof(param), "%s_%s", what, name);
	return mmt_module_param_read(MOD, param);
}

/* Wait up to WAIT_MS for a hook's calls to pass @than. */
static long long wait_calls(const char *name, long long than)
{
	double deadline = mmt_now() + WAIT_MS / 1000.0;
	long long n;

	do {
		n = hook("calls", name);
		if (n < 0 || n > than)
			return n;
		usleep(100 * 1000);
	} while (mmt_now() < deadline);
	return n;
}

static int pageset_step(void)
{
	char old[32] = "0";
	long long before = hook("calls", "pageset_update"), after;
	int ok;

	if (access(FRACTION, W_OK)) {
		mmt_log("no %s: pageset_update left unchecked", FRACTION);
		return 0;
	}
	if (mmt_read_file(FRACTION, old, sizeof(old)) < 0)
		return -1;
	if (mmt_write_file(FRACTION, "8") || mmt_write_file(FRACTION, old))
		return -1;
	after = hook("calls", "pageset_update");
	mmt_log("percpu_pagelist_fraction 8, then back to %.*s: pageset_update %lld -> %lld",
		(int)strcspn(old, "\n"), old, before, after);
	ok = mmt_check(after > before, "android_vh_pageset_update was not called");
	return ok ? 0 : -1;
}

static void on_alarm(int sig)
{
}

/*
 * Write @s to a memory block's state: 0, or the write's -errno.  An
 * offline that keeps retrying its migration is ended by a signal after
 * OFFLINE_S seconds (EINTR).
 */
static int block_state(const char *path, const char *s)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART */
	alarm(OFFLINE_S);
	if (write(fd, s, strlen(s)) < 0)
		err = -errno;
	alarm(0);
	close(fd);
	return err;
}

/*
 * The highest-numbered online memory block, offlined and onlined again
 * where that succeeds.  offline_pages() turns the zone's pcplists off
 * (zone_pcp_disable()) before it isolates the block, so an attempt that
 * fails to isolate or migrate (EBUSY) has been there too; one refused
 * before (EINVAL: a block across zones) has not, and the step is left
 * unchecked.
 */
static int offline_step(void)
{
	char path[PATH_MAX], state[32], name[64] = "";
	long long zero;
	struct dirent *d;
	int err, ok;
	DIR *dir;
	long n, best = -1;

	dir = opendir(MEM_SYS);
	if (!dir) {
		mmt_log("no %s: the offline step left unchecked", MEM_SYS);
		return 0;
	}
	while ((d = readdir(dir))) {
		if (sscanf(d->d_name, "memory%ld", &n) != 1 || n <= best)
			continue;
		snprintf(path, sizeof(path), MEM_SYS "/%.63s/state", d->d_name);
		if (mmt_read_file(path, state, sizeof(state)) < 0 ||
		    strncmp(state, "online", 6))
			continue;
		best = n;
		snprintf(name, sizeof(name), "%.63s", d->d_name);
	}
	closedir(dir);
	if (best < 0) {
		mmt_log("no online memory block: the offline step left unchecked");
		return 0;
	}
	snprintf(path, sizeof(path), MEM_SYS "/%s/state", name);
	err = block_state(path, "offline");
	if (!err && !mmt_check(!block_state(path, "online"), "%s: not online again", name))
		return -1;
	zero = hook("zero_high", "pageset_update");
	mmt_log("%s offline: %s; pageset_update calls with high 0: %lld",
		name, err ? strerror(-err) : "done, and online again", zero);
	if (err == -EINVAL) {
		mmt_log("offline refused before the pcplists: the offline step left unchecked");
		return 0;
	}
	ok = mmt_check(zero == 0,
		       "android_vh_pageset_update was shown a high of 0 %lld times", zero);
	return ok ? 0 : -1;
}

static int memcg_step(void)
{
	long long before = hook("calls", "mem_cgroup_free"), after;

	if (mmt_file_contains(CG_ROOT "/cgroup.controllers", "memory") != 1) {
		mmt_log("no memory controller: mem_cgroup_free left unchecked");
		return 0;
	}
	if (mmt_cg_enable_memory(CG_ROOT) || mmt_cg_create(CG) || mmt_cg_destroy(CG))
		return -1;
	after = wait_calls("mem_cgroup_free", before);
	mmt_log("a memory cgroup made and removed: mem_cgroup_free %lld -> %lld",
		before, after);
	return mmt_check(after > before, "android_vh_mem_cgroup_free was not called within %d ms",
			 WAIT_MS) ? 0 : -1;
}

int main(void)
{
	static const char * const off[] = {
		"rmqueue", "rmqueue_bulk_bypass", "pcplist_add_cma_pages_bypass",
	};
	long long rmq, refills, frees, n;
	int ret = KSFT_FAIL, err;
	unsigned int i;

	if (access(MODULE_DIR "/" MOD ".ko", F_OK)) {
		mmt_log("SKIP: no %s.ko: not the Android common kernel with its vendor hooks", MOD);
		return KSFT_SKIP;
	}
	err = mmt_module_load(MOD, NULL);
	if (err && err != -EEXIST)
		return KSFT_FAIL;

	rmq = hook("calls", "rmqueue");
	frees = hook("calls", "free_unref_page_bypass");
	if (mmt_module_param(MOD, "run", 1))
		goto out;
	n = hook("calls", "rmqueue");
	refills = mmt_module_param_read(MOD, "bulk_refills");
	mmt_log("run: rmqueue %lld -> %lld, bulk_refills %lld, free_unref_page_bypass %lld -> %lld",
		rmq, n, refills, frees, hook("calls", "free_unref_page_bypass"));
	if (!mmt_check(mmt_module_param_read(MOD, "errors") == 0,
		       "%lld of the module's allocations failed",
		       mmt_module_param_read(MOD, "errors")) ||
	    !mmt_check(n - rmq >= RUN_ORDER,
		       "android_vh_rmqueue called %lld times for %d order-2 pages",
		       n - rmq, RUN_ORDER) ||
	    !mmt_check(refills != 0,
		       "the bulk allocator refilled no list through android_vh_rmqueue_bulk_bypass") ||
	    !mmt_check(hook("calls", "free_unref_page_bypass") > frees,
		       "android_vh_free_unref_page_bypass was not called"))
		goto out;
	if (refills < 0) {
		mmt_log("no bulk allocator in this kernel: its refill left unchecked");
	} else {
		n = mmt_module_param_read(MOD, "bulk_look_around");
		mmt_log("bulk allocation of %d pages: test_clear_look_around_ref %lld calls, %lld with interrupts enabled",
			RUN_BULK, n, mmt_module_param_read(MOD, "bulk_look_around_irqs_on"));
		if (!mmt_check(n >= RUN_BULK,
			       "android_vh_test_clear_look_around_ref called %lld times for %d pages of the bulk allocator",
			       n, RUN_BULK))
			goto out;
	}

	if (pageset_step() || offline_step() || memcg_step())
		goto out;

	ret = KSFT_PASS;
	for (i = 0; i < ARRAY_SIZE(off); i++) {
		n = hook("irqs_on", off[i]);
		mmt_log("android_vh_%s: %lld calls, %lld with interrupts enabled",
			off[i], hook("calls", off[i]), n);
		if (!mmt_check(n == 0, "android_vh_%s called %lld times with interrupts enabled",
			       off[i], n))
			ret = KSFT_FAIL;
	}
out:
	if (mmt_module_unload(MOD))
		ret = KSFT_FAIL;
	return ret;
}
