// SPDX-License-Identifier: GPL-2.0
/*
 * bench/page: the page allocator's order-0 fast path (make bench; the
 * module is tools/modules/bench_page.c).
 *
 * Runs in the root memory cgroup (page allocations from a module are not
 * charged).  Prints, after a short warm-up run of each:
 *   mm510-bench: page-single ns_page <ns per alloc_page()+__free_page()>
 *   mm510-bench: page-bulk-<N> ns_page <ns per page, bulk calls of N>
 * and the same with cycles_page.  On a kernel without the bulk allocator
 * (plain 5.10.262) the bulk lines are absent and the report says n/a.
 *
 * On a kernel with the irqsoff latency tracer (make bench's irqsoff
 * variant, configs/irqsoff.config) it prints instead, for each row,
 *   mm510-bench: <row> irqsoff_max_us <longest IRQs-off section, us>
 *   mm510-irqsoff: <row> <us> started=<fn> ended=<fn> stack=<fn<fn<fn>
 * the longest section anywhere in the guest while that run went, with
 * the tracer's sites and the first frames of its stack at the end: the
 * tracer's hooks on every local_irq_*() make the timings of such a
 * kernel incomparable, so they are left out.
 *
 * Kernel command line: mm510.bench_ops=N pages per run (default 1000000),
 * mm510.bench_sizes=N: only the first N bulk sizes (default all eight),
 * mm510.bench_profile=1: each measured run's function profile
 * (mmt_profile_stop(), make bench PROFILE=1).
 * Fails only when the module cannot be loaded or run, or the tracer
 * that the kernel has cannot be used.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "mmt.h"

#define MODULE		"bench_page"
#define PARAMS		"/sys/module/" MODULE "/parameters/"

#define TRACING		"/sys/kernel/tracing/"
#define TRACE_SIZE	(256 << 10)
#define STACK_FRAMES	4

static const unsigned int bulk_sizes[] = { 1, 2, 4, 8, 16, 32, 64, 128 };

/* The irqsoff tracer is in use for the measured runs. */
static int irqsoff;

/*
 * 1 when the kernel has the irqsoff tracer and it is now the current one
 * (tracing off until a run starts), 0 when the kernel has none, -1 when
 * it has one that could not be set up.
 */
static int irqsoff_setup(void)
{
	char buf[1024];

	if (access("/sys/kernel/tracing", F_OK))
		return 0;	/* no tracefs: no tracer at all */
	if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) &&
	    errno != EBUSY) {
		mmt_log("mount tracefs: %s", strerror(errno));
		return -1;
	}
	if (mmt_read_file(TRACING "available_tracers", buf, sizeof(buf)) < 0)
		return -1;
	if (!strstr(buf, "irqsoff"))
		return 0;
	if (mmt_write_file(TRACING "tracing_on", "0") ||
	    mmt_write_file(TRACING "current_tracer", "irqsoff"))
		return -1;
	return 1;
}

/* Copy the function name after "prefix" in text into out. */
static void trace_field(const char *text, const char *prefix, char *out,
			size_t size)
{
	const char *p = strstr(text, prefix);
	size_t n = 0;

	if (p) {
		p += strlen(prefix);
		p += strspn(p, " ");
		n = strcspn(p, " \n");
		if (n >= size)
			n = size - 1;
		memcpy(out, p, n);
	}
	if (!n && size > 1)
		out[n++] = '?';
	out[n] = '\0';
}

/*
 * The longest section of the run just ended: its length, its sites and
 * the first frames of the stack the tracer took at its end.  0 or -1.
 */
static int irqsoff_report(const char *row)
{
	char lat[64], started[128], ended[128], stack[512], *trace, *p;
	unsigned long long us;
	int frames = 0;
	size_t len = 0;

	if (mmt_read_file(TRACING "tracing_max_latency", lat, sizeof(lat)) < 0 ||
	    sscanf(lat, "%llu", &us) != 1) {
		mmt_log("%s: tracing_max_latency unreadable", row);
		return -1;
	}
	trace = malloc(TRACE_SIZE);
	if (!trace || mmt_read_file(TRACING "trace", trace, TRACE_SIZE) < 0) {
		free(trace);
		return -1;
	}
	trace_field(trace, "=> started at:", started, sizeof(started));
	trace_field(trace, "=> ended at:", ended, sizeof(ended));
	stack[0] = '\0';
	p = strstr(trace, "<stack trace>");
	while (p && frames < STACK_FRAMES) {
		p = strstr(p, "\n => ");
		if (!p)
			break;
		p += 5;
		len += snprintf(stack + len, sizeof(stack) - len, "%s%.*s",
				frames ? "<" : "", (int)strcspn(p, " \n"), p);
		if (len >= sizeof(stack))
			break;
		frames++;
	}
	free(trace);
	mmt_bench(row, "irqsoff_max_us", us, "us");
	printf("mm510-irqsoff: %s %llu started=%s ended=%s stack=%s\n", row, us,
	       started, ended, frames ? stack : "?");
	fflush(stdout);
	return 0;
}

