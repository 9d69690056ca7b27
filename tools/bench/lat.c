// SPDX-License-Identifier: GPL-2.0
/*
 * bench/lat: wake-up latency under the mm loads, as RT users measure it
 * (make bench's lat variant, a kernel with high-resolution timers:
 * configs/lat.config).  The meter is Debian's cyclictest (rt-tests),
 * which ci/build.sh copies into the x86 guests of that variant; this
 * program only starts it, runs the loads and reads its histogram.
 *
 * For each load in turn, cyclictest runs one SCHED_FIFO thread (priority
 * 95) per CPU (-S), each sleeping until its next period with an
 * absolute clock_nanosleep() and counting how late it woke, LOOPS
 * times (-l, one each -i INTERVAL us), memory locked (-m), into a
 * histogram (-h, --histfile) of whole microseconds, or with
 * mm510.bench_lat_ns=1 (make bench's icount mode, where 1 ns is a guest
 * instruction and a wake-up takes a few us) of nanoseconds (-N).  The
 * load runs on every CPU the program may use, one task bound to each,
 * at normal priority; it starts before cyclictest and stops after it,
 * so every sample is taken under it.
 *
 *   idle   no load: the floor (timer interrupt, wake-up, switch)
 *   page   anonymous memory mapped, written a byte a page and unmapped,
 *          PAGE_LOAD_SIZE at a time, in a memory cgroup: order-0 pages
 *          through the per-cpu lists (refilled from and drained back to
 *          the buddy lists under zone->lock once a list passes its
 *          marks), each page charged through the memcg stock
 *   slab   accounted kernel objects in a memory cgroup: a pipe (its
 *          pipe_inode_info, buffer array, inode, dentry and two files)
 *          with SLAB_WRITE bytes written through it (accounted pages),
 *          then a tmpfs file created, written and removed: the per-cpu
 *          object stock and its cached slab statistics, slab pages
 *   memcg  memory cgroups made and removed: per cycle a child cgroup, a
 *          process in it that does one slab cycle and touches
 *          MEMCG_TOUCH of anonymous memory, then rmdir: a memcg's per-cpu
 *          data, and its offlining (stock drained on every CPU, its
 *          objcg reparented)
 *
 * Prints per load (name lat-<load>):
 *   mm510-bench: lat-page max_us <longest wake-up latency, any thread>
 *   mm510-bench: lat-page p99_9_us <99.9th percentile, see below>
 *   mm510-bench: lat-page avg_us <mean of every wake-up>
 *   mm510-bench: lat-page samples <wake-ups measured, all threads>
 *   mm510-bench: lat-page overflows <wake-ups past the histogram>
 *   mm510-bench: lat-page load_ops <load cycles done while measured>
 *   mm510-lathist: page <us> <wake-ups>
 *   mm510-lathist: page >=<limit> <wake-ups>
 * one mm510-lathist line per non-empty step of LATHIST_NS (the wake-ups
 * <us> late up to the next step, every thread's summed): a microsecond,
 * or 10 ns with -N (then <us> has two decimals); and one for the
 * overflows, if any: the wake-ups <limit> us late or later (HIST_US us,
 * or HIST_NS ns with -N; in a file read with --parse, that file's number
 * of buckets).
 *
 * The 99.9th percentile: cyclictest's bucket b counts the wake-ups that
 * came b to b+1 units late (us, or ns with -N: it truncates, as its Max
 * Latencies does).  The percentile is the smallest b such that at least
 * 99.9% of all wake-ups, the overflows counted, lie in buckets 0 to b
 * (rank ceil(0.999 * samples)), given in us.  Should that rank fall
 * among the overflows, the figure is the histogram's limit, a lower
 * bound, and said so.  The maximum is cyclictest's own, exact beyond the
 * histogram too.
 *
 * Kernel command line: mm510.bench_lat_loops=N (default 10000),
 * mm510.bench_lat_interval=US (default 1000), mm510.bench_lat_ns=1.
 * Measures from SETTLE_S of uptime on, in high-resolution mode.  Skips
 * when the guest has no cyclictest (arches other than x86) or when its
 * timers still run in low resolution at SETTLE_MAX_S (a sleeper is then
 * woken by the next tick, whatever the mm does).  Fails when cyclictest
 * or a load fails, or cyclictest did not run one thread per CPU to
 * LOOPS wake-ups (it stops every thread when the first is done, so the
 * others may count a few less: samples is their sum); no latency is
 * asserted.
 *
 * On the host, "lat --parse LOAD HISTFILE [ns]" prints the lines above for
 * a histogram file of cyclictest's (ci/tests/host.sh); nothing is run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "mmt.h"

#define CYCLICTEST	"/usr/bin/cyclictest"
#define LAT_CG		CG_ROOT "/mm510-bench-lat"
#define PRIO		"95"
#define HIST_US		20000		/* buckets of 1 us: 20 ms */
#define HIST_NS		100000		/* buckets of 1 ns (-N): 100 us */
#define HIST_BUCKETS	HIST_NS
#define LATHIST_NS	10		/* the finest mm510-lathist step */
#define MAX_TASKS	64
#define PAGE_LOAD_SIZE	(4UL << 20)
#define SLAB_WRITE	(16 << 10)
#define MEMCG_TOUCH	(256UL << 10)

