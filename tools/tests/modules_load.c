// SPDX-License-Identifier: GPL-2.0
/*
 * modules_load: every module of the initramfs loads into the running
 * kernel, is live in /proc/modules, and unloads again, with nothing
 * forced.
 *
 * What a vendor meets when its modules, built against one kernel's
 * headers and Module.symvers, are loaded into another: the kernel
 * refuses a module that needs a symbol it does not export ("Unknown
 * symbol"), or whose CRC of a symbol (CONFIG_MODVERSIONS) disagrees, or
 * that has no CRCs at all (no MODULE_FORCE_LOAD on GKI).  On the
 * android-gki scenarios the initramfs takes the project's modules built
 * against the flavour, or with MODULES_FROM=base those built against
 * plain ACK (make kmi-modules boots both), and the android-gki-trim
 * kernel exports only what ACK's KMI lists name, as a GKI release build
 * does: a module that needs anything else fails here, naming it.
 *
 * Each module is loaded with no parameters but bulk_alloc's (its load
 * runs its own test, shortened here), must show as "Live" in
 * /proc/modules, must not set the forced-load taints (F: forced load,
 * R: forced unload), and must unload.  A module another test has left
 * loaded is only checked for being live.
 *
 * Checked once failing (2026-12-07): kmalloc_cg.ko built against the
 * flavour before its android form of 0201 kept kmalloc_cg_caches out of
 * modules (84c19e9; modpost told to warn only), put in the initramfs of
 * the trimmed flavour kernel of make kmi-modules: "kmalloc_cg: Unknown
 * symbol kmalloc_cg_caches (err -2)", and this test failed naming it
 * (results/2026-12-07-kmi-modules/prefix-0201-boot.tap).  With the fix,
 * both module sets pass.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmt.h"

#define TAINT_FORCED	((1UL << 1) | (1UL << 8))	/* F and R */

/* Load parameters for modules whose load does work. */
static const struct {
	const char *name;
	const char *params;
} load_params[] = {
	{ "bulk_alloc", "max_pages=16 rounds=1" },
};

static const char *params_of(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(load_params); i++)
		if (!strcmp(load_params[i].name, name))
			return load_params[i].params;
	return "";
}

/* The state column of @name's /proc/modules line; 0 when absent. */
static int module_state(const char *name, char *state, size_t size)
{
	char line[512], mod[128], st[32];
	FILE *f = fopen("/proc/modules", "r");
	int found = 0;

	if (!f) {
		mmt_log("/proc/modules: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %*s %*s %*s %31s", mod, st) != 2)
			continue;
		if (!strcmp(mod, name)) {
			snprintf(state, size, "%s", st);
			found = 1;
			break;
		}
	}
	fclose(f);
	return found;
}

static long long tainted(void)
{
	char buf[32];

	if (mmt_read_file("/proc/sys/kernel/tainted", buf, sizeof(buf)) < 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

int main(void)
{
	char state[32], name[128];
	struct dirent *de;
	int n = 0, bad = 0;
	long long t0, t;
	DIR *d;

	d = opendir(MODULE_DIR);
	if (!d) {
		mmt_log("%s: %s", MODULE_DIR, strerror(errno));
		return KSFT_FAIL;
	}
	t0 = tainted();
	if (t0 < 0) {
		closedir(d);
		return KSFT_FAIL;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 4 || strcmp(de->d_name + len - 3, ".ko") ||
		    len - 3 >= sizeof(name))
			continue;
		memcpy(name, de->d_name, len - 3);
		name[len - 3] = '\0';
		n++;
		if (module_state(name, state, sizeof(state)) > 0) {
			if (!mmt_check(!strcmp(state, "Live"),
				       "%s already loaded, %s", name, state))
				bad++;
			continue;
		}
		/* mmt_module_load() logs the errno: ENOENT for an unknown
		 * symbol, EINVAL for a CRC that disagrees (dmesg says which). */
		if (!mmt_check(!mmt_module_load(name, params_of(name)),
			       "%s.ko does not load", name)) {
			bad++;
			continue;
		}
		if (!mmt_check(module_state(name, state, sizeof(state)) > 0 &&
			       !strcmp(state, "Live"),
			       "%s loaded but not live in /proc/modules", name))
			bad++;
		if (!mmt_check(!mmt_module_unload(name), "%s does not unload", name) ||
		    !mmt_check(module_state(name, state, sizeof(state)) == 0,
			       "%s still in /proc/modules after unloading", name)) {
			bad++;
			continue;
		}
		mmt_log("%s: loaded and unloaded", name);
	}
	closedir(d);
	t = tainted();
	if (!mmt_check(n > 0, "no module in %s", MODULE_DIR))
		return KSFT_FAIL;
	if (!mmt_check(t >= 0 && !((t & ~t0) & TAINT_FORCED),
		       "a load or unload was forced: taint %lld, was %lld", t, t0))
		bad++;
	mmt_log("%d module(s), %d failure(s)", n, bad);
	return bad ? KSFT_FAIL : KSFT_PASS;
}
