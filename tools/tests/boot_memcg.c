// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup v2 memory controller is available and charges memory: a
 * child cgroup's memory.current grows by what a task in it touches, and
 * falls back when the task has gone.  Booted with cgroup_disable=memory
 * the controller is legitimately absent and the test skips.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmt.h"

#define CG	CG_ROOT "/boot_memcg"
#define SIZE	(16 << 20)

int main(void)
{
	long long before, during = -1, after;
	int ret = KSFT_FAIL, status, pipefd[2];
	char c;
	pid_t pid;

	if (mmt_cmdline_has("cgroup_disable=memory")) {
		mmt_log("memory controller disabled on the command line");
		return KSFT_SKIP;
	}
	if (!mmt_check(mmt_file_contains(CG_ROOT "/cgroup.controllers",
					 "memory") == 1,
		       "no memory controller in %s/cgroup.controllers", CG_ROOT))
		return KSFT_FAIL;
	if (mmt_cg_enable_memory(CG_ROOT) || mmt_cg_create(CG))
		return KSFT_FAIL;
	before = mmt_cg_read_ll(CG, "memory.current");
	if (pipe(pipefd))
		goto cleanup;

	pid = fork();
	if (!pid) {
		char *p;

		if (mmt_cg_enter(CG))
			_exit(1);
		p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(1);
		memset(p, 1, SIZE);
		write(pipefd[1], "x", 1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &c, 1) == 1)
		during = mmt_cg_read_ll(CG, "memory.current");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	after = mmt_cg_read_ll(CG, "memory.current");
	mmt_log("memory.current: before %lld, with 16 MiB touched %lld, after %lld",
		before, during, after);

	if (mmt_check(during - before >= SIZE, "16 MiB touched, %lld charged",
		      during - before) &&
	    mmt_check(after < before + SIZE / 4,
		      "%lld bytes still charged after the task exited", after))
		ret = KSFT_PASS;
cleanup:
	if (mmt_cg_destroy(CG))
		ret = KSFT_FAIL;
	return ret;
}