/* Shared with the load tasks: their stop flag and cycle counters. */
struct lat_shared {
	volatile int stop;
	volatile unsigned long ops[MAX_TASKS];
};

struct lat_load {
	const char *name;
	/* One cycle of the task bound to @cpu (@idx: its slot); 0 or -1. */
	int (*cycle)(int idx, int cpu, unsigned long n);
	int own_cgroup;		/* the tasks run in LAT_CG/<name> */
};

static char page_buf[4096];

static int page_touch(size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t off;
	char *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		mmt_log("mmap %zu bytes: %s", len, strerror(errno));
		return -1;
	}
	for (off = 0; off < len; off += pg)
		p[off] = 1;
	munmap(p, len);
	return 0;
}

static int page_cycle(int idx, int cpu, unsigned long n)
{
	return page_touch(PAGE_LOAD_SIZE);
}

static int write_all(int fd, size_t len, const char *what)
{
	size_t done = 0;
	ssize_t w;

	while (done < len) {
		w = write(fd, page_buf, len - done < sizeof(page_buf) ?
			  len - done : sizeof(page_buf));
		if (w < 0) {
			if (errno == EINTR)
				continue;
			mmt_log("write %s: %s", what, strerror(errno));
			return -1;
		}
		done += w;
	}
	return 0;
}

static int slab_cycle(int idx, int cpu, unsigned long n)
{
	char path[64];
	int fds[2], fd, ret;

	if (pipe2(fds, O_CLOEXEC)) {
		mmt_log("pipe2: %s", strerror(errno));
		return -1;
	}
	/* Less than the pipe's 64 KiB: the write never waits. */
	ret = write_all(fds[1], SLAB_WRITE, "pipe");
	close(fds[0]);
	close(fds[1]);
	if (ret)
		return -1;
	snprintf(path, sizeof(path), "/tmp/mm510-lat-%d", idx);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		mmt_log("create %s: %s", path, strerror(errno));
		return -1;
	}
	ret = write_all(fd, sizeof(page_buf), path);
	close(fd);
	if (unlink(path)) {
		mmt_log("unlink %s: %s", path, strerror(errno));
		return -1;
	}
	return ret;
}