/* Start a run: 0, or the errno of the write (EOPNOTSUPP: no bulk). */
static int start_run(void)
{
	int fd = open(PARAMS "run", O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, "1", 1) != 1)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

/* 0 done, 1 not supported by this kernel, -1 error. */
static int run_one(unsigned int bulk, long ops, int report)
{
	unsigned long long n, ns, cyc, loop_ns, loop_cyc;
	char buf[256], name[64];
	int ret;

	if (mmt_module_param(MODULE, "bulk", bulk) ||
	    mmt_module_param(MODULE, "ops", ops))
		return -1;
	/* The tracer measures the reported runs only, from a zero maximum. */
	if (irqsoff && report &&
	    (mmt_write_file(TRACING "tracing_max_latency", "0") ||
	     mmt_write_file(TRACING "tracing_on", "1")))
		return -1;
	if (bulk)
		snprintf(name, sizeof(name), "page-bulk-%u", bulk);
	else
		snprintf(name, sizeof(name), "page-single");
	if (report && mmt_profile_start())
		return -1;
	ret = start_run();
	if (irqsoff && report && mmt_write_file(TRACING "tracing_on", "0"))
		return -1;
	if (report && mmt_profile_stop(name, ops))
		return -1;
	if (ret == EOPNOTSUPP)
		return 1;
	if (ret) {
		mmt_log("bulk=%u: run: %s", bulk, strerror(ret));
		return -1;
	}
	if (mmt_read_file(PARAMS "result", buf, sizeof(buf)) < 0)
		return -1;
	if (sscanf(buf, "ops=%llu ns=%llu cycles=%llu loop_ns=%llu loop_cycles=%llu",
		   &n, &ns, &cyc, &loop_ns, &loop_cyc) != 5 || !n) {
		mmt_log("unexpected result: %s", buf);
		return -1;
	}
	if (!report)
		return 0;
	if (irqsoff)
		return irqsoff_report(name);
	mmt_bench(name, "ns_page", ((double)ns - (double)loop_ns) / n, "ns");
	mmt_bench(name, "cycles_page", ((double)cyc - (double)loop_cyc) / n,
		  "cycles");
	return 0;
}

int main(void)
{
	long ops = mmt_cmdline_long("mm510.bench_ops", 1000000);
	long nsizes = mmt_cmdline_long("mm510.bench_sizes", ARRAY_SIZE(bulk_sizes));
	int ret = KSFT_FAIL, r;
	unsigned int i;

	irqsoff = irqsoff_setup();
	if (irqsoff < 0)
		return KSFT_FAIL;
	if (irqsoff) {
		mmt_log("irqsoff tracer: the longest IRQs-off section of each run, no timings");
		/*
		 * Let the boot's delayed work go by first (in icount mode
		 * a sleep costs no host time): the TSC's refinement, a
		 * second after boot, printed from inside the first run.
		 */
		sleep(3);
	}
	if (mmt_module_load(MODULE, NULL))
		return KSFT_FAIL;
	if (run_one(0, ops / 10 + 1, 0) || run_one(0, ops, 1))
		goto out;
	for (i = 0; i < ARRAY_SIZE(bulk_sizes) && i < nsizes; i++) {
		r = run_one(bulk_sizes[i], ops / 10 + bulk_sizes[i], 0);
		if (r == 1) {
			mmt_log("no bulk allocator in this kernel: bulk n/a");
			break;
		}
		if (r || run_one(bulk_sizes[i], ops, 1))
			goto out;
	}
	ret = KSFT_PASS;
out:
	if (mmt_module_unload(MODULE))
		ret = KSFT_FAIL;
	return ret;
}
