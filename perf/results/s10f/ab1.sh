#!/bin/bash
# The branch against main, one size per launch, launches interleaved
# (s8f/dist.sh): bcast and gather 256 KiB at 4 ranks with Open MPI, 128 KiB
# at 4 ranks, 256 KiB at 3 and 5 ranks.
# usage: ab1.sh MAIN_PREFIX NEW_PREFIX ROUNDS  (MPI_BENCH, UPLOG as s8f/dist.sh)
B=$1 N=$2 R=${3:-10}; d=$(dirname $0)/../s8f
$d/dist.sh bcast 256K $R base=$B new=$N ompi-ob1 ompi-def
$d/dist.sh gather 256K $R base=$B new=$N ompi-ob1 ompi-def
$d/dist.sh bcast 128K 8 base=$B new=$N ompi-ob1
$d/dist.sh gather 128K 8 base=$B new=$N ompi-ob1
for n in 3 5; do
  NR=$n $d/dist.sh bcast 256K 8 base=$B new=$N | sed "s/^bcast/bcast-n$n/"
  NR=$n $d/dist.sh gather 256K 8 base=$B new=$N | sed "s/^gather/gather-n$n/"
done
