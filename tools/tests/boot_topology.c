// SPDX-License-Identifier: GPL-2.0
/*
 * The guest has the topology the mm tests are written for: two NUMA
 * nodes with memory, two online CPUs, CPU n on node n (QEMU gives each
 * vCPU its own socket and node).  A kernel that lost its NUMA source
 * (ACPI SRAT on x86, the device tree on arm64) or SMP support boots with
 * one node or one CPU and fails here.
 */
#include <stdio.h>
#include <unistd.h>

#include "mmt.h"

int main(void)
{
	int cpus = mmt_nr_online_cpus(), nodes = mmt_nr_online_nodes();
	char path[96];
	int nid;

	mmt_log("online: %d CPUs, %d nodes", cpus, nodes);
	if (!mmt_check(cpus == 2, "expected 2 online CPUs, found %d", cpus) ||
	    !mmt_check(nodes == 2, "expected 2 online nodes, found %d", nodes))
		return KSFT_FAIL;

	for (nid = 0; nid < 2; nid++) {
		long long total = mmt_node_meminfo(nid, "MemTotal");
		long long free = mmt_node_meminfo(nid, "MemFree");

		mmt_log("node %d: MemTotal %lld kB, MemFree %lld kB", nid,
			total, free);
		if (!mmt_check(total > 256 * 1024 && free > 0 && free < total,
			       "node %d has no usable memory", nid))
			return KSFT_FAIL;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%d/cpu%d", nid, nid);
		if (!mmt_check(!access(path, F_OK), "cpu%d is not on node %d",
			       nid, nid))
			return KSFT_FAIL;
	}
	return KSFT_PASS;
}
