// SPDX-License-Identifier: GPL-2.0
/*
 * mm510 in-guest test runner: the initramfs's PID 1.
 *
 * Modelled on the kernel's nolibc selftest: prepare() mounts what the
 * tests need, the tests run one after another, results come out as TAP
 * on the console, and the verdict leaves the guest through QEMU's exit
 * status: power off on success; on failure, isa-debug-exit on x86 (QEMU
 * exits with 3) and semihosting's SYS_EXIT on arm64 (QEMU exits with 1;
 * the host enables it for user space with -semihosting-config).  A crash of
 * this program panics the kernel, and the host boots with panic=-1 and
 * -no-reboot, so a crash never looks like a pass: the host also requires
 * the final "mm510-runner: PASS" line.
 *
 * Kernel command line:
 *   mm510.tests=a,b,c    run these tests from /tests (default: all, sorted,
 *                        not those in subfolders: bench/slab runs only by name)
 *   mm510.skip=a,b       leave these out of "all" (a scenario that boots
 *                        them in a boot of their own, configs/scenarios)
 *   mm510.timeout=SEC    per-test timeout (default 600)
 *   mm510.fault=P,I      fault injection (a kernel with configs/fault.config):
 *                        every test's own processes get P percent of
 *                        every I-th slab and page allocation failed
 *                        (fault_arm()), and each test is then judged by
 *                        what it gave back (fault_verdict())
 *   mm510.kcsan          a KCSAN kernel: data-race reports are counted and
 *                        echoed, not failed (ci/against-base.sh compares)
 *   mm510.kmemleak       a kmemleak kernel: a scan after every test, its
 *                        leaks echoed and counted (kmemleak_check()), not
 *                        failed (ci/against-base.sh compares)
 *   mm510.selftest=exit|hang|leftover   the harness's own failure drills
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <sys/io.h>
#define HAVE_DEBUG_EXIT	1
#define DEBUG_EXIT_PORT	0xf4
#endif
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mmt.h"

#define TEST_DIR	"/tests"
#define MAX_TESTS	256

static char cmdline[4096];
static int kmsg_fd = -1;

/* Kernel log lines that mean a test (or boot) is not clean. */
static const char * const bad_log[] = {
	"WARNING:",
	"BUG:",
	"BUG ",
	"Oops",
	"KASAN",
	"Call Trace",
	"Call trace:",			/* arm64 */
	"Unable to handle kernel",	/* arm64 faults */
	"general protection fault",
	"INFO: possible",
	"INFO: inconsistent",
	"INFO: trying to register non-static key",
	"turning off the locking correctness validator",
	"UBSAN:",
	"Kernel panic",
	"page allocation failure",
};

/*
 * An OOM report (a memcg OOM test provokes them) always carries a stack
 * trace.  Between "invoked oom-killer:" and the report's "Killed process"
 * line a "Call Trace" (arm64: "Call trace:") is expected; every other
 * bad_log pattern still counts there.
 */
#define OOM_START	"invoked oom-killer:"
#define OOM_END		"Killed process"

/*
 * mm510.fault=P,I (fault_config()): -1 when the boot injects no
 * failures.  Under injected failures, an allocation's own failure report
 * (warn_alloc(): "vmalloc: allocation failure", "page allocation
 * failure", then a stack trace and show_mem(), whose last line counts
 * the reserved pages) is what the failure is expected to print: its
 * "Call Trace" and the report's own line are allowed there, as in an OOM
 * report; anything else still counts.
 */
static int fault_probability = -1, fault_interval = 1;
#define ALLOCFAIL_START	"allocation failure"
#define ALLOCFAIL_END	"pages reserved"

/*
 * mm510.kcsan: on a KCSAN kernel the data-race reports ("BUG: KCSAN:
 * data-race in A / B", then the two accesses' stacks, no other bad_log
 * line) are what the boot is for, compared with another kernel's by
 * the host (ci/against-base.sh).  Each is echoed as "# kcsan: ..." and
 * counted, not held against the test that was running.  -1 when not
 * asked for.
 */