static int memcg_cycle(int idx, int cpu, unsigned long n)
{
	char cg[128];
	int status, ret = -1;
	pid_t pid;

	snprintf(cg, sizeof(cg), "%s/memcg-%d-%lu", LAT_CG, idx, n);
	if (mmt_cg_create(cg))
		return -1;
	pid = fork();
	if (pid < 0) {
		mmt_log("fork: %s", strerror(errno));
		goto out;
	}
	if (!pid)
		_exit(mmt_cg_enter(cg) || slab_cycle(idx, cpu, n) ||
		      page_touch(MEMCG_TOUCH) ? 1 : 0);
	if (waitpid(pid, &status, 0) != pid) {
		mmt_log("waitpid: %s", strerror(errno));
		goto out;
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		ret = 0;
	else
		mmt_log("%s: its process failed", cg);
out:
	if (mmt_cg_destroy(cg))
		ret = -1;
	return ret;
}

static const struct lat_load loads[] = {
	{ "idle", NULL, 0 },
	{ "page", page_cycle, 1 },
	{ "slab", slab_cycle, 1 },
	{ "memcg", memcg_cycle, 0 },
};

/* The CPUs this program may run on, into @cpus; how many, or -1. */
static int lat_cpus(int *cpus)
{
	cpu_set_t set;
	int cpu, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		mmt_log("sched_getaffinity: %s", strerror(errno));
		return -1;
	}
	for (cpu = 0; cpu < CPU_SETSIZE && n < MAX_TASKS; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
	return n;
}

/*
 * A load task: bound to @cpu, in @cg when given, cycles until told to
 * stop.  Exit status 0; 1 on an error; 2 when @deadline (mmt_now())
 * passed first, which bounds a load whose cyclictest never ends.
 */
static void load_task(const struct lat_load *l, struct lat_shared *sh,
		      int idx, int cpu, const char *cg, double deadline)
{
	unsigned long n;

	if (mmt_pin_cpu(cpu) || (cg && mmt_cg_enter(cg)))
		_exit(1);
	for (n = 0; !sh->stop; n++) {
		if (mmt_now() > deadline)
			_exit(2);
		if (l->cycle(idx, cpu, n))
			_exit(1);
		sh->ops[idx] = n + 1;
	}
	_exit(0);
}

/* Stop the load tasks and reap them; 0, or -1 when one did not end well. */
static int load_stop(struct lat_shared *sh, const pid_t *pids, int n,
		     const char *name)
{
	int i, status, ret = 0;

	sh->stop = 1;
	for (i = 0; i < n; i++) {
		if (pids[i] <= 0)
			continue;
		if (waitpid(pids[i], &status, 0) != pids[i]) {
			mmt_log("waitpid: %s", strerror(errno));
			ret = -1;
			continue;
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == 2) {
			mmt_log("%s: a load task passed its deadline before cyclictest ended",
				name);
			ret = -1;
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			mmt_log("%s: the load task on slot %d failed", name, i);
			ret = -1;
		}
	}
	return ret;
}

/* Figures read from a histogram file of cyclictest's. */
struct lat_hist {
	unsigned long long bucket[HIST_BUCKETS];
	unsigned long long in_hist, overflows, samples;
	unsigned long long most, least;	/* wake-ups of a thread */
	long unit_ns;		/* a bucket: 1000 (us) or 1 (ns, -N) */
	long size;		/* buckets in the file: 0..size-1 units */
	long max;		/* in units, as avg */
	double avg;
	int threads;
};

/* The numbers after "# <key>:" in @line into @v (at most @max); how many. */
static int hist_numbers(const char *line, const char *key,
			unsigned long long *v, int max)
{
	const char *p;
	char *end;
	int n = 0;

	if (strncmp(line, key, strlen(key)))
		return -1;
	p = line + strlen(key);
	while (n < max) {
		unsigned long long x = strtoull(p, &end, 10);

		if (end == p)
			break;
		v[n++] = x;
		p = end;
	}
	return n;
}

/* cyclictest's summary lines: one figure per thread each. */
enum { HIST_TOTAL, HIST_OVERFLOWS, HIST_AVG, HIST_MAX, HIST_KEYS };
static const char * const hist_keys[HIST_KEYS] = {
	[HIST_TOTAL] = "# Total:",
	[HIST_OVERFLOWS] = "# Histogram Overflows:",
	[HIST_AVG] = "# Avg Latencies:",
	[HIST_MAX] = "# Max Latencies:",
};

static int hist_read(const char *path, long unit_ns, struct lat_hist *h)
{
	unsigned long long key[HIST_KEYS][MAX_TASKS], v[MAX_TASKS + 1];
	int nkey[HIST_KEYS] = { -1, -1, -1, -1 }, n, i, k;
	unsigned long long sum = 0, nt;
	char line[8192];
	FILE *f;

	memset(h, 0, sizeof(*h));
	h->unit_ns = unit_ns;
	f = mmt_fopen(path);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[strspn(line, " \t\n")] == '\0')
			continue;
		if (line[0] != '#') {
			/* A bucket: its us, then the wake-ups of each thread. */
			n = hist_numbers(line, "", v, MAX_TASKS + 1);
			if (n < 2 || v[0] >= HIST_BUCKETS) {
				mmt_log("%s: not a histogram line: %s", path, line);
				fclose(f);
				return -1;
			}
			for (i = 1; i < n; i++)
				h->bucket[v[0]] += v[i];
			if ((long)v[0] >= h->size)
				h->size = v[0] + 1;
			continue;
		}
		for (k = 0; k < HIST_KEYS; k++) {
			n = hist_numbers(line, hist_keys[k], key[k], MAX_TASKS);
			if (n >= 0) {
				nkey[k] = n;
				break;
			}
		}
	}
	fclose(f);
	for (k = 0; k < HIST_KEYS; k++) {
		if (nkey[k] < 1 || nkey[k] != nkey[HIST_TOTAL]) {
			mmt_log("%s: no Total, Overflows, Avg and Max line for each thread",
				path);
			return -1;
		}
	}
	h->threads = nkey[HIST_TOTAL];
	for (i = 0; i < h->threads; i++) {
		nt = key[HIST_TOTAL][i] + key[HIST_OVERFLOWS][i];
		h->in_hist += key[HIST_TOTAL][i];
		if (!i || nt > h->most)
			h->most = nt;
		if (!i || nt < h->least)
			h->least = nt;
		h->overflows += key[HIST_OVERFLOWS][i];
		/* cyclictest's mean of each thread, weighted by its samples */
		h->avg += (double)key[HIST_AVG][i] * nt;
		if ((long)key[HIST_MAX][i] > h->max)
			h->max = key[HIST_MAX][i];
	}
	h->samples = h->in_hist + h->overflows;
	if (h->samples)
		h->avg /= h->samples;
	for (i = 0; i < HIST_BUCKETS; i++)
		sum += h->bucket[i];
	if (sum != h->in_hist) {
		mmt_log("%s: the buckets hold %llu wake-ups, Total says %llu",
			path, sum, h->in_hist);
		return -1;
	}
	return 0;
}

