// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel tree's own cgroup selftests (test_core, test_kmem,
 * test_memcontrol from tools/testing/selftests/cgroup of the tree under
 * test, built static by ci/build.sh into /kselftest/cgroup).  Each
 * program's TAP output is passed on as diagnostics; a failing subtest
 * fails this test unless it is in the table below of subtests that fail
 * on plain 5.10.262 in this guest for a reason that has nothing to do
 * with the stack.  Those are named in the output with their reason, and
 * one that starts passing is reported too, so the table cannot go stale
 * silently.  A racy subtest (known_lag[]) is let off only when the
 * figures it prints show the race.  A program that crashes or prints no
 * result fails the test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmt.h"

/* MM510_KSFT_DIR: other programs, for the host's test of the tables. */
#define KSFT_DIR	"/kselftest/cgroup"

static const char * const programs[] = {
	"test_core", "test_kmem", "test_memcontrol",
};

struct known_failure {
	const char *program;
	const char *test;
	const char *reason;
	int rt_only;	/* known on a PREEMPT_RT kernel only */
};

/*
 * Each entry was seen failing on plain 5.10.262 (and, for an rt_only
 * one, on its RT base) for a reason of 5.10's own (an interface it
 * lacks, a race it has, a test upstream has since changed), not the
 * guest's and not the stack's: the guest has a disk, swap, loopback
 * TCP and namespaces.
 */
#define PROPORTIONAL \
	"5.10's own expectation: 33M and 17M for the two protected children " \
	"assume protection split by ratio, but reclaim is proportional to " \
	"usage (settles near 29M and 21M); upstream's f10b6e9a8e66 (v5.19) " \
	"changed the test"

static const struct known_failure known[] = {
	{ .program = "test_memcontrol", .test = "test_memcg_min",
	  .reason = PROPORTIONAL },
	{ .program = "test_memcontrol", .test = "test_memcg_low",
	  .reason = PROPORTIONAL },
	{ .program = "test_memcontrol", .test = "test_memcg_oom_group_leaf_events",
	  .reason =
	  "5.10's own test: it wants no oom_kill in the parent's memory.events, "
	  "which counts its subtree's events since 9852ae3fe529 unless cgroup2 "
	  "is mounted with memory_localevents; upstream's 06e11c907ea4 and "
	  "72b1e03aa725 (v5.19) changed the test" },
	/*
	 * On PREEMPT_RT only, the RT base (5.10.262-rt157) and the RT
	 * stack alike, seen with a copy of the program that prints its
	 * figures (icount, rt-ksft's kernel):
	 * - test_memcg_sock fails at its first read: memory.current
	 *   2473984, memory.stat sock 2519040 (the stack); a race: the base
	 *   failed it in rt-ksft's boot and passed with the printing copy.
	 * - test_memcg_swap_max: with memory.max and memory.swap.max 30M,
	 *   50M of anonymous memory leaves memory.current 31436800 and
	 *   memory.swap.current 31432704 on the base (31428608 on the
	 *   stack): about 10M counted in both, pages still in the swap
	 *   cache when it reads, where the test wants the sum within 3% of
	 *   50M.  Why 5.10-rt keeps them there longer is not found yet.
	 */
	{ .program = "test_memcontrol", .test = "test_memcg_sock",
	  .reason =
	  "5.10's own test on 5.10-rt: its first read can see memory.current below the sock "
	  "statistic, a racy check that upstream's 830316807e02 (v5.19) removed",
	  .rt_only = 1 },
	{ .program = "test_memcontrol", .test = "test_memcg_swap_max",
	  .reason =
	  "5.10-rt's own, the RT base too: about 10M of the 50M are counted in memory.current "
	  "and memory.swap.current at once (swap cache) when the test reads; cause not found yet",
	  .rt_only = 1 },
};

/*
 * test_kmem_memcg_deletion compares the parent's memory.current with its
 * memory.stat right after its 100 children are removed.  Before rstat
 * (v5.13) a cgroup's per-cpu vmstat residues, up to 32 pages per CPU and
 * counter, reach its ancestors only when they overflow or when the
 * cgroup is freed, while its charges are in the parent at once: every
 * child still dying at the read hides its residues from the parent's
 * memory.stat, and the test's bound allows for the parent's own only.
 * So it fails on plain 5.10.262 whenever children are still dying:
 * - KASAN kernels, whose quarantine holds the children's frees until
 *   after they are reparented: 14 runs of each debug kernel failed 5
 *   times on the base and 7 times on the stack; the gap followed the
 *   number of dying children on both (180 KB with 1, 350 KB with 2,
 *   650 KB with 3, 1.4 MB with 5, against a 512 KB bound);
 * - the default kernel when the guest runs fast against its clock (QEMU
 *   -icount, one CPU, bound 256 KB): memory.current 487424 against a
 *   stat sum of 3008 on the base, 339968 against 0 with the stack.  At TCG's usual speed the frees come
 *   before the children die and their residues net out (7 runs: 5 to 9
 *   dying, gap -50 KB to +270 KB).
 * A lag explains only a sum below memory.current; a sum above it is not
 * this race and fails.  stress_memcg_churn checks the same sums once
 * the dying cgroups are gone, and slab_memcg_objstock checks
 * reparenting with a dying child's residues allowed for.
 *
 * Entries here are racy, not certain: known only when the program
 * printed a memory.stat sum at or below memory.current, and not reported
 * when they pass.
 */
