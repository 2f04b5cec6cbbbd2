#!/usr/bin/env bash
# run_ar_n2.sh OUT: 2-rank allreduce <= 64 KiB, 48 rotated rounds: main / A/A /
# this branch / before / main with reduce.c built with 64-byte function, loop
# and jump alignment (variant.sh), one program (this branch's plx_perf).  Under qlock x.
W=${W:?W: the folder holding the worktrees before, base, s16b, s16b-kern}
PERF_PROG=$W/s16b perf/small_ratio.sh "$1" 2 48 allreduce main=$W/base aa=$W/base fix=$W/s16b before=$W/before kern=$W/s16b-kern
