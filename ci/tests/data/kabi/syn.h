/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A synthetic "kernel" for the kABI report's host test (ci/tests/host.sh,
 * t_kabi_report): two exported functions, each taking one structure.
 * The test's first commit adds a member to struct syn_zone.
 */
struct syn_zone {
	unsigned long flags;
	int count;
};

struct syn_other {
	int a;
};
