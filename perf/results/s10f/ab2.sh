#!/bin/bash
# Second window, 4 ranks: bcast and gather 256 KiB with Open MPI again; 1 MiB
# (the same path in both builds); the cells <= 64 KiB the new rows move
# (gather 32 / 64 KiB totals, bcast 64 KiB) and small allreduce (same
# algorithm, larger windows in the segment).
# usage: ab2.sh MAIN_PREFIX NEW_PREFIX  (MPI_BENCH, UPLOG as s8f/dist.sh)
B=$1 N=$2; d=$(dirname $0)/../s8f
$d/dist.sh bcast 256K 10 base=$B new=$N ompi-ob1 ompi-def
$d/dist.sh gather 256K 10 base=$B new=$N ompi-ob1 ompi-def
$d/dist.sh bcast 1M 6 base=$B new=$N
$d/dist.sh gather 1M 6 base=$B new=$N
$d/dist.sh gather 32K 8 base=$B new=$N
$d/dist.sh gather 64K 8 base=$B new=$N
$d/dist.sh bcast 64K 8 base=$B new=$N
$d/dist.sh allreduce 8 8 base=$B new=$N
$d/dist.sh allreduce 16K 8 base=$B new=$N
