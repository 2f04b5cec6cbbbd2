#!/bin/bash
# perf/results/s7t/run5.sh -- main (base) against this branch (new: shared
# tail for 1-2 MiB blocks), 2 ranks, 16 interleaved launches.  Under qlock x.
cd "$(dirname "$0")/../../.." || exit 1
R=perf/results/s7t
uptime
LIMITS=/tmp/s7t_limits $R/ab.sh $R/ab6-n2.txt 16 2 alltoall,allgather 1M,2M,4M base new
uptime
