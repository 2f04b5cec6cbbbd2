#!/bin/bash
# star bcast (branch) against main at 4 ranks; forced alternatives at 256 KiB.
# usage: ab-bcast1.sh MAIN_PREFIX NEW_PREFIX  (MPI_BENCH, UPLOG as dist.sh)
B=$1 N=$2; here=$(dirname $0)
$here/dist.sh bcast 256K 8 new=$N main=$B main=$B@binomial main=$B@scatter_allgather ompi-ob1
for b in 1M 4M; do $here/dist.sh bcast $b 6 new=$N main=$B ompi-ob1; done
