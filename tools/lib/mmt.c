// SPDX-License-Identifier: GPL-2.0
/*
 * mmt: helpers shared by the in-guest tests.  See mmt.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mmt.h"

/* The last line the test's own process logged, and that process. */
static char mmt_last_line[1024];
static pid_t mmt_main_pid;

void mmt_log(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	n = strlen(line);
	/* One TAP diagnostic line per call, whatever the caller passed. */
	printf("# %s%s", line, n && line[n - 1] == '\n' ? "" : "\n");
	fflush(stdout);
	if (n && line[n - 1] == '\n')
		line[--n] = '\0';
	memcpy(mmt_last_line, line, n + 1);
}

__attribute__((constructor)) static void mmt_last_line_owner(void)
{
	mmt_main_pid = getpid();
}

/*
 * At the test's exit, its last line goes to MMT_LAST_LOG, where the
 * runner reads a skip's reason.  Only a test the runner (PID 1) started
 * writes it, from its own process (a child that calls exit() does not;
 * nor does a program run on the host by the host tests), and not under
 * fault injection, where the write could meet an injected failure.
 */
__attribute__((destructor)) static void mmt_last_line_keep(void)
{
	size_t len = strlen(mmt_last_line);
	int fd;

	if (getpid() != mmt_main_pid || getppid() != 1 || !len ||
	    getenv(MMT_FAULT_ENV))
		return;
	fd = open(MMT_LAST_LOG, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, mmt_last_line, len) != (ssize_t)len)
		unlink(MMT_LAST_LOG);	/* no reason rather than a torn one */
	close(fd);
}

FILE *mmt_fopen(const char *path)
{
	FILE *f = fopen(path, "re");

	if (!f)
		mmt_log("open %s: %s", path, strerror(errno));
	return f;
}

void mmt_fail_at(const char *file, int line, const char *fmt, ...)
{
	char msg[896];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	mmt_log("FAIL %s:%d: %s", file, line, msg);
}

ssize_t mmt_read_file(const char *path, char *buf, size_t size)
{
	ssize_t len = 0, n;
	int fd;

	if (!size)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		mmt_log("open %s: %s", path, strerror(errno));
		return -1;
	}
	while ((size_t)len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			mmt_log("read %s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		if (!n)
			break;
		len += n;
	}
	buf[len] = '\0';
	close(fd);
	return len;
}

int mmt_write_file(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		mmt_log("open %s: %s", path, strerror(errno));
		return -1;
	}
	n = write(fd, s, len);
	if (n < 0 || (size_t)n != len) {
		mmt_log("write '%s' to %s: %s", s, path,
			n < 0 ? strerror(errno) : "short write");
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int mmt_write_filled(const char *path, long long size)
{
	static char buf[1 << 16];
	long long off;
	ssize_t n;
	int fd;

	memset(buf, 0x5a, sizeof(buf));
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		mmt_log("open %s: %s", path, strerror(errno));
		return -1;
	}
	for (off = 0; off < size; off += n) {
		n = size - off < (long long)sizeof(buf) ? size - off :
						       (long long)sizeof(buf);
		n = write(fd, buf, n);
		if (n <= 0) {
			mmt_log("write %s at %lld: %s", path, off,
				n < 0 ? strerror(errno) : "short write");
			close(fd);
			return -1;
		}
	}
	if (close(fd)) {
		mmt_log("close %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Big enough for /proc/zoneinfo of two nodes with a few CPUs. */
#define BIGBUF	(256 * 1024)

int mmt_file_contains(const char *path, const char *needle)
{
	char *buf = malloc(BIGBUF);
	int ret;

	if (!buf)
		return -1;
	ret = mmt_read_file(path, buf, BIGBUF) < 0 ? -1 :
	      strstr(buf, needle) != NULL;
	free(buf);
	return ret;
}

long long mmt_key_value(const char *path, const char *key)
{
	size_t klen = strlen(key);
	long long val = -1;
	char line[512];
	FILE *f;

	f = mmt_fopen(path);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line;

		if (strncmp(p, key, klen))
			continue;
		p += klen;
		if (*p == ':')
			p++;
		if (*p != ' ' && *p != '\t')
			continue;
		val = strtoll(p, NULL, 10);
		break;
	}
	fclose(f);
	return val;
}

long long mmt_vmstat(const char *key)
{
	return mmt_key_value("/proc/vmstat", key);
}

long long mmt_meminfo(const char *key)
{
	return mmt_key_value("/proc/meminfo", key);
}

long long mmt_node_meminfo(int nid, const char *key)
{
	size_t klen = strlen(key);
	long long val = -1;
	char path[96], line[256], prefix[32];
	FILE *f;

	/* Lines read "Node 0 SUnreclaim:   1234 kB". */
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo",
		 nid);
	/* CONFIG_NUMA=n: node 0 is all of memory. */
	if (nid == 0 && access("/sys/devices/system/node", F_OK))
		return mmt_meminfo(key);
	snprintf(prefix, sizeof(prefix), "Node %d ", nid);
	f = mmt_fopen(path);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strlen(prefix);

		if (strncmp(line, prefix, strlen(prefix)) ||
		    strncmp(p, key, klen) || p[klen] != ':')
			continue;
		val = strtoll(p + klen + 1, NULL, 10);
		break;
	}
	fclose(f);
	return val;
}