/* The 99.9th percentile in units (see the top); h->size among the overflows. */
static long hist_p999(const struct lat_hist *h)
{
	unsigned long long rank = (h->samples * 999 + 999) / 1000, cum = 0;
	long b;

	for (b = 0; b < h->size; b++) {
		cum += h->bucket[b];
		if (cum >= rank)
			return b;
	}
	return h->size;
}

static void hist_print(const char *load, const struct lat_hist *h)
{
	long step = h->unit_ns > LATHIST_NS ? h->unit_ns : LATHIST_NS;
	long per = step / h->unit_ns, p, b, u, lim;
	double us = h->unit_ns / 1000.0;
	unsigned long long n;
	char name[64];

	snprintf(name, sizeof(name), "lat-%s", load);
	lim = h->size * h->unit_ns / 1000;
	p = hist_p999(h);
	if (p == h->size)
		mmt_log("%s: the 99.9th percentile lies among the %llu overflows: %ld us or more",
			name, h->overflows, lim);
	mmt_bench(name, "max_us", h->max * us, "us");
	mmt_bench(name, "p99_9_us", p * us, "us");
	mmt_bench(name, "avg_us", h->avg * us, "us");
	mmt_bench(name, "samples", h->samples, "samples");
	mmt_bench(name, "overflows", h->overflows, "samples");
	/* The histogram in steps of LATHIST_NS, or of the buckets if larger. */
	for (u = 0; u * per < h->size; u++) {
		n = 0;
		for (b = u * per; b < (u + 1) * per && b < h->size; b++)
			n += h->bucket[b];
		if (!n)
			continue;
		if (step >= 1000)
			printf("mm510-lathist: %s %ld %llu\n", load,
			       u * step / 1000, n);
		else
			printf("mm510-lathist: %s %.2f %llu\n", load,
			       u * step / 1000.0, n);
	}
	if (h->overflows)
		printf("mm510-lathist: %s >=%ld %llu\n", load, lim, h->overflows);
	fflush(stdout);
}

/* Print cyclictest's output file as diagnostics. */
static void log_file(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		mmt_log("cyclictest: %s", line);
	fclose(f);
}

