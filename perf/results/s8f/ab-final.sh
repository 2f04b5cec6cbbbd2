#!/bin/bash
# bcast at 4 ranks, main against the branch (head/tail split up to 512 KiB),
# Open MPI ob1 as reference; 1 MiB takes the same path in both (control).
# usage: ab-final.sh MAIN_PREFIX NEW_PREFIX  (MPI_BENCH, UPLOG as dist.sh)
B=$1 N=$2; here=$(dirname $0)
$here/dist.sh bcast 256K 8 main=$B new=$N ompi-ob1 ompi-def
for b in 128K 512K 1M; do $here/dist.sh bcast $b 6 main=$B new=$N ompi-ob1; done