static int kcsan_reports = -1;
#define KCSAN_REPORT	"BUG: KCSAN:"

/*
 * mm510.kmemleak: on a kmemleak kernel (configs/kmemleak.config, its
 * automatic scans off) the runner scans after each test and echoes each
 * object kmemleak reports as one line, "# kmemleak: TEST: size N:
 * FRAME < FRAME ..." (the allocation's backtrace, innermost first),
 * then clears them so that each is named once.  kmemleak reports only
 * objects older than 5 s (MSECS_MIN_AGE), so a leak of a test's last
 * seconds is named after the next test; the boot's own before the first,
 * and the last test's after a final wait.  Like KCSAN's reports these
 * are compared with another kernel's by the host; -1 when not asked for.
 */
static int kmemleak_leaks = -1;
#define KMEMLEAK_FILE	"/sys/kernel/debug/kmemleak"
#define KMEMLEAK_FRAMES	6
#define KMEMLEAK_MIN_AGE_S	6

static int oom_allowed(const char *pattern)
{
	return !strcmp(pattern, "Call Trace") || !strcmp(pattern, "Call trace:");
}

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static void do_mount(const char *src, const char *dst, const char *type,
		     const char *opts)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, 0, opts) && errno != EBUSY)
		say("# mount %s on %s: %s\n", type, dst, strerror(errno));
}

/*
 * Bring lo up, for the tests' TCP over loopback.  A kernel without INET
 * says EAFNOSUPPORT, one without NET has no socket() at all (ENOSYS):
 * neither has a loopback to bring up.
 */
static void loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		if (errno != EAFNOSUPPORT && errno != ENOSYS)
			say("# socket: %s\n", strerror(errno));
		return;
	}
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		say("# lo: %s\n", strerror(errno));
	} else {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
			say("# lo up: %s\n", strerror(errno));
	}
	close(fd);
}

/*
 * The guest's two virtio disks (ci/lib.sh's guest_disks), told apart by
 * what is on them, not by name: x86's PCI slots give them in the order
 * of QEMU's command line, arm64's virtio-mmio transports in the reverse
 * one.  Each found gets a link of a fixed name (DATA_DEV, SWAP_DEV, the
 * tests' MMT_SWAP_DEV).
 */
#define DATA_DEV	"/dev/mm510-data"
#define SWAP_DEV	"/dev/mm510-swap"

