/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmt: the small helper library shared by the in-guest tests.
 *
 * Every test is one static program in tools/tests/ that returns one of
 * the kselftest exit codes below.  Helpers return -1 (or a negative
 * errno) on error and print a "# " diagnostic line saying what failed,
 * so a test only has to propagate the failure.
 */
#ifndef MMT_H
#define MMT_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

#define CG_ROOT		"/sys/fs/cgroup"
#define MODULE_DIR	"/modules"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * Diagnostics: one line, prefixed for TAP.  The last line a test's own
 * process logged is written to MMT_LAST_LOG when it exits: the runner
 * gives it as the reason of a skip (a test logs why it skips, last).
 */
void mmt_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define MMT_LAST_LOG	"/tmp/mm510-last-log"

/* fopen(@path, "re"), saying on failure which file could not be opened. */
FILE *mmt_fopen(const char *path);

/*
 * Assertion helper for the common shape "check, say why on failure".
 * Evaluates to the condition so a test can `goto cleanup` on false.
 */
#define mmt_check(cond, ...) \
	((cond) ? 1 : (mmt_fail_at(__FILE__, __LINE__, __VA_ARGS__), 0))
void mmt_fail_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* True when @got is within @tol of @want. */
static inline int mmt_near(long long got, long long want, long long tol)
{
	return got >= want - tol && got <= want + tol;
}

/* Files */
ssize_t mmt_read_file(const char *path, char *buf, size_t size);
int mmt_write_file(const char *path, const char *s);
/* A new file (or one truncated) of @size bytes of one pattern, closed. */
int mmt_write_filled(const char *path, long long size);
int mmt_file_contains(const char *path, const char *needle);

/*
 * "key value" files (/proc/vmstat, memory.stat, numastat) and
 * "Key:   value kB" files (/proc/meminfo, node meminfo).  The value is
 * returned as read (kB stays kB); -1 when the key is absent.
 */
long long mmt_key_value(const char *path, const char *key);
long long mmt_vmstat(const char *key);
long long mmt_meminfo(const char *key);
/* Without NUMA sysfs (CONFIG_NUMA=n), node 0 reads /proc/meminfo. */
long long mmt_node_meminfo(int nid, const char *key);
long long mmt_node_numastat(int nid, const char *key);

/*
 * Sum of a per-zone counter over the zones of node @nid (every node when
 * @nid < 0) in /proc/zoneinfo, or -1.
 */
long long mmt_zoneinfo_node_sum(int nid, const char *key);
long long mmt_zoneinfo_sum(const char *key);

/*
 * The per-cpu pagesets of zone @zone ("Normal", "Movable", ...) of node
 * @nid in /proc/zoneinfo: up to @max entries of the online CPUs' high
 * and batch.  Returns how many were read (0 when the zone is not
 * listed or has no pagesets), or -1.
 */
struct mmt_pcp {
	int cpu;
	long count, high, batch;
};
int mmt_zone_pagesets(int nid, const char *zone, struct mmt_pcp *pcp, int max);

/* Topology */
int mmt_nr_online_cpus(void);
/* Nodes online; 1 without NUMA sysfs. */
int mmt_nr_online_nodes(void);
/* Nodes the kernel sizes per-node arrays for; 1 without NUMA sysfs. */
int mmt_nr_possible_nodes(void);
int mmt_cpu_set_online(int cpu, int online);
/* First CPU of node @nid's cpulist, or -1 (no such node, or no CPU). */
int mmt_node_first_cpu(int nid);
/*
 * A pair of nodes with memory: *@local the first with a CPU (*@cpu its
 * first CPU), *@remote the first other one.  0, or -1 (logged: fewer than
 * two online nodes, or no such pair) for a test to skip on.
 */
int mmt_node_pair(int *local, int *cpu, int *remote);
/* Run the caller on @cpu only (0 or -1); mmt_unpin() lets it run anywhere. */
int mmt_pin_cpu(int cpu);
int mmt_unpin(void);
/* The most nodes the helpers below take. */
#define MMT_MAX_NODES		64
#define MMT_MPOL_DEFAULT	0
#define MMT_MPOL_BIND		2
/*
 * set_mempolicy(2) without libnuma: @mode (MMT_MPOL_DEFAULT or
 * MMT_MPOL_BIND) with node @node alone, or no nodemask when @node is
 * negative.
 */
