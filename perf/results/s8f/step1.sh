#!/bin/bash
# step 1: 4 ranks, bcast/alltoall/reduce/scatter at 256 KiB and 1 MiB, main's
# default against Open MPI (both setups), 6 interleaved rounds per cell.
# usage: step1.sh BASE_PREFIX  (MPI_BENCH, UPLOG as dist.sh)
B=$1; here=$(dirname $0)
for c in bcast alltoall reduce scatter; do for b in 256K 1M; do
  $here/dist.sh $c $b 6 main=$B ompi-ob1 ompi-def
done; done
