#!/bin/bash
# ab5.sh: scatter back on the plain wait (the last commit): 4 ranks scatter 512 KiB-2 MiB, and alltoall 4 MiB
cd "$(dirname "$0")/../../.." || exit 1
NP=4 bash perf/results/s10g/ab.sh perf/results/s13b/ab5-n4.txt 10 "scatter alltoall" "-b 512K -e 4M -f 2" \
  base=${BASE:?}/_inst new=${NEW:?}/_inst
