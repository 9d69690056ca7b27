// SPDX-License-Identifier: GPL-2.0
/*
 * The running kernel is the pinned base plus the stack's localversion.
 *
 * The host computes the expected release from the tree it built (the
 * pinned version, or on Android's common kernel the sublevel of its
 * Makefile, and the tree's localversion* files) and passes it as
 * mm510.release=; a kernel built from another tree, or without the
 * stack's last patch, fails here.  Every tree of the stack is a 5.10.
 */
#include <string.h>
#include <sys/utsname.h>

#include "mmt.h"

#define LINE	"5.10."

int main(void)
{
	char buf[4096], *want, *end;
	struct utsname u;

	if (uname(&u))
		return KSFT_FAIL;
	mmt_log("uname -r: %s", u.release);
	if (!mmt_check(!strncmp(u.release, LINE, strlen(LINE)),
		       "release %s does not start with %s", u.release, LINE))
		return KSFT_FAIL;

	if (mmt_read_file("/proc/cmdline", buf, sizeof(buf)) < 0)
		return KSFT_FAIL;
	want = strstr(buf, "mm510.release=");
	if (!mmt_check(want, "no mm510.release= on the command line"))
		return KSFT_FAIL;
	want += strlen("mm510.release=");
	end = want + strcspn(want, " \n");
	*end = '\0';
	if (!mmt_check(!strcmp(u.release, want), "release %s, expected %s",
		       u.release, want))
		return KSFT_FAIL;
	return KSFT_PASS;
}
