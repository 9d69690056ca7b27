// SPDX-License-Identifier: GPL-2.0
/*
 * Linked into the kernel tree's selftests built for the guest.  Their
 * output goes to a pipe (kselftest_cgroup reads it), where stdio buffers
 * whole blocks, and they fork: every child would then print its copy of
 * the parent's unflushed lines again at exit.  Line buffering keeps the
 * buffer empty at each fork, as on a terminal.
 */
#include <stdio.h>

__attribute__((constructor)) static void mmt_line_buffered(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}
