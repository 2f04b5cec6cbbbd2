#!/bin/bash
# step 1, second window: the 256 KiB cells again, 10 rounds (main vs Open MPI)
# usage: step1b.sh MAIN_PREFIX  (MPI_BENCH, UPLOG as dist.sh)
B=$1; here=$(dirname $0)
for c in bcast alltoall reduce; do $here/dist.sh $c 256K 10 main=$B ompi-ob1 ompi-def; done
