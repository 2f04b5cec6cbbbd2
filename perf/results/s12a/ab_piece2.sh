#!/bin/bash
# ab_piece2.sh OUT NEW ROUNDS: the second window of ab_piece.sh, 512 KiB against 2 MiB pieces only, 16-64 MiB
# PLX_X_SHARE_PIECE: see ab_piece.sh
O=$1; N=$2; R=${3:-10}; H=$(dirname $0)
for c in alltoall allgather; do
  echo "#@ $c" >> $O
  $H/ab.sh $R "--coll $c -b 16M -e 64M -f 4" p512k=$N p2m=$N:PLX_X_SHARE_PIECE=2097152 >> $O
done