static const struct known_failure known_lag[] = {
	{ .program = "test_kmem", .test = "test_kmem_memcg_deletion",
	  .reason =
	  "racy on 5.10, base too: children still dying keep their per-cpu stats from the parent's memory.stat" },
};

/*
 * test_kmem_dead_cgroups removes 30 children and gives them 5 s of wall
 * clock to be freed.  On a KASAN kernel under a loaded TCG host that is
 * not always enough (1 debug run of about 12 failed in this session's
 * make check, the stack's; the subtest prints no figures).  Let off
 * only when the root's dying cgroups are back to their count before
 * the program within DYING_WAIT_S: freed late, not leaked.
 */
static const struct known_failure known_slow[] = {
	{ .program = "test_kmem", .test = "test_kmem_dead_cgroups",
	  .reason =
	  "racy under load: allows 5 s for dying cgroups to go; they went later (see above)" },
};

#define DYING_WAIT_S	60

/*
 * test_kmem_basic fills a cgroup with 100000 negative dentries, writes
 * 1M to its memory.high and reads memory.stat's slab and memory.current
 * at once, wanting both below half of the slab it had.  Reclaim frees
 * dentries through call_rcu(), so the slab is uncharged only after a
 * grace period: plain 5.10.262 fails it on the debug kernel (KASAN and
 * lockdep, in icount), where the grace period ends after the read.
 * There, with the same steps in this program (rcu_recheck()), the slab
 * was 64.7 MB after the dentries, 49.2 MB right after the write, 24.5 MB
 * (memory.current 37.4 MB) one second later and 24.5 MB (24.5 MB) six
 * seconds later, on the stack and the same on the base.  Upstream waits
 * a second after the write since Johannes Weiner's "selftests: cgroup:
 * fix test_kmem_basic false positives" (posting
 * 20230801135632.1768830-1-hannes@cmpxchg.org; its mainline id and
 * release are unconfirmed here).  Let off only when rcu_recheck() sees
 * both figures fall below half within RCU_WAIT_S: freed late, not kept.
 */
static const struct known_failure known_rcu[] = {
	{ .program = "test_kmem", .test = "test_kmem_basic",
	  .reason =
	  "5.10's own test: reads right after memory.high, before the dentries reclaim freed through RCU are uncharged (see above)" },
};

#define RCU_WAIT_S	30
#define RCU_CG		CG_ROOT "/mm510-kmem-basic"

static int known_seen[ARRAY_SIZE(known)];

/* The entry of @table (@n entries) for subtest @test of @prog, or NULL. */
static const struct known_failure *
find_in(const struct known_failure *table, size_t n, const char *prog,
	const char *test)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(table[i].program, prog) &&
		    !strcmp(table[i].test, test))
			return &table[i];
	return NULL;
}

#define FIND(table, prog, test) \
	find_in(table, ARRAY_SIZE(table), prog, test)

/* Whether the running kernel is PREEMPT_RT ("PREEMPT_RT" in uname -v). */
static int kernel_is_rt(void)
{
	struct utsname u;

	return !uname(&u) && strstr(u.version, "PREEMPT_RT");
}

static const struct known_failure *find_known(const char *prog,
					      const char *test)
{
	const struct known_failure *k = FIND(known, prog, test);

	if (k && k->rt_only && !kernel_is_rt())
		return NULL;
	if (k)
		known_seen[k - known] = 1;
	return k;
}

static long root_dying(void)
{
	return mmt_key_value(CG_ROOT "/cgroup.stat", "nr_dying_descendants");
}

/* Whether the root's dying cgroups fall back to @before in time. */
static int dying_back_to(long before)
{
	long now = root_dying();
	int s;

	for (s = 0; s < DYING_WAIT_S && now > before; s++) {
		mmt_drop_caches();
		sleep(1);
		now = root_dying();
	}
	mmt_log("dying cgroups: %ld before, %ld after %d s more", before, now,
		s);
	return now >= 0 && now <= before;
}

