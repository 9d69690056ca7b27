#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# gitlab-local.sh JOB: run one job of .gitlab-ci.yml end to end on this
# machine with gitlab-ci-local (npm) in shell mode, in this checkout and
# its build folder, as a GitLab shell runner would.  gitlab-ci-local is
# installed once, at the pinned version, into $CACHE_DIR/npm (from npm's
# registry; Debian does not package it).  GATES, when set, is passed to
# the job as a pipeline variable (make gates runs those gates): make
# check runs the fast gates' job with GATES=series, so that the engine,
# the job and make gates are exercised end to end without a second run
# of the gates make check has just run itself.  GITLAB_LOCAL_DIR, for
# tests: the project to run it in (default: this checkout).  Exit
# status: the job's.

. "$(dirname "$0")/lib.sh"

GITLAB_CI_LOCAL_VERSION=4.65.0	# the newest that runs on Node.js 18 (Debian 12)

[ $# -eq 1 ] || die "usage: gitlab-local.sh JOB"
need node nodejs
need npm npm
need rsync rsync
proj=${GITLAB_LOCAL_DIR:-$TOP}
[ -f "$proj/.gitlab-ci.yml" ] || die "$proj/.gitlab-ci.yml missing"

prefix=$CACHE_DIR/npm
gcl=$prefix/node_modules/.bin/gitlab-ci-local
if [ ! -x "$gcl" ] ||
   [ "$("$gcl" --version 2>/dev/null)" != "$GITLAB_CI_LOCAL_VERSION" ]; then
	msg "installing gitlab-ci-local $GITLAB_CI_LOCAL_VERSION into $prefix (npm)"
	mkdir -p "$prefix"
	npm install --no-audit --no-fund --prefix "$prefix" \
		"gitlab-ci-local@$GITLAB_CI_LOCAL_VERSION" >"$prefix/install.log" 2>&1 || {
		tail -n 5 "$prefix/install.log" >&2
		die "npm could not install gitlab-ci-local $GITLAB_CI_LOCAL_VERSION (log: $prefix/install.log)"
	}
fi

# The job must be one the file defines (gitlab-ci-local would run none).
grep -qxF "$1" <<<"$(cd "$proj" && "$gcl" --list-all 2>/dev/null | awk 'NR > 1 { print $1 }')" ||
	die "no job '$1' in .gitlab-ci.yml (gitlab-ci-local --list-all lists them)"

# This machine's cache and build folder, and the lock a calling make
# holds, passed on: the job runs in this checkout.
cd "$proj"
vars=(--variable "CACHE_DIR=$CACHE_DIR" --variable "BUILD=$BUILD"
      --variable "MM510_LOCKED=${MM510_LOCKED:-}")
[ -z "${GATES:-}" ] || vars+=(--variable "GATES=$GATES")
exec "$gcl" --shell-executor-no-image --no-color "${vars[@]}" "$1"