int mmt_set_mempolicy(int mode, int node);
/*
 * A fresh private anonymous mapping of @len bytes, bound to node @node
 * (mbind(2)) unless @node is negative, with every page faulted in as an
 * order-0 page; NULL (logged) on failure.  munmap() it when done.
 */
char *mmt_map_touched(size_t len, int node);
/*
 * How many of the present pages of [@p, @p + @len) have a PFN in
 * [@start_pfn, @end_pfn), from /proc/self/pagemap (root only); with
 * @first, the address of the first of them.  -1 on error.
 */
long mmt_pages_in_pfns(const void *p, size_t len,
		       unsigned long long start_pfn,
		       unsigned long long end_pfn, char **first);

/* Kernel command line: non-zero when @word appears as a whole word. */
int mmt_cmdline_has(const char *word);

/*
 * /proc/slabinfo: active and total objects of cache @name.
 * Returns 0, or -1 when the cache is not listed.
 */
int mmt_slabinfo(const char *name, long *active, long *total);

/*
 * The size of the smallest kmalloc cache ("kmalloc-<n>" in
 * /proc/slabinfo): 8 on x86, 128 on arm64, whose ARCH_DMA_MINALIGN
 * (128 in 5.10) keeps kmalloc from smaller sizes.  -1 without one.
 */
long mmt_kmalloc_min(void);
/*
 * The plain kmalloc caches, kmalloc-<n> and kmalloc-<n>k (not kmalloc-cg-,
 * -rcl- or dma-), in /proc/slabinfo's order: at most @max names into
 * @names.  Returns how many, or -1.
 */
#define MMT_SLAB_NAME		64
#define MMT_MAX_KMALLOC		64
int mmt_kmalloc_caches(char (*names)[MMT_SLAB_NAME], int max);

/*
 * SLUB only (/sys/kernel/slab): mmt_slab_shrink() flushes the per-cpu
 * slabs of cache @name back to the node lists (and empties KASAN's
 * quarantine of it), after which /proc/slabinfo's active_objs counts
 * exactly the allocated objects; mmt_slab_aliases() returns how many
 * other caches were merged into @name.  Both return -1 when the file is
 * absent (SLAB, or no such cache).
 */
int mmt_slab_shrink(const char *name);
long mmt_slab_aliases(const char *name);
/* Active objects of @name after mmt_slab_shrink(), or -1. */
long mmt_slab_active(const char *name);

/*
 * 1 when /proc/slabinfo exists (SLAB, or SLUB with SLUB_DEBUG); with SLOB
 * it does not, and 0 is returned with the reason logged.
 */
int mmt_have_slabinfo(void);

/* Memory cgroups (cgroup v2 mounted at CG_ROOT by the runner). */
/*
 * 1 when kernel memory is charged to memory cgroups (the memory
 * controller is there, the kernel was not booted with
 * cgroup.memory=nokmem, and it is not SLOB, which has no kmem accounting
 * in 5.10); otherwise 0, with the reason logged.
 */
int mmt_kmem_accounted(void);
int mmt_cg_enable_memory(const char *parent);
int mmt_cg_create(const char *path);
int mmt_cg_destroy(const char *path);
int mmt_cg_enter(const char *path);	/* moves the calling process */
long long mmt_cg_stat(const char *path, const char *key);	/* memory.stat */
/* memory.numa_stat: the key's value for node nid, or -1 */
long long mmt_cg_numa_stat(const char *path, const char *key, int nid);
long long mmt_cg_read_ll(const char *path, const char *file);

/* Modules in MODULE_DIR, by file name without ".ko". */
int mmt_module_load(const char *name, const char *params);
int mmt_module_unload(const char *name);
/* Write @val to /sys/module/@module/parameters/@param (runs the action). */
int mmt_module_param(const char *module, const char *param, long val);
/* The file of that parameter: /sys/module/@module/parameters/@param. */
void mmt_module_param_path(char *path, size_t size, const char *module,
			   const char *param);
/* The value of that parameter, read back as a number; -1 on error. */
long long mmt_module_param_read(const char *module, const char *param);

/*
 * Caches: drop the page cache, dentries and inodes, then shrink every
 * slab cache (empty slabs, and KASAN's quarantine where there is one).
 * mmt_shrink_slabs() does the second part alone (SLUB only).
 */
int mmt_drop_caches(void);
void mmt_shrink_slabs(void);

/*
 * One /proc/slabinfo line.  limit, batchcount and sharedfactor are SLAB's
 * per-cpu and shared array sizes (0 with SLUB).
 */
struct mmt_slab {
	long active, total, objsize, perslab, pagesperslab;
	long limit, batchcount, sharedfactor;
};

