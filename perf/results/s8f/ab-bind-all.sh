#!/bin/bash
# 4 ranks, 256 KiB-4 MiB: main unbound (default) against PLX_BIND_TO=core,
# Open MPI ob1 as reference, 5 interleaved rounds per cell.
# usage: ab-bind-all.sh MAIN_PREFIX COLL...  (MPI_BENCH, UPLOG as dist.sh)
B=$1; shift; here=$(dirname $0)
for c in "$@"; do for b in 256K 1M 4M; do
  $here/dist.sh $c $b 5 main=$B main=$B%PLX_BIND_TO=core ompi-ob1
done; done
