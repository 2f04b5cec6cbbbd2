#!/usr/bin/env bash
# run_confirm.sh: 2-rank allreduce and bcast <= 64 KiB again, 48 rotated rounds
# (main / A/A / this branch), then allreduce and reduce 1-16 MiB at 2 ranks,
# plx_perf A/B (perf/results/s10g/ab.sh, 8 alternated rounds).  Under qlock x.
W=${W:?W: the folder holding the worktrees before, base, s16b, s16b-kern}; R=perf/results/s16b
uptime
PERF_PROG=$W/s16b perf/small_ratio.sh $R/small2-n2.txt 2 48 allreduce,bcast main=$W/base aa=$W/base fix=$W/s16b
uptime
perf/results/s10g/ab.sh $R/big-n2.txt 8 "allreduce reduce" "-b 1M -e 16M -f 2" base=$W/base/_inst fix=$W/s16b/_inst
uptime
