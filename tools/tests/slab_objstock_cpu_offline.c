// SPDX-License-Identifier: GPL-2.0
/*
 * slab_objstock_cpu_offline: a CPU that goes offline gives its object
 * stock back, so the cgroup it charged ends up with nothing charged.
 *
 * Backs 0307 (a 5.10 version of Shakeel Butt's 9f01b4954490): 5.10's
 * CPU-dead callback drained the per-cpu page stock but not the object
 * stock, so a dead CPU kept its cached objcg (and a reference on it), the
 * bytes pre-charged for it and the slab statistics it had not flushed.
 *
 * A task pinned to CPU 1, inside child C of cgroup P, allocates OBJS
 * accounted objects of OBJ_SIZE bytes through tools/modules/kmalloc_cg.ko
 * and frees them, so that CPU 1's object stock holds C's objcg and a page
 * of pre-charged bytes; nothing else is charged to C.  The task leaves C
 * and exits, CPU 1 goes offline, and C is removed.  Charges from another
 * cgroup on CPU 0 make CPU 0's stocks let go of C (see release_stocks()),
 * so that C and its per-cpu memory (charged to P) can be freed.  P's
 * memory.current must then fall to 0 within SETTLE_S: CPU 1's object
 * stock has to hand its page back to the cgroup and drop its objcg, whose
 * release returns any sub-page rest.  Then CPU 1 comes back.  The
 * kmalloc_cg and cgroup files are looked up once from the root first, so
 * that no dentry the test makes is charged to C.
 *
 * Checked once without 0307: P's memory.current stayed at 4096 bytes,
 * the dead CPU's pre-charged page, and the test failed.  Skips without
 * kmem accounting, with one CPU, or when CPU 1 cannot go offline.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmt.h"

#define MOD		"kmalloc_cg"
#define PARENT		CG_ROOT "/mm510-objstock-offline"
#define CHILD		PARENT "/c"
#define OTHER		CG_ROOT "/mm510-objstock-other"
#define CPU		1
#define OBJ_SIZE	64
#define OBJS		32
#define SETTLE_S	10

/* On CPU, inside CHILD: allocate and free, then leave CHILD. */
static int charge_on_cpu(void)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (mmt_pin_cpu(CPU) || mmt_cg_enter(CHILD) ||
		    mmt_module_param(MOD, "accounted", OBJS) ||
		    mmt_module_param(MOD, "free", 1) ||
		    mmt_cg_enter(CG_ROOT))
			_exit(1);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		mmt_log("the task on CPU %d failed", CPU);
		return -1;
	}
	return 0;
}

/*
 * CPU 0's stocks may keep C, or its objcg, cached after C is gone: a page
 * stock keeps a reference on the last memcg that charged on its CPU even
 * with no pages (and drain_all_stock() skips it), which keeps C and its
 * per-cpu memory, charged to P, alive; and an object freed late on CPU 0
 * (a file of the task, freed after an RCU grace period) puts C's objcg
 * back into CPU 0's object stock.  Both let go when another cgroup
 * charges on CPU 0: a task in OTHER maps a page there (a vm_area_struct,
 * accounted slab, and the page itself).
 */
static int release_stocks(void)
{
	int status;
	pid_t pid;

	if (mmt_cg_create(OTHER))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		char *p;

		if (mmt_pin_cpu(0) || mmt_cg_enter(OTHER))
			_exit(1);
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(1);
		p[0] = 1;
		munmap(p, 4096);
		_exit(mmt_cg_enter(CG_ROOT) ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		mmt_log("the task charging %s failed", OTHER);
		return -1;
	}
	return mmt_cg_destroy(OTHER);
}

/* The non-zero lines of a cgroup's memory.stat, to say what is charged. */
static void log_stat(const char *cg)
{
	char path[256], line[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.stat", cg);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, " 0\n"))
			continue;
		mmt_log("%s: %s", cg, strtok(line, "\n"));
	}
	fclose(f);
}

/* Look the files up once, from the root, so their dentries exist. */
static void warm(void)
{
	static const char * const files[] = {
		CHILD "/cgroup.procs", CG_ROOT "/cgroup.procs",
		"/sys/module/" MOD "/parameters/accounted",
		"/sys/module/" MOD "/parameters/free",
		"/sys/module/" MOD "/parameters/size",
	};
	struct stat st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++)
		stat(files[i], &st);
}

int main(void)
{
	int ret = KSFT_FAIL, loaded = 0, offline = 0, made = 0;
	long long current = -1;
	char path[128];
	double end;

	if (!mmt_kmem_accounted())
		return KSFT_SKIP;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 CPU);
	if (mmt_nr_online_cpus() < 2 || access(path, W_OK)) {
		mmt_log("SKIP: CPU %d is not there or cannot go offline", CPU);
		return KSFT_SKIP;
	}
	if (mmt_pin_cpu(0) || mmt_module_load(MOD, NULL))
		return KSFT_FAIL;
	loaded = 1;
	if (mmt_module_param(MOD, "size", OBJ_SIZE) ||
	    mmt_cg_enable_memory(CG_ROOT) || mmt_cg_create(PARENT))
		goto out;
	made = 1;
	if (mmt_cg_enable_memory(PARENT) || mmt_cg_create(CHILD))
		goto out;
	made = 2;
	warm();

	if (charge_on_cpu())
		goto out;
	mmt_log("after %d objects of %d bytes on CPU %d: P memory.current %lld, C %lld",
		OBJS, OBJ_SIZE, CPU, mmt_cg_read_ll(PARENT, "memory.current"),
		mmt_cg_read_ll(CHILD, "memory.current"));

	if (mmt_cpu_set_online(CPU, 0))
		goto out;
	offline = 1;
	if (mmt_cg_destroy(CHILD))
		goto out;
	made = 1;

	/*
	 * What the task freed through RCU (its files) may be freed later,
	 * on CPU 0, and cached again in CPU 0's object stock: flush CPU 0's
	 * stocks until that has happened.
	 */
	end = mmt_now() + SETTLE_S;
	do {
		if (release_stocks())
			goto out;
		current = mmt_cg_read_ll(PARENT, "memory.current");
		if (current == 0)
			break;
		usleep(200000);
	} while (mmt_now() < end);
	mmt_log("CPU %d offline, C removed: P memory.current %lld", CPU,
		current);
	if (current)
		log_stat(PARENT);
	if (!mmt_check(current == 0,
		       "P's memory.current stays at %lld bytes: the dead CPU's object stock kept its charge",
		       current))
		goto out;
	ret = KSFT_PASS;
out:
	if (offline && mmt_cpu_set_online(CPU, 1))
		ret = KSFT_FAIL;
	if (made > 1)
		mmt_cg_destroy(CHILD);
	if (made)
		mmt_cg_destroy(PARENT);
	if (loaded)
		mmt_module_unload(MOD);
	return ret;
}
