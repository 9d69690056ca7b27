// SPDX-License-Identifier: GPL-2.0
/*
 * zoneinfo_pagesets: /proc/zoneinfo still reports the per-cpu pagesets.
 *
 * The per-cpu page lists and the per-cpu vmstat deltas of a zone now
 * live in separate structures (per_cpu_pages and per_cpu_zonestat), and
 * the pageset limits are computed once per zone.  For every populated
 * zone, /proc/zoneinfo must still list one pageset per online CPU with
 * its count, high and batch, sane limits (batch >= 1, and high either
 * 0, as for a zone too small to cache pages, or at least batch), and the
 * CPU's "vm stats threshold".  A missing or garbled entry, or limits
 * that do not fit together, fail the test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmt.h"

/* Value after "key" at the start of @line (after blanks), or -1. */
static long field(const char *line, const char *key)
{
	const char *p = line + strspn(line, " \t");
	size_t len = strlen(key);

	if (strncmp(p, key, len))
		return -1;
	return strtol(p + len, NULL, 10);
}

int main(void)
{
	int cpus = mmt_nr_online_cpus();
	int zones = 0, entries = 0, thresholds = 0, bad = 0, in_pagesets = 0;
	long count = -1, high = -1, batch = -1;
	char line[256], zone[64] = "";
	FILE *f;

	if (cpus <= 0)
		return KSFT_FAIL;
	f = fopen("/proc/zoneinfo", "re");
	if (!f) {
		mmt_log("open /proc/zoneinfo failed");
		return KSFT_FAIL;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Node ", 5)) {
			snprintf(zone, sizeof(zone), "%s", strtok(line, "\n"));
			in_pagesets = 0;
			continue;
		}
		if (strstr(line, "  pagesets")) {
			in_pagesets = 1;
			zones++;
			continue;
		}
		if (!in_pagesets)
			continue;
		if (field(line, "cpu:") >= 0) {
			entries++;
			count = high = batch = -1;
		} else if (field(line, "count:") >= 0) {
			count = field(line, "count:");
		} else if (field(line, "high:") >= 0) {
			high = field(line, "high:");
		} else if (field(line, "batch:") >= 0) {
			batch = field(line, "batch:");
			if (count < 0 || batch < 1 || high < 0 ||
			    (high && high < batch)) {
				mmt_log("%s: count %ld high %ld batch %ld",
					zone, count, high, batch);
				bad++;
			}
		} else if (field(line, "vm stats threshold:") >= 0) {
			thresholds++;
		} else if (field(line, "node_unreclaimable:") >= 0) {
			in_pagesets = 0;
		}
	}
	fclose(f);

	mmt_log("%d populated zones, %d pagesets, %d thresholds, %d online cpus",
		zones, entries, thresholds, cpus);
	if (!mmt_check(zones > 0, "no zone lists its pagesets"))
		return KSFT_FAIL;
	if (!mmt_check(entries == zones * cpus,
		       "%d pagesets listed, expected %d", entries, zones * cpus))
		return KSFT_FAIL;
	if (!mmt_check(thresholds == entries,
		       "%d vm stats thresholds for %d pagesets",
		       thresholds, entries))
		return KSFT_FAIL;
	if (!mmt_check(bad == 0, "%d pagesets with bad limits", bad))
		return KSFT_FAIL;
	return KSFT_PASS;
}
