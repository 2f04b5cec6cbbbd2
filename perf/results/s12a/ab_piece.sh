#!/bin/bash
# ab_piece.sh OUT NEW ROUNDS: the branch with the 2-rank shared read in 512 KiB pieces (as it is)
# PLX_X_SHARE_PIECE was a temporary knob of the experiment build (not in the branch: 2 MiB became the constant)
# against 1 MiB and 2 MiB pieces (temporary PLX_X_SHARE_PIECE), alltoall / allgather 4-64 MiB
O=$1; N=$2; R=${3:-8}; H=$(dirname $0)
for c in alltoall allgather; do
  echo "#@ $c" >> $O
  $H/ab.sh $R "--coll $c -b 4M -e 64M -f 4" p512k=$N p1m=$N:PLX_X_SHARE_PIECE=1048576 p2m=$N:PLX_X_SHARE_PIECE=2097152 >> $O
done
