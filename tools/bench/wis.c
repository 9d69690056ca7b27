// SPDX-License-Identifier: GPL-2.0
/*
 * bench/wis: two will-it-scale tests, run as 1 and 2 processes (make
 * bench).  Like will-it-scale, each test is one function looping over
 * one operation and counting it in a shared counter; the harness forks
 * the tasks, each bound to its own CPU, lets them warm up, then counts
 * the operations done in a fixed time of the guest's clock.
 *
 *   page_fault: mmap MAP_SIZE of anonymous memory, write one byte per
 *               page (one page fault each), munmap; an op is a fault
 *               (will-it-scale's page_fault1, with a smaller mapping)
 *   unix1:      write one byte into an AF_UNIX stream socketpair and read
 *               it from the other end; an op is the round trip
 *               (will-it-scale's unix1; needs CONFIG_UNIX, configs/bench)
 *
 * Prints "mm510-bench: wis-<test>-t<tasks> ops_s <ops per second>", the
 * sum over the tasks.  The 2-task variants need two online CPUs.
 * Kernel command line: mm510.bench_secs=N measured seconds (default 5).
 * Fails only when a task cannot be started.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mmt.h"

#define MAP_SIZE	(16UL << 20)
#define MAX_TASKS	2

/* One cache line per task, so the counters do not share one. */
struct counter {
	volatile unsigned long long n;
	char pad[64 - sizeof(unsigned long long)];
};

static void test_page_fault(volatile unsigned long long *n)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned long off;
	char *p;

	for (;;) {
		p = mmap(NULL, MAP_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			mmt_log("page_fault: mmap: %s", strerror(errno));
			_exit(1);
		}
		for (off = 0; off < MAP_SIZE; off += pg) {
			p[off] = 1;
			(*n)++;
		}
		munmap(p, MAP_SIZE);
	}
}

static void test_unix1(volatile unsigned long long *n)
{
	int fd[2];
	char c = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fd)) {
		mmt_log("unix1: socketpair: %s", strerror(errno));
		_exit(1);
	}
	for (;;) {
		if (write(fd[0], &c, 1) != 1 || read(fd[1], &c, 1) != 1) {
			mmt_log("unix1: write/read: %s", strerror(errno));
			_exit(1);
		}
		(*n)++;
	}
}

static const struct {
	const char *name;
	void (*fn)(volatile unsigned long long *n);
} tests[] = {
	{ "page_fault", test_page_fault },
	{ "unix1", test_unix1 },
};

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static unsigned long long total(struct counter *c, int tasks)
{
	unsigned long long sum = 0;
	int i;

	for (i = 0; i < tasks; i++)
		sum += c[i].n;
	return sum;
}

static int run(unsigned int t, int tasks, double secs, struct counter *c)
{
	pid_t pid[MAX_TASKS];
	unsigned long long c0, c1;
	double t0, t1, warm = secs / 5 < 0.5 ? 0.5 : secs / 5;
	char name[64];
	int i, started = 0, ret = -1, status;

	memset(c, 0, sizeof(*c) * MAX_TASKS);
	for (i = 0; i < tasks; i++) {
		pid[i] = fork();
		if (pid[i] < 0) {
			mmt_log("fork: %s", strerror(errno));
			goto out;
		}
		if (!pid[i]) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(i, &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				mmt_log("task %d: sched_setaffinity: %s", i,
					strerror(errno));
			tests[t].fn(&c[i].n);
			_exit(0);
		}
		started++;
	}
	sleep_s(warm);
	c0 = total(c, tasks);
	t0 = mmt_now();
	sleep_s(secs);
	c1 = total(c, tasks);
	t1 = mmt_now();
	for (i = 0; i < started; i++)
		if (waitpid(pid[i], &status, WNOHANG) == pid[i]) {
			mmt_log("%s task %d ended early", tests[t].name, i);
			goto out;
		}
	snprintf(name, sizeof(name), "wis-%s-t%d", tests[t].name, tasks);
	mmt_log("%s: %llu ops in %.3f s", name, c1 - c0, t1 - t0);
	mmt_bench(name, "ops_s", (c1 - c0) / (t1 - t0), "ops/s");
	ret = 0;
out:
	for (i = 0; i < started; i++)
		kill(pid[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	return ret;
}

int main(void)
{
	double secs = mmt_cmdline_long("mm510.bench_secs", 5);
	int cpus = mmt_nr_online_cpus();
	struct counter *c;
	unsigned int t;
	int tasks;

	c = mmap(NULL, sizeof(*c) * MAX_TASKS, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		return KSFT_FAIL;
	for (t = 0; t < ARRAY_SIZE(tests); t++) {
		for (tasks = 1; tasks <= MAX_TASKS; tasks++) {
			if (tasks > cpus) {
				mmt_log("%s: %d tasks need %d CPUs, %d online: skipped",
					tests[t].name, tasks, tasks, cpus);
				break;
			}
			if (run(t, tasks, secs, c))
				return KSFT_FAIL;
		}
	}
	return KSFT_PASS;
}