/* Run cyclictest to its end; 0, or -1 (its output logged). */
static int run_cyclictest(const char *load, long loops, long interval,
			  int ns, const char *histfile)
{
	char out[64], l[32], i[32], h[32], hf[96];
	char *argv[] = { CYCLICTEST, "-q", "-m", "-S", "-p", PRIO, "-i", i,
			 "-l", l, "-h", h, hf, ns ? "-N" : NULL, NULL };
	int status, fd;
	pid_t pid;

	snprintf(out, sizeof(out), "/tmp/mm510-lat-%s.out", load);
	snprintf(l, sizeof(l), "%ld", loops);
	snprintf(i, sizeof(i), "%ld", interval);
	snprintf(h, sizeof(h), "%d", ns ? HIST_NS : HIST_US);
	snprintf(hf, sizeof(hf), "--histfile=%s", histfile);
	pid = fork();
	if (pid < 0) {
		mmt_log("fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execv(CYCLICTEST, argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid) {
		mmt_log("waitpid cyclictest: %s", strerror(errno));
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		mmt_log("%s: cyclictest %s %d", load,
			WIFEXITED(status) ? "exited with" : "was killed by signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		log_file(out);
		return -1;
	}
	log_file(out);
	unlink(out);
	return 0;
}

/* Wait until every load task has done a cycle (10 s at most); 0 or -1. */
static int load_started(const struct lat_shared *sh, int n, const char *name)
{
	double end = mmt_now() + 10;
	int i;

	for (;;) {
		for (i = 0; i < n && sh->ops[i]; i++)
			;
		if (i == n)
			return 0;
		if (mmt_now() > end) {
			mmt_log("%s: the load task on slot %d did no cycle in 10 s",
				name, i);
			return -1;
		}
		usleep(1000);
	}
}

static int run_load(const struct lat_load *l, struct lat_shared *sh,
		    const int *cpus, int ncpus, long loops, long interval,
		    int ns)
{
	char cg[128], histfile[64];
	unsigned long ops0 = 0, ops1 = 0;
	pid_t pids[MAX_TASKS] = { 0 };
	struct lat_hist *h = NULL;
	int i, ret = -1, made = 0;
	double deadline;

	snprintf(cg, sizeof(cg), "%s/%s", LAT_CG, l->name);
	snprintf(histfile, sizeof(histfile), "/tmp/mm510-lat-%s.hist", l->name);
	memset((void *)sh, 0, sizeof(*sh));
	/* Three times the run, and a minute: only a stuck run reaches it. */
	deadline = mmt_now() + 3.0 * loops * interval / 1e6 + 60;
	if (l->own_cgroup) {
		if (mmt_cg_create(cg))
			return -1;
		made = 1;
	}
	for (i = 0; l->cycle && i < ncpus; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			mmt_log("fork: %s", strerror(errno));
			goto out;
		}
		if (!pids[i])
			load_task(l, sh, i, cpus[i], made ? cg : NULL, deadline);
	}
	if (l->cycle && load_started(sh, ncpus, l->name))
		goto out;
	for (i = 0; l->cycle && i < ncpus; i++)
		ops0 += sh->ops[i];
	if (run_cyclictest(l->name, loops, interval, ns, histfile))
		goto out;
	for (i = 0; l->cycle && i < ncpus; i++)
		ops1 += sh->ops[i];
	ret = 0;
out:
	if (l->cycle && load_stop(sh, pids, ncpus, l->name))
		ret = -1;
	if (made && mmt_cg_destroy(cg))
		ret = -1;
	if (ret)
		return -1;
	h = malloc(sizeof(*h));
	if (!h || hist_read(histfile, ns ? 1 : 1000, h)) {
		free(h);
		return -1;
	}
	unlink(histfile);
	/*
	 * cyclictest ends every thread as soon as one has done its loops:
	 * the others may have a few wake-ups less.
	 */
	if (h->threads != ncpus || h->most != (unsigned long long)loops) {
		mmt_log("%s: %d threads, the busiest with %llu wake-ups, not %d with %ld",
			l->name, h->threads, h->most, ncpus, loops);
		ret = -1;
	} else {
		mmt_log("%s: %llu wake-ups on %d CPU(s) (%llu to %llu a thread), %lu load cycles",
			l->name, h->samples, h->threads, h->least, h->most,
			ops1 - ops0);
		hist_print(l->name, h);
		if (l->cycle) {
			snprintf(cg, sizeof(cg), "lat-%s", l->name);
			mmt_bench(cg, "load_ops", ops1 - ops0, "ops");
		}
	}
	free(h);
	return ret;
}

/*
 * Wait for high-resolution mode, which comes at a tick once a clocksource
 * fit for it is there (verified by the clocksource watchdog, or the TSC
 * once its calibration is refined, a second or so after boot), and for
 * SETTLE_S of uptime, past the boot's delayed work (the TSC's new
 * clocksource is installed under stop_machine(), which would stop every
 * measuring thread).  0; 1 when the timers stayed in low resolution
 * (clock_getres() gives a tick) until SETTLE_MAX_S of uptime.
 */
#define SETTLE_S	5
#define SETTLE_MAX_S	30

static int lat_settle(long *res_ns)
{
	struct timespec res;
	double up;

	for (;;) {
		up = mmt_now();	/* CLOCK_MONOTONIC: about the uptime */
		if (clock_getres(CLOCK_MONOTONIC, &res))
			return 1;
		*res_ns = res.tv_sec ? 1000000000L : res.tv_nsec;
		if (*res_ns <= 1000 && up >= SETTLE_S)
			return 0;
		if (up >= SETTLE_MAX_S)
			return 1;
		usleep(100000);
	}
}

/* The host's test of the reading: "lat --parse LOAD HISTFILE [ns]". */
static int parse_only(const char *load, const char *path, int ns)
{
	struct lat_hist *h = malloc(sizeof(*h));
	int ret = KSFT_FAIL;

	if (h && !hist_read(path, ns ? 1 : 1000, h)) {
		hist_print(load, h);
		ret = KSFT_PASS;
	}
	free(h);
	return ret;
}

int main(int argc, char **argv)
{
	long loops = mmt_cmdline_long("mm510.bench_lat_loops", 10000);
	long interval = mmt_cmdline_long("mm510.bench_lat_interval", 1000);
	int ns = mmt_cmdline_long("mm510.bench_lat_ns", 0) == 1;
	int cpus[MAX_TASKS], ncpus, ret = KSFT_FAIL, made = 0;
	struct lat_shared *sh;
	long res_ns = -1;
	unsigned int i;

	if ((argc == 4 || (argc == 5 && !strcmp(argv[4], "ns"))) &&
	    !strcmp(argv[1], "--parse"))
		return parse_only(argv[2], argv[3], argc == 5);
	if (access(CYCLICTEST, X_OK)) {
		mmt_log("SKIP: no %s in this guest (make bench copies Debian's rt-tests into the x86 guests of its lat variant only)",
			CYCLICTEST);
		return KSFT_SKIP;
	}
	if (lat_settle(&res_ns)) {
		mmt_log("SKIP: the timers run in low resolution (CLOCK_MONOTONIC's resolution %ld ns after %d s): a sleeper wakes with the next tick; boot a kernel with HIGH_RES_TIMERS (configs/lat.config)",
			res_ns, SETTLE_MAX_S);
		return KSFT_SKIP;
	}
	if (mmt_cmdline_has("cgroup_disable=memory")) {
		mmt_log("SKIP: booted with cgroup_disable=memory");
		return KSFT_SKIP;
	}
	if (loops < 1 || interval < 1) {
		mmt_log("mm510.bench_lat_loops and _interval must be positive");
		return KSFT_FAIL;
	}
	ncpus = lat_cpus(cpus);
	if (ncpus < 1)
		return KSFT_FAIL;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		mmt_log("mmap: %s", strerror(errno));
		return KSFT_FAIL;
	}
	memset(page_buf, 0x5a, sizeof(page_buf));
	mmt_log("cyclictest -S -p %s -i %ld -l %ld%s on %d CPU(s), each load in turn",
		PRIO, interval, loops, ns ? " -N" : "", ncpus);
	/* cyclictest keeps its running figures in POSIX shared memory. */
	if (access("/dev/shm", F_OK) &&
	    (mkdir("/dev/shm", 01777) ||
	     mount("tmpfs", "/dev/shm", "tmpfs", 0, "size=1m,mode=1777"))) {
		mmt_log("/dev/shm: %s", strerror(errno));
		goto out;
	}
	if (mmt_cg_enable_memory(CG_ROOT) || mmt_cg_create(LAT_CG))
		goto out;
	made = 1;
	if (mmt_cg_enable_memory(LAT_CG))
		goto out;
	for (i = 0; i < ARRAY_SIZE(loads); i++)
		if (run_load(&loads[i], sh, cpus, ncpus, loops, interval, ns))
			goto out;
	ret = KSFT_PASS;
out:
	if (made && mmt_cg_destroy(LAT_CG))
		ret = KSFT_FAIL;
	munmap(sh, sizeof(*sh));
	return ret;
}
