#!/bin/bash
# ab2.sh: base against the branch (defaults), interleaved, under the machine lock:
# 2 ranks allgather/alltoall 512K-4M (8 rounds), 2 ranks the other direct collectives
# 1-16 MiB (5 rounds), 4 ranks allgather/alltoall 256K-4M (5 rounds).
D=$(dirname "$0"); B=$1; N=$2; T=${3:-2}
NP=2 bash perf/results/s10g/ab.sh $D/ab$T-n2.txt 8 "allgather alltoall" "-b 512K -e 4M -f 2" base=$B new=$N
NP=2 bash perf/results/s10g/ab.sh $D/ab$T-n2-other.txt 5 "allreduce bcast reduce reduce_scatter" "-b 1M -e 16M -f 4" base=$B new=$N
NP=4 bash perf/results/s10g/ab.sh $D/ab$T-n4.txt 5 "allgather alltoall" "-b 256K -e 4M -f 4" base=$B new=$N
