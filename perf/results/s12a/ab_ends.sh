#!/bin/bash
# ab_ends.sh OUT BASE NEW ROUNDS: base against the branch with PLX_X_THP_ENDS=1 (end frames collapsed
# PLX_X_THP_ENDS was a temporary knob of the experiment build (not in the branch: the kept rule replaced it)
# when mapped), alltoall then allgather, 4-64 MiB
O=$1; B=$2; N=$3; R=${4:-8}; H=$(dirname $0)
for c in alltoall allgather; do
  echo "#@ $c" >> $O
  $H/ab.sh $R "--coll $c -b 4M -e 64M -f 4" base=$B ends=$N:PLX_X_THP_ENDS=1 >> $O
done
