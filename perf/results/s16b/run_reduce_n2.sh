#!/usr/bin/env bash
# run_reduce_n2.sh OUT: 2-rank reduce <= 64 KiB, 48 rotated rounds, before /
# A/A / main / this branch, one program (this branch's plx_perf).  Under qlock x.
W=${W:?W: the folder holding the worktrees before, base, s16b, s16b-kern}
PERF_PROG=$W/s16b perf/small_ratio.sh "$1" 2 48 reduce before=$W/before aa=$W/before main=$W/base fix=$W/s16b kern=$W/s16b-kern
