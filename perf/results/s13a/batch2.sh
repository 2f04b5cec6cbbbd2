#!/bin/bash
# batch2.sh: the <= 64 KiB table at 4 ranks, base (main) against this branch, one program (main's
# plx_perf), 12 rotated rounds (base, new, Open MPI).  BASE: main's built tree.  Run under qlock x.
set -u
D=$(cd "$(dirname "$0")" && pwd); W=$(cd "$D/../../.." && pwd); B=${BASE:?main\'s built tree}
PERF_PROG=$B bash $W/perf/small_ratio.sh $D/small-n4.txt 4 ${ROUNDS:-12} allreduce,bcast,reduce base=$B new=$W
