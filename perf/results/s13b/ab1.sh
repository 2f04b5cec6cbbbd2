#!/bin/bash
# ab1.sh: 4 ranks, the eight collectives 256 KiB-4 MiB, base against the branch (8 rotated launches)
cd "$(dirname "$0")/../../.." || exit 1
NP=4 bash perf/results/s10g/ab.sh perf/results/s13b/ab1-n4.txt 8 \
  "alltoall reduce allreduce bcast allgather reduce_scatter gather scatter" "-b 256K -e 4M -f 2" \
  base=${BASE:?}/_inst new=${NEW:?}/_inst
