#!/bin/bash
# perf/results/s7t/run4.sh -- 2 ranks alltoall 1-4 MiB: shared read with a
# small claimable tail (the reader reads 7/8 or 3/4 of the block in one call,
# then claims the rest; the faster rank claims from the back) against the
# unchanged path.  Probe build (probe.diff).  Under qlock x.
cd "$(dirname "$0")/../../.." || exit 1
R=perf/results/s7t
uptime
LIMITS=/tmp/s7t_limits $R/ab.sh $R/ab5-n2.txt 24 2 alltoall 1M,4M base \
    p0:S7T_PROBE=1 \
    t7:S7T_PROBE=1,S7T_SHFROM=1048576,S7T_HALVE=1,S7T_FIRST8=7 \

    t7s:S7T_PROBE=1,S7T_SHFROM=524288,S7T_HALVE=1,S7T_FIRST8=7
uptime
