#!/bin/bash
# ab4.sh: a fourth window for the cells in question at 4 ranks (scatter, alltoall, reduce 2-4 MiB), 12 launches
cd "$(dirname "$0")/../../.." || exit 1
NP=4 bash perf/results/s10g/ab.sh perf/results/s13b/ab4-n4.txt 12 "scatter alltoall reduce" "-b 2M -e 4M -f 2" \
  base=${BASE:?}/_inst new=${NEW:?}/_inst
