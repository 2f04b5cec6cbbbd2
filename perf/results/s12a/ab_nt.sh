#!/bin/bash
# ab_nt.sh OUT NEW ROUNDS: the branch against the branch with glibc's memcpy switched to
# non-temporal stores from 512 KiB (the own-block copy's pieces; default threshold 127 MiB here)
O=$1; N=$2; R=${3:-8}; H=$(dirname $0)
for c in alltoall allgather; do
  echo "#@ $c" >> $O
  $H/ab.sh $R "--coll $c -b 4M -e 64M -f 4" new=$N nt=$N:GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=0x7ffff >> $O
done