long long mmt_node_numastat(int nid, const char *key)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/numastat",
		 nid);
	return mmt_key_value(path, key);
}

long long mmt_zoneinfo_node_sum(int nid, const char *key)
{
	size_t klen = strlen(key);
	long long sum = 0;
	int cur = -1, found = 0;
	char line[512];
	FILE *f;

	f = fopen("/proc/zoneinfo", "re");
	if (!f) {
		mmt_log("open /proc/zoneinfo: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t");

		/* Each zone starts with "Node <nid>, zone <name>". */
		if (sscanf(line, "Node %d, zone", &cur) == 1)
			continue;
		if ((nid >= 0 && cur != nid) || strncmp(p, key, klen) ||
		    (p[klen] != ' ' && p[klen] != '\t'))
			continue;
		sum += strtoll(p + klen, NULL, 10);
		found = 1;
	}
	fclose(f);
	return found ? sum : -1;
}

long long mmt_zoneinfo_sum(const char *key)
{
	return mmt_zoneinfo_node_sum(-1, key);
}

int mmt_zone_pagesets(int nid, const char *zone, struct mmt_pcp *pcp, int max)
{
	int cur = -1, in_zone = 0, n = 0;
	char line[512], name[32];
	FILE *f;

	f = fopen("/proc/zoneinfo", "re");
	if (!f) {
		mmt_log("open /proc/zoneinfo: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t");
		long v;

		if (sscanf(line, "Node %d, zone %31s", &cur, name) == 2) {
			in_zone = cur == nid && !strcmp(name, zone);
			continue;
		}
		if (!in_zone)
			continue;
		if (sscanf(p, "cpu: %ld", &v) == 1) {
			if (n == max)
				break;
			pcp[n].cpu = v;
			pcp[n].count = pcp[n].high = pcp[n].batch = -1;
			n++;
		} else if (n && sscanf(p, "count: %ld", &v) == 1) {
			pcp[n - 1].count = v;
		} else if (n && sscanf(p, "high: %ld", &v) == 1) {
			pcp[n - 1].high = v;
		} else if (n && sscanf(p, "batch: %ld", &v) == 1) {
			pcp[n - 1].batch = v;
		}
	}
	fclose(f);
	return n;
}

static int count_range_list(const char *path)
{
	char buf[256], *p = buf;
	int count = 0;

	if (mmt_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	/* "0-1,3" style lists, as in /sys/devices/system/cpu/online. */
	while (*p && *p != '\n') {
		long a = strtol(p, &p, 10), b = a;

		if (*p == '-')
			b = strtol(p + 1, &p, 10);
		count += b - a + 1;
		if (*p == ',')
			p++;
		else
			break;
	}
	return count;
}

int mmt_nr_online_cpus(void)
{
	return count_range_list("/sys/devices/system/cpu/online");
}

int mmt_nr_online_nodes(void)
{
	static const char path[] = "/sys/devices/system/node/online";

	/* CONFIG_NUMA=n kernels have no node directory: one node. */
	if (access(path, F_OK))
		return 1;
	return count_range_list(path);
}

int mmt_nr_possible_nodes(void)
{
	static const char path[] = "/sys/devices/system/node/possible";

	/* CONFIG_NUMA=n kernels have no node directory: one node. */
	if (access(path, F_OK))
		return 1;
	return count_range_list(path);
}

int mmt_cpu_set_online(int cpu, int online)
{
	char path[80];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	return mmt_write_file(path, online ? "1" : "0");
}

int mmt_node_first_cpu(int nid)
{
	char path[80], buf[256];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist",
		 nid);
	if (mmt_read_file(path, buf, sizeof(buf)) <= 0 || buf[0] < '0' ||
	    buf[0] > '9')
		return -1;
	return atoi(buf);
}

int mmt_node_pair(int *local, int *cpu, int *remote)
{
	int nr_nodes = mmt_nr_possible_nodes(), nid;

	*local = *cpu = *remote = -1;
	if (mmt_nr_online_nodes() < 2) {
		mmt_log("fewer than two online NUMA nodes");
		return -1;
	}
	if (nr_nodes > MMT_MAX_NODES)
		nr_nodes = MMT_MAX_NODES;
	for (nid = 0; nid < nr_nodes; nid++) {
		if (mmt_node_meminfo(nid, "MemTotal") <= 0)
			continue;
		if (*local < 0 && mmt_node_first_cpu(nid) >= 0) {
			*local = nid;
			*cpu = mmt_node_first_cpu(nid);
		} else if (*remote < 0) {
			*remote = nid;
		}
	}
	if (*local < 0 || *remote < 0) {
		mmt_log("no pair of nodes with memory, one with a CPU");
		return -1;
	}
	return 0;
}

