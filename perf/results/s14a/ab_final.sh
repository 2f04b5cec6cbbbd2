#!/bin/bash
# ab_final.sh TAG BASE NEW: the final code (defaults, no variable) against main, one machine-lock
# hold, 8 launches per arm: allgather and alltoall 256 KiB-4 MiB at 3, 4 and 5 ranks, 2-rank
# reduce_scatter 1-16 MiB.
set -u
tag=$1; B=$2; N=$3; cd "$(dirname "$0")"
for np in 3 4 5; do
  NP=$np bash ../s10g/ab.sh $tag-n$np.txt 8 "allgather alltoall" "-b 256K -e 4M -f 2" base=$B new=$N
done
NP=2 bash ../s10g/ab.sh $tag-rs-n2.txt 8 "reduce_scatter" "-b 1M -e 16M -f 2" base=$B new=$N
