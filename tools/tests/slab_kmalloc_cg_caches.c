// SPDX-License-Identifier: GPL-2.0
/*
 * kmalloc-cg-<n> caches exist next to every kmalloc-<n> cache, and the
 * kmalloc-<n> caches are never merged with other caches.
 *
 * Backs group 2 (494c1dfe855e, 13e680fb6a1e).  Fails when:
 * - a kmalloc-<n> size listed in /proc/slabinfo has no kmalloc-cg-<n>
 *   (or, with cgroup.memory=nokmem, when any kmalloc-cg-<n> exists:
 *   then __GFP_ACCOUNT requests must share kmalloc-<n>);
 * - with SLUB, /sys/kernel/slab lacks a kmalloc-cg-<n> entry, or a
 *   kmalloc-<n> entry is a symlink to a merged cache (":0000256" style)
 *   instead of a directory of its own, or reports aliases.
 * Skips when the memory controller is absent (CONFIG_MEMCG=n, or booted
 * with cgroup_disable=memory, where nothing is charged anyway).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mmt.h"

#define SLAB_SYSFS	"/sys/kernel/slab"

/* "kmalloc-<n>": the normal caches only, not -rcl-, -cg- or dma- ones. */
static int is_normal_kmalloc(const char *name)
{
	return !strncmp(name, "kmalloc-", 8) &&
	       strncmp(name, "kmalloc-rcl-", 12) &&
	       strncmp(name, "kmalloc-cg-", 11);
}

/*
 * How many /sys/kernel/slab entries are aliases of a merged cache.  With
 * none (slab_nomerge, SLAB_MERGE_DEFAULT=n, or KASAN's never-merge flag)
 * the no-merge check of kmalloc-<n> below holds whatever the kernel does,
 * so say so instead of counting it as evidence.
 */
static int nr_merged_entries(void)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(SLAB_SYSFS);
	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += de->d_type == DT_LNK;
	closedir(d);
	return n;
}

static int check_sysfs(const char *normal, const char *cg, int nokmem)
{
	char path[256], buf[64];
	struct stat st;
	int ok = 1;

	snprintf(path, sizeof(path), "%s/%s", SLAB_SYSFS, normal);
	if (lstat(path, &st)) {
		mmt_log("FAIL: %s: %s", path, strerror(errno));
		return 0;
	}
	/* A merged cache shows up as a symlink to its unique-id directory. */
	ok &= mmt_check(S_ISDIR(st.st_mode),
			"%s is not a directory: kmalloc cache was merged",
			path);
	snprintf(path, sizeof(path), "%s/%s/aliases", SLAB_SYSFS, normal);
	if (mmt_read_file(path, buf, sizeof(buf)) >= 0)
		ok &= mmt_check(atoi(buf) == 0, "%s: %d aliases", normal,
				atoi(buf));

	snprintf(path, sizeof(path), "%s/%s", SLAB_SYSFS, cg);
	if (nokmem)
		ok &= mmt_check(lstat(path, &st) && errno == ENOENT,
				"%s exists with cgroup.memory=nokmem", path);
	else
		ok &= mmt_check(!lstat(path, &st), "%s missing", path);
	return ok;
}

int main(void)
{
	char line[512], name[128], cg[160];
	int nokmem, have_sysfs, nr_normal = 0, nr_cg = 0, ok = 1;
	struct stat st;
	FILE *f;

	if (mmt_file_contains(CG_ROOT "/cgroup.controllers", "memory") <= 0) {
		mmt_log("memory controller not available: nothing to split");
		return KSFT_SKIP;
	}
	if (!mmt_have_slabinfo())
		return KSFT_SKIP;
	nokmem = mmt_cmdline_has("cgroup.memory=nokmem");
	have_sysfs = !stat(SLAB_SYSFS, &st);	/* SLUB only */
	mmt_log("nokmem=%d, %s", nokmem,
		have_sysfs ? "checking " SLAB_SYSFS : "no " SLAB_SYSFS);

	f = fopen("/proc/slabinfo", "re");
	if (!f) {
		mmt_log("open /proc/slabinfo: %s", strerror(errno));
		return KSFT_FAIL;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s", name) != 1)
			continue;
		if (!strncmp(name, "kmalloc-cg-", 11)) {
			nr_cg++;
			continue;
		}
		if (!is_normal_kmalloc(name))
			continue;
		nr_normal++;
		snprintf(cg, sizeof(cg), "kmalloc-cg-%s", name + 8);
		if (nokmem)
			ok &= mmt_check(mmt_slabinfo(cg, NULL, NULL),
					"%s listed with cgroup.memory=nokmem",
					cg);
		else
			ok &= mmt_check(!mmt_slabinfo(cg, NULL, NULL),
					"%s has no %s in /proc/slabinfo",
					name, cg);
		if (have_sysfs)
			ok &= check_sysfs(name, cg, nokmem);
	}
	fclose(f);

	mmt_log("%d kmalloc-<n> caches, %d kmalloc-cg-<n> caches",
		nr_normal, nr_cg);
	if (have_sysfs) {
		int merged = nr_merged_entries();

		mmt_log("%d merged cache entries in %s%s", merged, SLAB_SYSFS,
			merged ? "" : ": merging is off on this kernel, the "
			"no-merge check proves nothing here");
	}
	ok &= mmt_check(nr_normal > 0, "no kmalloc-<n> in /proc/slabinfo");
	if (nokmem)
		ok &= mmt_check(nr_cg == 0, "kmalloc-cg caches with nokmem");
	else
		ok &= mmt_check(nr_cg == nr_normal,
				"%d kmalloc-cg-<n> for %d kmalloc-<n>",
				nr_cg, nr_normal);
	return ok ? KSFT_PASS : KSFT_FAIL;
}
