#!/bin/bash
# scatter 256 KiB at 4 ranks: the branch's default (direct star) against the other
# algorithms forced, Open MPI both setups.
# usage: ab-scatter.sh NEW_PREFIX ROUNDS  (MPI_BENCH, UPLOG as s8f/dist.sh)
N=$1 R=${2:-10}; d=$(dirname $0)/../s8f
$d/dist.sh scatter 256K $R new=$N new=$N@linear new=$N@binomial ompi-ob1 ompi-def
