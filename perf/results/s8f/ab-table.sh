#!/bin/bash
# bcast at 4 ranks, 128 KiB-4 MiB: main against the branch (256 KiB and up:
# the same path in both, a control), Open MPI ob1; 5 interleaved rounds.
# usage: ab-table.sh MAIN_PREFIX NEW_PREFIX  (MPI_BENCH, UPLOG as dist.sh)
B=$1 N=$2; here=$(dirname $0)
for b in 128K 256K 1M 4M; do $here/dist.sh bcast $b 5 main=$B new=$N ompi-ob1; done
