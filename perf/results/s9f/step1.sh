#!/bin/bash
# Step 1: the four cells on main (default and forced algorithms) against Open MPI,
# launches interleaved; usage: step1.sh MAIN_PREFIX ROUNDS  (MPI_BENCH, UPLOG as
# perf/results/s8f/dist.sh)
B=$1 R=${2:-6}; d=$(dirname $0)/../s8f
$d/dist.sh bcast 256K $R main=$B main=$B@binomial ompi-ob1 ompi-def
$d/dist.sh reduce 256K $R main=$B main=$B@binomial main=$B@reduce_scatter_gather ompi-ob1 ompi-def
$d/dist.sh reduce 1M $R main=$B main=$B@binomial main=$B@reduce_scatter_gather ompi-ob1 ompi-def
$d/dist.sh scatter 256K $R main=$B main=$B@linear ompi-ob1 ompi-def
