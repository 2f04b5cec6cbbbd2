#!/usr/bin/env bash
# run_small.sh OUT RANKS: allreduce, bcast, reduce <= 64 KiB, 24 rotated rounds,
# main / A/A of main / this branch, one program (this branch's plx_perf).  Under qlock x.
W=${W:?W: the folder holding the worktrees before, base, s16b, s16b-kern}
PERF_PROG=$W/s16b perf/small_ratio.sh "$1" "$2" 24 allreduce,bcast,reduce main=$W/base aa=$W/base fix=$W/s16b
