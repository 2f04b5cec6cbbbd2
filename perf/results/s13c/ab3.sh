#!/bin/bash
# ab3.sh: the second window -- 2 ranks allgather/alltoall 512K-4M (8 rounds), the 2-rank
# reductions 1-16 MiB (6 rounds) and the same from 4 MiB (no 1 MiB collapse before them),
# 4 ranks allgather/alltoall 256K-4M (8 rounds).
D=$(dirname "$0"); B=$1; N=$2; T=${3:-3}
NP=2 bash perf/results/s10g/ab.sh $D/ab$T-n2.txt 8 "allgather alltoall" "-b 512K -e 4M -f 2" base=$B new=$N
NP=2 bash perf/results/s10g/ab.sh $D/ab$T-n2-other.txt 6 "allreduce reduce reduce_scatter" "-b 1M -e 16M -f 4" base=$B new=$N
NP=2 bash perf/results/s10g/ab.sh $D/ab$T-n2-other4.txt 4 "allreduce reduce reduce_scatter" "-b 4M -e 16M -f 4" base=$B new=$N
NP=4 bash perf/results/s10g/ab.sh $D/ab$T-n4.txt 8 "allgather alltoall" "-b 256K -e 4M -f 4" base=$B new=$N
