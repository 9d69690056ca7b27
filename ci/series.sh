#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# series.sh [FLAVOUR]: the series of one flavour (vanilla, the default,
# rt or android) as a plain quilt series file on stdout, the patch names
# relative to patches/.  For a quilt user of the RT flavour:
#   ci/series.sh rt >patches/series-rt
#   QUILT_PATCHES=patches QUILT_SERIES=series-rt quilt push -a --fuzz=0
# (in a 5.10-rt tree; see Documentation/debian-rt.md).

. "$(dirname "$0")/lib.sh"

fl=${1:-vanilla}
case $fl in
vanilla|rt|android) ;;
*) die "unknown flavour '$fl'; known: vanilla rt android" ;;
esac
[ -f "$TOP/series" ] || die "$TOP/series missing"
echo "# mm510 for Linux $BASE_VERSION, $fl flavour: generated from series by ci/series.sh"
series_patches "$TOP/series" "$fl"
