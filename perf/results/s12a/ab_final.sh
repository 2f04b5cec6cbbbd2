#!/bin/bash
# ab_final.sh OUT BASE NEW ROUNDS: base against the branch, 2 ranks alltoall / allgather 1-64 MiB,
# then 4 ranks 256 KiB-4 MiB (ROUNDS - 2 rounds)
O=$1; B=$2; N=$3; R=${4:-8}; H=$(dirname $0)
for c in alltoall allgather; do
  echo "#@ $c" >> $O
  $H/ab.sh $R "--coll $c -b 1M -e 64M -f 4" base=$B new=$N >> $O
done
for c in alltoall allgather; do
  echo "#@ $c-n4" >> $O
  NP=4 $H/ab.sh $((R - 2)) "--coll $c -b 256K -e 4M -f 4" base=$B new=$N >> $O
done
