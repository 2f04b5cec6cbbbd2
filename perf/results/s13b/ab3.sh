#!/bin/bash
# ab3.sh: the final code (the early sleep only with 2+ ranks per core): 3 ranks (path as base),
# 4 ranks 1-4 MiB (a third window); base against the branch
cd "$(dirname "$0")/../../.." || exit 1
o=perf/results/s13b
NP=4 bash perf/results/s10g/ab.sh $o/ab3-n4.txt 6 "alltoall reduce scatter gather" "-b 1M -e 4M -f 2" \
  base=${BASE:?}/_inst new=${NEW:?}/_inst
NP=3 bash perf/results/s10g/ab.sh $o/ab3-n3.txt 5 "alltoall reduce allreduce" "-b 1M -e 4M -f 2" \
  base=$BASE/_inst new=$NEW/_inst