int mmt_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		mmt_log("sched_setaffinity to CPU %d: %s", cpu, strerror(errno));
		return -1;
	}
	return 0;
}

int mmt_unpin(void)
{
	cpu_set_t set;
	int cpu;

	/* The kernel keeps the online CPUs of the mask. */
	CPU_ZERO(&set);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		mmt_log("sched_setaffinity to every CPU: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int mmt_set_mempolicy(int mode, int node)
{
	unsigned long mask[MMT_MAX_NODES / (8 * sizeof(long)) + 1] = { 0 };

	if (node >= MMT_MAX_NODES) {
		errno = EINVAL;
		return -1;
	}
	if (node >= 0)
		mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
	return syscall(SYS_set_mempolicy, mode, node >= 0 ? mask : NULL,
		       node >= 0 ? MMT_MAX_NODES + 1 : 0);
}

char *mmt_map_touched(size_t len, int node)
{
	unsigned long mask[MMT_MAX_NODES / (8 * sizeof(long)) + 1] = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	size_t i;
	char *p;

	if (node >= MMT_MAX_NODES) {
		mmt_log("node %d: the helpers take nodes below %d", node,
			MMT_MAX_NODES);
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		mmt_log("mmap of %zu bytes: %s", len, strerror(errno));
		return NULL;
	}
	if (node >= 0) {
		mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
		if (syscall(SYS_mbind, p, len, MMT_MPOL_BIND, mask,
			    MMT_MAX_NODES + 1, 0)) {
			mmt_log("mbind to node %d: %s", node, strerror(errno));
			munmap(p, len);
			return NULL;
		}
	}
	/*
	 * Order-0 faults.  EINVAL: no transparent hugepages; ENOSYS: no
	 * madvise() (ADVISE_SYSCALLS=n, as in the guest kernels, which have
	 * no transparent hugepages either).
	 */
	if (madvise(p, len, MADV_NOHUGEPAGE) && errno != EINVAL &&
	    errno != ENOSYS) {
		mmt_log("madvise(MADV_NOHUGEPAGE): %s", strerror(errno));
		munmap(p, len);
		return NULL;
	}
	for (i = 0; i < len; i += page)
		p[i] = 1;
	return p;
}

long mmt_pages_in_pfns(const void *p, size_t len,
		       unsigned long long start_pfn,
		       unsigned long long end_pfn, char **first)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t n = len / page, i;
	uint64_t *map;
	long count = 0;
	int fd;

	map = malloc(n * sizeof(*map));
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (!map || fd < 0 ||
	    pread(fd, map, n * sizeof(*map),
		  (uintptr_t)p / page * sizeof(*map)) != (ssize_t)(n * sizeof(*map))) {
		mmt_log("reading /proc/self/pagemap: %s", strerror(errno));
		count = -1;
		goto out;
	}
	/* Bits 0-54: the PFN; bit 63: present. */
	for (i = 0; i < n; i++) {
		uint64_t pfn = map[i] & ((1ULL << 55) - 1);

		if (!(map[i] >> 63) || pfn < start_pfn || pfn >= end_pfn)
			continue;
		if (first && !count)
			*first = (char *)p + i * page;
		count++;
	}
out:
	if (fd >= 0)
		close(fd);
	free(map);
	return count;
}

int mmt_cmdline_has(const char *word)
{
	char buf[4096], *p;
	size_t wlen = strlen(word);

	if (mmt_read_file("/proc/cmdline", buf, sizeof(buf)) < 0)
		return 0;
	for (p = buf; (p = strstr(p, word)); p += wlen) {
		if ((p == buf || p[-1] == ' ') &&
		    (p[wlen] == ' ' || p[wlen] == '\n' || !p[wlen]))
			return 1;
	}
	return 0;
}

int mmt_slabinfo(const char *name, long *active, long *total)
{
	char line[512], cache[128];
	long a, t;
	int ret = -1;
	FILE *f;

	f = fopen("/proc/slabinfo", "re");
	if (!f) {
		mmt_log("open /proc/slabinfo: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %ld %ld", cache, &a, &t) != 3 ||
		    strcmp(cache, name))
			continue;
		if (active)
			*active = a;
		if (total)
			*total = t;
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

int mmt_kmalloc_caches(char (*names)[MMT_SLAB_NAME], int max)
{
	char line[512], name[MMT_SLAB_NAME], end;
	int nr = 0, got;
	long n;
	FILE *f;

	f = fopen("/proc/slabinfo", "re");
	if (!f) {
		mmt_log("open /proc/slabinfo: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) && nr < max) {
		if (sscanf(line, "%63s", name) != 1)
			continue;
		/* kmalloc-64 (1), kmalloc-1k (2, 'k'); kmalloc-cg-64 (0) */
		got = sscanf(name, "kmalloc-%ld%c", &n, &end);
		if (got == 1 || (got == 2 && end == 'k'))
			memcpy(names[nr++], name, sizeof(name));
	}
	fclose(f);
	return nr;
}

long mmt_kmalloc_min(void)
{
	char names[MMT_MAX_KMALLOC][MMT_SLAB_NAME];
	int nr = mmt_kmalloc_caches(names, MMT_MAX_KMALLOC), i;
	long n, min = -1;
	char end;

	/* The sizes in bytes: kmalloc-<n>k are never the smallest. */
	for (i = 0; i < nr; i++)
		if (sscanf(names[i], "kmalloc-%ld%c", &n, &end) == 1 &&
		    (min < 0 || n < min))
			min = n;
	return min;
}

int mmt_slab_shrink(const char *name)
{
	char path[320];	/* a d_name of up to 255 bytes fits */

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", name);
	if (access(path, W_OK))
		return -1;
	return mmt_write_file(path, "1");
}

long mmt_slab_active(const char *name)
{
	long active;

	mmt_slab_shrink(name);
	if (mmt_slabinfo(name, &active, NULL))
		return -1;
	return active;
}

long mmt_slab_aliases(const char *name)
{
	char path[256], buf[32];

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/aliases", name);
	if (access(path, R_OK) || mmt_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	return strtol(buf, NULL, 10);
}

int mmt_have_slabinfo(void)
{
	if (!access("/proc/slabinfo", R_OK))
		return 1;
	mmt_log("no /proc/slabinfo: a SLOB kernel");
	return 0;
}

int mmt_kmem_accounted(void)
{
	/* 5.10's MEMCG_KMEM is MEMCG && !SLOB, and SLOB has no slabinfo. */
	if (access("/proc/slabinfo", R_OK)) {
		mmt_log("no /proc/slabinfo: SLOB, which has no kmem accounting in 5.10");
		return 0;
	}
	if (mmt_file_contains(CG_ROOT "/cgroup.controllers", "memory") <= 0) {
		mmt_log("memory controller not available");
		return 0;
	}
	if (mmt_cmdline_has("cgroup.memory=nokmem")) {
		mmt_log("cgroup.memory=nokmem: kernel memory is not charged");
		return 0;
	}
	return 1;
}

int mmt_cg_enable_memory(const char *parent)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", parent);
	return mmt_write_file(path, "+memory");
}

int mmt_cg_create(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST) {
		mmt_log("mkdir %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int mmt_cg_destroy(const char *path)
{
	int tries;

	/*
	 * A cgroup whose last task just exited may still be busy for a
	 * moment; retry briefly instead of failing the test on a race.
	 */
	for (tries = 0; tries < 100; tries++) {
		if (!rmdir(path) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		usleep(10000);
	}
	mmt_log("rmdir %s: %s", path, strerror(errno));
	return -1;
}

int mmt_cg_enter(const char *path)
{
	char file[256], pid[32];

	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	snprintf(pid, sizeof(pid), "%d", getpid());
	return mmt_write_file(file, pid);
}

long long mmt_cg_stat(const char *path, const char *key)
{
	char file[256];

	snprintf(file, sizeof(file), "%s/memory.stat", path);
	return mmt_key_value(file, key);
}

long long mmt_cg_numa_stat(const char *path, const char *key, int nid)
{
	size_t klen = strlen(key);
	long long val = -1;
	char file[256], line[512], node[16];
	FILE *f;

	/* Lines read "slab_unreclaimable N0=1234 N1=5678". */
	snprintf(file, sizeof(file), "%s/memory.numa_stat", path);
	snprintf(node, sizeof(node), " N%d=", nid);
	f = mmt_fopen(file);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p;

		if (strncmp(line, key, klen) || line[klen] != ' ')
			continue;
		p = strstr(line + klen, node);
		if (p)
			val = strtoll(p + strlen(node), NULL, 10);
		break;
	}
	fclose(f);
	if (val < 0)
		mmt_log("%s: no %s for node %d", file, key, nid);
	return val;
}

long long mmt_cg_read_ll(const char *path, const char *file)
{
	char name[256], buf[64];

	snprintf(name, sizeof(name), "%s/%s", path, file);
	if (mmt_read_file(name, buf, sizeof(buf)) < 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

int mmt_module_load(const char *name, const char *params)
{
	char path[256];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s.ko", MODULE_DIR, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		mmt_log("open %s: %s", path, strerror(errno));
		return -1;
	}
	ret = syscall(SYS_finit_module, fd, params ? params : "", 0);
	if (ret)
		ret = -errno;
	close(fd);
	if (ret && ret != -EAGAIN)
		mmt_log("finit_module %s: %s", name, strerror(-ret));
	/* time_bench style modules return -EAGAIN once they have run. */
	return ret;
}

void mmt_module_param_path(char *path, size_t size, const char *module,
			   const char *param)
{
	snprintf(path, size, "/sys/module/%s/parameters/%s", module, param);
}

long long mmt_module_param_read(const char *module, const char *param)
{
	char path[256], buf[32];

	mmt_module_param_path(path, sizeof(path), module, param);
	if (mmt_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

int mmt_module_param(const char *module, const char *param, long val)
{
	char path[256], buf[32];

	mmt_module_param_path(path, sizeof(path), module, param);
	snprintf(buf, sizeof(buf), "%ld", val);
	return mmt_write_file(path, buf);
}

int mmt_module_unload(const char *name)
{
	if (syscall(SYS_delete_module, name, O_NONBLOCK)) {
		mmt_log("delete_module %s: %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Every SLUB cache's "shrink": frees its empty slabs and, on a KASAN
 * kernel, the objects of that cache waiting in KASAN's quarantine.  In
 * 5.10 a freed object stays charged to its memory cgroup until it
 * leaves the quarantine, so without this a KASAN kernel shows megabytes
 * "still charged" that are only delayed.  Quietly does nothing without
 * /sys/kernel/slab (SLAB, or SLUB without sysfs).
 */
void mmt_shrink_slabs(void)
{
	struct dirent *de;
	DIR *d;

	d = opendir("/sys/kernel/slab");
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && de->d_type != DT_LNK)
			mmt_slab_shrink(de->d_name);
	closedir(d);
}

int mmt_drop_caches(void)
{
	int ret;

	sync();
	ret = mmt_write_file("/proc/sys/vm/drop_caches", "3");
	mmt_shrink_slabs();
	return ret;
}

long long mmt_free_pages(void)
{
	long long free, pcp;

	/* Fold the per-cpu deltas so that nr_free_pages is exact. */
	if (mmt_write_file("/proc/sys/vm/stat_refresh", "1"))
		return -1;
	free = mmt_zoneinfo_sum("nr_free_pages");
	/* "count:" lines of the pagesets, printed for online CPUs only. */
	pcp = mmt_zoneinfo_sum("count:");
	if (free < 0 || pcp < 0)
		return -1;
	return free + pcp;
}

int mmt_free_pages_back(long long start, long slack)
{
	long long end;

	mmt_drop_caches();
	end = mmt_free_pages();
	mmt_log("free pages at the start %lld, at the end %lld", start, end);
	return mmt_check(end >= 0 && end >= start - slack,
			 "%lld free pages did not come back", start - end);
}

int mmt_stress_long(void)
{
	return mmt_cmdline_has("mm510.stress=long");
}

double mmt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int mmt_slab_read(const char *name, struct mmt_slab *s)
{
	char line[512], cache[128];
	int ret = -1;
	FILE *f;

	f = fopen("/proc/slabinfo", "re");
	if (!f) {
		mmt_log("open /proc/slabinfo: %s", strerror(errno));
		return -1;
	}
	memset(s, 0, sizeof(*s));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s", cache) != 1 || strcmp(cache, name))
			continue;
		if (sscanf(line, "%*s %ld %ld %ld %ld %ld : tunables %ld %ld %ld",
			   &s->active, &s->total, &s->objsize, &s->perslab,
			   &s->pagesperslab, &s->limit, &s->batchcount,
			   &s->sharedfactor) >= 5)
			ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

int mmt_slab_all(struct mmt_slab_row *rows, int max)
{
	long active, total, objsize, perslab, pages, active_slabs, slabs;
	long page = sysconf(_SC_PAGESIZE);
	char line[512], name[MMT_SLAB_NAME];
	int n = 0;
	FILE *f;

	f = fopen("/proc/slabinfo", "re");
	if (!f) {
		mmt_log("open /proc/slabinfo: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		/* The version line and the "# name ..." header do not match. */
		if (sscanf(line, "%63s %ld %ld %ld %ld %ld : tunables %*d %*d %*d : slabdata %ld %ld",
			   name, &active, &total, &objsize, &perslab, &pages,
			   &active_slabs, &slabs) != 8)
			continue;
		if (n == max) {
			mmt_log("/proc/slabinfo has more than %d caches", max);
			n = -1;
			break;
		}
		snprintf(rows[n].name, sizeof(rows[n].name), "%s", name);
		rows[n].active = active;
		rows[n].objsize = objsize;
		rows[n].slab_bytes = (long long)slabs * pages * page;
		n++;
	}
	fclose(f);
	return n;
}

long mmt_slab_slack(const struct mmt_slab *s, int ncpus)
{
	/* A shared array per node: ncpus bounds the node count too. */
	return ncpus * (2 * s->perslab + s->limit +
			s->sharedfactor * s->batchcount);
}

#define FAULT_DEBUGFS	"/sys/kernel/debug/"
/* The capabilities' "times" after a setup: counted down per failure. */
#define FAULT_TIMES	1000000000L

static const char * const fault_caps[] = { "failslab", "fail_page_alloc" };

int mmt_fault_knob(const char *cap, const char *knob, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), FAULT_DEBUGFS "%s/%s", cap, knob);
	return mmt_write_file(path, val);
}

int mmt_fault_setup(int probability, int interval)
{
	char prob[16], ival[16], times[24];
	size_t i;
	int ret = 0;

	snprintf(prob, sizeof(prob), "%d", probability);
	snprintf(ival, sizeof(ival), "%d", interval);
	snprintf(times, sizeof(times), "%ld", FAULT_TIMES);
	for (i = 0; i < ARRAY_SIZE(fault_caps); i++) {
		const char *cap = fault_caps[i];

		/* Probability first to 0: no failure while the rest changes. */
		ret |= mmt_fault_knob(cap, "probability", "0");
		ret |= mmt_fault_knob(cap, "verbose", "0");
		ret |= mmt_fault_knob(cap, "task-filter", "Y");
		ret |= mmt_fault_knob(cap, "ignore-gfp-wait", "N");
		ret |= mmt_fault_knob(cap, "interval", ival);
		ret |= mmt_fault_knob(cap, "space", "0");
		ret |= mmt_fault_knob(cap, "times", times);
		if (!strcmp(cap, "fail_page_alloc")) {
			ret |= mmt_fault_knob(cap, "min-order", "0");
			ret |= mmt_fault_knob(cap, "ignore-gfp-highmem", "Y");
		}
		ret |= mmt_fault_knob(cap, "probability", prob);
		if (ret) {
			mmt_log("no fault injection here (%s)", cap);
			return -1;
		}
	}
	return 0;
}

long mmt_fault_injected(void)
{
	char dir[128];
	long long left;
	long sum = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fault_caps); i++) {
		snprintf(dir, sizeof(dir), FAULT_DEBUGFS "%s", fault_caps[i]);
		left = mmt_cg_read_ll(dir, "times");
		if (left < 0)
			return -1;
		sum += FAULT_TIMES - left;
	}
	return sum;
}

int mmt_fault_self(int on)
{
	return mmt_write_file("/proc/self/make-it-fail", on ? "1" : "0");
}

__attribute__((constructor)) static void mmt_fault_from_env(void)
{
	if (getenv(MMT_FAULT_ENV) && mmt_fault_self(1))
		mmt_log("%s set, but this kernel has no make-it-fail",
			MMT_FAULT_ENV);
}

int mmt_fail_nth_open(void)
{
	int fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		mmt_log("open /proc/thread-self/fail-nth: %s", strerror(errno));
	return fd;
}

int mmt_fail_nth(int fd, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(fd, buf, len, 0) != len) {
		mmt_log("write %u to fail-nth: %s", n, strerror(errno));
		return -1;
	}
	return 0;
}

long mmt_fail_nth_left(int fd)
{
	char buf[16];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	long left;

	if (n <= 0) {
		mmt_log("read fail-nth: %s", n ? strerror(errno) : "empty");
		return -1;
	}
	buf[n] = '\0';
	left = strtol(buf, NULL, 10);
	/* Disarmed: nothing of the rest of the test fails by it. */
	if (left && mmt_fail_nth(fd, 0))
		return -1;
	return left;
}

long mmt_cmdline_long(const char *key, long def)
{
	char buf[4096], *p;
	size_t klen = strlen(key);
	long val = def;

	if (mmt_read_file("/proc/cmdline", buf, sizeof(buf)) < 0)
		return def;
	/* As with kernel parameters, the last one given wins. */
	for (p = buf; (p = strstr(p, key)); p += klen) {
		if ((p == buf || p[-1] == ' ') && p[klen] == '=')
			val = strtol(p + klen + 1, NULL, 0);
	}
	return val;
}

void mmt_bench(const char *name, const char *metric, double value,
	       const char *unit)
{
	printf("mm510-bench: %s %s %.3f %s\n", name, metric, value, unit);
	fflush(stdout);
}

#define PROFILE_DIR	"/sys/kernel/tracing/"
#define PROFILE_TOP	40	/* functions printed per run */
#define PROFILE_MAX	4096	/* distinct functions read per run */

struct mmt_prof_fn {
	char name[64];
	unsigned long long calls;
	double ns;
};

/*
 * tracefs mounted, the profiler there, and self time chosen (a
 * function's time without that of what it calls): 0, or -1.
 */
static int prof_setup(void)
{
	if (access(PROFILE_DIR "function_profile_enabled", F_OK) &&
	    mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL)) {
		mmt_log("profile: tracefs: %s", strerror(errno));
		return -1;
	}
	if (access(PROFILE_DIR "function_profile_enabled", F_OK)) {
		mmt_log("profile: this kernel has no function profiler (configs/profile.config)");
		return -1;
	}
	if (!access(PROFILE_DIR "options/graph-time", F_OK) &&
	    mmt_write_file(PROFILE_DIR "options/graph-time", "0"))
		return -1;
	return 0;
}

/* 1: profiling this boot, 0: not, -1: not yet known. */
static int prof_on = -1;

static int prof_enabled(void)
{
	if (prof_on >= 0)
		return prof_on;
	prof_on = 0;
	if (mmt_cmdline_long("mm510.bench_profile", 0) != 1)
		return 0;
	if (prof_setup())
		return -1;
	prof_on = 1;
	return 1;
}

int mmt_profile_start(void)
{
	int on = prof_enabled();

	if (on <= 0)
		return on;
	/* Enabling the profiler clears what an earlier run counted. */
	return mmt_write_file(PROFILE_DIR "function_profile_enabled", "1");
}

static int prof_cmp(const void *a, const void *b)
{
	const struct mmt_prof_fn *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Adds one trace_stat/functionN file (one CPU) into @fns; their count. */
static int prof_read_cpu(const char *path, struct mmt_prof_fn *fns, int n)
{
	char line[512], name[64];
	unsigned long long calls;
	double us;
	FILE *f;
	int i, got;

	f = fopen(path, "re");
	if (!f)
		return n;
	while (fgets(line, sizeof(line), f)) {
		/* "  name  hits  time us  avg us  s^2 us", or "name hits" */
		us = 0;
		got = sscanf(line, "%63s %llu %lf", name, &calls, &us);
		if (got < 2)
			continue;	/* the header and its underline */
		for (i = 0; i < n && strcmp(fns[i].name, name); i++)
			;
		if (i == n) {
			if (n == PROFILE_MAX)
				continue;
			snprintf(fns[n].name, sizeof(fns[n].name), "%s", name);
			fns[n].calls = 0;
			fns[n].ns = 0;
			n++;
		}
		fns[i].calls += calls;
		fns[i].ns += us * 1000;
	}
	fclose(f);
	return n;
}

/*
 * Stops the profiler and reads what it counted on every CPU into a new
 * array *@fns (the caller frees it): the number of functions, or -1.
 */
static int prof_stop_read(struct mmt_prof_fn **fns)
{
	char path[128];
	int cpu, n = 0;

	if (mmt_write_file(PROFILE_DIR "function_profile_enabled", "0"))
		return -1;
	*fns = calloc(PROFILE_MAX, sizeof(**fns));
	if (!*fns)
		return -1;
	for (cpu = 0;; cpu++) {
		snprintf(path, sizeof(path), PROFILE_DIR "trace_stat/function%d", cpu);
		if (access(path, F_OK))
			break;
		n = prof_read_cpu(path, *fns, n);
	}
	return n;
}

int mmt_profile_stop(const char *row, long ops)
{
	struct mmt_prof_fn *fns;
	int n, i;

	if (prof_on <= 0)
		return 0;
	n = prof_stop_read(&fns);
	if (n < 0)
		return -1;
	qsort(fns, n, sizeof(*fns), prof_cmp);
	for (i = 0; i < n && i < PROFILE_TOP; i++)
		printf("mm510-profile: %s %ld %s %llu %.0f\n", row, ops,
		       fns[i].name, fns[i].calls, fns[i].ns);
	fflush(stdout);
	free(fns);
	if (!n) {
		mmt_log("profile: %s: the profiler counted nothing", row);
		return -1;
	}
	return 0;
}

/*
 * Writes @name into set_ftrace_filter (@flags: O_TRUNC or O_APPEND).
 * Returns 0, 1 when the kernel refuses the name, -1 on other errors.
 */
static int prof_filter_add(const char *name, int flags)
{
	ssize_t n;
	int fd;

	fd = open(PROFILE_DIR "set_ftrace_filter", O_WRONLY | O_CLOEXEC | flags);
	if (fd < 0) {
		mmt_log("open set_ftrace_filter: %s", strerror(errno));
		return -1;
	}
	n = write(fd, name, strlen(name));
	close(fd);
	return n == (ssize_t)strlen(name) ? 0 : 1;
}

int mmt_kallsyms_has_text(const char *name)
{
	char line[256], sym[128], type;
	int found = 0;
	FILE *f;

	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %c %127s", &type, sym) == 2 &&
			(type == 't' || type == 'T') && !strcmp(sym, name);
	fclose(f);
	return found;
}

int mmt_profile_calls_start(const char *const *names, int n, int *traced)
{
	int i, set = 0, filter;

	if (prof_setup())
		return -1;
	/*
	 * With dynamic ftrace the profiler is limited to @names: an empty
	 * filter traces every function, so they go in one by one.  Without
	 * it (no set_ftrace_filter) every function is profiled, and a name
	 * counts as traced where the kernel has it as a function.
	 */
	filter = !access(PROFILE_DIR "set_ftrace_filter", F_OK);
	if (filter && prof_filter_add("", O_TRUNC) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		int r = filter ? prof_filter_add(names[i], O_APPEND) :
				 !mmt_kallsyms_has_text(names[i]);

		if (r < 0)
			return -1;
		traced[i] = !r;	/* 1: absent, or inlined in this kernel */
		set += traced[i];
	}
	if (!set) {
		mmt_log("profile: none of the %d functions can be traced", n);
		return -1;
	}
	return mmt_write_file(PROFILE_DIR "function_profile_enabled", "1") ? -1 : set;
}

int mmt_profile_calls_stop(const char *const *names, int n, const int *traced,
			   long long *calls)
{
	struct mmt_prof_fn *fns;
	int got, i, j;

	got = prof_stop_read(&fns);
	if (got < 0)
		return -1;
	for (i = 0; i < n; i++) {
		calls[i] = traced[i] ? 0 : -1;
		for (j = 0; traced[i] && j < got; j++)
			if (!strcmp(fns[j].name, names[i]))
				calls[i] = fns[j].calls;
	}
	free(fns);
	/* Every function traced again, for whatever runs next. */
	if (access(PROFILE_DIR "set_ftrace_filter", F_OK))
		return 0;
	return prof_filter_add("", O_TRUNC) ? -1 : 0;
}

int mmt_memcg_snap(struct mmt_memcg_snap *s, int caches)
{
	s->slab_kb = mmt_meminfo("Slab");
	s->sunreclaim_kb = mmt_meminfo("SUnreclaim");
	s->percpu_kb = mmt_meminfo("Percpu");
	if (s->slab_kb < 0 || s->sunreclaim_kb < 0) {
		mmt_log("no Slab/SUnreclaim in /proc/meminfo");
		return -1;
	}
	s->memcg = -1;
	s->pn = -1;
	if (!caches)
		return 0;
	/* Flush per-cpu slabs so active_objs is exact (SLUB, see mmt.h). */
	mmt_slab_shrink(MMT_MEMCG_CACHE);
	mmt_slab_shrink(MMT_MEMCG_PN_CACHE);
	if (mmt_slabinfo(MMT_MEMCG_CACHE, &s->memcg, NULL) ||
	    mmt_slabinfo(MMT_MEMCG_PN_CACHE, &s->pn, NULL)) {
		mmt_log("caches vanished from /proc/slabinfo");
		return -1;
	}
	return 0;
}

/*
 * Memory cgroups removed just before (an earlier test's, kept as zombies
 * by page cache charged to them) must finish freeing first, or their
 * frees would be subtracted from what is measured next.
 */
#define MEMCG_SETTLE_POLL_MS	500

long mmt_memcg_settle(struct mmt_memcg_snap *s, int caches, int settle_ms)
{
	struct mmt_memcg_snap prev;
	long zombies = 0;
	int waited;

	mmt_drop_caches();
	if (mmt_memcg_snap(&prev, caches))
		return -1;
	for (waited = 0; waited <= settle_ms; waited += MEMCG_SETTLE_POLL_MS) {
		usleep(MEMCG_SETTLE_POLL_MS * 1000);
		mmt_drop_caches();
		if (mmt_memcg_snap(s, caches))
			return -1;
		zombies = mmt_key_value(CG_ROOT "/cgroup.stat",
					"nr_dying_descendants");
		if (zombies < 0)
			return -1;
		if (!zombies && s->memcg == prev.memcg && s->pn == prev.pn)
			return 0;
		prev = *s;
	}
	mmt_log("%ld dying cgroup(s) stay; each may leave the counts meanwhile",
		zombies);
	return zombies;
}

int mmt_cg_create_n(const char *parent, int n, int *made)
{
	char path[256];

	while (*made < n) {
		snprintf(path, sizeof(path), "%s/c%d", parent, *made);
		if (mmt_cg_create(path))
			return -1;
		(*made)++;
	}
	return 0;
}

int mmt_cg_destroy_n(const char *parent, int *made)
{
	char path[256];

	for (; *made > 0; (*made)--) {
		snprintf(path, sizeof(path), "%s/c%d", parent, *made - 1);
		if (mmt_cg_destroy(path))
			return -1;
	}
	return 0;
}

int mmt_swap_on(void)
{
	if (swapon(MMT_SWAP_DEV, 0)) {
		mmt_log("swapon %s: %s", MMT_SWAP_DEV, strerror(errno));
		return -1;
	}
	return 0;
}

int mmt_swap_off(void)
{
	if (swapoff(MMT_SWAP_DEV)) {
		mmt_log("swapoff %s: %s", MMT_SWAP_DEV, strerror(errno));
		return -1;
	}
	return 0;
}

long long mmt_swap_used_kb(void)
{
	long long total = mmt_meminfo("SwapTotal"), free = mmt_meminfo("SwapFree");

	return total < 0 || free < 0 ? -1 : total - free;
}

/* mkdir -p of one level under an existing parent; 0 or -1 logged. */
static int disk_mkdir(const char *path, mode_t mode)
{
	if (mkdir(path, mode) && errno != EEXIST) {
		mmt_log("mkdir %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int mmt_disk_root(const char *name)
{
	static const char * const binds[] = {
		"/dev", "/proc", "/sys", "/etc", "/kselftest", "/tests",
		"/modules",
	};
	char root[256], path[320];
	size_t i;

	snprintf(root, sizeof(root), "%s/%s", MMT_DISK_DIR, name);
	if (disk_mkdir(root, 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/tmp", root);
	if (disk_mkdir(path, 01777))
		return -1;
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		mmt_log("a mount namespace of its own: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(binds); i++) {
		if (access(binds[i], F_OK))
			continue;
		snprintf(path, sizeof(path), "%s%s", root, binds[i]);
		if (disk_mkdir(path, 0755))
			return -1;
		if (mount(binds[i], path, NULL, MS_BIND | MS_REC, NULL)) {
			mmt_log("bind %s: %s", binds[i], strerror(errno));
			return -1;
		}
	}
	if (chroot(root) || chdir("/tmp")) {
		mmt_log("chroot %s: %s", root, strerror(errno));
		return -1;
	}
	return 0;
}