int mmt_slab_read(const char *name, struct mmt_slab *s);	/* 0 or -1 */
/*
 * Every cache of /proc/slabinfo at once: its name, active objects, object
 * size and the bytes of its slabs (num_slabs * pagesperslab pages, what
 * /proc/meminfo's Slab counts of it).  Fills at most @max rows; returns
 * how many, or -1 (logged) when the file cannot be read or has more
 * caches than @max.
 */
struct mmt_slab_row {
	char name[MMT_SLAB_NAME];
	long active, objsize;
	long long slab_bytes;
};
int mmt_slab_all(struct mmt_slab_row *rows, int max);
/*
 * Free objects a cache may still report as active: two slabs per CPU
 * (SLUB's per-cpu and partial slabs) plus, with SLAB, its per-cpu and
 * shared arrays, which hold freed objects without returning them.
 */
long mmt_slab_slack(const struct mmt_slab *s, int ncpus);

/*
 * Pages the allocator holds free: the zones' free lists plus the per-cpu
 * page lists of the online CPUs, after vm.stat_refresh folded the per-cpu
 * counter deltas.  A page stranded anywhere else (a dead CPU's list, a
 * leak) is missing from this sum.  Returns -1 on error.
 */
long long mmt_free_pages(void);

/*
 * Free memory back where it was: drops the caches, then compares
 * mmt_free_pages() with @start, logging both.  1 when at most @slack
 * pages are missing; otherwise (or on error) 0, with the reason logged.
 */
int mmt_free_pages_back(long long start, long slack);

/*
 * Stress bounds.  Booted with mm510.stress=long (make stress) a test runs
 * its long form; otherwise the short one that `make check` runs.
 */
int mmt_stress_long(void);
#define mmt_stress_pick(short_n, long_n) \
	(mmt_stress_long() ? (long_n) : (short_n))

/* Seconds since an arbitrary point (CLOCK_MONOTONIC), for bounding loops. */
double mmt_now(void);

/*
 * What memory cgroups cost (tests/memcg_footprint, bench/memcg).  A
 * snapshot of /proc/meminfo's Slab, SUnreclaim and Percpu (kB; Percpu -1
 * when absent) and, with @caches, of the active objects of group 4's
 * "mem_cgroup" and "mem_cgroup_per_node" caches (after a shrink, exact on
 * SLUB with unmerged caches; -1 without @caches).
 */
#define MMT_MEMCG_CACHE		"mem_cgroup"
#define MMT_MEMCG_PN_CACHE	"mem_cgroup_per_node"
struct mmt_memcg_snap {
	long long slab_kb, sunreclaim_kb, percpu_kb;
	long memcg, pn;
};
int mmt_memcg_snap(struct mmt_memcg_snap *s, int caches);	/* 0 or -1 */
/*
 * A baseline to measure from: drops caches and waits (at most @settle_ms)
 * until the root has no dying cgroups and two snapshots agree.  Returns
 * the number of dying cgroups that stayed (each may still free its memory
 * meanwhile), or -1 on error.
 */
long mmt_memcg_settle(struct mmt_memcg_snap *s, int caches, int settle_ms);
/*
 * Children @parent/c0 .. c<n-1>: mmt_cg_create_n() makes them, counting
 * in *@made, mmt_cg_destroy_n() removes the *@made last made (and counts
 * down).  Both 0 or -1.
 */
int mmt_cg_create_n(const char *parent, int n, int *made);
int mmt_cg_destroy_n(const char *parent, int *made);

/*
 * The guest's disks (ci/boot.sh): an ext4 file system the runner mounts
 * on MMT_DISK_DIR, and a swap area.  mmt_swap_on() turns the swap on (0,
 * or -1 with the reason logged: no such device, a kernel without
 * CONFIG_SWAP), mmt_swap_off() off again (0 or -1); a test that turns it
 * on turns it off before it ends, so that no other test sees swap.
 */
#define MMT_DISK_DIR	"/mnt/disk"
#define MMT_SWAP_DEV	"/dev/mm510-swap"	/* the runner's link */
int mmt_swap_on(void);
int mmt_swap_off(void);
long long mmt_swap_used_kb(void);	/* meminfo SwapTotal - SwapFree */
/*
 * mmt_disk_root() gives the calling process (run it in the child that
 * is to exec) a private mount namespace whose root is the directory
 * @name of the disk (with /dev, /proc, /sys, /etc and the guest's
 * program folders bound in, /tmp a directory of it), entered with
 * chroot(), as / is a disk file system on a user's machine.  0 or -1.
 */
