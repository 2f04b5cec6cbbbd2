#!/bin/bash
# The final build against main: 4 ranks bcast 192K / 256K (star) and the other
# cells of the brief (reduce 256K / 1M, scatter 256K: unchanged code), Open MPI;
# 3 and 5 ranks bcast 256K (the star there too).
# usage: ab-final.sh MAIN_PREFIX NEW_PREFIX ROUNDS  (MPI_BENCH, UPLOG as s8f/dist.sh)
B=$1 N=$2 R=${3:-8}; d=$(dirname $0)/../s8f
$d/dist.sh bcast 192K $R main=$B new=$N ompi-ob1
$d/dist.sh bcast 256K $((R+2)) main=$B new=$N ompi-ob1 ompi-def
$d/dist.sh reduce 256K $R main=$B new=$N ompi-ob1 ompi-def
$d/dist.sh reduce 1M $R main=$B new=$N ompi-ob1 ompi-def
$d/dist.sh scatter 256K $R main=$B new=$N ompi-ob1 ompi-def
NR=3 $d/dist.sh bcast 256K $R main=$B new=$N | sed 's/^bcast/bcast-n3/'
NR=5 $d/dist.sh bcast 256K $R main=$B new=$N | sed 's/^bcast/bcast-n5/'
