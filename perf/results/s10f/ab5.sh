#!/bin/bash
# Third window, the final build: bcast and gather 256 KiB at 4 ranks with Open MPI.
# usage: ab5.sh MAIN_PREFIX NEW_PREFIX ROUNDS  (MPI_BENCH, UPLOG as s8f/dist.sh)
B=$1 N=$2 R=${3:-10}; d=$(dirname $0)/../s8f
$d/dist.sh bcast 256K $R base=$B new=$N ompi-ob1 ompi-def
$d/dist.sh gather 256K $R base=$B new=$N ompi-ob1 ompi-def