/* test_kmem_basic's negative dentries, made by a child in RCU_CG. */
static int rcu_fill(void)
{
	char name[128];
	struct stat st;
	int status, i;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		/* In the selftests' root on the disk, as they ran. */
		if (mmt_cg_enter(RCU_CG) || mmt_disk_root("kselftest"))
			_exit(1);
		for (i = 0; i < 100000; i++) {
			snprintf(name, sizeof(name),
				 "/mm510-non-existent-%64d-%d", i, getpid());
			stat(name, &st);
		}
		_exit(0);
	}
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       !WEXITSTATUS(status) ? 0 : -1;
}

/*
 * test_kmem_basic's steps, then up to RCU_WAIT_S for the slab and
 * memory.current to fall below half of the slab before memory.high.
 * Whether they did (1) or not (0).
 */
static int rcu_recheck(void)
{
	long long slab0, slab = -1, current = -1;
	int s, ok = 0;

	if (mmt_cg_enable_memory(CG_ROOT) || mmt_cg_create(RCU_CG))
		return 0;
	if (rcu_fill())
		goto out;
	slab0 = mmt_cg_stat(RCU_CG, "slab");
	if (slab0 < (1 << 20)) {
		mmt_log("rcu recheck: slab %lld after the dentries", slab0);
		goto out;
	}
	if (mmt_write_file(RCU_CG "/memory.high", "1M"))
		goto out;
	for (s = 0; s <= RCU_WAIT_S; s++) {
		slab = mmt_cg_stat(RCU_CG, "slab");
		current = mmt_cg_read_ll(RCU_CG, "memory.current");
		if (slab >= 0 && current >= 0 && slab < slab0 / 2 &&
		    current < slab0 / 2) {
			ok = 1;
			break;
		}
		sleep(1);
	}
	mmt_log("rcu recheck: slab %lld before memory.high, then slab %lld and memory.current %lld after %d s",
		slab0, slab, current, s);
out:
	mmt_cg_destroy(RCU_CG);
	return ok;
}

/*
 * A failure judged after its program: known (counted in @known_failed)
 * when its cause was @seen, else unexpected, logged with @why.
 */
static void judge(const char *prog, const struct known_failure *k, int seen,
		  const char *why, int *known_failed, int *unexpected)
{
	if (seen) {
		mmt_log("%s: %s: known failure on 5.10.262 in this guest: %s",
			prog, k->test, k->reason);
		(*known_failed)++;
	} else {
		mmt_fail_at(__FILE__, __LINE__, "%s: %s: %s", prog, k->test,
			    why);
		(*unexpected)++;
	}
}

/* The subtest name of a TAP result line, after "ok N " and "# SKIP ". */
static char *tap_name(char *line)
{
	char *p = strchr(line, ' ');

	if (!p)
		return line;
	p = strchr(p + 1, ' ');	/* after "ok" / "not ok"'s number */
	if (!strncmp(line, "not ", 4) && p)
		p = strchr(p + 1, ' ');
	if (!p)
		return line;
	p++;
	if (!strncmp(p, "# SKIP ", 7))
		p += 7;
	p[strcspn(p, "\n")] = '\0';
	return p;
}