int mmt_disk_root(const char *name);

/*
 * Fault injection (a kernel with FAULT_INJECTION_DEBUG_FS, FAILSLAB and
 * FAIL_PAGE_ALLOC: configs/fault.config; the kernel's
 * Documentation/fault-injection/fault-injection.rst).
 *
 * mmt_fault_setup() points failslab and fail_page_alloc at the
 * allocations the tests care about: sleeping ones too (ignore-gfp-wait
 * off), order 0 too (min-order 0), not user pages (ignore-gfp-highmem),
 * silently (verbose 0: no stack dump in the log), and only in tasks that
 * asked for it (task-filter, /proc/<pid>/make-it-fail), failing
 * @probability percent of every @interval-th such allocation; with a
 * @probability of 0 only fail-nth below injects.  0, or -1 (logged) on a
 * kernel without it.  mmt_fault_injected(): the failures injected by
 * probability since the last setup, or -1.  mmt_fault_self(): make the
 * calling process (and the children it forks from then on) such a task,
 * or no longer one.  mmt_fault_knob(cap, knob, val) writes one knob of a
 * capability ("failslab", "fail_page_alloc"), e.g. to leave one of them
 * out after a setup; 0 or -1 (logged).
 *
 * A test under the runner's fault injection (mm510.fault=, the "fault"
 * scenario) is such a task from main() on: the runner passes
 * MMT_FAULT_ENV, and mmt's constructor calls mmt_fault_self(1).
 *
 * mmt_fail_nth_open() opens /proc/thread-self/fail-nth (opening it
 * allocates, so the test keeps it open); mmt_fail_nth(fd, n) makes the
 * calling thread's n-th fault-injection point from now fail, whatever
 * the task filter and probability say (the points are the allocations
 * mmt_fault_setup() lets through to the capabilities);
 * mmt_fail_nth_left(fd) reads it back and disarms it: 0 when the failure
 * was injected, otherwise the points that were still to come (the
 * operation made fewer than n allocations), or -1 on error.
 */
#define MMT_FAULT_ENV	"MM510_FAULT"
int mmt_fault_setup(int probability, int interval);
int mmt_fault_knob(const char *cap, const char *knob, const char *val);
long mmt_fault_injected(void);
int mmt_fault_self(int on);
int mmt_fail_nth_open(void);
int mmt_fail_nth(int fd, unsigned int n);
long mmt_fail_nth_left(int fd);

/* 1 when the kernel has @name as a function of its own (/proc/kallsyms). */
int mmt_kallsyms_has_text(const char *name);

/* The value of "key=N" on the kernel command line (the last one), or @def. */
long mmt_cmdline_long(const char *key, long def);

/*
 * Benchmarks (tools/bench, make bench): one result per line on stdout,
 * "mm510-bench: <name> <metric> <value> <unit>", which ci/bench.sh
 * collects from the serial log.  Names and metrics contain no spaces.
 */
void mmt_bench(const char *name, const char *metric, double value,
	       const char *unit);

/*
 * Function profile of a benchmark run (make bench PROFILE=1).  On a
 * kernel with ftrace's function profiler (configs/profile.config) booted
 * with mm510.bench_profile=1, mmt_profile_start() before a measured run
 * and mmt_profile_stop() after it print the run's costliest functions,
 * most self time first (the tracer's clock: guest instructions in
 * icount mode, each call's time including the tracer's own cost):
 *   mm510-profile: <row> <ops> <function> <calls> <self ns>
 * Elsewhere both do nothing.  0, or -1 when the profiler fails.
 */
int mmt_profile_start(void);
int mmt_profile_stop(const char *row, long ops);

/*
 * Calls of a few named functions (make bench's scale variant, a kernel
 * with the function profiler): mmt_profile_calls_start() starts the
 * profiler, limited to @names where the kernel has dynamic ftrace
 * (set_ftrace_filter); traced[i] is 0 for a name this kernel cannot
 * trace (absent, or inlined).  Returns how many it traces, or -1.
 * mmt_profile_calls_stop() stops it and gives each name's calls summed
 * over the CPUs (-1 where not traced), then lifts the filter.  0, or -1.
 */
int mmt_profile_calls_start(const char *const *names, int n, int *traced);
int mmt_profile_calls_stop(const char *const *names, int n, const int *traced,
			   long long *calls);

#endif /* MMT_H */
