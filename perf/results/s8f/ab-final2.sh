#!/bin/bash
# bcast at 4 ranks, main against the branch (head/tail split below 256 KiB),
# Open MPI ob1 as reference; 256 KiB takes the same path in both (control).
# usage: ab-final2.sh MAIN_PREFIX NEW_PREFIX  (MPI_BENCH, UPLOG as dist.sh)
B=$1 N=$2; here=$(dirname $0)
$here/dist.sh bcast 128K 10 main=$B new=$N ompi-ob1
$here/dist.sh bcast 192K 6 main=$B new=$N ompi-ob1
$here/dist.sh bcast 256K 5 main=$B new=$N ompi-ob1
