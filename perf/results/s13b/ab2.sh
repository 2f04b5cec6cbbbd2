#!/bin/bash
# ab2.sh: the second window: 4 ranks 256 KiB-4 MiB (alltoall, reduce, the stars scatter and gather,
# allreduce), 4 ranks 16-128 KiB (where direct starts), 3 and 5 ranks 256 KiB-4 MiB; base against the branch
cd "$(dirname "$0")/../../.." || exit 1
o=perf/results/s13b
NP=4 bash perf/results/s10g/ab.sh $o/ab2-n4.txt 8 "alltoall reduce scatter gather allreduce" "-b 256K -e 4M -f 2" \
  base=${BASE:?}/_inst new=${NEW:?}/_inst
NP=4 bash perf/results/s10g/ab.sh $o/ab2-n4-small.txt 5 "alltoall allgather allreduce reduce_scatter gather scatter" \
  "-b 16K -e 128K -f 2" base=$BASE/_inst new=$NEW/_inst
for n in 3 5; do
  NP=$n bash perf/results/s10g/ab.sh $o/ab2-n$n.txt 5 "alltoall reduce allreduce scatter" "-b 256K -e 4M -f 2" \
    base=$BASE/_inst new=$NEW/_inst
done