/* Returns the number of unexpected failures, or -1 if the run broke. */
static int run_program(const char *prog, int *known_failed)
{
	int fds[2], status, unexpected = 0, results = 0, known0 = *known_failed;
	long long current = -1, sum = -1;
	long dying = root_dying();
	const struct known_failure *slow = NULL, *rcu = NULL;
	char path[128], line[1024], *eq, *name;
	const char *why;
	FILE *out;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s",
		 getenv("MM510_KSFT_DIR") ?: KSFT_DIR, prog);
	if (access(path, X_OK)) {
		mmt_log("%s: %s", path, strerror(errno));
		return -1;
	}
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		/*
		 * The programs' files on the disk, as on a user's machine:
		 * their / (test_kmem_basic's dentries) and /tmp (tmpfile()'s
		 * page cache) are directories of the guest's ext4 disk
		 * (unless the host's test of the tables runs other programs).
		 */
		if (!getenv("MM510_KSFT_DIR") && mmt_disk_root("kselftest"))
			_exit(127);
		execl(path, prog, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	out = fdopen(fds[0], "r");
	while (out && fgets(line, sizeof(line), out)) {
		const struct known_failure *k;

		mmt_log("%s: %s", prog, line);
		/* test_kmem_memcg_deletion's figures, printed on failure. */
		eq = strstr(line, " = ");
		if (eq && !strncmp(line, "memory.current = ", 17))
			current = strtoll(eq + 3, NULL, 10);
		else if (eq && !strncmp(line, "slab + anon + file", 18))
			sum = strtoll(eq + 3, NULL, 10);
		if (!strncmp(line, "ok ", 3)) {
			results++;
			current = -1;
			sum = -1;
		}
		if (strncmp(line, "not ok ", 7))
			continue;
		results++;
		name = tap_name(line);
		k = find_known(prog, name);
		why = "not a known failure";
		if (!k) {
			k = FIND(known_lag, prog, name);
			if (k && (sum < 0 || current < sum)) {
				why = "not a lag of the stats, not the known race";
				mmt_log("%s: %s: memory.stat sum %lld, memory.current %lld",
					prog, name, sum, current);
				k = NULL;
			}
		}
		current = -1;
		sum = -1;
		if (!k && FIND(known_slow, prog, name)) {
			slow = FIND(known_slow, prog, name);	/* judged at the end */
			continue;
		}
		if (!k && FIND(known_rcu, prog, name)) {
			rcu = FIND(known_rcu, prog, name);	/* judged at the end */
			continue;
		}
		if (k) {
			mmt_log("%s: %s: known failure on 5.10.262 in this guest: %s",
				prog, k->test, k->reason);
			(*known_failed)++;
		} else {
			/* The first "FAIL" line is the one make check names. */
			mmt_fail_at(__FILE__, __LINE__, "%s: %s: %s", prog,
				    name, why);
			unexpected++;
		}
	}
	if (out)
		fclose(out);
	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status)) {
		mmt_fail_at(__FILE__, __LINE__, "%s: killed by signal %d", prog,
			    WTERMSIG(status));
		return -1;
	}
	/* Exit status 4: the whole program skipped (a missing feature). */
	if (WEXITSTATUS(status) == KSFT_SKIP) {
		mmt_log("%s: skipped as a whole", prog);
		return 0;
	}
	/* These programs print no plan; a run prints one line per subtest. */
	if (!results) {
		mmt_fail_at(__FILE__, __LINE__,
			    "%s: no result lines: it did not run", prog);
		return -1;
	}
	if (slow)
		judge(prog, slow, dying >= 0 && dying_back_to(dying),
		      "dying cgroups did not go", known_failed, &unexpected);
	if (rcu)
		judge(prog, rcu, rcu_recheck(), "the slab was not reclaimed",
		      known_failed, &unexpected);
	if (WEXITSTATUS(status) && !unexpected && *known_failed == known0) {
		mmt_fail_at(__FILE__, __LINE__,
			    "%s: exit status %d without a failed subtest",
			    prog, WEXITSTATUS(status));
		return -1;
	}
	return unexpected;
}

int main(void)
{
	int ret = KSFT_PASS, known_failed = 0, before, n, swap = 0;
	size_t i;

	/* The programs' reclaim tests expect swap, as a user's machine has. */
	if (!getenv("MM510_KSFT_DIR")) {
		if (mmt_swap_on())
			return KSFT_FAIL;
		swap = 1;
		mmt_log("swap on %s: %lld kB", MMT_SWAP_DEV, mmt_meminfo("SwapTotal"));
	}
	for (i = 0; i < ARRAY_SIZE(programs); i++) {
		/*
		 * test_kmem measures kmem accounting, switched off by
		 * cgroup.memory=nokmem and absent with SLOB (no slabinfo).
		 */
		if (!strcmp(programs[i], "test_kmem") &&
		    (mmt_cmdline_has("cgroup.memory=nokmem") ||
		     !mmt_have_slabinfo())) {
			mmt_log("test_kmem: not run: no kmem accounting");
			continue;
		}
		before = known_failed;
		n = run_program(programs[i], &known_failed);
		if (n) {
			ret = KSFT_FAIL;
			mmt_log("%s: %s", programs[i],
				n < 0 ? "did not complete" : "unexpected failures");
		}
		mmt_log("%s: %d known failure(s)", programs[i],
			known_failed - before);
	}
	/* A known failure that did not fail: the table needs a look. */
	for (i = 0; i < ARRAY_SIZE(known); i++)
		if (!known_seen[i] && (!known[i].rt_only || kernel_is_rt()))
			mmt_log("listed as a known failure but did not fail: %s %s",
				known[i].program, known[i].test);
	mmt_log("%d known failure(s) in all, %zu listed", known_failed,
		ARRAY_SIZE(known) + ARRAY_SIZE(known_lag) +
		ARRAY_SIZE(known_slow) + ARRAY_SIZE(known_rcu));
	if (swap) {
		mmt_log("swap in use at the end: %lld kB", mmt_swap_used_kb());
		if (mmt_swap_off()) {
			mmt_fail_at(__FILE__, __LINE__, "swap not turned off");
			ret = KSFT_FAIL;
		}
	}
	return ret;
}