static void find_disks(void)
{
	static const char * const names[] = { "vda", "vdb", "vdc", "vdd" };
	long page = sysconf(_SC_PAGESIZE);
	char dev[32], *buf = malloc(page);
	size_t i;

	for (i = 0; buf && i < sizeof(names) / sizeof(names[0]); i++) {
		int fd;
		ssize_t n;

		snprintf(dev, sizeof(dev), "/dev/%s", names[i]);
		fd = open(dev, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = pread(fd, buf, page, 0);
		close(fd);
		if (n != page)
			continue;
		/* ext2/3/4's magic 0xef53 at 1080; mkswap's signature. */
		if ((unsigned char)buf[1080] == 0x53 &&
		    (unsigned char)buf[1081] == 0xef) {
			if (symlink(dev, DATA_DEV))
				say("# %s: %s\n", DATA_DEV, strerror(errno));
		} else if (!memcmp(buf + page - 10, "SWAPSPACE2", 10)) {
			if (symlink(dev, SWAP_DEV))
				say("# %s: %s\n", SWAP_DEV, strerror(errno));
		}
	}
	free(buf);
}

static void prepare(void)
{
	int fd;

	do_mount("devtmpfs", "/dev", "devtmpfs", NULL);
	/* The console may have come from the initramfs' own /dev node. */
	fd = open("/dev/console", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	do_mount("proc", "/proc", "proc", NULL);
	do_mount("sysfs", "/sys", "sysfs", NULL);
	/*
	 * nsdelegate, as systemd mounts it: test_cgcore_lesser_ns_open
	 * checks the migration permission of a delegated namespace.
	 */
	do_mount("cgroup2", "/sys/fs/cgroup", "cgroup2", "nsdelegate");
	do_mount("debugfs", "/sys/kernel/debug", "debugfs", NULL);
	do_mount("tmpfs", "/tmp", "tmpfs", "size=64m");
	/* ci/boot.sh's disks; a guest without them says so. */
	find_disks();
	if (!access(DATA_DEV, F_OK))
		do_mount(DATA_DEV, "/mnt/disk", "ext4", NULL);
	else
		say("# no ext4 disk: no disk-backed file system in this guest\n");
	if (access(SWAP_DEV, F_OK))
		say("# no swap disk in this guest\n");
	loopback_up();

	fd = open("/proc/cmdline", O_RDONLY);
	if (fd >= 0) {
		ssize_t n = read(fd, cmdline, sizeof(cmdline) - 1);

		cmdline[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg_fd < 0)
		say("# open /dev/kmsg: %s\n", strerror(errno));
}

/*
 * Copy the value of "key=" from the command line into @buf.  As with
 * kernel parameters, the last one given wins (make stress appends its
 * own mm510.timeout after the scenario's).
 */
static int cmdline_get(const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key);
	const char *p = cmdline;
	int found = 0;

	while ((p = strstr(p, key))) {
		if ((p == cmdline || p[-1] == ' ') && p[klen] == '=') {
			size_t n = strcspn(p + klen + 1, " \n");

			if (n >= size)
				n = size - 1;
			memcpy(buf, p + klen + 1, n);
			buf[n] = '\0';
			found = 1;
		}
		p += klen;
	}
	return found;
}

/*
 * Read every kernel log record printed since the last call and report
 * the ones matching bad_log.  Returns the number of bad records.
 */
static int scan_kmsg(void)
{
	static int in_oom, in_allocfail;
	char rec[2048];
	int bad = 0;

	if (kmsg_fd < 0)
		return 0;
	for (;;) {
		ssize_t n = read(kmsg_fd, rec, sizeof(rec) - 1);
		char *msg;
		size_t i;

		if (n < 0) {
			if (errno == EPIPE)	/* overwritten records */
				continue;
			break;			/* EAGAIN: drained */
		}
		rec[n] = '\0';
		/* "prio,seq,ts,flags;message\n continuation..." */
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		msg[strcspn(msg, "\n")] = '\0';
		if (strstr(msg, OOM_START))
			in_oom = 1;
		else if (strstr(msg, OOM_END))
			in_oom = 0;
		if (kcsan_reports >= 0 && strstr(msg, KCSAN_REPORT)) {
			say("# kcsan: %s\n", msg);
			kcsan_reports++;
			continue;
		}
		if (fault_probability >= 0 && strstr(msg, ALLOCFAIL_START))
			in_allocfail = 1;
		else if (strstr(msg, ALLOCFAIL_END))
			in_allocfail = 0;
		for (i = 0; i < sizeof(bad_log) / sizeof(bad_log[0]); i++) {
			if ((in_oom || in_allocfail) && oom_allowed(bad_log[i]))
				continue;
			if (in_allocfail && !strcmp(bad_log[i], "page allocation failure"))
				continue;
			if (strstr(msg, bad_log[i])) {
				if (bad < 20)
					say("# kernel: %s\n", msg);
				bad++;
				break;
			}
		}
	}
	return bad;
}

/*
 * What a test leaves behind must not fail the tests after it: a module
 * of MODULE_DIR still loaded (the next finit_module() gets EEXIST), a
 * cgroup still there (the next test counts its charges).  Each is
 * removed and named, and counts against the test that left it.
 */
static int unload_leftovers(const char *test)
{
	char line[512], name[128], ko[256];
	int left = 0;
	FILE *f;

	f = fopen("/proc/modules", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s", name) != 1)
			continue;
		snprintf(ko, sizeof(ko), "%s/%s.ko", MODULE_DIR, name);
		if (access(ko, F_OK))
			continue;
		say("# %s: left module %s loaded\n", test, name);
		left++;
		if (syscall(SYS_delete_module, name, O_NONBLOCK))
			say("# delete_module %s: %s\n", name, strerror(errno));
	}
	fclose(f);
	return left;
}

/* Move the tasks of @dir to the root, then remove it; 1 s for EBUSY. */
static void remove_cgroup(const char *dir)
{
	char path[640], pid[32];
	int tries, root;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	root = open(CG_ROOT "/cgroup.procs", O_WRONLY | O_CLOEXEC);
	while (f && root >= 0 && fgets(pid, sizeof(pid), f))
		if (write(root, pid, strlen(pid)) < 0)
			say("# move %.*s out of %s: %s\n",
			    (int)strcspn(pid, "\n"), pid, dir,
			    strerror(errno));
	if (f)
		fclose(f);
	if (root >= 0)
		close(root);
	for (tries = 0; tries < 100; tries++) {
		if (!rmdir(dir) || errno != EBUSY)
			break;
		usleep(10000);
	}
	if (access(dir, F_OK) == 0)
		say("# rmdir %s: %s\n", dir, strerror(errno));
}

/* Remove the cgroups below @dir, deepest first; returns how many. */
static int remove_cgroups_below(const char *dir, const char *test)
{
	char path[512];
	struct dirent *de;
	int left = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		left += remove_cgroups_below(path, test);
		if (!strcmp(dir, CG_ROOT))
			say("# %s: left cgroup %s\n", test, path);
		remove_cgroup(path);
		left++;
	}
	closedir(d);
	return left;
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* @name is an item of the comma-separated @list. */
static int in_list(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p = list;

	while ((p = strstr(p, name))) {
		if ((p == list || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return 1;
		p += len;
	}
	return 0;
}

static int list_tests(char **names)
{
	char sel[2048];
	int n = 0;

	if (cmdline_get("mm510.tests", sel, sizeof(sel))) {
		char *save, *tok;

		for (tok = strtok_r(sel, ",", &save); tok && n < MAX_TESTS;
		     tok = strtok_r(NULL, ",", &save))
			names[n++] = strdup(tok);
		return n;
	}

	DIR *d = opendir(TEST_DIR);
	struct dirent *de;

	if (!d) {
		say("# opendir %s: %s\n", TEST_DIR, strerror(errno));
		return 0;
	}
	if (!cmdline_get("mm510.skip", sel, sizeof(sel)))
		sel[0] = '\0';
	while ((de = readdir(d)) && n < MAX_TESTS) {
		if (de->d_name[0] == '.')
			continue;
		if (in_list(sel, de->d_name))
			continue;
		/* Folders hold what runs only by name (bench/<name>). */
		if (de->d_type == DT_DIR)
			continue;
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmpstr);
	return n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Fault injection (mm510.fault=P,I).  The capabilities fail only tasks
 * with make-it-fail set, which a test's process sets for itself from
 * main() on (MMT_FAULT_ENV), so its exec, the runner and the rest of the
 * guest allocate as usual.  A test under injected failures passes when
 * its own checks pass or it ends with a clean error (an exit status, no
 * signal, no timeout, no bad kernel log line), and when, once it is gone
 * and what it left is removed, the kernel has given back what it took:
 * no dying cgroup more than before it (each cgroup freed after its
 * rmdir, with its objcg and css) and free pages back within
 * FAULT_FREE_SLACK.  Leftovers of a test that ended early are expected.
 */
#define FAULT_FREE_SLACK	2048	/* pages */
#define FAULT_SETTLE_S		10

struct fault_base {
	long long dying, free;
};

static void fault_config(void)
{
	char val[32];

	if (!cmdline_get("mm510.fault", val, sizeof(val)))
		return;
	if (sscanf(val, "%d,%d", &fault_probability, &fault_interval) < 1 ||
	    fault_probability < 0 || fault_probability > 100 ||
	    fault_interval < 1) {
		say("# mm510.fault=%s: want P,I (percent, interval)\n", val);
		fault_probability = 0;
		fault_interval = 1;
	}
}

static long long dying_cgroups(void)
{
	return mmt_key_value(CG_ROOT "/cgroup.stat", "nr_dying_descendants");
}

/* The baseline, then the failures switched on; 0 or -1. */
static int fault_arm(struct fault_base *b)
{
	mmt_drop_caches();
	b->dying = dying_cgroups();
	b->free = mmt_free_pages();
	if (b->dying < 0 || b->free < 0)
		return -1;
	return mmt_fault_setup(fault_probability, fault_interval);
}

/*
 * The failures switched off, then the test's verdict under them: @ret
 * as run_one() gave it, @bad the bad kernel log lines, @left what it
 * left behind.  Returns the KSFT code to report.
 */
static int fault_verdict(const char *name, int ret, int bad, int left,
			 const struct fault_base *b)
{
	long injected = mmt_fault_injected();
	long long dying = -1, free = -1;
	int waited;

	mmt_fault_setup(0, 1);
	for (waited = 0; waited <= FAULT_SETTLE_S; waited++) {
		if (waited)
			sleep(1);
		mmt_drop_caches();
		dying = dying_cgroups();
		free = mmt_free_pages();
		if (dying >= 0 && dying <= b->dying &&
		    free >= b->free - FAULT_FREE_SLACK)
			break;
	}
	say("# %s: %ld failures injected; dying cgroups %lld -> %lld, free pages %lld -> %lld\n",
	    name, injected, b->dying, dying, b->free, free);
	if (ret < 0 || bad)
		return KSFT_FAIL;
	if (ret != KSFT_PASS && ret != KSFT_SKIP)
		say("# %s ended with exit status %d under the injected failures: a clean error\n",
		    name, ret);
	else if (left && ret == KSFT_PASS) {
		say("# %s passed, yet left %d module(s) or cgroup(s) behind\n",
		    name, left);
		return KSFT_FAIL;
	}
	if (dying < 0 || dying > b->dying) {
		say("# %s: %lld cgroup(s) not freed after their rmdir\n",
		    name, dying - b->dying);
		return KSFT_FAIL;
	}
	if (free < b->free - FAULT_FREE_SLACK) {
		say("# %s: %lld free pages did not come back\n", name,
		    b->free - free);
		return KSFT_FAIL;
	}
	return ret == KSFT_SKIP ? KSFT_SKIP : KSFT_PASS;
}

/*
 * Scan, echo and count what kmemleak reports, name it after @when, and
 * clear it.  Returns 0, or -1 when kmemleak cannot scan (not built in,
 * or disabled: its metadata pool ran out): the boot then checked
 * nothing and says so.
 */
static int kmemleak_check(const char *when)
{
	char line[512], out[1024] = "";
	int frames = 0, in_trace = 0, found = 0;
	FILE *f;

	if (mmt_write_file(KMEMLEAK_FILE, "scan"))
		return -1;
	f = fopen(KMEMLEAK_FILE, "r");
	if (!f) {
		say("# kmemleak: %s: %s\n", KMEMLEAK_FILE, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *sym;
		unsigned long size;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "unreferenced object %*s (size %lu)",
			   &size) == 1) {
			if (out[0])
				say("%s\n", out);
			snprintf(out, sizeof(out), "# kmemleak: %s: size %lu:",
				 when, size);
			frames = 0;
			in_trace = 0;
			found++;
			continue;
		}
		if (strstr(line, "backtrace:")) {
			in_trace = 1;
			continue;
		}
		sym = strstr(line, "] ");
		if (in_trace && frames < KMEMLEAK_FRAMES && sym) {
			size_t len = strlen(out);

			snprintf(out + len, sizeof(out) - len, "%s%s",
				 frames ? " <" : "", sym + 1);
			frames++;
		}
	}
	if (out[0])
		say("%s\n", out);
	fclose(f);
	kmemleak_leaks += found;
	return mmt_write_file(KMEMLEAK_FILE, "clear");
}

/*
 * A test that ran past its time: first the kernel's own account of the
 * tasks that are stuck (sysrq w: the blocked tasks and their stacks; l:
 * what each CPU runs), so that a hang in the kernel shows where it is,
 * then the test's process group killed.  A task stuck in the kernel does
 * not die of SIGKILL: the wait for it is bounded, and the boot goes on to
 * its verdict rather than hang until the host's limit.
 */
#define KILL_WAIT_S	30

static void timeout_report(const char *name, pid_t pid)
{
	int waited;

	mmt_write_file("/proc/sysrq-trigger", "w");
	mmt_write_file("/proc/sysrq-trigger", "l");
	kill(-pid, SIGKILL);
	for (waited = 0; waited < KILL_WAIT_S * 10; waited++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		usleep(100000);
	}
	say("# %s: not gone %d s after SIGKILL: stuck in the kernel (the blocked tasks above)\n",
	    name, KILL_WAIT_S);
}

/*
 * " # SKIP <reason>" for a skipped test's TAP line, the reason the last
 * line the test logged (mmt_log(): MMT_LAST_LOG), without a "SKIP"
 * of its own; " # SKIP" alone when it logged none.
 */
static const char *skip_reason(char *buf, size_t size)
{
	static const char tag[] = " # SKIP ";
	char line[200];
	const char *p = line;
	ssize_t n = -1;
	int fd = open(MMT_LAST_LOG, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, line, sizeof(line) - 1);
		close(fd);
	}
	if (n <= 0)
		return " # SKIP";
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if (!strncmp(p, "SKIP", 4)) {
		p += 4;
		p += strspn(p, ": ");
	}
	if (!*p)
		return " # SKIP";
	snprintf(buf, size, "%s%s", tag, p);
	return buf;
}

/* Returns a KSFT code, or -1 on timeout / abnormal end. */
static int run_one(const char *name, int timeout)
{
	char path[256];
	double deadline;
	int status;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", TEST_DIR, name);
	if (access(path, X_OK)) {
		say("# %s: no such test\n", path);
		return -1;
	}
	unlink(MMT_LAST_LOG);	/* an earlier test's last line */
	pid = fork();
	if (pid < 0) {
		say("# fork: %s\n", strerror(errno));
		return -1;
	}
	if (!pid) {
		char *argv[] = { path, NULL };

		setpgid(0, 0);
		chdir("/tmp");
		/* mmt's constructor: make-it-fail from main() on. */
		if (fault_probability >= 0)
			setenv(MMT_FAULT_ENV, "1", 1);
		execv(path, argv);
		say("# exec %s: %s\n", path, strerror(errno));
		_exit(1);
	}
	setpgid(pid, pid);

	deadline = now() + timeout;
	for (;;) {
		pid_t w = waitpid(-1, &status, WNOHANG);

		if (w == pid)
			break;
		if (w > 0)	/* an orphan reparented to us */
			continue;
		if (now() > deadline) {
			say("# %s: timed out after %d s, killing it\n", name,
			    timeout);
			timeout_report(name, pid);
			return -1;
		}
		usleep(20000);
	}
	/* Leftover helpers of the test must not leak into the next one. */
	kill(-pid, SIGKILL);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (WIFSIGNALED(status)) {
		say("# %s: killed by signal %d\n", name, WTERMSIG(status));
		return -1;
	}
	return WEXITSTATUS(status);
}

#ifdef __aarch64__
/*
 * Semihosting SYS_EXIT (0x18) with ADP_Stopped_ApplicationExit and an
 * exit code: QEMU exits with that code.  Without semihosting the HLT is
 * an undefined instruction and the caller dies of SIGILL, so it runs in
 * a child of its own.
 */
static void fail_exit(void)
{
	pid_t pid = fork();

	if (!pid) {
		unsigned long block[2] = { 0x20026, 1 };
		register unsigned long x0 asm("x0") = 0x18;
		register unsigned long x1 asm("x1") = (unsigned long)block;

		asm volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}
#elif defined(HAVE_DEBUG_EXIT)
static void fail_exit(void)
{
	if (!ioperm(DEBUG_EXIT_PORT, 4, 1))
		outb(1, DEBUG_EXIT_PORT);	/* QEMU exits with 3 */
}
#else
static void fail_exit(void)
{
}
#endif

static void finish(int pass)
{
	pid_t pid;

	say("mm510-runner: %s\n", pass ? "PASS" : "FAIL");
	sync();
	/* PID 1 cannot survive its own reboot(); a child does it. */
	pid = fork();
	if (!pid) {
		if (!pass)
			fail_exit();
		reboot(RB_POWER_OFF);
		_exit(0);
	}
	for (;;)
		pause();
}

int main(void)
{
	char *names[MAX_TESTS], val[64];
	int n, i, timeout = 600, failed = 0, passed = 0, skipped = 0;
	int noscan;

	prepare();
	say("TAP version 13\n");

	if (cmdline_get("mm510.timeout", val, sizeof(val)))
		timeout = atoi(val) > 0 ? atoi(val) : timeout;
	if (cmdline_get("mm510.selftest", val, sizeof(val))) {
		/* Drills for the host's own bad-input tests. */
		if (!strcmp(val, "exit"))
			return 1;	/* PID 1 exits: the kernel panics */
		if (!strcmp(val, "hang"))
			for (;;)
				pause();
		/* A cgroup the first test is then said to have left. */
		if (!strcmp(val, "leftover"))
			mkdir(CG_ROOT "/mm510-drill", 0755);
	}

	fault_config();
	if (mmt_cmdline_has("mm510.kcsan"))
		kcsan_reports = 0;
	if (mmt_cmdline_has("mm510.kmemleak"))
		kmemleak_leaks = 0;
	n = list_tests(names);
	say("1..%d\n", n + 1);

	/*
	 * Test 1: the kernel booted without a warning (and, asked for
	 * kmemleak, with it able to scan).
	 */
	noscan = kmemleak_leaks >= 0 && kmemleak_check("boot");
	if (scan_kmsg() || noscan) {
		say("not ok 1 boot-log\n");
		failed++;
	} else {
		say("ok 1 boot-log\n");
		passed++;
	}

	for (i = 0; i < n; i++) {
		double t0 = now();
		struct fault_base fb = { 0 };
		int faulty = fault_probability >= 0 && !fault_arm(&fb);
		int ret = run_one(names[i], timeout);
		int left = unload_leftovers(names[i]) +
			   remove_cgroups_below(CG_ROOT, names[i]);
		int bad;
		const char *what = "";
		char why[256];

		if (kmemleak_leaks >= 0 && kmemleak_check(names[i]))
			ret = -1;
		bad = scan_kmsg();

		if (fault_probability >= 0 && !faulty) {
			say("# %s: fault injection not armed\n", names[i]);
			ret = -1;
		} else if (faulty) {
			ret = fault_verdict(names[i], ret, bad, left, &fb);
			left = 0;
		}
		if (bad && ret == 0) {
			say("# %s: %d bad kernel log line(s)\n", names[i], bad);
			ret = 1;
		}
		if (left && (ret == 0 || ret == 4)) {
			say("# %s: left %d module(s) or cgroup(s) behind\n",
			    names[i], left);
			ret = 1;
		}
		if (ret == 0) {
			passed++;
		} else if (ret == 4 && !bad) {
			skipped++;
			what = skip_reason(why, sizeof(why));
		} else {
			failed++;
		}
		say("# %s took %.1f s\n", names[i], now() - t0);
		say("%sok %d %s%s\n", ret == 0 || what[0] ? "" : "not ",
		    i + 2, names[i], what);
	}
	if (kmemleak_leaks >= 0) {
		sleep(KMEMLEAK_MIN_AGE_S);
		if (kmemleak_check("end"))
			failed++;
	}
	say("# totals: pass:%d fail:%d skip:%d\n", passed, failed, skipped);
	if (kcsan_reports >= 0)
		say("# kcsan: %d report(s) in all\n", kcsan_reports);
	if (kmemleak_leaks >= 0)
		say("# kmemleak: %d leak(s) in all\n", kmemleak_leaks);
	finish(!failed && n + 1 > 0);
	return 0;
}
